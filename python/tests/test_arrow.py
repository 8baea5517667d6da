"""linerate_hash.arrow.md5 against hashlib row by row: every Arrow binary
and string type (offsets and views), nulls, empty rows, rows across every
block boundary, sliced arrays (non-zero offsets), chunked arrays, hex and
binary forms, and any object with the Arrow C data interface."""

import hashlib

import pyarrow as pa
import pytest

import linerate_hash.arrow as la

from conftest import boundary_lengths

TYPES = [pa.binary(), pa.large_binary(), pa.string(), pa.large_string(), pa.binary_view(), pa.string_view()]


def rows(rng, n=400):
    """Random rows: every length around the block edges, then random ones
    up to 3000 bytes, about one in seven null."""
    lengths = boundary_lengths(64, 4) + [rng.randrange(3000) for _ in range(n)]
    out = []
    for i, k in enumerate(lengths):
        if i % 7 == 3:
            out.append(None)
        else:
            # ASCII, so that the same rows make valid strings.
            out.append(bytes(rng.randrange(32, 127) for _ in range(k)))
    return out


def expected(values, hex):
    return [
        None if v is None else (hashlib.md5(v).hexdigest() if hex else hashlib.md5(v).digest())
        for v in values
    ]


def as_type(values, kind):
    if kind in (pa.string(), pa.large_string(), pa.string_view()):
        return pa.array([None if v is None else v.decode() for v in values], type=kind)
    return pa.array(values, type=kind)


@pytest.mark.parametrize("kind", TYPES, ids=str)
@pytest.mark.parametrize("hex", [False, True])
def test_every_type_with_nulls_against_hashlib(rng, kind, hex):
    values = rows(rng)
    got = la.md5(as_type(values, kind), hex=hex)
    assert got.type == (pa.string() if hex else pa.binary(16))
    assert got.null_count == sum(v is None for v in values)
    assert got.to_pylist() == expected(values, hex)


@pytest.mark.parametrize("kind", TYPES, ids=str)
def test_slices_keep_their_offset(rng, kind):
    values = rows(rng, 100)
    array = as_type(values, kind)
    for start, stop in [(1, 50), (7, 8), (3, len(values)), (10, 10)]:
        got = la.md5(array.slice(start, stop - start), hex=True)
        assert got.to_pylist() == expected(values[start:stop], True), (start, stop)


def test_chunked_arrays_hash_chunk_by_chunk(rng):
    values = rows(rng, 60)
    chunked = pa.chunked_array([as_type(values[:20], pa.binary()), as_type(values[20:], pa.binary())])
    got = la.md5(chunked)
    assert isinstance(got, pa.ChunkedArray) and got.num_chunks == 2
    assert got.to_pylist() == expected(values, False)
    sliced = chunked.slice(5, 30)
    assert la.md5(sliced, hex=True).to_pylist() == expected(values[5:35], True)


def test_empty_all_null_and_threads(rng):
    assert la.md5(pa.array([], type=pa.binary())).to_pylist() == []
    assert la.md5(pa.array([None, None], type=pa.string()), hex=True).to_pylist() == [None, None]
    assert la.md5(pa.array([b""] * 3)).to_pylist() == [hashlib.md5(b"").digest()] * 3
    values = [bytes([i % 251]) * (i % 90) for i in range(20000)]
    one = la.md5(pa.array(values), threads=1)
    assert one.equals(la.md5(pa.array(values), threads=2))
    assert one.to_pylist() == expected(values, False)


def test_other_types_are_refused():
    with pytest.raises(TypeError, match="binary, string"):
        la.md5(pa.array([1, 2, 3]))
    with pytest.raises(TypeError, match="pyarrow Array"):
        la.md5([b"abc"])


class CapsuleOnly:
    """Another Arrow library's array: nothing but the C data interface."""

    def __init__(self, array):
        self._array = array

    def __arrow_c_array__(self, requested_schema=None):
        return self._array.__arrow_c_array__(requested_schema)


def test_any_arrow_c_data_interface_producer(rng):
    values = rows(rng, 50)
    for kind in (pa.string(), pa.binary_view()):
        got = la.md5(CapsuleOnly(as_type(values, kind).slice(3)), hex=True)
        assert got.to_pylist() == expected(values[3:], True)


def test_the_result_is_a_plain_arrow_array_that_outlives_its_input(rng):
    values = rows(rng, 30)
    array = as_type(values, pa.large_binary())
    got = la.md5(array)
    del array
    assert got.validate(full=True) is None
    assert got.to_pylist() == expected(values, False)
