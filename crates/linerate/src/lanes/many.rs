//! MD5 of many messages at once: millions of short rows, or any mix of
//! lengths, through the lanes engine.
//!
//! Rows are read where they lie ([`Rows`]: slices, Arrow offsets or views).
//! Short rows (under 120 bytes: one or two padded blocks, the rows of data
//! frames) are padded straight into one of two lane batches, one per block
//! count, each hashed in one engine call when it fills: one pass, no
//! sorting. Longer rows are set aside and grouped by their padded block
//! count (sorted within windows), so the lanes of one engine call finish
//! together; their whole blocks are read in place and only the last one or
//! two (tail bytes, 0x80, zeros, bit length) are built in scratch.

use std::ops::Range;

use crate::lanes::rows::Rows;
use crate::lanes::short::ShortBatch;
use crate::lanes::{LaneState, Lanes, MAX_LANES};

/// Messages sorted and grouped per batch: large enough that groups are long
/// runs of equal block counts, small enough to stay in cache.
const BATCH: usize = 4096;

/// Rows shorter than this are padded whole into a lane batch.
pub(crate) const SHORT: usize = 120;

/// MD5 of each message, in order.
pub fn md5_many(messages: &[&[u8]]) -> Vec<[u8; 16]> {
    let mut out = vec![[0u8; 16]; messages.len()];
    md5_many_into(messages, &mut out);
    out
}

/// MD5 of each message into `out` (which must be as long as `messages`).
///
/// # Panics
/// If `out.len() != messages.len()`.
pub fn md5_many_into(messages: &[&[u8]], out: &mut [[u8; 16]]) {
    md5_many_with(&Lanes::active(), messages, out);
}

/// [`md5_many_into`] on a chosen lanes backend.
///
/// # Panics
/// If `out.len() != messages.len()`.
pub fn md5_many_with(lanes: &Lanes, messages: &[&[u8]], out: &mut [[u8; 16]]) {
    md5_rows_with(lanes, messages, out);
}

/// MD5 of every row of `rows` into `out` (one per row), on the active
/// lanes backend.
///
/// # Panics
/// If `out.len() != rows.count()`.
pub fn md5_rows<R: Rows + ?Sized>(rows: &R, out: &mut [[u8; 16]]) {
    md5_rows_with(&Lanes::active(), rows, out);
}

/// [`md5_rows`] on a chosen lanes backend.
///
/// # Panics
/// If `out.len() != rows.count()`.
pub fn md5_rows_with<R: Rows + ?Sized>(lanes: &Lanes, rows: &R, out: &mut [[u8; 16]]) {
    assert_eq!(rows.count(), out.len(), "one output per row");
    md5_rows_range(lanes, rows, 0..rows.count(), out);
}

/// MD5 of rows `range` of `rows` into `out` (`out[k]` for row
/// `range.start + k`): a thread's share of a column.
///
/// # Panics
/// If `out.len() != range.len()` or the range is past the rows' end.
pub fn md5_rows_range<R: Rows + ?Sized>(
    lanes: &Lanes,
    rows: &R,
    range: Range<usize>,
    out: &mut [[u8; 16]],
) {
    assert_eq!(range.len(), out.len(), "one output per row");
    assert!(
        range.end <= rows.count(),
        "rows {range:?} of {}",
        rows.count()
    );
    let base = range.start;
    let width = lanes.width().min(MAX_LANES);
    let mut one = ShortBatch::new(lanes, 1);
    let mut two = ShortBatch::new(lanes, 2);
    let mut long: Vec<usize> = Vec::new();
    for i in range.clone() {
        let row = rows.row(i);
        let k = i - base;
        if row.len() < 56 {
            one.push(row, k, out);
        } else if row.len() < SHORT {
            two.push(row, k, out);
        } else {
            long.push(i);
            if long.len() == BATCH {
                hash_long(lanes, width, rows, &long, base, out);
                long.clear();
            }
        }
    }
    one.flush(out);
    two.flush(out);
    hash_long(lanes, width, rows, &long, base, out);
}

/// Rows of 120 bytes or more (`indices`, rows of `rows`; digests to
/// `out[index - base]`), grouped by block count.
fn hash_long<R: Rows + ?Sized>(
    lanes: &Lanes,
    width: usize,
    rows: &R,
    indices: &[usize],
    base: usize,
    out: &mut [[u8; 16]],
) {
    let mut scratch = [[0u8; 128]; MAX_LANES];
    for_each_group(
        indices.len(),
        width,
        |j| padded_blocks(rows.row(indices[j]).len()),
        |group| {
            let mut members: [(usize, &[u8]); MAX_LANES] = [(0, &[]); MAX_LANES];
            for (slot, &(_, j)) in members.iter_mut().zip(group) {
                *slot = (indices[j] - base, rows.row(indices[j]));
            }
            hash_group(
                lanes,
                group[0].0,
                &members[..group.len()],
                &mut scratch,
                out,
            );
        },
    );
}

/// Hands `f` every group of items `0..count` that share a block count
/// (`blocks(i)`), at most `width` of them, as `(blocks, index)` pairs:
/// items are sorted by block count within windows of [`BATCH`], so that
/// the lanes of one engine call finish together.
pub(crate) fn for_each_group(
    count: usize,
    width: usize,
    blocks: impl Fn(usize) -> usize,
    mut f: impl FnMut(&[(usize, usize)]),
) {
    let mut order: Vec<(usize, usize)> = Vec::with_capacity(BATCH.min(count));
    for start in (0..count).step_by(BATCH) {
        let end = (start + BATCH).min(count);
        order.clear();
        order.extend((start..end).map(|i| (blocks(i), i)));
        if order.windows(2).any(|w| w[0].0 != w[1].0) {
            order.sort_unstable();
        }
        for same in order.chunk_by(|a, b| a.0 == b.0) {
            for group in same.chunks(width) {
                f(group);
            }
        }
    }
}

/// Hashes up to one engine width of messages (`(out index, message)`) with
/// the same padded block count `n`, one per lane. Message `i` has
/// `whole_i` whole blocks in place and `n - whole_i` (1 or 2) padded tail
/// blocks in `scratch`, so after the first `min(whole_i)` blocks at most two
/// more engine calls remain, in which each lane reads either its message or
/// its scratch.
fn hash_group(
    lanes: &Lanes,
    n: usize,
    members: &[(usize, &[u8])],
    scratch: &mut [[u8; 128]],
    out: &mut [[u8; 16]],
) {
    let mut whole = [0usize; MAX_LANES];
    let mut lane_data: [&[u8]; MAX_LANES] = [&[]; MAX_LANES];
    for (lane, &(_, m)) in members.iter().enumerate() {
        whole[lane] = m.len() / 64;
        lane_data[lane] = m;
        write_tail(m, &mut scratch[lane]);
    }
    let g = members.len();
    let mut state = LaneState::new();
    let tail = |lane: usize| &scratch[lane][..];
    compress_split(lanes, &mut state, &lane_data[..g], &whole[..g], tail, n);
    for (lane, &(index, _)) in members.iter().enumerate() {
        out[index] = digest_bytes(state.get(lane));
    }
}

/// Runs blocks `0..n` of up to one engine width of lanes: lane `l` reads
/// its blocks `0..whole[l]` in place from `messages[l]` and the others,
/// `whole[l]..n`, from `tail(l)` (its padded tail). The first
/// `min(whole)` blocks go in one engine call; each remaining block in one
/// call in which every lane reads from its message or its tail. Grouping
/// lanes by `n` keeps those calls few (one or two for MD5's own padding).
pub(crate) fn compress_split<'a>(
    lanes: &Lanes,
    state: &mut LaneState,
    messages: &[&'a [u8]],
    whole: &[usize],
    tail: impl Fn(usize) -> &'a [u8],
    n: usize,
) {
    let g = messages.len();
    debug_assert_eq!(whole.len(), g);
    let first = whole.iter().copied().min().unwrap_or(0);
    if first > 0 {
        lanes.compress(state, messages, first, 64);
    }
    let mut blocks: [&[u8]; MAX_LANES] = [&[]; MAX_LANES];
    for k in first..n {
        for lane in 0..g {
            // Block k is whole in the message (k < whole) or is block
            // k - whole of the lane's tail.
            blocks[lane] = if k < whole[lane] {
                &messages[lane][64 * k..64 * k + 64]
            } else {
                &tail(lane)[64 * (k - whole[lane])..]
            };
        }
        lanes.compress(state, &blocks[..g], 1, 64);
    }
}

/// Blocks after padding: the data, 0x80, zeros and the 8-byte length.
pub(crate) fn padded_blocks(len: usize) -> usize {
    (len + 8) / 64 + 1
}

/// Writes `message`'s padded tail (its bytes past the last whole block, 0x80,
/// zeros, the bit length) into `buf`; returns how many blocks it fills (1 or 2).
pub(crate) fn write_tail(message: &[u8], buf: &mut [u8; 128]) -> usize {
    write_padding(
        &message[message.len() / 64 * 64..],
        message.len() as u64,
        buf,
    )
}

/// The padding of RFC 1321 after `rest` (fewer than 64 bytes), for a message
/// of `total_len` bytes; returns the blocks written (1 or 2).
pub(crate) fn write_padding(rest: &[u8], total_len: u64, buf: &mut [u8; 128]) -> usize {
    debug_assert!(rest.len() < 64);
    let blocks = if rest.len() < 56 { 1 } else { 2 };
    let end = 64 * blocks;
    // A fixed-size clear compiles to a few vector stores; a clear of the
    // exact gap would be a call to memset per message.
    *buf = [0; 128];
    buf[..rest.len()].copy_from_slice(rest);
    buf[rest.len()] = 0x80;
    buf[end - 8..end].copy_from_slice(&total_len.wrapping_mul(8).to_le_bytes());
    blocks
}

/// A chaining value as MD5's little-endian digest.
pub(crate) fn digest_bytes(words: [u32; 4]) -> [u8; 16] {
    let mut out = [0u8; 16];
    for (chunk, word) in out.chunks_exact_mut(4).zip(words) {
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    out
}
