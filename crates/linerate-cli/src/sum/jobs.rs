//! `linerate sum FILE...`: regular files hashed on worker threads, many at a
//! time, with the output exactly as one thread prints it.
//!
//! The operands are sorted into two kinds first (one `stat` each):
//!
//! - regular files go to the pool. `-j N` worker threads (default: one per
//!   core) take them in windows of [`WINDOW`] operands, largest first within
//!   each, so that the files sharing an engine are of similar sizes. For MD5
//!   a worker keeps several files open, each in its own lane of an
//!   [`Md5Manager`]: every round it reads the next chunk (64 KiB to 1 MiB)
//!   of each file and absorbs them all in one engine pass
//!   ([`Md5Manager::submit`]); a file that ends is finished and its lane
//!   refilled with the next file. A round is cut short (to no less than
//!   64 KiB) where the lane nearest its end will finish its file, so lanes
//!   seldom idle while others finish a round: a tree of mixed sizes keeps
//!   about 97% of the engine's lanes busy. For MD5-P/K, and for a large
//!   file that would be left alone in the lanes, a worker hashes one file at
//!   a time with a single-stream hasher (MD5-P/K is itself K streams in
//!   lanes). When there are fewer files than threads, such a file is read
//!   on a second thread while the first hashes, so reading and hashing
//!   overlap;
//! - everything else (`-`, pipes, devices, directories, names that cannot be
//!   `stat`ed) is hashed by the main thread when its turn comes, exactly as
//!   md5sum would, so standard input is read in order and a FIFO is opened
//!   only after the lines before it are printed.
//!
//! The main thread prints in argument order: a file's line (or its error,
//! on stderr after flushing the lines before it) as soon as it and every
//! file before it are done; results that arrive early wait as a digest or an
//! error each. So stdout, stderr and the exit status do not depend on `-j`.
//! Memory is bounded by the chunks in flight (about 2 MiB per worker) and
//! one result per operand.
//!
//! Files are read with `read(2)` into these buffers, never mapped: a file
//! that shrinks or grows while it is read is hashed as far as the reads go
//! (the size from `stat` only plans the reads), where a mapping of a
//! truncated file would kill the process with `SIGBUS`.

use std::ffi::{OsStr, OsString};
use std::fs::{self, File};
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::{Mutex, PoisonError};

use linerate::{Md5Manager, StreamId};

use super::args::Options;
use super::console::{Console, error_text};
use super::files_from::{Listing, Misfortune};
use super::hash::{FileHasher, HashError};
use super::lane_buf::LaneBuf;
use super::progress::Ticker;
use linerate::HashAlgorithm;
use linerate_sumfile::format;

/// Bytes a worker reads per round, over all its lanes: about one core's L2,
/// so that what `read(2)` copies in is still there when the engine hashes
/// it. Against 8 MiB rounds (256 KiB a lane): 64 files of 16 MiB 1.03-1.05x
/// faster with two threads, 300 files of 0-4 MiB 1.10x (docs/performance.md).
const ROUND_BYTES: usize = 2 << 20;

/// Bytes read per lane per round: at least this much...
const MIN_LANE_CHUNK: usize = 64 << 10;

/// ...and at most this much.
const MAX_LANE_CHUNK: usize = 1 << 20;

/// A round's reads are cut short to end with the lane nearest its file's
/// end, but not below this.
const MIN_ROUND_READ: usize = 64 << 10;
// `clamp(MIN_ROUND_READ, chunk)` below needs the smaller bound first.
const _: () = assert!(MIN_ROUND_READ <= MIN_LANE_CHUNK);

/// Room past a lane's chunk where the end of a file is found.
const SPARE_ROOM: usize = 4 << 10;

/// Files this small always go to a lane: even alone there, they cost little.
const SMALL_FILE: u64 = 4 << 20;

/// A larger file goes to a lane only if the work expected to share its
/// worker's lanes (the files still open there, and a thread's share of the
/// files not yet taken) is at least this many times its size. One lane of a
/// wide engine is slower than a single-stream hasher (a 32-lane AVX-512
/// engine with one busy lane does 1/32 of its work); with the lanes shared
/// this widely a file spends most of its time in company.
const LANES_FACTOR: u64 = 4;

/// Jobs are taken in windows of this many, largest first within each, so
/// that the files sharing a worker's lanes are of similar sizes and end at
/// about the same round: a lane whose file ends early idles until the round
/// ends. Results are still printed in argument order, at most a window late.
const WINDOW: usize = 4096;

/// Buffers of a file read on one thread and hashed on another.
const PIPELINE_CHUNK: usize = 1 << 20;

/// Buffers in flight between the reading and the hashing thread.
const PIPELINE_DEPTH: usize = 4;

/// One file's outcome, sent from a worker to the main thread.
type Outcome = (usize, Result<[u8; 16], HashError>);

/// Who hashes an operand.
enum Route {
    /// The main thread, in order.
    Here,
    /// A worker: the index of the job.
    Pool(usize),
}

/// A regular file for the workers.
struct Job<'a> {
    name: &'a OsStr,
    /// Its size when it was `stat`ed (a hint; the file is read to its end).
    len: u64,
}

/// Prints the checksum line of every file of `listing`, and its errors each
/// in its place; true if all could be read.
pub fn compute(console: &mut Console, options: &Options, listing: &Listing) -> bool {
    let mut ok = listing.errors.is_empty();
    let mut line = Vec::new();
    let mut errors = listing.errors.iter().peekable();
    let mut index = 0;
    let report = |console: &mut Console, e: &Misfortune| {
        console.error_about(e.path.as_bytes(), &error_text(&e.error));
    };
    hash_in_order(
        console,
        &listing.files,
        options.algorithm,
        options.thread_count(),
        |console, file, result| {
            while let Some(e) = errors.next_if(|e| e.index <= index) {
                report(console, e);
            }
            index += 1;
            match result {
                Ok(digest) => {
                    line.clear();
                    format::push_sum_line_for(
                        &mut line,
                        options.algorithm,
                        &digest,
                        file.as_bytes(),
                        options.style,
                    );
                    console.print(&line);
                }
                Err(e) => {
                    console.error_about(file.as_bytes(), &error_text(e.io_error()));
                    ok = false;
                }
            }
        },
    );
    for e in errors {
        report(console, e);
    }
    ok
}

/// Hashes every one of `files` with `algorithm` on up to `allowed` worker
/// threads and hands each outcome to `each` on the calling thread, in the
/// order of `files` (`-` is standard input).
pub fn hash_in_order<F>(
    console: &mut Console,
    files: &[OsString],
    algorithm: HashAlgorithm,
    allowed: usize,
    each: F,
) where
    F: FnMut(&mut Console, &OsStr, Result<[u8; 16], HashError>),
{
    let mut routes = Vec::with_capacity(files.len());
    let mut jobs = Vec::new();
    for file in files {
        match regular_file_len(file) {
            Some(len) => {
                routes.push(Route::Pool(jobs.len()));
                jobs.push(Job { name: file, len });
            }
            None => routes.push(Route::Here),
        }
    }
    let threads = allowed.min(jobs.len());
    let mut plan = Plan::new(jobs, algorithm, threads, console.progress.ticker());
    // Threads to spare: a file hashed alone gets a reading thread of its own.
    plan.pipeline = allowed > threads;
    std::thread::scope(|scope| {
        let (sender, receiver) = mpsc::channel();
        for _ in 0..threads {
            let sender = sender.clone();
            let plan = &plan;
            scope.spawn(move || work(plan, &sender));
        }
        drop(sender);
        deliver_in_order(
            console,
            files,
            algorithm,
            &routes,
            &receiver,
            plan.jobs.len(),
            each,
        );
    });
}

/// The main thread's part: every operand's outcome in argument order,
/// hashing the ones routed here and waiting for the workers' ones.
fn deliver_in_order<F>(
    console: &mut Console,
    files: &[OsString],
    algorithm: HashAlgorithm,
    routes: &[Route],
    receiver: &Receiver<Outcome>,
    jobs: usize,
    mut each: F,
) where
    F: FnMut(&mut Console, &OsStr, Result<[u8; 16], HashError>),
{
    let mut arrived: Vec<Option<Result<[u8; 16], HashError>>> =
        std::iter::repeat_with(|| None).take(jobs).collect();
    let mut hasher = FileHasher::default();
    for (file, route) in files.iter().zip(routes) {
        let result = match *route {
            Route::Here => hasher.digest_named(file, algorithm, &mut console.progress),
            Route::Pool(index) => {
                console.progress.begin_file(file.as_bytes(), None);
                while arrived[index].is_none() {
                    // Every worker sends one outcome per job it takes before it
                    // ends, so the channel closes early only if one panicked.
                    let (done, result) = receiver.recv().expect("a worker thread failed");
                    arrived[done] = Some(result);
                }
                console.progress.end_file();
                arrived[index].take().expect("arrived above")
            }
        };
        if let Route::Here = route {
            console.progress.file_done();
        }
        each(console, file, result);
    }
}

/// The size of `name` if it is a regular file (after symbolic links).
fn regular_file_len(name: &OsStr) -> Option<u64> {
    if name.as_bytes() == b"-" {
        return None;
    }
    fs::metadata(name)
        .ok()
        .filter(fs::Metadata::is_file)
        .map(|m| m.len())
}

/// The pool's jobs and how the workers share them.
struct Plan<'a> {
    jobs: Vec<Job<'a>>,
    /// The order the jobs are taken in (see [`WINDOW`]).
    order: Vec<usize>,
    /// `suffix[i]`: the bytes of the jobs `order[i..]`.
    suffix: Vec<u64>,
    algorithm: HashAlgorithm,
    threads: u64,
    /// The most files a worker keeps open in lanes; 1 means one at a time.
    per_worker: usize,
    /// Bytes read per lane per round.
    chunk: usize,
    /// The first job no worker has taken.
    next: Mutex<usize>,
    ticker: Ticker,
    /// Whether a file hashed alone is read on a thread of its own.
    pipeline: bool,
}

/// A worker's next step, as [`Plan::claim`] decides it.
#[derive(Debug, PartialEq, Eq)]
enum Claim {
    /// Open job `i` in a lane.
    Lane(usize),
    /// Hash job `i` on its own, now.
    Alone(usize),
    /// The next job should be hashed alone; finish the open lanes first.
    Later,
    /// Every job is taken.
    Done,
}

impl<'a> Plan<'a> {
    fn new(
        jobs: Vec<Job<'a>>,
        algorithm: HashAlgorithm,
        threads: usize,
        ticker: Ticker,
    ) -> Plan<'a> {
        let mut order: Vec<usize> = (0..jobs.len()).collect();
        for window in order.chunks_mut(WINDOW) {
            window.sort_by_key(|&i| std::cmp::Reverse(jobs[i].len));
        }
        let mut suffix = vec![0u64; jobs.len() + 1];
        for i in (0..jobs.len()).rev() {
            suffix[i] = suffix[i + 1].saturating_add(jobs[order[i]].len);
        }
        let per_worker = match algorithm {
            // Share the files out fairly, up to the engine's width.
            HashAlgorithm::Md5 if threads > 0 => lane_capacity().min(jobs.len().div_ceil(threads)),
            _ => 1,
        };
        let chunk = (ROUND_BYTES / per_worker).clamp(MIN_LANE_CHUNK, MAX_LANE_CHUNK) & !0xffff;
        Plan {
            jobs,
            order,
            suffix,
            algorithm,
            threads: threads.max(1) as u64,
            per_worker,
            chunk,
            next: Mutex::new(0),
            ticker,
            pipeline: false,
        }
    }

    /// Takes the next job for a worker with `open` files in its lanes that
    /// have about `open_bytes` left to read.
    fn claim(&self, open: usize, open_bytes: u64) -> Claim {
        let mut next = self.next.lock().unwrap_or_else(PoisonError::into_inner);
        let taken = *next;
        let Some(&index) = self.order.get(taken) else {
            return Claim::Done;
        };
        let job = &self.jobs[index];
        let company = self.suffix[taken + 1] / self.threads + open_bytes;
        let lane = self.per_worker > 1
            && (job.len <= SMALL_FILE || company >= job.len.saturating_mul(LANES_FACTOR));
        if !lane && open > 0 {
            return Claim::Later;
        }
        *next += 1;
        if lane {
            Claim::Lane(index)
        } else {
            Claim::Alone(index)
        }
    }
}

/// The lanes of one engine: the most files a worker can keep open.
fn lane_capacity() -> usize {
    Md5Manager::new().capacity().max(1)
}

/// A file open in a lane.
struct Stream {
    job: usize,
    file: File,
    id: StreamId,
    buf: LaneBuf,
    /// Bytes of `buf` read this round.
    filled: usize,
    /// Bytes expected still to come (the size hint less what was read).
    left: u64,
    /// `Some` once the file ended (`Ok`) or failed (`Err`).
    end: Option<io::Result<()>>,
}

impl Stream {
    /// Reads the next piece: `target` bytes, or to the end of the file, or
    /// up to a failed read. Where the file is expected to end (its size
    /// when `stat`ed) it reads on into the buffer's spare room, which finds
    /// the end (a read of 0) in this round instead of costing the lane a
    /// round of its own, and takes in what a growing file added.
    fn fill(&mut self, target: usize, ticker: &Ticker) {
        self.filled = 0;
        loop {
            let at_expected_end = self.filled as u64 >= self.left;
            let goal = if at_expected_end {
                self.buf.len()
            } else {
                target.min(self.buf.len())
            };
            if self.filled >= goal {
                break;
            }
            match self.file.read(&mut self.buf[self.filled..goal]) {
                Ok(0) => {
                    self.end = Some(Ok(()));
                    break;
                }
                Ok(n) => self.filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.end = Some(Err(e));
                    break;
                }
            }
        }
        self.left = self.left.saturating_sub(self.filled as u64);
        ticker.advance(self.filled);
    }
}

/// A worker thread: takes jobs until none are left, sending each outcome.
fn work(plan: &Plan, results: &Sender<Outcome>) {
    // The main thread waits for every outcome; it only goes away by ending
    // the process, so a failed send needs no handling.
    let send = |job: usize, result| {
        plan.ticker.file_done();
        drop(results.send((job, result)));
    };
    let mut alone = FileHasher::default();
    let mut manager: Option<Md5Manager> = None;
    let mut streams: Vec<Stream> = Vec::new();
    let mut spare: Vec<LaneBuf> = Vec::new();
    loop {
        while streams.len() < plan.per_worker {
            let open_bytes = streams.iter().map(|s| s.left).sum();
            match plan.claim(streams.len(), open_bytes) {
                Claim::Done | Claim::Later => break,
                Claim::Alone(job) => send(job, hash_alone(plan, job, &mut alone)),
                Claim::Lane(job) => match File::open(plan.jobs[job].name) {
                    Err(e) => send(job, Err(HashError::Open(e))),
                    Ok(file) => {
                        let id = manager
                            .get_or_insert_with(Md5Manager::new)
                            .open()
                            .expect("a worker opens no more files than it has lanes");
                        let buf = spare
                            .pop()
                            .unwrap_or_else(|| LaneBuf::new(plan.chunk + SPARE_ROOM));
                        streams.push(Stream {
                            job,
                            file,
                            id,
                            buf,
                            filled: 0,
                            left: plan.jobs[job].len,
                            end: None,
                        });
                    }
                },
            }
        }
        // Nothing open after trying to take more: every job is taken.
        let Some(manager) = manager.as_mut().filter(|_| !streams.is_empty()) else {
            return;
        };
        // Every lane reads as much as the one nearest its end has left, so
        // that lanes end their files together rather than idle behind the
        // others for the rest of a round.
        let target = streams
            .iter()
            .map(|s| s.left)
            .filter(|&left| left > 0)
            .min()
            .map_or(plan.chunk, |left| {
                usize::try_from(left)
                    .map_or(plan.chunk, |left| left.clamp(MIN_ROUND_READ, plan.chunk))
            });
        for stream in &mut streams {
            stream.fill(target, &plan.ticker);
        }
        let batch: Vec<(&StreamId, &[u8])> = streams
            .iter()
            .filter(|s| s.filled > 0 && !matches!(s.end, Some(Err(_))))
            .map(|s| (&s.id, &s.buf[..s.filled]))
            .collect();
        manager.submit(&batch);
        let mut i = 0;
        while i < streams.len() {
            if streams[i].end.is_none() {
                i += 1;
                continue;
            }
            let stream = streams.swap_remove(i);
            // A failed file's lane is freed too; its digest is dropped.
            let digest = manager.finish(stream.id);
            let result = match stream.end {
                Some(Err(e)) => Err(HashError::Read(e)),
                _ => Ok(digest),
            };
            spare.push(stream.buf);
            send(stream.job, result);
        }
    }
}

/// Job `job` hashed on its own, in fixed-size chunks.
fn hash_alone(plan: &Plan, job: usize, hasher: &mut FileHasher) -> Result<[u8; 16], HashError> {
    let file = File::open(plan.jobs[job].name).map_err(HashError::Open)?;
    if plan.pipeline && plan.jobs[job].len > PIPELINE_CHUNK as u64 {
        return digest_pipelined(file, plan.algorithm, &plan.ticker).map_err(HashError::Read);
    }
    hasher
        .digest_reader(file, plan.algorithm, |n| plan.ticker.advance(n))
        .map_err(HashError::Read)
}

/// The digest of `file`, read on a second thread while this one hashes:
/// the reader fills buffers and passes them over, the hasher hands them
/// back. A read error ends the reader, and is the result.
fn digest_pipelined(file: File, algorithm: HashAlgorithm, ticker: &Ticker) -> io::Result<[u8; 16]> {
    let (full_sender, full) = mpsc::sync_channel::<(Vec<u8>, usize)>(PIPELINE_DEPTH);
    let (empty_sender, empty) = mpsc::channel::<Vec<u8>>();
    for _ in 0..PIPELINE_DEPTH {
        drop(empty_sender.send(vec![0; PIPELINE_CHUNK]));
    }
    std::thread::scope(|scope| {
        let reader = scope.spawn(move || read_ahead(file, &empty, &full_sender));
        let mut hasher = algorithm.hasher();
        for (buf, n) in full {
            hasher.update(&buf[..n]);
            ticker.advance(n);
            // The reader is gone once the file ended; the buffer with it.
            drop(empty_sender.send(buf));
        }
        reader.join().expect("the reading thread failed")?;
        Ok(hasher.finalize())
    })
}

/// The reading half of [`digest_pipelined`]: each empty buffer filled (to
/// the end of the file at most) and sent on, until the file ends.
fn read_ahead(
    mut file: File,
    empty: &Receiver<Vec<u8>>,
    full: &SyncSender<(Vec<u8>, usize)>,
) -> io::Result<()> {
    while let Ok(mut buf) = empty.recv() {
        let mut filled = 0;
        while filled < buf.len() {
            match file.read(&mut buf[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        if filled == 0 || full.send((buf, filled)).is_err() {
            return Ok(());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(lens: &[u64], algorithm: HashAlgorithm, threads: usize) -> Plan<'static> {
        let jobs = lens
            .iter()
            .map(|&len| Job {
                name: OsStr::new("x"),
                len,
            })
            .collect();
        Plan::new(jobs, algorithm, threads, Ticker::default())
    }

    #[test]
    fn many_equal_files_share_the_lanes() {
        let p = plan(&[16 << 20; 64], HashAlgorithm::Md5, 2);
        assert_eq!(p.per_worker, lane_capacity().min(32));
        for i in 0..64 {
            assert_eq!(p.claim(i % 8, 64 << 20), Claim::Lane(i));
        }
        assert_eq!(p.claim(0, 0), Claim::Done);
    }

    #[test]
    fn a_lone_large_file_is_hashed_alone() {
        if lane_capacity() < 2 {
            return;
        }
        let p = plan(&[1 << 30, 100, 200, 300], HashAlgorithm::Md5, 2);
        assert!(p.per_worker > 1);
        // A worker with open lanes leaves it for one that has none.
        assert_eq!(p.claim(1, 0), Claim::Later);
        assert_eq!(p.claim(0, 0), Claim::Alone(0));
        // Then the rest, largest first.
        assert_eq!(p.claim(0, 0), Claim::Lane(3));
        assert_eq!(p.claim(1, 300), Claim::Lane(2));
        assert_eq!(p.claim(2, 500), Claim::Lane(1));
        assert_eq!(p.claim(3, 600), Claim::Done);
    }

    #[test]
    fn jobs_are_taken_largest_first_within_windows() {
        let mut lens = vec![1u64; WINDOW];
        lens[5] = 7;
        lens[9] = 9;
        lens.extend([3, 8]);
        let p = plan(&lens, HashAlgorithm::Md5, 1);
        let taken: Vec<usize> = std::iter::from_fn(|| match p.claim(0, 0) {
            Claim::Lane(i) | Claim::Alone(i) => Some(i),
            _ => None,
        })
        .collect();
        let mut expected = vec![9, 5];
        // Equal sizes keep their order.
        expected.extend((0..WINDOW).filter(|&i| i != 5 && i != 9));
        expected.extend([WINDOW + 1, WINDOW]);
        assert_eq!(taken, expected);
    }

    /// A stream on `data` whose size hint is `hint`, read to its end in
    /// rounds of `target` bytes: everything read, in order.
    fn read_with_hint(path: &std::path::Path, hint: u64, target: usize) -> Vec<u8> {
        let mut manager = Md5Manager::new();
        let mut stream = Stream {
            job: 0,
            file: File::open(path).unwrap(),
            id: manager.open().unwrap(),
            buf: LaneBuf::new(MIN_LANE_CHUNK + SPARE_ROOM),
            filled: 0,
            left: hint,
            end: None,
        };
        let mut read = Vec::new();
        let mut rounds = 0;
        while stream.end.is_none() {
            stream.fill(target, &Ticker::default());
            read.extend_from_slice(&stream.buf[..stream.filled]);
            rounds += 1;
            assert!(rounds < 100, "no end found");
        }
        assert!(matches!(stream.end, Some(Ok(()))));
        read
    }

    #[test]
    fn reads_follow_the_file_not_its_size_hint() {
        let dir = std::env::temp_dir().join(format!("linerate-hint-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("data");
        let data: Vec<u8> = (0..300_000).map(|i| (i * 13 % 251) as u8).collect();
        std::fs::write(&path, &data).unwrap();
        // Right, too small (the file grew), too large (it shrank), none.
        for hint in [300_000, 100_000, 1 << 20, 0] {
            for target in [MIN_ROUND_READ, MIN_LANE_CHUNK, 300_000] {
                assert!(
                    read_with_hint(&path, hint, target) == data,
                    "{hint} {target}"
                );
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_that_ends_as_expected_ends_in_the_same_round() {
        let dir = std::env::temp_dir().join(format!("linerate-round-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("data");
        std::fs::write(&path, vec![7u8; MIN_ROUND_READ]).unwrap();
        let mut manager = Md5Manager::new();
        let mut stream = Stream {
            job: 0,
            file: File::open(&path).unwrap(),
            id: manager.open().unwrap(),
            buf: LaneBuf::new(MIN_LANE_CHUNK + SPARE_ROOM),
            filled: 0,
            left: MIN_ROUND_READ as u64,
            end: None,
        };
        stream.fill(MIN_ROUND_READ, &Ticker::default());
        assert_eq!(stream.filled, MIN_ROUND_READ);
        assert!(matches!(stream.end, Some(Ok(()))));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn one_file_per_thread_or_md5p_goes_alone() {
        let p = plan(&[100, 200], HashAlgorithm::Md5, 2);
        assert_eq!(p.per_worker, 1);
        // The larger first.
        assert_eq!(p.claim(0, 0), Claim::Alone(1));
        assert_eq!(p.claim(0, 0), Claim::Alone(0));
        let p = plan(&[100; 50], HashAlgorithm::Md5p(16), 2);
        assert_eq!(p.per_worker, 1);
        assert_eq!(p.claim(0, 0), Claim::Alone(0));
    }

    #[test]
    fn chunks_stay_in_bounds_and_aligned() {
        for files in [1, 3, 5, 12, 31, 64, 1000] {
            let p = plan(&vec![1; files], HashAlgorithm::Md5, 1);
            assert!((MIN_LANE_CHUNK..=MAX_LANE_CHUNK).contains(&p.chunk));
            assert_eq!(p.chunk % 65536, 0);
        }
    }

    #[test]
    fn pipelined_digests_match() {
        let dir = std::env::temp_dir().join(format!("linerate-jobs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("data");
        let data: Vec<u8> = (0..PIPELINE_CHUNK * 5 + 77)
            .map(|i| (i * 7 % 251) as u8)
            .collect();
        std::fs::write(&path, &data).unwrap();
        for algorithm in [HashAlgorithm::Md5, HashAlgorithm::Md5p(16)] {
            let file = File::open(&path).unwrap();
            let digest = digest_pipelined(file, algorithm, &Ticker::default()).unwrap();
            let mut expected = algorithm.hasher();
            expected.update(&data);
            assert_eq!(digest, expected.finalize(), "{algorithm:?}");
        }
        // A read that fails at once (a directory) is the result.
        let file = File::open(&dir).unwrap();
        assert!(digest_pipelined(file, HashAlgorithm::Md5, &Ticker::default()).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
