//! MD5-P/K throughput for K = 4, 8, 16, 32 at 1 MiB and 64 MiB, beside
//! single-stream MD5 on the same sizes (the ratio is MD5-P's point); and
//! K = 64 at 64 MiB with and without the threaded chain groups.
//!
//! `cargo bench -p linerate --bench md5p`; narrow with a filter, e.g.
//! `cargo bench -p linerate --bench md5p -- 1048576`. One-shot hashing on
//! the active backends (`LINERATE_LANES_BACKEND` forces the lanes one), so
//! the figures include padding and the final MD5. 64 MiB does not fit in
//! cache: those figures include memory bandwidth.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use linerate::md5p::Md5p;
use std::hint::black_box;
use std::time::Duration;

const SIZES: [usize; 2] = [1 << 20, 64 << 20];
const KS: [usize; 4] = [4, 8, 16, 32];

fn md5p_vs_md5(c: &mut Criterion) {
    let data: Vec<u8> = (0..*SIZES.iter().max().unwrap())
        .map(|i| (i * 7 + 3) as u8)
        .collect();
    for size in SIZES {
        let mut group = c.benchmark_group(format!("md5p/{size}"));
        group.throughput(Throughput::Bytes(size as u64));
        if size > 1 << 24 {
            group.sample_size(10);
            group.measurement_time(Duration::from_secs(8));
        }
        group.bench_function("md5", |b| {
            b.iter(|| linerate::md5(black_box(&data[..size])))
        });
        for k in KS {
            let base = Md5p::new(k).unwrap();
            group.bench_with_input(
                BenchmarkId::new(format!("k{k}"), base.backend()),
                &k,
                |b, _| {
                    b.iter(|| {
                        let mut h = base.clone();
                        h.update(black_box(&data[..size]));
                        h.finalize()
                    })
                },
            );
        }
        group.finish();
    }
}

/// K = 64 at 64 MiB: one update (its chain groups on threads where the
/// backend has several, e.g. two on AVX-512) against 4 MiB updates, which
/// stay below the threshold and so on one thread.
fn md5p_threads(c: &mut Criterion) {
    let size = 64 << 20;
    let data: Vec<u8> = (0..size).map(|i| (i * 7 + 3) as u8).collect();
    let mut group = c.benchmark_group(format!("md5p-threads/{size}"));
    group.throughput(Throughput::Bytes(size as u64));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(8));
    let base = Md5p::new(64).unwrap();
    for (name, chunk) in [("k64-one-update", size), ("k64-4MiB-updates", 4 << 20)] {
        group.bench_function(BenchmarkId::new(name, base.backend()), |b| {
            b.iter(|| {
                let mut h = base.clone();
                for part in black_box(&data[..]).chunks(chunk) {
                    h.update(part);
                }
                h.finalize()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, md5p_vs_md5, md5p_threads);
criterion_main!(benches);
