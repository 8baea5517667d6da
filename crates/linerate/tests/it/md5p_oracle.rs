//! MD5-P/K against the spec's definition (the oracle in `md5p_common`, on
//! the md-5 crate) for K from 4 to 256: every length class around block and
//! stripe boundaries, unaligned input, any split of the input across
//! `update` calls, every lanes backend, and the threaded path.

use crate::support::Rng;
use crate::support::{lanes_backends, md5p_on, md5p_split, oracle};
use linerate::lanes::Lanes;
use linerate::md5p::Md5p;
use std::collections::BTreeSet;

const KS: [usize; 10] = [4, 8, 12, 16, 20, 32, 36, 64, 128, 256];

/// Message lengths in `0..=3 * K * 64` that hit every kind of boundary:
/// each block boundary +-1 (all of them for K <= 20, a sample for larger K),
/// block offsets 55 and 56 (one padding block or two), each stripe boundary
/// +-1 and +-one block, and a few random lengths.
fn lengths(k: usize, rng: &mut Rng) -> Vec<usize> {
    let stripe = k * 64;
    let max = 3 * stripe;
    let mut blocks: Vec<usize> = if k <= 20 {
        (0..=3 * k).collect()
    } else {
        vec![1, 2, k / 2, k - 1, k + 1, 3 * k / 2, 2 * k - 1, 3 * k - 1]
    };
    blocks.extend((0..4).map(|_| rng.below(3 * k)));
    let mut set = BTreeSet::from([0, 1, 2, 3, max]);
    for b in blocks {
        for at in [b * 64, b * 64 + 55, b * 64 + 56] {
            set.extend([at.saturating_sub(1), at, at + 1]);
        }
    }
    for s in 0..=3 {
        for d in [-65isize, -64, -63, -1, 0, 1, 63, 64, 65] {
            set.insert((s * stripe).saturating_add_signed(d));
        }
    }
    set.extend((0..6).map(|_| rng.below(max + 1)));
    set.into_iter().filter(|&l| l <= max).collect()
}

#[test]
fn every_k_every_boundary_every_backend() {
    let backends = lanes_backends();
    for k in KS {
        let mut rng = Rng::new(1000 + k as u64);
        let buf = rng.bytes(3 * k * 64 + 64);
        for len in lengths(k, &mut rng) {
            // A random start makes the input unaligned (and varies it).
            let start = rng.below(64);
            let data = &buf[start..start + len];
            let want = oracle(k, data);
            for &lanes in &backends {
                assert_eq!(
                    md5p_on(lanes, k, data),
                    want,
                    "{}: K={k}, {len} bytes at offset {start}",
                    lanes.backend()
                );
            }
        }
    }
}

#[test]
fn every_split_point_for_small_messages() {
    let backends = lanes_backends();
    for k in [4, 8] {
        let mut rng = Rng::new(2000 + k as u64);
        let data = rng.bytes(2 * k * 64 + 37);
        let want = oracle(k, &data);
        for &lanes in &backends {
            for cut in 0..=data.len() {
                assert_eq!(
                    md5p_split(lanes, k, &data, &[cut]),
                    want,
                    "{}: K={k}, split at {cut}",
                    lanes.backend()
                );
            }
            for _ in 0..100 {
                let mut cuts = [rng.below(data.len() + 1), rng.below(data.len() + 1)];
                cuts.sort();
                assert_eq!(
                    md5p_split(lanes, k, &data, &cuts),
                    want,
                    "{}: K={k}, cuts {cuts:?}",
                    lanes.backend()
                );
            }
        }
    }
}

/// Sorted cut points for `len` bytes: mostly short chunks (byte-sized to
/// a couple of blocks), sometimes long ones (up to two stripes).
fn random_cuts(rng: &mut Rng, len: usize, stripe: usize) -> Vec<usize> {
    let mut cuts = Vec::new();
    let mut at = 0;
    loop {
        at += match rng.below(4) {
            0 => 1 + rng.below(8),
            1 | 2 => 1 + rng.below(150),
            _ => 1 + rng.below(2 * stripe),
        };
        if at >= len {
            return cuts;
        }
        cuts.push(at);
    }
}

#[test]
fn random_chunkings_for_every_k_and_backend() {
    let backends = lanes_backends();
    for k in KS {
        let stripe = k * 64;
        let mut rng = Rng::new(3000 + k as u64);
        for _ in 0..2 {
            let len = 2 * stripe + rng.below(stripe);
            let data = rng.bytes(len);
            let want = oracle(k, &data);
            for &lanes in &backends {
                for _ in 0..3 {
                    let cuts = random_cuts(&mut rng, len, stripe);
                    assert_eq!(
                        md5p_split(lanes, k, &data, &cuts),
                        want,
                        "{}: K={k}, {len} bytes cut at {cuts:?}",
                        lanes.backend()
                    );
                }
            }
        }
    }
}

#[test]
fn clones_share_a_prefix_and_reset_starts_over() {
    let mut rng = Rng::new(4000);
    for k in [4, 16, 36] {
        let prefix = rng.bytes(k * 64 + 100);
        let (a, b) = (rng.bytes(300), rng.bytes(k * 64 * 2 + 1));
        let mut h = Md5p::new(k).unwrap();
        h.update(&prefix);
        let mut h2 = h.clone();
        h.update(&a);
        h2.update(&b);
        assert_eq!(h.finalize_reset(), oracle(k, &[&prefix[..], &a].concat()));
        assert_eq!(h2.finalize(), oracle(k, &[&prefix[..], &b].concat()));
        // After finalize_reset, the same hasher hashes a new message.
        h.update(&a);
        assert_eq!(h.clone().finalize(), oracle(k, &a));
        h.reset();
        assert_eq!(h.finalize(), oracle(k, b""));
    }
}

#[test]
fn threaded_groups_match_the_oracle_on_every_backend() {
    let mut rng = Rng::new(5000);
    for k in [32, 36, 64, 128, 256] {
        let stripe = k * 64;
        let data = rng.bytes(3 * stripe + 100);
        let want = oracle(k, &data);
        for lanes in lanes_backends() {
            // Threshold 0: every update with a whole stripe runs on threads.
            let mut h = Md5p::with_lanes(k, lanes).unwrap();
            h.__set_parallel_min_bytes(0);
            h.update(&data[..7]);
            h.update(&data[7..]);
            assert_eq!(h.finalize(), want, "{}: K={k}", lanes.backend());
        }
    }
}

/// Beyond the real threshold (8 MiB in one update) for K = 32 and 64:
/// the same digest as updates too small for threads, and as the oracle.
#[test]
fn a_large_update_on_threads_matches_single_threaded() {
    let mut rng = Rng::new(6000);
    let data = rng.bytes((8 << 20) + 4096 + 77);
    for k in [32, 64] {
        let lanes = Lanes::active();
        let threaded = md5p_on(lanes, k, &data);
        let mut single = Md5p::with_lanes(k, lanes).unwrap();
        for chunk in data.chunks((1 << 20) - 13) {
            single.update(chunk);
        }
        assert_eq!(threaded, single.finalize(), "K={k}");
        assert_eq!(threaded, oracle(k, &data), "K={k}");
    }
}
