//! The multi-stream job manager against single-stream MD5: random pieces per
//! stream, streams that start and end at different times, more streams than
//! lanes, and 64-bit lengths.

use crate::support::Rng;
use linerate::md5::reference;
use linerate::{Md5, Md5Manager, StreamId};

fn managers() -> Vec<Md5Manager> {
    crate::support::lanes_backends()
        .into_iter()
        .map(Md5Manager::with_lanes)
        .collect()
}

#[test]
fn streams_fed_random_pieces_in_batches() {
    let mut rng = Rng::new(300);
    for mut m in managers() {
        let n = m.capacity();
        let messages: Vec<Vec<u8>> = (0..n)
            .map(|_| {
                let len = rng.below(20_000);
                rng.bytes(len)
            })
            .collect();
        let ids: Vec<StreamId> = (0..n).map(|_| m.open().unwrap()).collect();
        assert!(m.open().is_none(), "all lanes busy");
        let mut offsets = vec![0usize; n];
        loop {
            let mut batch = Vec::new();
            for (i, id) in ids.iter().enumerate() {
                let left = messages[i].len() - offsets[i];
                if left == 0 || rng.below(4) == 0 {
                    continue;
                }
                let take = match rng.below(3) {
                    0 => rng.below(70),
                    _ => rng.below(3000),
                }
                .min(left);
                batch.push((id, &messages[i][offsets[i]..offsets[i] + take]));
                offsets[i] += take;
            }
            if offsets
                .iter()
                .zip(&messages)
                .all(|(o, msg)| *o == msg.len())
            {
                m.submit(&batch);
                break;
            }
            m.submit(&batch);
        }
        for (i, id) in ids.into_iter().enumerate() {
            assert_eq!(m.len(&id), messages[i].len() as u64);
            assert_eq!(m.finish(id), reference::md5(&messages[i]), "stream {i}");
        }
        assert_eq!(m.open_streams(), 0);
    }
}

#[test]
fn more_streams_than_lanes_and_repeated_ids_in_a_batch() {
    let mut rng = Rng::new(301);
    for mut m in managers() {
        let mut open: Vec<(StreamId, Vec<u8>)> = Vec::new();
        let mut done = 0;
        while done < 3 * m.capacity() {
            while let Some(id) = m.open() {
                open.push((id, Vec::new()));
            }
            // Two pieces for the first stream in one batch, one for the rest.
            let pieces: Vec<Vec<u8>> = (0..open.len() + 1)
                .map(|_| {
                    let len = rng.below(300);
                    rng.bytes(len)
                })
                .collect();
            let mut batch = vec![(&open[0].0, &pieces[0][..])];
            for (i, (id, _)) in open.iter().enumerate() {
                batch.push((id, &pieces[i + 1][..]));
            }
            m.submit(&batch);
            open[0].1.extend_from_slice(&pieces[0]);
            for (i, (_, msg)) in open.iter_mut().enumerate() {
                msg.extend_from_slice(&pieces[i + 1]);
            }
            // Finish a random stream; its lane is reused by the next open.
            let (id, msg) = open.swap_remove(rng.below(open.len()));
            assert_eq!(m.finish(id), reference::md5(&msg));
            done += 1;
        }
    }
}

#[test]
fn lengths_past_4_gib_and_the_2_pow_64_wrap() {
    let mut rng = Rng::new(302);
    for mut m in managers() {
        for skipped in [1u64 << 26, (1 << 26) + 3, 1 << 55] {
            let len = rng.below(130).max(1);
            let tail = rng.bytes(len);
            let id = m.open().unwrap();
            m.__skip_blocks_for_test(&id, skipped);
            m.update(&id, &tail);
            let mut h = Md5::new();
            h.__skip_blocks_for_test(skipped);
            h.update(&tail);
            assert_eq!(m.finish(id), h.finalize(), "{skipped} blocks skipped");
        }
    }
}
