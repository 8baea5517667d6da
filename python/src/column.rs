//! A column's digests, written straight into the result's buffer: 16 bytes
//! a row, or 32 lowercase hex digits (Spark's and DuckDB's `md5(col)`).
//! Every column entry point (`md5_many_offsets`, Arrow, Polars) ends here,
//! with the GIL released.

use std::fmt;

use linerate::Rows;
use linerate::hex::hex_digests;
use linerate::lanes::Lanes;
use linerate::lanes::many::md5_rows_range;

/// Columns with less work than this (bytes and row overheads) stay on one
/// thread: starting threads would cost more than it saves.
pub(crate) const PARALLEL_MIN_BYTES: usize = 1 << 20;

/// Hex digests are made from this many binary ones at a time (64 KiB of
/// scratch, in cache).
const HEX_STEP: usize = 4096;

/// The bytes from the first offset to the last: sizes the work (and its
/// split between threads), never a bound on a read.
pub fn span<O: linerate::lanes::rows::Offset>(offsets: &[O]) -> usize {
    match (offsets.first(), offsets.last()) {
        (Some(a), Some(b)) => b
            .index()
            .unwrap_or(0)
            .saturating_sub(a.index().unwrap_or(0)),
        _ => 0,
    }
}

/// Bytes of output per row.
pub fn width(hex: bool) -> usize {
    if hex { 32 } else { 16 }
}

/// The digest of every row of `rows` into `out` (`width(hex)` bytes a row),
/// over up to `threads` threads, each a contiguous run of rows. `bytes` is
/// the rows' total length (it sizes the split).
///
/// # Panics
/// If `out` is not `width(hex) * rows.count()` bytes.
pub fn hash_into<R: Rows + ?Sized>(
    rows: &R,
    bytes: usize,
    threads: usize,
    hex: bool,
    out: &mut [u8],
) {
    let n = rows.count();
    let w = width(hex);
    assert_eq!(out.len(), w * n, "out holds {} bytes a row", w);
    let lanes = Lanes::active();
    let work = bytes + 64 * n;
    let threads = threads.min(work / PARALLEL_MIN_BYTES).clamp(1, n.max(1));
    let per = n.div_ceil(threads).max(1);
    if threads == 1 {
        hash_run(&lanes, rows, 0, hex, out);
        return;
    }
    std::thread::scope(|scope| {
        for (k, out) in out.chunks_mut(w * per).enumerate() {
            let lanes = &lanes;
            scope.spawn(move || hash_run(lanes, rows, k * per, hex, out));
        }
    });
}

/// Rows `start..` (as many as `out` holds) into `out`.
fn hash_run<R: Rows + ?Sized>(lanes: &Lanes, rows: &R, start: usize, hex: bool, out: &mut [u8]) {
    if !hex {
        let (digests, _) = out.as_chunks_mut::<16>();
        md5_rows_range(lanes, rows, start..start + digests.len(), digests);
        return;
    }
    let mut scratch = vec![[0u8; 16]; HEX_STEP];
    for (k, text) in out.chunks_mut(32 * HEX_STEP).enumerate() {
        let first = start + k * HEX_STEP;
        let digests = &mut scratch[..text.len() / 32];
        md5_rows_range(lanes, rows, first..first + digests.len(), digests);
        hex_digests(digests, text);
    }
}

/// Why a column's digests could not be made.
#[derive(Debug)]
pub enum ColumnError {
    /// The input is not a column that can be hashed (the message says why).
    Invalid(String),
    /// Memory for the result could not be had: Python's `MemoryError`,
    /// as `bytearray(n)` raises, where an infallible allocation would
    /// abort the interpreter.
    OutOfMemory { bytes: usize },
}

impl ColumnError {
    /// The Python exception: `invalid`'s for an input that cannot be
    /// hashed, `MemoryError` for memory.
    pub fn into_py_err(self, invalid: impl FnOnce(String) -> pyo3::PyErr) -> pyo3::PyErr {
        match self {
            ColumnError::Invalid(message) => invalid(message),
            e @ ColumnError::OutOfMemory { .. } => {
                pyo3::exceptions::PyMemoryError::new_err(e.to_string())
            }
        }
    }
}

impl From<String> for ColumnError {
    fn from(message: String) -> ColumnError {
        ColumnError::Invalid(message)
    }
}

impl fmt::Display for ColumnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ColumnError::Invalid(message) => f.write_str(message),
            ColumnError::OutOfMemory { bytes } => {
                write!(f, "cannot allocate {bytes} bytes for the digests")
            }
        }
    }
}

/// An empty vector with room for exactly `len` items, or `OutOfMemory`
/// (a result's size comes from the caller's column: it may not fit).
pub fn try_vec<T>(len: usize) -> Result<Vec<T>, ColumnError> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| ColumnError::OutOfMemory {
            bytes: len.saturating_mul(size_of::<T>()),
        })?;
    Ok(v)
}

/// Output buffers at least this large ask for huge pages.
const HUGE_MIN: usize = 4 << 20;

/// A zeroed buffer for `len` bytes of digests, or `OutOfMemory`. A large
/// one is fresh memory from the kernel, and filling it 4 KiB page by page
/// costs a fault per page, as much as hashing the rows (measured: 2 M hex
/// digests, 27.5 M rows/s into fresh memory, 47 M into reused); on Linux it
/// asks for transparent huge pages first, 512 times fewer faults.
pub fn output_buffer(len: usize) -> Result<Vec<u8>, ColumnError> {
    if len == 0 {
        return Ok(Vec::new());
    }
    let layout = std::alloc::Layout::array::<u8>(len)
        .map_err(|_| ColumnError::OutOfMemory { bytes: len })?;
    // The allocator's zeroed memory, as `vec![0; len]` takes it (fresh
    // pages from the kernel, not written before the advice below), but
    // with the failure returned: `vec!` aborts the process, and a `Vec`'s
    // fallible reserve gives memory that would need zeroing, a pass over
    // every page before the hashing's.
    // SAFETY: `layout` has a non-zero size (len > 0).
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
    if ptr.is_null() {
        return Err(ColumnError::OutOfMemory { bytes: len });
    }
    // SAFETY: `ptr` comes from the global allocator with the layout a
    // `Vec<u8>` of capacity `len` frees with (size `len`, align 1), and its
    // `len` bytes are zeroed, hence initialised.
    let buf = unsafe { Vec::from_raw_parts(ptr, len, len) };
    #[cfg(target_os = "linux")]
    if len >= HUGE_MIN {
        const HUGE: usize = 2 << 20;
        let start = (buf.as_ptr() as usize).next_multiple_of(HUGE);
        let end = (buf.as_ptr() as usize + len) / HUGE * HUGE;
        if end > start {
            // SAFETY: madvise only advises the kernel about pages within
            // this buffer's own allocation (a 2 MiB-aligned range inside
            // it); it changes no contents and no mapping's validity, and a
            // kernel that refuses leaves the buffer as it was.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    Ok(buf)
}
