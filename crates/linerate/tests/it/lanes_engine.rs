//! Every lanes backend against the reference compression: random chaining
//! values, random data, lane counts up to each backend's width, several
//! block counts and strides, and lanes refilled as their messages run out.

use crate::support::Rng;
use linerate::lanes::{IDLE_BLOCK, LaneState, MAX_LANES};
use linerate::md5::reference;

use crate::support::lanes_backends;

#[test]
fn every_backend_matches_the_reference_per_lane() {
    let mut rng = Rng::new(100);
    for lanes in lanes_backends() {
        let counts = [1usize, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32];
        for active in counts.into_iter().filter(|&n| n <= lanes.width()) {
            for (nblocks, stride) in [(1usize, 64usize), (3, 64), (5, 128), (2, 1024), (4, 100)] {
                let data: Vec<Vec<u8>> = (0..active)
                    .map(|_| rng.bytes((nblocks - 1) * stride + 64))
                    .collect();
                let mut state = LaneState::new();
                let mut want = Vec::new();
                for (lane, lane_data) in data.iter().enumerate() {
                    let init = [0; 4].map(|_| rng.next_u64() as u32);
                    state.set(lane, init);
                    let mut chain = init;
                    for k in 0..nblocks {
                        let block = lane_data[k * stride..k * stride + 64].try_into().unwrap();
                        reference::compress_block(&mut chain, block);
                    }
                    want.push(chain);
                }
                let slices: Vec<&[u8]> = data.iter().map(|d| &d[..]).collect();
                lanes.compress(&mut state, &slices, nblocks, stride);
                for (lane, want) in want.iter().enumerate() {
                    assert_eq!(
                        state.get(lane),
                        *want,
                        "{}: lane {lane} of {active}, {nblocks} blocks, stride {stride}",
                        lanes.backend()
                    );
                }
            }
        }
    }
}

/// Calls of 1 MiB and more, where a backend may take its data to come from
/// memory and run another loop (AVX-512's prefetching one): 9, 16, 17 and
/// 32 lanes of 128 KiB each, 4 KiB apart within one buffer.
#[test]
fn long_calls_match_the_reference_per_lane() {
    let mut rng = Rng::new(103);
    let nblocks = 2048;
    let data = rng.bytes((MAX_LANES + nblocks) * 64 * 4);
    for lanes in lanes_backends() {
        for active in [9usize, 16, 17, 32]
            .into_iter()
            .filter(|&n| n <= lanes.width())
        {
            let mut state = LaneState::new();
            let slices: Vec<&[u8]> = (0..active).map(|lane| &data[lane * 4096..]).collect();
            lanes.compress(&mut state, &slices, nblocks, 64);
            for (lane, slice) in slices.iter().enumerate() {
                let mut chain = reference::INIT;
                for block in slice[..nblocks * 64].chunks_exact(64) {
                    reference::compress_block(&mut chain, block.try_into().unwrap());
                }
                assert_eq!(
                    state.get(lane),
                    chain,
                    "{}: lane {lane} of {active}",
                    lanes.backend()
                );
            }
        }
    }
}

#[test]
fn compress_refuses_more_lanes_than_the_width() {
    for lanes in lanes_backends() {
        let width = lanes.width();
        let block = [0u8; 64];
        let slices = vec![&block[..]; width + 1];
        let result = std::panic::catch_unwind(|| {
            lanes.compress(&mut LaneState::new(), &slices, 1, 64);
        });
        assert!(
            result.is_err(),
            "{}: {} lanes accepted",
            lanes.backend(),
            width + 1
        );
    }
}

#[test]
fn raw_kernel_advances_pointers_by_each_lanes_stride() {
    let mut rng = Rng::new(101);
    let buf = rng.bytes(64 * 400);
    for lanes in lanes_backends() {
        let width = lanes.width();
        let mut ptrs = [buf.as_ptr(); MAX_LANES];
        let mut strides = [0usize; MAX_LANES];
        for lane in 0..MAX_LANES {
            ptrs[lane] = buf[lane * 64..].as_ptr();
            strides[lane] = 64 * (lane % 5);
        }
        let start = ptrs;
        let mut state = LaneState::new();
        let marker = [1, 2, 3, 4];
        for lane in width..MAX_LANES {
            state.set(lane, marker);
        }
        // SAFETY: lane i reads blocks at 64 i + 64 (i mod 5) k for k < 3: at
        // most 64 * (31 + 8) + 64 bytes into a 25,600-byte buffer.
        unsafe { lanes.compress_raw(&mut state, &mut ptrs, &strides, 3, width) };
        for lane in 0..width {
            assert_eq!(
                ptrs[lane],
                start[lane].wrapping_add(3 * strides[lane]),
                "{}",
                lanes.backend()
            );
            let mut chain = reference::INIT;
            for k in 0..3 {
                let off = lane * 64 + k * strides[lane];
                reference::compress_block(&mut chain, buf[off..off + 64].try_into().unwrap());
            }
            assert_eq!(state.get(lane), chain, "{}: lane {lane}", lanes.backend());
        }
        // Lanes past the width are not touched.
        for lane in width..MAX_LANES {
            assert_eq!(ptrs[lane], start[lane], "{}: lane {lane}", lanes.backend());
            assert_eq!(state.get(lane), marker, "{}: lane {lane}", lanes.backend());
        }
    }
}

/// What a job manager does: every lane works through a queue of messages of
/// random lengths (0 to 3,000 bytes, so they end at different blocks),
/// taking the next one as its message runs out; the engine runs stretches
/// of random length no longer than the shortest busy lane's remainder, lanes
/// that have nothing left read the idle block, and `active` shrinks to the
/// last busy lane as the queue drains.
#[test]
fn lanes_refilled_as_messages_end_match_the_reference() {
    let mut rng = Rng::new(102);
    for lanes in lanes_backends() {
        let width = lanes.width();
        let messages: Vec<Vec<u8>> = (0..3 * width)
            .map(|_| {
                let len = rng.below(3001);
                rng.bytes(len)
            })
            .collect();
        let inits: Vec<[u32; 4]> = messages
            .iter()
            .map(|_| [0; 4].map(|_| rng.next_u64() as u32))
            .collect();
        let mut want = Vec::new();
        for (m, init) in messages.iter().zip(&inits) {
            let mut chain = *init;
            for block in m.chunks_exact(64) {
                reference::compress_block(&mut chain, block.try_into().unwrap());
            }
            want.push(chain);
        }

        let mut got: Vec<Option<[u32; 4]>> = vec![None; messages.len()];
        let mut next = 0;
        // Per lane: (message, whole blocks done) or idle.
        let mut job: Vec<Option<(usize, usize)>> = vec![None; width];
        let mut state = LaneState::new();
        let mut ptrs = [IDLE_BLOCK.as_ptr(); MAX_LANES];
        let mut strides = [0usize; MAX_LANES];
        let mut calls = 0;
        loop {
            // Retire finished messages; refill from the queue.
            for lane in 0..width {
                loop {
                    if let Some((m, done)) = job[lane] {
                        if done < messages[m].len() / 64 {
                            break;
                        }
                        got[m] = Some(state.get(lane));
                        job[lane] = None;
                    }
                    if next == messages.len() {
                        break;
                    }
                    state.set(lane, inits[next]);
                    job[lane] = Some((next, 0));
                    next += 1;
                }
                match job[lane] {
                    Some((m, done)) => {
                        ptrs[lane] = messages[m][64 * done..].as_ptr();
                        strides[lane] = 64;
                    }
                    None => {
                        ptrs[lane] = IDLE_BLOCK.as_ptr();
                        strides[lane] = 0;
                    }
                }
            }
            let Some(active) = (0..width).rev().find(|&l| job[l].is_some()).map(|l| l + 1) else {
                break;
            };
            let shortest = job
                .iter()
                .flatten()
                .map(|&(m, done)| messages[m].len() / 64 - done)
                .min()
                .unwrap();
            let nblocks = 1 + rng.below(shortest.min(9));
            // SAFETY: busy lanes point at a remainder of at least `nblocks`
            // whole blocks with stride 64; every other lane reads the idle
            // block with stride 0.
            unsafe { lanes.compress_raw(&mut state, &mut ptrs, &strides, nblocks, active) };
            calls += 1;
            for j in job.iter_mut().flatten() {
                j.1 += nblocks;
            }
        }
        assert!(calls > 10, "{}: only {calls} calls", lanes.backend());
        for (m, (got, want)) in got.iter().zip(&want).enumerate() {
            assert_eq!(
                got.as_ref(),
                Some(want),
                "{}: message {m} ({} bytes)",
                lanes.backend(),
                messages[m].len()
            );
        }
    }
}
