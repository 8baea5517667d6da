//! `linerate etag FILE...`: one `ETAG  NAME` line per operand, in argument
//! order.
//!
//! Regular files go to the parallel part hasher ([`super::engine`]): each
//! file's parts (or its whole content, when it is one PUT) are segments,
//! handed out file after file, so one large file fills every lane of every
//! thread and many small files share them. Anything else (`-`, pipes,
//! devices, directories, names that cannot be `stat`ed) is read by the main
//! thread when its turn comes ([`super::stream`]), as md5sum would.

use std::ffi::{OsStr, OsString};
use std::fs::{self, File};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::sync::Arc;

use super::engine::{self, Item, Results, Segment, Source};
use super::layout::{Layout, MAX_PARTS, Policy, S3_MAX_PART, S3_MIN_PART};
use super::size::human;
use super::stream::etag_of_stream;
use super::value::Assembler;
use crate::sum::console::{Console, error_text};
use crate::sum::hash::{FileHasher, HashError};
use linerate_sumfile::etag::Etag;
use linerate_sumfile::etag::push_line;

/// A regular file for the part hasher.
struct Job<'a> {
    name: &'a OsStr,
    /// Its size when it was `stat`ed: the bytes hashed.
    len: u64,
    layout: Layout,
}

/// A segment's tag: the job and the part.
type Tag = (usize, u64);

/// Prints the ETag line of every operand; true if all could be read.
pub fn run(console: &mut Console, files: &[OsString], policy: &Policy, threads: usize) -> bool {
    if let Some(size) = policy.part_size
        && !(S3_MIN_PART..=S3_MAX_PART).contains(&size)
    {
        console.error(
            format!(
                "warning: part size {} is outside S3's range of 5 MiB to 5 GiB (only \
                 the last part may be smaller); such ETags come only from stores that \
                 accept it",
                human(size)
            )
            .as_bytes(),
        );
    }
    let mut ok = true;
    let mut line = Vec::new();
    etags_in_order(
        console,
        files,
        policy,
        threads,
        |console, name, result| match result {
            Ok(etag) => {
                line.clear();
                push_line(&mut line, &etag, name.as_bytes());
                console.print(&line);
            }
            Err(e) => {
                console.error_about(name.as_bytes(), &error_text(e.io_error()));
                ok = false;
            }
        },
    );
    ok
}

/// Computes the ETag of every one of `files` on up to `threads` worker
/// threads and hands each outcome to `each` on the calling thread, in the
/// order of `files` (`-` is standard input).
pub fn etags_in_order<F>(
    console: &mut Console,
    files: &[OsString],
    policy: &Policy,
    threads: usize,
    mut each: F,
) where
    F: FnMut(&mut Console, &OsStr, Result<Etag, HashError>),
{
    let mut jobs = Vec::new();
    let routes: Vec<Option<usize>> = files
        .iter()
        .map(|name| {
            // Standard input and whatever is no regular file are read in
            // order by this thread.
            let meta = fs::metadata(name)
                .ok()
                .filter(|_| name.as_bytes() != b"-")?;
            let len = meta.is_file().then_some(meta.len())?;
            jobs.push(Job {
                name,
                len,
                layout: policy.layout(len),
            });
            Some(jobs.len() - 1)
        })
        .collect();
    let source = Jobs {
        jobs: &jobs,
        next_job: 0,
        next_part: 0,
        file: None,
        bytes_left: jobs.iter().map(|j| j.len).sum(),
    };
    let ticker = console.progress.ticker();
    engine::run(source, threads, &ticker, |results| {
        let mut done = Done::new(&jobs);
        let mut hasher = FileHasher::default();
        for (name, route) in files.iter().zip(routes) {
            let result = match route {
                Some(job) => {
                    warn_about_many_parts(console, &jobs[job]);
                    console.progress.begin_file(name.as_bytes(), None);
                    let result = done.wait_for(job, results).map_err(HashError::Read);
                    console.progress.end_file();
                    result
                }
                None => etag_of_stream(name, policy, &mut hasher, &mut console.progress),
            };
            each(console, name, result);
        }
    });
}

/// S3 refuses uploads of more than 10,000 parts; say so, but print the ETag.
fn warn_about_many_parts(console: &mut Console, job: &Job) {
    if let Layout::Parts { size, count } = job.layout
        && count > MAX_PARTS
    {
        let detail = format!(
            "warning: {count} parts of {}; S3 takes at most {MAX_PARTS}",
            human(size)
        );
        console.error_about(job.name.as_bytes(), detail.as_bytes());
    }
}

/// The segments of every job, in order; a file is opened when its first
/// segment is handed out and closed when its last one is done.
struct Jobs<'a> {
    jobs: &'a [Job<'a>],
    next_job: usize,
    next_part: u64,
    file: Option<Arc<File>>,
    bytes_left: u64,
}

impl Source<Tag> for Jobs<'_> {
    fn next(&mut self) -> Option<Item<Tag>> {
        let index = self.next_job;
        let job = self.jobs.get(index)?;
        let file = match &self.file {
            Some(file) => Arc::clone(file),
            None => match File::open(job.name) {
                Ok(file) => Arc::clone(self.file.insert(Arc::new(file))),
                Err(e) => {
                    self.next_job += 1;
                    self.bytes_left -= job.len;
                    return Some(Item::Failed((index, 0), e));
                }
            },
        };
        let part = self.next_part;
        let (offset, len, last) = match job.layout {
            Layout::Plain => (0, job.len, true),
            Layout::Parts { size, count } => {
                let offset = part * size;
                (offset, size.min(job.len - offset), part + 1 == count)
            }
        };
        if last {
            self.next_job += 1;
            self.next_part = 0;
            self.file = None;
        } else {
            self.next_part += 1;
        }
        self.bytes_left -= len;
        Some(Item::Segment(Segment {
            file,
            offset,
            len,
            tag: (index, part),
            prefixes: Vec::new(),
        }))
    }

    fn bytes_left(&self) -> u64 {
        self.bytes_left
    }
}

/// Where a job stands.
enum State {
    /// One PUT: its one segment is due.
    Plain,
    /// Parts are due.
    Parts(Assembler),
    Ready(io::Result<Etag>),
    /// Printed (or reported).
    Taken,
}

/// Each job's outcome as its segments come back.
struct Done {
    states: Vec<State>,
}

impl Done {
    fn new(jobs: &[Job]) -> Done {
        let states = jobs
            .iter()
            .map(|job| match job.layout {
                Layout::Plain => State::Plain,
                Layout::Parts { count, .. } => State::Parts(Assembler::new(count)),
            })
            .collect();
        Done { states }
    }

    /// Waits until job `job` is done and takes its outcome.
    fn wait_for(&mut self, job: usize, results: &Results<'_, Tag>) -> io::Result<Etag> {
        loop {
            match std::mem::replace(&mut self.states[job], State::Taken) {
                State::Ready(result) => return result,
                pending => self.states[job] = pending,
            }
            let Some(((index, part), result)) = results.recv() else {
                // Every segment gets an outcome unless a worker died.
                return Err(io::Error::other("a worker thread failed"));
            };
            self.record(index, part, result);
        }
    }

    fn record(&mut self, job: usize, part: u64, result: io::Result<[u8; 16]>) {
        let state = &mut self.states[job];
        let outcome = match (&mut *state, result) {
            // A failed job's other parts do not matter.
            (State::Ready(_) | State::Taken, _) => return,
            (_, Err(e)) => Err(e),
            (State::Plain, Ok(digest)) => Ok(Etag {
                digest,
                parts: None,
            }),
            (State::Parts(assembler), Ok(digest)) => {
                assembler.add(part, digest);
                if !assembler.is_complete() {
                    return;
                }
                Ok(assembler.finish())
            }
        };
        *state = State::Ready(outcome);
    }
}
