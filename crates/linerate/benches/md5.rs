//! MD5 throughput per backend at 64 B, 1 KiB, 16 KiB and 1 MiB.
//!
//! `cargo bench -p linerate --bench md5`; narrow with a filter, e.g.
//! `cargo bench -p linerate --bench md5 -- avx512/16384`. One-shot hashing
//! of a whole message, so the small sizes include the padding block.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use linerate::md5::{Md5, Md5Backend};
use std::hint::black_box;

const SIZES: [usize; 4] = [64, 1024, 16 * 1024, 1 << 20];

fn md5_by_backend(c: &mut Criterion) {
    let data: Vec<u8> = (0..*SIZES.iter().max().unwrap())
        .map(|i| (i * 7 + 3) as u8)
        .collect();
    for backend in Md5Backend::supported().filter(|b| *b != Md5Backend::Reference) {
        let mut group = c.benchmark_group(format!("md5/{backend}"));
        for size in SIZES {
            group.throughput(Throughput::Bytes(size as u64));
            group.bench_with_input(BenchmarkId::from_parameter(size), &size, |b, &size| {
                let base = Md5::with_backend(backend).unwrap();
                b.iter(|| {
                    let mut h = base.clone();
                    h.update(black_box(&data[..size]));
                    h.finalize()
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, md5_by_backend);
criterion_main!(benches);
