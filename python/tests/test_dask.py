"""linerate.dask.hash_files on a LocalCluster: same digests and order as
hashlib, errors raised or returned."""

import hashlib

import pytest

from conftest import required_peers

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
