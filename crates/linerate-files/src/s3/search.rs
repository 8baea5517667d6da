//! The part-size search behind `--match` and `--check`: which part size
//! makes a file's ETag the given one.
//!
//! An ETag `HEX-N` says the upload had N parts, so only part sizes giving
//! exactly N parts are tried ([`sizes_giving`]): first the common clients'
//! defaults ([`default_sizes`]), then every whole MiB in the range, rounder
//! ones first ([`whole_mib_sizes`]). A plain
//! ETag is compared with the file's MD5, and `HEX-1` with the MD5 of it:
//! one part, any part size that holds the file.
//!
//! Candidates are hashed together on the part hasher ([`crate::engine`]):
//! the first part of every candidate is a prefix of the file, so one
//! single-stream pass snapshots the MD5 at each candidate's part size, while
//! the workers hash the other parts of all candidates in their lanes. The
//! search stops at the first match. The exhaustive phase is bounded by
//! `--max-work` (bytes hashed); what it could not try is reported.

use std::collections::HashMap;
use std::fs::File;
use std::io;
use std::sync::Arc;

use linerate::HashAlgorithm;

use super::Etag;
use super::assemble::Assembler;
use super::layout::{AWS_PART_SIZE, S3_MAX_PART, aws_part_size, sizes_giving};
use super::size::{GIB, MIB, exact, exact_and_human, human};
use crate::engine::{self, Item, Segment, Source};
use crate::{FileError, Input, Progress};

/// The least work a search may do in its exhaustive phase by default...
pub const DEFAULT_MAX_WORK: u64 = 64 * GIB;
/// ...or this many times the file's size, if more.
pub const DEFAULT_MAX_WORK_FILES: u64 = 4;

/// Part sizes of common clients, tried first, in this order; then the AWS
/// CLI's rule doubled further (16 MiB, 32 MiB, ... up to 4 GiB).
pub const COMMON_SIZES: &[u64] = &[
    8 * MIB,
    5 * MIB,
    15_000_000,
    15 * MIB,
    16 * MIB,
    50 * MIB,
    64 * MIB,
    100 * MIB,
    128 * MIB,
    256 * MIB,
    512 * MIB,
    GIB,
];

/// How the ETag came about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    /// One PUT: the ETag is the file's MD5.
    Plain,
    /// A multipart upload with this part size.
    PartSize(u64),
    /// A one-part upload of a file this long: any part size that holds it.
    OnePart(u64),
}

impl Found {
    /// How `--check` says it: `part size 8 MiB`.
    pub fn short(&self) -> String {
        match *self {
            Found::Plain => "plain MD5".into(),
            Found::PartSize(size) => format!("part size {}", exact(size)),
            Found::OnePart(0) => "one empty part".into(),
            Found::OnePart(len) => format!("one part, part size >= {}", exact(len)),
        }
    }

    /// How `--match` says it, exactly: `part size 8388608 bytes (8 MiB)`.
    pub fn long(&self) -> String {
        match *self {
            Found::Plain => "plain MD5 (uploaded in one PUT)".into(),
            Found::PartSize(size) => format!("part size {}", exact_and_human(size)),
            Found::OnePart(0) => "one empty part (any part size)".into(),
            Found::OnePart(len) => {
                format!("one part: any part size >= {}", exact_and_human(len))
            }
        }
    }
}

/// The exhaustive phase stopped at `--max-work` before trying every size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cut {
    pub tried: u64,
    pub candidates: u64,
    /// Bytes the untried candidates would hash.
    pub left: u64,
    pub max_work: u64,
}

impl Cut {
    /// The one-line explanation.
    pub fn message(&self, parts: u64) -> String {
        format!(
            "searched {} of {} whole-MiB part sizes giving {parts} parts (rounder first), up to \
             --max-work {}; the others would hash {} more",
            self.tried,
            self.candidates,
            human(self.max_work),
            human(self.left)
        )
    }
}

/// What a search came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Found(Found),
    /// No part size tried matches; `Some` if `--max-work` cut the search.
    NotFound(Option<Cut>),
    /// No part size splits the file into the ETag's number of parts.
    NoSuchSplit,
}

impl Verdict {
    /// Why nothing was found for a value of `parts` parts (an ETag's or a
    /// composite checksum's), for stderr: `None` when "no match" says it all.
    pub fn explanation(&self, len: u64, parts: Option<u64>) -> Option<String> {
        match (self, parts) {
            (Verdict::NotFound(Some(cut)), Some(parts)) => Some(cut.message(parts)),
            (Verdict::NoSuchSplit, Some(parts)) => Some(format!(
                "no part size splits {len} bytes into {parts} parts"
            )),
            _ => None,
        }
    }
}

/// A regular file to search, or the error that says why it cannot be
/// searched: standard input counts when it is redirected from a file.
///
/// A path is opened without waiting ([`Input::open_without_waiting`]), so that a
/// FIFO with no writer (which a plain open waits on for ever) or a device
/// cannot hold the search; its type is read from the descriptor itself.
pub fn open_for_search(input: Input<'_>) -> io::Result<(Arc<File>, u64)> {
    let (file, meta) = input.open_without_waiting()?;
    if meta.is_dir() {
        // EISDIR, as reading it would report.
        return Err(io::Error::from_raw_os_error(21));
    }
    if !meta.is_file() {
        return Err(io::Error::other(
            "not a regular file (a search reads parts at many offsets)",
        ));
    }
    Ok((Arc::new(file), meta.len()))
}

/// Searches the part size that gives `target` for `file` of `len` bytes.
pub struct Search<'a> {
    pub progress: &'a dyn Progress,
    /// The input searched, for progress reports.
    pub input: Input<'a>,
    pub file: Arc<File>,
    pub len: u64,
    pub threads: usize,
    /// `--max-work`, if given.
    pub max_work: Option<u64>,
}

impl Search<'_> {
    pub fn run(&mut self, target: &Etag) -> Result<Verdict, FileError> {
        let Some(parts) = target.parts else {
            let found = self.try_sizes(&[self.len.max(1)], target)?;
            return Ok(verdict(found.map(|_| Found::Plain)));
        };
        let Some((low, high)) = sizes_giving(self.len, parts) else {
            return Ok(Verdict::NoSuchSplit);
        };
        if parts == 1 {
            let found = self.try_sizes(&[low], target)?;
            return Ok(verdict(found.map(|_| Found::OnePart(self.len))));
        }
        let common = default_sizes(self.len, low, high);
        if let Some(size) = self.try_sizes(&common, target)? {
            return Ok(Verdict::Found(Found::PartSize(size)));
        }
        let max_work = self.max_work.unwrap_or_else(|| {
            DEFAULT_MAX_WORK.max(self.len.saturating_mul(DEFAULT_MAX_WORK_FILES))
        });
        let (sizes, cut) = whole_mib_sizes(self.len, low, high, &common, max_work);
        match self.try_sizes(&sizes, target)? {
            Some(size) => Ok(Verdict::Found(Found::PartSize(size))),
            None => Ok(Verdict::NotFound(cut)),
        }
    }

    /// The first of `sizes` (all giving the target's part count) that
    /// reproduces `target`, hashing them all at once.
    fn try_sizes(&mut self, sizes: &[u64], target: &Etag) -> Result<Option<u64>, FileError> {
        if sizes.is_empty() {
            return Ok(None);
        }
        let parts = target.parts.unwrap_or(1);
        let source = Candidates::new(Arc::clone(&self.file), self.len, sizes, parts);
        let work = source.bytes_left;
        self.progress.begin_file(self.input, Some(work));
        let found = engine::run(
            source,
            HashAlgorithm::Md5,
            self.threads,
            self.progress,
            |results| {
                let mut assemblers: HashMap<usize, Assembler> = HashMap::new();
                while let Some(((candidate, part), result)) = results.recv() {
                    let digest = result?;
                    let etag = if target.parts.is_none() {
                        Etag {
                            digest,
                            parts: None,
                        }
                    } else {
                        let assembler = assemblers
                            .entry(candidate)
                            .or_insert_with(|| Assembler::new(parts));
                        assembler.add(part, digest);
                        if !assembler.is_complete() {
                            continue;
                        }
                        let etag = assembler.finish();
                        assemblers.remove(&candidate);
                        etag
                    };
                    if etag == *target {
                        return Ok(Some(sizes[candidate]));
                    }
                }
                Ok(None)
            },
        );
        self.progress.end_file();
        found
    }
}

fn verdict(found: Option<Found>) -> Verdict {
    match found {
        Some(found) => Verdict::Found(found),
        None => Verdict::NotFound(None),
    }
}

/// The common part sizes within `low..=high`, in the order they are tried:
/// [`COMMON_SIZES`], the AWS CLI's size for this file, then 8 MiB doubled.
pub fn default_sizes(len: u64, low: u64, high: u64) -> Vec<u64> {
    let doubled = std::iter::successors(Some(AWS_PART_SIZE * 2), |&s| Some(s * 2))
        .take_while(|&s| s <= S3_MAX_PART);
    let mut sizes: Vec<u64> = Vec::new();
    for size in COMMON_SIZES
        .iter()
        .copied()
        .chain([aws_part_size(len)])
        .chain(doubled)
    {
        if (low..=high).contains(&size) && !sizes.contains(&size) {
            sizes.push(size);
        }
    }
    sizes
}

/// Steps, in MiB, of the whole-MiB candidates: the multiples of each are
/// tried before those of the next, rounder sizes being likelier choices.
pub const ROUND_STEPS: &[u64] = &[
    4096, 2048, 1024, 1000, 512, 500, 256, 250, 128, 100, 64, 50, 32, 25, 16, 10, 8, 5, 4, 2, 1,
];

/// Every whole MiB within `low..=high` not in `tried`, rounder sizes first
/// ([`ROUND_STEPS`]), each step's ascending, as many as `max_work` bytes of
/// hashing allow; and what was left out, if any.
pub fn whole_mib_sizes(
    len: u64,
    low: u64,
    high: u64,
    tried: &[u64],
    max_work: u64,
) -> (Vec<u64>, Option<Cut>) {
    let first = low.div_ceil(MIB).max(1);
    let last = high / MIB;
    if first > last {
        return (Vec::new(), None);
    }
    let tried: Vec<u64> = tried
        .iter()
        .filter(|&&size| size % MIB == 0 && (first..=last).contains(&(size / MIB)))
        .map(|&size| size / MIB)
        .collect();
    // Each candidate hashes the rest of the file itself; the first parts
    // come from one pass, about 1 MiB more per candidate.
    let rest = |k: u64| len - k * MIB;
    let mut sizes = Vec::new();
    let mut work = 0u64;
    let mut rest_done: u128 = tried.iter().map(|&k| u128::from(rest(k))).sum();
    let mut cut = false;
    'steps: for (i, &step) in ROUND_STEPS.iter().enumerate() {
        let mut k = first.div_ceil(step) * step;
        while k <= last {
            let earlier = ROUND_STEPS[..i].iter().any(|&s| k % s == 0);
            if !earlier && !tried.contains(&k) {
                let cost = rest(k) + MIB;
                if work.saturating_add(cost) > max_work {
                    cut = true;
                    break 'steps;
                }
                work += cost;
                rest_done += u128::from(rest(k));
                sizes.push(k * MIB);
            }
            k += step;
        }
    }
    if !cut {
        return (sizes, None);
    }
    let candidates = last - first + 1;
    // The rest over every candidate: the sum of len - k MiB for k in first..=last.
    let count = u128::from(candidates);
    let rest_all = count * u128::from(len) - u128::from(MIB) * count * u128::from(first + last) / 2;
    let cut = Cut {
        tried: (sizes.len() + tried.len()) as u64,
        candidates,
        left: u64::try_from(rest_all - rest_done).unwrap_or(u64::MAX),
        max_work,
    };
    (sizes, Some(cut))
}

/// The segments of a set of candidate part sizes: one pass over the
/// first parts of all of them, then the other parts, candidate after
/// candidate. Tags are `(candidate, part)`.
struct Candidates<'a> {
    file: Arc<File>,
    len: u64,
    sizes: &'a [u64],
    parts: u64,
    /// The first-parts pass, until it is handed out.
    prefix: Option<Segment<(usize, u64)>>,
    candidate: usize,
    part: u64,
    bytes_left: u64,
}

impl<'a> Candidates<'a> {
    fn new(file: Arc<File>, len: u64, sizes: &'a [u64], parts: u64) -> Candidates<'a> {
        let mut order: Vec<usize> = (0..sizes.len()).collect();
        order.sort_unstable_by_key(|&i| sizes[i]);
        let first_part = |i: usize| sizes[i].min(len);
        let longest = order[order.len() - 1];
        let prefixes = order[..order.len() - 1]
            .iter()
            .map(|&i| (first_part(i), (i, 0)))
            .collect();
        let prefix = Segment {
            file: Arc::clone(&file),
            offset: 0,
            len: first_part(longest),
            ends_file: false,
            tag: (longest, 0),
            prefixes,
        };
        let rest: u64 = sizes.iter().map(|&s| len - s.min(len)).sum();
        Candidates {
            bytes_left: prefix.len + rest,
            prefix: Some(prefix),
            file,
            len,
            sizes,
            parts,
            candidate: 0,
            part: 1,
        }
    }
}

impl Source<(usize, u64)> for Candidates<'_> {
    fn next(&mut self) -> Option<Item<(usize, u64)>> {
        if let Some(prefix) = self.prefix.take() {
            self.bytes_left -= prefix.len;
            return Some(Item::Segment(prefix));
        }
        if self.part == self.parts {
            self.candidate += 1;
            self.part = 1;
        }
        let size = *self.sizes.get(self.candidate)?;
        if self.part >= self.parts {
            return None;
        }
        let offset = self.part * size;
        let len = size.min(self.len - offset);
        let tag = (self.candidate, self.part);
        self.part += 1;
        self.bytes_left -= len;
        Some(Item::Segment(Segment {
            file: Arc::clone(&self.file),
            offset,
            len,
            ends_file: false,
            tag,
            prefixes: Vec::new(),
        }))
    }

    fn bytes_left(&self) -> u64 {
        self.bytes_left
    }

    fn segments_left(&self) -> usize {
        // The first-parts pass, then every other part of every candidate.
        let rest = (self.sizes.len() - self.candidate) as u64 * self.parts.saturating_sub(1);
        usize::from(self.prefix.is_some())
            + usize::try_from(rest.saturating_sub(self.part.saturating_sub(1)))
                .unwrap_or(usize::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_sizes_giving_the_part_count_in_order() {
        // 100 MiB in 2 parts: 50 MiB up to 100 MiB - 1 byte.
        let (low, high) = sizes_giving(100 * MIB, 2).expect("range");
        assert_eq!(
            default_sizes(100 * MIB, low, high),
            vec![50 * MIB, 64 * MIB]
        );
        // 40 MiB in 5 parts: exactly 8 MiB up to 10 MiB - 1.
        let (low, high) = sizes_giving(40 * MIB, 5).expect("range");
        assert_eq!(default_sizes(40 * MIB, low, high), vec![8 * MIB]);
        // 30 MB in 2 parts: 15 MB (15,000,000) and 15 MiB and 16 MiB.
        let (low, high) = sizes_giving(30_000_000, 2).expect("range");
        assert_eq!(
            default_sizes(30_000_000, low, high),
            vec![15_000_000, 15 * MIB, 16 * MIB]
        );
        // The doubled sizes: 6 GiB in 3 parts takes 2 GiB.
        let (low, high) = sizes_giving(6 * GIB, 3).expect("range");
        assert_eq!(default_sizes(6 * GIB, low, high), vec![2 * GIB]);
        // 100 GiB by the AWS rule: 16 MiB parts, 6,400 of them.
        let (low, high) = sizes_giving(100 * GIB, 6400).expect("range");
        assert_eq!(default_sizes(100 * GIB, low, high), vec![16 * MIB]);
    }

    #[test]
    fn whole_mib_sizes_rounder_first_skip_the_tried_and_stop_at_the_budget() {
        // 10 MiB + 1 in 2 parts: 5 MiB + 1 byte .. 10 MiB; 8 MiB was tried.
        let len = 10 * MIB + 1;
        let (low, high) = sizes_giving(len, 2).expect("range");
        let (sizes, cut) = whole_mib_sizes(len, low, high, &[8 * MIB], u64::MAX);
        assert_eq!(sizes, vec![10 * MIB, 6 * MIB, 7 * MIB, 9 * MIB]);
        assert_eq!(cut, None);
        // Each costs len - size + 1 MiB: 1 MiB + 1 for 10 MiB, 5 MiB + 1
        // for 6 MiB, then 4 MiB + 1 for 7 MiB is too much.
        let (sizes, cut) = whole_mib_sizes(len, low, high, &[8 * MIB], 10 * MIB);
        assert_eq!(sizes, vec![10 * MIB, 6 * MIB]);
        let cut = cut.expect("cut");
        assert_eq!((cut.tried, cut.candidates), (3, 5));
        // Left: 7 and 9 MiB, whose second parts are 3 MiB + 1 and 1 MiB + 1.
        assert_eq!(cut.left, 4 * MIB + 2);
        // Multiples of 1 GiB, 1000 MiB, 512 MiB come before the rest.
        let len = 6000 * MIB;
        let (low, high) = sizes_giving(len, 2).expect("range");
        let (sizes, _) = whole_mib_sizes(len, low, high, &[], u64::MAX);
        let first: Vec<u64> = sizes[..6].iter().map(|s| s / MIB).collect();
        assert_eq!(first, vec![4096, 3072, 5120, 3000, 4000, 5000]);
        assert_eq!(sizes.len(), 3000);
        let mut sorted = sizes.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 3000, "each size once");
        // No whole MiB in the range, or exactly one.
        let (low, high) = sizes_giving(3 * MIB, 2).expect("range");
        assert_eq!(
            whole_mib_sizes(3 * MIB, low, high, &[], u64::MAX),
            (vec![2 * MIB], None)
        );
        let (low, high) = sizes_giving(100, 2).expect("range");
        assert_eq!(
            whole_mib_sizes(100, low, high, &[], u64::MAX),
            (Vec::new(), None)
        );
    }
}
