//! The AVX-512 lanes kernel: 16 MD5 chains per zmm register set, two sets
//! interleaved (32 chains) so that while one set waits on its 4-cycle step
//! latency the other issues.
//!
//! Per block, each set loads its 16 lanes' 64-byte blocks as 16 rows and
//! transposes them (16 x 16 dwords: unpack 32, unpack 64, two 128-bit
//! shuffles; 64 shuffles) into 16 vectors of one message word for all
//! lanes, kept on the stack so every step adds its word as a memory operand.
//! A step is then the single-stream step on 16 lanes: `a + M + K` (memory
//! operands, the constant an embedded broadcast), one `vpternlogd` for
//! F/G/H/I on a copy of `d`, add, `vprold`, add. The steps are `asm!`:
//! compiled from intrinsics, LLVM copies `b` (the newest value) for the
//! ternlog instead of `d` and puts the copy on the critical path. With two
//! sets the steps alternate instruction by instruction, and the next block's
//! rows are loaded a round before they are transposed (set 0: loaded after
//! round 1, transposed after round 2; set 1: after rounds 3 and 4), the
//! placement of isa-l_crypto's x16x2 kernel. In in-process A/B runs this is
//! about 6 % faster than one set's step after the other's with both
//! transposes ahead of the block, and on par with isa-l_crypto's kernel
//! (`scripts/lanes_vs_isal.sh`, docs/performance.md).

use super::{LaneState, MAX_LANES, advance};
use crate::md5::reference::T;
use core::arch::asm;
use core::arch::x86_64::*;

/// How many blocks ahead one set prefetches.
const PREFETCH: usize = 4;

/// The 64 steps, one macro per round of 16 (the drivers put the next
/// block's transposition between rounds): registers (a, b, c, d) in their
/// rotation, the `vpternlogd` truth table of F/G/H/I for operands (d, b, c),
/// the byte offset of the message word's vector, the byte offset of `T[i]`,
/// the rotation.
macro_rules! round1 {
    ($emit:ident) => {
        $emit!(
            a, b, c, d, 0xb8,            0,   0,  7;
            d, a, b, c, 0xb8,   64,   4, 12;
            c, d, a, b, 0xb8,  128,   8, 17;
            b, c, d, a, 0xb8,  192,  12, 22;
            a, b, c, d, 0xb8,  256,  16,  7;
            d, a, b, c, 0xb8,  320,  20, 12;
            c, d, a, b, 0xb8,  384,  24, 17;
            b, c, d, a, 0xb8,  448,  28, 22;
            a, b, c, d, 0xb8,  512,  32,  7;
            d, a, b, c, 0xb8,  576,  36, 12;
            c, d, a, b, 0xb8,  640,  40, 17;
            b, c, d, a, 0xb8,  704,  44, 22;
            a, b, c, d, 0xb8,  768,  48,  7;
            d, a, b, c, 0xb8,  832,  52, 12;
            c, d, a, b, 0xb8,  896,  56, 17;
            b, c, d, a, 0xb8,  960,  60, 22;
        )
    };
}

macro_rules! round2 {
    ($emit:ident) => {
        $emit!(
            a, b, c, d, 0xca,   64,  64,  5;
            d, a, b, c, 0xca,  384,  68,  9;
            c, d, a, b, 0xca,  704,  72, 14;
            b, c, d, a, 0xca,            0,  76, 20;
            a, b, c, d, 0xca,  320,  80,  5;
            d, a, b, c, 0xca,  640,  84,  9;
            c, d, a, b, 0xca,  960,  88, 14;
            b, c, d, a, 0xca,  256,  92, 20;
            a, b, c, d, 0xca,  576,  96,  5;
            d, a, b, c, 0xca,  896, 100,  9;
            c, d, a, b, 0xca,  192, 104, 14;
            b, c, d, a, 0xca,  512, 108, 20;
            a, b, c, d, 0xca,  832, 112,  5;
            d, a, b, c, 0xca,  128, 116,  9;
            c, d, a, b, 0xca,  448, 120, 14;
            b, c, d, a, 0xca,  768, 124, 20;
        )
    };
}

macro_rules! round3 {
    ($emit:ident) => {
        $emit!(
            a, b, c, d, 0x96,  320, 128,  4;
            d, a, b, c, 0x96,  512, 132, 11;
            c, d, a, b, 0x96,  704, 136, 16;
            b, c, d, a, 0x96,  896, 140, 23;
            a, b, c, d, 0x96,   64, 144,  4;
            d, a, b, c, 0x96,  256, 148, 11;
            c, d, a, b, 0x96,  448, 152, 16;
            b, c, d, a, 0x96,  640, 156, 23;
            a, b, c, d, 0x96,  832, 160,  4;
            d, a, b, c, 0x96,            0, 164, 11;
            c, d, a, b, 0x96,  192, 168, 16;
            b, c, d, a, 0x96,  384, 172, 23;
            a, b, c, d, 0x96,  576, 176,  4;
            d, a, b, c, 0x96,  768, 180, 11;
            c, d, a, b, 0x96,  960, 184, 16;
            b, c, d, a, 0x96,  128, 188, 23;
        )
    };
}

macro_rules! round4 {
    ($emit:ident) => {
        $emit!(
            a, b, c, d, 0x65,            0, 192,  6;
            d, a, b, c, 0x65,  448, 196, 10;
            c, d, a, b, 0x65,  896, 200, 15;
            b, c, d, a, 0x65,  320, 204, 21;
            a, b, c, d, 0x65,  768, 208,  6;
            d, a, b, c, 0x65,  192, 212, 10;
            c, d, a, b, 0x65,  640, 216, 15;
            b, c, d, a, 0x65,   64, 220, 21;
            a, b, c, d, 0x65,  512, 224,  6;
            d, a, b, c, 0x65,  960, 228, 10;
            c, d, a, b, 0x65,  384, 232, 15;
            b, c, d, a, 0x65,  832, 236, 21;
            a, b, c, d, 0x65,  256, 240,  6;
            d, a, b, c, 0x65,  704, 244, 10;
            c, d, a, b, 0x65,  128, 248, 15;
            b, c, d, a, 0x65,  576, 252, 21;
        )
    };
}

/// One step for register set `set` (a literal suffix of the operand names).
#[rustfmt::skip]
macro_rules! set_step {
    ($set:literal, $a:ident, $b:ident, $c:ident, $d:ident, $imm:literal, $x:literal, $k:literal, $s:literal) => {
        concat!(
            "vpaddd {", stringify!($a), $set, "}, {", stringify!($a), $set, "}, zmmword ptr [{w", $set, "} + ", $x, "]\n",
            "vpaddd {", stringify!($a), $set, "}, {", stringify!($a), $set, "}, dword ptr [{k} + ", $k, "]{{1to16}}\n",
            "vmovdqa64 {t", $set, "}, {", stringify!($d), $set, "}\n",
            "vpternlogd {t", $set, "}, {", stringify!($b), $set, "}, {", stringify!($c), $set, "}, ", $imm, "\n",
            "vpaddd {", stringify!($a), $set, "}, {", stringify!($a), $set, "}, {t", $set, "}\n",
            "vprold {", stringify!($a), $set, "}, {", stringify!($a), $set, "}, ", $s, "\n",
            "vpaddd {", stringify!($a), $set, "}, {", stringify!($a), $set, "}, {", stringify!($b), $set, "}\n",
        )
    };
}

macro_rules! one_set {
    ($($a:ident, $b:ident, $c:ident, $d:ident, $imm:literal, $x:literal, $k:literal, $s:literal;)*) => {
        concat!($(set_step!(0, $a, $b, $c, $d, $imm, $x, $k, $s),)*)
    };
}

/// One step for both register sets, instruction by instruction, so that
/// each pair of independent instructions reaches the scheduler together.
#[rustfmt::skip]
macro_rules! pair_step {
    ($a:ident, $b:ident, $c:ident, $d:ident, $imm:literal, $x:literal, $k:literal, $s:literal) => {
        concat!(
            "vpaddd {", stringify!($a), "0}, {", stringify!($a), "0}, zmmword ptr [{w0} + ", $x, "]\n",
            "vpaddd {", stringify!($a), "1}, {", stringify!($a), "1}, zmmword ptr [{w1} + ", $x, "]\n",
            "vpbroadcastd {kk}, dword ptr [{k} + ", $k, "]\n",
            "vpaddd {", stringify!($a), "0}, {", stringify!($a), "0}, {kk}\n",
            "vpaddd {", stringify!($a), "1}, {", stringify!($a), "1}, {kk}\n",
            "vmovdqa64 {t0}, {", stringify!($d), "0}\n",
            "vmovdqa64 {t1}, {", stringify!($d), "1}\n",
            "vpternlogd {t0}, {", stringify!($b), "0}, {", stringify!($c), "0}, ", $imm, "\n",
            "vpternlogd {t1}, {", stringify!($b), "1}, {", stringify!($c), "1}, ", $imm, "\n",
            "vpaddd {", stringify!($a), "0}, {", stringify!($a), "0}, {t0}\n",
            "vpaddd {", stringify!($a), "1}, {", stringify!($a), "1}, {t1}\n",
            "vprold {", stringify!($a), "0}, {", stringify!($a), "0}, ", $s, "\n",
            "vprold {", stringify!($a), "1}, {", stringify!($a), "1}, ", $s, "\n",
            "vpaddd {", stringify!($a), "0}, {", stringify!($a), "0}, {", stringify!($b), "0}\n",
            "vpaddd {", stringify!($a), "1}, {", stringify!($a), "1}, {", stringify!($b), "1}\n",
        )
    };
}

macro_rules! two_sets {
    ($($a:ident, $b:ident, $c:ident, $d:ident, $imm:literal, $x:literal, $k:literal, $s:literal;)*) => {
        concat!($(pair_step!($a, $b, $c, $d, $imm, $x, $k, $s),)*)
    };
}

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

/// Loads the 64-byte block of each of lanes `16 * set .. 16 * set + 16`.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn load_rows(ptrs: &[*const u8; MAX_LANES], set: usize) -> [__m512i; 16] {
    let mut r = [_mm512_setzero_si512(); 16];
    for (i, row) in r.iter_mut().enumerate() {
        // SAFETY: the caller keeps 64 bytes readable at every lane pointer.
        *row = unsafe { _mm512_loadu_si512(ptrs[16 * set + i] as *const __m512i) };
    }
    r
}

/// Loads and transposes lanes `16 * set ..` into `words[j]` = message word
/// `j` of every lane.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn load_transposed(ptrs: &[*const u8; MAX_LANES], set: usize, words: &mut [__m512i; 16]) {
    // SAFETY: forwarded.
    transpose(unsafe { load_rows(ptrs, set) }, words);
}

/// Transposes 16 rows (one lane's block each) into `words[j]` = message
/// word `j` of every lane.
#[inline]
#[target_feature(enable = "avx512f")]
fn transpose(r: [__m512i; 16], words: &mut [__m512i; 16]) {
    // Interleave dwords of row pairs, then qwords of pair pairs: within each
    // 128-bit chunk c, u[4q + m] holds word 4c + m of rows 4q .. 4q + 3.
    let mut t = [_mm512_setzero_si512(); 16];
    for p in 0..8 {
        t[2 * p] = _mm512_unpacklo_epi32(r[2 * p], r[2 * p + 1]);
        t[2 * p + 1] = _mm512_unpackhi_epi32(r[2 * p], r[2 * p + 1]);
    }
    let mut u = [_mm512_setzero_si512(); 16];
    for q in 0..4 {
        u[4 * q] = _mm512_unpacklo_epi64(t[4 * q], t[4 * q + 2]);
        u[4 * q + 1] = _mm512_unpackhi_epi64(t[4 * q], t[4 * q + 2]);
        u[4 * q + 2] = _mm512_unpacklo_epi64(t[4 * q + 1], t[4 * q + 3]);
        u[4 * q + 3] = _mm512_unpackhi_epi64(t[4 * q + 1], t[4 * q + 3]);
    }
    // Gather chunk c of u[m], u[4 + m], u[8 + m], u[12 + m] into word 4c + m.
    for m in 0..4 {
        let v0 = _mm512_shuffle_i32x4::<0x44>(u[m], u[4 + m]);
        let v1 = _mm512_shuffle_i32x4::<0xee>(u[m], u[4 + m]);
        let v2 = _mm512_shuffle_i32x4::<0x44>(u[8 + m], u[12 + m]);
        let v3 = _mm512_shuffle_i32x4::<0xee>(u[8 + m], u[12 + m]);
        words[m] = _mm512_shuffle_i32x4::<0x88>(v0, v2);
        words[4 + m] = _mm512_shuffle_i32x4::<0xdd>(v0, v2);
        words[8 + m] = _mm512_shuffle_i32x4::<0x88>(v1, v3);
        words[12 + m] = _mm512_shuffle_i32x4::<0xdd>(v1, v3);
    }
}

/// The double buffer's halves for block `k`: the one its steps read and the
/// one block `k + 1` is transposed into.
fn current_and_next<T>(w: &mut [T; 2], k: usize) -> (&T, &mut T) {
    let [even, odd] = w;
    if k.is_multiple_of(2) {
        (even, odd)
    } else {
        (odd, even)
    }
}

/// Loads word `w` of lanes `16 * set ..` from `state`.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn load_word(state: &LaneState, w: usize, set: usize) -> __m512i {
    // SAFETY: `words[w]` holds 32 dwords; lanes 16 set .. 16 set + 16 are in bounds.
    unsafe { _mm512_loadu_si512(state.words[w][16 * set..].as_ptr() as *const __m512i) }
}

#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn store_word(state: &mut LaneState, w: usize, set: usize, v: __m512i) {
    // SAFETY: as in `load_word`.
    unsafe { _mm512_storeu_si512(state.words[w][16 * set..].as_mut_ptr() as *mut __m512i, v) }
}

#[target_feature(enable = "avx512f")]
unsafe fn compress_one_set(
    state: &mut LaneState,
    ptrs: &mut [*const u8; MAX_LANES],
    strides: &[usize; MAX_LANES],
    nblocks: usize,
) {
    // SAFETY (every unsafe block below): lane loads and stores stay inside
    // `state`; block loads read the caller's readable blocks; the asm reads
    // the 16 message vectors in `w` and the 64 words of `T`, writes only
    // the registers it declares, and uses no stack.
    let [mut a0, mut b0, mut c0, mut d0] = [0, 1, 2, 3].map(|w| unsafe { load_word(state, w, 0) });
    // Double-buffered: block k + 1 is transposed in the middle of block k's
    // steps, so the out-of-order core runs the shuffles in the shadow of the
    // step chain instead of stalling at each block boundary.
    let mut w = [[_mm512_setzero_si512(); 16]; 2];
    if nblocks > 0 {
        unsafe { load_transposed(ptrs, 0, &mut w[0]) };
        advance(ptrs, strides, 16);
    }
    for k in 0..nblocks {
        let more = k + 1 < nblocks;
        let (cur, next) = current_and_next(&mut w, k);
        let saved = [a0, b0, c0, d0];
        macro_rules! rounds {
            ($round:ident) => {
                unsafe {
                    asm!(
                        $round!(one_set),
                        a0 = inout(zmm_reg) a0,
                        b0 = inout(zmm_reg) b0,
                        c0 = inout(zmm_reg) c0,
                        d0 = inout(zmm_reg) d0,
                        t0 = out(zmm_reg) _,
                        w0 = in(reg) cur.as_ptr(),
                        k = in(reg) T.as_ptr(),
                        options(nostack, readonly, preserves_flags),
                    );
                }
            };
        }
        // One set's next block is transposed in one piece after round 2:
        // loading its rows a round early measured no better (unlike two
        // sets).
        // Each lane's block PREFETCH blocks ahead is prefetched: MD5-P/16
        // streams its message from memory through this path, 16 % faster so
        // in an A/B run. A prefetch is a hint that never faults, so it may
        // point past the end. (Two sets measured 1 % slower with it, their
        // data being mostly in cache.)
        for lane in 0..16 {
            let ahead = ptrs[lane].wrapping_add(strides[lane] * PREFETCH);
            _mm_prefetch::<_MM_HINT_T0>(ahead as *const i8);
        }
        rounds!(round1);
        rounds!(round2);
        if more {
            unsafe { load_transposed(ptrs, 0, next) };
            advance(ptrs, strides, 16);
        }
        rounds!(round3);
        rounds!(round4);
        a0 = _mm512_add_epi32(a0, saved[0]);
        b0 = _mm512_add_epi32(b0, saved[1]);
        c0 = _mm512_add_epi32(c0, saved[2]);
        d0 = _mm512_add_epi32(d0, saved[3]);
    }
    for (i, v) in [a0, b0, c0, d0].into_iter().enumerate() {
        unsafe { store_word(state, i, 0, v) };
    }
}

#[target_feature(enable = "avx512f")]
unsafe fn compress_two_sets(
    state: &mut LaneState,
    ptrs: &mut [*const u8; MAX_LANES],
    strides: &[usize; MAX_LANES],
    nblocks: usize,
) {
    // SAFETY: as in `compress_one_set`, for lanes 0..32 and two vector sets.
    let [mut a0, mut b0, mut c0, mut d0] = [0, 1, 2, 3].map(|w| unsafe { load_word(state, w, 0) });
    let [mut a1, mut b1, mut c1, mut d1] = [0, 1, 2, 3].map(|w| unsafe { load_word(state, w, 1) });
    // Double-buffered as in `compress_one_set`.
    let mut w = [[[_mm512_setzero_si512(); 16]; 2]; 2];
    if nblocks > 0 {
        unsafe {
            load_transposed(ptrs, 0, &mut w[0][0]);
            load_transposed(ptrs, 1, &mut w[0][1]);
        }
        advance(ptrs, strides, 32);
    }
    for k in 0..nblocks {
        let more = k + 1 < nblocks;
        let (cur, next) = current_and_next(&mut w, k);
        let saved = [a0, b0, c0, d0, a1, b1, c1, d1];
        // The next block's transposes sit between rounds, as in isa-l's
        // kernels, so their shuffles share port 5 with the steps evenly.
        macro_rules! rounds {
            ($round:ident) => {
                unsafe {
                    asm!(
                        $round!(two_sets),
                        a0 = inout(zmm_reg) a0,
                        b0 = inout(zmm_reg) b0,
                        c0 = inout(zmm_reg) c0,
                        d0 = inout(zmm_reg) d0,
                        a1 = inout(zmm_reg) a1,
                        b1 = inout(zmm_reg) b1,
                        c1 = inout(zmm_reg) c1,
                        d1 = inout(zmm_reg) d1,
                        t0 = out(zmm_reg) _,
                        t1 = out(zmm_reg) _,
                        kk = out(zmm_reg) _,
                        w0 = in(reg) cur[0].as_ptr(),
                        w1 = in(reg) cur[1].as_ptr(),
                        k = in(reg) T.as_ptr(),
                        options(nostack, readonly, preserves_flags),
                    );
                }
            };
        }
        // Rows are loaded a round before they are transposed, so a load that
        // misses the cache has a round's time to arrive.
        rounds!(round1);
        let rows = if more {
            unsafe { load_rows(ptrs, 0) }
        } else {
            [_mm512_setzero_si512(); 16]
        };
        rounds!(round2);
        if more {
            transpose(rows, &mut next[0]);
        }
        rounds!(round3);
        let rows = if more {
            unsafe { load_rows(ptrs, 1) }
        } else {
            [_mm512_setzero_si512(); 16]
        };
        rounds!(round4);
        if more {
            transpose(rows, &mut next[1]);
            advance(ptrs, strides, 32);
        }
        a0 = _mm512_add_epi32(a0, saved[0]);
        b0 = _mm512_add_epi32(b0, saved[1]);
        c0 = _mm512_add_epi32(c0, saved[2]);
        d0 = _mm512_add_epi32(d0, saved[3]);
        a1 = _mm512_add_epi32(a1, saved[4]);
        b1 = _mm512_add_epi32(b1, saved[5]);
        c1 = _mm512_add_epi32(c1, saved[6]);
        d1 = _mm512_add_epi32(d1, saved[7]);
    }
    for (i, v) in [a0, b0, c0, d0].into_iter().enumerate() {
        unsafe { store_word(state, i, 0, v) };
    }
    for (i, v) in [a1, b1, c1, d1].into_iter().enumerate() {
        unsafe { store_word(state, i, 1, v) };
    }
}
