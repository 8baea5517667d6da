"""MD5 as a Polars expression: a native plugin that Polars runs on each
chunk of a ``String`` or ``Binary`` column on its own threads, in eager,
lazy and streaming queries alike, reading the column's views in place.

    import polars as pl
    import linerate_hash.polars as lp
    df.with_columns(lp.md5(pl.col("name"), hex=True).alias("name_md5"))
    df.lazy().select(lp.md5("payload")).collect(engine="streaming")

``hex=True`` gives a ``String`` column of 32 lowercase hex digits (Spark's
and DuckDB's ``md5(col)``); otherwise a ``Binary`` column of 16-byte
digests. Nulls stay null. A column of any other type (Int64,
Categorical, Struct, Object ...) raises Polars' ``ComputeError`` naming
the type, when the query is planned; so does a result too large for
memory (Polars' plugins can raise nothing else). Needs ``polars``
(``pip install 'linerate-hash[polars]'``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Union

import polars as pl
from polars.plugins import register_plugin_function

__all__ = ["md5"]

# The plugin's functions live in the package's native module.
_LIBRARY = Path(__file__).parent


def md5(expr: Union[pl.Expr, str], *, hex: bool = False) -> pl.Expr:
    """The MD5 of every row of `expr` (a ``String`` or ``Binary``
    expression, or a column name); any other type is Polars'
    ``ComputeError``."""
    if isinstance(expr, str):
        expr = pl.col(expr)
    return register_plugin_function(
        plugin_path=_LIBRARY,
        function_name="md5_hex" if hex else "md5_binary",
        args=expr,
        is_elementwise=True,
    )
