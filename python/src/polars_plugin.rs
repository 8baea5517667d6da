//! The Polars expression plugin (`linerate_hash.polars.md5`): Polars hands
//! each chunk of a String or Binary column (view arrays) to these functions
//! through its plugin interface, one chunk per call, from its own threads
//! (so each call hashes on the calling thread), lazily and in streaming mode.

use polars_arrow::array::Array;
use pyo3_polars::derive::polars_expr;
use pyo3_polars::export::polars_core::prelude::*;

use crate::arrow_column::{Shape, md5_array};

fn md5_series(inputs: &[Series], hex: bool) -> PolarsResult<Series> {
    let [s] = inputs else {
        polars_bail!(InvalidOperation: "md5 takes one column, not {}", inputs.len());
    };
    if !matches!(s.dtype(), DataType::String | DataType::Binary) {
        polars_bail!(InvalidOperation: "md5 takes String or Binary columns, not {}", s.dtype());
    }
    let chunks = s
        .chunks()
        .iter()
        .map(|chunk| md5_array(chunk.as_ref() as &dyn Array, hex, Shape::Views, 1))
        .collect::<Result<Vec<_>, String>>()
        .map_err(|e| polars_err!(ComputeError: "{}", e))?;
    Series::try_from((s.name().clone(), chunks))
}

/// MD5 of every row as 32 lowercase hex digits (String); nulls stay null.
#[polars_expr(output_type = String)]
fn md5_hex(inputs: &[Series]) -> PolarsResult<Series> {
    md5_series(inputs, true)
}

/// MD5 of every row as 16 bytes (Binary); nulls stay null.
#[polars_expr(output_type = Binary)]
fn md5_binary(inputs: &[Series]) -> PolarsResult<Series> {
    md5_series(inputs, false)
}
