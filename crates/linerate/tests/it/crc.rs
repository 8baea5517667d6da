//! The CRCs against a bit-at-a-time reference written from their
//! definitions (reflected, all-ones start and final xor), on random data of
//! every length across the kernels' fold widths, split over updates at
//! random points, from unaligned slices; `combine` against the CRC of the
//! concatenation. The catalogue's check values are in crc.rs's doc test.

use linerate::crc::{Crc, CrcAlgorithm, combine, crc, to_be_bytes};

use crate::support::Rng;

/// The reflected polynomial of each CRC.
fn reflected_polynomial(algorithm: CrcAlgorithm) -> u64 {
    match algorithm {
        CrcAlgorithm::Crc32 => 0xedb8_8320,
        CrcAlgorithm::Crc32c => 0x82f6_3b78,
        CrcAlgorithm::Crc64Nvme => 0x9a6c_9329_ac4b_c9b5,
    }
}

/// The CRC one bit at a time.
fn reference(algorithm: CrcAlgorithm, data: &[u8]) -> u64 {
    let mask = if algorithm.width() == 8 {
        u64::MAX
    } else {
        u64::from(u32::MAX)
    };
    let poly = reflected_polynomial(algorithm);
    let mut state = mask;
    for &byte in data {
        state ^= u64::from(byte);
        for _ in 0..8 {
            state = if state & 1 == 1 {
                (state >> 1) ^ poly
            } else {
                state >> 1
            };
        }
    }
    state ^ mask
}

#[test]
fn every_length_and_split_matches_the_reference() {
    let mut rng = Rng::new(0xc4c);
    let data = rng.bytes(4096 + 64);
    for algorithm in CrcAlgorithm::ALL {
        for len in (0..=1100).chain([2047, 2048, 2049, 4095, 4096]) {
            for start in [0, 1, 7, 63] {
                let piece = &data[start..start + len];
                let want = reference(algorithm, piece);
                assert_eq!(crc(algorithm, piece), want, "{algorithm} {len} at {start}");
                // Streamed in random pieces.
                let mut c = Crc::new(algorithm);
                let mut rest = piece;
                while !rest.is_empty() {
                    let take = rng.below(rest.len() + 1);
                    c.update(&rest[..take]);
                    rest = &rest[take..];
                }
                assert_eq!(c.finalize(), want, "{algorithm} {len} streamed");
                assert_eq!(c.len(), len as u64);
            }
        }
    }
}

#[test]
fn combined_crcs_are_the_crc_of_the_concatenation() {
    let mut rng = Rng::new(0xc0b);
    for algorithm in CrcAlgorithm::ALL {
        for _ in 0..300 {
            let (len_a, len_b) = (rng.below(3000), rng.below(3000));
            let (a, b) = (rng.bytes(len_a), rng.bytes(len_b));
            let whole = [a.as_slice(), b.as_slice()].concat();
            let got = combine(
                algorithm,
                crc(algorithm, &a),
                crc(algorithm, &b),
                b.len() as u64,
            );
            assert_eq!(
                got,
                reference(algorithm, &whole),
                "{algorithm} {} + {}",
                a.len(),
                b.len()
            );
        }
    }
}

#[test]
fn values_are_written_big_endian_in_their_width() {
    assert_eq!(
        to_be_bytes(CrcAlgorithm::Crc32, 0x1234_5678),
        [0x12, 0x34, 0x56, 0x78]
    );
    assert_eq!(
        to_be_bytes(CrcAlgorithm::Crc64Nvme, 0x0102_0304_0506_0708),
        [1, 2, 3, 4, 5, 6, 7, 8]
    );
}
