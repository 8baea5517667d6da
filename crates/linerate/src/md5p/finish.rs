//! The final step: each chain pads its own sub-message, then MD5 of the K
//! chain digests.
//!
//! At the end, every chain has absorbed the same number of whole stripes,
//! and the pending bytes (less than one stripe, starting at a stripe
//! boundary) give chain `j` the bytes `pending[j * 64..]`, at most one block:
//! whole for the first chains, partial for one, none for the rest. Chain
//! `j`'s sub-message is then `stripes * 64 + p_j` bytes long, and MD5's
//! padding appends one block to it (`p_j <= 55`) or two (`p_j >= 56`, a whole
//! pending block included). Those one or two tail blocks of every chain go
//! through the lanes engine: first every chain's first tail block, then the
//! second tail blocks of the chains that have one.
//!
//! A chain that absorbed nothing at all (only when the message is shorter
//! than one stripe) is MD5 of the empty string, which needs no compression:
//! tiny messages with large K then cost one compression per block, not K.

use super::chains::Chains;
use crate::lanes::{LaneState, Lanes, MAX_LANES};
use crate::md5::Md5;

/// MD5 of the empty string (RFC 1321 A.5).
const MD5_EMPTY: [u8; 16] = [
    0xd4, 0x1d, 0x8c, 0xd9, 0x8f, 0x00, 0xb2, 0x04, 0xe9, 0x80, 0x09, 0x98, 0xec, 0xf8, 0x42, 0x7e,
];

/// One chain's padded tail: its pending bytes, 0x80, zeros, and its length
/// in bits (mod 2^64, little-endian) at the end of the last block.
struct Tail {
    chain: usize,
    bytes: [u8; 128],
    blocks: usize,
}

impl Tail {
    fn new(chain: usize, stripes: u64, pending: &[u8]) -> Tail {
        debug_assert!(pending.len() <= 64);
        let p = pending.len();
        let bits = stripes
            .wrapping_mul(64)
            .wrapping_add(p as u64)
            .wrapping_mul(8);
        let blocks = if p + 9 <= 64 { 1 } else { 2 };
        let mut bytes = [0u8; 128];
        bytes[..p].copy_from_slice(pending);
        bytes[p] = 0x80;
        bytes[blocks * 64 - 8..blocks * 64].copy_from_slice(&bits.to_le_bytes());
        Tail {
            chain,
            bytes,
            blocks,
        }
    }

    fn block(&self, i: usize) -> &[u8] {
        &self.bytes[i * 64..i * 64 + 64]
    }
}

/// MD5-P/K of a message of which `chains` absorbed `stripes` whole stripes
/// and `pending` (less than one stripe) is the rest.
pub(super) fn finish(lanes: &Lanes, chains: &Chains, stripes: u64, pending: &[u8]) -> [u8; 16] {
    let k = chains.k();
    debug_assert!(pending.len() < k * 64);
    let mut values: Vec<[u32; 4]> = (0..k).map(|j| chains.get(j)).collect();
    let mut empty = vec![false; k];
    let mut tails = Vec::with_capacity(k);
    for (j, is_empty) in empty.iter_mut().enumerate() {
        let start = (j * 64).min(pending.len());
        let mine = &pending[start..(start + 64).min(pending.len())];
        if stripes == 0 && mine.is_empty() {
            *is_empty = true;
        } else {
            tails.push(Tail::new(j, stripes, mine));
        }
    }
    for round in 0..2 {
        let jobs = tails.iter().filter(|t| t.blocks > round);
        compress_one_each(lanes, chains.width(), &mut values, jobs, round);
    }
    let mut digests = Vec::with_capacity(16 * k);
    for (value, is_empty) in values.iter().zip(&empty) {
        if *is_empty {
            digests.extend_from_slice(&MD5_EMPTY);
        } else {
            digests.extend(value.iter().flat_map(|w| w.to_le_bytes()));
        }
    }
    let mut last = Md5::new();
    last.update(&digests);
    last.finalize()
}

/// Block `round` of every tail in `jobs` into its chain's value, `width`
/// chains per lanes call. Each call gathers its chains into lanes `0..n` of a
/// fresh state and scatters them back, so any set of chains can go together.
fn compress_one_each<'a>(
    lanes: &Lanes,
    width: usize,
    values: &mut [[u32; 4]],
    jobs: impl Iterator<Item = &'a Tail>,
    round: usize,
) {
    let width = width.clamp(1, MAX_LANES);
    let jobs: Vec<&Tail> = jobs.collect();
    for batch in jobs.chunks(width) {
        let mut state = LaneState::new();
        let mut slices: [&[u8]; MAX_LANES] = [&[]; MAX_LANES];
        for (lane, tail) in batch.iter().enumerate() {
            state.set(lane, values[tail.chain]);
            slices[lane] = tail.block(round);
        }
        lanes.compress(&mut state, &slices[..batch.len()], 1, 64);
        for (lane, tail) in batch.iter().enumerate() {
            values[tail.chain] = state.get(lane);
        }
    }
}
