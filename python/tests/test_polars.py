"""linerate_hash.polars.md5 (the Polars expression plugin) against hashlib
row by row: String and Binary columns, inline (up to 12 bytes) and
buffered rows, nulls, every block boundary, sliced and multi-chunk frames,
eager, lazy and streaming queries."""

import hashlib

import pytest

from conftest import boundary_lengths, required_peers

try:
    import polars as pl
except ImportError:
    if required_peers():
        raise
    pytest.skip("polars not installed: pip install 'linerate-hash[polars]'", allow_module_level=True)

import linerate_hash.polars as lp


def rows(rng, n=300):
    """Random bytes rows around every block edge and up to 3000 bytes,
    about one in six null; non-ASCII but valid UTF-8 when decoded as
    latin-1 and re-encoded, so the same rows make String columns."""
    lengths = boundary_lengths(64, 4) + [rng.randrange(3000) for _ in range(n)] + list(range(16))
    rng.shuffle(lengths)
    return [None if i % 6 == 2 else bytes(rng.randrange(256) for _ in range(k)) for i, k in enumerate(lengths)]


def text(values):
    return [None if v is None else v.decode("latin-1") for v in values]


def expected(values, hex, encode=lambda v: v):
    return [
        None if v is None else (hashlib.md5(encode(v)).hexdigest() if hex else hashlib.md5(encode(v)).digest())
        for v in values
    ]


@pytest.mark.parametrize("hex", [False, True])
def test_string_and_binary_columns(rng, hex):
    values = rows(rng)
    df = pl.DataFrame({"b": pl.Series(values, dtype=pl.Binary), "s": pl.Series(text(values), dtype=pl.String)})
    out = df.select(lp.md5(pl.col("b"), hex=hex).alias("hb"), lp.md5("s", hex=hex).alias("hs"))
    assert out.schema == {"hb": pl.String if hex else pl.Binary, "hs": pl.String if hex else pl.Binary}
    assert out["hb"].to_list() == expected(values, hex)
    utf8 = lambda v: v.decode("latin-1").encode()  # noqa: E731
    assert out["hs"].to_list() == expected(values, hex, utf8)
    assert out["hb"].null_count() == sum(v is None for v in values)


def test_sliced_and_multi_chunk_frames(rng):
    parts = [rows(rng, 40) for _ in range(4)]
    frames = [pl.DataFrame({"b": pl.Series(p, dtype=pl.Binary)}) for p in parts]
    df = pl.concat(frames, rechunk=False)
    assert df["b"].n_chunks() == 4
    values = [v for p in parts for v in p]
    got = df.with_columns(h=lp.md5("b", hex=True))
    assert got["h"].to_list() == expected(values, True)
    assert got["b"].to_list() == values  # the input column is untouched
    for start, length in [(1, 50), (37, 200), (len(values) - 3, 3), (5, 0)]:
        sliced = df.slice(start, length)
        assert sliced.select(lp.md5("b"))["b"].to_list() == expected(values[start : start + length], False)


def test_lazy_and_streaming(rng):
    values = [rng.randbytes(rng.randrange(0, 130)) if i % 9 else None for i in range(120_000)]
    lf = pl.LazyFrame({"x": pl.Series(values, dtype=pl.Binary)})
    query = lf.with_columns(lp.md5(pl.col("x"), hex=True).alias("h")).filter(pl.col("h").is_not_null())
    want = [h for h in expected(values, True) if h is not None]
    assert query.collect()["h"].to_list() == want
    assert query.collect(engine="streaming")["h"].to_list() == want


def test_other_types_are_refused():
    df = pl.DataFrame({"n": [1, 2, 3]})
    with pytest.raises(pl.exceptions.PolarsError, match="String or Binary"):
        df.select(lp.md5("n"))
