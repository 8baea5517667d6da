//! The 64-bit length field: messages of 2^32 bytes and more, and the wrap of
//! the bit count at 2^64 (messages of 2^61 bytes and more).

use crate::support::{Rng, md5_backends as backends};
use linerate::md5::{Md5, reference};

/// What MD5 must produce after `skipped` blocks that left the chaining value
/// at its initial value, followed by `tail`: the RFC's padding with the bit
/// count `(skipped * 64 + tail.len()) * 8 mod 2^64`, built here by hand.
fn expected_after_skip(skipped: u64, tail: &[u8]) -> [u8; 16] {
    let bits = skipped
        .wrapping_mul(64)
        .wrapping_add(tail.len() as u64)
        .wrapping_mul(8);
    let mut padded = tail.to_vec();
    padded.push(0x80);
    while padded.len() % 64 != 56 {
        padded.push(0);
    }
    padded.extend_from_slice(&bits.to_le_bytes());
    let mut state = reference::INIT;
    for block in padded.chunks_exact(64) {
        reference::compress_block(&mut state, block.try_into().unwrap());
    }
    let mut out = [0u8; 16];
    for (chunk, word) in out.chunks_exact_mut(4).zip(state) {
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    out
}

fn digest_after_skip(backend: linerate::md5::Md5Backend, skipped: u64, tail: &[u8]) -> [u8; 16] {
    let mut h = Md5::with_backend(backend).unwrap();
    h.__skip_blocks_for_test(skipped);
    h.update(tail);
    h.finalize()
}

#[test]
fn length_field_past_4_gib() {
    let mut rng = Rng::new(10);
    for backend in backends() {
        // 2^32 bytes is 2^26 blocks; go just past it, and far past it.
        for skipped in [1u64 << 26, (1 << 26) + 1, (1 << 26) * 3 + 7, 1 << 40] {
            for tail_len in [0usize, 1, 55, 56, 64, 100] {
                let tail = rng.bytes(tail_len);
                assert_eq!(
                    digest_after_skip(backend, skipped, &tail),
                    expected_after_skip(skipped, &tail),
                    "{backend}: {skipped} blocks + {tail_len} bytes"
                );
            }
        }
    }
}

#[test]
fn bit_count_wraps_at_2_pow_64() {
    let mut rng = Rng::new(11);
    for backend in backends() {
        for tail_len in [0usize, 3, 56, 200] {
            let tail = rng.bytes(tail_len);
            // 2^55 blocks are 2^61 bytes, 2^64 bits: the count wraps to the
            // tail's own, so the digest is that of the tail alone.
            assert_eq!(
                digest_after_skip(backend, 1 << 55, &tail),
                reference::md5(&tail),
                "{backend}: wrap at 2^61 bytes, tail {tail_len}"
            );
            // One block short of the wrap, the count is 2^64 - 512 + tail bits.
            let skipped = (1u64 << 55) - 1;
            assert_eq!(
                digest_after_skip(backend, skipped, &tail),
                expected_after_skip(skipped, &tail),
                "{backend}: just below the wrap, tail {tail_len}"
            );
        }
    }
}

/// A real message longer than 2^32 bytes, against an independent
/// implementation (RustCrypto's `md-5`). About 4 GiB through each.
#[test]
fn a_message_of_4_gib_plus_1000_bytes_matches_md5_crate() {
    use md5_crate::Digest as _;
    let chunk = Rng::new(12).bytes(1 << 20);
    let total: u64 = (1 << 32) + 1000;
    let mut ours = Md5::new();
    let mut theirs = md5_crate::Md5::new();
    let mut left = total;
    while left > 0 {
        let n = left.min(chunk.len() as u64) as usize;
        ours.update(&chunk[..n]);
        theirs.update(&chunk[..n]);
        left -= n as u64;
    }
    let theirs: [u8; 16] = theirs.finalize().into();
    assert_eq!(ours.finalize(), theirs);
}
