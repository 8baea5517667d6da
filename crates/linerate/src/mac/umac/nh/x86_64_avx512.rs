//! NH with AVX-512F/BW: 128 message bytes (four NH blocks) per step.
//!
//! Two loads bring four blocks; two `vshufi64x2` gather their first halves
//! into `x` and their second halves into `y` (one block per 128-bit lane),
//! shared by every stream. Per stream: two `vpaddd` with the key rows
//! ([`NhKey::halves`]), `vpmuludq` of the even words, `vpsrlq` and
//! `vpmuludq` of the odd words, two `vpaddq` into the stream's eight 64-bit
//! sums. The last 0 to 127 bytes come in through byte-masked loads (zeros
//! past the end, nothing read there), and only the lanes of the blocks the
//! padded chunk has are added.

use super::{CHUNK, NhKey};
use core::arch::x86_64::*;

/// NH of `data` (at most 1024 bytes, zero-padded to a positive multiple of
/// 32) for streams `0..S`, without the length term.
///
/// # Safety
/// The CPU must support AVX-512F and AVX-512BW.
#[target_feature(enable = "avx512f,avx512bw")]
pub(crate) unsafe fn nh<const S: usize>(key: &NhKey, data: &[u8]) -> [u64; S] {
    debug_assert!(data.len() <= CHUNK && S <= 4);
    let mut acc = [_mm512_setzero_si512(); S];
    let steps = data.len() / 128;
    let p = data.as_ptr();
    for c in 0..steps {
        // SAFETY: `c < data.len() / 128`, so both 64-byte loads lie inside
        // `data`; `loadu` takes any alignment.
        let (a, b) = unsafe {
            (
                _mm512_loadu_si512(p.add(128 * c).cast()),
                _mm512_loadu_si512(p.add(128 * c + 64).cast()),
            )
        };
        step::<S>(&mut acc, key, c, a, b, 0xff);
    }
    let rest = data.len() - 128 * steps;
    if rest != 0 || data.is_empty() {
        let blocks = rest.div_ceil(32).max(1);
        let lanes = ((1u32 << (2 * blocks)) - 1) as __mmask8;
        let (a, b) = if rest == 0 {
            (_mm512_setzero_si512(), _mm512_setzero_si512())
        } else {
            let mask_a = if rest >= 64 { !0 } else { (1u64 << rest) - 1 };
            let mask_b = if rest > 64 {
                (1u64 << (rest - 64)) - 1
            } else {
                0
            };
            // SAFETY: the masks select exactly the `rest` bytes left in
            // `data` from `p + 128 * steps` on; masked-off bytes are neither
            // read nor fault. `p + 128 * steps` is in bounds (rest > 0), and
            // the second address is only formed when bytes there remain.
            unsafe {
                let at = p.add(128 * steps);
                let a = _mm512_maskz_loadu_epi8(mask_a, at.cast());
                let b = if mask_b != 0 {
                    _mm512_maskz_loadu_epi8(mask_b, at.add(64).cast())
                } else {
                    _mm512_setzero_si512()
                };
                (a, b)
            }
        };
        step::<S>(&mut acc, key, steps, a, b, lanes);
    }
    std::array::from_fn(|s| _mm512_reduce_add_epi64(acc[s]) as u64)
}

/// NH of each 1024-byte chunk of `data` (a whole number of chunks), in
/// order, handed to `f`: one call for a run of chunks, so that the caller's
/// next layer (inlined from `f`) interleaves with the vector work.
///
/// # Safety
/// The CPU must support AVX-512F.
#[target_feature(enable = "avx512f")]
pub(crate) unsafe fn nh_chunks<const S: usize, F: FnMut([u64; S])>(
    key: &NhKey,
    data: &[u8],
    mut f: F,
) {
    debug_assert!(data.len().is_multiple_of(CHUNK) && S <= 4);
    for chunk in data.chunks_exact(CHUNK) {
        let mut acc = [_mm512_setzero_si512(); S];
        let p = chunk.as_ptr();
        for c in 0..CHUNK / 128 {
            // SAFETY: `c < 8`, so both 64-byte loads lie inside `chunk`;
            // `loadu` takes any alignment.
            let (a, b) = unsafe {
                (
                    _mm512_loadu_si512(p.add(128 * c).cast()),
                    _mm512_loadu_si512(p.add(128 * c + 64).cast()),
                )
            };
            step::<S>(&mut acc, key, c, a, b, 0xff);
        }
        f(std::array::from_fn(|s| {
            _mm512_reduce_add_epi64(acc[s]) as u64
        }));
    }
}

/// Adds the terms of four blocks (bytes `128c..128c + 128` of the chunk,
/// in `a` and `b`) to each stream's sums, in the 64-bit lanes `lanes`
/// selects.
#[inline]
#[target_feature(enable = "avx512f")]
fn step<const S: usize>(
    acc: &mut [__m512i; S],
    key: &NhKey,
    c: usize,
    a: __m512i,
    b: __m512i,
    lanes: __mmask8,
) {
    // x: first halves of the four blocks; y: their second halves.
    let x = _mm512_shuffle_i64x2::<0b10_00_10_00>(a, b);
    let y = _mm512_shuffle_i64x2::<0b11_01_11_01>(a, b);
    for (s, sum) in acc.iter_mut().enumerate() {
        let kx = row(key, s, c);
        let ky = row(key, s + 1, c);
        let u = _mm512_add_epi32(x, kx);
        let v = _mm512_add_epi32(y, ky);
        let even = _mm512_mul_epu32(u, v);
        let odd = _mm512_mul_epu32(_mm512_srli_epi64::<32>(u), _mm512_srli_epi64::<32>(v));
        *sum = _mm512_mask_add_epi64(*sum, lanes, *sum, _mm512_add_epi64(even, odd));
    }
}

/// Key words for the half-blocks of blocks `4c..4c + 4` in row `h`.
#[inline]
#[target_feature(enable = "avx512f")]
fn row(key: &NhKey, h: usize, c: usize) -> __m512i {
    let row = &key.halves[h][16 * c..16 * c + 16];
    // SAFETY: `row` is 16 words (64 bytes) long; the rows are 64-byte
    // aligned (`NhKey` is `align(64)`, each row 512 bytes), so the aligned
    // load is too.
    unsafe { _mm512_load_si512(row.as_ptr().cast()) }
}
