//! The SSE2 lanes kernel: 4 MD5 chains per xmm register set, two sets
//! interleaved (8 chains), SSE2 only (every x86-64 CPU).
//!
//! The same design as the AVX2 kernel (see `x86_64_avx2`) on 128-bit
//! registers: per block each set loads its 4 lanes' blocks as four 4 x 4
//! dword matrices and transposes them with `punpck{l,h}dq` and
//! `punpck{l,h}qdq` (32 shuffles) into 16 message-word vectors on the stack,
//! double-buffered; the steps are `asm!` with the same round functions (F =
//! d ^ (b & (c ^ d)), G = (b & d) + (c & !d), H = b ^ c ^ d, I by
//! subtracting `c ^ (!b & d)` with the constant `T[i] - 1`) and a rotate of
//! shift, shift, or. SSE2's two-operand forms add a `movdqa` copy to most
//! steps; each copies a value that is ready early (`c`, `d`, or `a` before
//! the rotate) except I's copy of `b`, which move elimination usually makes
//! free.
//!
//! The rotation by 16 is `pshuflw` + `pshufhw`, and the two sets'
//! instructions interleave one by one, as in the AVX2 kernel.
//!
//! One set of 4 chains is latency-bound: about 6 cycles a step, 1.5
//! cycles/byte measured. Two sets issue in each other's shadow at about 7.7
//! cycles a step for 8 lanes, 0.95 to 0.97 cycles/byte, 1.5 times the
//! bytes a second: the backend's width is 8 and it runs one set when
//! `active <= 4`.

use super::steps::md5_steps;
use super::{LaneState, MAX_LANES, advance};
use crate::md5::reference::T;
use core::arch::asm;
use core::arch::x86_64::*;

/// `T[i]` broadcast to 4 lanes, one 16-byte vector per step (aligned, as
/// legacy-SSE memory operands must be); round 4 holds `T[i] - 1` for the
/// subtracted form of I.
#[repr(C, align(16))]
struct Constants([[u32; 4]; 64]);

static K: Constants = {
    let mut k = [[0u32; 4]; 64];
    let mut i = 0;
    while i < 64 {
        let t = if i < 48 { T[i] } else { T[i].wrapping_sub(1) };
        k[i] = [t; 4];
        i += 1;
    }
    Constants(k)
};

/// One two-operand SSE instruction for each register set in `[sets]`
/// (literal suffixes of the operand names), one after the other: the sets'
/// instructions interleave one by one. The source is a register (`a`, `b`,
/// `c`, `d`, `t`), `w x` (the set's message word `x`), `k i` (constant
/// vector `i`) or `imm n` / `imm 32 - n` (an immediate).
#[rustfmt::skip]
macro_rules! op {
    ([$($set:literal),+], $ins:literal, $dst:ident, $x:ident) => {
        concat!($($ins, " {", stringify!($dst), $set, "}, {", stringify!($x), $set, "}\n",)+)
    };
    ([$($set:literal),+], $ins:literal, $dst:ident, w $w:tt) => {
        concat!($($ins, " {", stringify!($dst), $set, "}, xmmword ptr [{w", $set, "} + 16 * ", $w, "]\n",)+)
    };
    ([$($set:literal),+], $ins:literal, $dst:ident, k $k:tt) => {
        concat!($($ins, " {", stringify!($dst), $set, "}, xmmword ptr [{k} + 16 * ", $k, "]\n",)+)
    };
    ([$($set:literal),+], $ins:literal, $dst:ident, imm $imm:tt) => {
        concat!($($ins, " {", stringify!($dst), $set, "}, ", $imm, "\n",)+)
    };
    ([$($set:literal),+], $ins:literal, $dst:ident, imm 32 - $imm:tt) => {
        concat!($($ins, " {", stringify!($dst), $set, "}, 32 - ", $imm, "\n",)+)
    };
    ([$($set:literal),+], $ins:literal, $dst:ident, $x:ident, imm $imm:tt) => {
        concat!($($ins, " {", stringify!($dst), $set, "}, {", stringify!($x), $set, "}, ", $imm, "\n",)+)
    };
}

/// One step on the register sets `sets`. The `movdqa` copies take `c`, `d`
/// or `a` (ready early) except in I, which copies `b`.
#[rustfmt::skip]
macro_rules! step {
    ($sets:tt, $a:ident, $b:ident, $c:ident, $d:ident, F, $x:tt, $k:tt, $s:tt) => {
        concat!(
            op!($sets, "paddd", $a, w $x),
            op!($sets, "paddd", $a, k $k),
            op!($sets, "movdqa", t, $c),
            op!($sets, "pxor", t, $d),
            op!($sets, "pand", t, $b),
            op!($sets, "pxor", t, $d),
            op!($sets, "paddd", $a, t),
            rotate_add_b!($sets, $a, $b, $s),
        )
    };
    ($sets:tt, $a:ident, $b:ident, $c:ident, $d:ident, G, $x:tt, $k:tt, $s:tt) => {
        concat!(
            op!($sets, "paddd", $a, w $x),
            op!($sets, "paddd", $a, k $k),
            op!($sets, "movdqa", t, $d),
            op!($sets, "pandn", t, $c),
            op!($sets, "paddd", $a, t),
            op!($sets, "movdqa", t, $d),
            op!($sets, "pand", t, $b),
            op!($sets, "paddd", $a, t),
            rotate_add_b!($sets, $a, $b, $s),
        )
    };
    ($sets:tt, $a:ident, $b:ident, $c:ident, $d:ident, H, $x:tt, $k:tt, $s:tt) => {
        concat!(
            op!($sets, "paddd", $a, w $x),
            op!($sets, "paddd", $a, k $k),
            op!($sets, "movdqa", t, $c),
            op!($sets, "pxor", t, $d),
            op!($sets, "pxor", t, $b),
            op!($sets, "paddd", $a, t),
            rotate_add_b!($sets, $a, $b, $s),
        )
    };
    ($sets:tt, $a:ident, $b:ident, $c:ident, $d:ident, I, $x:tt, $k:tt, $s:tt) => {
        concat!(
            op!($sets, "paddd", $a, w $x),
            op!($sets, "paddd", $a, k $k),
            op!($sets, "movdqa", t, $b),
            op!($sets, "pandn", t, $d),
            op!($sets, "pxor", t, $c),
            op!($sets, "psubd", $a, t),
            rotate_add_b!($sets, $a, $b, $s),
        )
    };
}

/// `a = (a <<< s) + b`; a rotation by 16 swaps the 16-bit halves of each
/// dword with two word shuffles.
#[rustfmt::skip]
macro_rules! rotate_add_b {
    ($sets:tt, $a:ident, $b:ident, 16) => {
        concat!(
            op!($sets, "pshuflw", $a, $a, imm 0xb1),
            op!($sets, "pshufhw", $a, $a, imm 0xb1),
            op!($sets, "paddd", $a, $b),
        )
    };
    ($sets:tt, $a:ident, $b:ident, $s:tt) => {
        concat!(
            op!($sets, "movdqa", t, $a),
            op!($sets, "pslld", t, imm $s),
            op!($sets, "psrld", $a, imm 32 - $s),
            op!($sets, "por", $a, t),
            op!($sets, "paddd", $a, $b),
        )
    };
}

macro_rules! one_set {
    ($($a:ident, $b:ident, $c:ident, $d:ident, $f:ident, $x:tt, $k:tt, $s:tt;)*) => {
        concat!($(step!([0], $a, $b, $c, $d, $f, $x, $k, $s),)*)
    };
}

macro_rules! two_sets {
    ($($a:ident, $b:ident, $c:ident, $d:ident, $f:ident, $x:tt, $k:tt, $s:tt;)*) => {
        concat!($(step!([0, 1], $a, $b, $c, $d, $f, $x, $k, $s),)*)
    };
}

/// See [`LanesFn`](super::LanesFn): lanes 0..4 when `active <= 4`, else
/// lanes 0..8; lanes 8.. are never touched.
///
/// # Safety
/// As [`LanesFn`](super::LanesFn) (SSE2 is part of x86-64).
#[target_feature(enable = "sse2")]
pub unsafe fn compress(
    state: &mut LaneState,
    ptrs: &mut [*const u8; MAX_LANES],
    strides: &[usize; MAX_LANES],
    nblocks: usize,
    active: usize,
) {
    debug_assert!(active <= 8, "the SSE2 kernel runs at most 8 lanes");
    // SAFETY: forwarded; one set reads lanes 0..4, two read 0..8, all of
    // which the caller keeps readable.
    unsafe {
        if active <= 4 {
            compress_one_set(state, ptrs, strides, nblocks);
        } else {
            compress_two_sets(state, ptrs, strides, nblocks);
        }
    }
}

/// Loads the 64-byte block of each of lanes `4 * set .. 4 * set + 4` and
/// transposes them into `words[j]` = message word `j` of those lanes.
#[inline]
#[target_feature(enable = "sse2")]
unsafe fn load_transposed(ptrs: &[*const u8; MAX_LANES], set: usize, words: &mut [__m128i; 16]) {
    for chunk in 0..4 {
        let mut r = [_mm_setzero_si128(); 4];
        for (i, row) in r.iter_mut().enumerate() {
            // SAFETY: the caller keeps 64 bytes readable at every lane
            // pointer; this reads bytes 16 chunk .. 16 chunk + 16.
            *row = unsafe {
                _mm_loadu_si128(ptrs[4 * set + i].wrapping_add(16 * chunk) as *const __m128i)
            };
        }
        let t0 = _mm_unpacklo_epi32(r[0], r[1]);
        let t1 = _mm_unpackhi_epi32(r[0], r[1]);
        let t2 = _mm_unpacklo_epi32(r[2], r[3]);
        let t3 = _mm_unpackhi_epi32(r[2], r[3]);
        words[4 * chunk] = _mm_unpacklo_epi64(t0, t2);
        words[4 * chunk + 1] = _mm_unpackhi_epi64(t0, t2);
        words[4 * chunk + 2] = _mm_unpacklo_epi64(t1, t3);
        words[4 * chunk + 3] = _mm_unpackhi_epi64(t1, t3);
    }
}

/// Loads word `w` of lanes `4 * set ..` from `state`.
#[inline]
#[target_feature(enable = "sse2")]
unsafe fn load_word(state: &LaneState, w: usize, set: usize) -> __m128i {
    // SAFETY: `words[w]` holds 32 dwords; lanes 4 set .. 4 set + 4 are in bounds.
    unsafe { _mm_loadu_si128(state.words[w][4 * set..].as_ptr() as *const __m128i) }
}

#[inline]
#[target_feature(enable = "sse2")]
unsafe fn store_word(state: &mut LaneState, w: usize, set: usize, v: __m128i) {
    // SAFETY: as in `load_word`.
    unsafe { _mm_storeu_si128(state.words[w][4 * set..].as_mut_ptr() as *mut __m128i, v) }
}

#[target_feature(enable = "sse2")]
unsafe fn compress_one_set(
    state: &mut LaneState,
    ptrs: &mut [*const u8; MAX_LANES],
    strides: &[usize; MAX_LANES],
    nblocks: usize,
) {
    // SAFETY (every unsafe block below): lane loads and stores stay inside
    // `state`; block loads read the caller's readable blocks; the asm reads
    // the 16 message vectors in `w` (16-byte aligned, being `__m128i`s) and
    // the 64 constants in `K`, writes only the registers it declares, and
    // uses no stack.
    let [mut a0, mut b0, mut c0, mut d0] = [0, 1, 2, 3].map(|w| unsafe { load_word(state, w, 0) });
    let mut w = [[_mm_setzero_si128(); 16]; 2];
    if nblocks > 0 {
        unsafe { load_transposed(ptrs, 0, &mut w[0]) };
        advance(ptrs, strides, 4);
    }
    for k in 0..nblocks {
        if k + 1 < nblocks {
            unsafe { load_transposed(ptrs, 0, &mut w[(k + 1) % 2]) };
            advance(ptrs, strides, 4);
        }
        let w = &w[k % 2];
        let saved = [a0, b0, c0, d0];
        unsafe {
            asm!(
                md5_steps!(one_set),
                a0 = inout(xmm_reg) a0,
                b0 = inout(xmm_reg) b0,
                c0 = inout(xmm_reg) c0,
                d0 = inout(xmm_reg) d0,
                t0 = out(xmm_reg) _,
                w0 = in(reg) w.as_ptr(),
                k = in(reg) K.0.as_ptr(),
                options(nostack, readonly, preserves_flags),
            );
        }
        a0 = _mm_add_epi32(a0, saved[0]);
        b0 = _mm_add_epi32(b0, saved[1]);
        c0 = _mm_add_epi32(c0, saved[2]);
        d0 = _mm_add_epi32(d0, saved[3]);
    }
    for (i, v) in [a0, b0, c0, d0].into_iter().enumerate() {
        unsafe { store_word(state, i, 0, v) };
    }
}

#[target_feature(enable = "sse2")]
unsafe fn compress_two_sets(
    state: &mut LaneState,
    ptrs: &mut [*const u8; MAX_LANES],
    strides: &[usize; MAX_LANES],
    nblocks: usize,
) {
    // SAFETY: as in `compress_one_set`, for lanes 0..8 and two vector sets.
    let [mut a0, mut b0, mut c0, mut d0] = [0, 1, 2, 3].map(|w| unsafe { load_word(state, w, 0) });
    let [mut a1, mut b1, mut c1, mut d1] = [0, 1, 2, 3].map(|w| unsafe { load_word(state, w, 1) });
    let mut w = [[[_mm_setzero_si128(); 16]; 2]; 2];
    if nblocks > 0 {
        unsafe {
            load_transposed(ptrs, 0, &mut w[0][0]);
            load_transposed(ptrs, 1, &mut w[0][1]);
        }
        advance(ptrs, strides, 8);
    }
    for k in 0..nblocks {
        if k + 1 < nblocks {
            let next = &mut w[(k + 1) % 2];
            unsafe {
                load_transposed(ptrs, 0, &mut next[0]);
                load_transposed(ptrs, 1, &mut next[1]);
            }
            advance(ptrs, strides, 8);
        }
        let w = &w[k % 2];
        let saved = [a0, b0, c0, d0, a1, b1, c1, d1];
        unsafe {
            asm!(
                md5_steps!(two_sets),
                a0 = inout(xmm_reg) a0,
                b0 = inout(xmm_reg) b0,
                c0 = inout(xmm_reg) c0,
                d0 = inout(xmm_reg) d0,
                a1 = inout(xmm_reg) a1,
                b1 = inout(xmm_reg) b1,
                c1 = inout(xmm_reg) c1,
                d1 = inout(xmm_reg) d1,
                t0 = out(xmm_reg) _,
                t1 = out(xmm_reg) _,
                w0 = in(reg) w[0].as_ptr(),
                w1 = in(reg) w[1].as_ptr(),
                k = in(reg) K.0.as_ptr(),
                options(nostack, readonly, preserves_flags),
            );
        }
        a0 = _mm_add_epi32(a0, saved[0]);
        b0 = _mm_add_epi32(b0, saved[1]);
        c0 = _mm_add_epi32(c0, saved[2]);
        d0 = _mm_add_epi32(d0, saved[3]);
        a1 = _mm_add_epi32(a1, saved[4]);
        b1 = _mm_add_epi32(b1, saved[5]);
        c1 = _mm_add_epi32(c1, saved[6]);
        d1 = _mm_add_epi32(d1, saved[7]);
    }
    for (i, v) in [a0, b0, c0, d0].into_iter().enumerate() {
        unsafe { store_word(state, i, 0, v) };
    }
    for (i, v) in [a1, b1, c1, d1].into_iter().enumerate() {
        unsafe { store_word(state, i, 1, v) };
    }
}
