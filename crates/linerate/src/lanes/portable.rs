//! The portable lanes kernel: each lane in turn through the portable
//! single-stream compression. Correct everywhere; the SIMD kernels are tested
//! against it and against the reference.

use super::{LaneState, MAX_LANES};
use crate::md5::portable;

/// See [`LanesFn`](super::LanesFn).
///
/// # Safety
/// For every lane and every round `k < nblocks`, the 64 bytes at
/// `ptrs[i] + k * strides[i]` must be readable.
pub unsafe fn compress(
    state: &mut LaneState,
    ptrs: &mut [*const u8; MAX_LANES],
    strides: &[usize; MAX_LANES],
    nblocks: usize,
    active: usize,
) {
    for lane in 0..active.min(MAX_LANES) {
        let mut chain = state.get(lane);
        for _ in 0..nblocks {
            // SAFETY: the caller guarantees these 64 bytes are readable.
            let block = unsafe { &*(ptrs[lane] as *const [u8; 64]) };
            portable::compress(&mut chain, core::slice::from_ref(block));
            ptrs[lane] = ptrs[lane].wrapping_add(strides[lane]);
        }
        state.set(lane, chain);
    }
}
