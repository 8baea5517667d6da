//! UMAC per-message cost at 64, 256, 1500, 8192 and 16384 bytes with a
//! reused key and sequential nonces (the OpenSSH pattern), per NH backend
//! for UMAC-64 and on the active backend for UMAC-32, -96 and -128; and key
//! setup (deriving every subkey from the 16-byte key) per tag length.
//!
//! `cargo bench -p linerate --bench umac`; narrow with a filter, e.g.
//! `cargo bench -p linerate --bench umac -- umac64/avx512/1500`.
//!
//! With `LINERATE_UMAC_TRIAL=BYTES:SIZE:MESSAGES` set the binary skips
//! criterion and runs one plain timed loop for `scripts/umac_vs_nettle.py`,
//! mirroring `tests/support/umac_nettle.c bench`: it prints
//! `linerate BYTES SIZE NS_PER_MESSAGE` (sequential 8-byte nonces, the
//! message 64-byte aligned), then `linerate-setup BYTES NS_PER_KEY`.

use criterion::{BenchmarkId, Criterion, Throughput};
use linerate::mac::umac::{NhBackend, TagBits, Umac};
use std::hint::black_box;
use std::time::Instant;

const SIZES: [usize; 5] = [64, 256, 1500, 8192, 16384];
const KEY: &[u8; 16] = b"abcdefghijklmnop";

fn message(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 + 3) as u8).collect()
}

fn name(bits: TagBits) -> String {
    format!("umac{}", bits.bits())
}

fn tags(c: &mut Criterion) {
    let data = message(*SIZES.iter().max().unwrap());
    let mut runs: Vec<(TagBits, NhBackend)> =
        NhBackend::supported().map(|b| (TagBits::B64, b)).collect();
    for bits in [TagBits::B32, TagBits::B96, TagBits::B128] {
        runs.push((bits, NhBackend::active()));
    }
    for (bits, backend) in runs {
        let mut group = c.benchmark_group(format!("{}/{backend}", name(bits)));
        for size in SIZES {
            group.throughput(Throughput::Bytes(size as u64));
            group.bench_with_input(BenchmarkId::from_parameter(size), &size, |b, &size| {
                let mut umac = Umac::with_backend(KEY, bits, backend).unwrap();
                let mut seqno = 0u64;
                b.iter(|| {
                    seqno += 1;
                    umac.tag_openssh(seqno, black_box(&data[..size]))
                })
            });
        }
        group.finish();
    }
}

fn key_setup(c: &mut Criterion) {
    let mut group = c.benchmark_group("umac-setup");
    for bits in TagBits::ALL {
        group.bench_function(BenchmarkId::new("rekey", name(bits)), |b| {
            let mut umac = Umac::new(KEY, bits);
            let mut key = *KEY;
            b.iter(|| {
                key[0] = key[0].wrapping_add(1);
                umac.rekey(black_box(&key));
            })
        });
        group.bench_function(BenchmarkId::new("new", name(bits)), |b| {
            b.iter(|| Umac::new(black_box(KEY), bits))
        });
    }
    group.finish();
}

/// One timed loop in the shape of the Nettle harness's `bench` mode.
fn trial(spec: &str) {
    let fields: Vec<usize> = spec
        .split(':')
        .map(|f| f.parse().expect("LINERATE_UMAC_TRIAL=BYTES:SIZE:MESSAGES"))
        .collect();
    let [bytes, size, messages] = fields[..] else {
        panic!("LINERATE_UMAC_TRIAL=BYTES:SIZE:MESSAGES");
    };
    let bits = TagBits::from_bits(8 * bytes).expect("BYTES is 4, 8, 12 or 16");
    // The message starts on a 64-byte boundary, as in the Nettle harness:
    // loads that straddle cache lines cost extra, and an allocator's choice
    // should not decide the comparison.
    let buf = message(size + 64);
    let start = (64 - buf.as_ptr() as usize % 64) % 64;
    let msg = &buf[start..start + size];
    let mut umac = Umac::new(KEY, bits);
    let mut sink = 0u8;
    let mut seqno = 0u64;
    for _ in 0..messages / 10 + 1 {
        sink ^= umac.tag_openssh(seqno, black_box(msg))[0];
        seqno += 1;
    }
    let start = Instant::now();
    for _ in 0..messages {
        sink ^= umac.tag_openssh(seqno, black_box(msg))[0];
        seqno += 1;
    }
    let ns = start.elapsed().as_nanos() as f64 / messages as f64;
    println!("linerate {bytes} {size} {ns:.3}");

    let keys = 20_000;
    let mut key = *KEY;
    let start = Instant::now();
    for i in 0..keys {
        key[0] = i as u8;
        umac.rekey(black_box(&key));
    }
    let ns = start.elapsed().as_nanos() as f64 / keys as f64;
    println!("linerate-setup {bytes} {ns:.3}");
    black_box(sink);
    eprintln!("(NH backend: {})", umac.backend());
}

fn main() {
    if let Ok(spec) = std::env::var("LINERATE_UMAC_TRIAL") {
        trial(&spec);
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    tags(&mut c);
    key_setup(&mut c);
    c.final_summary();
}
