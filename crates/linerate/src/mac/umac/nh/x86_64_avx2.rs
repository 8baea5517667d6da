//! NH with AVX2: 64 message bytes (two NH blocks) per step.
//!
//! Two loads bring two blocks; two `vperm2i128` gather their first halves
//! into `x` and their second halves into `y`, shared by every stream. Per
//! stream: two `vpaddd` with the key rows ([`NhKey::halves`]), `vpmuludq` of
//! the even words, `vpsrlq` and `vpmuludq` of the odd words, two `vpaddq`
//! into the stream's four 64-bit sums. The last 0 to 63 bytes come in
//! through `vpmaskmovd` (whole words) and a scalar read of the last 1 to 3
//! bytes; a lone last block masks off the other lane.

use super::{CHUNK, NhKey};
use core::arch::x86_64::*;

/// NH of `data` (at most 1024 bytes, zero-padded to a positive multiple of
/// 32) for streams `0..S`, without the length term.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn nh<const S: usize>(key: &NhKey, data: &[u8]) -> [u64; S] {
    debug_assert!(data.len() <= CHUNK && S <= 4);
    let mut acc = [_mm256_setzero_si256(); S];
    let mut pairs = data.chunks_exact(64);
    let mut d = 0;
    for pair in &mut pairs {
        // SAFETY: `pair` is 64 bytes long; `loadu` takes any alignment.
        let (a, b) = unsafe {
            (
                _mm256_loadu_si256(pair.as_ptr().cast()),
                _mm256_loadu_si256(pair.as_ptr().add(32).cast()),
            )
        };
        step::<S>(&mut acc, key, d, a, b, _mm256_set1_epi64x(-1));
        d += 1;
    }
    let tail = pairs.remainder();
    if !tail.is_empty() || data.is_empty() {
        let (a, b) = load_tail(tail);
        let lanes = if tail.len() > 32 {
            _mm256_set1_epi64x(-1)
        } else {
            _mm256_set_epi64x(0, 0, -1, -1)
        };
        step::<S>(&mut acc, key, d, a, b, lanes);
    }
    std::array::from_fn(|s| sum(acc[s]))
}

/// NH of each 1024-byte chunk of `data` (a whole number of chunks), in
/// order, handed to `f`: one call for a run of chunks, so that the caller's
/// next layer (inlined from `f`) interleaves with the vector work.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn nh_chunks<const S: usize, F: FnMut([u64; S])>(
    key: &NhKey,
    data: &[u8],
    mut f: F,
) {
    debug_assert!(data.len().is_multiple_of(CHUNK) && S <= 4);
    for chunk in data.chunks_exact(CHUNK) {
        let mut acc = [_mm256_setzero_si256(); S];
        for (d, pair) in chunk.chunks_exact(64).enumerate() {
            // SAFETY: `pair` is 64 bytes long; `loadu` takes any alignment.
            let (a, b) = unsafe {
                (
                    _mm256_loadu_si256(pair.as_ptr().cast()),
                    _mm256_loadu_si256(pair.as_ptr().add(32).cast()),
                )
            };
            step::<S>(&mut acc, key, d, a, b, _mm256_set1_epi64x(-1));
        }
        f(std::array::from_fn(|s| sum(acc[s])));
    }
}

/// The sum of the four 64-bit lanes.
#[inline]
#[target_feature(enable = "avx2")]
fn sum(v: __m256i) -> u64 {
    let h = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
    (_mm_cvtsi128_si64(h) as u64).wrapping_add(_mm_extract_epi64::<1>(h) as u64)
}

/// The last 0 to 63 bytes, zero-extended to 64, as two vectors: whole
/// 32-bit words through `vpmaskmovd` (masked-off words are not read), the
/// last 1 to 3 bytes assembled and placed by mask. No copy through memory,
/// whose narrower stores a wide load could not forward from.
#[inline]
#[target_feature(enable = "avx2")]
fn load_tail(tail: &[u8]) -> (__m256i, __m256i) {
    let zero = _mm256_setzero_si256();
    if tail.is_empty() {
        return (zero, zero);
    }
    let words = (tail.len() / 4) as i32;
    let idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    let idx_b = _mm256_add_epi32(idx, _mm256_set1_epi32(8));
    let p = tail.as_ptr();
    // SAFETY: the masks enable only the words `0..words`, all inside
    // `tail`; `vpmaskmovd` neither reads nor faults on the others. The
    // second address is formed only when `tail` extends past 32 bytes.
    let (mut a, mut b) = unsafe {
        let a = _mm256_maskload_epi32(p.cast(), _mm256_cmpgt_epi32(_mm256_set1_epi32(words), idx));
        let b = if tail.len() > 32 {
            let mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(words), idx_b);
            _mm256_maskload_epi32(p.add(32).cast(), mask)
        } else {
            zero
        };
        (a, b)
    };
    let rest = &tail[4 * words as usize..];
    if !rest.is_empty() {
        let w = rest
            .iter()
            .rev()
            .fold(0u32, |w, &byte| w << 8 | byte as u32) as i32;
        let at = _mm256_set1_epi32(words);
        let w = _mm256_set1_epi32(w);
        a = _mm256_or_si256(a, _mm256_and_si256(_mm256_cmpeq_epi32(idx, at), w));
        b = _mm256_or_si256(b, _mm256_and_si256(_mm256_cmpeq_epi32(idx_b, at), w));
    }
    (a, b)
}

/// Adds the terms of two blocks (bytes `64d..64d + 64` of the chunk, in `a`
/// and `b`) to each stream's sums, in the 64-bit lanes `lanes` keeps.
#[inline]
#[target_feature(enable = "avx2")]
fn step<const S: usize>(
    acc: &mut [__m256i; S],
    key: &NhKey,
    d: usize,
    a: __m256i,
    b: __m256i,
    lanes: __m256i,
) {
    // x: first halves of the two blocks; y: their second halves.
    let x = _mm256_permute2x128_si256::<0x20>(a, b);
    let y = _mm256_permute2x128_si256::<0x31>(a, b);
    for (s, sum) in acc.iter_mut().enumerate() {
        let kx = row(key, s, d);
        let ky = row(key, s + 1, d);
        let u = _mm256_add_epi32(x, kx);
        let v = _mm256_add_epi32(y, ky);
        let even = _mm256_mul_epu32(u, v);
        let odd = _mm256_mul_epu32(_mm256_srli_epi64::<32>(u), _mm256_srli_epi64::<32>(v));
        let terms = _mm256_and_si256(_mm256_add_epi64(even, odd), lanes);
        *sum = _mm256_add_epi64(*sum, terms);
    }
}

/// Key words for the half-blocks of blocks `2d..2d + 2` in row `h`.
#[inline]
#[target_feature(enable = "avx2")]
fn row(key: &NhKey, h: usize, d: usize) -> __m256i {
    let row = &key.halves[h][8 * d..8 * d + 8];
    // SAFETY: `row` is 8 words (32 bytes) long and 32-byte aligned (rows
    // start 64-byte aligned and `8d` words is a multiple of 32 bytes).
    unsafe { _mm256_load_si256(row.as_ptr().cast()) }
}
