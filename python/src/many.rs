//! Many messages in one call, on the multi-buffer engine with the GIL
//! released: a sequence of buffers, or Arrow/NumPy-style columns (one
//! values buffer and the row offsets into it).

use linerate::md5_many_into;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

use crate::buffer::{self, Data, Rows};

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
    let rows = Rows::new(messages)?;
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
    let bounds = read_offsets(&offsets)?;
    let values = values.bytes();
    let rows = row_slices(values, &bounds)?;
    let mut digests = vec![[0u8; 16]; rows.len()];
    let width = if hex { 32 } else { 16 };
    match out {
        Some(out) => {
            let mut target = buffer::writable(out)?;
            let target = target.bytes_mut();
            if target.len() != width * rows.len() {
                return Err(PyValueError::new_err(format!(
                    "out has {} bytes; {} rows need {}",
                    target.len(),
                    rows.len(),
                    width * rows.len()
                )));
            }
            py.detach(|| {
                hash_rows(&rows, &mut digests, threads);
                write_digests(&digests, hex, target);
            });
            Ok(None)
        }
        None if hex => {
            let mut text = vec![0u8; 32 * rows.len()];
            py.detach(|| {
                hash_rows(&rows, &mut digests, threads);
                write_digests(&digests, true, &mut text);
            });
            Ok(Some(PyBytes::new(py, &text)))
        }
        None => {
            py.detach(|| hash_rows(&rows, &mut digests, threads));
            Ok(Some(PyBytes::new(py, digests.as_flattened())))
        }
    }
}

/// The digests into `target`, as they are (16 bytes each) or as lowercase
/// hex (32 each).
fn write_digests(digests: &[[u8; 16]], hex: bool, target: &mut [u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    if !hex {
        target.copy_from_slice(digests.as_flattened());
        return;
    }
    for (chunk, digest) in target.chunks_exact_mut(32).zip(digests) {
        for (pair, byte) in chunk.chunks_exact_mut(2).zip(digest) {
            pair[0] = DIGITS[usize::from(byte >> 4)];
            pair[1] = DIGITS[usize::from(byte & 15)];
        }
    }
}

/// The offsets as u64, from int32 or int64 (signed or not) items.
fn read_offsets(offsets: &buffer::Exported<'_>) -> PyResult<Vec<u64>> {
    let format = offsets.format();
    let code = format.trim_start_matches(['@', '=', '<']);
    let bytes = offsets.bytes();
    let size = offsets.itemsize();
    let signed = matches!(code, "i" | "l" | "q" | "n");
    let ok = matches!(code, "i" | "I" | "l" | "L" | "q" | "Q" | "n" | "N") && matches!(size, 4 | 8);
    if !ok {
        return Err(PyTypeError::new_err(format!(
            "offsets must be 32- or 64-bit integers (Arrow binary or large_binary), not format '{format}'"
        )));
    }
    bytes
        .chunks_exact(size)
        .enumerate()
        .map(|(i, item)| {
            let value: i128 = match (size, signed) {
                (4, true) => i32::from_ne_bytes(item.try_into().unwrap_or_default()).into(),
                (4, false) => u32::from_ne_bytes(item.try_into().unwrap_or_default()).into(),
                (_, true) => i64::from_ne_bytes(item.try_into().unwrap_or_default()).into(),
                (_, false) => u64::from_ne_bytes(item.try_into().unwrap_or_default()).into(),
            };
            u64::try_from(value)
                .map_err(|_| PyValueError::new_err(format!("offsets[{i}] is negative ({value})")))
        })
        .collect()
}

/// Each row's bytes; errors for offsets that go backwards or past the end.
fn row_slices<'a>(values: &'a [u8], bounds: &[u64]) -> PyResult<Vec<&'a [u8]>> {
    if bounds.is_empty() {
        return Err(PyValueError::new_err(
            "offsets must hold n + 1 entries for n rows (at least one)",
        ));
    }
    bounds
        .windows(2)
        .enumerate()
        .map(|(i, w)| {
            let (start, end) = (w[0], w[1]);
            if end < start {
                return Err(PyValueError::new_err(format!(
                    "offsets[{}] = {end} is less than offsets[{i}] = {start}",
                    i + 1
                )));
            }
            usize::try_from(end)
                .ok()
                .and_then(|end| values.get(start as usize..end))
                .ok_or_else(|| {
                    PyValueError::new_err(format!(
                        "offsets[{}] = {end} is past the end of values ({} bytes)",
                        i + 1,
                        values.len()
                    ))
                })
        })
        .collect()
}
