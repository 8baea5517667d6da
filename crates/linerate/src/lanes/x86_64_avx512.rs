//! The AVX-512 lanes kernel: 16 MD5 chains per zmm register set, one set
//! (16 lanes) or two interleaved (32 lanes), so that while one set waits on
//! its 4-cycle step latency the other issues.
//!
//! The loops are assembly written by a generator,
//! `crates/linerate/asm/lanes_avx512.py` (`x86_64_avx512_x16.s`,
//! `x86_64_avx512_x32.s`, and the first again with prefetches for data
//! from memory, `x86_64_avx512_x16_prefetch.s`), whose documentation gives
//! the schedule and why only one set prefetches: each
//! lane's block loaded as a row and transposed (three passes of shuffles)
//! into message-word vectors a round ahead of its use, the shuffles spread
//! between the steps, and the step itself `a += K + M; a += F(b, c, d);
//! a = rotl(a, s); a += b` with F one `vpternlogd`. This file only hands
//! the loops their memory. Measured against isa-l_crypto's x16x2 kernel in
//! one process (`scripts/lanes_vs_isal.sh`, docs/performance.md).

use super::{LaneState, MAX_LANES};
use crate::md5::reference::T;
use core::arch::asm;

/// See [`LanesFn`](super::LanesFn).
///
/// # Safety
/// As [`LanesFn`](super::LanesFn); the CPU must support AVX-512F.
#[target_feature(enable = "avx512f")]
pub unsafe fn compress(
    state: &mut LaneState,
    ptrs: &mut [*const u8; MAX_LANES],
    strides: &[usize; MAX_LANES],
    nblocks: usize,
    active: usize,
) {
    let kernel = if active > 16 {
        Loop::X32
    } else if nblocks.saturating_mul(64 * active) >= FROM_MEMORY {
        Loop::X16Prefetch
    } else {
        Loop::X16
    };
    // SAFETY: forwarded; one set reads lanes 0..16, two read 0..32, all of
    // which the caller keeps readable.
    unsafe { compress_with(kernel, state, ptrs, strides, nblocks) }
}

/// The generated loops.
#[derive(Clone, Copy, Debug)]
enum Loop {
    /// One register set, 16 lanes.
    X16,
    /// The same, with prefetches: for data from memory.
    X16Prefetch,
    /// Two register sets, 32 lanes.
    X32,
}

/// Bytes of one call of up to 16 lanes from which its data are taken to
/// come from memory, not the caches, and the loop that prefetches is run:
/// half of a core's L2 (2 MiB on the machines measured). In L2 the
/// prefetches cost 1.05x (MD5-P/16 of 256 KiB); from memory they gain up
/// to 1.57x (docs/performance.md).
const FROM_MEMORY: usize = 1 << 20;

/// The scratch memory of a generated loop: the double-buffered transposed
/// blocks (two halves of two sets of 16 word vectors), the saved chaining
/// values, the lane pointers. Aligned for `vmovdqa64`.
#[repr(C, align(64))]
struct Scratch {
    words: [[u32; 16]; 64],
    saved: [[u32; 16]; 8],
    ptrs: [*const u8; MAX_LANES],
}

/// Runs a generated loop (`crates/linerate/asm/lanes_avx512.py` writes
/// them, and describes their schedule) over `nblocks > 0` blocks.
///
/// Safety: the loop reads the 64 bytes at `ptrs[i] + k * strides[i]` for
/// its lanes and every k < nblocks, which the caller keeps readable; it
/// reads and writes `state` and the scratch (the halves at `buf` and
/// `buf + 2048`, the saved values at `buf + 4096`, the pointers), reads the
/// 64 words of `T`, and clobbers only what it declares. It uses no stack.
macro_rules! run_loop {
    ($file:literal, $state:expr, $ptrs:expr, $strides:expr, $nblocks:expr) => {{
        let (state, ptrs, strides, nblocks): (
            &mut LaneState,
            &mut [*const u8; MAX_LANES],
            &[usize; MAX_LANES],
            usize,
        ) = ($state, $ptrs, $strides, $nblocks);
        if nblocks > 0 {
            let mut scratch = core::mem::MaybeUninit::<Scratch>::uninit();
            let base = scratch.as_mut_ptr();
            // Only the pointers are written here (through a raw pointer: the
            // rest is written by the loop before it is read).
            let lane_ptrs = &raw mut (*base).ptrs;
            lane_ptrs.write(*ptrs);
            let buf = base as *mut u8;
            asm!(
                include_str!($file),
                state = in(reg) state.words.as_mut_ptr(),
                ptrs = in(reg) lane_ptrs,
                strides = in(reg) strides.as_ptr(),
                t = in(reg) T.as_ptr(),
                buf = in(reg) buf,
                cur = inout(reg) buf => _,
                next = inout(reg) buf.add(2048) => _,
                n = inout(reg) nblocks => _,
                row0 = out(reg) _,
                row1 = out(reg) _,
                out("zmm0") _, out("zmm1") _, out("zmm2") _, out("zmm3") _,
                out("zmm4") _, out("zmm5") _, out("zmm6") _, out("zmm7") _,
                out("zmm8") _, out("zmm9") _, out("zmm10") _, out("zmm11") _,
                out("zmm12") _, out("zmm13") _, out("zmm14") _, out("zmm15") _,
                out("zmm16") _, out("zmm17") _, out("zmm18") _, out("zmm19") _,
                out("zmm20") _, out("zmm21") _, out("zmm22") _, out("zmm23") _,
                out("zmm24") _, out("zmm25") _, out("zmm26") _, out("zmm27") _,
                out("zmm28") _, out("zmm29") _, out("zmm30") _, out("zmm31") _,
                options(nostack),
            );
            *ptrs = lane_ptrs.read();
        }
    }};
}

/// Runs one of the generated loops. Exposed to this module's tests so that
/// each is checked whatever the size of a call.
///
/// # Safety
/// As [`compress`], with `active` 16 lanes (32 for [`Loop::X32`]).
#[target_feature(enable = "avx512f")]
unsafe fn compress_with(
    kernel: Loop,
    state: &mut LaneState,
    ptrs: &mut [*const u8; MAX_LANES],
    strides: &[usize; MAX_LANES],
    nblocks: usize,
) {
    // SAFETY: forwarded; the x16 loops read and advance lanes 0..16 only,
    // the x32 loop 0..32.
    unsafe {
        match kernel {
            Loop::X16 => run_loop!("x86_64_avx512_x16.s", state, ptrs, strides, nblocks),
            Loop::X16Prefetch => run_loop!(
                "x86_64_avx512_x16_prefetch.s",
                state,
                ptrs,
                strides,
                nblocks
            ),
            Loop::X32 => run_loop!("x86_64_avx512_x32.s", state, ptrs, strides, nblocks),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::md5::reference;

    /// Each of the three loops against the reference compression, whatever
    /// the size of the call (`compress` picks the prefetching loop only for
    /// calls of [`FROM_MEMORY`] bytes or more).
    #[test]
    fn every_loop_matches_the_reference() {
        if !std::arch::is_x86_feature_detected!("avx512f") {
            return;
        }
        let nblocks = 9;
        // Lane `i` at byte `7 i` (unaligned), its blocks 3 blocks apart.
        let stride = 192;
        let data: Vec<u8> = (0..MAX_LANES * 7 + nblocks * stride + 64)
            .map(|i| (i * 131 % 251) as u8)
            .collect();
        for (kernel, lanes) in [(Loop::X16, 16), (Loop::X16Prefetch, 16), (Loop::X32, 32)] {
            let mut state = LaneState::new();
            let mut ptrs = [core::ptr::null(); MAX_LANES];
            let mut want = Vec::new();
            for lane in 0..lanes {
                let init = [lane as u32, 1, 2, 3];
                state.set(lane, init);
                ptrs[lane] = data[lane * 7..].as_ptr();
                let mut chain = init;
                for k in 0..nblocks {
                    let at = lane * 7 + k * stride;
                    reference::compress_block(&mut chain, data[at..at + 64].try_into().unwrap());
                }
                want.push(chain);
            }
            let strides = [stride; MAX_LANES];
            // SAFETY: AVX-512F checked above; every lane's nblocks blocks
            // lie within `data`.
            unsafe { compress_with(kernel, &mut state, &mut ptrs, &strides, nblocks) };
            for (lane, want) in want.iter().enumerate() {
                assert_eq!(state.get(lane), *want, "{kernel:?}, lane {lane}");
                let moved = ptrs[lane] as usize - data.as_ptr() as usize;
                assert_eq!(
                    moved,
                    lane * 7 + nblocks * stride,
                    "{kernel:?}: lane {lane}'s pointer"
                );
            }
        }
    }
}
