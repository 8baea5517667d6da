"""MD5 of Arrow columns: every row of a ``binary``, ``string``,
``large_binary``, ``large_string``, ``binary_view`` or ``string_view``
array (or chunked array) hashed in one call on the multi-buffer engine.
The column comes in through the Arrow C data interface (its
``__arrow_c_array__``: pyarrow's arrays, and any other Arrow library's),
its rows' bytes read in place from its own buffers (its offsets or views
copied first, so that another thread rewriting them cannot make a read go
astray; slices keep their offset; null slots are not read: see
docs/python.md); a released or malformed array is a ``ValueError``. The
digests go out the same way into a ``FixedSizeBinary(16)`` array, or
with ``hex=True`` a ``string`` array of 32-character digests (Spark's and
DuckDB's ``md5(col)``). Nulls stay null.

    import pyarrow as pa
    import linerate_hash.arrow as la
    la.md5(pa.array([b"abc", None]))            # FixedSizeBinary(16), null kept
    la.md5(table["name"], hex=True)            # ChunkedArray of hex strings

Needs ``pyarrow`` (``pip install 'linerate-hash[arrow]'``).
"""

from __future__ import annotations

from typing import Optional, Union

import pyarrow as pa

from ._linerate import md5_arrow

__all__ = ["md5"]

ArrowColumn = Union[pa.Array, pa.ChunkedArray]


def md5(column: ArrowColumn, *, hex: bool = False, threads: Optional[int] = None) -> ArrowColumn:
    """The MD5 of every row of `column`: a ``FixedSizeBinary(16)`` array,
    or with `hex` a ``string`` array of lowercase hex digests
    (``large_string`` past 67 million rows); a chunked
    array gives a chunked array, chunk by chunk. Null rows are null. Large
    columns use up to `threads` threads (default: every core)."""
    if isinstance(column, pa.ChunkedArray):
        chunks = [md5(chunk, hex=hex, threads=threads) for chunk in column.chunks]
        if hex and any(pa.types.is_large_string(c.type) for c in chunks):
            chunks = [c.cast(pa.large_string()) for c in chunks]
            return pa.chunked_array(chunks, type=pa.large_string())
        return pa.chunked_array(chunks, type=_result_type(hex))
    if not hasattr(column, "__arrow_c_array__"):
        raise TypeError(f"md5 takes a pyarrow Array or ChunkedArray, not {type(column).__name__}")
    return pa.array(md5_arrow(column, hex=hex, threads=threads))


def _result_type(hex: bool) -> pa.DataType:
    return pa.string() if hex else pa.binary(16)
