//! The GPU section of the lab (`linerate speed gpu`): the machine's
//! ceilings first (HBM copy rate, pinned host-to-device rate, the
//! integer-ALU bound of MD5's 64 steps), then MD5 of row batches on the
//! device and from host memory against the CPU's lanes on every core, the
//! crossover batch size, and the S3 ETag of a large buffer.
//!
//! Every GPU result is compared with the CPU's before it is timed: a wrong
//! digest stops the section with an error instead of a figure.

use std::time::Instant;

use linerate::gpu::{
    self, DeviceBuffer, DeviceOffsets, DeviceRows, RowsOptions, Staging, StreamOptions, limits,
};
use linerate::lanes::{Lanes, many::md5_rows_range};
use linerate::{OffsetRows, Rows};
use rayon::prelude::*;
use serde_json::{Value, json};

/// Sizes of one run.
#[derive(Clone, Copy, Debug)]
pub struct Sizes {
    pub short_rows: usize,
    pub long_rows: usize,
    pub etag_bytes: usize,
    pub part: usize,
    pub trials: usize,
}

impl Sizes {
    /// The sizes: 10^8 rows of 64 bytes, 10^6 of 16 KiB, a 64 GiB
    /// ETag in 8 MiB parts.
    pub fn full() -> Sizes {
        Sizes {
            short_rows: 100_000_000,
            long_rows: 1_000_000,
            etag_bytes: 64 << 30,
            part: 8 << 20,
            trials: 5,
        }
    }

    /// Seconds, for tests: the same code on small batches.
    pub fn quick() -> Sizes {
        Sizes {
            short_rows: 1 << 18,
            long_rows: 1 << 10,
            etag_bytes: 256 << 20,
            part: 8 << 20,
            trials: 2,
        }
    }
}

/// Fills `buf` with a cheap pseudo-random stream (never zeros: they hide
/// unwritten outputs), on every thread.
pub fn fill(buf: &mut [u8], seed: u64) {
    buf.par_chunks_mut(1 << 20).enumerate().for_each(|(i, c)| {
        let mut x = seed ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        for w in c.chunks_mut(8) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let b = x.to_le_bytes();
            w.copy_from_slice(&b[..w.len()]);
        }
    });
}

/// A parallel copy of `bytes` between two host buffers: bytes read plus
/// written per second (median).
fn host_copy_rate(bytes: usize, trials: usize) -> f64 {
    let mut a = vec![0u8; bytes];
    fill(&mut a, 1);
    let mut b = vec![0u8; bytes];
    let mut copy = || {
        b.par_chunks_mut(1 << 20)
            .zip(a.par_chunks(1 << 20))
            .for_each(|(d, s)| d.copy_from_slice(s));
    };
    copy();
    let mut v: Vec<f64> = (0..trials.max(1))
        .map(|_| {
            let t = Instant::now();
            copy();
            t.elapsed().as_secs_f64()
        })
        .collect();
    2.0 * bytes as f64 / limits::median(&mut v)
}

/// MD5 of every row on every CPU core with the lanes engine.
pub fn cpu_rows<R: Rows + ?Sized>(rows: &R, out: &mut [[u8; 16]]) {
    let lanes = Lanes::active();
    // Eight pieces a thread, so that long rows spread over every core too.
    let step = out.len().div_ceil(8 * rayon::current_num_threads()).max(1);
    out.par_chunks_mut(step).enumerate().for_each(|(k, o)| {
        let start = k * step;
        md5_rows_range(&lanes, rows, start..start + o.len(), o);
    });
}

/// Alternating medians of two jobs: `(a, b)` seconds.
fn alternate(
    trials: usize,
    mut a: impl FnMut() -> Result<(), String>,
    mut b: impl FnMut() -> Result<(), String>,
) -> Result<(f64, f64), String> {
    a()?;
    b()?;
    let (mut ta, mut tb) = (Vec::new(), Vec::new());
    for _ in 0..trials.max(1) {
        let t = Instant::now();
        a()?;
        ta.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        b()?;
        tb.push(t.elapsed().as_secs_f64());
    }
    Ok((limits::median(&mut ta), limits::median(&mut tb)))
}

fn gbps(bytes: f64, secs: f64) -> f64 {
    bytes / secs / 1e9
}

fn e<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// Runs the section, reporting each finished line to `say`.
pub fn run(sizes: Sizes, say: &mut dyn FnMut(&str)) -> Result<Value, String> {
    let g = gpu::gpu().map_err(|why| format!("no GPU: {why}"))?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut out = json!({
        "gpu": g.name(),
        "multiprocessors": g.multiprocessors(),
        "capability": format!("{}.{}", g.capability().0, g.capability().1),
        "memory_bytes": g.memory(),
        "cpu_threads": cores,
        "cpu_lanes": format!("{:?}", Lanes::active().backend()),
    });
    say(&format!(
        "GPU: {} ({} SMs, sm_{}{}, {:.0} GiB); CPU: {} threads, lanes {:?}",
        g.name(),
        g.multiprocessors(),
        g.capability().0,
        g.capability().1,
        g.memory() as f64 / (1u64 << 30) as f64,
        cores,
        Lanes::active().backend()
    ));

    // Ceilings.
    let copy = limits::device_copy_rate(g, 2 << 30, sizes.trials).map_err(e)?;
    let h2d = limits::pinned_upload_rate(g, 1 << 30, sizes.trials).map_err(e)?;
    let alu = limits::alu_compressions_per_second(g, 256, sizes.trials).map_err(e)?;
    say(&format!(
        "ceilings: HBM copy {:.0} GB/s (read + written), pinned host-to-device {:.1} GB/s, integer-ALU bound {:.2e} compressions/s ({:.0} GB/s of whole blocks)",
        copy / 1e9,
        h2d / 1e9,
        alu,
        alu * 64.0 / 1e9
    ));
    // The host's own memory, which staging reads and writes: a copy on
    // every core (bytes read plus written, as for HBM).
    let host_copy = host_copy_rate(1 << 30, sizes.trials);
    say(&format!(
        "host memory: a copy on {} threads moves {:.0} GB/s (read + written)",
        rayon::current_num_threads(),
        host_copy / 1e9
    ));
    out["ceilings"] = json!({
        "host_copy_bytes_per_s": host_copy,
        "hbm_copy_bytes_per_s": copy,
        "pinned_h2d_bytes_per_s": h2d,
        "alu_compressions_per_s": alu,
    });

    let mut batches = Vec::new();
    for (name, count, len) in [
        ("64-byte rows", sizes.short_rows, 64usize),
        ("16 KiB rows", sizes.long_rows, 16 << 10),
    ] {
        batches.push(rows_batch(
            g,
            name,
            count,
            len,
            sizes.trials,
            alu,
            copy,
            h2d,
            say,
        )?);
    }
    out["batches"] = Value::Array(batches);
    out["crossover"] = crossover(g, sizes, say)?;
    out["md5p"] = md5p(g, sizes, say)?;
    out["etag"] = etag(g, sizes, say)?;
    Ok(out)
}

#[allow(clippy::too_many_arguments)]
fn rows_batch(
    g: &'static gpu::Context,
    name: &str,
    count: usize,
    len: usize,
    trials: usize,
    alu: f64,
    copy: f64,
    h2d: f64,
    say: &mut dyn FnMut(&str),
) -> Result<Value, String> {
    let bytes = count * len;
    let mut data = vec![0u8; bytes];
    fill(&mut data, len as u64);
    let offsets: Vec<u64> = (0..=count as u64).map(|i| i * len as u64).collect();
    let rows = OffsetRows::new(&data, &offsets).map_err(e)?;
    // CPU reference, also the CPU figure.
    let mut want = vec![[0u8; 16]; count];
    let mut got = vec![[0u8; 16]; count];
    // Device-resident: upload once, check, time the kernel.
    let mut d = DeviceBuffer::new(g, bytes).map_err(e)?;
    d.upload(&data).map_err(e)?;
    let obytes: Vec<u8> = offsets.iter().flat_map(|o| o.to_le_bytes()).collect();
    let mut o = DeviceBuffer::new(g, obytes.len()).map_err(e)?;
    o.upload(&obytes).map_err(e)?;
    drop(obytes);
    let dev = DeviceRows {
        data: d.ptr(),
        data_len: bytes as u64,
        offsets: DeviceOffsets::U64(o.ptr()),
        count: count as u64,
    };
    cpu_rows(&rows, &mut want);
    // SAFETY: `d` and `o` are live device memory of `g`.
    let on_device = unsafe { g.md5_device_rows(&dev) }.map_err(e)?;
    if on_device != want {
        return Err(format!(
            "{name}: device-resident digests differ from the CPU's"
        ));
    }
    // SAFETY: as above.
    let dev_ms = unsafe { limits::device_rows_ms(g, &dev, trials) }.map_err(e)?;
    drop(d);
    drop(o);
    let with = |staging, slots| RowsOptions { staging, slots };
    for (staging, slots) in [
        (Staging::Copy, 2),
        (Staging::Copy, 3),
        (Staging::Register, 2),
    ] {
        got.fill([0; 16]);
        g.md5_rows_with(&rows, &mut got, with(staging, slots))
            .map_err(e)?;
        if got != want {
            return Err(format!(
                "{name}: host-path digests ({staging:?}) differ from the CPU's"
            ));
        }
    }
    let (gpu_s, cpu_s) = alternate(
        trials,
        || g.md5_rows(&rows, &mut got).map_err(e),
        || {
            cpu_rows(&rows, &mut want);
            Ok(())
        },
    )?;
    let (registered_s, copy_again_s) = alternate(
        trials,
        || {
            g.md5_rows_with(&rows, &mut got, with(Staging::Register, 2))
                .map_err(e)
        },
        || {
            g.md5_rows_with(&rows, &mut want, with(Staging::Copy, 2))
                .map_err(e)
        },
    )?;
    let (three_s, two_s) = alternate(
        trials,
        || {
            g.md5_rows_with(&rows, &mut got, with(Staging::Copy, 3))
                .map_err(e)
        },
        || {
            g.md5_rows_with(&rows, &mut want, with(Staging::Copy, 2))
                .map_err(e)
        },
    )?;
    say(&format!(
        "{count} {name}, from host memory: three chunks in flight {:.1} GB/s, two {:.1} GB/s (same run: {:.2}x)",
        gbps(bytes as f64, three_s),
        gbps(bytes as f64, two_s),
        two_s / three_s,
    ));
    let blocks_per_row = (len + 9).div_ceil(64);
    let compressions = (count * blocks_per_row) as f64;
    let dev_s = dev_ms / 1e3;
    let alu_share = compressions / dev_s / alu;
    // Bytes the kernel must read (rows and offsets) and write (digests),
    // against the copy rate, which counts read and written bytes too.
    let hbm_share = ((bytes + 8 * (count + 1) + 16 * count) as f64 / dev_s) / copy;
    let host_share = gbps(bytes as f64, gpu_s) * 1e9 / h2d;
    say(&format!(
        "{count} {name}, from host memory: staged through pinned buffers {:.1} GB/s, registered in place {:.1} GB/s (same run: {:.2}x; {:.0}% of pinned host-to-device)",
        gbps(bytes as f64, copy_again_s),
        gbps(bytes as f64, registered_s),
        copy_again_s / registered_s,
        100.0 * gbps(bytes as f64, registered_s) * 1e9 / h2d,
    ));
    say(&format!(
        "{count} {name} ({:.1} GB): device-resident {:.1} GB/s ({:.2e} rows/s, {:.0}% of the ALU bound, {:.0}% of HBM); from host memory {:.1} GB/s ({:.0}% of pinned host-to-device); CPU lanes on {} threads {:.1} GB/s; GPU/CPU {:.2}x (device-resident {:.1}x)",
        bytes as f64 / 1e9,
        gbps(bytes as f64, dev_s),
        count as f64 / dev_s,
        100.0 * alu_share,
        100.0 * hbm_share,
        gbps(bytes as f64, gpu_s),
        100.0 * host_share,
        rayon::current_num_threads(),
        gbps(bytes as f64, cpu_s),
        cpu_s / gpu_s,
        cpu_s / dev_s,
    ));
    Ok(json!({
        "name": name,
        "rows": count,
        "row_bytes": len,
        "device_resident_s": dev_s,
        "host_s": gpu_s,
        "cpu_s": cpu_s,
        "alu_share": alu_share,
        "hbm_share": hbm_share,
        "host_share_of_pinned_h2d": host_share,
        "host_registered_s": registered_s,
        "host_three_slots_s": three_s,
        "host_two_slots_s": two_s,
        "host_copy_again_s": copy_again_s,
    }))
}

/// The batch size from which the GPU (from host memory) beats the CPU on
/// every core, for short and long rows.
fn crossover(
    g: &'static gpu::Context,
    sizes: Sizes,
    say: &mut dyn FnMut(&str),
) -> Result<Value, String> {
    let mut series = Vec::new();
    for len in [64usize, 1024, 16 << 10] {
        let mut points = Vec::new();
        let mut first_win: Option<usize> = None;
        let max_bytes = (sizes.short_rows * 64).min(1 << 30);
        let mut count = 64usize;
        while count * len <= max_bytes {
            let mut data = vec![0u8; count * len];
            fill(&mut data, count as u64);
            let offsets: Vec<u64> = (0..=count as u64).map(|i| i * len as u64).collect();
            let rows = OffsetRows::new(&data, &offsets).map_err(e)?;
            let mut a = vec![[0u8; 16]; count];
            let mut b = vec![[0u8; 16]; count];
            let (gpu_s, cpu_s) = alternate(
                sizes.trials,
                || g.md5_rows(&rows, &mut a).map_err(e),
                || {
                    cpu_rows(&rows, &mut b);
                    Ok(())
                },
            )?;
            if a != b {
                return Err(format!("crossover: {count} rows of {len} bytes differ"));
            }
            if gpu_s < cpu_s && first_win.is_none() {
                first_win = Some(count);
            }
            points
                .push(json!({"rows": count, "bytes": count * len, "gpu_s": gpu_s, "cpu_s": cpu_s}));
            count *= 4;
        }
        say(&format!(
            "crossover, {len}-byte rows: the GPU from host memory first wins at {}",
            first_win.map_or("no size tried".into(), |c| format!(
                "{c} rows ({} bytes)",
                c * len
            ))
        ));
        series.push(json!({"row_bytes": len, "first_gpu_win_rows": first_win, "points": points}));
    }
    Ok(Value::Array(series))
}

/// MD5-P/K of one buffer: K chains are K GPU threads, against the CPU's
/// lanes (on every core for K >= 32).
fn md5p(
    g: &'static gpu::Context,
    sizes: Sizes,
    say: &mut dyn FnMut(&str),
) -> Result<Value, String> {
    let bytes = (sizes.etag_bytes / 16).max(64 << 20);
    let mut data = vec![0u8; bytes];
    fill(&mut data, 7);
    let mut rows = Vec::new();
    for k in [16usize, 256] {
        let want = linerate::md5p(k, &data).map_err(e)?;
        let got = g.md5p(k, &data).map_err(e)?.map_err(e)?;
        if got != want {
            return Err(format!("md5p{k}: GPU digest differs from the CPU's"));
        }
        let (gpu_s, cpu_s) = alternate(
            sizes.trials.min(3),
            || g.md5p(k, &data).map(|_| ()).map_err(e),
            || linerate::md5p(k, &data).map(|_| ()).map_err(e),
        )?;
        say(&format!(
            "md5p{k} of {:.1} GiB: GPU from host memory {:.1} GB/s, CPU {:.1} GB/s (GPU/CPU {:.2}x)",
            bytes as f64 / (1u64 << 30) as f64,
            gbps(bytes as f64, gpu_s),
            gbps(bytes as f64, cpu_s),
            cpu_s / gpu_s
        ));
        rows.push(json!({"k": k, "bytes": bytes, "gpu_s": gpu_s, "cpu_s": cpu_s}));
    }
    Ok(Value::Array(rows))
}

/// The S3 ETag of a buffer in host memory: the GPU streaming the parts
/// from host memory, the CPU's lanes on every core, and the GPU with the
/// buffer already on the device.
fn etag(
    g: &'static gpu::Context,
    sizes: Sizes,
    say: &mut dyn FnMut(&str),
) -> Result<Value, String> {
    let bytes = sizes.etag_bytes;
    let t = Instant::now();
    let mut data = vec![0u8; bytes];
    fill(&mut data, 42);
    say(&format!(
        "etag: {:.1} GiB filled in {:.1} s",
        bytes as f64 / (1u64 << 30) as f64,
        t.elapsed().as_secs_f64()
    ));
    let parts: Vec<&[u8]> = data.chunks(sizes.part).collect();
    let etag_of = |digests: &[[u8; 16]]| linerate::md5(digests.as_flattened());
    let mut cpu = vec![[0u8; 16]; parts.len()];
    let cpu_job = |out: &mut Vec<[u8; 16]>| {
        out.par_chunks_mut(32)
            .zip(parts.par_chunks(32))
            .for_each(|(o, p)| linerate::md5_many_into(p, o));
    };
    let mut gpu_digests = Vec::new();
    let gpu_job = |out: &mut Vec<[u8; 16]>| -> Result<(), String> {
        let r = g.md5_streams(&parts, StreamOptions::default()).map_err(e)?;
        *out = r.into_iter().collect::<Result<Vec<_>, _>>().map_err(e)?;
        Ok(())
    };
    let (gpu_s, cpu_s) = alternate(
        sizes.trials.min(3),
        || gpu_job(&mut gpu_digests),
        || {
            cpu_job(&mut cpu);
            Ok(())
        },
    )?;
    if gpu_digests != cpu {
        return Err("etag: GPU part digests differ from the CPU's".into());
    }
    let etag = etag_of(&cpu);
    // Device-resident: the whole buffer on the GPU, if it fits.
    let free = g.free_memory().map_err(e)?;
    let mut resident = Value::Null;
    let mut resident_s = f64::NAN;
    if bytes + (1 << 30) < free {
        let mut d = DeviceBuffer::new(g, bytes).map_err(e)?;
        d.upload(&data).map_err(e)?;
        let offsets: Vec<u64> = parts
            .iter()
            .scan(0u64, |at, p| {
                let s = *at;
                *at += p.len() as u64;
                Some(s)
            })
            .chain(std::iter::once(bytes as u64))
            .collect();
        let obytes: Vec<u8> = offsets.iter().flat_map(|o| o.to_le_bytes()).collect();
        let mut o = DeviceBuffer::new(g, obytes.len()).map_err(e)?;
        o.upload(&obytes).map_err(e)?;
        let dev = DeviceRows {
            data: d.ptr(),
            data_len: bytes as u64,
            offsets: DeviceOffsets::U64(o.ptr()),
            count: parts.len() as u64,
        };
        // SAFETY: live device memory of `g`.
        let got = unsafe { g.md5_device_rows(&dev) }.map_err(e)?;
        if got != cpu {
            return Err("etag: device-resident part digests differ from the CPU's".into());
        }
        // SAFETY: as above.
        resident_s =
            unsafe { limits::device_rows_ms(g, &dev, sizes.trials.min(3)) }.map_err(e)? / 1e3;
        resident = json!(resident_s);
    }
    say(&format!(
        "etag of {:.0} GiB in {} MiB parts ({}-{}): GPU from host memory {:.1} GB/s, CPU lanes on {} threads {:.1} GB/s (GPU/CPU {:.2}x); device-resident {:.1} GB/s",
        bytes as f64 / (1u64 << 30) as f64,
        sizes.part >> 20,
        etag.iter().map(|b| format!("{b:02x}")).collect::<String>(),
        parts.len(),
        gbps(bytes as f64, gpu_s),
        rayon::current_num_threads(),
        gbps(bytes as f64, cpu_s),
        cpu_s / gpu_s,
        gbps(bytes as f64, resident_s),
    ));
    Ok(json!({
        "bytes": bytes,
        "part_bytes": sizes.part,
        "parts": parts.len(),
        "gpu_host_s": gpu_s,
        "cpu_s": cpu_s,
        "gpu_device_resident_s": resident,
    }))
}
