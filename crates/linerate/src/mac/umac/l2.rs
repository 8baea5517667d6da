//! L2-HASH (RFC 4418 section 5.3): POLY over the 64-bit L1 outputs.
//!
//! The first 2^14 L1 outputs (2^24 message bytes) go through POLY with the
//! prime 2^64 - 59. Past that, the 64-bit result becomes the first 128-bit
//! word of a second POLY with the prime 2^128 - 159, which takes the rest
//! of the L1 outputs two at a time, followed by a `0x80` byte and zeros up
//! to a 16-byte boundary. That is the construction the corrected 'a' * 2^25
//! test vector of erratum 3507 (85EE5CAE / FACA46F856E9B45F /
//! A621C2457C0012E64F3FDAE9) is computed with.
//!
//! POLY's words at or above `2^64 - 2^32` (`2^128 - 2^96`) are hashed as a
//! marker `p - 1` followed by `m - offset`. The arithmetic here is constant
//! time: no branch or memory access depends on a word or the key. For the
//! 64-bit prime the marker case becomes one step with `k^2` and
//! `m - 59 - k` (`k(ky + p - 1) + m - 59 = k^2 y + m - 59 - k` mod p),
//! selected by mask, so each word costs one multiplication either way.

use zeroize::Zeroize;

/// 2^64 - 59.
pub(super) const P64: u64 = 0u64.wrapping_sub(59);
/// 2^128 - 159.
pub(super) const P128: u128 = 0u128.wrapping_sub(159);
/// L1 outputs hashed under the 64-bit prime before the 128-bit one takes over.
pub(super) const POLY64_WORDS: u64 = 1 << 14;

/// One stream's L2 key: `k64` and `k128` as RFC 4418 masks them, and
/// `k64^2 mod p64` for the marker case.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct L2Key {
    k64: u64,
    k64_squared: u64,
    k128: u128,
}

impl L2Key {
    /// The key from `KDF(K, 2, ...)`'s 24 bytes for the stream.
    pub(super) fn new(bytes: &[u8; 24]) -> L2Key {
        let k64 = u64::from_be_bytes(bytes[..8].try_into().unwrap()) & 0x01ff_ffff_01ff_ffff;
        let k128 = u128::from_be_bytes(bytes[8..].try_into().unwrap())
            & 0x01ff_ffff_01ff_ffff_01ff_ffff_01ff_ffff;
        L2Key {
            k64,
            k64_squared: reduce64(mul_add64(k64, k64, 0)),
            k128,
        }
    }
}

impl Zeroize for L2Key {
    fn zeroize(&mut self) {
        self.k64.zeroize();
        self.k64_squared.zeroize();
        self.k128.zeroize();
    }
}

/// `a * b + c` mod 2^64 - 59, as a value below 2^64 (not fully reduced).
#[inline(always)]
fn mul_add64(a: u64, b: u64, c: u64) -> u64 {
    let x = a as u128 * b as u128 + c as u128;
    // 2^64 = 59 (mod p): fold the high half twice.
    let t = (x >> 64) * 59 + (x as u64 as u128);
    let (s, carry) = (t as u64).overflowing_add((t >> 64) as u64 * 59);
    // On a carry s is below 2^13, so adding 59 cannot carry again.
    s + carry as u64 * 59
}

/// `y` mod 2^64 - 59, for `y` below 2^64.
#[inline(always)]
pub(super) fn reduce64(y: u64) -> u64 {
    let (d, borrow) = y.overflowing_sub(P64);
    let keep = (borrow as u64).wrapping_neg();
    (y & keep) | (d & !keep)
}

/// One POLY step under 2^64 - 59: `y * k + m`, with the marker for words
/// at or above 2^64 - 2^32. `y` need not be fully reduced.
#[inline(always)]
pub(super) fn poly64(key: &L2Key, y: u64, m: u64) -> u64 {
    // 1 exactly when the top 32 bits of m are all ones.
    let big = ((m >> 32) + 1) >> 32;
    let mask = big.wrapping_neg();
    let k = key.k64 ^ ((key.k64 ^ key.k64_squared) & mask);
    // m >= 2^64 - 2^32 and k < 2^57 there: no wrap.
    let alt = m.wrapping_sub(59).wrapping_sub(key.k64);
    let m = m ^ ((m ^ alt) & mask);
    mul_add64(k, y, m)
}

/// `a * b + c` mod 2^128 - 159 for `a` below 2^121, as a value below 2^128
/// (not fully reduced).
#[inline(always)]
fn mul_add128(a: u128, b: u128, c: u128) -> u128 {
    let (a1, a0) = ((a >> 64) as u64 as u128, a as u64 as u128);
    let (b1, b0) = ((b >> 64) as u64 as u128, b as u64 as u128);
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let p11 = a1 * b1;
    let (mid, c_mid) = p01.overflowing_add(p10);
    let (lo, c_lo) = p00.overflowing_add(mid << 64);
    let hi = p11 + (mid >> 64) + ((c_mid as u128) << 64) + c_lo as u128;
    let (lo, c_c) = lo.overflowing_add(c);
    // a * b + c = hi * 2^128 + lo with hi below 2^121.
    let hi = hi + c_c as u128;
    // 2^128 = 159 (mod p): hi * 159 = top * 2^128 + t, top at most 1.
    let h_lo = (hi as u64 as u128) * 159;
    let h_hi = (hi >> 64) * 159;
    let (t, c_t) = h_lo.overflowing_add(h_hi << 64);
    let top = (h_hi >> 64) + c_t as u128;
    let (s, c_s) = lo.overflowing_add(t);
    let top = top + c_s as u128;
    let (r, carry) = s.overflowing_add(top * 159);
    // On a carry r is below 2^10, so adding 159 cannot carry again.
    r + carry as u128 * 159
}

/// `y` mod 2^128 - 159, for `y` below 2^128.
#[inline(always)]
fn reduce128(y: u128) -> u128 {
    let (d, borrow) = y.overflowing_sub(P128);
    let keep = (borrow as u128).wrapping_neg();
    (y & keep) | (d & !keep)
}

/// One POLY step under 2^128 - 159: `y * k + m`, with the marker for words
/// at or above 2^128 - 2^96. Both products are always computed.
#[inline]
fn poly128(k: u128, y: u128, m: u128) -> u128 {
    let big = ((m >> 96) + 1) >> 32;
    let mask = big.wrapping_neg();
    let marked = mul_add128(k, y, P128 - 1);
    let y = y ^ ((y ^ marked) & mask);
    let m = m ^ ((m ^ m.wrapping_sub(159)) & mask);
    mul_add128(k, y, m)
}

/// One stream's L2-HASH in progress: L1 outputs go in one at a time.
#[derive(Clone, Copy, Debug)]
pub(super) struct L2State {
    y64: u64,
    y128: u128,
    /// L1 outputs absorbed.
    words: u64,
    /// Under the 128-bit prime, an odd output waiting for its partner.
    held: u64,
}

impl L2State {
    pub(super) const fn new() -> L2State {
        L2State {
            y64: 1,
            y128: 1,
            words: 0,
            held: 0,
        }
    }

    /// Absorbs one L1 output.
    #[inline(always)]
    pub(super) fn absorb(&mut self, key: &L2Key, m: u64) {
        if self.words < POLY64_WORDS {
            self.y64 = poly64(key, self.y64, m);
        } else {
            self.absorb_128(key, m);
        }
        self.words += 1;
    }

    #[cold]
    fn absorb_128(&mut self, key: &L2Key, m: u64) {
        let n = self.words - POLY64_WORDS;
        if n == 0 {
            // POLY(128, ..., uint2str(y, 16) || M_2) starts from y = 1.
            self.y128 = poly128(key.k128, 1, reduce64(self.y64) as u128);
        }
        if n.is_multiple_of(2) {
            self.held = m;
        } else {
            let word = (self.held as u128) << 64 | m as u128;
            self.y128 = poly128(key.k128, self.y128, word);
        }
    }

    /// Whether the 128-bit prime was reached (more than 2^24 message bytes).
    #[inline(always)]
    pub(super) fn is_wide(&self) -> bool {
        self.words > POLY64_WORDS
    }

    /// The 16-byte L2-HASH result, as an integer (the high 64 bits are zero
    /// unless the 128-bit prime was reached).
    #[inline]
    pub(super) fn finish(&self, key: &L2Key) -> u128 {
        if self.words <= POLY64_WORDS {
            reduce64(self.y64) as u128
        } else {
            // M_2 || 0x80, zero-padded to 16 bytes.
            let n = self.words - POLY64_WORDS;
            let last = if n % 2 == 1 {
                (self.held as u128) << 64 | 0x80 << 56
            } else {
                0x80 << 120
            };
            reduce128(poly128(key.k128, self.y128, last))
        }
    }
}

impl Zeroize for L2State {
    fn zeroize(&mut self) {
        self.y64.zeroize();
        self.y128.zeroize();
        self.words.zeroize();
        self.held.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Naive modular arithmetic on u128 limbs for the 64-bit prime.
    fn naive64(a: u64, b: u64, c: u64) -> u64 {
        let p = P64 as u128;
        (((a as u128 * b as u128) % p + c as u128 % p) % p) as u64
    }

    #[test]
    fn mul_add64_matches_naive() {
        let mut x = 0x0123_4567_89ab_cdefu64;
        let edge = [0, 1, 58, 59, 60, P64 - 1, P64, P64 + 1, u64::MAX];
        for i in 0..20_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let a = (x >> 7) & 0x01ff_ffff_01ff_ffff;
            let b = if i < 81 {
                edge[i % 9]
            } else {
                x.rotate_left(17)
            };
            let c = if i < 81 {
                edge[i / 9]
            } else {
                x.rotate_left(31)
            };
            assert_eq!(
                reduce64(mul_add64(a, b, c)),
                naive64(a, b, c),
                "{a} {b} {c}"
            );
            assert_eq!(
                reduce64(mul_add64(b, c, a)),
                naive64(b, c, a),
                "{b} {c} {a}"
            );
        }
    }

    #[test]
    fn poly64_marker_case_is_two_steps() {
        let key = L2Key::new(&[0x5a; 24]);
        let p = P64 as u128;
        for (y, m) in [
            (1u64, u64::MAX),
            (P64 - 1, 0xffff_ffff_0000_0000),
            (12345, 0xffff_ffff_1234_5678),
            (u64::MAX, P64),
        ] {
            let k = key.k64 as u128;
            let t = (k * (y as u128 % p) + (p - 1)) % p;
            let want = ((k * t) % p + (m as u128 - 59)) % p;
            assert_eq!(reduce64(poly64(&key, y, m)) as u128, want);
        }
    }

    /// Schoolbook 256-bit reduction, slow and obvious.
    fn naive128(a: u128, b: u128, c: u128) -> u128 {
        // Double-and-add modulo p, on values below p.
        let p = P128;
        let add = |x: u128, y: u128| {
            let (s, carry) = x.overflowing_add(y);
            if carry || s >= p {
                s.wrapping_sub(p)
            } else {
                s
            }
        };
        let (a, b, c) = (a % p, b % p, c % p);
        let mut r = 0u128;
        for i in (0..128).rev() {
            r = add(r, r);
            if (b >> i) & 1 == 1 {
                r = add(r, a);
            }
        }
        add(r, c)
    }

    #[test]
    fn mul_add128_matches_naive() {
        let mut x = 0x0123_4567_89ab_cdefu64;
        let mut next = || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            x
        };
        let edge = [0, 1, 158, 159, 160, P128 - 1, P128, P128 + 1, u128::MAX];
        for i in 0..3_000 {
            let a = ((next() as u128) << 64 | next() as u128)
                & 0x01ff_ffff_01ff_ffff_01ff_ffff_01ff_ffff;
            let r = (next() as u128) << 64 | next() as u128;
            let s = (next() as u128) << 64 | next() as u128;
            let (b, c) = if i < 81 {
                (edge[i % 9], edge[i / 9])
            } else {
                (r, s)
            };
            assert_eq!(reduce128(mul_add128(a, b, c)), naive128(a, b, c));
        }
    }
}
