//! linerate's AVX-512 lanes engine against isa-l_crypto's x16x2 kernel on
//! the same 32 buffers, alternating in one process: `ROUNDS` rounds of one
//! call each, medians, the core clock measured before and after.
//!
//! Usage: `lanes-vs-isal [BYTES_PER_LANE [ROUNDS [LAYOUT]]]` (default 1 MiB,
//! 15, `vec`). LAYOUT places the 32 lane buffers: `vec`, one `Vec` each as
//! the allocator gives it (a large one starts 16 bytes past a page, so
//! every 64-byte row straddles two cache lines); `aligned`, one `Vec` each,
//! the lane from its first 64-byte boundary; `staggered`, as `aligned` but
//! lane L starts L cache lines further (so the lanes' rows fall in distinct
//! L1 sets); `packed`, one buffer with the lanes BYTES_PER_LANE + 4160 bytes
//! apart from a page boundary.

use linerate::lanes::{LaneState, Lanes, LanesBackend};
use std::time::Instant;

/// isa-l_crypto's MD5_ARGS_X32: transposed digests, then the lane pointers.
#[repr(C)]
struct Args {
    digest: [[u32; 32]; 4],
    data: [*const u8; 32],
}

unsafe extern "C" {
    /// wrapper.asm: md5_mb_x16x2_avx512 with callee-saved registers kept.
    fn isal_x16x2(args: *mut Args, blocks: u64);
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let mut argv = std::env::args().skip(1);
    let len: usize = argv
        .next()
        .map_or(1 << 20, |s| s.parse().expect("bytes per lane"));
    let rounds: usize = argv.next().map_or(15, |s| s.parse().expect("rounds"));
    let layout = argv.next().unwrap_or_else(|| "vec".into());
    assert!(
        len >= 256 && len % 64 == 0,
        "bytes per lane: a multiple of 64, at least 256"
    );
    let lanes = Lanes::new(LanesBackend::Avx512).expect("this CPU has no AVX-512");
    let fill = |lane: usize, n: usize| -> Vec<u8> {
        (0..n).map(|i| (i * 7 + lane * 13 + 3) as u8).collect()
    };
    // The buffers, and where each lane starts: (buffer, offset).
    let (owned, starts): (Vec<Vec<u8>>, Vec<(usize, usize)>) = match layout.as_str() {
        "vec" => (
            (0..32).map(|l| fill(l, len)).collect(),
            (0..32).map(|l| (l, 0)).collect(),
        ),
        "aligned" | "staggered" => {
            // Staggered: lane L starts L lines past its first 64-byte boundary.
            let step = if layout == "staggered" { 64 } else { 0 };
            let owned: Vec<Vec<u8>> = (0..32).map(|l| fill(l, len + 64 + 31 * step)).collect();
            let starts = owned
                .iter()
                .enumerate()
                .map(|(l, v)| (l, v.as_ptr().addr().wrapping_neg() % 64 + step * l))
                .collect();
            (owned, starts)
        }
        "packed" => {
            let pitch = len + 4160;
            let one = fill(0, 32 * pitch + 4096);
            let first = one.as_ptr().addr().wrapping_neg() % 4096;
            (vec![one], (0..32).map(|l| (0, first + l * pitch)).collect())
        }
        other => panic!("layout {other}: give vec, aligned, staggered or packed"),
    };
    let slices: Vec<&[u8]> = starts
        .iter()
        .map(|&(b, at)| &owned[b][at..at + len])
        .collect();
    let mut state = LaneState::new();
    let mut args = Args {
        digest: [[0; 32]; 4],
        data: [std::ptr::null(); 32],
    };
    let point = |args: &mut Args| {
        for (p, d) in args.data.iter_mut().zip(&slices) {
            *p = d.as_ptr();
        }
    };
    // Both must compute the same chaining values before either is timed.
    for lane in 0..32 {
        let s = state.get(lane);
        for w in 0..4 {
            args.digest[w][lane] = s[w];
        }
    }
    point(&mut args);
    lanes.compress(&mut state, &slices, 4, 64);
    // SAFETY: 32 readable buffers of at least 4 blocks; `args` is the layout
    // the kernel expects.
    unsafe { isal_x16x2(&mut args, 4) };
    for lane in 0..32 {
        let s = state.get(lane);
        for w in 0..4 {
            assert_eq!(args.digest[w][lane], s[w], "lane {lane} word {w} differs");
        }
    }
    let hz_before = linerate::clock::core_hz().unwrap_or(f64::NAN);
    let (mut ours, mut isal) = (Vec::new(), Vec::new());
    let bytes = (32 * len) as f64;
    for _ in 0..rounds {
        let t = Instant::now();
        lanes.compress(&mut state, &slices, len / 64, 64);
        ours.push(bytes / t.elapsed().as_secs_f64());
        point(&mut args);
        let t = Instant::now();
        // SAFETY: as above, `len / 64` blocks per lane.
        unsafe { isal_x16x2(&mut args, (len / 64) as u64) };
        isal.push(bytes / t.elapsed().as_secs_f64());
    }
    let hz_after = linerate::clock::core_hz().unwrap_or(f64::NAN);
    let hz = (hz_before + hz_after) / 2.0;
    let (o, i) = (median(ours), median(isal));
    println!(
        "32 x {len} B ({layout}), {rounds} rounds: linerate {:.2} GB/s ({:.3} cycles/B), isa-l_crypto {:.2} GB/s ({:.3} cycles/B), ratio {:.3}; clock {:.2} -> {:.2} GHz",
        o / 1e9,
        hz / o,
        i / 1e9,
        hz / i,
        o / i,
        hz_before / 1e9,
        hz_after / 1e9
    );
}
