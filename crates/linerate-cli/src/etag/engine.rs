//! The parallel part hasher: the MD5 of many pieces of regular files
//! ("segments": a part of an upload, or the first part of a candidate part
//! size) on worker threads, many at a time in the lanes of the multi-buffer
//! engine.
//!
//! A [`Source`] hands out segments in order; workers claim them. A worker
//! keeps up to one engine width of segments open, each in a lane of its
//! [`Md5Manager`]: every round it reads the next chunk of each (`pread`,
//! so all threads share one open file) and absorbs them all in one pass; a
//! segment that ends is finished and its lane refilled. Memory is bounded
//! by the chunks in flight: lanes x [`LANE_CHUNK`] per worker.
//!
//! Two rules keep every lane busy until the end:
//!
//! - a worker takes no more than its fair share of the work left (the
//!   bytes not yet handed out plus those open in every worker's lanes,
//!   divided by the threads), so the last segments spread over all workers
//!   instead of piling into the first one's lanes;
//! - a segment with little else to share a worker's lanes is hashed alone
//!   by a single-stream hasher, which is faster than one busy lane of a
//!   wide engine; so is a segment whose prefixes' digests are wanted
//!   as well (the first parts of many candidate part sizes in one pass).
//!
//! Each outcome goes to the consumer on the calling thread, tagged as its
//! segment was, in the order the work finishes.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, PoisonError};

use linerate::{Md5, Md5Manager, StreamId};

use crate::sum::progress::Ticker;

/// Bytes read per lane per round: 32 lanes of it stay within a core's L2.
pub const LANE_CHUNK: usize = 64 << 10;

/// Bytes read per call by a single-stream hasher.
const ALONE_CHUNK: usize = 256 << 10;

/// A segment goes to a lane only if the work expected to share its
/// worker's lanes is at least this many times its size: one busy lane of a
/// 32-lane engine does 1/32 of its work, a single-stream hasher about 1/8.
const LANES_FACTOR: u64 = 4;

/// A piece of a file whose MD5 is wanted.
pub struct Segment<T> {
    pub file: Arc<File>,
    pub offset: u64,
    pub len: u64,
    /// Where the digest of the whole segment goes.
    pub tag: T,
    /// Digests of the segment's own prefixes also wanted: their lengths
    /// (ascending, each less than `len`) and tags.
    pub prefixes: Vec<(u64, T)>,
}

/// What a [`Source`] hands out.
pub enum Item<T> {
    Segment(Segment<T>),
    /// Work that cannot be done (its file would not open): reported as is.
    Failed(T, io::Error),
}

/// The segments of one run, in the order they should be started.
pub trait Source<T>: Send {
    /// The next segment, or `None` when there are no more.
    fn next(&mut self) -> Option<Item<T>>;
    /// Bytes of the segments not yet handed out (an estimate is enough).
    fn bytes_left(&self) -> u64;
}

/// A tag and the digest of its segment or prefix, or why it failed.
pub type Outcome<T> = (T, io::Result<[u8; 16]>);

/// The consumer's end of a run.
pub struct Results<'a, T> {
    receiver: Receiver<Outcome<T>>,
    stop: &'a AtomicBool,
}

impl<T> Results<'_, T> {
    /// The next outcome, waiting for it; `None` once every segment is done.
    pub fn recv(&self) -> Option<Outcome<T>> {
        self.receiver.recv().ok()
    }

    /// Ends the run early: workers abandon what they hold.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Hashes the segments of `source` on `threads` workers while `consume`
/// takes the outcomes; returns what `consume` returns. Every tag gets
/// exactly one outcome unless the run is stopped.
pub fn run<T, S, R>(
    source: S,
    threads: usize,
    ticker: &Ticker,
    consume: impl FnOnce(&Results<'_, T>) -> R,
) -> R
where
    T: Send,
    S: Source<T>,
{
    let threads = threads.max(1);
    let shared = Shared {
        queue: Mutex::new(Queue {
            source,
            peeked: None,
        }),
        open_bytes: AtomicU64::new(0),
        threads: threads as u64,
        stop: AtomicBool::new(false),
        ticker,
    };
    std::thread::scope(|scope| {
        let (sender, receiver) = mpsc::channel();
        for _ in 0..threads {
            let sender = sender.clone();
            let shared = &shared;
            scope.spawn(move || Worker::new(shared, sender).work());
        }
        drop(sender);
        let results = Results {
            receiver,
            stop: &shared.stop,
        };
        let result = consume(&results);
        results.stop();
        result
    })
}

/// What the workers share.
struct Shared<'a, T, S> {
    queue: Mutex<Queue<T, S>>,
    /// Bytes still to read in every worker's lanes.
    open_bytes: AtomicU64,
    threads: u64,
    stop: AtomicBool,
    ticker: &'a Ticker,
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
    Failed(T, io::Error),
    /// Take nothing more now: the worker holds its share, or the next
    /// segment is to be hashed alone once its lanes are empty.
    Enough,
    /// Nothing is left (or the run was stopped).
    Done,
}

impl<T: Send, S: Source<T>> Shared<'_, T, S> {
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// The next step of a worker with `open` segments in its lanes that
    /// have `own_bytes` left to read.
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
        let open_total = self.open_bytes.load(Ordering::Relaxed);
        let share = (after + segment.len + open_total) / self.threads;
        let company = after / self.threads + own_bytes;
        let alone =
            !segment.prefixes.is_empty() || company < segment.len.saturating_mul(LANES_FACTOR);
        if open > 0 && (alone || own_bytes >= share) {
            queue.peeked = Some(Item::Segment(segment));
            return Claim::Enough;
        }
        if alone {
            Claim::Alone(segment)
        } else {
            self.open_bytes.fetch_add(segment.len, Ordering::Relaxed);
            Claim::Lane(segment)
        }
    }
}

/// A segment open in a lane.
struct Stream<T> {
    segment: Segment<T>,
    id: StreamId,
    buf: Vec<u8>,
    /// Bytes of the segment read so far.
    done: u64,
    /// Bytes of `buf` read this round.
    filled: usize,
    error: Option<io::Error>,
}

impl<T> Stream<T> {
    fn left(&self) -> u64 {
        self.segment.len - self.done
    }

    fn is_over(&self) -> bool {
        self.done == self.segment.len || self.error.is_some()
    }
}

struct Worker<'s, 'a, T, S> {
    shared: &'s Shared<'a, T, S>,
    results: Sender<Outcome<T>>,
    manager: Option<Md5Manager>,
    streams: Vec<Stream<T>>,
    spare: Vec<Vec<u8>>,
    alone_buf: Vec<u8>,
}

impl<'s, 'a, T: Send, S: Source<T>> Worker<'s, 'a, T, S> {
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

    fn send(&self, tag: T, result: io::Result<[u8; 16]>) {
        // The consumer only goes away when it stops the run; then nobody
        // wants the outcome.
        drop(self.results.send((tag, result)));
    }

    /// Takes segments until none are left or the run is stopped.
    fn work(mut self) {
        loop {
            self.claim_more();
            if self.streams.is_empty() || self.shared.stopped() {
                return;
            }
            self.round();
        }
    }

    /// Fills free lanes (and hashes alone what should be) until the worker
    /// holds its share.
    fn claim_more(&mut self) {
        loop {
            let capacity = self.manager.get_or_insert_with(Md5Manager::new).capacity();
            if self.streams.len() >= capacity {
                return;
            }
            let own_bytes = self.streams.iter().map(Stream::left).sum();
            match self.shared.claim(self.streams.len(), own_bytes) {
                Claim::Done | Claim::Enough => return,
                Claim::Failed(tag, e) => self.send(tag, Err(e)),
                Claim::Alone(segment) => self.hash_alone(segment),
                Claim::Lane(segment) => {
                    let id = self
                        .manager
                        .as_mut()
                        .and_then(Md5Manager::open)
                        .expect("a worker opens no more streams than it has lanes");
                    let buf = self.spare.pop().unwrap_or_else(|| vec![0; LANE_CHUNK]);
                    self.streams.push(Stream {
                        segment,
                        id,
                        buf,
                        done: 0,
                        filled: 0,
                        error: None,
                    });
                }
            }
        }
    }

    /// Reads the next chunk of every open segment, absorbs them in one pass
    /// and finishes the segments that ended.
    fn round(&mut self) {
        let mut read = 0u64;
        for stream in &mut self.streams {
            let want = stream.left().min(stream.buf.len() as u64) as usize;
            let offset = stream.segment.offset + stream.done;
            match read_exact_at(&stream.segment.file, &mut stream.buf[..want], offset) {
                Ok(()) => {
                    stream.filled = want;
                    stream.done += want as u64;
                }
                Err(e) => {
                    stream.filled = 0;
                    stream.error = Some(e);
                }
            }
            read += stream.filled as u64;
        }
        self.shared.ticker.advance(read as usize);
        let Some(manager) = self.manager.as_mut() else {
            return;
        };
        let batch: Vec<(&StreamId, &[u8])> = self
            .streams
            .iter()
            .filter(|s| s.filled > 0)
            .map(|s| (&s.id, &s.buf[..s.filled]))
            .collect();
        manager.submit(&batch);
        let mut finished = 0u64;
        let mut i = 0;
        while i < self.streams.len() {
            if !self.streams[i].is_over() {
                i += 1;
                continue;
            }
            let stream = self.streams.swap_remove(i);
            // A failed segment's lane is freed too; its digest is dropped.
            let digest = manager.finish(stream.id);
            finished += stream.segment.len - stream.done;
            let result = match stream.error {
                Some(e) => Err(e),
                None => Ok(digest),
            };
            self.spare.push(stream.buf);
            // As `send`, which would borrow all of `self`.
            drop(self.results.send((stream.segment.tag, result)));
        }
        // What was read, and what failed segments will never read.
        self.shared
            .open_bytes
            .fetch_sub(read + finished, Ordering::Relaxed);
    }

    /// Hashes `segment` with a single-stream hasher, sending the digests of
    /// its prefixes on the way.
    fn hash_alone(&mut self, segment: Segment<T>) {
        if self.alone_buf.is_empty() {
            self.alone_buf = vec![0; ALONE_CHUNK];
        }
        let mut md5 = Md5::new();
        let mut prefixes = segment.prefixes.into_iter().peekable();
        let mut done = 0u64;
        let mut failure = None;
        while done < segment.len {
            if self.shared.stopped() {
                return;
            }
            let stop_at = prefixes.peek().map_or(segment.len, |&(end, _)| end);
            let want = (stop_at - done).min(ALONE_CHUNK as u64) as usize;
            let buf = &mut self.alone_buf[..want];
            if let Err(e) = read_exact_at(&segment.file, buf, segment.offset + done) {
                failure = Some(e);
                break;
            }
            md5.update(&*buf);
            done += want as u64;
            self.shared.ticker.advance(want);
            while let Some((_, tag)) = prefixes.next_if(|&(end, _)| end == done) {
                self.send(tag, Ok(md5.clone().finalize()));
            }
        }
        match failure {
            None => self.send(segment.tag, Ok(md5.finalize())),
            Some(e) => {
                // Every tag gets its outcome: the same error for each.
                for (_, tag) in prefixes {
                    self.send(tag, Err(copy_error(&e)));
                }
                self.send(segment.tag, Err(e));
            }
        }
    }
}

/// Fills `buf` from `file` at `offset`; a file that ends first has shrunk
/// since its size was taken.
pub fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> io::Result<()> {
    while !buf.is_empty() {
        match file.read_at(buf, offset) {
            Ok(0) => {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "file shrank while being read",
                ));
            }
            Ok(n) => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// An equivalent of `e` (io::Error is not `Clone`).
fn copy_error(e: &io::Error) -> io::Error {
    match e.raw_os_error() {
        Some(code) => io::Error::from_raw_os_error(code),
        None => io::Error::new(e.kind(), e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Segments of one file: `(offset, len, prefixes)`, tagged by index.
    struct List {
        file: Arc<File>,
        items: std::vec::IntoIter<(u64, u64, Vec<u64>)>,
        tag: usize,
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
                tag,
                prefixes,
            }))
        }

        fn bytes_left(&self) -> u64 {
            self.items.as_slice().iter().map(|i| i.1).sum()
        }
    }

    fn scratch(name: &str, data: &[u8]) -> (std::path::PathBuf, Arc<File>) {
        let dir = std::env::temp_dir().join(format!("linerate-etag-{name}-{}", std::process::id()));
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
        for threads in [1, 2, 5] {
            let source = List {
                file: Arc::clone(&file),
                items: items.clone().into_iter(),
                tag: 0,
            };
            let mut got = vec![None; want.len()];
            run(source, threads, &Ticker::default(), |results| {
                while let Some((tag, digest)) = results.recv() {
                    assert!(got[tag].is_none(), "tag {tag} twice");
                    got[tag] = digest.ok();
                }
            });
            let want: Vec<_> = want.iter().copied().map(Some).collect();
            assert_eq!(got, want, "{threads} threads");
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_segment_past_the_end_fails_with_every_tag() {
        let (dir, file) = scratch("short", &[1, 2, 3]);
        let source = List {
            file,
            items: vec![
                (0, 10, vec![2, 5]),
                (1, 2, Vec::new()),
                (0, 9 << 20, Vec::new()),
            ]
            .into_iter(),
            tag: 0,
        };
        let mut outcomes: Vec<(usize, bool)> = run(source, 2, &Ticker::default(), |results| {
            std::iter::from_fn(|| results.recv())
                .map(|(tag, r)| (tag, r.is_ok()))
                .collect()
        });
        outcomes.sort_unstable();
        assert_eq!(
            outcomes,
            vec![(0, true), (1, false), (2, false), (3, true), (4, false)]
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_stopped_run_ends() {
        let data = vec![0u8; 1 << 20];
        let (dir, file) = scratch("stop", &data);
        let items: Vec<_> = (0..10_000)
            .map(|i| (i % 1000, 1 << 19, Vec::new()))
            .collect();
        let source = List {
            file,
            items: items.into_iter(),
            tag: 0,
        };
        let first = run(source, 2, &Ticker::default(), |results| {
            let first = results.recv();
            results.stop();
            first
        });
        assert!(first.is_some_and(|(_, r)| r.is_ok()));
        std::fs::remove_dir_all(&dir).ok();
    }
}
