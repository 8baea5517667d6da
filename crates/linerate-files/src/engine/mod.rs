//! The one scheduler of the file engine: the digests of many pieces of
//! files ("segments": a whole file, a part of an upload, the first part of
//! a candidate part size) on worker threads, many at a time in the lanes of
//! the multi-buffer engine. Whole files (`linerate sum`, `sum -r`, the
//! audit, Python's `hash_files`), S3 upload parts (`linerate etag`) and the
//! part-size search all run through it; they differ only in their
//! [`Source`] of segments.
//!
//! A source hands out segments in the order they should start; workers
//! claim them. For MD5 a worker keeps up to its share of the engine's
//! width open, each segment in a lane of its [`Md5Manager`]: every round it
//! reads the next chunk of each (`pread`, so threads can share one open
//! file) into a cache-line-aligned buffer and absorbs them all in one
//! pass; a segment that ends is finished and its lane refilled. Rounds are
//! about one core's L2 in all (2 MiB): what `pread` copies is still there
//! when the lanes hash it. A round is cut short to end with the lane nearest
//! its end, so lanes seldom idle while the others finish a round.
//!
//! Three rules keep the lanes busy to the end:
//!
//! - a worker takes at most its share of the segments (the engine's width,
//!   or the segments divided by the workers if fewer), and no more than its
//!   share of the bytes still to read; so the last segments spread over all
//!   workers instead of piling into one worker's lanes;
//! - a large segment with little to share a worker's lanes (less than
//!   [`LANES_FACTOR`] times its size, counting the worker's open segments
//!   and its share of those not yet handed out) is hashed alone by a
//!   single-stream hasher: one busy lane of a 32-lane engine does 1/32 of
//!   its work, a single-stream hasher about 1/8. So is every segment whose
//!   prefixes' digests are wanted as well, and every MD5-P/K (itself K
//!   streams in lanes);
//! - when there are fewer segments than threads, a segment hashed alone is
//!   read on a thread of its own while the worker hashes, so reading and
//!   hashing overlap.
//!
//! A segment is `len` bytes from `offset`: a file that ends sooner shrank
//! while it was read. One that ends the file (a whole file, an upload's last
//! part) is also checked for bytes past its end, which a file that grew
//! would have. Either change is [`FileError::Changed`]: the digest would be
//! of no version of the file (md5sum hashes whatever its reads return).
//!
//! Every outcome goes to the consumer on the calling thread, tagged as its
//! segment was, in the order the work finishes. Memory is bounded by the
//! chunks in flight: about 2 MiB per worker in lanes, or 4 MiB for a
//! pipelined single stream; mapped segments allocate nothing, and keep at
//! most a 4 MiB window of the page cache mapped per lane.

mod lane;
mod mapped;
mod range;

use std::fs::File;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, PoisonError};

use linerate::{HashAlgorithm, Md5Manager, StreamId};

use crate::lane_buf::LaneBuf;
use crate::map::FileIo;
use crate::{FileError, Progress};
use lane::{SPARE_ROOM, Stream};

use range::Range;

/// Bytes a worker reads per round, over all its lanes: about one core's L2,
/// so that what the read copies in is still there when the engine hashes
/// it. Against 8 MiB rounds (256 KiB a lane): 64 files of 16 MiB 1.03-1.05x
/// faster with two threads, 300 files of 0-4 MiB 1.10x (docs/performance.md).
const ROUND_BYTES: usize = 2 << 20;

/// Bytes read per lane per round: at least this much...
const MIN_LANE_CHUNK: usize = 64 << 10;

/// ...and at most this much.
const MAX_LANE_CHUNK: usize = 1 << 20;

/// A round's reads are cut short to end with the lane nearest its
/// segment's end, but not below this.
const MIN_ROUND_READ: usize = 64 << 10;
// `clamp(MIN_ROUND_READ, chunk)` below needs the smaller bound first.
const _: () = assert!(MIN_ROUND_READ <= MIN_LANE_CHUNK);

/// Segments this small always go to a lane: even alone there, they cost
/// little.
const SMALL_SEGMENT: u64 = 4 << 20;

/// A larger segment goes to a lane only if the work expected to share its
/// worker's lanes is at least this many times its size.
pub const LANES_FACTOR: u64 = 4;

/// Bytes read per call by a single-stream hasher.
const ALONE_CHUNK: usize = 256 << 10;

/// Buffers of a segment read on one thread and hashed on another.
const PIPELINE_CHUNK: usize = 1 << 20;

/// A piece of a file whose digest is wanted.
pub struct Segment<T> {
    pub file: Arc<File>,
    pub offset: u64,
    /// The bytes to hash.
    pub len: u64,
    /// The file should end where the segment does (a whole file, or an
    /// upload's last part): a byte past it means the file grew while it was
    /// read, as too few bytes mean it shrank, and either is
    /// [`FileError::Changed`].
    pub ends_file: bool,
    /// Where the digest of the whole segment goes.
    pub tag: T,
    /// Digests of the segment's own prefixes also wanted: their lengths
    /// (ascending, each less than `len`) and tags. Only for exact segments.
    pub prefixes: Vec<(u64, T)>,
}

/// A segment's tag: names the segment to the consumer, and may carry
/// checksums that want the segment's bytes too (S3's CRCs and SHAs beside a
/// part's MD5). The engine hands [`beside`](Tag::beside) every piece of the
/// segment, in order, right after reading it and before hashing it, so
/// they cost no second pass over the file; the consumer gets the tag back
/// with its outcome. A failed segment's tag may have seen only some
/// pieces. Tags of prefixes are given nothing.
pub trait Tag: Send {
    /// The next piece of the segment's bytes.
    fn beside(&mut self, _piece: &[u8]) {}
}

impl Tag for usize {}

impl Tag for (usize, u64) {}

/// What a [`Source`] hands out.
pub enum Item<T> {
    Segment(Segment<T>),
    /// Work that cannot be done (its file would not open): reported as is.
    Failed(T, FileError),
}

/// The segments of one run, in the order they should be started.
pub trait Source<T>: Send {
    /// The next segment, or `None` when there are no more.
    fn next(&mut self) -> Option<Item<T>>;
    /// Bytes of the segments not yet handed out (an estimate is enough).
    fn bytes_left(&self) -> u64;
    /// Segments not yet handed out (an estimate is enough): the run's
    /// workers and their shares of the lanes are sized by it.
    fn segments_left(&self) -> usize;
}

/// A tag and the digest of its segment or prefix, or why it failed. In a
/// run that computes no digest ([`run_beside`]) the digest is all zeros.
pub type Outcome<T> = (T, Result<[u8; 16], FileError>);

/// The consumer's end of a run.
pub struct Results<'a, T> {
    receiver: Receiver<Outcome<T>>,
    stop: &'a AtomicBool,
    progress: &'a dyn Progress,
}

impl<T> Results<'_, T> {
    /// The next outcome, waiting for it; `None` once every segment is done.
    pub fn recv(&self) -> Option<Outcome<T>> {
        self.receiver.recv().ok()
    }

    /// Why a segment got no outcome: the caller cancelled the run
    /// ([`Progress::cancelled`]), or else a worker thread died.
    pub fn missing(&self) -> FileError {
        if self.progress.cancelled() {
            FileError::cancelled()
        } else {
            FileError::Read(std::io::Error::other("a worker thread failed"))
        }
    }

    /// Ends the run early: workers abandon what they hold.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Hashes the segments of `source` with `algorithm` on up to `threads`
/// threads while `consume` takes the outcomes; returns what `consume`
/// returns. Every tag gets exactly one outcome unless the run is stopped.
pub fn run<T, S, R>(
    source: S,
    algorithm: HashAlgorithm,
    threads: usize,
    progress: &dyn Progress,
    consume: impl FnOnce(&Results<'_, T>) -> R,
) -> R
where
    T: Tag,
    S: Source<T>,
{
    run_io(
        source,
        Some(algorithm),
        threads,
        FileIo::active(),
        progress,
        consume,
    )
}

/// [`run`] with no digest: every segment's bytes only go to its tag's
/// [`Tag::beside`] (checksums wanted without an MD5), each segment on a
/// worker of its own; outcomes carry a zero digest.
pub fn run_beside<T, S, R>(
    source: S,
    threads: usize,
    progress: &dyn Progress,
    consume: impl FnOnce(&Results<'_, T>) -> R,
) -> R
where
    T: Tag,
    S: Source<T>,
{
    run_io(source, None, threads, FileIo::active(), progress, consume)
}

/// [`run`] with the files read as `io` says, not as the process's policy;
/// `algorithm` `None` as for [`run_beside`].
fn run_io<T, S, R>(
    source: S,
    algorithm: Option<HashAlgorithm>,
    threads: usize,
    io: FileIo,
    progress: &dyn Progress,
    consume: impl FnOnce(&Results<'_, T>) -> R,
) -> R
where
    T: Tag,
    S: Source<T>,
{
    let mut shared = Shared::new(source, algorithm, threads, progress);
    shared.io = io;
    std::thread::scope(|scope| {
        let (sender, receiver) = mpsc::channel();
        for _ in 0..shared.workers {
            let sender = sender.clone();
            let shared = &shared;
            scope.spawn(move || Worker::new(shared, sender).work());
        }
        drop(sender);
        let results = Results {
            receiver,
            stop: &shared.stop,
            progress,
        };
        let result = consume(&results);
        results.stop();
        result
    })
}

/// The lanes of one engine: the most segments a worker can keep open.
fn lane_capacity() -> usize {
    Md5Manager::new().capacity().max(1)
}

/// Bytes read per lane per round for a worker with `per_worker` lanes: a
/// round of [`ROUND_BYTES`], in whole 64 KiB.
fn lane_chunk(per_worker: usize) -> usize {
    (ROUND_BYTES / per_worker.max(1)).clamp(MIN_LANE_CHUNK, MAX_LANE_CHUNK) & !0xffff
}

/// What the workers share.
struct Shared<'a, T, S> {
    queue: Mutex<Queue<T, S>>,
    /// Bytes still expected in every worker's lanes.
    open_bytes: AtomicU64,
    workers: u64,
    stop: AtomicBool,
    progress: &'a dyn Progress,
    /// `None`: no digest, the bytes only go to the tags.
    algorithm: Option<HashAlgorithm>,
    /// The most segments a worker keeps open in lanes; 1: one at a time.
    per_worker: usize,
    /// Bytes read per lane per round.
    chunk: usize,
    /// Whether a segment hashed alone is read on a thread of its own.
    pipeline: bool,
    /// Which segments are mapped rather than read.
    io: FileIo,
}

struct Queue<T, S> {
    source: S,
    /// The next item, looked at but not yet taken.
    peeked: Option<Item<T>>,
}

/// A worker's next step.
enum Claim<T> {
    Lane(Segment<T>),
    Alone(Segment<T>),
    Failed(T, FileError),
    /// Take nothing more now: the worker holds its share, or the next
    /// segment is to be hashed alone once its lanes are empty.
    Enough,
    /// Nothing is left (or the run was stopped).
    Done,
}

impl<'a, T: Tag, S: Source<T>> Shared<'a, T, S> {
    /// The state of a run of `source` on up to `threads` threads: as many
    /// workers as there are segments, at most, each with its share of the
    /// engine's width.
    fn new(
        source: S,
        algorithm: Option<HashAlgorithm>,
        threads: usize,
        progress: &'a dyn Progress,
    ) -> Shared<'a, T, S> {
        let threads = threads.max(1);
        let segments = source.segments_left().max(1);
        let workers = threads.min(segments);
        let per_worker = match algorithm {
            // Share the segments out fairly, up to the engine's width.
            Some(HashAlgorithm::Md5) => lane_capacity().min(segments.div_ceil(workers)),
            Some(HashAlgorithm::Md5p(_)) | None => 1,
        };
        Shared {
            queue: Mutex::new(Queue {
                source,
                peeked: None,
            }),
            open_bytes: AtomicU64::new(0),
            workers: workers as u64,
            stop: AtomicBool::new(false),
            progress,
            algorithm,
            per_worker,
            chunk: lane_chunk(per_worker),
            // Threads to spare: a segment hashed alone gets a reader of its own.
            pipeline: threads > workers,
            io: FileIo::active(),
        }
    }

    /// Whether the consumer stopped the run, or the caller cancelled it.
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.progress.cancelled()
    }

    /// The next step of a worker with `open` segments in its lanes that
    /// have about `own_bytes` left to read.
    fn claim(&self, open: usize, own_bytes: u64) -> Claim<T> {
        if self.stopped() {
            return Claim::Done;
        }
        let mut queue = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
        let item = match queue.peeked.take().or_else(|| queue.source.next()) {
            Some(item) => item,
            None => return Claim::Done,
        };
        let segment = match item {
            Item::Segment(segment) => segment,
            Item::Failed(tag, e) => return Claim::Failed(tag, e),
        };
        let after = queue.source.bytes_left();
        let company = after / self.workers + own_bytes;
        let lane = self.per_worker > 1
            && segment.prefixes.is_empty()
            && (segment.len <= SMALL_SEGMENT
                || company >= segment.len.saturating_mul(LANES_FACTOR));
        let open_total = self.open_bytes.load(Ordering::Relaxed);
        let share = (after + segment.len + open_total) / self.workers;
        if open > 0 && (!lane || own_bytes >= share) {
            queue.peeked = Some(Item::Segment(segment));
            return Claim::Enough;
        }
        if lane {
            self.open_bytes.fetch_add(segment.len, Ordering::Relaxed);
            Claim::Lane(segment)
        } else {
            Claim::Alone(segment)
        }
    }
}

struct Worker<'s, 'a, T, S> {
    shared: &'s Shared<'a, T, S>,
    results: Sender<Outcome<T>>,
    manager: Option<Md5Manager>,
    streams: Vec<Stream<T>>,
    spare: Vec<LaneBuf>,
    alone_buf: Vec<u8>,
}

impl<'s, 'a, T: Tag, S: Source<T>> Worker<'s, 'a, T, S> {
    fn new(shared: &'s Shared<'a, T, S>, results: Sender<Outcome<T>>) -> Self {
        Worker {
            shared,
            results,
            manager: None,
            streams: Vec::new(),
            spare: Vec::new(),
            alone_buf: Vec::new(),
        }
    }

    fn work(mut self) {
        while !self.shared.stopped() {
            self.claim_more();
            if self.streams.is_empty() {
                // Nothing open after trying to take more: every segment is
                // taken.
                return;
            }
            self.round();
        }
    }

    /// One outcome to the consumer. The consumer takes every outcome unless
    /// it stopped the run, so a failed send needs no handling.
    fn send(&self, tag: T, result: Result<[u8; 16], FileError>) {
        drop(self.results.send((tag, result)));
    }

    /// Fills free lanes (and hashes alone what should be) until the worker
    /// holds its share.
    fn claim_more(&mut self) {
        while self.streams.len() < self.shared.per_worker {
            let own_bytes = self.streams.iter().map(Stream::left).sum();
            match self.shared.claim(self.streams.len(), own_bytes) {
                Claim::Done | Claim::Enough => return,
                Claim::Failed(tag, e) => {
                    self.shared.progress.file_done();
                    self.send(tag, Err(e));
                }
                Claim::Alone(segment) => self.hash_alone(segment),
                Claim::Lane(segment) => {
                    let id = self
                        .manager
                        .get_or_insert_with(Md5Manager::new)
                        .open()
                        .expect("a worker opens no more segments than it has lanes");
                    let room = self.shared.chunk + SPARE_ROOM;
                    let spare = &mut self.spare;
                    let buf = || spare.pop().unwrap_or_else(|| LaneBuf::new(room));
                    let stream = Stream::new(segment, id, self.shared.io, buf);
                    self.streams.push(stream);
                }
            }
        }
    }

    /// Reads the next chunk of every open segment, absorbs them in one pass
    /// and finishes the segments that ended.
    fn round(&mut self) {
        // Every lane reads as much as the one nearest its end has left, so
        // that lanes end their segments together rather than idle behind
        // the others for the rest of a round.
        let chunk = self.shared.chunk;
        let target = self
            .streams
            .iter()
            .map(Stream::left)
            .filter(|&left| left > 0)
            .min()
            .map_or(chunk, |left| {
                usize::try_from(left).map_or(chunk, |left| left.clamp(MIN_ROUND_READ, chunk))
            });
        let mut read = 0u64;
        let mut expected_before = 0u64;
        let room = chunk + SPARE_ROOM;
        for stream in &mut self.streams {
            expected_before += stream.left();
            stream.fill(target, room);
            stream.feed_beside();
            read += stream.filled as u64;
        }
        self.shared.progress.advance(read as usize);
        let Some(manager) = self.manager.as_mut() else {
            return;
        };
        let batch: Vec<(&StreamId, &[u8])> = self
            .streams
            .iter()
            .filter(|s| s.filled > 0 && !matches!(s.end, Some(Err(_))))
            .map(|s| (&s.id, s.piece()))
            .collect();
        manager.submit(&batch);
        for stream in &mut self.streams {
            stream.check_hashed();
        }
        let mut i = 0;
        while i < self.streams.len() {
            if self.streams[i].end.is_none() {
                i += 1;
                continue;
            }
            let (segment, id, end, buf) = self.streams.swap_remove(i).into_parts();
            // A failed segment's lane is freed too; its digest is dropped.
            let digest = manager.finish(id);
            let result = match end {
                Some(Err(e)) => Err(e),
                _ => Ok(digest),
            };
            let tag = segment.tag;
            self.spare.extend(buf);
            self.shared.progress.file_done();
            drop(self.results.send((tag, result)));
        }
        // What the lanes still expect, recounted: reads past a whole file's
        // expected size, and segments that ended early, change it.
        let expected_after: u64 = self.streams.iter().map(Stream::left).sum();
        let _ = self
            .shared
            .open_bytes
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |open| {
                Some((open + expected_after).saturating_sub(expected_before))
            });
    }

    /// Hashes `segment` with a single-stream hasher, sending the digests of
    /// its prefixes on the way.
    fn hash_alone(&mut self, segment: Segment<T>) {
        let shared = self.shared;
        // A prefix's digest goes out as soon as the hash passes it: from a
        // mapping that would be before the check that its bytes were the
        // file's and not a shrunk file's zeros. So segments with prefixes
        // are read.
        let mapped = shared.io.maps(segment.len) && segment.prefixes.is_empty();
        let mut hasher = shared.algorithm.map(HashAlgorithm::hasher);
        let Segment {
            file,
            offset,
            len,
            ends_file,
            mut tag,
            prefixes,
        } = segment;
        let mut prefixes = prefixes.into_iter().peekable();
        let mut done = 0u64;
        let results = &self.results;
        let send = |tag, result| drop(results.send((tag, result)));
        let digest = |hasher: &Option<linerate::registry::Hasher>| {
            hasher.as_ref().map_or([0; 16], |h| h.clone().finalize())
        };
        let mut absorb = |mut data: &[u8]| {
            if shared.stopped() {
                return false;
            }
            shared.progress.advance(data.len());
            tag.beside(data);
            while let Some(&(end, _)) = prefixes.peek() {
                let take = end - done;
                if take > data.len() as u64 {
                    break;
                }
                let (head, tail) = data.split_at(take as usize);
                if let Some(hasher) = &mut hasher {
                    hasher.update(head);
                }
                done = end;
                data = tail;
                if let Some((_, tag)) = prefixes.next() {
                    send(tag, Ok(digest(&hasher)));
                }
            }
            if let Some(hasher) = &mut hasher {
                hasher.update(data);
            }
            done += data.len() as u64;
            true
        };
        let range = Range {
            file: &file,
            offset,
            len,
            ends_file,
        };
        let pipelined = shared.pipeline && len > PIPELINE_CHUNK as u64;
        let read = if mapped {
            if pipelined {
                range.map_pipelined(shared.io, &mut self.alone_buf, &mut absorb)
            } else {
                range.map_into(shared.io, &mut self.alone_buf, &mut absorb)
            }
        } else if pipelined {
            range.read_pipelined(&mut absorb)
        } else {
            if self.alone_buf.is_empty() {
                self.alone_buf = vec![0; ALONE_CHUNK];
            }
            range.read_into(&mut self.alone_buf, &mut absorb)
        };
        match read {
            // Stopped: nobody waits for the rest.
            Ok(false) => return,
            Ok(true) => {
                // Prefixes at the very end of what was read (an empty
                // segment's, say) were not reached by any piece.
                let digest = digest(&hasher);
                for (_, tag) in prefixes.by_ref() {
                    send(tag, Ok(digest));
                }
                send(tag, Ok(digest));
            }
            Err(e) => {
                // Every tag gets its outcome: the same error for each.
                for (_, tag) in prefixes {
                    send(tag, Err(e.duplicate()));
                }
                send(tag, Err(e));
            }
        }
        shared.progress.file_done();
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::NoProgress;

    /// Segments of one file: `(offset, len, prefixes)`, tagged by index.
    struct List {
        file: Arc<File>,
        items: std::vec::IntoIter<(u64, u64, Vec<u64>)>,
        tag: usize,
        ends_file: bool,
    }

    impl Source<usize> for List {
        fn next(&mut self) -> Option<Item<usize>> {
            let (offset, len, prefixes) = self.items.next()?;
            let mut tags = self.tag..;
            let prefixes = prefixes
                .into_iter()
                .map(|end| (end, tags.next().unwrap_or_default()))
                .collect();
            let tag = tags.next().unwrap_or_default();
            self.tag = tag + 1;
            Some(Item::Segment(Segment {
                file: Arc::clone(&self.file),
                offset,
                len,
                ends_file: self.ends_file,
                tag,
                prefixes,
            }))
        }

        fn bytes_left(&self) -> u64 {
            self.items.as_slice().iter().map(|i| i.1).sum()
        }

        fn segments_left(&self) -> usize {
            self.items.len()
        }
    }

    fn list(file: &Arc<File>, items: Vec<(u64, u64, Vec<u64>)>, ends_file: bool) -> List {
        List {
            file: Arc::clone(file),
            items: items.into_iter(),
            tag: 0,
            ends_file,
        }
    }

    pub(crate) fn scratch(name: &str, data: &[u8]) -> (std::path::PathBuf, Arc<File>) {
        let dir =
            std::env::temp_dir().join(format!("linerate-engine-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch dir");
        let path = dir.join("data");
        std::fs::write(&path, data).expect("write");
        let file = Arc::new(File::open(&path).expect("open"));
        (dir, file)
    }

    #[test]
    fn every_segment_and_prefix_gets_its_digest_on_any_thread_count() {
        let data: Vec<u8> = (0..(9 << 20) + 77).map(|i| (i * 31 % 251) as u8).collect();
        let (dir, file) = scratch("engine", &data);
        let len = data.len() as u64;
        // Many small segments (lanes), a large one (alone), empty ones, a
        // segment with prefixes, lengths off the block size.
        let mut items = vec![(0, len, vec![1, 64, 1 << 20, 5 << 20])];
        items.extend((0..100).map(|i| (i * 9001, 9001 + i, Vec::new())));
        items.push((len, 0, Vec::new()));
        items.push((7, 6 << 20, Vec::new()));
        let mut want = Vec::new();
        for (offset, seg_len, prefixes) in &items {
            for end in prefixes.iter().chain([seg_len]) {
                let start = *offset as usize;
                want.push(linerate::md5(&data[start..start + *end as usize]));
            }
        }
        for (threads, io) in [1, 2, 5]
            .into_iter()
            .flat_map(|t| FileIo::ALL.iter().map(move |io| (t, *io)))
        {
            let source = list(&file, items.clone(), false);
            let mut got = vec![None; want.len()];
            run_io(
                source,
                Some(HashAlgorithm::Md5),
                threads,
                io,
                &NoProgress,
                |results| {
                    while let Some((tag, digest)) = results.recv() {
                        assert!(got[tag].is_none(), "tag {tag} twice");
                        got[tag] = digest.ok();
                    }
                },
            );
            let want: Vec<_> = want.iter().copied().map(Some).collect();
            assert_eq!(got, want, "{threads} threads, {io}");
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn whole_files_are_whole_or_changed() {
        // Past one pipelined read, short of two lane rounds.
        let data: Vec<u8> = (0..(PIPELINE_CHUNK + 4321))
            .map(|i| (i * 13 % 251) as u8)
            .collect();
        let (dir, file) = scratch("whole", &data);
        let len = data.len() as u64;
        // The size it has; smaller (the file grew since), larger (it
        // shrank), none. Many in lanes (more than one engine's width) and
        // one alone, read on this thread or a second one; MD5 and MD5-P/16.
        for expected in [len, 100_000, len + (1 << 20), 0] {
            for (threads, copies) in [(1, 1), (3, 1), (1, 33), (2, 33)] {
                for (algorithm, io) in [HashAlgorithm::Md5, HashAlgorithm::Md5p(16)]
                    .into_iter()
                    .flat_map(|a| [FileIo::Read, FileIo::Map].map(|io| (a, io)))
                {
                    let source = list(&file, vec![(0, expected, Vec::new()); copies], true);
                    let mut got = Vec::new();
                    run_io(
                        source,
                        Some(algorithm),
                        threads,
                        io,
                        &NoProgress,
                        |results| {
                            while let Some((tag, digest)) = results.recv() {
                                got.push((tag, digest));
                            }
                        },
                    );
                    let mut want = algorithm.hasher();
                    want.update(&data);
                    let want = want.finalize();
                    assert_eq!(got.len(), copies);
                    let what = format!("{expected} {threads} {copies} {algorithm:?} {io}");
                    for (_, digest) in got {
                        if expected == len {
                            assert_eq!(digest.ok(), Some(want), "{what}");
                        } else {
                            assert!(matches!(digest, Err(FileError::Changed(_))), "{what}");
                        }
                    }
                }
            }
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_segment_past_the_end_fails_with_every_tag() {
        let (dir, file) = scratch("short", &[1, 2, 3]);
        let items = vec![
            (0, 10, vec![2, 5]),
            (1, 2, Vec::new()),
            (0, 9 << 20, Vec::new()),
        ];
        for io in FileIo::ALL {
            let source = list(&file, items.clone(), false);
            let mut outcomes: Vec<(usize, bool)> = run_io(
                source,
                Some(HashAlgorithm::Md5),
                2,
                *io,
                &NoProgress,
                |results| {
                    std::iter::from_fn(|| results.recv())
                        .map(|(tag, r)| (tag, r.is_ok()))
                        .collect()
                },
            );
            outcomes.sort_unstable();
            assert_eq!(
                outcomes,
                vec![(0, true), (1, false), (2, false), (3, true), (4, false)],
                "{io}"
            );
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_stopped_run_ends() {
        let data = vec![0u8; 1 << 20];
        let (dir, file) = scratch("stop", &data);
        let items: Vec<_> = (0..10_000)
            .map(|i| (i % 1000, 1 << 19, Vec::new()))
            .collect();
        let source = list(&file, items, false);
        let first = run(source, HashAlgorithm::Md5, 2, &NoProgress, |results| {
            let first = results.recv();
            results.stop();
            first
        });
        assert!(first.is_some_and(|(_, r)| r.is_ok()));
        std::fs::remove_dir_all(&dir).ok();
    }

    /// A tag that keeps what it was given beside the digest.
    struct Keeping {
        index: usize,
        seen: Vec<u8>,
    }

    impl Tag for Keeping {
        fn beside(&mut self, piece: &[u8]) {
            self.seen.extend_from_slice(piece);
        }
    }

    /// Segments of one file tagged with [`Keeping`].
    struct KeepingList {
        file: Arc<File>,
        items: std::vec::IntoIter<(u64, u64)>,
        next: usize,
    }

    impl Source<Keeping> for KeepingList {
        fn next(&mut self) -> Option<Item<Keeping>> {
            let (offset, len) = self.items.next()?;
            self.next += 1;
            Some(Item::Segment(Segment {
                file: Arc::clone(&self.file),
                offset,
                len,
                ends_file: false,
                tag: Keeping {
                    index: self.next - 1,
                    seen: Vec::new(),
                },
                prefixes: Vec::new(),
            }))
        }

        fn bytes_left(&self) -> u64 {
            self.items.as_slice().iter().map(|i| i.1).sum()
        }

        fn segments_left(&self) -> usize {
            self.items.len()
        }
    }

    #[test]
    fn tags_see_every_byte_of_their_segment_in_order() {
        let data: Vec<u8> = (0..(5 << 20) + 333).map(|i| (i * 29 % 253) as u8).collect();
        let (dir, file) = scratch("beside", &data);
        let len = data.len() as u64;
        // Lanes (many small), alone (one large), empty, odd lengths.
        let mut items: Vec<(u64, u64)> = (0..40).map(|i| (i * 70_001, 65_537 + i * 3)).collect();
        items.push((3, len - 3));
        items.push((len, 0));
        for (algorithm, threads, io) in
            [None, Some(HashAlgorithm::Md5), Some(HashAlgorithm::Md5p(8))]
                .into_iter()
                .flat_map(|a| [1, 2].map(|t| (a, t)))
                .flat_map(|(a, t)| FileIo::ALL.iter().map(move |io| (a, t, *io)))
        {
            let source = KeepingList {
                file: Arc::clone(&file),
                items: items.clone().into_iter(),
                next: 0,
            };
            let mut seen = 0;
            run_io(source, algorithm, threads, io, &NoProgress, |results| {
                while let Some((tag, digest)) = results.recv() {
                    let (offset, seg_len) = items[tag.index];
                    let want = &data[offset as usize..(offset + seg_len) as usize];
                    let what = format!("{algorithm:?} {threads} {io} segment {}", tag.index);
                    assert!(tag.seen == want, "{what}");
                    let digest = digest.expect("read");
                    match algorithm {
                        Some(a) => {
                            let mut h = a.hasher();
                            h.update(want);
                            assert_eq!(digest, h.finalize(), "{what}");
                        }
                        None => assert_eq!(digest, [0; 16], "{what}"),
                    }
                    seen += 1;
                }
            });
            assert_eq!(seen, items.len());
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn lane_chunks_stay_in_bounds_and_aligned() {
        for per_worker in [1, 3, 5, 12, 31, 32, 64, 1000] {
            let chunk = lane_chunk(per_worker);
            assert!((MIN_LANE_CHUNK..=MAX_LANE_CHUNK).contains(&chunk));
            assert_eq!(chunk % 65536, 0);
        }
        assert_eq!(lane_chunk(32), 64 << 10);
    }

    /// Whole files of these sizes (all of /dev/null: only the sizes
    /// matter), for the claiming rules.
    struct Lens {
        file: Arc<File>,
        lens: Vec<u64>,
        next: usize,
    }

    impl Source<usize> for Lens {
        fn next(&mut self) -> Option<Item<usize>> {
            let &len = self.lens.get(self.next)?;
            self.next += 1;
            Some(Item::Segment(Segment {
                file: Arc::clone(&self.file),
                offset: 0,
                len,
                ends_file: true,
                tag: self.next - 1,
                prefixes: Vec::new(),
            }))
        }

        fn bytes_left(&self) -> u64 {
            self.lens[self.next..].iter().sum()
        }

        fn segments_left(&self) -> usize {
            self.lens.len() - self.next
        }
    }

    /// The shared state `run` would make for these sizes, ordered as given.
    fn shared(
        lens: &[u64],
        algorithm: HashAlgorithm,
        threads: usize,
    ) -> Shared<'static, usize, Lens> {
        let source = Lens {
            file: Arc::new(File::open("/dev/null").expect("/dev/null")),
            lens: lens.to_vec(),
            next: 0,
        };
        Shared::new(source, Some(algorithm), threads, &NoProgress)
    }

    /// What a claim came to: the tag and how it is hashed, or why not.
    fn claimed(s: &Shared<'static, usize, Lens>, open: usize, own_bytes: u64) -> String {
        match s.claim(open, own_bytes) {
            Claim::Lane(seg) => format!("lane {}", seg.tag),
            Claim::Alone(seg) => format!("alone {}", seg.tag),
            Claim::Failed(tag, _) => format!("failed {tag}"),
            Claim::Enough => "enough".into(),
            Claim::Done => "done".into(),
        }
    }

    #[test]
    fn many_equal_files_share_the_lanes() {
        let s = shared(&[16 << 20; 64], HashAlgorithm::Md5, 2);
        assert_eq!(s.per_worker, lane_capacity().min(32));
        for i in 0..64 {
            assert_eq!(claimed(&s, i % 8, 64 << 20), format!("lane {i}"));
        }
        assert_eq!(claimed(&s, 0, 0), "done");
    }

    #[test]
    fn a_lone_large_file_is_hashed_alone() {
        if lane_capacity() < 2 {
            return;
        }
        // Sources hand out the largest first (see `whole`).
        let s = shared(&[1 << 30, 300, 200, 100], HashAlgorithm::Md5, 2);
        assert!(s.per_worker > 1);
        // A worker with open lanes leaves it for one that has none.
        assert_eq!(claimed(&s, 1, 0), "enough");
        assert_eq!(claimed(&s, 0, 0), "alone 0");
        // Then the rest in lanes, each worker up to its share of the bytes.
        assert_eq!(claimed(&s, 0, 0), "lane 1");
        assert_eq!(claimed(&s, 1, 300), "enough");
        assert_eq!(claimed(&s, 0, 0), "lane 2");
        assert_eq!(claimed(&s, 1, 200), "lane 3");
        assert_eq!(claimed(&s, 2, 300), "done");
    }

    #[test]
    fn one_file_per_thread_or_md5p_goes_alone() {
        let s = shared(&[200, 100], HashAlgorithm::Md5, 2);
        assert_eq!(s.per_worker, 1);
        assert_eq!(claimed(&s, 0, 0), "alone 0");
        assert_eq!(claimed(&s, 0, 0), "alone 1");
        let s = shared(&[100; 50], HashAlgorithm::Md5p(16), 2);
        assert_eq!(s.per_worker, 1);
        assert_eq!(claimed(&s, 0, 0), "alone 0");
        // A worker with spare threads reads a lone file on a second thread.
        assert!(shared(&[1 << 30], HashAlgorithm::Md5, 2).pipeline);
        assert!(!shared(&[1 << 30, 1], HashAlgorithm::Md5, 2).pipeline);
    }
}
