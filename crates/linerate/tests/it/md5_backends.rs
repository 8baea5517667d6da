//! Every backend against the RFC 1321 reference: every length up to 1100
//! bytes (all padding cases, 0 to 17 blocks), random splits over `update`,
//! unaligned slices, and multi-block calls of the raw compression function.

use crate::support::{Rng, md5_backends as backends, md5_on};
use linerate::md5::{Md5, Md5Backend, reference};

#[test]
fn every_length_to_1100_matches_the_reference() {
    let mut rng = Rng::new(1);
    let data = rng.bytes(1100);
    for backend in backends() {
        for len in 0..=1100 {
            assert_eq!(
                md5_on(backend, &data[..len]),
                reference::md5(&data[..len]),
                "{backend}, length {len}"
            );
        }
    }
}

#[test]
fn lengths_around_block_boundaries_up_to_64_blocks() {
    let mut rng = Rng::new(2);
    let data = rng.bytes(64 * 64 + 1);
    for backend in backends() {
        for blocks in 0..=64usize {
            for delta in [-9isize, -8, -1, 0, 1, 55, 56] {
                let Some(len) = (blocks * 64).checked_add_signed(delta) else {
                    continue;
                };
                if len > data.len() {
                    continue;
                }
                assert_eq!(
                    md5_on(backend, &data[..len]),
                    reference::md5(&data[..len]),
                    "{backend}, length {len}"
                );
            }
        }
    }
}

#[test]
fn every_split_point_of_a_message_gives_the_same_digest() {
    let mut rng = Rng::new(3);
    for backend in backends() {
        for len in [0usize, 1, 63, 64, 65, 127, 128, 200, 300] {
            let msg = rng.bytes(len);
            let want = reference::md5(&msg);
            for i in 0..=len {
                for j in i..=len {
                    let mut h = Md5::with_backend(backend).unwrap();
                    h.update(&msg[..i]);
                    h.update(&msg[i..j]);
                    h.update(&msg[j..]);
                    assert_eq!(h.finalize(), want, "{backend}, len {len}, splits {i} {j}");
                }
            }
        }
    }
}

#[test]
fn random_chunkings_of_long_messages() {
    let mut rng = Rng::new(4);
    for backend in backends() {
        for _ in 0..40 {
            let len = rng.below(20_000);
            let msg = rng.bytes(len);
            let want = reference::md5(&msg);
            let mut h = Md5::with_backend(backend).unwrap();
            let mut rest = &msg[..];
            while !rest.is_empty() {
                let n = match rng.below(4) {
                    0 => rng.below(8),
                    1 => rng.below(130),
                    _ => rng.below(5000),
                }
                .min(rest.len());
                h.update(&rest[..n]);
                rest = &rest[n..];
            }
            assert_eq!(h.finalize(), want, "{backend}, len {len}");
        }
    }
}

#[test]
fn unaligned_input_slices() {
    let mut rng = Rng::new(5);
    let buf = rng.bytes(4096 + 64);
    for backend in backends() {
        for offset in 0..64 {
            for len in [0usize, 1, 64, 65, 1000, 4096] {
                let msg = &buf[offset..offset + len];
                assert_eq!(
                    md5_on(backend, msg),
                    reference::md5(msg),
                    "{backend}, offset {offset}, len {len}"
                );
            }
        }
    }
}

#[test]
fn raw_compression_over_many_blocks_per_call() {
    let mut rng = Rng::new(6);
    for backend in backends() {
        let compress = backend.compress_fn().unwrap();
        for nblocks in [1usize, 2, 3, 7, 16, 100] {
            let blocks: Vec<[u8; 64]> = (0..nblocks)
                .map(|_| rng.bytes(64).try_into().unwrap())
                .collect();
            let init = [
                rng.next_u64() as u32,
                rng.next_u64() as u32,
                rng.next_u64() as u32,
                rng.next_u64() as u32,
            ];
            let mut want = init;
            for block in &blocks {
                reference::compress_block(&mut want, block);
            }
            let mut got = init;
            compress(&mut got, &blocks);
            assert_eq!(got, want, "{backend}, {nblocks} blocks");
            let mut unchanged = init;
            compress(&mut unchanged, &[]);
            assert_eq!(unchanged, init, "{backend}: no blocks, no change");
        }
    }
}

#[test]
fn agrees_with_the_md5_crate_on_random_data() {
    use md5_crate::Digest as _;
    let mut rng = Rng::new(7);
    for _ in 0..200 {
        let len = rng.below(70_000);
        let msg = rng.bytes(len);
        let theirs: [u8; 16] = md5_crate::Md5::digest(&msg).into();
        assert_eq!(linerate::md5(&msg), theirs, "len {len}");
    }
}

#[test]
fn backend_names_round_trip_and_the_active_one_is_supported() {
    for &b in Md5Backend::ALL {
        assert_eq!(
            Md5Backend::from_name(b.name()).ok(),
            b.is_supported().then_some(b)
        );
    }
    assert!(Md5Backend::from_name("sse9").is_err());
    assert!(Md5Backend::active().is_supported());
    assert!(Md5Backend::best().is_supported());
    assert_eq!(Md5::new().backend(), Md5Backend::active());
    for &b in Md5Backend::ALL {
        assert_eq!(Md5::with_backend(b).is_some(), b.is_supported(), "{b}");
    }
}

#[test]
fn clone_reuses_a_prefix_and_reset_starts_over() {
    let mut rng = Rng::new(8);
    let prefix = rng.bytes(1000);
    for backend in backends() {
        let mut base = Md5::with_backend(backend).unwrap();
        base.update(&prefix);
        for tail_len in [0usize, 1, 100, 5000] {
            let tail = rng.bytes(tail_len);
            let mut h = base.clone();
            h.update(&tail);
            assert_eq!(h.finalize(), reference::md5(&[&prefix[..], &tail].concat()));
        }
        let mut h = base.clone();
        assert_eq!(h.finalize_reset(), reference::md5(&prefix));
        h.update(b"abc");
        assert_eq!(h.clone().finalize(), reference::md5(b"abc"));
        h.reset();
        assert_eq!(h.backend(), backend);
        assert_eq!(h.finalize(), reference::md5(b""));
    }
}
