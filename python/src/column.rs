//! A column's digests, written straight into the result's buffer: 16 bytes
//! a row, or 32 lowercase hex digits (Spark's and DuckDB's `md5(col)`).
//! Every column entry point (`md5_many_offsets`, Arrow, Polars) ends here,
//! with the GIL released.

use linerate::Rows;
use linerate::lanes::Lanes;
use linerate::lanes::many::md5_rows_range;

/// Columns with less work than this (bytes and row overheads) stay on one
/// thread: starting threads would cost more than it saves.
const PARALLEL_MIN_BYTES: usize = 1 << 20;

/// Hex digests are made from this many binary ones at a time (64 KiB of
/// scratch, in cache).
const HEX_STEP: usize = 4096;

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
        write_hex(digests, text);
    }
}

/// Lowercase hex digits of each digest, 32 bytes each.
pub fn write_hex(digests: &[[u8; 16]], text: &mut [u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for (chunk, digest) in text.chunks_exact_mut(32).zip(digests) {
        for (pair, byte) in chunk.chunks_exact_mut(2).zip(digest) {
            pair[0] = DIGITS[usize::from(byte >> 4)];
            pair[1] = DIGITS[usize::from(byte & 15)];
        }
    }
}
