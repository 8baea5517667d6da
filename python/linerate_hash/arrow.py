"""MD5 of Arrow columns: every row of a ``binary``, ``string``,
``large_binary`` or ``large_string`` array (or chunked array) hashed in one
call on the multi-buffer engine, read in place from the array's own value
and offset buffers (no copy; slices keep their offset), digests written
straight into the result's buffer, into a
``FixedSizeBinary(16)`` array, or with ``hex=True`` a ``string`` array of
32-character digests (Spark's and DuckDB's ``md5(col)``). Nulls stay null.

    import pyarrow as pa
    import linerate_hash.arrow as la
    la.md5(pa.array([b"abc", None]))            # FixedSizeBinary(16), null kept
    la.md5(table["name"], hex=True)            # ChunkedArray of hex strings

Needs ``pyarrow`` and ``numpy`` (``pip install './python[arrow]'``).
"""

from __future__ import annotations

from typing import Optional, Union

import numpy as np
import pyarrow as pa

from . import md5_many_offsets

__all__ = ["md5"]

ArrowColumn = Union[pa.Array, pa.ChunkedArray]


def md5(column: ArrowColumn, *, hex: bool = False, threads: Optional[int] = None) -> ArrowColumn:
    """The MD5 of every row of `column`: a ``FixedSizeBinary(16)`` array,
    or with `hex` a ``string`` array of lowercase hex digests
    (``large_string`` past 67 million rows); a chunked
    array gives a chunked array, chunk by chunk. Null rows are null. Large
    columns use up to `threads` threads (default: every core)."""
    if isinstance(column, pa.ChunkedArray):
        return pa.chunked_array(
            [md5(chunk, hex=hex, threads=threads) for chunk in column.chunks],
            type=_result_type(hex),
        )
    if not isinstance(column, pa.Array):
        raise TypeError(f"md5 takes a pyarrow Array or ChunkedArray, not {type(column).__name__}")
    kind = column.type
    if pa.types.is_binary(kind) or pa.types.is_string(kind):
        offset_type = np.int32
    elif pa.types.is_large_binary(kind) or pa.types.is_large_string(kind):
        offset_type = np.int64
    else:
        raise TypeError(f"md5 takes binary, string, large_binary or large_string columns, not {kind}")
    n = len(column)
    width = 32 if hex else 16
    digests = np.empty(width * n, dtype=np.uint8)
    if n:
        _, offsets_buffer, values_buffer = column.buffers()
        # The column's own buffers: a slice starts `column.offset` rows in.
        offsets = np.frombuffer(offsets_buffer, dtype=offset_type)[column.offset : column.offset + n + 1]
        values = values_buffer if values_buffer is not None else b""
        md5_many_offsets(values, offsets, out=digests, threads=threads, hex=hex)
    validity = _validity(column)
    if not hex:
        return pa.Array.from_buffers(
            pa.binary(16), n, [validity, pa.py_buffer(digests)], null_count=column.null_count
        )
    text = digests
    if 32 * n < 2**31:
        kind, offset_type = pa.string(), np.int32
    else:
        kind, offset_type = pa.large_string(), np.int64
    text_offsets = np.arange(0, 32 * (n + 1), 32, dtype=offset_type)
    out = pa.Array.from_buffers(
        kind,
        n,
        [validity, pa.py_buffer(text_offsets), pa.py_buffer(text)],
        null_count=column.null_count,
    )
    return out


def _result_type(hex: bool) -> pa.DataType:
    return pa.string() if hex else pa.binary(16)


def _validity(column: pa.Array) -> Optional[pa.Buffer]:
    """A validity bitmap that starts at the result's row 0 (the input's may
    start `column.offset` bits in), or None without nulls."""
    if column.null_count == 0:
        return None
    return column.is_valid().buffers()[1]
