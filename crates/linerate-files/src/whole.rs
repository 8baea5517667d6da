//! Whole files, with the outcomes in input order: `linerate sum FILE...`,
//! `sum -r`, the audit and Python's `hash_files`.
//!
//! The inputs are sorted into two kinds first (one `stat` each):
//!
//! - regular files go to the engine ([`crate::engine`]), taken in windows of
//!   [`WINDOW`] inputs, largest first within each, so that the files
//!   sharing a worker's lanes are of similar sizes and end at about the
//!   same round (a lane whose file ends early idles until the round ends);
//! - everything else (standard input, pipes, devices, directories, names
//!   that cannot be `stat`ed, files whose sizes the kernel makes up, as in
//!   `/proc` and `/sys`) is read by the calling thread when its turn comes,
//!   to its end, exactly as md5sum would, so standard input is read in
//!   order and a FIFO is opened only after the outcomes before it are
//!   delivered.
//!
//! The calling thread delivers every outcome in input order as soon as it
//! and every one before it are done; results that arrive early wait as a
//! digest or an error each, at most a window late. So what a caller prints,
//! and its exit status, do not depend on the thread count. Memory: the
//! engine's chunks in flight and one result per input.

use std::sync::Arc;

use linerate::HashAlgorithm;
use linerate::cksum::{CksumAlgorithm, CksumHasher, CksumValue};

use crate::engine::{self, Item, Outcome, Results, Segment, Source, Tag};
use crate::read::{Reader, Sizes};
use crate::{FileError, Input, Progress};

/// Inputs are taken in windows of this many, largest first within each.
pub const WINDOW: usize = 4096;

/// A regular file for the engine.
pub(crate) struct Job<'a> {
    pub(crate) input: Input<'a>,
    /// Its size when it was `stat`ed: what it must still hold when read.
    pub(crate) len: u64,
}

/// Hashes every one of `inputs` with `algorithm` on up to `threads`
/// threads and hands each outcome to `each` on the calling thread, in the
/// order of `inputs`, with the input's index.
pub fn hash_in_order(
    inputs: &[Input<'_>],
    algorithm: HashAlgorithm,
    threads: usize,
    progress: &dyn Progress,
    mut each: impl FnMut(usize, Result<[u8; 16], FileError>),
) {
    let (jobs, routes) = regular_jobs(inputs);
    let source = Files::new(&jobs, |index| index);
    engine::run(source, algorithm, threads, progress, |results| {
        let mut arrived: Vec<Option<Result<[u8; 16], FileError>>> =
            std::iter::repeat_with(|| None).take(jobs.len()).collect();
        let mut reader = Reader::default();
        for (index, (input, route)) in inputs.iter().zip(routes).enumerate() {
            let result = match route {
                None => {
                    let result = reader.digest(*input, algorithm, progress);
                    progress.file_done();
                    result
                }
                Some(job) => {
                    progress.begin_file(*input, None);
                    let result = wait_for(job, &mut arrived, results);
                    progress.end_file();
                    result
                }
            };
            each(index, result);
        }
    });
}

/// [`hash_in_order`] for any of cksum's functions ([`CksumAlgorithm`]):
/// MD5 in the lanes as above; the others computed on the engine's workers
/// from each piece it reads (one file per worker at a time).
pub fn digests_in_order(
    inputs: &[Input<'_>],
    algorithm: CksumAlgorithm,
    threads: usize,
    progress: &dyn Progress,
    mut each: impl FnMut(usize, Result<CksumValue, FileError>),
) {
    if algorithm == CksumAlgorithm::Md5 {
        return hash_in_order(inputs, HashAlgorithm::Md5, threads, progress, |i, r| {
            each(i, r.map(|d| CksumValue::Digest(d.to_vec())));
        });
    }
    several_in_order(inputs, None, &[algorithm], threads, progress, |i, r| {
        each(i, r.map(|(_, mut values)| values.remove(0)));
    });
}

/// What [`several_in_order`] gives for one input: the lanes' digest (zeros
/// without one) and the other functions' values, in order.
pub type Several = ([u8; 16], Vec<CksumValue>);

/// Several functions of every one of `inputs` from one read of each (a
/// dual manifest's MD5 and SHA-256): `lanes`' digest in the lanes of the
/// multi-buffer engine if given, and each of `beside` from the pieces the
/// engine reads; outcomes in input order as for [`hash_in_order`].
pub fn several_in_order(
    inputs: &[Input<'_>],
    lanes: Option<HashAlgorithm>,
    beside: &[CksumAlgorithm],
    threads: usize,
    progress: &dyn Progress,
    mut each: impl FnMut(usize, Result<Several, FileError>),
) {
    let (jobs, routes) = regular_jobs(inputs);
    let hashers = || beside.iter().map(|a| a.hasher()).collect::<Vec<_>>();
    let source = Files::new(&jobs, |index| SeveralTag {
        index,
        hashers: hashers(),
    });
    let finish =
        |hashers: Vec<CksumHasher>| hashers.into_iter().map(CksumHasher::finalize).collect();
    let consume = |results: &Results<'_, SeveralTag>| {
        let mut arrived: Vec<Option<Result<Several, FileError>>> =
            std::iter::repeat_with(|| None).take(jobs.len()).collect();
        let mut reader = Reader::default();
        for (index, (input, route)) in inputs.iter().zip(routes.iter()).enumerate() {
            let result = match *route {
                None => {
                    let mut digest = lanes.map(HashAlgorithm::hasher);
                    let mut others = hashers();
                    let read = reader.absorb(*input, progress, |data| {
                        if let Some(digest) = &mut digest {
                            digest.update(data);
                        }
                        for hasher in &mut others {
                            hasher.update(data);
                        }
                    });
                    progress.file_done();
                    read.map(|()| (digest.map_or([0; 16], |d| d.finalize()), finish(others)))
                }
                Some(job) => {
                    progress.begin_file(*input, None);
                    let result = loop {
                        if let Some(result) = arrived[job].take() {
                            break result;
                        }
                        let Some((tag, result)) = results.recv() else {
                            break Err(results.missing());
                        };
                        let SeveralTag { index, hashers } = tag;
                        arrived[index] = Some(result.map(|digest| (digest, finish(hashers))));
                    };
                    progress.end_file();
                    result
                }
            };
            each(index, result);
        }
    };
    match lanes {
        Some(algorithm) => engine::run(source, algorithm, threads, progress, consume),
        None => engine::run_beside(source, threads, progress, consume),
    }
}

/// A whole file's tag for [`several_in_order`]: its job, and the functions
/// computed from the pieces the engine reads.
struct SeveralTag {
    index: usize,
    hashers: Vec<CksumHasher>,
}

impl Tag for SeveralTag {
    fn beside(&mut self, piece: &[u8]) {
        for hasher in &mut self.hashers {
            hasher.update(piece);
        }
    }
}

/// Waits until job `job`'s outcome has arrived and takes it.
fn wait_for(
    job: usize,
    arrived: &mut [Option<Result<[u8; 16], FileError>>],
    results: &Results<'_, usize>,
) -> Result<[u8; 16], FileError> {
    loop {
        if let Some(result) = arrived[job].take() {
            return result;
        }
        // Every segment gets its outcome unless a worker died or the run
        // was cancelled.
        let Some((done, result)): Option<Outcome<usize>> = results.recv() else {
            return Err(results.missing());
        };
        arrived[done] = Some(result);
    }
}

/// The regular files among `inputs` whose sizes are known, as jobs for
/// the engine, and each input's job (`None`: read on the calling thread in
/// its turn, to its end: a pipe, a device, a `/proc` file).
pub(crate) fn regular_jobs<'a>(inputs: &[Input<'a>]) -> (Vec<Job<'a>>, Vec<Option<usize>>) {
    let mut jobs = Vec::new();
    let mut sizes = Sizes::default();
    let routes = inputs
        .iter()
        .map(|input| {
            let len = sizes.known_len(*input)?;
            jobs.push(Job { input: *input, len });
            Some(jobs.len() - 1)
        })
        .collect();
    (jobs, routes)
}

/// The sizes of the regular files among `inputs` (after symbolic links)
/// whose sizes are known, in order: what `--device auto` weighs before
/// choosing the GPU.
pub fn regular_file_sizes(inputs: &[Input<'_>]) -> Vec<u64> {
    let mut sizes = Sizes::default();
    inputs.iter().filter_map(|i| sizes.known_len(*i)).collect()
}

/// The jobs as segments, in windows largest first, each tagged by
/// `tag(job index)`; each file is opened when it is handed out.
struct Files<'a, F> {
    jobs: &'a [Job<'a>],
    tag: F,
    /// The order the jobs are handed out in.
    order: Vec<usize>,
    /// `suffix[i]`: the bytes of the jobs `order[i..]`.
    suffix: Vec<u64>,
    next: usize,
}

impl<'a, F> Files<'a, F> {
    fn new(jobs: &'a [Job<'a>], tag: F) -> Files<'a, F> {
        let mut order: Vec<usize> = (0..jobs.len()).collect();
        for window in order.chunks_mut(WINDOW) {
            window.sort_by_key(|&i| std::cmp::Reverse(jobs[i].len));
        }
        let mut suffix = vec![0u64; jobs.len() + 1];
        for i in (0..jobs.len()).rev() {
            suffix[i] = suffix[i + 1].saturating_add(jobs[order[i]].len);
        }
        Files {
            jobs,
            tag,
            order,
            suffix,
            next: 0,
        }
    }
}

impl<T: Tag, F: Fn(usize) -> T + Send> Source<T> for Files<'_, F> {
    fn next(&mut self) -> Option<Item<T>> {
        let &index = self.order.get(self.next)?;
        self.next += 1;
        let job = &self.jobs[index];
        // Not waiting on what was swapped in since the stat.
        Some(match job.input.open_regular() {
            Ok(file) => Item::Segment(Segment {
                file: Arc::new(file),
                offset: 0,
                // Its size when it was `stat`ed: one that differs by the time
                // the file is read changed meanwhile.
                len: job.len,
                ends_file: true,
                tag: (self.tag)(index),
                prefixes: Vec::new(),
            }),
            Err(e) => Item::Failed((self.tag)(index), FileError::Open(e)),
        })
    }

    fn bytes_left(&self) -> u64 {
        self.suffix[self.next]
    }

    fn segments_left(&self) -> usize {
        self.order.len() - self.next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lens(lens: &[u64]) -> Vec<Job<'static>> {
        lens.iter()
            .map(|&len| Job {
                input: Input::Path(std::ffi::OsStr::new("x")),
                len,
            })
            .collect()
    }

    #[test]
    fn jobs_are_taken_largest_first_within_windows() {
        let mut sizes = vec![1u64; WINDOW];
        sizes[5] = 7;
        sizes[9] = 9;
        sizes.extend([3, 8]);
        let jobs = lens(&sizes);
        let files = Files::new(&jobs, |index| index);
        let mut expected = vec![9, 5];
        // Equal sizes keep their order.
        expected.extend((0..WINDOW).filter(|&i| i != 5 && i != 9));
        expected.extend([WINDOW + 1, WINDOW]);
        assert_eq!(files.order, expected);
        assert_eq!(
            Source::<usize>::bytes_left(&files),
            sizes.iter().sum::<u64>()
        );
        assert_eq!(Source::<usize>::segments_left(&files), WINDOW + 2);
    }
}
