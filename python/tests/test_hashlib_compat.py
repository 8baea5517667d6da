"""linerate's hash objects against hashlib: digests on random data at every
block boundary and split, buffer types, the hashlib protocol, hmac and
file_digest, threads, errors."""

import array
import hashlib
import hmac
import io
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import linerate_hash as linerate
from conftest import boundary_lengths, md5p_reference, ticks_during

# docs/md5p.md's test vectors, from their data file (docs/md5p-vectors.txt):
# K, message, digest.
def _spec_message(name):
    if name == '""':
        return b""
    if name == '"abc"':
        return b"abc"
    if name == "bytes(0..255) * 4":
        return bytes(range(256)) * 4
    assert name.startswith('"a" * '), name
    return b"a" * int(name.split("*")[1])


def _spec_vectors():
    path = Path(__file__).resolve().parents[2] / "docs" / "md5p-vectors.txt"
    rows = []
    for line in path.read_text().splitlines():
        if line.startswith("#"):
            continue
        k, name, digest = line.split("\t")
        rows.append((int(k), _spec_message(name), digest))
    assert len(rows) == 18
    return rows


SPEC_VECTORS = _spec_vectors()

# RFC 1321, appendix A.5, verbatim.
RFC1321 = [
    (b"", "d41d8cd98f00b204e9800998ecf8427e"),
    (b"a", "0cc175b9c0f1b6a831c399e269772661"),
    (b"abc", "900150983cd24fb0d6963f7d28e17f72"),
    (b"message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
    (b"abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
    (
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
        "d174ab98d277d9f5a5611c2c9f419d9f",
    ),
    (
        b"12345678901234567890123456789012345678901234567890123456789012345678901234567890",
        "57edf4a22be3c955ac49da2e2107b67a",
    ),
]


@pytest.mark.parametrize("data,expected", RFC1321)
def test_rfc1321_vectors(data, expected):
    assert linerate.md5(data).hexdigest() == expected


@pytest.mark.parametrize("k,data,expected", SPEC_VECTORS)
def test_md5p_spec_vectors(k, data, expected):
    assert linerate.md5p(k, data).hexdigest() == expected
    assert linerate.new(f"md5p{k}", data).hexdigest() == expected


def test_md5_every_boundary_and_split(rng):
    for n in boundary_lengths(64, 5) + [rng.randrange(1, 20000) for _ in range(20)]:
        data = rng.randbytes(n)
        want = hashlib.md5(data).digest()
        assert linerate.md5(data).digest() == want, n
        # the same data over random update splits, from unaligned offsets
        h = linerate.md5()
        i = 0
        while i < n:
            j = min(n, i + rng.choice([1, 3, 63, 64, 65, 2047, 2048, 4099]))
            h.update(memoryview(data)[i:j])
            i = j
        assert h.digest() == want, n


def test_md5p_against_reference(rng):
    for k in (4, 8, 12, 16, 32, 256):
        for n in [0, 1, 64 * k - 1, 64 * k, 64 * k + 1, rng.randrange(1, 50000)]:
            data = rng.randbytes(n)
            h = linerate.md5p(k)
            cut = rng.randrange(0, n + 1)
            h.update(data[:cut])
            h.update(data[cut:])
            assert h.digest() == md5p_reference(data, k), (k, n)


def test_large_update_releases_nothing_wrong(rng):
    data = rng.randbytes((1 << 22) + 13)
    assert linerate.md5(data).digest() == hashlib.md5(data).digest()
    assert linerate.md5p(16, data).digest() == md5p_reference(data, 16)


def test_buffer_types(rng):
    raw = rng.randbytes(5000)
    want = hashlib.md5(raw).hexdigest()
    for obj in [
        raw,
        bytearray(raw),
        memoryview(raw),
        memoryview(bytearray(raw))[0:],
        array.array("B", raw),
        np.frombuffer(raw, dtype=np.uint8),
        np.frombuffer(raw[:4000], dtype=np.uint32).reshape(40, 25),
    ]:
        expected = want if len(memoryview(obj).tobytes()) == 5000 else hashlib.md5(raw[:4000]).hexdigest()
        assert linerate.md5(obj).hexdigest() == expected, type(obj)


def test_non_contiguous_and_wrong_types_raise():
    # the exporter's own error, as hashlib passes it on
    arr = np.arange(100, dtype=np.uint8)[::2]
    with pytest.raises(ValueError, match="not C-contiguous"):
        hashlib.md5(arr)
    with pytest.raises(ValueError, match="not C-contiguous"):
        linerate.md5(arr)
    with pytest.raises(TypeError, match="Strings must be encoded"):
        linerate.md5("abc")
    with pytest.raises(TypeError, match="buffer API"):
        linerate.md5(12)
    with pytest.raises(TypeError):
        linerate.md5().update(None)
    with pytest.raises(ValueError, match="multiple of 4"):
        linerate.md5p(6)
    with pytest.raises(ValueError, match="unsupported hash type"):
        linerate.new("sha1")


def test_bytearray_cannot_resize_while_hashed():
    # hashlib holds an export while it reads; so do we: no resize in between.
    data = bytearray(b"x" * 10)
    h = linerate.md5(data)
    data.extend(b"y")  # after the call, resizing works again
    assert h.hexdigest() == hashlib.md5(b"x" * 10).hexdigest()


def test_protocol_attributes_and_copy():
    h = linerate.md5(b"ab")
    assert (h.name, h.digest_size, h.block_size) == ("md5", 16, 64)
    assert linerate.md5p(32).name == "md5p32"
    c = h.copy()
    c.update(b"c")
    assert h.hexdigest() == hashlib.md5(b"ab").hexdigest()
    assert c.hexdigest() == hashlib.md5(b"abc").hexdigest()
    assert h.digest() == h.digest()  # digest does not end the object
    assert linerate.md5(usedforsecurity=False).hexdigest() == hashlib.md5(b"").hexdigest()
    assert linerate.md5(string=b"abc").hexdigest() == hashlib.md5(b"abc").hexdigest()
    assert "md5p4" in linerate.algorithms_available


def test_hmac_digestmod(rng):
    for klen in (0, 1, 16, 63, 64, 65, 200):
        key = rng.randbytes(klen)
        msg = rng.randbytes(rng.randrange(0, 3000))
        want = hmac.new(key, msg, "md5").hexdigest()
        assert hmac.new(key, msg, linerate.md5).hexdigest() == want
        assert hmac.digest(key, msg, linerate.md5) == bytes.fromhex(want)
        assert linerate.hmac_md5(key, msg) == bytes.fromhex(want)
    # MD5-P/K as the digest of HMAC: HMAC's construction over md5p16.
    key, msg = b"k" * 70, rng.randbytes(5000)
    assert hmac.new(key, msg, lambda *a: linerate.md5p(16, *a)).digest() == hmac_over(key, msg)


def hmac_over(key, msg):
    """HMAC over MD5-P/16 computed from the RFC 2104 formula with the spec's
    reference (block size 64)."""
    if len(key) > 64:
        key = md5p_reference(key, 16)
    key = key.ljust(64, b"\0")
    inner = md5p_reference(bytes(b ^ 0x36 for b in key) + msg, 16)
    return md5p_reference(bytes(b ^ 0x5C for b in key) + inner, 16)


@pytest.mark.skipif(sys.version_info < (3, 11), reason="hashlib.file_digest is new in Python 3.11")
def test_file_digest(tmp_path, rng):
    data = rng.randbytes(3 * (1 << 18) + 5)
    path = tmp_path / "f"
    path.write_bytes(data)
    with open(path, "rb") as f:
        assert hashlib.file_digest(f, linerate.md5).digest() == hashlib.md5(data).digest()
    assert hashlib.file_digest(io.BytesIO(data), linerate.md5).digest() == hashlib.md5(data).digest()
    f = open(path, "rb")
    f.close()
    with pytest.raises(ValueError, match="closed file"):
        hashlib.file_digest(f, linerate.md5)


def test_shared_between_threads(rng):
    # Every thread adds the same chunk, so any interleaving gives one digest.
    chunk = rng.randbytes(4096 + 17)
    h = linerate.md5()
    threads, per = 8, 200

    def work():
        for _ in range(per):
            h.update(chunk)
            h.copy().digest()

    ts = [threading.Thread(target=work) for _ in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert h.digest() == hashlib.md5(chunk * (threads * per)).digest()


def test_many_threads_own_objects(rng):
    datas = [rng.randbytes(rng.randrange(0, 200000)) for _ in range(16)]
    results = [None] * len(datas)

    def work(i):
        results[i] = linerate.md5(datas[i]).digest()

    ts = [threading.Thread(target=work, args=(i,)) for i in range(len(datas))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert results == [hashlib.md5(d).digest() for d in datas]


def test_large_updates_release_the_gil():
    big = bytes(256 << 20)
    assert ticks_during(lambda: linerate.md5(big)) > 0
    assert ticks_during(lambda: linerate.md5p(4, big)) > 0
    # The control: a C call that keeps the GIL (bytes.count never lets go).
    assert ticks_during(lambda: big.count(b"\x01\x02")) == 0
