"""linerate_hash.duckdb's SQL functions against DuckDB's own md5(x) (hex)
and unhex(md5(x)) (binary), and against hashlib row by row: VARCHAR and
BLOB columns with NULLs, empty values, lengths around every MD5 block edge,
non-ASCII UTF-8 and NUL bytes; on one DuckDB thread and on several over a
table of many vectors and row groups; NULL constants, empty tables, large
Arrow buffers and view layouts."""

import hashlib

import pytest

from conftest import boundary_lengths, required_peers

try:
    import duckdb
except ImportError:
    if required_peers():
        raise
    pytest.skip("duckdb not installed: pip install './python[duckdb]'", allow_module_level=True)

import pyarrow as pa

import linerate_hash.duckdb as lduck

# 1 to 4 bytes in UTF-8, with SQL's and C's awkward characters.
ALPHABET = "aZ09 ~'\"\\%\x00\né߷€中😀"
PRINTABLE = bytes.maketrans(bytes(range(256)), bytes(32 + i % 95 for i in range(256)))


def text_of(rng, size):
    """A random string of exactly `size` UTF-8 bytes, mostly non-ASCII."""
    out, used = [], 0
    while used < size:
        c = rng.choice(ALPHABET)
        if used + len(c.encode()) > size:
            c = "x"
        out.append(c)
        used += len(c.encode())
    return "".join(out)


def columns(rng, n):
    """`n` rows of (text, blob): every block-edge length first, then random
    ones up to 300 bytes, a seventh of each column NULL, some rows empty;
    one text in eight non-ASCII."""
    lengths = boundary_lengths(64, 4)
    for i in range(n - len(lengths)):
        lengths.append(rng.choice([0, rng.randrange(300)]) if i % 5 == 0 else rng.randrange(130))
    texts, blobs = [], []
    for i, k in enumerate(lengths[:n]):
        if i % 8 == 1:
            texts.append(text_of(rng, k))
        else:
            texts.append(rng.randbytes(k).translate(PRINTABLE).decode())
        blobs.append(rng.randbytes(k))
        if i % 7 == 3:
            texts[-1] = None
        if i % 7 == 5:
            blobs[-1] = None
    return texts, blobs


def hashlib_md5(values, hex):
    out = []
    for v in values:
        if v is None:
            out.append(None)
            continue
        d = hashlib.md5(v.encode() if isinstance(v, str) else v)
        out.append(d.hexdigest() if hex else d.digest())
    return out


def connect(rng, n, threads):
    con = duckdb.connect()
    con.sql(f"SET threads={threads}")
    lduck.register(con)
    texts, blobs = columns(rng, n)
    source = pa.table(
        {
            "i": pa.array(range(n), pa.int64()),
            "x": pa.array(texts, pa.string()),
            "b": pa.array(blobs, pa.binary()),
        }
    )
    con.register("source", source)
    con.sql("CREATE TABLE t AS SELECT * FROM source")
    con.unregister("source")
    return con, texts, blobs


QUERY = """
SELECT linerate_md5(x), md5(x), linerate_md5_binary(x), unhex(md5(x)),
       linerate_md5_blob(b), md5(b), linerate_md5_blob_binary(b), unhex(md5(b))
FROM t ORDER BY i
"""


def check(con, texts, blobs):
    got = list(zip(*con.sql(QUERY).fetchall()))
    ours_hex, duck_hex, ours_bin, duck_bin, ours_bhex, duck_bhex, ours_bbin, duck_bbin = got
    assert ours_hex == duck_hex
    assert ours_bin == duck_bin
    assert ours_bhex == duck_bhex
    assert ours_bbin == duck_bbin
    assert list(ours_hex) == hashlib_md5(texts, True)
    assert list(ours_bin) == hashlib_md5(texts, False)
    assert list(ours_bhex) == hashlib_md5(blobs, True)
    assert list(ours_bbin) == hashlib_md5(blobs, False)
    # Nulls stay nulls, and only nulls.
    assert ours_hex.count(None) == texts.count(None) > 0
    assert ours_bbin.count(None) == blobs.count(None) > 0


def test_one_thread_matches_duckdb_and_hashlib(rng):
    con, texts, blobs = connect(rng, 3000, threads=1)
    check(con, texts, blobs)
    assert "" in texts and b"" in blobs
    assert any(t is not None and len(t.encode()) > len(t) for t in texts)
    assert con.sql(
        "SELECT DISTINCT typeof(linerate_md5(x)), typeof(linerate_md5_binary(x)),"
        " typeof(linerate_md5_blob(b)), typeof(linerate_md5_blob_binary(b)) FROM t"
    ).fetchall() == [("VARCHAR", "BLOB", "VARCHAR", "BLOB")]
    lengths = "SELECT DISTINCT octet_length(linerate_md5_binary(x)) FROM t WHERE x IS NOT NULL"
    assert con.sql(lengths).fetchall() == [(16,)]


@pytest.mark.parametrize("threads", [1, 4])
def test_many_vectors_and_row_groups(rng, monkeypatch, threads):
    """200,000 rows: about 98 vectors of 2048 rows in two row groups, which
    several DuckDB threads share out (threads=4)."""
    calls = []
    md5 = lduck._md5

    def counted(column, hex, threads):
        calls.append(len(column))
        return md5(column, hex, threads)

    monkeypatch.setattr(lduck, "_md5", counted)
    n = 200_000
    con, texts, blobs = connect(rng, n, threads)
    check(con, texts, blobs)
    # Four functions, each over the whole table, in vectors of at most 2048.
    assert sum(calls) == 4 * n
    assert len(calls) >= 4 * n // 2048 and max(calls) <= 2048
    assert con.sql(
        "SELECT count(*) FROM t WHERE linerate_md5(x) IS DISTINCT FROM md5(x)"
        " OR linerate_md5_blob_binary(b) IS DISTINCT FROM unhex(md5(b))"
    ).fetchall() == [(0,)]


def test_large_arrow_buffers(rng, monkeypatch):
    """Under arrow_large_buffer_size DuckDB hands large_string and
    large_binary columns to the functions."""
    con, texts, blobs = connect(rng, 2500, threads=2)
    con.sql("SET arrow_large_buffer_size=true")
    seen = []
    md5 = lduck._md5
    monkeypatch.setattr(lduck, "_md5", lambda column, hex, threads: seen.append(column.type) or md5(column, hex, threads))
    check(con, texts, blobs)
    assert pa.large_string() in seen and pa.large_binary() in seen


def test_null_constants_empty_tables_and_names(rng):
    con = duckdb.connect()
    names = lduck.register(con, "h")
    assert names == ["h", "h_binary", "h_blob", "h_blob_binary"]
    nulls = "SELECT h(NULL), h_binary(NULL), h_blob(NULL), h_blob_binary(NULL)"
    assert con.sql(nulls).fetchall() == [(None,) * 4]
    assert con.sql("SELECT h(''), h_blob(''::BLOB), h_binary('')").fetchall() == [
        (hashlib.md5(b"").hexdigest(), hashlib.md5(b"").hexdigest(), hashlib.md5(b"").digest())
    ]
    con.sql("CREATE TABLE e (x VARCHAR, b BLOB)")
    assert con.sql("SELECT h(x), h_blob_binary(b) FROM e").fetchall() == []
    con.sql("INSERT INTO e SELECT NULL, NULL FROM range(3000)")
    counts = "SELECT count(h(x)), count(h_blob_binary(b)), count(*) FROM e"
    assert con.sql(counts).fetchall() == [(0, 0, 3000)]
    # A second registration under the same names is DuckDB's error.
    with pytest.raises(duckdb.Error):
        lduck.register(con, "h")
    # No overloads: a BLOB column needs the _blob function.
    with pytest.raises(duckdb.BinderException):
        con.sql("SELECT h(b) FROM e").fetchall()


def test_encode_keeps_text_bytes(rng):
    """encode(x) hands the text's UTF-8 bytes to the BLOB functions (the
    ::BLOB cast would read its backslash escapes)."""
    con = duckdb.connect()
    lduck.register(con)
    texts = [text_of(rng, k) for k in range(0, 200, 3)] + ["a\\x41\\\\"]
    con.register("s", pa.table({"i": pa.array(range(len(texts))), "x": pa.array(texts)}))
    got = [r[0] for r in con.sql("SELECT linerate_md5_blob(encode(x)) FROM s ORDER BY i").fetchall()]
    assert got == hashlib_md5(texts, True)


@pytest.mark.parametrize("kind", ["string_view", "binary_view"])
def test_view_layouts(rng, kind):
    """A view column (what DuckDB may hand over with
    produce_arrow_string_view) is read in place, chunk by chunk."""
    texts, _ = columns(rng, 500)
    values = [None if t is None else t.encode() for t in texts]
    kind = getattr(pa, kind)()
    column = pa.chunked_array([pa.array(values[:200], kind), pa.array(values[200:], kind)])
    assert lduck._md5(column, True, 1).to_pylist() == hashlib_md5(values, True)
    assert lduck._md5(column, False, None).to_pylist() == hashlib_md5(values, False)
