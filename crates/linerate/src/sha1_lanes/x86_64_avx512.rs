//! SHA-1's compression for sixteen messages at once, one per 32-bit lane
//! of the AVX-512 registers: the five state words of every lane in five
//! registers, each message word gathered from the sixteen blocks
//! (`vpgatherqd`, two of eight lanes) and byte-swapped, the round
//! functions as `vpternlogd` (Ch 0xCA, Parity 0x96, Maj 0xE8), rotations
//! as `vprold`. SHA-NI hashes one stream at a time; on this path sixteen
//! streams cost about half as much per byte.

#![allow(unsafe_code)]

use core::arch::x86_64::*;

/// SHA-1's round constants.
const K: [u32; 4] = [0x5a82_7999, 0x6ed9_eba1, 0x8f1b_bcdc, 0xca62_c1d6];

/// Absorbs `n` blocks into each of the sixteen `states`; lane `l`'s block
/// `b` is `block(l, b)`.
///
/// # Safety
/// The CPU must have AVX-512F and AVX-512BW
/// ([`super::Sha1LanesBackend::Avx512`] is supported).
#[target_feature(enable = "avx512f,avx512bw")]
pub unsafe fn compress<'a>(
    states: &mut [[u32; 5]; 16],
    n: usize,
    block: impl Fn(usize, usize) -> &'a [u8; 64],
) {
    let word = |i: usize| {
        let v: [u32; 16] = core::array::from_fn(|l| states[l][i]);
        // SAFETY: an unaligned 64-byte load of a 64-byte array.
        unsafe { _mm512_loadu_si512(v.as_ptr().cast()) }
    };
    let (mut a, mut b, mut c, mut d, mut e) = (word(0), word(1), word(2), word(3), word(4));
    // Big-endian words: reverse the bytes of each 32-bit lane.
    let bswap = _mm512_set4_epi32(0x0c0d_0e0f, 0x0809_0a0b, 0x0405_0607, 0x0001_0203);
    let k = K.map(|v| _mm512_set1_epi32(v as i32));
    for blk in 0..n {
        let addr: [i64; 16] = core::array::from_fn(|l| block(l, blk).as_ptr() as i64);
        // SAFETY: unaligned 64-byte loads of the two halves of `addr`.
        let (lo, hi) = unsafe {
            (
                _mm512_loadu_si512(addr.as_ptr().cast()),
                _mm512_loadu_si512(addr[8..].as_ptr().cast()),
            )
        };
        let mut w = [_mm512_setzero_si512(); 16];
        for (t, wt) in w.iter_mut().enumerate() {
            let off = _mm512_set1_epi64(4 * t as i64);
            // SAFETY: each gathered address is word `t` (bytes 4t..4t+4)
            // of a live 64-byte block borrowed from `block`, absolute
            // (the base pointer is null and the scale 1).
            let (g0, g1) = unsafe {
                (
                    _mm512_i64gather_epi32::<1>(_mm512_add_epi64(lo, off), core::ptr::null()),
                    _mm512_i64gather_epi32::<1>(_mm512_add_epi64(hi, off), core::ptr::null()),
                )
            };
            let x = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(g0), g1);
            *wt = _mm512_shuffle_epi8(x, bswap);
        }
        let (sa, sb, sc, sd, se) = (a, b, c, d, e);
        for t in 0..80 {
            let wt = if t < 16 {
                w[t]
            } else {
                // W[t] = rol1(W[t-3] ^ W[t-8] ^ W[t-14] ^ W[t-16]), in a
                // ring of sixteen.
                let x = _mm512_ternarylogic_epi32::<0x96>(
                    w[(t - 3) % 16],
                    w[(t - 8) % 16],
                    w[(t - 14) % 16],
                );
                let x = _mm512_rol_epi32::<1>(_mm512_xor_si512(x, w[t % 16]));
                w[t % 16] = x;
                x
            };
            let f = match t / 20 {
                0 => _mm512_ternarylogic_epi32::<0xCA>(b, c, d),
                2 => _mm512_ternarylogic_epi32::<0xE8>(b, c, d),
                _ => _mm512_ternarylogic_epi32::<0x96>(b, c, d),
            };
            let sum = _mm512_add_epi32(_mm512_add_epi32(e, k[t / 20]), wt);
            let temp = _mm512_add_epi32(_mm512_add_epi32(_mm512_rol_epi32::<5>(a), f), sum);
            e = d;
            d = c;
            c = _mm512_rol_epi32::<30>(b);
            b = a;
            a = temp;
        }
        a = _mm512_add_epi32(a, sa);
        b = _mm512_add_epi32(b, sb);
        c = _mm512_add_epi32(c, sc);
        d = _mm512_add_epi32(d, sd);
        e = _mm512_add_epi32(e, se);
    }
    let mut out = [[0u32; 16]; 5];
    for (o, v) in out.iter_mut().zip([a, b, c, d, e]) {
        // SAFETY: an unaligned 64-byte store into a 64-byte array.
        unsafe { _mm512_storeu_si512(o.as_mut_ptr().cast(), v) };
    }
    for (l, state) in states.iter_mut().enumerate() {
        for (i, s) in state.iter_mut().enumerate() {
            *s = out[i][l];
        }
    }
}
