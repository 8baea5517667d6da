//! `md5_many` over many short rows, against a loop of single-stream MD5.
//!
//! `cargo bench -p linerate --bench many`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

fn rows(c: &mut Criterion) {
    for (count, len) in [(1_000_000usize, 64usize), (100_000, 1000)] {
        let data: Vec<u8> = (0..count * len).map(|i| (i * 31 + 7) as u8).collect();
        let messages: Vec<&[u8]> = data.chunks(len).collect();
        let mut out = vec![[0u8; 16]; count];
        let mut group = c.benchmark_group(format!("many/{count}x{len}"));
        group.throughput(Throughput::Elements(count as u64));
        group.sample_size(10);
        group.bench_function("md5_many", |b| {
            b.iter(|| linerate::md5_many_into(black_box(&messages), &mut out))
        });
        group.bench_function("md5 loop", |b| {
            b.iter(|| {
                for (m, o) in messages.iter().zip(out.iter_mut()) {
                    *o = linerate::md5(black_box(m));
                }
            })
        });
        group.finish();
    }
}

criterion_group!(benches, rows);
criterion_main!(benches);
