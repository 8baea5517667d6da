//! The lanes engine per backend: `width()` lanes of 1 MiB each (one call,
//! 16,384 blocks per lane) and of one 64-byte block each (one call per
//! block: the per-call cost, transposition and feed-forward included).
//! Throughput is the bytes all lanes absorb.
//!
//! `cargo bench -p linerate --bench lanes`; narrow with a filter, e.g.
//! `cargo bench -p linerate --bench lanes -- avx2/1048576`. Each group
//! prints the core clock (`linerate::clock::core_hz`) before and after it,
//! to turn GB/s into cycles/byte: `cycles/byte = Hz / (bytes/s)`.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use linerate::lanes::{LaneState, Lanes, LanesBackend};
use std::hint::black_box;

const SIZES: [usize; 2] = [64, 1 << 20];

fn lanes_by_backend(c: &mut Criterion) {
    for backend in LanesBackend::supported() {
        let Some(lanes) = Lanes::new(backend) else {
            continue;
        };
        let width = lanes.width();
        // Distinct data per lane, so no lane shares cache lines with another.
        let data: Vec<Vec<u8>> = (0..width)
            .map(|lane| {
                (0..SIZES[1])
                    .map(|i| (i * 7 + lane * 13 + 3) as u8)
                    .collect()
            })
            .collect();
        let ghz = || linerate::clock::core_hz().map_or(f64::NAN, |hz| hz / 1e9);
        eprintln!("lanes/{backend}: core clock before {:.2} GHz", ghz());
        let mut group = c.benchmark_group(format!("lanes/{backend}"));
        for size in SIZES {
            group.throughput(Throughput::Bytes((width * size) as u64));
            group.bench_with_input(BenchmarkId::from_parameter(size), &size, |b, &size| {
                let slices: Vec<&[u8]> = data.iter().map(|d| &d[..size]).collect();
                let mut state = LaneState::new();
                b.iter(|| {
                    lanes.compress(&mut state, black_box(&slices), size / 64, 64);
                    black_box(&state);
                })
            });
        }
        group.finish();
        eprintln!("lanes/{backend}: core clock after {:.2} GHz", ghz());
    }
}

criterion_group!(benches, lanes_by_backend);
criterion_main!(benches);
