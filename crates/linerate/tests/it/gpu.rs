//! The CUDA backend against the CPU reference. Every test needs a GPU:
//! without one (CI) each says so on stderr and passes, and
//! scripts/test-all.sh prints the reason once, visibly.

#![cfg(feature = "cuda")]

use crate::support::Rng;
use linerate::gpu::{
    self, DeviceBuffer, DeviceOffsets, DeviceRows, RowsOptions, Source, Staging, StreamOptions,
};
use linerate::{OffsetRows, ViewRows, md5};
use std::io;

/// The GPU, or `None` after saying why on stderr.
fn gpu_or_skip(test: &str) -> Option<&'static gpu::Context> {
    match gpu::gpu() {
        Ok(g) => Some(g),
        Err(why) => {
            eprintln!("{test}: skipped, no GPU: {why}");
            None
        }
    }
}

/// Lengths 0..=300, then `extra` random ones up to 1 MiB.
fn lengths(rng: &mut Rng, extra: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (0..=300).collect();
    v.extend((0..extra).map(|_| rng.below((1 << 20) + 1)));
    v
}

fn offsets_of(base: usize, lens: &[usize]) -> Vec<u64> {
    let mut o = vec![base as u64];
    for l in lens {
        o.push(o.last().unwrap() + *l as u64);
    }
    o
}

fn cpu_digests(data: &[u8], offsets: &[u64]) -> Vec<[u8; 16]> {
    offsets
        .windows(2)
        .map(|w| md5(&data[w[0] as usize..w[1] as usize]))
        .collect()
}

#[test]
fn host_rows_of_every_length_match_the_cpu() {
    let Some(g) = gpu_or_skip("host_rows_of_every_length_match_the_cpu") else {
        return;
    };
    let mut rng = Rng::new(1);
    for base in [0usize, 1, 3, 7] {
        let lens = lengths(&mut rng, 40);
        let offsets = offsets_of(base, &lens);
        let data = rng.bytes(*offsets.last().unwrap() as usize);
        let rows = OffsetRows::new(&data, &offsets).unwrap();
        for staging in [Staging::Copy, Staging::Register] {
            let mut out = vec![[0xa5u8; 16]; lens.len()];
            let options = RowsOptions { staging, slots: 2 };
            g.md5_rows_with(&rows, &mut out, options).unwrap();
            assert_eq!(
                out,
                cpu_digests(&data, &offsets),
                "base {base}, {staging:?}"
            );
        }
    }
}

#[test]
fn host_rows_in_every_layout_match_the_cpu() {
    let Some(g) = gpu_or_skip("host_rows_in_every_layout_match_the_cpu") else {
        return;
    };
    let mut rng = Rng::new(2);
    let lens: Vec<usize> = (0..5000).map(|_| rng.below(200)).collect();
    let offsets = offsets_of(0, &lens);
    let data = rng.bytes(*offsets.last().unwrap() as usize);
    let want = cpu_digests(&data, &offsets);
    // i32 offsets
    let o32: Vec<i32> = offsets.iter().map(|&o| o as i32).collect();
    let mut out = vec![[0u8; 16]; lens.len()];
    g.md5_rows(&OffsetRows::new(&data, &o32).unwrap(), &mut out)
        .unwrap();
    assert_eq!(out, want);
    // a slice of slices
    let slices: Vec<&[u8]> = offsets
        .windows(2)
        .map(|w| &data[w[0] as usize..w[1] as usize])
        .collect();
    let mut out = vec![[0u8; 16]; lens.len()];
    g.md5_rows(&slices[..], &mut out).unwrap();
    assert_eq!(out, want);
    // Arrow views: short rows inline, long ones in a buffer
    let views: Vec<[u8; 16]> = slices
        .iter()
        .zip(&offsets)
        .map(|(s, &o)| {
            let mut v = [0u8; 16];
            v[..4].copy_from_slice(&(s.len() as u32).to_le_bytes());
            if s.len() <= 12 {
                v[4..4 + s.len()].copy_from_slice(s);
            } else {
                v[12..16].copy_from_slice(&(o as u32).to_le_bytes());
            }
            v
        })
        .collect();
    let buffers = [&data[..]];
    let mut out = vec![[0u8; 16]; lens.len()];
    g.md5_rows(&ViewRows::new(&views, &buffers).unwrap(), &mut out)
        .unwrap();
    assert_eq!(out, want);
}

#[test]
fn host_batches_empty_one_and_many_chunks() {
    let Some(g) = gpu_or_skip("host_batches_empty_one_and_many_chunks") else {
        return;
    };
    let empty: [&[u8]; 0] = [];
    let mut out: Vec<[u8; 16]> = Vec::new();
    g.md5_rows(&empty[..], &mut out).unwrap();
    let one: [&[u8]; 1] = [b"abc"];
    let mut out = vec![[0u8; 16]; 1];
    g.md5_rows(&one[..], &mut out).unwrap();
    assert_eq!(out[0], md5(b"abc"));
    // More than a chunk of rows (2^20) and of bytes (64 MiB), and a row
    // longer than a chunk, which the CPU hashes.
    let mut rng = Rng::new(3);
    let mut lens: Vec<usize> = (0..(1 << 20) + 4321).map(|_| rng.below(130)).collect();
    lens[777] = (64 << 20) + 5;
    lens.push(40 << 20);
    let offsets = offsets_of(0, &lens);
    let data = rng.bytes(*offsets.last().unwrap() as usize);
    let rows = OffsetRows::new(&data, &offsets).unwrap();
    let want = cpu_digests(&data, &offsets);
    for staging in [Staging::Copy, Staging::Register] {
        for slots in [2, 3, 4] {
            let mut out = vec![[0u8; 16]; lens.len()];
            g.md5_rows_with(&rows, &mut out, RowsOptions { staging, slots })
                .unwrap();
            assert_eq!(out, want, "{staging:?}, {slots} slots");
        }
    }
}

/// Uploads `data` and `offsets` (as 64-bit or, with `narrow`, 32-bit
/// offsets) and hashes the rows on the device.
fn on_device(
    g: &gpu::Context,
    data: &[u8],
    offsets: &[i64],
    narrow: bool,
) -> Result<Vec<[u8; 16]>, gpu::DeviceRowsError> {
    let obytes: Vec<u8> = if narrow {
        offsets
            .iter()
            .flat_map(|&x| (x as i32).to_le_bytes())
            .collect()
    } else {
        offsets
            .iter()
            .flat_map(|&x| (x as u64).to_le_bytes())
            .collect()
    };
    let mut d = DeviceBuffer::new(g, data.len()).unwrap();
    d.upload(data).unwrap();
    let mut o = DeviceBuffer::new(g, obytes.len()).unwrap();
    o.upload(&obytes).unwrap();
    let rows = DeviceRows {
        data: d.ptr(),
        data_len: data.len() as u64,
        offsets: if narrow {
            DeviceOffsets::I32(o.ptr())
        } else {
            DeviceOffsets::U64(o.ptr())
        },
        count: offsets.len() as u64 - 1,
    };
    // SAFETY: `d` and `o` are live device memory of `g` for the call.
    unsafe { g.md5_device_rows(&rows) }
}

#[test]
fn device_rows_at_odd_alignments_match_the_cpu() {
    let Some(g) = gpu_or_skip("device_rows_at_odd_alignments_match_the_cpu") else {
        return;
    };
    let mut rng = Rng::new(4);
    for base in 0..8 {
        let lens = lengths(&mut rng, 20);
        let offsets = offsets_of(base, &lens);
        let data = rng.bytes(*offsets.last().unwrap() as usize);
        let want = cpu_digests(&data, &offsets);
        let signed: Vec<i64> = offsets.iter().map(|&o| o as i64).collect();
        // 64-bit offsets, and 32-bit ones: rows from starts that are not
        // 4-byte aligned in device memory.
        for narrow in [false, true] {
            let got = on_device(g, &data, &signed, narrow).unwrap();
            assert_eq!(got, want, "base {base}, narrow {narrow}");
        }
    }
}

#[test]
fn device_rows_empty_one_and_bad_offsets() {
    let Some(g) = gpu_or_skip("device_rows_empty_one_and_bad_offsets") else {
        return;
    };
    let data = b"hello world, this is some data".to_vec();
    let check = |offsets: &[i64], narrow: bool, want: Result<Vec<[u8; 16]>, u64>| match (
        on_device(g, &data, offsets, narrow),
        want,
    ) {
        (Ok(got), Ok(want)) => assert_eq!(got, want),
        (Err(gpu::DeviceRowsError::BadOffsets { index }), Err(bad)) => assert_eq!(index, bad),
        (got, want) => panic!("{offsets:?}: got {got:?}, want {want:?}"),
    };
    check(&[5], false, Ok(vec![]));
    check(&[0, 5], false, Ok(vec![md5(&data[..5])]));
    check(&[0, 5, 3, 9], false, Err(1));
    check(&[0, 5, 31], false, Err(1));
    check(
        &[0, 5, 30],
        false,
        Ok(vec![md5(&data[..5]), md5(&data[5..30])]),
    );
    // a negative offset, as int32 and as int64 (past the end as unsigned)
    check(&[0, 4, -1, 9], true, Err(1));
    check(&[0, 4, -1, 9], false, Err(1));
}

#[test]
fn device_rows_past_two_gigabytes() {
    let Some(g) = gpu_or_skip("device_rows_past_two_gigabytes") else {
        return;
    };
    // Rows just below, across and past 2^31 and 2^32 (64-bit offsets), and
    // the last rows a 32-bit offset can reach.
    let mut rng = Rng::new(5);
    let len = (1usize << 32) + 8192;
    let mut data = vec![0u8; len];
    for chunk in data.chunks_mut(1 << 20) {
        let r = rng.bytes(chunk.len().min(4096));
        for (i, b) in chunk.iter_mut().enumerate() {
            *b = r[i % r.len()] ^ (i >> 12) as u8;
        }
    }
    let t31 = 1u64 << 31;
    let t32 = 1u64 << 32;
    let offsets = [
        t31 - 300,
        t31 - 1,
        t31 + 1,
        t31 + 5000,
        t32 - 64,
        t32 + 3,
        t32 + 8000,
    ];
    let want = cpu_digests(&data, &offsets);
    let signed: Vec<i64> = offsets.iter().map(|&o| o as i64).collect();
    assert_eq!(on_device(g, &data, &signed, false).unwrap(), want);
    let o32 = [
        i32::MAX as i64 - 1000,
        i32::MAX as i64 - 77,
        i32::MAX as i64,
    ];
    let want32: Vec<u64> = o32.iter().map(|&o| o as u64).collect();
    assert_eq!(
        on_device(g, &data, &o32, true).unwrap(),
        cpu_digests(&data, &want32)
    );
    // And the host path over the same 4 GiB: rows as slices.
    let slices: Vec<&[u8]> = offsets
        .windows(2)
        .map(|w| &data[w[0] as usize..w[1] as usize])
        .collect();
    let mut out = vec![[0u8; 16]; slices.len()];
    g.md5_rows(&slices[..], &mut out).unwrap();
    assert_eq!(out, cpu_digests(&data, &offsets));
}

/// A source that fails at one offset.
struct Failing<'a>(&'a [u8], u64);

impl Source for Failing<'_> {
    fn size(&self) -> u64 {
        self.0.len() as u64
    }
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        if offset + buf.len() as u64 > self.1 {
            return Err(io::Error::other("file changed while reading"));
        }
        buf.copy_from_slice(&self.0[offset as usize..offset as usize + buf.len()]);
        Ok(())
    }
}

#[test]
fn streams_match_the_cpu_across_rounds_and_slot_reuse() {
    let Some(g) = gpu_or_skip("streams_match_the_cpu_across_rounds_and_slot_reuse") else {
        return;
    };
    let mut rng = Rng::new(6);
    let sizes: Vec<usize> = [
        0, 1, 55, 56, 63, 64, 65, 127, 128, 129, 191, 192, 4095, 4096, 4097,
    ]
    .into_iter()
    .chain((0..60).map(|_| rng.below(50_000)))
    .collect();
    let data: Vec<Vec<u8>> = sizes.iter().map(|&n| rng.bytes(n)).collect();
    let sources: Vec<&[u8]> = data.iter().map(Vec::as_slice).collect();
    // Small windows and rounds: many rounds, slots reused; the GPU to the
    // end (cpu_below 0) and with the CPU taking over the last ones.
    for (window, round, cpu_below) in [
        (7usize, 64 * 7 * 3, 0),
        (7, 64 * 7 * 3, 5),
        (16, 1 << 16, 0),
        (1, 4096, 0),
        (8192, 256 << 20, 64),
    ] {
        let got = g
            .md5_streams(
                &sources,
                StreamOptions {
                    window,
                    round_bytes: round,
                    cpu_below,
                },
            )
            .unwrap();
        for (i, r) in got.into_iter().enumerate() {
            assert_eq!(
                r.unwrap(),
                md5(&data[i]),
                "window {window}, source {i}, {} bytes",
                sizes[i]
            );
        }
    }
}

#[test]
fn a_failing_stream_is_an_error_and_the_others_are_hashed() {
    let Some(g) = gpu_or_skip("a_failing_stream_is_an_error_and_the_others_are_hashed") else {
        return;
    };
    let mut rng = Rng::new(7);
    let data: Vec<Vec<u8>> = (0..20).map(|i| rng.bytes(1000 + 977 * i)).collect();
    let sources: Vec<Failing> = data
        .iter()
        .enumerate()
        .map(|(i, d)| Failing(d, if i % 5 == 2 { 3000 } else { u64::MAX }))
        .collect();
    let got = g
        .md5_streams(
            &sources,
            StreamOptions {
                window: 6,
                round_bytes: 6 * 1024,
                cpu_below: 3,
            },
        )
        .unwrap();
    for (i, r) in got.into_iter().enumerate() {
        if i % 5 == 2 && data[i].len() > 3000 {
            assert!(r.is_err(), "source {i}");
        } else {
            assert_eq!(r.unwrap(), md5(&data[i]), "source {i}");
        }
    }
}

#[test]
fn s3_parts_at_the_limits() {
    let Some(g) = gpu_or_skip("s3_parts_at_the_limits") else {
        return;
    };
    // S3's smallest part (5 MiB) many times, a last part of one byte, and
    // its largest part (5 GiB).
    let mut rng = Rng::new(8);
    let part = 5 << 20;
    let big = 5usize << 30;
    let mut data = vec![0u8; big + 64 * part + 1];
    let pattern = rng.bytes(1 << 20);
    for (i, c) in data.chunks_mut(1 << 20).enumerate() {
        c.copy_from_slice(&pattern[..c.len()]);
        c[0] = i as u8;
        c[c.len() - 1] = (i >> 8) as u8;
    }
    let mut parts: Vec<&[u8]> = vec![&data[..big]];
    parts.extend(data[big..].chunks(part));
    assert_eq!(parts.last().unwrap().len(), 1);
    let got = g.md5_streams(&parts, StreamOptions::default()).unwrap();
    for (i, r) in got.into_iter().enumerate() {
        assert_eq!(r.unwrap(), md5(parts[i]), "part {i}");
    }
}

#[test]
fn md5p_matches_the_cpu_around_stripe_boundaries() {
    let Some(g) = gpu_or_skip("md5p_matches_the_cpu_around_stripe_boundaries") else {
        return;
    };
    let mut rng = Rng::new(9);
    for k in [4usize, 16, 64, 256] {
        let stripe = k * 64;
        let mut lens = vec![
            0,
            1,
            63,
            64,
            65,
            stripe - 1,
            stripe,
            stripe + 1,
            2 * stripe + 64 * (k / 2) + 7,
        ];
        lens.push(rng.below(5 << 20));
        // past one round (64 MiB), with a remainder round
        lens.push((64 << 20) + 3 * stripe + 100);
        for len in lens {
            let data = rng.bytes(len);
            let got = g.md5p(k, &data).unwrap().unwrap();
            assert_eq!(got, linerate::md5p(k, &data).unwrap(), "K {k}, {len} bytes");
        }
    }
    assert!(g.md5p(5, b"abc").unwrap().is_err());
}
