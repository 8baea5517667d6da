//! The Internet checksum (RFC 1071): the 16-bit ones' complement of the
//! ones' complement sum of the data's 16-bit big-endian words, an odd last
//! byte padded with a zero. IPv4's header checksum, and the integrity
//! check RFC 1810 weighs MD5 against.
//!
//! RFC 1071 section 2 gives the two properties the fast path rests on: the
//! ones' complement sum does not depend on byte order (sum the words in
//! the machine's order and swap the bytes of the result), and carries may
//! be deferred (add 32-bit pieces into a 64-bit accumulator and fold at
//! the end). The loop below is plain Rust that the compiler vectorises.
//!
//! ```
//! use linerate::checksum::{Checksum, internet_checksum};
//!
//! // RFC 1071 section 3's example: the sum of these bytes is 0xddf2.
//! let data = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
//! assert_eq!(internet_checksum(&data), !0xddf2);
//!
//! // Streaming, split anywhere (odd splits included).
//! let mut c = Checksum::new();
//! c.update(&data[..3]);
//! c.update(&data[3..]);
//! assert_eq!(c.sum(), 0xddf2);
//! ```

/// The checksum of `data`: the complement of [`ones_complement_sum`].
pub fn internet_checksum(data: &[u8]) -> u16 {
    !ones_complement_sum(data)
}

/// The 16-bit ones' complement sum of `data`'s big-endian words.
pub fn ones_complement_sum(data: &[u8]) -> u16 {
    let mut c = Checksum::new();
    c.update(data);
    c.sum()
}

/// A running Internet checksum over data given in pieces of any length.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Checksum {
    /// Deferred-carry sum of little-endian 32-bit pieces, at even offsets.
    acc: u64,
    /// Bytes absorbed so far (their parity says where the next one goes).
    len: u64,
}

/// Whole 32-bit pieces summed between folds: 2^32 of them could carry out
/// of the 64-bit accumulator, so fold well before.
const FOLD_EVERY: usize = 1 << 30;

impl Checksum {
    pub fn new() -> Checksum {
        Checksum::default()
    }

    /// Adds `data`, which follows everything added before.
    pub fn update(&mut self, mut data: &[u8]) {
        if data.is_empty() {
            return;
        }
        // After an odd number of bytes, the next byte is the low (second)
        // byte of a big-endian word: in little-endian order, bits 8..16.
        if self.len % 2 == 1 {
            self.acc += u64::from(data[0]) << 8;
            self.len += 1;
            data = &data[1..];
        }
        self.len += data.len() as u64;
        for piece in data.chunks(4 * FOLD_EVERY) {
            let (words, tail) = piece.split_at(piece.len() & !3);
            let sum: u64 = words
                .chunks_exact(4)
                .map(|w| u64::from(u32::from_le_bytes([w[0], w[1], w[2], w[3]])))
                .sum();
            self.acc = fold64(self.acc) + fold64(sum);
            // 0 to 3 bytes left, at an even offset.
            let mut last = [0u8; 4];
            last[..tail.len()].copy_from_slice(tail);
            self.acc += u64::from(u32::from_le_bytes(last));
        }
    }

    /// The ones' complement sum of everything added (RFC 1071's `sum`).
    pub fn sum(&self) -> u16 {
        let mut s = fold64(self.acc);
        while s > 0xffff {
            s = (s & 0xffff) + (s >> 16);
        }
        // Summed in little-endian order: swap to the big-endian words'.
        (s as u16).swap_bytes()
    }

    /// The checksum: the complement of [`sum`](Self::sum).
    pub fn finish(&self) -> u16 {
        !self.sum()
    }
}

/// Folds a 64-bit deferred-carry sum to at most 33 bits, keeping its value
/// mod 0xffff (2^16 = 1 in ones' complement arithmetic).
fn fold64(x: u64) -> u64 {
    let s = (x & 0xffff_ffff) + (x >> 32);
    (s & 0xffff_ffff) + (s >> 32)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 1071 as written: 16-bit big-endian words, end-around carry at
    /// every step.
    fn reference(data: &[u8]) -> u16 {
        let mut sum: u32 = 0;
        for pair in data.chunks(2) {
            let word = u32::from(u16::from_be_bytes([pair[0], *pair.get(1).unwrap_or(&0)]));
            sum += word;
            sum = (sum & 0xffff) + (sum >> 16);
        }
        sum as u16
    }

    fn bytes(seed: u64, n: usize) -> Vec<u8> {
        let mut x = seed | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect()
    }

    #[test]
    fn rfc1071_example() {
        let data = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        assert_eq!(ones_complement_sum(&data), 0xddf2);
        assert_eq!(internet_checksum(&data), 0x220d);
    }

    #[test]
    fn ipv4_header() {
        // A header whose checksum field holds 0xb861; summed with it, the
        // header adds up to 0xffff (RFC 1071: verification).
        let h = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xb8, 0x61, 0xc0, 0xa8,
            0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
        ];
        assert_eq!(ones_complement_sum(&h), 0xffff);
        let mut zeroed = h;
        zeroed[10..12].fill(0);
        assert_eq!(internet_checksum(&zeroed), 0xb861);
    }

    #[test]
    fn matches_reference_at_every_length_offset_and_split() {
        let data = bytes(7, 4200);
        for start in 0..4 {
            for len in (0..300).chain([1023, 1024, 1025, 4000, 4196 - start]) {
                let d = &data[start..start + len];
                let want = reference(d);
                assert_eq!(ones_complement_sum(d), want, "start {start} len {len}");
                for cut in [0, 1, 2, 3, len / 2, len.saturating_sub(1), len] {
                    let cut = cut.min(len);
                    let mut c = Checksum::new();
                    c.update(&d[..cut]);
                    c.update(&d[cut..]);
                    assert_eq!(c.sum(), want, "start {start} len {len} cut {cut}");
                }
            }
        }
    }

    #[test]
    fn many_odd_pieces() {
        let data = bytes(11, 10_000);
        let mut c = Checksum::new();
        let mut at = 0;
        for step in (1..).map(|i| 1 + (i * 7) % 13) {
            if at >= data.len() {
                break;
            }
            let end = (at + step).min(data.len());
            c.update(&data[at..end]);
            at = end;
        }
        assert_eq!(c.sum(), reference(&data));
    }

    #[test]
    fn all_ones_and_zero() {
        // Ones' complement has two zeros; the sum of nothing is +0.
        assert_eq!(ones_complement_sum(&[]), 0);
        assert_eq!(ones_complement_sum(&[0xff; 1000]), 0xffff);
        assert_eq!(reference(&[0xff; 1000]), 0xffff);
        assert_eq!(
            ones_complement_sum(&[0xff, 0xff, 0x00, 0x01]),
            reference(&[0xff, 0xff, 0x00, 0x01])
        );
    }
}
