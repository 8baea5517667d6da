//! Every lanes backend against the reference compression: random chaining
//! values, random data, every lane count, several block counts and strides.

mod common;

use common::Rng;
use linerate::lanes::{LaneState, Lanes, LanesBackend, MAX_LANES};
use linerate::md5::reference;

fn lanes_backends() -> Vec<Lanes> {
    for b in LanesBackend::ALL {
        if Lanes::new(b).is_none() {
            eprintln!("note: lanes backend {b} not available on this CPU/build; not tested here");
        }
    }
    LanesBackend::ALL
        .into_iter()
        .filter_map(Lanes::new)
        .collect()
}

#[test]
fn every_backend_matches_the_reference_per_lane() {
    let mut rng = Rng::new(100);
    for lanes in lanes_backends() {
        for active in [1usize, 3, 4, 8, 15, 16, 17, 31, 32] {
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

#[test]
fn raw_kernel_advances_pointers_by_each_lanes_stride() {
    let mut rng = Rng::new(101);
    let buf = rng.bytes(64 * 400);
    for lanes in lanes_backends() {
        let mut ptrs = [buf.as_ptr(); MAX_LANES];
        let mut strides = [0usize; MAX_LANES];
        for lane in 0..MAX_LANES {
            ptrs[lane] = buf[lane * 64..].as_ptr();
            strides[lane] = 64 * (lane % 5);
        }
        let start = ptrs;
        let mut state = LaneState::new();
        // SAFETY: lane i reads blocks at 64 i + 64 (i mod 5) k for k < 3: at
        // most 64 * (31 + 8) + 64 bytes into a 25,600-byte buffer.
        unsafe { lanes.compress_raw(&mut state, &mut ptrs, &strides, 3, MAX_LANES) };
        for lane in 0..MAX_LANES {
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
    }
}
