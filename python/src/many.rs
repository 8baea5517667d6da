//! Many messages in one call, on the multi-buffer engine with the GIL
//! released: a sequence of buffers, or Arrow/NumPy-style columns (one
//! values buffer and the row offsets into it).

use std::borrow::Cow;

use linerate::lanes::rows::Offset;
use linerate::{OffsetRows, Rows, RowsError};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};

use crate::arrow_column::{SharedOffsets, hash_shared};
use crate::buffer::{self, Data, with_item_index};
use crate::column;

/// Rows in one step of `md5_many`: the step's references, spans and
/// digests stay in cache between reading the items, hashing them with the
/// GIL released, and making the result's bytes objects.
const STEP: usize = 4096;

/// Items whose objects are fetched into cache together: the first touch
/// of each (its reference count) is a cache miss, and asking for a group
/// at once overlaps their latencies.
const PREFETCH: usize = 32;

/// Starts loading the objects of items `from..to` of a list or tuple (their
/// headers and first bytes) into cache.
fn prefetch_items(items: &Bound<'_, PyAny>, from: usize, to: usize) {
    #[cfg(target_arch = "x86_64")]
    for i in from..to {
        let Ok(index) = isize::try_from(i) else {
            return;
        };
        // SAFETY: `items` is a live list or tuple and the GIL is held;
        // the Get*Item calls return a borrowed pointer (or NULL, with an
        // IndexError set, which is cleared) that is only prefetched, never
        // dereferenced: a prefetch of any address cannot fault.
        unsafe {
            let obj = if pyo3::ffi::PyList_Check(items.as_ptr()) != 0 {
                pyo3::ffi::PyList_GetItem(items.as_ptr(), index)
            } else {
                pyo3::ffi::PyTuple_GetItem(items.as_ptr(), index)
            };
            if obj.is_null() {
                pyo3::ffi::PyErr_Clear();
                return;
            }
            let p = obj.cast::<i8>();
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p);
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                p.wrapping_add(64),
            );
        }
    }
}

/// A step of `md5_many` with fewer bytes than this hashes on one thread.
const THREADED_STEP_BYTES: usize = 16 << 20;

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
/// batches. An item without bytes raises its own error (`TypeError` where
/// it has no buffer, `ValueError` or `BufferError` where its exporter
/// refuses) with the item's index first ("item 3: ..."). A list another
/// thread changes during the call is read a few thousand items at a time:
/// the result holds the digest of each item as read, so its length may
/// differ from the list's before or after; no item is read after it was
/// freed.
#[pyfunction]
#[pyo3(signature = (messages, *, threads = None))]
pub fn md5_many<'py>(
    py: Python<'py>,
    messages: &Bound<'py, PyAny>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyList>> {
    let threads = thread_count(threads)?;
    // A list or tuple is read in place, a step at a time; any other
    // iterable is first collected.
    let items: Bound<'py, PyAny> =
        if messages.cast::<PyList>().is_ok() || messages.cast::<PyTuple>().is_ok() {
            messages.clone()
        } else {
            PyTuple::new(py, messages.try_iter()?.collect::<PyResult<Vec<_>>>()?)?.into_any()
        };
    let list = items.cast::<PyList>().ok();
    let tuple = items.cast::<PyTuple>().ok();
    // Item `i`, or None past the end: a list may have been shortened by
    // another thread while an item's export ran Python code.
    let get = |i: usize| -> Option<Bound<'py, PyAny>> {
        match (&list, &tuple) {
            (Some(l), _) => l.get_item(i).ok(),
            (_, Some(t)) => t.get_item(i).ok(),
            _ => unreachable!("a list or a tuple"),
        }
    };
    // Fixed, not sized from the length: a list may grow between steps.
    let mut digests = vec![[0u8; 16]; STEP];
    let out = PyList::empty(py);
    let mut start = 0;
    // The length is read again each step: another thread may grow or
    // shorten the list while the GIL is released. The result holds the
    // digest of each item as read, step by step.
    loop {
        let end = (start + STEP).min(items.len()?);
        if start >= end {
            break;
        }
        // Strong references (and buffer exports) to the step's items, so
        // that nothing they point to is freed or moved while hashing,
        // whatever happens to the list meanwhile.
        let mut held = Vec::with_capacity(end - start);
        for i in start..end {
            if (i - start) % PREFETCH == 0 {
                prefetch_items(&items, i, end.min(i + PREFETCH));
            }
            let Some(item) = get(i) else { break };
            held.push(Data::take(item).map_err(|e| with_item_index(py, i, e))?);
        }
        let count = held.len();
        if count == 0 {
            break;
        }
        let slices: Vec<&[u8]> = held.iter().map(Data::bytes).collect();
        let bytes: usize = slices.iter().map(|s| s.len()).sum();
        let digests = &mut digests[..count];
        // Threads only for long rows: for short ones the items' Python
        // objects cost more than the hashing, and starting threads each
        // step would cost more than it saves (measured: 1 M rows of 64 B,
        // 9.3 M rows/s on one thread, 7.0 M on two).
        let threads = if bytes >= THREADED_STEP_BYTES {
            threads
        } else {
            1
        };
        py.detach(|| {
            column::hash_into(
                slices.as_slice(),
                bytes,
                threads,
                false,
                digests.as_flattened_mut(),
            )
        });
        for d in digests.iter() {
            out.append(PyBytes::new(py, d))?;
        }
        start += count;
    }
    Ok(out)
}

/// `md5_many_offsets(values, offsets, out=None, *, threads=None,
/// hex=False)`: row `i` is `values[offsets[i]:offsets[i + 1]]` (Arrow's
/// binary and large_binary layout: int32 or int64 offsets, n + 1 of them).
/// Returns the n digests as one `bytes` of 16 n bytes (with `hex`, 32 n
/// bytes of lowercase hex digits), or writes them into `out` (any writable
/// buffer of that size, e.g. a NumPy `uint8` array of shape (n, 16)) and
/// returns None; an `out` that shares memory with `values` or `offsets` is
/// a ValueError ("out overlaps values"). `offsets` is one-dimensional (any
/// other shape is a ValueError); it is copied before it is checked, so
/// another thread rewriting it or `values` during the call changes the
/// digests at most. Large columns use up to `threads` threads (default:
/// every core). `device`: "cpu", "cuda" (the GPU, where there is one; else
/// a RuntimeWarning says why and the CPU does it) or "auto" (the GPU past
/// the measured crossover); default from LINERATE_DEVICE, else "cpu".
#[pyfunction]
#[pyo3(signature = (values, offsets, out = None, *, threads = None, hex = false, device = None))]
pub fn md5_many_offsets<'py>(
    py: Python<'py>,
    values: &Bound<'py, PyAny>,
    offsets: &Bound<'py, PyAny>,
    out: Option<&Bound<'py, PyAny>>,
    threads: Option<usize>,
    hex: bool,
    device: Option<&str>,
) -> PyResult<Option<Bound<'py, PyBytes>>> {
    let threads = thread_count(threads)?;
    let device = crate::cuda::device(device)?;
    let values = Data::borrow(values)?;
    let offsets = buffer::typed(offsets)?;
    if offsets.ndim() != 1 {
        return Err(PyValueError::new_err(format!(
            "offsets must be 1-dimensional, not {}-D",
            offsets.ndim()
        )));
    }
    let mut target = out.map(buffer::writable).transpose()?;
    if let Some(target) = &target {
        // Checked on addresses, before any `&mut` to `out` exists: Rust
        // may not hold one alongside a `&` to the same bytes, and the
        // digests would overwrite rows not yet hashed.
        let out = target.address_range();
        let values = values.bytes().as_ptr_range();
        if overlaps(&out, &(values.start as usize..values.end as usize)) {
            return Err(PyValueError::new_err("out overlaps values"));
        }
        if overlaps(&out, &offsets.address_range()) {
            return Err(PyValueError::new_err("out overlaps offsets"));
        }
    }
    let values = values.bytes();
    let target = target.as_mut().map(|t| t.bytes_mut());
    match Offsets::read(&offsets)? {
        Offsets::I32(o) => offsets_into(py, values, o, target, threads, hex, device),
        Offsets::U32(o) => offsets_into(py, values, o, target, threads, hex, device),
        Offsets::I64(o) => offsets_into(py, values, o, target, threads, hex, device),
        Offsets::U64(o) => offsets_into(py, values, o, target, threads, hex, device),
    }
}

/// Whether two address ranges share a byte (empty ones share none).
fn overlaps(a: &std::ops::Range<usize>, b: &std::ops::Range<usize>) -> bool {
    !a.is_empty() && !b.is_empty() && a.start < b.end && b.start < a.end
}

/// `md5_many_offsets` once the offsets' type is known. Borrowed offsets
/// are the caller's memory, which another thread may rewrite while the GIL
/// is released: they are checked here (so that an invalid column is an
/// error before anything is written), and hashed from copies checked again,
/// a block at a time, so that what bounds a read is what was checked.
fn offsets_into<'py, O: Offset>(
    py: Python<'py>,
    values: &[u8],
    offsets: Cow<'_, [O]>,
    out: Option<&mut [u8]>,
    threads: usize,
    hex: bool,
    device: linerate::gpu::Device,
) -> PyResult<Option<Bound<'py, PyBytes>>> {
    let shared = matches!(offsets, Cow::Borrowed(_));
    let offsets: &[O] = &offsets;
    let invalid = |e: RowsError| PyValueError::new_err(e.to_string());
    let rows = OffsetRows::new(values, offsets).map_err(invalid)?;
    let n = rows.count();
    let bytes = column::span(offsets);
    let need = column::width(hex) * n;
    let placement = crate::cuda::placement(py, device, n, bytes)?;
    let hash = |target: &mut [u8]| -> PyResult<()> {
        match (&placement, shared) {
            #[cfg(feature = "cuda")]
            (linerate::gpu::Placement::Gpu(ctx), _) => {
                // The GPU reads the whole layout: from a private copy.
                let private = offsets.to_vec();
                let rows = OffsetRows::new(values, &private).map_err(invalid)?;
                py.detach(|| crate::cuda::hash_on_gpu(ctx, &rows, hex, target))
                    .map_err(pyo3::exceptions::PyRuntimeError::new_err)
            }
            (linerate::gpu::Placement::Cpu, true) => {
                let layout = SharedOffsets { values, offsets };
                py.detach(|| hash_shared(&layout, bytes, threads, hex, target))
                    .map_err(invalid)
            }
            (linerate::gpu::Placement::Cpu, false) => {
                py.detach(|| column::hash_into(&rows, bytes, threads, hex, target));
                Ok(())
            }
        }
    };
    match out {
        Some(target) => {
            if target.len() != need {
                return Err(PyValueError::new_err(format!(
                    "out has {} bytes; {n} rows need {need}",
                    target.len(),
                )));
            }
            hash(target)?;
            Ok(None)
        }
        None => {
            // Written in place into the new bytes object, which no other
            // thread can see before it is returned.
            let result = PyBytes::new_with(py, need, |target| hash(target))?;
            Ok(Some(result))
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
