"""MD5 as DuckDB SQL functions: vectorised Arrow UDFs that hash each vector
DuckDB hands them (2048 rows) in one :func:`linerate_hash.arrow.md5` call.
NULL in gives NULL out; empty strings hash like any other value.

    import duckdb
    import linerate_hash.duckdb as lduck

    con = duckdb.connect()
    lduck.register(con)
    con.sql("SELECT linerate_md5(name) FROM people")        -- same as md5(name)
    con.sql("SELECT linerate_md5_binary(name) FROM people") -- unhex(md5(name))
    con.sql("SELECT linerate_md5_blob(payload) FROM files") -- md5(payload), a BLOB column

:func:`register` creates four functions, because DuckDB's Python API cannot
yet register two functions under one name (no overloads), and DuckDB will
not cast a VARCHAR column to BLOB, nor a BLOB column to VARCHAR, implicitly:

============================  =========  =========================
function                      argument   result
============================  =========  =========================
``linerate_md5``              VARCHAR    VARCHAR, 32 hex digits
``linerate_md5_binary``       VARCHAR    BLOB, the 16 digest bytes
``linerate_md5_blob``         BLOB       VARCHAR, 32 hex digits
``linerate_md5_blob_binary``  BLOB       BLOB, the 16 digest bytes
============================  =========  =========================

(``x::BLOB`` is no way to pass text to the BLOB functions: that cast reads
``\\xNN`` escapes; ``encode(x)`` keeps the bytes.) Remove them with
``con.remove_function(name)``.

Needs ``duckdb``, ``pyarrow`` and ``numpy`` (``pip install './python[duckdb]'``).
"""

from __future__ import annotations

import operator
from typing import Any, List, Optional

import pyarrow as pa

try:
    from duckdb.sqltypes import BLOB, VARCHAR
except ImportError:  # duckdb before 1.4
    from duckdb.typing import BLOB, VARCHAR

from . import arrow as _arrow

__all__ = ["register"]


def register(con: Any, name: str = "linerate_md5", *, threads: Optional[int] = 1) -> List[str]:
    """Creates ``name``, ``name_binary``, ``name_blob`` and
    ``name_blob_binary`` on the DuckDB connection `con` (see the module's
    table) and returns those names. `threads`: threads per call; 1 by
    default, since DuckDB already calls the functions from each of its own
    threads on vectors too small to share out; ``None`` for every core.
    A `threads` below 1 raises ValueError here, not at the first query."""
    if threads is not None:
        threads = operator.index(threads)
        if threads < 1:
            raise ValueError(f"threads must be at least 1, not {threads}")
    made = []
    for suffix, argument, hex in (
        ("", VARCHAR, True),
        ("_binary", VARCHAR, False),
        ("_blob", BLOB, True),
        ("_blob_binary", BLOB, False),
    ):
        function = name + suffix
        con.create_function(
            function,
            _udf(hex, threads),
            [argument],
            VARCHAR if hex else BLOB,
            type="arrow",
            # NULLs reach the UDF and leave through the result's validity
            # bitmap; DuckDB's default would filter them out of each vector
            # before the call and scatter the results back after it.
            null_handling="special",
        )
        made.append(function)
    return made


def _udf(hex: bool, threads: Optional[int]):
    def linerate_md5(column: pa.ChunkedArray) -> pa.ChunkedArray:
        return _md5(column, hex, threads)

    return linerate_md5


def _md5(column: Any, hex: bool, threads: Optional[int]) -> Any:
    """arrow.md5 on the column DuckDB passes (a ChunkedArray of string or
    binary, large_* under ``SET arrow_large_buffer_size``, views if a
    DuckDB hands those), read in place; DuckDB takes the
    FixedSizeBinary(16) result as BLOB as it is."""
    return _arrow.md5(column, hex=hex, threads=threads)
