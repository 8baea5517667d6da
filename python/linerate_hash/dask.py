"""Hashing file lists on a Dask cluster: each task hashes a slice of the
list on its worker with :func:`linerate.hash_files` (native reads, the
multi-buffer engine, every core of the worker), and the digests come back in
input order. Paths must name files the workers can read (a shared or
replicated file system). Install with ``pip install linerate[dask]``.
"""

from __future__ import annotations

import os
from typing import Any, List, Optional, Sequence, Union

import dask

import linerate_hash as linerate

Path = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]

__all__ = ["hash_files"]


def _hash_slice(paths: List[Path], algo: str, errors: str) -> List[Any]:
    return linerate.hash_files(paths, algo=algo, errors=errors)


def hash_files(
    paths: Sequence[Path],
    client: Optional[Any] = None,
    algo: str = "md5",
    *,
    files_per_task: Optional[int] = None,
    errors: str = "raise",
) -> List[Any]:
    """The digest of every path (``bytes``), in input order, computed on a
    Dask cluster.

    ``client``: a ``dask.distributed.Client`` (a ``LocalCluster``'s or a
    real cluster's); without one, the active client if there is one, else
    Dask's default scheduler. ``files_per_task`` sets how many files one
    task hashes (default: the list split into about four tasks per worker
    thread, at most 4096 files each). ``errors``: ``"raise"`` raises the
    first failing file's ``OSError`` (in input order); ``"return"`` puts the
    exception in that file's place.
    """
    if errors not in ("raise", "return"):
        raise ValueError(f"errors must be 'raise' or 'return', not {errors!r}")
    linerate.new(algo)  # an unknown algorithm fails here, not on a worker
    paths = [os.fspath(p) for p in paths]
    if not paths:
        return []
    if client is None:
        client = _active_client()
    size = files_per_task or _files_per_task(len(paths), client)
    if size < 1:
        raise ValueError("files_per_task must be at least 1")
    slices = [paths[i : i + size] for i in range(0, len(paths), size)]
    # Errors travel back as values, so the first one in input order (not
    # the first to finish) is the one raised.
    tasks = [dask.delayed(_hash_slice, pure=False)(s, algo, "return") for s in slices]
    if client is not None:
        parts = client.gather(client.compute(tasks))
    else:
        parts = dask.compute(*tasks)
    results = [r for part in parts for r in part]
    if errors == "raise":
        for r in results:
            if isinstance(r, BaseException):
                raise r
    return results


def _active_client() -> Optional[Any]:
    try:
        from distributed import get_client
    except ImportError:
        return None
    try:
        return get_client()
    except ValueError:
        return None


def _files_per_task(count: int, client: Optional[Any]) -> int:
    threads = 1
    if client is not None:
        try:
            threads = max(1, sum(client.nthreads().values()))
        except Exception:
            threads = 1
    else:
        threads = os.cpu_count() or 1
    return max(1, min(4096, -(-count // (4 * threads))))
