//! MD5 of Arrow arrays: binary, string, their `large_` forms and their view
//! forms, read in place (offsets and values, or views and data buffers;
//! the offsets or views copied first where other threads may rewrite
//! them), into a new array of the digests that keeps the input's validity. The
//! array types are polars-arrow's, which both the Arrow C data interface
//! (pyarrow, DuckDB) and Polars' plugin interface hand us.

use std::ops::Range;

use polars_arrow::array::{
    Array, BinaryArray, BinaryViewArray, BinaryViewArrayGeneric, FixedSizeBinaryArray, Utf8Array,
    Utf8ViewArray, View, ViewType,
};
use polars_arrow::bitmap::{Bitmap, MutableBitmap};
use polars_arrow::datatypes::ArrowDataType;
use polars_arrow::offset::{Offset as ArrowOffset, OffsetsBuffer};
use polars_buffer::Buffer;

use linerate::lanes::rows::{Offset, Validity};
use linerate::{OffsetRows, RowsError, ViewRows};
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

/// Whose memory an array's buffers are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Memory {
    /// Polars' own arrays: immutable for the call, read in place.
    Owned,
    /// Imported through the C data interface: another thread may rewrite
    /// the buffers (a NumPy array under `pa.py_buffer`) while the GIL is
    /// released. The offsets or views and the validity are copied before
    /// they are checked, so that what bounds a read is what was checked;
    /// only the rows' bytes are read in place (rewritten, they change the
    /// digests, never what is read).
    Shared,
}

/// Why an array cannot be hashed: `TypeError`, `ValueError` or
/// `MemoryError` in Python.
#[derive(Debug)]
pub enum ArrayError {
    /// Not one of the array types hashed.
    Type(String),
    /// The array's layout is invalid (pyarrow's `ArrowInvalid`).
    Invalid(String),
    /// The result's memory could not be had (allocated fallibly: never an
    /// abort).
    Memory(ColumnError),
}

impl std::fmt::Display for ArrayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArrayError::Type(m) | ArrayError::Invalid(m) => f.write_str(m),
            ArrayError::Memory(e) => e.fmt(f),
        }
    }
}

impl From<ColumnError> for ArrayError {
    fn from(e: ColumnError) -> ArrayError {
        match e {
            ColumnError::Invalid(m) => ArrayError::Invalid(m),
            e @ ColumnError::OutOfMemory { .. } => ArrayError::Memory(e),
        }
    }
}

impl From<ArrayError> for ColumnError {
    fn from(e: ArrayError) -> ColumnError {
        match e {
            ArrayError::Type(m) | ArrayError::Invalid(m) => ColumnError::Invalid(m),
            ArrayError::Memory(e) => e,
        }
    }
}

/// The digests of every row of one of Polars' arrays (see [`md5_array_of`]).
pub fn md5_array(
    array: &dyn Array,
    hex: bool,
    shape: Shape,
    threads: usize,
) -> Result<Box<dyn Array>, ColumnError> {
    md5_array_of(array, Memory::Owned, hex, shape, threads).map_err(ColumnError::from)
}

/// The digests of every row of `array`, on up to `threads` threads; null
/// rows are not read, and stay null (the validity is copied).
pub fn md5_array_of(
    array: &dyn Array,
    memory: Memory,
    hex: bool,
    shape: Shape,
    threads: usize,
) -> Result<Box<dyn Array>, ArrayError> {
    let n = array.len();
    let validity = match memory {
        Memory::Owned => array.validity().cloned(),
        Memory::Shared => array.validity().map(copy_bitmap),
    };
    let len = column::width(hex)
        .checked_mul(n)
        .ok_or(ColumnError::OutOfMemory { bytes: usize::MAX })?;
    let mut out = column::output_buffer(len)?;
    hash_array(array, memory, validity.as_ref(), hex, threads, &mut out)?;
    Ok(finish(out, n, hex, shape, validity)?)
}

/// A copy of `bitmap` in memory of its own, starting at bit 0.
fn copy_bitmap(bitmap: &Bitmap) -> Bitmap {
    let (bits, offset, len) = bitmap.as_slice();
    let mut copy = MutableBitmap::with_capacity(len);
    copy.extend_from_slice(bits, offset, len);
    copy.into()
}

/// The digests of `array`'s rows into `out`; `validity` is the array's
/// (or its copy), whose null rows are not read.
fn hash_array(
    array: &dyn Array,
    memory: Memory,
    validity: Option<&Bitmap>,
    hex: bool,
    threads: usize,
    out: &mut [u8],
) -> Result<(), ArrayError> {
    let any = array.as_any();
    if let Some(a) = any.downcast_ref::<BinaryArray<i32>>() {
        return hash_offsets(a.values(), a.offsets(), memory, hex, threads, out);
    }
    if let Some(a) = any.downcast_ref::<BinaryArray<i64>>() {
        return hash_offsets(a.values(), a.offsets(), memory, hex, threads, out);
    }
    if let Some(a) = any.downcast_ref::<Utf8Array<i32>>() {
        return hash_offsets(a.values(), a.offsets(), memory, hex, threads, out);
    }
    if let Some(a) = any.downcast_ref::<Utf8Array<i64>>() {
        return hash_offsets(a.values(), a.offsets(), memory, hex, threads, out);
    }
    if let Some(a) = any.downcast_ref::<BinaryViewArray>() {
        return hash_views(a, memory, validity, hex, threads, out);
    }
    if let Some(a) = any.downcast_ref::<Utf8ViewArray>() {
        return hash_views(a, memory, validity, hex, threads, out);
    }
    Err(ArrayError::Type(format!(
        "md5 takes binary, string, large_binary, large_string, binary_view or string_view arrays, not {:?}",
        array.dtype()
    )))
}

/// Offsets layouts: offsets are checked whether or not their row is null
/// (Arrow's rule: they never decrease, null rows included).
fn hash_offsets<O: ArrowOffset + Offset>(
    values: &[u8],
    offsets: &OffsetsBuffer<O>,
    memory: Memory,
    hex: bool,
    threads: usize,
    out: &mut [u8],
) -> Result<(), ArrayError> {
    let offsets: &[O] = offsets.buffer();
    let bytes = column::span(offsets);
    let invalid = |e: RowsError| ArrayError::Invalid(e.to_string());
    match memory {
        Memory::Owned => {
            let rows = OffsetRows::new(values, offsets).map_err(invalid)?;
            column::hash_into(&rows, bytes, threads, hex, out);
            Ok(())
        }
        Memory::Shared => hash_shared(&SharedOffsets { values, offsets }, bytes, threads, hex, out)
            .map_err(invalid),
    }
}

fn hash_views<T: ViewType + ?Sized>(
    a: &BinaryViewArrayGeneric<T>,
    memory: Memory,
    validity: Option<&Bitmap>,
    hex: bool,
    threads: usize,
    out: &mut [u8],
) -> Result<(), ArrayError> {
    let buffers: Vec<&[u8]> = a.data_buffers().iter().map(|b| b.as_slice()).collect();
    let views: &[[u8; 16]] = bytemuck::cast_slice::<View, [u8; 16]>(a.views().as_slice());
    let validity = validity.map(|v| {
        let (bits, offset, _) = v.as_slice();
        (bits, offset)
    });
    let invalid = |e: RowsError| ArrayError::Invalid(e.to_string());
    match memory {
        Memory::Owned => {
            let validity = validity.map(|(bits, offset)| Validity::new(bits, offset));
            let rows = ViewRows::with_validity(views, &buffers, validity).map_err(invalid)?;
            column::hash_into(&rows, a.total_bytes_len(), threads, hex, out);
            Ok(())
        }
        Memory::Shared => {
            let layout = SharedViews {
                views,
                buffers: &buffers,
                validity,
            };
            // The rows' total would be a pass over the shared views: the
            // data buffers' total sizes the split between threads as well.
            hash_shared(&layout, a.total_buffer_len(), threads, hex, out).map_err(invalid)
        }
    }
}

/// Rows in a block of a shared layout: the block's copy (16 bytes a view,
/// 4 or 8 an offset: at most 256 KiB, made once per thread and reused)
/// stays in cache while the block is hashed, and the block is a whole
/// number of the engine's batches of long rows (4096). A copy of the
/// whole layout instead cost a page fault per 4 KiB of fresh memory: 1 M
/// short views hashed in 24 ms instead of 15.
const BLOCK_ROWS: usize = 16 << 10;

/// A column layout in memory that other threads may rewrite during the
/// call ([`Memory::Shared`]), hashed a block of rows at a time: the block's
/// offsets or views are copied into the hashing thread's own scratch and
/// checked there, and only the copy bounds the block's reads.
pub(crate) trait SharedLayout: Sync {
    /// A thread's copy of a block's layout.
    type Scratch: Default;
    fn count(&self) -> usize;
    /// Rows `rows` into `out` (`width(hex)` bytes a row), on this thread.
    fn hash_block(
        &self,
        rows: Range<usize>,
        scratch: &mut Self::Scratch,
        hex: bool,
        out: &mut [u8],
    ) -> Result<(), RowsError>;
}

/// An offsets layout (Arrow's binary, or `md5_many_offsets`): `offsets`
/// are the n + 1 offsets into `values`.
pub(crate) struct SharedOffsets<'a, O> {
    pub values: &'a [u8],
    pub offsets: &'a [O],
}

impl<O: Offset> SharedLayout for SharedOffsets<'_, O> {
    type Scratch = Vec<O>;
    fn count(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }
    fn hash_block(
        &self,
        rows: Range<usize>,
        scratch: &mut Vec<O>,
        hex: bool,
        out: &mut [u8],
    ) -> Result<(), RowsError> {
        scratch.clear();
        scratch.extend_from_slice(&self.offsets[rows.start..=rows.end]);
        let block = OffsetRows::new(self.values, scratch).map_err(|e| from_row(e, rows.start))?;
        column::hash_into(&block, 0, 1, hex, out);
        Ok(())
    }
}

/// A view layout, and its validity (bits, first bit), a private copy.
struct SharedViews<'a> {
    views: &'a [[u8; 16]],
    buffers: &'a [&'a [u8]],
    validity: Option<(&'a [u8], usize)>,
}

impl SharedLayout for SharedViews<'_> {
    type Scratch = Vec<[u8; 16]>;
    fn count(&self) -> usize {
        self.views.len()
    }
    fn hash_block(
        &self,
        rows: Range<usize>,
        scratch: &mut Vec<[u8; 16]>,
        hex: bool,
        out: &mut [u8],
    ) -> Result<(), RowsError> {
        scratch.clear();
        scratch.extend_from_slice(&self.views[rows.clone()]);
        let validity = self
            .validity
            .map(|(bits, offset)| Validity::new(bits, offset + rows.start));
        let block = ViewRows::with_validity(scratch, self.buffers, validity)
            .map_err(|e| from_row(e, rows.start))?;
        column::hash_into(&block, 0, 1, hex, out);
        Ok(())
    }
}

/// `e`, found in a block starting at row `first`, with the column's row
/// (and offset) numbers.
fn from_row(e: RowsError, first: usize) -> RowsError {
    match e {
        RowsError::NoOffsets => RowsError::NoOffsets,
        RowsError::Negative { index } => RowsError::Negative {
            index: first + index,
        },
        RowsError::Decreasing { index } => RowsError::Decreasing {
            index: first + index,
        },
        RowsError::PastEnd { index, end, len } => RowsError::PastEnd {
            index: first + index,
            end,
            len,
        },
        RowsError::NoBuffer {
            index,
            buffer,
            buffers,
        } => RowsError::NoBuffer {
            index: first + index,
            buffer,
            buffers,
        },
    }
}

/// The digests of every row of `layout` into `out` (`width(hex)` bytes a
/// row), on up to `threads` threads (split as [`column::hash_into`] splits,
/// `bytes` being the rows' total length), each a run of whole blocks. The
/// first invalid block in row order is the error; `out` is then partly
/// written.
pub(crate) fn hash_shared<L: SharedLayout>(
    layout: &L,
    bytes: usize,
    threads: usize,
    hex: bool,
    out: &mut [u8],
) -> Result<(), RowsError> {
    let n = layout.count();
    let w = column::width(hex);
    assert_eq!(out.len(), w * n, "out holds {w} bytes a row");
    let work = bytes.saturating_add(64 * n);
    let threads = threads
        .min(work / column::PARALLEL_MIN_BYTES)
        .clamp(1, n.max(1));
    let per = n.div_ceil(threads).max(1);
    let run = |start: usize, out: &mut [u8]| -> Result<(), RowsError> {
        let mut scratch = L::Scratch::default();
        for (k, out) in out.chunks_mut(w * BLOCK_ROWS).enumerate() {
            let first = start + k * BLOCK_ROWS;
            layout.hash_block(first..first + out.len() / w, &mut scratch, hex, out)?;
        }
        Ok(())
    };
    if threads == 1 {
        return run(0, out);
    }
    let run = &run;
    std::thread::scope(|scope| {
        let runs: Vec<_> = out
            .chunks_mut(w * per)
            .enumerate()
            .map(|(k, out)| scope.spawn(move || run(k * per, out)))
            .collect();
        // Each run stops at its own first error: the first run's that has
        // one is the first in row order.
        let mut first = Ok(());
        for r in runs {
            let result = r.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
            if first.is_ok() {
                first = result;
            }
        }
        first
    })
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
