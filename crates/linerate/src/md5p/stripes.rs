//! The stripe driver: whole stripes of K blocks into the K chains.
//!
//! A stripe is K consecutive 64-byte blocks that begins at a multiple of
//! K * 64 bytes of the message, so its block `j` belongs to chain `j`. Over a
//! run of whole stripes, chain `j` reads the blocks at `j * 64`,
//! `j * 64 + K * 64`, ...: one pointer per lane, one common stride K * 64.
//! One [`Lanes::compress`] call per group of chains therefore absorbs the
//! whole run, every stripe of it, with no per-block dispatch (one call per
//! slab of 256 KiB when several groups share a thread; see `SLAB_BYTES`).
//!
//! Groups are independent (no chain reads another's state), so for big
//! inputs with several groups they run on rayon's threads. The result is the
//! same either way; only the wall time changes.

use super::chains::Chains;
use crate::lanes::{LaneState, Lanes, MAX_LANES};
use core::ops::Range;
use rayon::prelude::*;

/// Below this many bytes in one run, stay on the caller's thread: handing
/// work to rayon costs microseconds, and a hasher that fans out small inputs
/// gets in the way of callers that parallelise across files themselves.
pub(super) const PARALLEL_MIN_BYTES: usize = 8 << 20;

/// K below this is never split across threads: with fewer chains a group
/// is (on the wide backends) the whole job, and MD5-P is mostly run with
/// K = 4..16 by callers that parallelise themselves.
pub(super) const PARALLEL_MIN_K: usize = 32;

/// Slab size for one thread and several groups: every group absorbs a slab
/// before the next slab starts. A group reads only its part of each stripe,
/// so a pass of one group over a whole large run, then the next, walks the
/// memory once per group with a page-sized stride that defeats the
/// prefetchers; slab by slab, the later groups find what the earlier ones'
/// prefetches brought into the cache.
const SLAB_BYTES: usize = 256 << 10;

/// Absorbs `data`, a whole number of stripes that begins at a stripe
/// boundary of the message. With `parallel`, groups run on rayon's threads.
///
/// # Panics
/// If `data.len()` is not a multiple of K * 64.
pub(super) fn absorb(lanes: &Lanes, chains: &mut Chains, data: &[u8], parallel: bool) {
    let stride = chains.k() * 64;
    assert!(data.len().is_multiple_of(stride), "whole stripes only");
    if data.is_empty() {
        return;
    }
    let layout = chains.layout();
    let groups = chains.groups_mut();
    if groups.len() == 1 {
        absorb_group(lanes, &mut groups[0], layout.group_chains(0), data, stride);
    } else if parallel {
        groups.par_iter_mut().enumerate().for_each(|(g, state)| {
            absorb_group(lanes, state, layout.group_chains(g), data, stride);
        });
    } else {
        let slab = (SLAB_BYTES / stride).max(1) * stride;
        for part in data.chunks(slab) {
            for (g, state) in groups.iter_mut().enumerate() {
                absorb_group(lanes, state, layout.group_chains(g), part, stride);
            }
        }
    }
}

/// One lanes call: lane `i` of `state` is chain `chains.start + i`, and
/// absorbs that chain's block of every stripe in `data`.
fn absorb_group(
    lanes: &Lanes,
    state: &mut LaneState,
    chains: Range<usize>,
    data: &[u8],
    stride: usize,
) {
    let nblocks = data.len() / stride;
    let mut slices: [&[u8]; MAX_LANES] = [&[]; MAX_LANES];
    for (slice, j) in slices.iter_mut().zip(chains.clone()) {
        // Chain j's blocks: j * 64 + s * stride for s < nblocks. The slice
        // from j * 64 holds nblocks * stride - j * 64 bytes, and j * 64 <
        // stride makes that at least (nblocks - 1) * stride + 64, all that
        // `compress` asks of a lane.
        *slice = &data[j * 64..];
    }
    lanes.compress(state, &slices[..chains.len()], nblocks, stride);
}

/// Chains per group. Normally the backend's width (two register sets on
/// AVX-512 and AVX2). When K is large enough to be split across threads and
/// rayon has more than one, a group is one register set instead, so that
/// K = 32 on AVX-512 makes two groups for two threads: measured here, one
/// set of 16 lanes absorbs as many bytes per cycle as two interleaved sets
/// (both are bound by the two 512-bit ALU ports), so the split costs a
/// single thread nothing.
pub(super) fn group_width(k: usize, lanes: &Lanes) -> usize {
    let width = lanes.width();
    if k >= PARALLEL_MIN_K && rayon::current_num_threads() > 1 {
        (width / 2).max(1)
    } else {
        width
    }
}

/// Whether a run of `len` bytes for `k` chains is worth threads, given the
/// threshold `min_bytes`.
pub(super) fn wants_threads(k: usize, len: usize, min_bytes: usize) -> bool {
    k >= PARALLEL_MIN_K && len >= min_bytes
}
