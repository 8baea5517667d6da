//! Chain lengths past 2^32 bytes and past 2^64 bits, without hashing them:
//! `__skip_stripes_for_test` moves only MD5-P/K's stripe counter, and the
//! oracle moves each chain's MD5 length counter the same way
//! (`Md5::__skip_blocks_for_test`), so both sides hash the same fictitious
//! message: unchanged chaining values, a long length field.

use crate::support::Rng;
use linerate::Md5;
use linerate::md5p::Md5p;

/// MD5-P/K of "`stripes` skipped stripes, then `tail`" by the definition:
/// chain `j` skipped `stripes` blocks, then absorbs its blocks of `tail`.
fn expected_after_skip(k: usize, stripes: u64, tail: &[u8]) -> [u8; 16] {
    let mut chains: Vec<Md5> = (0..k)
        .map(|_| {
            let mut h = Md5::new();
            h.__skip_blocks_for_test(stripes);
            h
        })
        .collect();
    for (i, block) in tail.chunks(64).enumerate() {
        chains[i % k].update(block);
    }
    let mut last = Md5::new();
    for chain in chains {
        last.update(chain.finalize());
    }
    last.finalize()
}

#[test]
fn chain_length_fields_past_4_gib_and_the_2_pow_64_bit_wrap() {
    let mut rng = Rng::new(7000);
    // 2^26 stripes: every chain is 2^32 bytes long; 2^55 stripes: 2^64 bits,
    // wrapped to 0 plus the tail; the last is close below the wrap.
    for stripes in [(1u64 << 26) + 3, (1 << 55) + 5, (1 << 55) - 1] {
        for k in [4, 16, 64] {
            for tail_len in [0, 1, 55, 56, 64, 65, 3 * 64 + 10, k * 64 - 1] {
                let tail = rng.bytes(tail_len);
                let mut h = Md5p::new(k).unwrap();
                h.__skip_stripes_for_test(stripes);
                h.update(&tail);
                assert_eq!(
                    h.finalize(),
                    expected_after_skip(k, stripes, &tail),
                    "K={k}, {stripes} stripes skipped, tail {tail_len}"
                );
            }
        }
    }
}

#[test]
fn the_skip_hook_changes_the_digest() {
    // Guards the test above: a length field that did not count skipped
    // stripes would pass it only if skipping changed nothing.
    let mut h = Md5p::new(4).unwrap();
    h.__skip_stripes_for_test(1 << 26);
    assert_ne!(h.finalize(), linerate::md5p(4, b"").unwrap());
}
