//! Feeding lanes whose work is uneven: each lane has up to two runs of whole
//! blocks (for example the rest of a message, then its padding blocks in a
//! scratch buffer), and the engine is called once per stretch in which every
//! busy lane stays inside one run. Lanes that run out of work go idle; their
//! chaining values are kept, since a kernel computes whole register sets.

use super::{LaneState, Lanes, MAX_LANES};

/// One lane's work: `runs[0]` then `runs[1]`, each a whole number of
/// 64-byte blocks.
#[derive(Clone, Copy, Default)]
pub(crate) struct LaneRuns<'a> {
    pub runs: [&'a [u8]; 2],
}

impl<'a> LaneRuns<'a> {
    pub fn new(first: &'a [u8], second: &'a [u8]) -> LaneRuns<'a> {
        debug_assert!(first.len().is_multiple_of(64) && second.len().is_multiple_of(64));
        LaneRuns {
            runs: [first, second],
        }
    }
}

/// Lane `i` of `state` absorbs `work[i]`'s blocks, for `i < work.len() <=
/// lanes.width()`; every other lane of `state` is left as it was.
pub(crate) fn absorb_runs(lanes: &Lanes, state: &mut LaneState, work: &[LaneRuns<'_>]) {
    assert!(work.len() <= lanes.width().min(MAX_LANES));
    // (run index, byte offset in that run) per lane.
    let mut pos = [(0usize, 0usize); MAX_LANES];
    loop {
        let mut nblocks = usize::MAX;
        let mut current: [Option<&[u8]>; MAX_LANES] = [None; MAX_LANES];
        let mut busy = [false; MAX_LANES];
        for (lane, w) in work.iter().enumerate() {
            let (run, offset) = &mut pos[lane];
            while *run < 2 && *offset == w.runs[*run].len() {
                *run += 1;
                *offset = 0;
            }
            if *run < 2 {
                let rest = &w.runs[*run][*offset..];
                nblocks = nblocks.min(rest.len() / 64);
                current[lane] = Some(rest);
                busy[lane] = true;
            }
        }
        if nblocks == usize::MAX {
            return;
        }
        // A kernel computes whole register sets, idle lanes and lanes past
        // `active` included: keep every lane that has no work now.
        let active = work.len();
        let mut kept = [(0usize, [0u32; 4]); MAX_LANES];
        let mut nkept = 0;
        for lane in (0..lanes.width().min(MAX_LANES)).filter(|&lane| !busy[lane]) {
            kept[nkept] = (lane, state.get(lane));
            nkept += 1;
        }
        lanes.compress_some(state, &current[..active], nblocks, 64);
        for &(lane, value) in &kept[..nkept] {
            state.set(lane, value);
        }
        for (lane, p) in pos.iter_mut().enumerate().take(active) {
            if busy[lane] {
                p.1 += nblocks * 64;
            }
        }
    }
}
