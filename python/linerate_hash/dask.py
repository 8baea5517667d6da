"""Hashing file lists on a Dask cluster: each task hashes a slice of the
list on its worker with :func:`linerate.hash_files` (native reads, the
multi-buffer engine, every core of the worker), and the digests come back in
input order (:func:`s3_checksums` likewise gives S3's checksums of each
file). Paths must name files the workers can read (a shared or
replicated file system). Install with ``pip install linerate[dask]``.

:func:`md5_column` hashes a Dask DataFrame's column, partition by
partition, each in one :func:`linerate_hash.arrow.md5` call on its worker:

    import linerate_hash.dask as ldask
    ddf["name_md5"] = ldask.md5_column(ddf, "name", hex=True)
"""

from __future__ import annotations

import operator
import os
from typing import Any, List, Optional, Sequence, Union

import dask

import linerate_hash as linerate

Path = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]

__all__ = ["hash_files", "md5_column", "s3_checksums"]


def _hash_slice(paths: List[Path], options: dict) -> List[Any]:
    return linerate.hash_files(paths, errors="return", **options)


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
    files_per_task = _check_files_per_task(files_per_task)
    # An unknown algorithm fails here, not on a worker: new() parses names
    # as hash_files() does.
    linerate.new(algo)
    return _run_slices(paths, client, files_per_task, errors, _hash_slice, {"algo": algo})


def _s3_slice(paths: List[Path], options: dict) -> List[Any]:
    return linerate.s3_checksums_many(paths, errors="return", **options)


def s3_checksums(
    paths: Sequence[Path],
    algorithms: Sequence[str] = ("md5", "crc64nvme"),
    client: Optional[Any] = None,
    *,
    part_size: Optional[int] = None,
    type: Optional[str] = None,
    files_per_task: Optional[int] = None,
    errors: str = "raise",
    s3_limits: bool = True,
) -> List[Any]:
    """S3's checksums of every path (dicts as
    :func:`linerate_hash.s3_checksums` returns), in input order, computed on
    a Dask cluster: slices of the list as tasks, each through
    :func:`linerate_hash.s3_checksums_many` on its worker (every core of
    the worker, each file read once). ``client``, ``files_per_task`` and
    ``errors`` as for :func:`hash_files`; ``part_size``, ``type`` and
    ``s3_limits`` as for :func:`linerate_hash.s3_checksums`.
    """
    if errors not in ("raise", "return"):
        raise ValueError(f"errors must be 'raise' or 'return', not {errors!r}")
    files_per_task = _check_files_per_task(files_per_task)
    # A lone name stays one, for the TypeError below.
    names = algorithms if isinstance(algorithms, (str, bytes)) else list(algorithms)
    options = {"algorithms": names, "part_size": part_size, "type": type, "s3_limits": s3_limits}
    # Bad algorithms or types fail here, not on a worker.
    linerate.s3_checksums_many([], **options)
    return _run_slices(paths, client, files_per_task, errors, _s3_slice, options)


def _run_slices(paths, client, files_per_task, errors, work, options) -> List[Any]:
    """`work(slice, options)` over slices of `paths` as Dask tasks; the
    results in input order, the first error (in input order) raised unless
    `errors` is "return"."""
    if isinstance(paths, (str, bytes, os.PathLike)):
        raise TypeError(f"paths must be an iterable of paths, not a single {type(paths).__name__} (for one path: [path])")
    paths = [os.fspath(p) for p in paths]
    if not paths:
        return []
    if client is None:
        client = _active_client()
    size = _files_per_task(len(paths), client) if files_per_task is None else files_per_task
    slices = [paths[i : i + size] for i in range(0, len(paths), size)]
    # Errors travel back as values, so the first one in input order (not
    # the first to finish) is the one raised.
    tasks = [dask.delayed(work, pure=False)(s, options) for s in slices]
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


def _check_files_per_task(files_per_task: Optional[int]) -> Optional[int]:
    """None (the default), or an int of at least 1: 0 is refused like any
    other count below 1, never taken for the default."""
    if files_per_task is None:
        return None
    files_per_task = operator.index(files_per_task)
    if files_per_task < 1:
        raise ValueError(f"files_per_task must be at least 1, not {files_per_task}")
    return files_per_task


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


def md5_column(ddf: Any, column: Any, *, hex: bool = False) -> Any:
    """The MD5 of every row of ``ddf[column]`` (strings hash their UTF-8
    bytes; ``bytes`` values hash as they are), as a lazy Dask Series with
    ``ddf``'s index, partitions and divisions, named `column`. Nulls (None,
    NaN, NA) stay null.

    The result is Arrow-backed, the array :func:`linerate_hash.arrow.md5`
    returns wrapped without a copy: ``pd.ArrowDtype(pa.binary(16))`` (each
    value 16 ``bytes``; an object Series would cost a Python object per row
    and lose nothing else), or with `hex` ``pd.ArrowDtype(pa.string())``
    (32 lowercase hex digits, like Spark's and DuckDB's ``md5(col)``). Both
    pickle, concatenate and compare like any pandas column, nulls as
    ``pd.NA``.

    The column may be Arrow-backed (``str`` / ``string[pyarrow]``,
    ``pd.ArrowDtype`` of string or binary types: read in place), object
    dtype holding ``str`` or ``bytes`` (copied into Arrow buffers first) or
    categorical (the categories hashed once each). Each partition is hashed
    on one thread: the workers already run in parallel. (Dask's
    ``dataframe.convert-string`` option turns object columns into strings
    when a frame is made, ``bytes`` included, so keep a bytes column as
    ``pd.ArrowDtype(pa.binary())`` or turn the option off.)
    """
    import pandas as pd
    import pyarrow as pa

    series = ddf[column]
    kind = pd.ArrowDtype(pa.string() if hex else pa.binary(16))
    return series.map_partitions(_md5_partition, hex=hex, meta=(series.name, kind))


def _md5_partition(series: Any, hex: bool) -> Any:
    import pandas as pd

    digests = _md5_arrow(_to_arrow(series), hex)
    return pd.Series(pd.arrays.ArrowExtensionArray(digests), index=series.index, name=series.name, copy=False)


def _to_arrow(series: Any) -> Any:
    import pyarrow as pa

    values = series.array
    if hasattr(values, "__arrow_array__"):
        # Arrow-backed: pandas' own Arrow buffers.
        return values.__arrow_array__()
    # Object dtype (and categoricals): a copy into Arrow buffers.
    return pa.array(series, from_pandas=True)


def _md5_arrow(column: Any, hex: bool) -> Any:
    import pyarrow as pa

    import linerate_hash.arrow as la

    if isinstance(column, pa.ChunkedArray):
        kind = pa.string() if hex else pa.binary(16)
        return pa.chunked_array([_md5_arrow(chunk, hex) for chunk in column.chunks], type=kind)
    kind = column.type
    if pa.types.is_null(kind):  # an object column of nothing but None
        return pa.nulls(len(column), pa.string() if hex else pa.binary(16))
    if pa.types.is_dictionary(kind):
        # Each category once; rows pick theirs (null indices give null).
        return _md5_arrow(column.dictionary, hex).take(column.indices)
    return la.md5(column, hex=hex, threads=1)
