//! MD5 of Arrow arrays: binary, string, their `large_` forms and their view
//! forms, read in place (offsets and values, or views and data buffers),
//! into a new array of the digests that keeps the input's validity. The
//! array types are polars-arrow's, which both the Arrow C data interface
//! (pyarrow, DuckDB) and Polars' plugin interface hand us.

use polars_arrow::array::{
    Array, BinaryArray, BinaryViewArray, BinaryViewArrayGeneric, FixedSizeBinaryArray, Utf8Array,
    Utf8ViewArray, View, ViewType,
};
use polars_arrow::bitmap::Bitmap;
use polars_arrow::datatypes::ArrowDataType;
use polars_arrow::offset::{Offset as ArrowOffset, OffsetsBuffer};
use polars_buffer::Buffer;

use linerate::lanes::rows::Offset;
use linerate::{OffsetRows, ViewRows};
use pyo3_polars::export::polars_error::PolarsError;

use crate::column::{self, ColumnError};

/// Rows per data buffer of a view array: its offsets are 32-bit, so one
/// buffer holds at most 2^26 hex digests (2 GiB).
const ROWS_PER_BUFFER: usize = 1 << 26;

/// What the digests become.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `FixedSizeBinary(16)`, or with hex `string` (`large_string` past
    /// 2 GiB of digits): pyarrow's and DuckDB's forms.
    Flat,
    /// `binary_view`, or with hex `string_view`: Polars' forms.
    Views,
}

/// The digests of every row of `array` (nulls hashed as whatever bytes
/// their slot holds, then masked by the copied validity), on up to
/// `threads` threads. The result's buffers are allocated fallibly
/// (`OutOfMemory`, not an abort).
pub fn md5_array(
    array: &dyn Array,
    hex: bool,
    shape: Shape,
    threads: usize,
) -> Result<Box<dyn Array>, ColumnError> {
    let n = array.len();
    let len = column::width(hex)
        .checked_mul(n)
        .ok_or(ColumnError::OutOfMemory { bytes: usize::MAX })?;
    let mut out = column::output_buffer(len)?;
    hash_array(array, hex, threads, &mut out)?;
    finish(out, n, hex, shape, array.validity().cloned())
}

/// The digests of `array`'s rows into `out`, read in place.
pub fn hash_array(
    array: &dyn Array,
    hex: bool,
    threads: usize,
    out: &mut [u8],
) -> Result<(), String> {
    let any = array.as_any();
    if let Some(a) = any.downcast_ref::<BinaryArray<i32>>() {
        return hash_offsets(a.values(), a.offsets(), hex, threads, out);
    }
    if let Some(a) = any.downcast_ref::<BinaryArray<i64>>() {
        return hash_offsets(a.values(), a.offsets(), hex, threads, out);
    }
    if let Some(a) = any.downcast_ref::<Utf8Array<i32>>() {
        return hash_offsets(a.values(), a.offsets(), hex, threads, out);
    }
    if let Some(a) = any.downcast_ref::<Utf8Array<i64>>() {
        return hash_offsets(a.values(), a.offsets(), hex, threads, out);
    }
    if let Some(a) = any.downcast_ref::<BinaryViewArray>() {
        return hash_views(a, hex, threads, out);
    }
    if let Some(a) = any.downcast_ref::<Utf8ViewArray>() {
        return hash_views(a, hex, threads, out);
    }
    Err(format!(
        "md5 takes binary, string, large_binary, large_string, binary_view or string_view arrays, not {:?}",
        array.dtype()
    ))
}

fn hash_offsets<O: ArrowOffset + Offset>(
    values: &[u8],
    offsets: &OffsetsBuffer<O>,
    hex: bool,
    threads: usize,
    out: &mut [u8],
) -> Result<(), String> {
    let rows = OffsetRows::new(values, offsets.buffer()).map_err(|e| e.to_string())?;
    column::hash_into(&rows, offsets.range().to_usize(), threads, hex, out);
    Ok(())
}

fn hash_views<T: ViewType + ?Sized>(
    a: &BinaryViewArrayGeneric<T>,
    hex: bool,
    threads: usize,
    out: &mut [u8],
) -> Result<(), String> {
    let buffers: Vec<&[u8]> = a.data_buffers().iter().map(|b| b.as_slice()).collect();
    let views: &[[u8; 16]] = bytemuck::cast_slice::<View, [u8; 16]>(a.views().as_slice());
    let rows = ViewRows::new(views, &buffers).map_err(|e| e.to_string())?;
    column::hash_into(&rows, a.total_bytes_len(), threads, hex, out);
    Ok(())
}

/// The digests (`width(hex)` bytes a row) as an array of `shape`.
fn finish(
    out: Vec<u8>,
    n: usize,
    hex: bool,
    shape: Shape,
    validity: Option<Bitmap>,
) -> Result<Box<dyn Array>, ColumnError> {
    let w = column::width(hex);
    let err = |e: PolarsError| ColumnError::Invalid(e.to_string());
    Ok(match shape {
        Shape::Flat if !hex => Box::new(
            FixedSizeBinaryArray::try_new(
                ArrowDataType::FixedSizeBinary(16),
                Buffer::from(out),
                validity,
            )
            .map_err(err)?,
        ),
        Shape::Flat if w * n <= i32::MAX as usize => {
            Box::new(strings::<i32>(out, n, ArrowDataType::Utf8, validity)?)
        }
        Shape::Flat => Box::new(strings::<i64>(out, n, ArrowDataType::LargeUtf8, validity)?),
        Shape::Views => {
            // Slices of one allocation, each within a view's 32-bit reach.
            let all = Buffer::from(out);
            let data: Vec<Buffer<u8>> = (0..all.len())
                .step_by(w * ROWS_PER_BUFFER)
                .map(|start| {
                    all.clone()
                        .sliced(start..(start + w * ROWS_PER_BUFFER).min(all.len()))
                })
                .collect();
            let mut views: Vec<View> = column::try_vec(n)?;
            views.extend(data.iter().enumerate().flat_map(|(b, chunk)| {
                chunk
                    .chunks_exact(w)
                    .enumerate()
                    .map(move |(i, digest)| View {
                        length: w as u32,
                        prefix: u32::from_le_bytes([digest[0], digest[1], digest[2], digest[3]]),
                        buffer_idx: b as u32,
                        offset: (w * i) as u32,
                    })
            }));
            let views = Buffer::from(views);
            let data = Buffer::from(data);
            if hex {
                Box::new(
                    Utf8ViewArray::try_new(ArrowDataType::Utf8View, views, data, validity)
                        .map_err(err)?,
                )
            } else {
                Box::new(
                    BinaryViewArray::try_new(ArrowDataType::BinaryView, views, data, validity)
                        .map_err(err)?,
                )
            }
        }
    })
}

/// Hex digests (32 bytes a row, in order) as a string array of `O` offsets.
fn strings<O: ArrowOffset>(
    text: Vec<u8>,
    n: usize,
    dtype: ArrowDataType,
    validity: Option<Bitmap>,
) -> Result<Utf8Array<O>, ColumnError> {
    let mut offsets: Vec<O> = column::try_vec(n + 1)?;
    offsets.extend((0..=n).map(|i| O::from_as_usize(32 * i)));
    let err = |e: PolarsError| ColumnError::Invalid(e.to_string());
    Utf8Array::<O>::try_new(
        dtype,
        OffsetsBuffer::try_from(offsets).map_err(err)?,
        Buffer::from(text),
        validity,
    )
    .map_err(err)
}
