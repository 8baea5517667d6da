//! The ETags (and S3's other checksums) of many inputs, in input order.
//!
//! Regular files go to the engine ([`crate::engine`]): each file's parts (or
//! its whole content, when it is one PUT) are segments, handed out file
//! after file, so one large file fills every lane of every thread and many
//! small files share them. The other checksums of a part ride in its
//! segment's tag ([`PartTag`]), fed each piece as the engine reads it: one
//! pass for all of them. Anything else (standard input, pipes, devices,
//! directories, names that cannot be `stat`ed, files whose sizes the kernel
//! makes up, as in `/proc`) is read by the calling thread when its turn
//! comes ([`super::stream`]), as md5sum would, its parts cut as the bytes
//! stream past (or refused: [`Policy::regular_only`]). A file whose layout
//! breaks the policy's [`limits`](Policy::limits) gets that as its error,
//! unread.

use std::fs::File;
use std::sync::Arc;

use linerate::HashAlgorithm;
use linerate_sumfile::s3::S3Value;

use super::Etag;
use super::checksums::{PartSums, PartValues, Request, Upload, etag_of};
use super::layout::{Layout, OutsideS3, Policy};
use super::stream::checksums_and_layout;
use crate::engine::{self, Item, Results, Segment, Source, Tag};
use crate::read::{Reader, Sizes};
use crate::{FileError, Input, Progress};

/// A regular file for the engine.
struct Job<'a> {
    input: Input<'a>,
    /// Its size when it was `stat`ed: the bytes hashed.
    len: u64,
    layout: Layout,
    /// The policy's limit the layout breaks: the job's outcome, unread.
    refused: Option<OutsideS3>,
}

impl Job<'_> {
    /// The items it takes from the source: its parts, or its refusal.
    fn segments(&self) -> usize {
        match self.refused {
            Some(_) => 1,
            None => self.layout.segments(),
        }
    }
}

/// A segment's tag: the job, the part, and the part's checksums besides
/// the MD5, if any are wanted.
struct PartTag {
    job: usize,
    part: u64,
    sums: Option<PartSums>,
}

impl Tag for PartTag {
    fn beside(&mut self, piece: &[u8]) {
        if let Some(sums) = &mut self.sums {
            sums.update(piece);
        }
    }
}

/// Computes the ETag of every one of `inputs` on up to `threads` threads
/// and hands each outcome to `each` on the calling thread, in the order of
/// `inputs`, with the input's index and, for a regular file, its layout
/// (read from its size before any part is hashed).
pub fn etags_in_order(
    inputs: &[Input<'_>],
    policy: &Policy,
    threads: usize,
    progress: &dyn Progress,
    mut each: impl FnMut(usize, Option<Layout>, Result<Etag, FileError>),
) {
    checksums_in_order(
        inputs,
        policy,
        &Request::etag(),
        threads,
        progress,
        |index, layout, result| each(index, layout, result.map(etag_of)),
    );
}

/// [`etags_in_order`] for the checksums `request` asks for, in its order:
/// all of a part's from one read of it.
pub fn checksums_in_order(
    inputs: &[Input<'_>],
    policy: &Policy,
    request: &Request,
    threads: usize,
    progress: &dyn Progress,
    mut each: impl FnMut(usize, Option<Layout>, Result<Vec<S3Value>, FileError>),
) {
    let mut jobs = Vec::new();
    let mut sizes = Sizes::default();
    let routes: Vec<Option<usize>> = inputs
        .iter()
        .map(|input| {
            let len = sizes.known_len(*input)?;
            let layout = policy.layout(len);
            jobs.push(Job {
                input: *input,
                len,
                layout,
                // Refused before anything is read.
                refused: policy.refuses(layout, len),
            });
            Some(jobs.len() - 1)
        })
        .collect();
    let source = Jobs {
        jobs: &jobs,
        request,
        next_job: 0,
        next_part: 0,
        file: None,
        bytes_left: jobs.iter().map(|j| j.len).sum(),
        segments_left: jobs.iter().map(Job::segments).sum(),
    };
    let consume = |results: &Results<'_, PartTag>| {
        let mut done = Done::new(&jobs, request);
        let mut reader = Reader::default();
        for (index, (input, route)) in inputs.iter().zip(routes).enumerate() {
            match route {
                Some(job) => {
                    progress.begin_file(*input, None);
                    let result = done.wait_for(job, results);
                    progress.end_file();
                    each(index, Some(jobs[job].layout), result);
                }
                None => {
                    let (layout, result) =
                        checksums_and_layout(*input, policy, request, &mut reader, progress);
                    each(index, layout, result);
                }
            }
        }
    };
    // Without the ETag, no MD5: the parts' bytes only go to their tags.
    if request.wants_md5() {
        engine::run(source, HashAlgorithm::Md5, threads, progress, consume);
    } else {
        engine::run_beside(source, threads, progress, consume);
    }
}

/// The segments of every job, in order; a file is opened when its first
/// segment is handed out and closed when its last one is done.
struct Jobs<'a> {
    jobs: &'a [Job<'a>],
    request: &'a Request,
    next_job: usize,
    next_part: u64,
    file: Option<Arc<File>>,
    bytes_left: u64,
    segments_left: usize,
}

impl Jobs<'_> {
    fn tag(&self, job: usize, part: u64) -> PartTag {
        let sums = self
            .request
            .wants_others()
            .then(|| PartSums::new(self.request, false));
        PartTag { job, part, sums }
    }
}

impl Source<PartTag> for Jobs<'_> {
    fn next(&mut self) -> Option<Item<PartTag>> {
        let index = self.next_job;
        let job = self.jobs.get(index)?;
        if let Some(broken) = job.refused {
            self.next_job += 1;
            self.bytes_left -= job.len;
            self.segments_left -= 1;
            return Some(Item::Failed(self.tag(index, 0), broken.into_error()));
        }
        let file = match &self.file {
            Some(file) => Arc::clone(file),
            // Not waiting on what was swapped in since the stat.
            None => match job.input.open_regular() {
                Ok(file) => Arc::clone(self.file.insert(Arc::new(file))),
                Err(e) => {
                    self.next_job += 1;
                    self.bytes_left -= job.len;
                    self.segments_left -= job.layout.segments();
                    return Some(Item::Failed(self.tag(index, 0), FileError::Open(e)));
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
        self.segments_left -= 1;
        Some(Item::Segment(Segment {
            file,
            offset,
            len,
            // The file should end with its last part.
            ends_file: last,
            tag: self.tag(index, part),
            prefixes: Vec::new(),
        }))
    }

    fn bytes_left(&self) -> u64 {
        self.bytes_left
    }

    fn segments_left(&self) -> usize {
        self.segments_left
    }
}

/// Where a job stands.
enum State {
    /// Parts (or a PUT's one segment) are due.
    Pending(Box<Upload>),
    Ready(Result<Vec<S3Value>, FileError>),
    /// Printed (or reported).
    Taken,
}

/// Each job's outcome as its segments come back.
struct Done<'a> {
    jobs: &'a [Job<'a>],
    request: &'a Request,
    states: Vec<State>,
}

impl<'a> Done<'a> {
    fn new(jobs: &'a [Job<'a>], request: &'a Request) -> Done<'a> {
        let states = jobs
            .iter()
            .map(|_| State::Pending(Box::new(Upload::new(request))))
            .collect();
        Done {
            jobs,
            request,
            states,
        }
    }

    /// Waits until job `job` is done and takes its outcome.
    fn wait_for(
        &mut self,
        job: usize,
        results: &Results<'_, PartTag>,
    ) -> Result<Vec<S3Value>, FileError> {
        loop {
            match std::mem::replace(&mut self.states[job], State::Taken) {
                State::Ready(result) => return result,
                pending => self.states[job] = pending,
            }
            let Some((tag, result)) = results.recv() else {
                // Every segment gets an outcome unless a worker died or the
                // run was cancelled.
                return Err(results.missing());
            };
            self.record(tag, result);
        }
    }

    fn record(&mut self, tag: PartTag, result: Result<[u8; 16], FileError>) {
        let PartTag { job, part, sums } = tag;
        let state = &mut self.states[job];
        let outcome = match (&mut *state, result) {
            // A failed job's other parts do not matter.
            (State::Ready(_) | State::Taken, _) => return,
            (_, Err(e)) => Err(e),
            (State::Pending(upload), Ok(digest)) => {
                let mut values = sums.map_or_else(PartValues::default, PartSums::finish);
                if self.request.wants_md5() {
                    values.md5 = Some(digest);
                }
                upload.add(part, values);
                let job = &self.jobs[job];
                let parts = match job.layout {
                    Layout::Plain => None,
                    Layout::Parts { count, .. } => Some(count),
                };
                if upload.parts_in() < parts.unwrap_or(1) {
                    return;
                }
                // The last part checked that the file ended with it, but
                // parts are hashed at once, in any order: bytes appended
                // while an earlier part was still read came after that
                // check. Only the size now, once every part is in, tells.
                let unchanged =
                    parts.is_none() || job.input.metadata().is_ok_and(|meta| meta.len() == job.len);
                if unchanged {
                    let upload = std::mem::replace(&mut **upload, Upload::new(self.request));
                    Ok(upload.finish(parts))
                } else {
                    Err(FileError::changed())
                }
            }
        };
        *state = State::Ready(outcome);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_file_that_grew_after_its_last_part_was_checked_has_no_etag() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("grows");
        std::fs::write(&path, [7u8; 10]).expect("write");
        let jobs = [Job {
            input: Input::Path(path.as_os_str()),
            len: 10,
            layout: Layout::Parts { size: 5, count: 2 },
            refused: None,
        }];
        // Parts come back in any order: the last one first (its own end
        // check passed), then bytes are appended, then the first part.
        for grow in [false, true] {
            let request = Request::etag();
            let mut done = Done::new(&jobs, &request);
            let tag = |part| PartTag {
                job: 0,
                part,
                sums: None,
            };
            done.record(tag(1), Ok([1; 16]));
            if grow {
                let mut file = File::options().append(true).open(&path).expect("open");
                file.write_all(b"more").expect("append");
            }
            done.record(tag(0), Ok([2; 16]));
            let State::Ready(result) = std::mem::replace(&mut done.states[0], State::Taken) else {
                panic!("every part is in");
            };
            if grow {
                assert!(matches!(result, Err(FileError::Changed(_))), "{result:?}");
            } else {
                assert_eq!(etag_of(result.expect("unchanged")).parts, Some(2));
            }
        }
    }
}
