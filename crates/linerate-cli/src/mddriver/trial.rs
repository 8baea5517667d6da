//! `-t`: mddriver's MDTimeTrial, plus what a figure needs today to mean
//! something: the backend, the core clock and cycles/byte.
//!
//! The first four lines keep the RFC's shape (`MD5 time trial. Digesting N
//! M-byte blocks ... done`, `Digest = `, `Time = ` seconds, `Speed = `
//! bytes/second) so that scripts written for mddriver still parse them.
//! Differences: `Time` has microseconds instead of whole seconds (a trial
//! lasts about one), and the first line names the count, then the size
//! (mddriver passed its two constants the other way round, unnoticed because
//! both were 1000).
//!
//! The blocks hold mddriver's pattern, `block[i] = i & 0xff`. With `--cold`
//! every block is read from a different place in a buffer four times the
//! size of the last-level cache, each place holding a copy of that same
//! block, so nothing read is still cached when its turn comes (RFC 1810's
//! "prohibit on-chip caching of the data block"). The bytes hashed, and so
//! the digest, are the same as without `--cold`: COUNT copies of the block.
//!
//! The same trial times MD5-P/K for `linerate md5p -t`: the first line names
//! the function (`MD5-P/16 time trial. ...`), `Backend` is the lanes
//! backend, and everything else is unchanged. The timed loop is generic over
//! [`Digester`], so each function's loop is compiled without dispatch.

use super::hex;
use crate::PROGRAM;
use crate::output::print_or_quiet;
use linerate::HashAlgorithm;
use linerate::{Md5, Md5p, clock};
use std::fs;
use std::path::Path;
use std::time::Instant;

/// 16 KiB blocks: OpenSSL `speed`'s largest size, and so the size of the
/// single-stream anchor figures; a multiple of 64, so every update goes
/// straight to the compression function. (RFC 1321's 1000-byte blocks would
/// time the partial-block buffering as well, and its 1000 of them take a
/// millisecond now.)
pub const DEFAULT_BLOCK_SIZE: usize = 16 * 1024;

/// About 0.98 GB: a second at the AVX-512 backend's ~880 MB/s, long enough
/// to swamp timer resolution and a scheduler tick, short enough to repeat.
pub const DEFAULT_COUNT: usize = 60_000;

/// Larger blocks than this are a typo, and would only cost memory.
const MAX_BLOCK_SIZE: usize = 1 << 30;

/// `--cold` reads from a buffer this many times the last-level cache.
const COLD_CACHE_MULTIPLE: u64 = 4;

/// The last-level cache size assumed where the kernel does not say.
const ASSUMED_LAST_LEVEL_CACHE: u64 = 64 << 20;

/// Cycles per byte one MD5 stream cannot beat: each of a block's 64 steps
/// waits for the previous one through four 1-cycle operations (the boolean
/// function, an add, the rotate, an add: RFC 1810's analysis), 256 cycles
/// per 64 bytes.
const LATENCY_BOUND_CYCLES_PER_BYTE: f64 = 4.0;

/// Clock readings before and after that differ by more than this make the
/// cycles/byte figure doubtful, and the report says so.
const CLOCK_MOVED_WARNING: f64 = 0.05;

/// The time trial's settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    pub block_size: usize,
    pub count: usize,
    pub cold: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            block_size: DEFAULT_BLOCK_SIZE,
            count: DEFAULT_COUNT,
            cold: false,
        }
    }
}

impl Options {
    /// Rejects a trial whose byte count does not fit in 64 bits.
    pub fn check(&self) -> Result<(), String> {
        self.total_bytes()
            .map(drop)
            .ok_or_else(|| "--count times --block-size is too many bytes".to_string())
    }

    fn total_bytes(&self) -> Option<u64> {
        u64::try_from(self.count)
            .ok()?
            .checked_mul(u64::try_from(self.block_size).ok()?)
    }
}

/// `--block-size`'s value: a positive integer, with an optional `K` or `M`
/// suffix for KiB or MiB, at most 1 GiB.
pub fn parse_block_size(value: &[u8]) -> Result<usize, String> {
    parse_size(value)
        .and_then(|n| usize::try_from(n).ok())
        .filter(|n| (1..=MAX_BLOCK_SIZE).contains(n))
        .ok_or_else(|| {
            format!(
                "invalid block size '{}': give 1 to {MAX_BLOCK_SIZE} bytes, e.g. 16384 or 16K",
                String::from_utf8_lossy(value)
            )
        })
}

/// `--count`'s value: a positive integer.
pub fn parse_count(value: &[u8]) -> Result<usize, String> {
    std::str::from_utf8(value)
        .ok()
        .and_then(|text| text.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .ok_or_else(|| {
            format!(
                "invalid count '{}': give a positive number of blocks",
                String::from_utf8_lossy(value)
            )
        })
}

/// A byte count with an optional `K` or `M` suffix (binary, either case), as
/// both `--block-size` and the kernel's cache sizes ("107520K") write it.
fn parse_size(text: &[u8]) -> Option<u64> {
    let (digits, unit) = match text.split_last()? {
        (b'k' | b'K', digits) => (digits, 1 << 10),
        (b'm' | b'M', digits) => (digits, 1 << 20),
        _ => (text, 1),
    };
    // `parse` alone would accept a sign.
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(digits)
        .ok()?
        .parse::<u64>()
        .ok()?
        .checked_mul(unit)
}

/// Runs the trial of `algorithm` and prints it; `false` if its memory could
/// not be had.
pub fn run(options: &Options, algorithm: HashAlgorithm) -> bool {
    let blocks = match Blocks::new(options) {
        Ok(blocks) => blocks,
        Err(message) => {
            eprintln!("{PROGRAM}: time trial: {message}");
            return false;
        }
    };
    // mddriver prints this much, flushes, hashes, then prints " done".
    print_or_quiet(
        format!(
            "{} time trial. Digesting {} {}-byte blocks ...",
            algorithm.label(),
            options.count,
            options.block_size
        )
        .as_bytes(),
    );
    // The clock is read right before and right after the timed run, so the
    // cycles/byte figure uses the clock the run had.
    let clock_before = clock::core_hz();
    let timed = match algorithm {
        HashAlgorithm::Md5 => hash_blocks(&blocks, options.count, Md5::new()),
        HashAlgorithm::Md5p(k) => hash_blocks(
            &blocks,
            options.count,
            Md5p::new(k).expect("an HashAlgorithm holds a valid K"),
        ),
    };
    let clock_after = clock::core_hz();
    let report = Report {
        options,
        algorithm,
        blocks: &blocks,
        timed,
        clock_before,
        clock_after,
    };
    print_or_quiet(report.to_string().as_bytes());
    true
}

/// The data the trial reads: one block, or with `--cold` many copies of it.
struct Blocks {
    buffer: Vec<u8>,
    block_size: usize,
    /// How the blocks are laid out, for the report.
    description: String,
}

impl Blocks {
    fn new(options: &Options) -> Result<Blocks, String> {
        let size = options.block_size;
        // mddriver: block[i] = (unsigned char)(i & 0xff).
        let block: Vec<u8> = (0..size).map(|i| i as u8).collect();
        if !options.cold {
            return Ok(Blocks {
                buffer: block,
                block_size: size,
                description: format!(
                    "one {size}-byte block, hashed {} times (cached after the first)",
                    options.count
                ),
            });
        }
        let (cache, cache_known) = match last_level_cache_size() {
            Some(bytes) => (bytes, "the"),
            None => (ASSUMED_LAST_LEVEL_CACHE, "an assumed"),
        };
        let copies = (COLD_CACHE_MULTIPLE * cache).div_ceil(size as u64).max(1);
        let bytes = usize::try_from(copies * size as u64)
            .map_err(|_| format!("a {copies}-block buffer does not fit in memory"))?;
        let mut buffer = Vec::new();
        buffer
            .try_reserve_exact(bytes)
            .map_err(|_| format!("cannot allocate {bytes} bytes for --cold"))?;
        // Writing every copy also takes the page faults before the clock
        // starts; the first copies are long evicted when the run reads them.
        for _ in 0..copies {
            buffer.extend_from_slice(&block);
        }
        Ok(Blocks {
            buffer,
            block_size: size,
            description: format!(
                "cold: {copies} copies of the block in a {} buffer \
                 ({COLD_CACHE_MULTIPLE} x {cache_known} {} last-level cache), read in turn",
                mebibytes(bytes as u64),
                mebibytes(cache),
            ),
        })
    }

    /// The blocks in the order the trial hashes them: each copy in turn,
    /// starting over at the end of the buffer.
    fn sequence(&self, count: usize) -> impl Iterator<Item = &[u8]> {
        self.buffer
            .chunks_exact(self.block_size)
            .cycle()
            .take(count)
    }
}

/// The largest data or unified cache of CPU 0, from Linux's sysfs.
fn last_level_cache_size() -> Option<u64> {
    let caches = fs::read_dir("/sys/devices/system/cpu/cpu0/cache").ok()?;
    caches
        .filter_map(Result::ok)
        .filter(|entry| entry.file_name().to_string_lossy().starts_with("index"))
        .filter(|entry| read_trimmed(&entry.path().join("type")).as_deref() != Some("Instruction"))
        .filter_map(|entry| parse_size(read_trimmed(&entry.path().join("size"))?.as_bytes()))
        .max()
}

fn read_trimmed(path: &Path) -> Option<String> {
    Some(fs::read_to_string(path).ok()?.trim().to_string())
}

fn mebibytes(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / f64::from(1 << 20))
}

/// What the timed run produced.
struct Timed {
    digest: [u8; 16],
    seconds: f64,
    /// The backend's name.
    backend: String,
}

/// The timed part: exactly mddriver's MDInit, COUNT MDUpdates, MDFinal,
/// with `hasher` fresh from its init.
fn hash_blocks<D: Digester>(blocks: &Blocks, count: usize, mut hasher: D) -> Timed {
    let backend = hasher.backend_name();
    let start = Instant::now();
    for block in blocks.sequence(count) {
        hasher.absorb(block);
    }
    let digest = hasher.digest();
    let seconds = start.elapsed().as_secs_f64();
    Timed {
        digest,
        seconds,
        backend,
    }
}

/// The lines printed after " done".
struct Report<'a> {
    options: &'a Options,
    algorithm: HashAlgorithm,
    blocks: &'a Blocks,
    timed: Timed,
    clock_before: Option<f64>,
    clock_after: Option<f64>,
}

impl Report<'_> {
    /// Bytes per second; a run too short for the timer counts as 1 ns so
    /// that nothing divides by zero.
    fn speed(&self) -> f64 {
        let bytes = self.options.total_bytes().unwrap_or(u64::MAX) as f64;
        bytes / self.timed.seconds.max(1e-9)
    }

    fn clock_line(&self) -> String {
        let (Some(before), Some(after)) = (self.clock_before, self.clock_after) else {
            return "Clock = not measured (no clock estimator for this CPU)".into();
        };
        let hz = (before + after) / 2.0;
        let bound = match self.algorithm {
            HashAlgorithm::Md5 => {
                format!("one MD5 stream's latency bound is {LATENCY_BOUND_CYCLES_PER_BYTE:.2}")
            }
            // K independent chains divide the latency bound by K until the
            // vector units, not the chain, are the limit.
            HashAlgorithm::Md5p(k) => format!(
                "{k} chains: the latency bound of one stream / K is {:.2}",
                LATENCY_BOUND_CYCLES_PER_BYTE / k as f64
            ),
        };
        let mut line = format!(
            "Clock = {:.2} GHz (measured), {:.2} cycles/byte; {bound}",
            hz / 1e9,
            hz / self.speed(),
        );
        let moved = (after - before) / before;
        if moved.abs() > CLOCK_MOVED_WARNING {
            line += &format!(
                " (clock moved {:+.1}%: {:.2} GHz before, {:.2} GHz after)",
                moved * 100.0,
                before / 1e9,
                after / 1e9
            );
        }
        line
    }
}

impl std::fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let speed = self.speed();
        // RFC 1321's lines, in its shape.
        writeln!(f, " done")?;
        writeln!(f, "Digest = {}", hex(&self.timed.digest))?;
        writeln!(f, "Time = {:.6} seconds", self.timed.seconds)?;
        writeln!(f, "Speed = {} bytes/second", speed as u64)?;
        // linerate's own.
        writeln!(f, "Backend = {}", self.timed.backend)?;
        writeln!(f, "Data = {}", self.blocks.description)?;
        // RFC 1810 quotes megabits per second.
        writeln!(
            f,
            "Rate = {:.1} MB/s, {:.0} Mbit/s",
            speed / 1e6,
            speed * 8.0 / 1e6
        )?;
        writeln!(f, "{}", self.clock_line())
    }
}

/// A hasher the time trial can drive; implemented by both functions'
/// hashers so that the timed loop is compiled for each without dispatch.
pub trait Digester {
    /// Absorbs `data`.
    fn absorb(&mut self, data: &[u8]);
    /// The digest of everything absorbed.
    fn digest(self) -> [u8; 16];
    /// The backend that computes it, for reports.
    fn backend_name(&self) -> String;
}

impl Digester for Md5 {
    fn absorb(&mut self, data: &[u8]) {
        self.update(data);
    }

    fn digest(self) -> [u8; 16] {
        self.finalize()
    }

    fn backend_name(&self) -> String {
        self.backend().to_string()
    }
}

impl Digester for Md5p {
    fn absorb(&mut self, data: &[u8]) {
        self.update(data);
    }

    fn digest(self) -> [u8; 16] {
        self.finalize()
    }

    fn backend_name(&self) -> String {
        self.backend().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size(b"16384"), Some(16384));
        assert_eq!(parse_size(b"16K"), Some(16384));
        assert_eq!(parse_size(b"107520K"), Some(107520 << 10));
        assert_eq!(parse_size(b"2m"), Some(2 << 20));
        for bad in [
            &b""[..],
            b"K",
            b"+5",
            b"-5",
            b"1.5K",
            b"12Q",
            b"99999999999999999999",
        ] {
            assert_eq!(parse_size(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
        assert!(parse_block_size(b"2G").is_err());
        assert!(parse_block_size(b"1025M").is_err());
        assert_eq!(parse_block_size(b"1M"), Ok(1 << 20));
    }

    #[test]
    fn counts() {
        assert_eq!(parse_count(b"60000"), Ok(60000));
        assert!(parse_count(b"0").is_err());
        assert!(parse_count(b"-1").is_err());
        assert!(parse_count(b"1K").is_err());
    }

    #[test]
    fn warm_blocks_repeat_mddrivers_pattern() {
        let options = Options {
            block_size: 300,
            count: 3,
            cold: false,
        };
        let blocks = Blocks::new(&options).unwrap();
        let hashed: Vec<&[u8]> = blocks.sequence(3).collect();
        assert_eq!(hashed.len(), 3);
        assert!(
            hashed
                .iter()
                .all(|b| b.len() == 300 && b[255] == 255 && b[256] == 0)
        );
    }

    #[test]
    fn clock_line_flags_a_moving_clock() {
        let options = Options::default();
        let blocks = Blocks::new(&Options {
            block_size: 64,
            count: 1,
            cold: false,
        })
        .unwrap();
        let report = |before: f64, after: f64| Report {
            options: &options,
            algorithm: HashAlgorithm::Md5,
            blocks: &blocks,
            timed: Timed {
                digest: [0; 16],
                seconds: 1.0,
                backend: "portable".into(),
            },
            clock_before: Some(before),
            clock_after: Some(after),
        };
        let steady = report(3.5e9, 3.6e9).clock_line();
        assert!(
            steady.starts_with("Clock = 3.55 GHz (measured), "),
            "{steady}"
        );
        assert!(!steady.contains("moved"), "{steady}");
        let moved = report(3.0e9, 3.6e9).clock_line();
        assert!(moved.contains("(clock moved +20.0%"), "{moved}");
    }
}
