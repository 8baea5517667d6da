//! How fast each ICV algorithm authenticates a capture's packets, on one
//! core and on all, against link rates (`linerate packets bench`).
//!
//! The capture is read once; for each algorithm the ICV inputs are built
//! first (what `sign` would MAC: the AH inserted, mutable fields zeroed; or,
//! for packets that already carry an AH, what `verify` would MAC), so only
//! the MAC is timed. One core runs the batch path (multi-buffer HMAC-MD5,
//! the others packet by packet); all cores split the packets into one
//! contiguous share per thread, each thread with its own copy of the keyed
//! state (copied, not re-keyed). Each figure is the median of several
//! repetitions, each long enough to time with `Instant`.

use std::time::{Duration, Instant};

use linerate::mac::MacKey;
use linerate::registry::UMAC_KEY_LEN;
use linerate_packets::batch::Packets;
use linerate_packets::capture::Capture;
use linerate_packets::icv;

use linerate::MacAlgorithm;

use crate::model::rates_row;
use crate::timing::median_of_sorted;

/// Repetitions per figure (the median is reported).
const REPETITIONS: usize = 5;
/// The least time one repetition should take.
const MIN_REPETITION: Duration = Duration::from_millis(200);
/// Packets per MAC call.
const CHUNK: usize = 1024;

/// One pass of `keyed` over every input.
fn pass(keyed: &mut MacKey, inputs: &[&[u8]], seqs: &[u32], tags: &mut [[u8; 16]]) {
    for (chunk, seq) in inputs.chunks(CHUNK).zip(seqs.chunks(CHUNK)) {
        icv::tags(keyed, chunk, seq, &mut tags[..chunk.len()]);
    }
    std::hint::black_box(&tags[0]);
}

/// Median seconds per pass over all inputs on `threads` threads.
fn time(keyed: &MacKey, inputs: &[&[u8]], seqs: &[u32], threads: usize) -> f64 {
    let share = inputs.len().div_ceil(threads).max(1);
    let run = |passes: usize| -> Duration {
        let start = Instant::now();
        std::thread::scope(|scope| {
            for (part, seq) in inputs.chunks(share).zip(seqs.chunks(share)) {
                let mut keyed = keyed.clone();
                scope.spawn(move || {
                    let mut tags = vec![[0u8; 16]; CHUNK];
                    for _ in 0..passes {
                        pass(&mut keyed, part, seq, &mut tags);
                    }
                });
            }
        });
        start.elapsed()
    };
    // A warm-up pass also sizes the repetitions.
    let once = run(1).max(Duration::from_micros(1));
    let passes = (MIN_REPETITION.as_secs_f64() / once.as_secs_f64()).ceil() as usize;
    let passes = passes.max(1);
    let mut times: Vec<f64> = (0..REPETITIONS)
        .map(|_| run(passes).as_secs_f64() / passes as f64)
        .collect();
    times.sort_by(f64::total_cmp);
    median_of_sorted(&times)
}

/// A capture with nothing to time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("no whole, unfragmented IP packets to time")]
pub struct NothingToTime;

/// Times every one of `algs` over the packets of `capture`, on one thread
/// and on `jobs` threads (if more than one); `note` hears of a record that
/// could not be read, `line` gets each line of the table.
pub fn bench(
    capture: Capture<'_>,
    algs: &[MacAlgorithm],
    jobs: usize,
    note: &mut dyn FnMut(usize, &str),
    line: &mut dyn FnMut(&str),
) -> Result<(), NothingToTime> {
    let packets = Packets::collect(capture, note);
    if packets.frames.is_empty() {
        return Err(NothingToTime);
    }
    let n = packets.frames.len();
    line(&format!(
        "{n} IP packets, {} bytes (mean {:.0}); {} other records not timed; \
         median of {REPETITIONS} repetitions",
        packets.ip_bytes,
        packets.ip_bytes as f64 / n as f64,
        packets.others
    ));
    line(&format!(
        "{:<21} {:>7} {:>12} {:>9}  keeps up with",
        "alg", "threads", "packets/s", "Gb/s"
    ));
    // A fixed key: the figures do not depend on it.
    let key: Vec<u8> = (1..=UMAC_KEY_LEN as u8).collect();
    let mut tcp_md5_one_core = None;
    for &alg in algs {
        let batch = packets.inputs(alg);
        let (seqs, ip_bytes) = (batch.seqs, batch.ip_bytes);
        let refs: Vec<&[u8]> = batch.inputs.iter().map(Vec::as_slice).collect();
        if refs.is_empty() {
            // TCP options on a capture without TCP: nothing to time.
            line(&format!("{:<21} no packets it applies to", alg.name()));
            continue;
        }
        let keyed = MacKey::new(alg, &key).expect("a 16-byte key suits every algorithm");
        let mut threads = vec![1];
        if jobs > 1 {
            threads.push(jobs);
        }
        for t in threads {
            let seconds = time(&keyed, &refs, &seqs, t);
            let pps = refs.len() as f64 / seconds;
            let bits = ip_bytes as f64 * 8.0 / seconds;
            if alg == MacAlgorithm::TcpMd5 && t == 1 {
                tcp_md5_one_core = Some(bits);
            }
            line(&format!(
                "{:<21} {t:>7} {pps:>12.0} {:>9.2}  {}",
                alg.name(),
                bits / 1e9,
                rates_row(bits)
            ));
        }
    }
    if let Some(ours) = tcp_md5_one_core {
        line(&kernel_line(ours));
    }
    Ok(())
}

/// Bytes each kernel transfer moves, and the rounds (median taken).
const KERNEL_BYTES: usize = 64 << 20;
const KERNEL_ROUNDS: usize = 3;

/// The kernel's own TCP-MD5 cost beside linerate's one-core figure.
fn kernel_line(ours: f64) -> String {
    match crate::kernel_md5::measure(KERNEL_BYTES, KERNEL_ROUNDS) {
        Ok(cost) => format!(
            "Linux kernel TCP-MD5 on this machine: {:.2} ns per byte per pass, {:.2} Gb/s a core \
             (loopback, {} MiB with and without TCP_MD5SIG, median of {}); tcp-md5 above: {:.1}x",
            cost.seconds_per_byte * 1e9,
            cost.bits_per_second() / 1e9,
            KERNEL_BYTES >> 20,
            cost.rounds,
            ours / cost.bits_per_second()
        ),
        Err(why) => format!("Linux kernel TCP-MD5: not measured ({why})"),
    }
}
