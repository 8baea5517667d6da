//! The AVX-512 lanes kernel: 16 MD5 chains per zmm register set, one set
//! (16 lanes) or two interleaved (32 lanes), so that while one set waits on
//! its 4-cycle step latency the other issues.
//!
//! The loops are assembly written by a generator,
//! `crates/linerate/asm/lanes_avx512.py` (`x86_64_avx512_x16.s`,
//! `x86_64_avx512_x32.s`), whose documentation gives the schedule: each
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
    // SAFETY: forwarded; one set reads lanes 0..16, two read 0..32, all of
    // which the caller keeps readable.
    unsafe {
        if active <= 16 {
            compress_one_set(state, ptrs, strides, nblocks);
        } else {
            compress_two_sets(state, ptrs, strides, nblocks);
        }
    }
}

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

/// 16 lanes through the generated loop (`x86_64_avx512_x16.s`).
#[target_feature(enable = "avx512f")]
unsafe fn compress_one_set(
    state: &mut LaneState,
    ptrs: &mut [*const u8; MAX_LANES],
    strides: &[usize; MAX_LANES],
    nblocks: usize,
) {
    // SAFETY: forwarded; the x16 loop reads and advances lanes 0..16 only.
    unsafe { run_loop!("x86_64_avx512_x16.s", state, ptrs, strides, nblocks) }
}

/// 32 lanes through the generated loop (`x86_64_avx512_x32.s`).
#[target_feature(enable = "avx512f")]
unsafe fn compress_two_sets(
    state: &mut LaneState,
    ptrs: &mut [*const u8; MAX_LANES],
    strides: &[usize; MAX_LANES],
    nblocks: usize,
) {
    // SAFETY: forwarded.
    unsafe { run_loop!("x86_64_avx512_x32.s", state, ptrs, strides, nblocks) }
}
