"""md5_many and md5_many_offsets against hashlib."""

import array
import hashlib

import numpy as np
import pytest

import linerate_hash as linerate
from conftest import ticks_during


@pytest.mark.parametrize("threads", [1, 2, 3, None])
def test_md5_many_random_rows(rng, threads):
    # about 5 MB with the per-row cost: split over up to 4 threads
    rows = [rng.randbytes(rng.choice([0, 1, 55, 56, 63, 64, 65, 119, 120, rng.randrange(0, 3000)])) for _ in range(20000)]
    assert linerate.md5_many(rows, threads=threads) == [hashlib.md5(r).digest() for r in rows]
    values, offsets = column(rows, np.int64)
    want = b"".join(hashlib.md5(r).digest() for r in rows)
    assert linerate.md5_many_offsets(values, offsets, threads=threads) == want


def test_md5_many_iterables_and_buffer_types(rng):
    raw = [rng.randbytes(rng.randrange(0, 300)) for _ in range(100)]
    want = [hashlib.md5(r).digest() for r in raw]
    assert linerate.md5_many(r for r in raw) == want
    assert linerate.md5_many(tuple(raw)) == want
    mixed = [bytearray(r) if i % 3 == 0 else memoryview(r) if i % 3 == 1 else np.frombuffer(r, np.uint8) for i, r in enumerate(raw)]
    assert linerate.md5_many(mixed) == want
    assert linerate.md5_many([]) == []


def test_md5_many_errors():
    with pytest.raises(TypeError, match="item 2"):
        linerate.md5_many([b"a", b"b", "c"])
    with pytest.raises(TypeError, match="item 0"):
        linerate.md5_many([3])
    with pytest.raises(TypeError):
        linerate.md5_many(5)
    with pytest.raises(ValueError, match="threads"):
        linerate.md5_many([b""], threads=0)


def column(rows, dtype):
    values = b"".join(rows)
    offsets = np.zeros(len(rows) + 1, dtype=dtype)
    offsets[1:] = np.cumsum([len(r) for r in rows])
    return values, offsets


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32, np.uint64])
def test_md5_many_offsets(rng, dtype):
    rows = [rng.randbytes(rng.randrange(0, 200)) for _ in range(2000)]
    values, offsets = column(rows, dtype)
    want = b"".join(hashlib.md5(r).digest() for r in rows)
    assert linerate.md5_many_offsets(values, offsets) == want
    out = np.zeros((len(rows), 16), dtype=np.uint8)
    assert linerate.md5_many_offsets(np.frombuffer(values, np.uint8), offsets, out=out) is None
    assert out.tobytes() == want
    # array.array offsets, and a column that starts past 0 (a sliced Arrow array)
    sliced = array.array("q", [o + 3 for o in offsets.tolist()])
    assert linerate.md5_many_offsets(b"xyz" + values, sliced) == want
    # hex: 32 lowercase digits a row, returned or written into `out`
    hexed = "".join(hashlib.md5(r).hexdigest() for r in rows).encode()
    assert linerate.md5_many_offsets(values, offsets, hex=True) == hexed
    text = bytearray(32 * len(rows))
    assert linerate.md5_many_offsets(values, offsets, out=text, hex=True) is None
    assert bytes(text) == hexed
    with pytest.raises(ValueError, match="need"):
        linerate.md5_many_offsets(values, offsets, out=bytearray(16 * len(rows)), hex=True)


def test_md5_many_offsets_errors():
    with pytest.raises(ValueError, match="less than"):
        linerate.md5_many_offsets(b"abcdef", np.array([0, 4, 2], np.int64))
    with pytest.raises(ValueError, match="past the end"):
        linerate.md5_many_offsets(b"abc", np.array([0, 4], np.int32))
    with pytest.raises(ValueError, match="negative"):
        linerate.md5_many_offsets(b"abc", np.array([-1, 2], np.int32))
    with pytest.raises(ValueError, match="n \\+ 1"):
        linerate.md5_many_offsets(b"abc", np.array([], np.int64))
    with pytest.raises(TypeError, match="32- or 64-bit"):
        linerate.md5_many_offsets(b"abc", np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match="out has"):
        linerate.md5_many_offsets(b"abc", np.array([0, 3], np.int64), out=bytearray(15))
    with pytest.raises((BufferError, TypeError)):
        linerate.md5_many_offsets(b"abc", np.array([0, 3], np.int64), out=b"\0" * 16)
    assert linerate.md5_many_offsets(b"", np.array([0], np.int64)) == b""


def test_batches_release_the_gil():
    # One long row keeps the hashing, done with the GIL released, far
    # longer than the parts that need the GIL (reading the list, building
    # the result), so the middle half of the call is all hashing on any
    # machine; 3 M short rows did not (their list walks took that half on CI).
    rows = [b"x"] * 15 + [bytes(128 << 20)]
    assert ticks_during(lambda: linerate.md5_many(rows, threads=1)) > 0
    values, offsets = column(rows, np.int64)
    assert ticks_during(lambda: linerate.md5_many_offsets(values, offsets, threads=1)) > 0


def test_md5_many_across_steps(rng):
    # md5_many reads a list a few thousand items at a time: lists, tuples
    # and generators longer than that, mixed buffer types, rows of every
    # short length, and an error far past the first step naming its item.
    raw = [rng.randbytes(rng.choice([0, 1, 55, 56, 64, 119, 120, rng.randrange(0, 300)])) for _ in range(9000)]
    want = [hashlib.md5(r).digest() for r in raw]
    mixed = [bytearray(r) if i % 5 == 0 else memoryview(r) if i % 5 == 1 else r for i, r in enumerate(raw)]
    assert linerate.md5_many(mixed, threads=1) == want
    assert linerate.md5_many(tuple(raw), threads=2) == want
    assert linerate.md5_many(iter(raw)) == want
    bad = list(raw)
    bad[8500] = "text"
    with pytest.raises(TypeError, match="item 8500"):
        linerate.md5_many(bad)
