"""linerate.dask.hash_files on a LocalCluster: same digests and order as
hashlib, errors raised or returned; linerate.dask.s3_checksums: the same
values as linerate_hash.s3_checksums, in order. linerate.dask.md5_column over Dask
DataFrame columns (Arrow-backed, object, categorical; text and bytes):
hashlib's digests row by row, nulls kept, index and partitions kept."""

import hashlib

import pytest

from conftest import boundary_lengths, required_peers

try:
    import dask  # noqa: F401
    from distributed import Client, LocalCluster
except ImportError:
    if required_peers():
        raise
    pytest.skip("dask[distributed] not installed: pip install linerate[dask]", allow_module_level=True)

import linerate_hash.dask as ldask


@pytest.fixture(scope="module")
def client():
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    client = Client(cluster)
    yield client
    client.close()
    cluster.close()


def make_files(tmp_path, rng, count):
    paths = []
    for i in range(count):
        path = tmp_path / f"{i:04}.bin"
        path.write_bytes(rng.randbytes(rng.choice([0, 1, 64, 1000, 70000])))
        paths.append(path)
    return paths


def test_cluster_matches_hashlib_in_order(tmp_path, rng, client):
    paths = make_files(tmp_path, rng, 75)
    want = [hashlib.md5(p.read_bytes()).digest() for p in paths]
    assert ldask.hash_files(paths, client) == want
    assert ldask.hash_files(paths, client, files_per_task=7) == want
    assert ldask.hash_files([str(p) for p in paths], client, algo="md5p4", files_per_task=1) == [
        linerate.md5p(4, p.read_bytes()).digest() for p in paths
    ]
    assert ldask.hash_files([], client) == []


def test_cluster_errors(tmp_path, rng, client):
    paths = make_files(tmp_path, rng, 10)
    paths.insert(6, tmp_path / "missing-b")
    paths.insert(3, tmp_path / "missing-a")
    with pytest.raises(FileNotFoundError) as e:
        ldask.hash_files(paths, client, files_per_task=2)
    assert e.value.filename == str(tmp_path / "missing-a")
    out = ldask.hash_files(paths, client, errors="return")
    assert [isinstance(r, FileNotFoundError) for r in out].count(True) == 2
    with pytest.raises(ValueError, match="unsupported hash type"):
        ldask.hash_files(paths, client, algo="sha1")


def test_without_client_uses_default_scheduler(tmp_path, rng):
    paths = make_files(tmp_path, rng, 12)
    assert ldask.hash_files(paths) == [hashlib.md5(p.read_bytes()).digest() for p in paths]


import linerate_hash as linerate  # noqa: E402


# linerate_hash.dask.md5_column: a column's MD5s as a Dask Series, each
# partition hashed on a worker of the LocalCluster, against hashlib row by
# row after compute(): Arrow-backed, object and categorical columns of text
# and bytes, nulls and empty rows, several partitions, hex and binary.

try:
    import dask.dataframe as dd
    import pandas as pd
    import pyarrow as pa
except ImportError:
    if required_peers():
        raise
    dd = None

needs_dataframe = pytest.mark.skipif(dd is None, reason="dask[dataframe] and pyarrow not installed")

ALPHABET = "aZ09 ~'\"\\\x00é߷€中😀"


def text_rows(rng, n):
    """`n` strings: every block-edge length in UTF-8 bytes, then random
    lengths up to 200, one in four non-ASCII, every ninth empty."""
    out = []
    for i, k in enumerate((boundary_lengths(64, 4) + [rng.randrange(200) for _ in range(n)])[:n]):
        k = 0 if i % 9 == 4 else k
        chars, size = [], 0
        while size < k:
            c = rng.choice(ALPHABET) if i % 4 == 1 else chr(rng.randrange(32, 127))
            c = c if size + len(c.encode()) <= k else "x"
            chars.append(c)
            size += len(c.encode())
        out.append("".join(chars))
    return out


def with_nulls(values, every, null=None):
    return [null if i % every == 2 else v for i, v in enumerate(values)]


def hashlib_rows(values, hex):
    out = []
    for v in values:
        if v is None or v != v:  # None or NaN
            out.append(None)
        else:
            d = hashlib.md5(v.encode() if isinstance(v, str) else v)
            out.append(d.hexdigest() if hex else d.digest())
    return out


def computed(ddf, column, hex):
    """md5_column's result computed, after checking its meta and layout."""
    result = ldask.md5_column(ddf, column, hex=hex)
    kind = pd.ArrowDtype(pa.string() if hex else pa.binary(16))
    assert result.dtype == kind and result.name == column
    assert result.npartitions == ddf.npartitions and result.divisions == ddf.divisions
    got = result.compute()
    assert got.dtype == kind
    assert got.index.equals(ddf.index.compute())
    return [None if v is pd.NA else v for v in got.tolist()]


@needs_dataframe
@pytest.mark.parametrize("hex", [False, True])
def test_md5_column_text_and_bytes(rng, client, hex):
    n = 3000
    texts = with_nulls(text_rows(rng, n), 7)
    sizes = [rng.choice([0, 1, 55, 56, 64, rng.randrange(300)]) for _ in range(n)]
    blobs = with_nulls([rng.randbytes(k) for k in sizes], 5)
    frame = pd.DataFrame(
        {
            "text": pd.array(texts, dtype="str"),
            "arrow_text": pd.array(texts, dtype="string[pyarrow]"),
            "large_text": pd.array(texts, dtype=pd.ArrowDtype(pa.large_string())),
            "view_text": pd.array(texts, dtype=pd.ArrowDtype(pa.string_view())),
            "blob": pd.array(blobs, dtype=object),
            "arrow_blob": pd.array(blobs, dtype=pd.ArrowDtype(pa.binary())),
        },
        index=pd.RangeIndex(10, 10 + 3 * n, 3),
    )
    assert frame["blob"].tolist() == blobs
    assert [None if v is pd.NA or v != v else v for v in frame["text"]] == texts
    # Dask would turn the object column of bytes into strings otherwise.
    with dask.config.set({"dataframe.convert-string": False}):
        ddf = dd.from_pandas(frame, npartitions=5)
    assert ddf.npartitions == 5 and ddf.dtypes["blob"] == object
    for column, values in [
        ("text", texts),
        ("arrow_text", texts),
        ("large_text", texts),
        ("view_text", texts),
        ("blob", blobs),
        ("arrow_blob", blobs),
    ]:
        assert computed(ddf, column, hex) == hashlib_rows(values, hex), column
    assert hashlib_rows(texts, hex).count(None) == texts.count(None) > 0


@needs_dataframe
def test_md5_column_object_strings_nan_and_all_null_partitions(rng, client):
    """An object column keeps its dtype only with convert-string off; None
    and NaN are both null, a partition of nothing but None hashes to nulls."""
    n = 2400
    texts = with_nulls(with_nulls(text_rows(rng, n), 11, float("nan")), 13)
    texts[:600] = [None] * 600
    frame = pd.DataFrame({"text": pd.Series(texts, dtype=object)})
    with dask.config.set({"dataframe.convert-string": False}):
        ddf = dd.from_pandas(frame, npartitions=4)
        assert ddf.dtypes["text"] == object
        assert ddf.partitions[0].compute()["text"].isna().all()
        for hex in (False, True):
            assert computed(ddf, "text", hex) == hashlib_rows(texts, hex)


@needs_dataframe
def test_md5_column_categorical(rng, client):
    words = [w for w in text_rows(rng, 40) if w] + ["", "b"]
    values = with_nulls([rng.choice(words) for _ in range(2000)], 9)
    frame = pd.DataFrame({"word": pd.Series(values, dtype="category"), "n": range(2000)})
    ddf = dd.from_pandas(frame, npartitions=4)
    assert isinstance(ddf.dtypes["word"], pd.CategoricalDtype)
    assert computed(ddf, "word", True) == hashlib_rows(values, True)
    assert computed(ddf, "word", False) == hashlib_rows(values, False)


@needs_dataframe
def test_md5_column_assigns_and_rejects_numbers(rng, client):
    texts = text_rows(rng, 500)
    ddf = dd.from_pandas(pd.DataFrame({"text": texts, "n": range(500)}), npartitions=4)
    ddf["digest"] = ldask.md5_column(ddf, "text", hex=True)
    got = ddf.compute()
    assert got["digest"].tolist() == hashlib_rows(texts, True)
    assert got["n"].tolist() == list(range(500))
    with pytest.raises(TypeError):
        ldask.md5_column(ddf, "n").compute()


def test_s3_checksums_on_a_cluster(client, tmp_path, rng):
    import base64
    import zlib

    paths = make_files(tmp_path, rng, 40)
    missing = tmp_path / "missing"
    listed = paths[:7] + [missing] + paths[7:]
    # Parts of 1000 bytes: smaller than S3 takes, so s3_limits=False.
    got = ldask.s3_checksums(
        listed, ["crc32", "sha256"], client, part_size=1000, errors="return", files_per_task=3, s3_limits=False
    )
    assert isinstance(got[7], FileNotFoundError)
    want = [linerate.s3_checksums(p, ["crc32", "sha256"], part_size=1000, s3_limits=False) for p in paths]
    assert got[:7] + got[8:] == want
    # One PUT, checked against zlib directly.
    one = ldask.s3_checksums(paths[:3], ["crc32"], client)
    for path, result in zip(paths[:3], one):
        crc = zlib.crc32(path.read_bytes()).to_bytes(4, "big")
        assert result == {"crc32": base64.b64encode(crc).decode()}
    with pytest.raises(FileNotFoundError):
        ldask.s3_checksums(listed, ["crc32"], client)
    with pytest.raises(ValueError):
        ldask.s3_checksums(paths, ["nope"], client)
