//! MD5 of rows on the GPU: one thread per row.
//!
//! Rows already in device memory (a CuPy, PyTorch or cuDF column) are
//! hashed in place: the offsets are checked by a kernel first, so that a
//! bad column is an error and never a read out of bounds.
//!
//! Rows in host memory stream through two slots, each a pinned staging
//! buffer, its device twin and a stream: while the GPU copies and hashes
//! one chunk, the CPU threads gather the next chunk's rows into the other
//! slot's pinned buffer. A row too long for a chunk has no parallelism to
//! offer and is hashed by the CPU.

use std::ffi::c_void;
use std::fmt;

use rayon::prelude::*;

use super::driver::{Context, DeviceBuffer, GpuError, PinnedBuffer, Registered, Stream, arg};
use crate::lanes::rows::Rows;

/// Row offsets in device memory, by width.
#[derive(Clone, Copy, Debug)]
pub enum DeviceOffsets {
    /// `count + 1` unsigned 64-bit offsets (Arrow's `large_binary` as
    /// unsigned; a negative `int64` offset reads as past the end).
    U64(u64),
    /// `count + 1` signed 32-bit offsets (Arrow's `binary`, cuDF's strings).
    I32(u64),
}

/// Rows in device memory: row `i` is `data[offsets[i]..offsets[i + 1]]`.
#[derive(Clone, Copy, Debug)]
pub struct DeviceRows {
    /// Device address of the values.
    pub data: u64,
    /// Bytes at `data` that rows may use.
    pub data_len: u64,
    pub offsets: DeviceOffsets,
    pub count: u64,
}

/// Why device rows were not hashed.
#[derive(Debug)]
pub enum DeviceRowsError {
    Gpu(GpuError),
    /// Offset `index` or `index + 1` is negative, decreasing or past the
    /// values' end.
    BadOffsets {
        index: u64,
    },
}

impl fmt::Display for DeviceRowsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceRowsError::Gpu(e) => e.fmt(f),
            DeviceRowsError::BadOffsets { index } => write!(
                f,
                "row {index}: its offsets are negative, decreasing or past the end of the values"
            ),
        }
    }
}

impl std::error::Error for DeviceRowsError {}

impl From<GpuError> for DeviceRowsError {
    fn from(e: GpuError) -> Self {
        DeviceRowsError::Gpu(e)
    }
}

/// How rows in host memory reach the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Staging {
    /// Every CPU thread copies the chunk into a pinned buffer, which the
    /// copy engine reads: host memory is read twice and written once.
    Copy,
    /// Back-to-back rows are page-locked in place for the call and the copy
    /// engine reads them there (other layouts are copied as above).
    Register,
}

/// How rows from host memory are pipelined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowsOptions {
    pub staging: Staging,
    /// Chunks in flight (2 to 4): while the GPU copies and hashes one, the
    /// CPU threads fill the next.
    pub slots: usize,
}

/// What [`Context::md5_rows`] uses, by measurement (docs/performance.md,
/// "MD5 on a GPU"): staging copies (registering in place: 0.39-0.42x) and
/// three chunks in flight (1.10x two for 16 KiB rows, 1.01x for 64 B).
pub const DEFAULT_ROWS_OPTIONS: RowsOptions = RowsOptions {
    staging: Staging::Copy,
    slots: 3,
};

/// Bytes of rows per chunk from host memory.
const CHUNK_BYTES: usize = 64 << 20;
/// Rows per chunk: bounds the offsets and digests buffers.
const CHUNK_ROWS: usize = 1 << 20;

impl Context {
    /// Checks `rows`' offsets on the device, then queues MD5 of every row
    /// into `digests` (device memory, 16 bytes a row) on `stream`.
    ///
    /// # Safety
    /// `rows.data .. + data_len`, the offsets and `digests .. + 16 * count`
    /// must be device memory of this context, live until `stream` is done.
    pub unsafe fn md5_device_rows_into(
        &self,
        rows: &DeviceRows,
        digests: u64,
        stream: &Stream,
    ) -> Result<(), DeviceRowsError> {
        self.bind()?;
        if rows.count == 0 {
            return Ok(());
        }
        let mut bad = DeviceBuffer::new(self, 8)?;
        bad.upload(&u64::MAX.to_le_bytes())?;
        let (check, offsets) = match rows.offsets {
            DeviceOffsets::U64(p) => (self.kernels.check64, p),
            DeviceOffsets::I32(p) => (self.kernels.check32, p),
        };
        let bad_ptr = bad.ptr();
        let mut params = [
            arg(&offsets),
            arg(&rows.count),
            arg(&rows.data_len),
            arg(&bad_ptr),
        ];
        // SAFETY: check_offsets(const Off*, u64, u64, u64*) with the
        // caller's offsets and our 8-byte `bad`.
        unsafe { stream.launch(check, rows.count, &mut params) }?;
        stream.synchronize()?;
        let mut first_bad = [0u8; 8];
        bad.download(&mut first_bad)?;
        let first_bad = u64::from_le_bytes(first_bad);
        if first_bad != u64::MAX {
            return Err(DeviceRowsError::BadOffsets { index: first_bad });
        }
        // SAFETY: the offsets were checked in bounds above; the rest is the
        // caller's contract.
        unsafe { self.launch_rows_unchecked(rows, digests, stream) }?;
        Ok(())
    }

    /// Queues MD5 of every row, the offsets taken on trust.
    ///
    /// # Safety
    /// As [`Context::md5_device_rows_into`], and the offsets must be in
    /// bounds, non-negative and never decreasing.
    pub(crate) unsafe fn launch_rows_unchecked(
        &self,
        rows: &DeviceRows,
        digests: u64,
        stream: &Stream,
    ) -> Result<(), GpuError> {
        let (hash, offsets) = match rows.offsets {
            DeviceOffsets::U64(p) => (self.kernels.rows64, p),
            DeviceOffsets::I32(p) => (self.kernels.rows32, p),
        };
        let mut params = [
            arg(&rows.data),
            arg(&offsets),
            arg(&rows.count),
            arg(&digests),
        ];
        // SAFETY: md5_rows(const u8*, const Off*, u64, u32*): the caller's
        // contract; digests is the caller's 16 * count bytes.
        unsafe { stream.launch(hash, rows.count, &mut params) }
    }

    /// MD5 of every row of `rows` (in device memory), digests to the host.
    ///
    /// # Safety
    /// As [`Context::md5_device_rows_into`]: the addresses must be this
    /// context's device memory, unchanged during the call.
    pub unsafe fn md5_device_rows(
        &self,
        rows: &DeviceRows,
    ) -> Result<Vec<[u8; 16]>, DeviceRowsError> {
        let n = usize::try_from(rows.count).expect("row count fits memory");
        let digests = DeviceBuffer::new(self, n * 16)?;
        let stream = Stream::new(self)?;
        // SAFETY: the caller's contract; `digests` holds 16 * count bytes.
        unsafe { self.md5_device_rows_into(rows, digests.ptr(), &stream) }?;
        stream.synchronize()?;
        let mut out = vec![[0u8; 16]; n];
        digests.download(out.as_flattened_mut())?;
        Ok(out)
    }

    /// MD5 of every row of `rows` (in host memory) on the GPU, into `out`.
    ///
    /// # Panics
    /// If `out.len() != rows.count()`.
    pub fn md5_rows<R: Rows + ?Sized>(
        &self,
        rows: &R,
        out: &mut [[u8; 16]],
    ) -> Result<(), GpuError> {
        self.md5_rows_with(rows, out, DEFAULT_ROWS_OPTIONS)
    }

    /// [`Context::md5_rows`] with the pipeline chosen.
    pub fn md5_rows_with<R: Rows + ?Sized>(
        &self,
        rows: &R,
        out: &mut [[u8; 16]],
        options: RowsOptions,
    ) -> Result<(), GpuError> {
        let staging = options.staging;
        let nslots = options.slots.clamp(2, 4);
        assert_eq!(rows.count(), out.len(), "one output per row");
        let n = rows.count();
        let mut cache = self.row_slots.lock().unwrap_or_else(|p| p.into_inner());
        while cache.len() < nslots {
            cache.push(RowSlot::new(self)?);
        }
        let slots = &mut cache[..nslots];
        // A call that failed part way may have left rows in flight.
        for slot in slots.iter_mut() {
            if slot.pending.take().is_some() {
                slot.stream.synchronize()?;
            }
        }
        let mut big = Vec::new();
        let mut start = 0;
        let mut turn = 0;
        let all = rows.contiguous();
        let registered = match (staging, all) {
            (Staging::Register, Some(all)) => Registered::new(self, all),
            _ => None,
        };
        let direct = registered.is_some();
        while start < n {
            let slot = &mut slots[turn % nslots];
            slot.collect(rows, out)?;
            match all {
                // Back to back: chunks found by binary search, each one copy.
                Some(all) => {
                    let end = contiguous_chunk_end(rows, all, start);
                    if end == start {
                        big.push(start);
                        start += 1;
                        continue;
                    }
                    slot.send_contiguous(self, rows, all, start..end, direct)?;
                    start = end;
                }
                None => {
                    let end = chunk_end(rows, start, &mut big);
                    slot.send(self, rows, start..end)?;
                    start = end;
                }
            }
            turn += 1;
        }
        for slot in slots.iter_mut() {
            slot.collect(rows, out)?;
        }
        // Every copy from the registered rows is done: unlock them.
        drop(registered);
        big.par_iter()
            .map(|&i| (i, crate::md5(rows.row(i))))
            .collect::<Vec<_>>()
            .into_iter()
            .for_each(|(i, d)| out[i] = d);
        Ok(())
    }
}

/// Whether row `len` is hashed by the CPU instead (too long for a chunk).
fn is_big(len: usize) -> bool {
    len > CHUNK_BYTES
}

/// The end of the chunk starting at row `start`; long rows met on the way
/// go to `big`.
fn chunk_end<R: Rows + ?Sized>(rows: &R, start: usize, big: &mut Vec<usize>) -> usize {
    let mut bytes = 0;
    let mut count = 0;
    let mut i = start;
    while i < rows.count() && count < CHUNK_ROWS {
        let len = rows.row(i).len();
        if is_big(len) {
            big.push(i);
        } else if bytes + len > CHUNK_BYTES {
            break;
        } else {
            bytes += len;
            count += 1;
        }
        i += 1;
    }
    i
}

/// Where row `i` (or the end, for `i == count`) starts in `all`.
fn position<R: Rows + ?Sized>(rows: &R, all: &[u8], i: usize) -> usize {
    if i == rows.count() {
        all.len()
    } else {
        rows.row(i).as_ptr() as usize - all.as_ptr() as usize
    }
}

/// The end of the chunk from row `start` of back-to-back rows: the most
/// rows (up to a chunk's count) whose bytes fit a chunk; `start` itself if
/// that row alone is too long.
fn contiguous_chunk_end<R: Rows + ?Sized>(rows: &R, all: &[u8], start: usize) -> usize {
    let base = position(rows, all, start);
    let (mut lo, mut hi) = (start, (start + CHUNK_ROWS).min(rows.count()));
    // The largest end in lo..=hi with position(end) - base <= CHUNK_BYTES.
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if position(rows, all, mid) - base <= CHUNK_BYTES {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// One side of the double buffer.
pub(crate) struct RowSlot {
    data: PinnedBuffer,
    offsets: PinnedBuffer,
    digests: PinnedBuffer,
    dev_data: DeviceBuffer,
    dev_offsets: DeviceBuffer,
    dev_digests: DeviceBuffer,
    stream: Stream,
    /// The rows in flight on this slot, waiting for `collect`, and
    /// whether they are back to back (then no row is skipped as big).
    pending: Option<(std::ops::Range<usize>, bool)>,
}

impl RowSlot {
    fn new(ctx: &Context) -> Result<RowSlot, GpuError> {
        Ok(RowSlot {
            // 16 bytes of slack: rows end anywhere, loads are aligned words.
            data: PinnedBuffer::new(ctx, CHUNK_BYTES + 16)?,
            offsets: PinnedBuffer::new(ctx, (CHUNK_ROWS + 1) * 8)?,
            digests: PinnedBuffer::new(ctx, CHUNK_ROWS * 16)?,
            dev_data: DeviceBuffer::new(ctx, CHUNK_BYTES + 16)?,
            dev_offsets: DeviceBuffer::new(ctx, (CHUNK_ROWS + 1) * 8)?,
            dev_digests: DeviceBuffer::new(ctx, CHUNK_ROWS * 16)?,
            stream: Stream::new(ctx)?,
            pending: None,
        })
    }

    /// Waits for the rows in flight and writes their digests to `out`.
    fn collect<R: Rows + ?Sized>(
        &mut self,
        rows: &R,
        out: &mut [[u8; 16]],
    ) -> Result<(), GpuError> {
        let Some((range, contiguous)) = self.pending.take() else {
            return Ok(());
        };
        self.stream.synchronize()?;
        let digests = self.digests.as_slice();
        if contiguous {
            out[range.clone()]
                .as_flattened_mut()
                .par_chunks_mut(1 << 16)
                .zip(digests[..16 * range.len()].par_chunks(1 << 16))
                .for_each(|(o, d)| o.copy_from_slice(d));
            return Ok(());
        }
        let mut k = 0;
        for i in range {
            if is_big(rows.row(i).len()) {
                continue;
            }
            out[i].copy_from_slice(&digests[16 * k..16 * k + 16]);
            k += 1;
        }
        Ok(())
    }

    /// Gathers rows `range` (less the big ones) into the pinned buffer and
    /// queues their copy, hash and the digests' return.
    fn send<R: Rows + ?Sized>(
        &mut self,
        ctx: &Context,
        rows: &R,
        range: std::ops::Range<usize>,
    ) -> Result<(), GpuError> {
        // Offsets first (one pass over the lengths), then the bytes, copied
        // by every thread: a core's memcpy is slower than the copy engine.
        let offsets: &mut [u8] = self.offsets.as_mut_slice();
        let mut count = 0usize;
        let mut at = 0u64;
        offsets[..8].copy_from_slice(&0u64.to_le_bytes());
        for i in range.clone() {
            let len = rows.row(i).len();
            if is_big(len) {
                continue;
            }
            at += len as u64;
            count += 1;
            offsets[count * 8..count * 8 + 8].copy_from_slice(&at.to_le_bytes());
        }
        let total = at as usize;
        gather(rows, range.clone(), &mut self.data.as_mut_slice()[..total]);
        self.queue(ctx, count, self.data.as_slice().as_ptr(), total)?;
        self.pending = Some((range, false));
        Ok(())
    }

    /// Rows `range` of back-to-back rows (`all`): one parallel copy of
    /// their bytes, offsets from their positions.
    fn send_contiguous<R: Rows + ?Sized>(
        &mut self,
        ctx: &Context,
        rows: &R,
        all: &[u8],
        range: std::ops::Range<usize>,
        direct: bool,
    ) -> Result<(), GpuError> {
        let base = position(rows, all, range.start);
        let end = position(rows, all, range.end);
        let count = range.len();
        const PIECE: usize = 1 << 20;
        if !direct {
            self.data.as_mut_slice()[..end - base]
                .par_chunks_mut(PIECE)
                .zip(all[base..end].par_chunks(PIECE))
                .for_each(|(d, s)| d.copy_from_slice(s));
        }
        let (offsets, _) = self.offsets.as_mut_slice()[..(count + 1) * 8].as_chunks_mut::<8>();
        offsets
            .par_chunks_mut(1 << 14)
            .enumerate()
            .for_each(|(k, o)| {
                for (j, w) in o.iter_mut().enumerate() {
                    let i = range.start + k * (1 << 14) + j;
                    *w = ((position(rows, all, i) - base) as u64).to_le_bytes();
                }
            });
        let source = if direct {
            all[base..].as_ptr()
        } else {
            self.data.as_slice().as_ptr()
        };
        self.queue(ctx, count, source, end - base)?;
        self.pending = Some((range, true));
        Ok(())
    }

    /// Queues the copy of `count` rows' offsets and the `total` bytes at
    /// `source` (this slot's pinned buffer, or registered rows), their
    /// hashing and the digests' return.
    fn queue(
        &mut self,
        ctx: &Context,
        count: usize,
        source: *const u8,
        total: usize,
    ) -> Result<(), GpuError> {
        ctx.bind()?;
        // SAFETY: the pinned buffers are not touched again until `collect`
        // has synchronised the stream; the device buffers are this slot's.
        unsafe {
            self.stream.copy_in(
                self.dev_offsets.ptr(),
                self.offsets.as_slice().as_ptr(),
                (count + 1) * 8,
            )?;
            self.stream.copy_in(self.dev_data.ptr(), source, total)?;
        }
        let data = self.dev_data.ptr();
        let offs = self.dev_offsets.ptr();
        let digests = self.dev_digests.ptr();
        let n = count as u64;
        let mut params: [*mut c_void; 4] = [arg(&data), arg(&offs), arg(&n), arg(&digests)];
        // SAFETY: md5_rows64(const u8*, const u64*, u64, u32*) over this
        // slot's buffers: offsets built above, within `total` bytes.
        unsafe { self.stream.launch(ctx.kernels.rows64, n, &mut params) }?;
        // SAFETY: the pinned digests are read only after `collect` syncs.
        unsafe {
            self.stream.copy_out(
                self.digests.as_mut_slice().as_mut_ptr(),
                digests,
                count * 16,
            )?;
        }
        Ok(())
    }
}

/// Copies the rows of `range` (less the big ones) back to back into
/// `dst`, on every thread.
fn gather<R: Rows + ?Sized>(rows: &R, range: std::ops::Range<usize>, dst: &mut [u8]) {
    const PIECES: usize = 16;
    let per = range.len().div_ceil(PIECES).max(1);
    let mut pieces = Vec::with_capacity(PIECES);
    let mut rest = dst;
    let mut i = range.start;
    while i < range.end {
        let end = (i + per).min(range.end);
        let bytes: usize = (i..end)
            .map(|r| rows.row(r).len())
            .filter(|&l| !is_big(l))
            .sum();
        let (mine, tail) = rest.split_at_mut(bytes);
        pieces.push((i..end, mine));
        rest = tail;
        i = end;
    }
    pieces.into_par_iter().for_each(|(range, dst)| {
        let mut at = 0;
        for r in range {
            let row = rows.row(r);
            if is_big(row.len()) {
                continue;
            }
            dst[at..at + row.len()].copy_from_slice(row);
            at += row.len();
        }
    });
}
