//! The AVX2 lanes kernel: 8 MD5 chains per ymm register set, two sets
//! interleaved (16 chains) so that while one set waits on its step latency
//! the other issues.
//!
//! Per block, each set loads its 8 lanes' 64-byte blocks as two 8 x 8 dword
//! matrices (words 0..8 and 8..16 of every lane) and transposes them
//! (unpack 32, unpack 64, `vperm2i128`: 24 shuffles each, no gathers) into
//! 16 vectors of one message word for all 8 lanes, kept on the stack so
//! every step adds its word as a memory operand. The transposition of block
//! `k + 1` comes before the steps of block `k` in program order
//! (double-buffered), so it runs in the shadow of the step chains.
//!
//! Without `vpternlogd` or a vector rotate, a step is
//! `a += M; a += K; a += f(b, c, d); a = (a << s) | (a >> (32 - s)); a += b`
//! with the round functions written so the work that depends only on the
//! older `c` and `d` comes first and as little as possible follows `b`:
//!
//! - F = d ^ (b & (c ^ d)): 3 operations after `b` (and, xor, add);
//! - G = (b & d) + (c & !d): the terms never overlap, so the sum equals the
//!   or, and `c & !d` (`vpandn`) joins `a` before `b` is ready: 2 after `b`;
//! - H = b ^ c ^ d: `c ^ d` early, 2 after `b`;
//! - I = c ^ (b | !d) = !(c ^ (!b & d)), and `a + !x = a - x - 1`: the step
//!   subtracts `c ^ vpandn(b, d)` and its constant is `T[i] - 1`, one
//!   operation fewer than forming `!d`.
//!
//! The rotation by 16 (four steps of round 3) is one `vpshufb` instead.
//!
//! That is about 9.5 vector operations a step, on the three vector ports
//! (shifts on two of them): one set alone is latency-bound (about 6.3
//! cycles a step measured, 0.79 cycles/byte), two sets fill the ports. The
//! steps are `asm!` (like the AVX-512 kernel) so the schedule is the one
//! written here, with no register copies; the two sets' instructions
//! interleave one by one (about 2% faster than step by step).
//!
//! Measured on the Sapphire Rapids-class VM (thread CPU time, see
//! `benches/lanes.rs`): about 0.51 cycles/byte with the data in cache
//! (about 520 cycles a block of 16 lanes, some 85% of the three-port bound
//! of about 435) and 0.55 for 16 lanes of 1 MiB each. Tried and left out:
//! a third set (24 lanes in 15 ymm registers, about 4% faster, at an odd
//! width), `vinserti128` row loads instead of `vperm2i128`, and software
//! prefetch (both within the noise).

use super::steps::md5_steps;
use super::{LaneState, MAX_LANES, advance};
use crate::md5::reference::T;
use core::arch::asm;
use core::arch::x86_64::*;

/// The asm's constants, at `{k}`: `T[i]` broadcast to 8 lanes, one 32-byte
/// vector per step, for memory operands (AVX2 has no embedded broadcast),
/// round 4 holding `T[i] - 1` for the subtracted form of I; then, at
/// `{k} + 32 * 64`, the `vpshufb` mask that rotates every dword by 16.
#[repr(C, align(32))]
struct Constants([[u32; 8]; 64], [u8; 32]);

static K: Constants = {
    let mut k = [[0u32; 8]; 64];
    let mut i = 0;
    while i < 64 {
        let t = if i < 48 { T[i] } else { T[i].wrapping_sub(1) };
        k[i] = [t; 8];
        i += 1;
    }
    // Byte `j` of each 128-bit half takes byte `j + 2` of its dword, mod 4
    // (`vpshufb` indexes within each half).
    let mut rot16 = [0u8; 32];
    let mut j = 0;
    while j < 32 {
        rot16[j] = ((j % 16) & !3) as u8 + ((j + 2) % 4) as u8;
        j += 1;
    }
    Constants(k, rot16)
};

/// One vector instruction for each register set in `[sets]` (literal
/// suffixes of the operand names), one after the other: the sets'
/// instructions interleave one by one. Operands are registers (`a`, `b`,
/// `c`, `d`, `t`), `w x` (the set's message word `x`), `k i` (constant
/// vector `i`) or `imm n` / `imm 32 - n` (an immediate).
#[rustfmt::skip]
macro_rules! op {
    ([$($set:literal),+], $ins:literal, $dst:ident, $x:ident, $y:ident) => {
        concat!($($ins, " {", stringify!($dst), $set, "}, {", stringify!($x), $set, "}, {", stringify!($y), $set, "}\n",)+)
    };
    ([$($set:literal),+], $ins:literal, $dst:ident, $x:ident, w $w:tt) => {
        concat!($($ins, " {", stringify!($dst), $set, "}, {", stringify!($x), $set, "}, ymmword ptr [{w", $set, "} + 32 * ", $w, "]\n",)+)
    };
    ([$($set:literal),+], $ins:literal, $dst:ident, $x:ident, k $k:tt) => {
        concat!($($ins, " {", stringify!($dst), $set, "}, {", stringify!($x), $set, "}, ymmword ptr [{k} + 32 * ", $k, "]\n",)+)
    };
    ([$($set:literal),+], $ins:literal, $dst:ident, $x:ident, imm $imm:tt) => {
        concat!($($ins, " {", stringify!($dst), $set, "}, {", stringify!($x), $set, "}, ", $imm, "\n",)+)
    };
    ([$($set:literal),+], $ins:literal, $dst:ident, $x:ident, imm 32 - $imm:tt) => {
        concat!($($ins, " {", stringify!($dst), $set, "}, {", stringify!($x), $set, "}, 32 - ", $imm, "\n",)+)
    };
}

/// One step on the register sets `sets`.
#[rustfmt::skip]
macro_rules! step {
    ($sets:tt, $a:ident, $b:ident, $c:ident, $d:ident, F, $x:tt, $k:tt, $s:tt) => {
        concat!(
            op!($sets, "vpaddd", $a, $a, w $x),
            op!($sets, "vpaddd", $a, $a, k $k),
            op!($sets, "vpxor", t, $c, $d),
            op!($sets, "vpand", t, t, $b),
            op!($sets, "vpxor", t, t, $d),
            op!($sets, "vpaddd", $a, $a, t),
            rotate_add_b!($sets, $a, $b, $s),
        )
    };
    ($sets:tt, $a:ident, $b:ident, $c:ident, $d:ident, G, $x:tt, $k:tt, $s:tt) => {
        concat!(
            op!($sets, "vpaddd", $a, $a, w $x),
            op!($sets, "vpaddd", $a, $a, k $k),
            op!($sets, "vpandn", t, $d, $c),
            op!($sets, "vpaddd", $a, $a, t),
            op!($sets, "vpand", t, $d, $b),
            op!($sets, "vpaddd", $a, $a, t),
            rotate_add_b!($sets, $a, $b, $s),
        )
    };
    ($sets:tt, $a:ident, $b:ident, $c:ident, $d:ident, H, $x:tt, $k:tt, $s:tt) => {
        concat!(
            op!($sets, "vpaddd", $a, $a, w $x),
            op!($sets, "vpaddd", $a, $a, k $k),
            op!($sets, "vpxor", t, $c, $d),
            op!($sets, "vpxor", t, t, $b),
            op!($sets, "vpaddd", $a, $a, t),
            rotate_add_b!($sets, $a, $b, $s),
        )
    };
    ($sets:tt, $a:ident, $b:ident, $c:ident, $d:ident, I, $x:tt, $k:tt, $s:tt) => {
        concat!(
            op!($sets, "vpaddd", $a, $a, w $x),
            op!($sets, "vpaddd", $a, $a, k $k),
            op!($sets, "vpandn", t, $b, $d),
            op!($sets, "vpxor", t, t, $c),
            op!($sets, "vpsubd", $a, $a, t),
            rotate_add_b!($sets, $a, $b, $s),
        )
    };
}

/// `a = (a <<< s) + b`; a rotation by 16 is one byte shuffle (the mask is
/// constant vector 64).
#[rustfmt::skip]
macro_rules! rotate_add_b {
    ($sets:tt, $a:ident, $b:ident, 16) => {
        concat!(
            op!($sets, "vpshufb", $a, $a, k 64),
            op!($sets, "vpaddd", $a, $a, $b),
        )
    };
    ($sets:tt, $a:ident, $b:ident, $s:tt) => {
        concat!(
            op!($sets, "vpslld", t, $a, imm $s),
            op!($sets, "vpsrld", $a, $a, imm 32 - $s),
            op!($sets, "vpor", $a, $a, t),
            op!($sets, "vpaddd", $a, $a, $b),
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

/// See [`LanesFn`](super::LanesFn): lanes 0..8 when `active <= 8`, else
/// lanes 0..16; lanes 16.. are never touched.
///
/// # Safety
/// As [`LanesFn`](super::LanesFn); the CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub unsafe fn compress(
    state: &mut LaneState,
    ptrs: &mut [*const u8; MAX_LANES],
    strides: &[usize; MAX_LANES],
    nblocks: usize,
    active: usize,
) {
    debug_assert!(active <= 16, "the AVX2 kernel runs at most 16 lanes");
    // SAFETY: forwarded; one set reads lanes 0..8, two read 0..16, all of
    // which the caller keeps readable.
    unsafe {
        if active <= 8 {
            compress_one_set(state, ptrs, strides, nblocks);
        } else {
            compress_two_sets(state, ptrs, strides, nblocks);
        }
    }
}

/// Loads the 64-byte block of each of lanes `8 * set .. 8 * set + 8` and
/// transposes them into `words[j]` = message word `j` of those lanes.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn load_transposed(ptrs: &[*const u8; MAX_LANES], set: usize, words: &mut [__m256i; 16]) {
    for half in 0..2 {
        let mut r = [_mm256_setzero_si256(); 8];
        for (i, row) in r.iter_mut().enumerate() {
            // SAFETY: the caller keeps 64 bytes readable at every lane
            // pointer; this reads bytes 32 half .. 32 half + 32.
            *row = unsafe {
                _mm256_loadu_si256(ptrs[8 * set + i].wrapping_add(32 * half) as *const __m256i)
            };
        }
        // Within each 128-bit half h, t[2p] holds words 4h, 4h + 1 and
        // t[2p + 1] words 4h + 2, 4h + 3 of rows 2p, 2p + 1, interleaved.
        let mut t = [_mm256_setzero_si256(); 8];
        for p in 0..4 {
            t[2 * p] = _mm256_unpacklo_epi32(r[2 * p], r[2 * p + 1]);
            t[2 * p + 1] = _mm256_unpackhi_epi32(r[2 * p], r[2 * p + 1]);
        }
        // u[4q + m] holds word m (low half) and word 4 + m (high half) of
        // rows 4q .. 4q + 3.
        let mut u = [_mm256_setzero_si256(); 8];
        for q in 0..2 {
            u[4 * q] = _mm256_unpacklo_epi64(t[4 * q], t[4 * q + 2]);
            u[4 * q + 1] = _mm256_unpackhi_epi64(t[4 * q], t[4 * q + 2]);
            u[4 * q + 2] = _mm256_unpacklo_epi64(t[4 * q + 1], t[4 * q + 3]);
            u[4 * q + 3] = _mm256_unpackhi_epi64(t[4 * q + 1], t[4 * q + 3]);
        }
        for m in 0..4 {
            words[8 * half + m] = _mm256_permute2x128_si256::<0x20>(u[m], u[4 + m]);
            words[8 * half + 4 + m] = _mm256_permute2x128_si256::<0x31>(u[m], u[4 + m]);
        }
    }
}

/// Loads word `w` of lanes `8 * set ..` from `state`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn load_word(state: &LaneState, w: usize, set: usize) -> __m256i {
    // SAFETY: `words[w]` holds 32 dwords; lanes 8 set .. 8 set + 8 are in bounds.
    unsafe { _mm256_loadu_si256(state.words[w][8 * set..].as_ptr() as *const __m256i) }
}

#[inline]
#[target_feature(enable = "avx2")]
unsafe fn store_word(state: &mut LaneState, w: usize, set: usize, v: __m256i) {
    // SAFETY: as in `load_word`.
    unsafe { _mm256_storeu_si256(state.words[w][8 * set..].as_mut_ptr() as *mut __m256i, v) }
}

#[target_feature(enable = "avx2")]
unsafe fn compress_one_set(
    state: &mut LaneState,
    ptrs: &mut [*const u8; MAX_LANES],
    strides: &[usize; MAX_LANES],
    nblocks: usize,
) {
    // SAFETY (every unsafe block below): lane loads and stores stay inside
    // `state`; block loads read the caller's readable blocks; the asm reads
    // the 16 message vectors in `w` and the 65 constant vectors in `K`,
    // writes only the registers it declares, and uses no stack.
    let [mut a0, mut b0, mut c0, mut d0] = [0, 1, 2, 3].map(|w| unsafe { load_word(state, w, 0) });
    let mut w = [[_mm256_setzero_si256(); 16]; 2];
    if nblocks > 0 {
        unsafe { load_transposed(ptrs, 0, &mut w[0]) };
        advance(ptrs, strides, 8);
    }
    for k in 0..nblocks {
        if k + 1 < nblocks {
            unsafe { load_transposed(ptrs, 0, &mut w[(k + 1) % 2]) };
            advance(ptrs, strides, 8);
        }
        let w = &w[k % 2];
        let saved = [a0, b0, c0, d0];
        unsafe {
            asm!(
                md5_steps!(one_set),
                a0 = inout(ymm_reg) a0,
                b0 = inout(ymm_reg) b0,
                c0 = inout(ymm_reg) c0,
                d0 = inout(ymm_reg) d0,
                t0 = out(ymm_reg) _,
                w0 = in(reg) w.as_ptr(),
                k = in(reg) K.0.as_ptr(),
                options(nostack, readonly, preserves_flags),
            );
        }
        a0 = _mm256_add_epi32(a0, saved[0]);
        b0 = _mm256_add_epi32(b0, saved[1]);
        c0 = _mm256_add_epi32(c0, saved[2]);
        d0 = _mm256_add_epi32(d0, saved[3]);
    }
    for (i, v) in [a0, b0, c0, d0].into_iter().enumerate() {
        unsafe { store_word(state, i, 0, v) };
    }
}

#[target_feature(enable = "avx2")]
unsafe fn compress_two_sets(
    state: &mut LaneState,
    ptrs: &mut [*const u8; MAX_LANES],
    strides: &[usize; MAX_LANES],
    nblocks: usize,
) {
    // SAFETY: as in `compress_one_set`, for lanes 0..16 and two vector sets.
    let [mut a0, mut b0, mut c0, mut d0] = [0, 1, 2, 3].map(|w| unsafe { load_word(state, w, 0) });
    let [mut a1, mut b1, mut c1, mut d1] = [0, 1, 2, 3].map(|w| unsafe { load_word(state, w, 1) });
    let mut w = [[[_mm256_setzero_si256(); 16]; 2]; 2];
    if nblocks > 0 {
        unsafe {
            load_transposed(ptrs, 0, &mut w[0][0]);
            load_transposed(ptrs, 1, &mut w[0][1]);
        }
        advance(ptrs, strides, 16);
    }
    for k in 0..nblocks {
        if k + 1 < nblocks {
            let next = &mut w[(k + 1) % 2];
            unsafe {
                load_transposed(ptrs, 0, &mut next[0]);
                load_transposed(ptrs, 1, &mut next[1]);
            }
            advance(ptrs, strides, 16);
        }
        let w = &w[k % 2];
        let saved = [a0, b0, c0, d0, a1, b1, c1, d1];
        unsafe {
            asm!(
                md5_steps!(two_sets),
                a0 = inout(ymm_reg) a0,
                b0 = inout(ymm_reg) b0,
                c0 = inout(ymm_reg) c0,
                d0 = inout(ymm_reg) d0,
                a1 = inout(ymm_reg) a1,
                b1 = inout(ymm_reg) b1,
                c1 = inout(ymm_reg) c1,
                d1 = inout(ymm_reg) d1,
                t0 = out(ymm_reg) _,
                t1 = out(ymm_reg) _,
                w0 = in(reg) w[0].as_ptr(),
                w1 = in(reg) w[1].as_ptr(),
                k = in(reg) K.0.as_ptr(),
                options(nostack, readonly, preserves_flags),
            );
        }
        a0 = _mm256_add_epi32(a0, saved[0]);
        b0 = _mm256_add_epi32(b0, saved[1]);
        c0 = _mm256_add_epi32(c0, saved[2]);
        d0 = _mm256_add_epi32(d0, saved[3]);
        a1 = _mm256_add_epi32(a1, saved[4]);
        b1 = _mm256_add_epi32(b1, saved[5]);
        c1 = _mm256_add_epi32(c1, saved[6]);
        d1 = _mm256_add_epi32(d1, saved[7]);
    }
    for (i, v) in [a0, b0, c0, d0].into_iter().enumerate() {
        unsafe { store_word(state, i, 0, v) };
    }
    for (i, v) in [a1, b1, c1, d1].into_iter().enumerate() {
        unsafe { store_word(state, i, 1, v) };
    }
}
