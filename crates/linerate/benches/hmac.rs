//! HMAC-MD5 and HMAC-SHA1: key setup, per-message cost with a precomputed
//! key against re-keying every message (OpenSSH's 2007 comparison), and
//! multi-buffer HMAC-MD5 on batches of 1500-byte packets against one packet
//! at a time.
//!
//! `cargo bench -p linerate --bench hmac` runs criterion (narrow with a
//! filter, e.g. `-- hmac-md5/64`). Two other modes print medians of
//! alternating rounds (A B C A B C ..., as docs/performance.md asks on
//! this noisy shared machine):
//!
//! - `cargo bench -p linerate --bench hmac -- --alternate [--rounds N]`:
//!   every table of the report (key setup, per message, multi-buffer).
//! - `cargo bench -p linerate --bench hmac -- --mb-trial [--seconds S]`: one
//!   round of multi-buffer HMAC-MD5 on 1500-byte packets, as a
//!   `packets/s` line; `scripts/hmac_vs_ipsecmb.sh` alternates it with
//!   libipsec-mb.

use criterion::{BenchmarkId, Criterion, Throughput};
use hmac::{KeyInit, Mac};
use linerate::mac::hmac::{HmacKey, HmacMd5Key, HmacSha1Key, hmac_md5_many};
use std::hint::black_box;
use std::time::{Duration, Instant};

const SIZES: [usize; 5] = [64, 256, 1500, 8192, 16384];
const KEY: [u8; 16] = [0x0b; 16];
/// (packet length, packets per batch) for the multi-buffer comparison.
const BATCHES: [(usize, usize); 4] = [(1500, 32), (1500, 256), (1500, 1024), (64, 1024)];

type RcHmacMd5 = hmac::Hmac<linerate::Md5>;
type RcHmacSha1 = hmac::Hmac<sha1::Sha1>;

fn data(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 31 + 7) as u8).collect()
}

/// A named way of computing one tag of `message`.
struct Variant {
    name: &'static str,
    run: Run,
}

type Run = Box<dyn Fn(&[u8])>;

fn variant(name: &'static str, run: impl Fn(&[u8]) + 'static) -> Variant {
    Variant {
        name,
        run: Box::new(run),
    }
}

fn md5_variants() -> Vec<Variant> {
    let fast = HmacMd5Key::new(&KEY);
    let generic = HmacKey::<linerate::Md5>::new(&KEY);
    let rc = RcHmacMd5::new_from_slice(&KEY).unwrap();
    let compress = linerate::md5::Md5Backend::active().compress_fn().unwrap();
    vec![
        variant("HmacMd5Key, precomputed", move |m| {
            black_box(fast.tag(black_box(m)));
        }),
        variant("HmacMd5Key, re-keyed per message", |m| {
            black_box(HmacMd5Key::new(black_box(&KEY)).tag(black_box(m)));
        }),
        variant("HmacKey<Md5>, precomputed", move |m| {
            black_box(generic.tag(black_box(m)));
        }),
        variant("hmac::Hmac<Md5>, precomputed (clone)", move |m| {
            let mut mac = rc.clone();
            mac.update(black_box(m));
            black_box(mac.finalize().into_bytes());
        }),
        variant("hmac::Hmac<Md5>, re-keyed per message", |m| {
            let mut mac = RcHmacMd5::new_from_slice(black_box(&KEY)).unwrap();
            mac.update(black_box(m));
            black_box(mac.finalize().into_bytes());
        }),
        // The work a precomputed key cannot avoid: the message's blocks and
        // padding, and the outer block (3 blocks for 64 bytes).
        variant("bare MD5 compressions, same count", move |m| {
            // The inner hash's data and padding blocks, and the outer block.
            let mut left = (m.len() + 8) / 64 + 1 + 1;
            let mut state = [0u32; 4];
            let buf = [[0x5au8; 64]; 16];
            while left > 0 {
                let n = left.min(16);
                compress(&mut state, black_box(&buf[..n]));
                left -= n;
            }
            black_box(state);
        }),
    ]
}

fn sha1_variants() -> Vec<Variant> {
    let fast = HmacSha1Key::new(&KEY);
    let generic = HmacKey::<sha1::Sha1>::new(&KEY);
    let rc = RcHmacSha1::new_from_slice(&KEY).unwrap();
    vec![
        variant("HmacSha1Key, precomputed", move |m| {
            black_box(fast.tag(black_box(m)));
        }),
        variant("HmacSha1Key, re-keyed per message", |m| {
            black_box(HmacSha1Key::new(black_box(&KEY)).tag(black_box(m)));
        }),
        variant("HmacKey<Sha1>, precomputed", move |m| {
            black_box(generic.tag(black_box(m)));
        }),
        variant("hmac::Hmac<Sha1>, precomputed (clone)", move |m| {
            let mut mac = rc.clone();
            mac.update(black_box(m));
            black_box(mac.finalize().into_bytes());
        }),
        variant("hmac::Hmac<Sha1>, re-keyed per message", |m| {
            let mut mac = RcHmacSha1::new_from_slice(black_box(&KEY)).unwrap();
            mac.update(black_box(m));
            black_box(mac.finalize().into_bytes());
        }),
    ]
}

/// Key setup variants; the argument is the key.
fn key_setup_variants() -> Vec<Variant> {
    vec![
        variant("HmacMd5Key::new", |k| {
            black_box(HmacMd5Key::new(black_box(k)));
        }),
        variant("HmacKey::<Md5>::new", |k| {
            black_box(HmacKey::<linerate::Md5>::new(black_box(k)));
        }),
        variant("hmac::Hmac::<Md5>::new_from_slice", |k| {
            black_box(RcHmacMd5::new_from_slice(black_box(k)).unwrap());
        }),
        variant("HmacSha1Key::new", |k| {
            black_box(HmacSha1Key::new(black_box(k)));
        }),
        variant("HmacKey::<Sha1>::new", |k| {
            black_box(HmacKey::<sha1::Sha1>::new(black_box(k)));
        }),
        variant("hmac::Hmac::<Sha1>::new_from_slice", |k| {
            black_box(RcHmacSha1::new_from_slice(black_box(k)).unwrap());
        }),
    ]
}

/// `count` packets of `len` bytes in one buffer, and the batch as slices.
struct Packets {
    buf: Vec<u8>,
    len: usize,
}

impl Packets {
    fn new(len: usize, count: usize) -> Packets {
        Packets {
            buf: data(count * len),
            len,
        }
    }
    fn slices(&self) -> Vec<&[u8]> {
        self.buf.chunks(self.len).collect()
    }
}

// ---------------------------------------------------------------- criterion

fn criterion_benches(c: &mut Criterion) {
    for (alg, variants) in [("hmac-md5", md5_variants()), ("hmac-sha1", sha1_variants())] {
        let mut group = c.benchmark_group(alg);
        for size in SIZES {
            let m = data(size);
            group.throughput(Throughput::Bytes(size as u64));
            for v in &variants {
                group.bench_with_input(BenchmarkId::new(v.name, size), &m, |b, m| {
                    b.iter(|| (v.run)(m))
                });
            }
        }
        group.finish();
    }
    let mut group = c.benchmark_group("hmac/key-setup");
    for key_len in [16usize, 100] {
        let k = data(key_len);
        for v in key_setup_variants() {
            group.bench_with_input(BenchmarkId::new(v.name, key_len), &k, |b, k| {
                b.iter(|| (v.run)(k))
            });
        }
    }
    group.finish();
    let key = HmacMd5Key::new(&KEY);
    let mut group = c.benchmark_group("hmac-md5-many");
    for (len, count) in BATCHES {
        let packets = Packets::new(len, count);
        let slices = packets.slices();
        let mut out = vec![[0u8; 16]; count];
        group.throughput(Throughput::Bytes((count * len) as u64));
        let id = format!("{count}x{len}");
        group.bench_function(BenchmarkId::new("tag_many_into", &id), |b| {
            b.iter(|| key.tag_many_into(black_box(&slices), &mut out))
        });
        group.bench_function(BenchmarkId::new("tag loop", &id), |b| {
            b.iter(|| {
                for (m, o) in slices.iter().zip(out.iter_mut()) {
                    *o = key.tag(black_box(m));
                }
            })
        });
    }
    group.finish();
}

// ------------------------------------------------------ alternating rounds

/// Iterations of `f` that take about `budget`.
fn calibrate(f: &mut dyn FnMut(), budget: Duration) -> u64 {
    let mut iters = 1u64;
    loop {
        let t = Instant::now();
        for _ in 0..iters {
            f();
        }
        let e = t.elapsed();
        if e >= budget / 4 {
            let per = e.as_secs_f64() / iters as f64;
            return ((budget.as_secs_f64() / per) as u64).max(1);
        }
        iters *= 4;
    }
}

/// Nanoseconds per call of each of `fs`, run in alternating rounds (the
/// order rotated each round); the median of `rounds` per function.
fn alternate(fs: &mut [Box<dyn FnMut() + '_>], rounds: usize, budget: Duration) -> Vec<f64> {
    let iters: Vec<u64> = fs.iter_mut().map(|f| calibrate(f, budget)).collect();
    let mut samples = vec![Vec::with_capacity(rounds); fs.len()];
    for round in 0..rounds {
        for k in 0..fs.len() {
            let i = (k + round) % fs.len();
            let t = Instant::now();
            for _ in 0..iters[i] {
                fs[i]();
            }
            samples[i].push(t.elapsed().as_nanos() as f64 / iters[i] as f64);
        }
    }
    samples.into_iter().map(median).collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn ghz() -> f64 {
    linerate::clock::core_hz().map_or(f64::NAN, |hz| hz / 1e9)
}

fn arg_value(args: &[String], name: &str) -> Option<f64> {
    let i = args.iter().position(|a| a == name)?;
    args.get(i + 1)?.parse().ok()
}

fn alternate_report(rounds: usize) {
    let budget = Duration::from_millis(40);
    println!(
        "# HMAC, medians of {rounds} alternating rounds; MD5 backend {}, lanes backend {}; core clock {:.2} GHz",
        linerate::md5::Md5Backend::active(),
        linerate::lanes::LanesBackend::active(),
        ghz()
    );

    println!("\n## Key setup (16-byte and 100-byte keys), us\n");
    println!("| key setup | 16 B | 100 B (hashed first) |\n|---|---|---|");
    let variants = key_setup_variants();
    let keys = [data(16), data(100)];
    let mut results = vec![[0.0; 2]; variants.len()];
    for (j, k) in keys.iter().enumerate() {
        let mut fs: Vec<Box<dyn FnMut()>> = variants
            .iter()
            .map(|v| Box::new(|| (v.run)(k)) as Box<dyn FnMut()>)
            .collect();
        for (i, ns) in alternate(&mut fs, rounds, budget).into_iter().enumerate() {
            results[i][j] = ns;
        }
    }
    for (v, r) in variants.iter().zip(&results) {
        println!("| {} | {:.3} | {:.3} |", v.name, r[0] / 1e3, r[1] / 1e3);
    }

    for (alg, variants) in [("HMAC-MD5", md5_variants()), ("HMAC-SHA1", sha1_variants())] {
        println!("\n## {alg} per message, ns (MB/s)\n");
        print!("| {alg} |");
        for size in SIZES {
            print!(" {size} B |");
        }
        println!("\n|---|{}", "---|".repeat(SIZES.len()));
        let mut table = vec![vec![0.0; SIZES.len()]; variants.len()];
        for (j, &size) in SIZES.iter().enumerate() {
            let m = data(size);
            let mut fs: Vec<Box<dyn FnMut()>> = variants
                .iter()
                .map(|v| Box::new(|| (v.run)(&m)) as Box<dyn FnMut()>)
                .collect();
            for (i, ns) in alternate(&mut fs, rounds, budget).into_iter().enumerate() {
                table[i][j] = ns;
            }
        }
        for (v, row) in variants.iter().zip(&table) {
            print!("| {} |", v.name);
            for (ns, size) in row.iter().zip(SIZES) {
                print!(" {ns:.0} ({:.0}) |", size as f64 / ns * 1e3);
            }
            println!();
        }
        print!("| re-keyed / precomputed |");
        for (rekeyed, precomputed) in table[1].iter().zip(&table[0]) {
            print!(" {:.2} |", rekeyed / precomputed);
        }
        println!();
    }

    println!("\n## Multi-buffer HMAC-MD5\n");
    println!(
        "| batch | tag_many_into (one key) | hmac_md5_many (a key each) | tag loop | speed-up (one key) |"
    );
    println!("|---|---|---|---|---|");
    let key = HmacMd5Key::new(&KEY);
    let keys: Vec<HmacMd5Key> = (0..BATCHES.iter().map(|b| b.1).max().unwrap())
        .map(|i| HmacMd5Key::new(&data(16 + i % 50)))
        .collect();
    for (len, count) in BATCHES {
        let packets = Packets::new(len, count);
        let slices = packets.slices();
        let pairs: Vec<(&HmacMd5Key, &[u8])> = keys.iter().zip(slices.iter().copied()).collect();
        let mut out = [
            vec![[0u8; 16]; count],
            vec![[0u8; 16]; count],
            vec![[0u8; 16]; count],
        ];
        let [o1, o2, o3] = &mut out;
        let mut fs: Vec<Box<dyn FnMut()>> = vec![
            Box::new(|| key.tag_many_into(black_box(&slices), o1)),
            Box::new(|| hmac_md5_many(black_box(&pairs), o2)),
            Box::new(|| {
                for (m, o) in slices.iter().zip(o3.iter_mut()) {
                    *o = key.tag(black_box(m));
                }
            }),
        ];
        let ns = alternate(&mut fs, rounds, budget * 2);
        drop(fs);
        let per = |t: f64| {
            format!(
                "{:.0} ns/packet ({:.2} GB/s)",
                t / count as f64,
                (count * len) as f64 / t
            )
        };
        println!(
            "| {count} x {len} B | {} | {} | {} | **{:.2}** |",
            per(ns[0]),
            per(ns[1]),
            per(ns[2]),
            ns[2] / ns[0]
        );
        assert_eq!(out[0], out[2], "multi-buffer tags match the loop's");
    }

    // Where the engine starts to pay: a few packets through the engine
    // (`tag_many_with`, no single-stream shortcut) against a loop.
    println!("\n## Few 1500-byte packets: lanes engine against a loop of `tag`\n");
    println!("| packets | tag_many_with (engine only) | tag loop | engine / loop |");
    println!("|---|---|---|---|");
    let lanes = linerate::lanes::Lanes::active();
    for count in [1, 2, 3, 4, 6, 8] {
        let packets = Packets::new(1500, count);
        let slices = packets.slices();
        let mut o1 = vec![[0u8; 16]; count];
        let mut o2 = vec![[0u8; 16]; count];
        let mut fs: Vec<Box<dyn FnMut()>> = vec![
            Box::new(|| key.tag_many_with(&lanes, black_box(&slices), &mut o1)),
            Box::new(|| {
                for (m, o) in slices.iter().zip(o2.iter_mut()) {
                    *o = key.tag(black_box(m));
                }
            }),
        ];
        let ns = alternate(&mut fs, rounds, budget);
        println!(
            "| {count} | {:.0} ns | {:.0} ns | {:.2} |",
            ns[0],
            ns[1],
            ns[0] / ns[1]
        );
    }
    println!("\ncore clock after: {:.2} GHz", ghz());
}

/// One round of multi-buffer HMAC-MD5 and of the single-packet loop on
/// 1500-byte packets, for `scripts/hmac_vs_ipsecmb.sh`.
fn mb_trial(seconds: f64) {
    let count = 1024;
    let packets = Packets::new(1500, count);
    let slices = packets.slices();
    let key = HmacMd5Key::new(&KEY);
    let mut out = vec![[0u8; 16]; count];
    let run = |f: &mut dyn FnMut()| -> f64 {
        let t = Instant::now();
        let mut batches = 0u64;
        while t.elapsed().as_secs_f64() < seconds {
            f();
            batches += 1;
        }
        (batches * count as u64) as f64 / t.elapsed().as_secs_f64()
    };
    let mb = run(&mut || key.tag_many_into(black_box(&slices), &mut out));
    let first = hex(&out[0]);
    let single = run(&mut || {
        for (m, o) in slices.iter().zip(out.iter_mut()) {
            *o = key.tag(black_box(m));
        }
    });
    println!("linerate-mb packets/s {mb:.0} tag0 {first}");
    println!("linerate-single packets/s {single:.0}");
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--alternate") {
        let rounds = arg_value(&args, "--rounds").unwrap_or(7.0) as usize;
        alternate_report(rounds.max(1));
        return;
    }
    if args.iter().any(|a| a == "--mb-trial") {
        mb_trial(arg_value(&args, "--seconds").unwrap_or(1.0));
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    criterion_benches(&mut c);
    c.final_summary();
}
