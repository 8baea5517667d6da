//! Many messages in one call, on the multi-buffer engine with the GIL
//! released: a sequence of buffers, or Arrow/NumPy-style columns (one
//! values buffer and the row offsets into it).

use std::borrow::Cow;

use linerate::lanes::rows::Offset;
use linerate::{OffsetRows, Rows, md5_many_into};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

use crate::buffer::{self, Data};
use crate::column;

/// Batches smaller than this (bytes and row overheads) stay on one thread:
/// starting threads would cost more than it saves.
const PARALLEL_MIN_BYTES: usize = 1 << 20;

/// The digests of `rows` into `out`, split over up to `threads` threads
/// (contiguous slices, each grouped by length by `md5_many_into`).
fn hash_rows(rows: &[&[u8]], out: &mut [[u8; 16]], threads: usize) {
    let work: usize = rows.iter().map(|r| r.len() + 64).sum();
    let threads = threads.min(work / PARALLEL_MIN_BYTES).max(1);
    if threads == 1 {
        md5_many_into(rows, out);
        return;
    }
    let per = rows.len().div_ceil(threads);
    std::thread::scope(|scope| {
        for (rows, out) in rows.chunks(per).zip(out.chunks_mut(per)) {
            scope.spawn(move || md5_many_into(rows, out));
        }
    });
}

/// Threads: all cores unless told; at least one.
pub fn thread_count(threads: Option<usize>) -> PyResult<usize> {
    match threads {
        Some(0) => Err(PyValueError::new_err("threads must be at least 1")),
        Some(n) => Ok(n),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}

/// `md5_many(messages, *, threads=None) -> list[bytes]`: the MD5 of every
/// message, on up to `threads` threads (default: every core) for large
/// batches.
#[pyfunction]
#[pyo3(signature = (messages, *, threads = None))]
pub fn md5_many<'py>(
    py: Python<'py>,
    messages: &Bound<'py, PyAny>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyList>> {
    let threads = thread_count(threads)?;
    let rows = buffer::Rows::new(messages)?;
    let slices = rows.slices();
    let mut digests = vec![[0u8; 16]; slices.len()];
    py.detach(|| hash_rows(&slices, &mut digests, threads));
    PyList::new(py, digests.iter().map(|d| PyBytes::new(py, d)))
}

/// `md5_many_offsets(values, offsets, out=None, *, threads=None,
/// hex=False)`: row `i` is `values[offsets[i]:offsets[i + 1]]` (Arrow's
/// binary and large_binary layout: int32 or int64 offsets, n + 1 of them).
/// Returns the n digests as one `bytes` of 16 n bytes (with `hex`, 32 n
/// bytes of lowercase hex digits), or writes them into `out` (any writable
/// buffer of that size, e.g. a NumPy `uint8` array of shape (n, 16)) and
/// returns None. Large columns use up to `threads` threads (default: every
/// core).
#[pyfunction]
#[pyo3(signature = (values, offsets, out = None, *, threads = None, hex = false))]
pub fn md5_many_offsets<'py>(
    py: Python<'py>,
    values: &Bound<'py, PyAny>,
    offsets: &Bound<'py, PyAny>,
    out: Option<&Bound<'py, PyAny>>,
    threads: Option<usize>,
    hex: bool,
) -> PyResult<Option<Bound<'py, PyBytes>>> {
    let threads = thread_count(threads)?;
    let values = Data::borrow(values)?;
    let offsets = buffer::typed(offsets)?;
    let values = values.bytes();
    match Offsets::read(&offsets)? {
        Offsets::I32(o) => offsets_into(py, values, &o, out, threads, hex),
        Offsets::U32(o) => offsets_into(py, values, &o, out, threads, hex),
        Offsets::I64(o) => offsets_into(py, values, &o, out, threads, hex),
        Offsets::U64(o) => offsets_into(py, values, &o, out, threads, hex),
    }
}

/// `md5_many_offsets` once the offsets' type is known.
fn offsets_into<'py, O: Offset>(
    py: Python<'py>,
    values: &[u8],
    offsets: &[O],
    out: Option<&Bound<'py, PyAny>>,
    threads: usize,
    hex: bool,
) -> PyResult<Option<Bound<'py, PyBytes>>> {
    let rows =
        OffsetRows::new(values, offsets).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let n = rows.count();
    let bytes = match (offsets.first(), offsets.last()) {
        (Some(a), Some(b)) => b.index().unwrap_or(0) - a.index().unwrap_or(0),
        _ => 0,
    };
    let need = column::width(hex) * n;
    match out {
        Some(out) => {
            let mut target = buffer::writable(out)?;
            let target = target.bytes_mut();
            if target.len() != need {
                return Err(PyValueError::new_err(format!(
                    "out has {} bytes; {n} rows need {need}",
                    target.len(),
                )));
            }
            py.detach(|| column::hash_into(&rows, bytes, threads, hex, target));
            Ok(None)
        }
        None => {
            let mut result = vec![0u8; need];
            py.detach(|| column::hash_into(&rows, bytes, threads, hex, &mut result));
            Ok(Some(PyBytes::new(py, &result)))
        }
    }
}

/// The offsets buffer as a slice of its own integer type: borrowed where
/// it is aligned for that type (NumPy's and Arrow's are), else copied.
enum Offsets<'a> {
    I32(Cow<'a, [i32]>),
    U32(Cow<'a, [u32]>),
    I64(Cow<'a, [i64]>),
    U64(Cow<'a, [u64]>),
}

impl<'a> Offsets<'a> {
    fn read(offsets: &'a buffer::Exported<'_>) -> PyResult<Offsets<'a>> {
        let format = offsets.format();
        let code = format.trim_start_matches(['@', '=', '<']);
        let bytes = offsets.bytes();
        let signed = matches!(code, "i" | "l" | "q" | "n");
        let known = matches!(code, "i" | "I" | "l" | "L" | "q" | "Q" | "n" | "N");
        Ok(match (known, offsets.itemsize(), signed) {
            (true, 4, true) => Offsets::I32(cast(bytes)),
            (true, 4, false) => Offsets::U32(cast(bytes)),
            (true, 8, true) => Offsets::I64(cast(bytes)),
            (true, 8, false) => Offsets::U64(cast(bytes)),
            _ => {
                return Err(PyTypeError::new_err(format!(
                    "offsets must be 32- or 64-bit integers (Arrow binary or large_binary), not format '{format}'"
                )));
            }
        })
    }
}

fn cast<T: bytemuck::Pod>(bytes: &[u8]) -> Cow<'_, [T]> {
    match bytemuck::try_cast_slice(bytes) {
        Ok(items) => Cow::Borrowed(items),
        Err(_) => Cow::Owned(bytemuck::pod_collect_to_vec(bytes)),
    }
}
