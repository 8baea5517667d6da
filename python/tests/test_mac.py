"""HMAC and UMAC against independent implementations: Python's hmac
(OpenSSL), RFC 4418's vectors verbatim, and nettle through ctypes."""

import ctypes
import ctypes.util
import hashlib
import hmac

import pytest

import linerate_hash as linerate
from conftest import required_peers

# RFC 4418 appendix: key "abcdefghijklmnop", nonce "bcdefghi";
# (pattern, repetitions, UMAC-32, UMAC-64, UMAC-96), verbatim, with the row
# for 2^25 bytes as corrected by erratum 3507.
RFC4418 = [
    ("a", 0, "113145FB", "6E155FAD26900BE1", "32FEDB100C79AD58F07FF764"),
    ("a", 3, "3B91D102", "44B5CB542F220104", "185E4FE905CBA7BD85E4C2DC"),
    ("a", 1 << 10, "599B350B", "26BF2F5D60118BD9", "7A54ABE04AF82D60FB298C3C"),
    ("a", 1 << 15, "58DCF532", "27F8EF643B0D118D", "7B136BD911E4B734286EF2BE"),
    ("a", 1 << 20, "DB6364D1", "A4477E87E9F55853", "F8ACFA3AC31CFEEA047F7B11"),
    ("abc", 1, "ABF3A3A0", "D4D7B9F6BD4FBFCF", "883C3D4B97A61976FFCF2323"),
    ("abc", 500, "ABEB3C8B", "D4CF26DDEFD5C01A", "8824A260C53C66A36C9260A6"),
]


@pytest.mark.parametrize("pattern,reps,t32,t64,t96", RFC4418)
def test_umac_rfc4418(pattern, reps, t32, t64, t96):
    msg = pattern.encode() * reps
    for bits, want in ((32, t32), (64, t64), (96, t96)):
        u = linerate.umac(b"abcdefghijklmnop", bits)
        assert u.tag(msg, b"bcdefghi").hex().upper() == want
        assert u.verify(msg, b"bcdefghi", bytes.fromhex(want))
        assert not u.verify(msg, b"bcdefghj", bytes.fromhex(want))


def nettle():
    name = ctypes.util.find_library("nettle")
    if name is None:
        if required_peers():
            pytest.fail("libnettle not found (scripts/test-all.sh installs nettle-dev)")
        pytest.skip("libnettle not installed: apt-get install nettle-dev")
    return ctypes.CDLL(name)


def nettle_umac(lib, bits, key, nonce, msg):
    # umac*_ctx is at most a few KiB; a generous buffer holds any of them.
    ctx = ctypes.create_string_buffer(16384)
    f = lambda name: getattr(lib, f"nettle_umac{bits}_{name}")
    f("set_key")(ctx, key)
    f("set_nonce")(ctx, ctypes.c_size_t(len(nonce)), nonce)
    f("update")(ctx, ctypes.c_size_t(len(msg)), msg)
    out = ctypes.create_string_buffer(bits // 8)
    f("digest")(ctx, ctypes.c_size_t(bits // 8), out)
    return out.raw


def test_umac_against_nettle(rng):
    lib = nettle()
    for bits in (32, 64, 96, 128):
        key = rng.randbytes(16)
        u = linerate.umac(key, bits)
        msgs, nonces = [], []
        for n in [0, 1, 31, 32, 33, 1023, 1024, 1025, 4096, rng.randrange(0, 70000)]:
            msg, nonce = rng.randbytes(n), rng.randbytes(rng.randrange(1, 17))
            want = nettle_umac(lib, bits, key, nonce, msg)
            assert u.tag(msg, nonce) == want, (bits, n)
            msgs.append(msg)
            nonces.append(nonce)
        assert u.tag_many(msgs, nonces) == [nettle_umac(lib, bits, key, n, m) for m, n in zip(msgs, nonces)]


def test_umac_errors():
    with pytest.raises(ValueError, match="16-byte key"):
        linerate.umac(b"short")
    with pytest.raises(ValueError, match="32, 64, 96 or 128"):
        linerate.umac(b"k" * 16, 48)
    u = linerate.umac(b"k" * 16, 64)
    with pytest.raises(ValueError, match="nonce"):
        u.tag(b"m", b"")
    with pytest.raises(ValueError, match="one nonce per message"):
        u.tag_many([b"a", b"b"], [b"n"])
    assert (u.name, u.digest_size) == ("umac-64", 8)


def test_hmac_key_against_hmac_module(rng):
    for digest in ("md5", "sha1"):
        for klen in (0, 5, 64, 65, 131):
            key = rng.randbytes(klen)
            k = linerate.HmacKey(key, digest)
            msgs = [rng.randbytes(rng.randrange(0, 2100)) for _ in range(40)]
            want = [hmac.new(key, m, digest).digest() for m in msgs]
            assert [k.tag(m) for m in msgs] == want
            assert k.tag_many(msgs) == want
            assert k.tag_many(msgs, truncate=12) == [w[:12] for w in want]
            assert all(k.verify(m, w) for m, w in zip(msgs, want))
            assert all(k.verify(m, w[:12], truncate=12) for m, w in zip(msgs, want))
            # a tag of another length than the caller's never verifies
            assert not k.verify(msgs[0], want[0][:12])
            bad = bytearray(want[0])
            bad[-1] ^= 1
            assert not k.verify(msgs[0], bytes(bad))
            assert k.digest_size == hashlib.new(digest).digest_size


def test_hmac_key_errors():
    with pytest.raises(ValueError, match="md5 and sha1"):
        linerate.HmacKey(b"k", "sha256")
    with pytest.raises(ValueError, match="truncate"):
        linerate.HmacKey(b"k").tag(b"m", truncate=4)
    with pytest.raises(TypeError):
        linerate.HmacKey("text key")


def test_compare_digest():
    assert linerate.compare_digest(b"abc", b"abc")
    assert not linerate.compare_digest(b"abc", b"abd")
    assert not linerate.compare_digest(b"abc", b"ab")
    assert linerate.compare_digest(bytearray(b"x"), memoryview(b"x"))
    assert linerate.compare_digest("abc", "abc")
    with pytest.raises(TypeError):
        linerate.compare_digest("abc", b"abc")
    with pytest.raises(TypeError):
        linerate.compare_digest("é", "é")
    # same answers as the standard library
    for a, b in [(b"", b""), (b"a", b""), (b"\0" * 5, b"\0" * 5)]:
        assert linerate.compare_digest(a, b) == hmac.compare_digest(a, b)
