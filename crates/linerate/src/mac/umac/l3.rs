//! L3-HASH (RFC 4418 section 5.4): an inner product mod 2^36 - 5 of the
//! 16-byte L2 result, taken as eight big-endian 16-bit words, with the
//! stream's eight key words; its low 32 bits xor the stream's second key.

use super::kdf::P36;

/// L3-HASH of `b` (the 16-byte L2 output as a big-endian integer) under
/// the stream's keys `k1` (each below 2^36 - 5) and `k2`.
#[inline(always)]
pub(super) fn l3(k1: &[u64; 8], k2: u32, b: u128) -> u32 {
    // Each term is below 2^52, the sum of eight below 2^55.
    let mut y = 0u64;
    for (i, k) in k1.iter().enumerate() {
        let m = (b >> (112 - 16 * i)) as u16 as u64;
        y += m * k;
    }
    finish(y, k2)
}

/// L3-HASH of a `b` whose high 64 bits are zero (every message under 2^24
/// bytes): the first four terms vanish.
#[inline(always)]
pub(super) fn l3_64(k1: &[u64; 8], k2: u32, b: u64) -> u32 {
    let y = (b >> 48) * k1[4]
        + (b >> 32 & 0xffff) * k1[5]
        + (b >> 16 & 0xffff) * k1[6]
        + (b & 0xffff) * k1[7];
    finish(y, k2)
}

#[inline(always)]
fn finish(y: u64, k2: u32) -> u32 {
    // 2^36 = 5 (mod p36): one fold leaves a value below 2^36 + 2^22, then
    // one conditional subtraction, by mask.
    let y = (y & ((1 << 36) - 1)) + 5 * (y >> 36);
    let (d, borrow) = y.overflowing_sub(P36);
    let keep = (borrow as u64).wrapping_neg();
    let y = (y & keep) | (d & !keep);
    (y as u32) ^ k2
}
