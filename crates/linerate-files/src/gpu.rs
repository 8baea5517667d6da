//! Whole files and S3 parts on the GPU (`--device cuda`, feature `cuda`):
//! the regular files go to linerate's GPU streams engine
//! ([`linerate::gpu::Context::md5_streams`]), each opened when it enters
//! the window and closed when its last slice is read; everything else
//! (standard input, pipes, devices) is read in its turn as on the CPU.
//! Outcomes come in input order with the CPU path's errors: a file that
//! shrank or grew while it was read is [`FileError::Changed`].

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::sync::{Arc, Mutex};

use linerate::HashAlgorithm;
use linerate::gpu::{Context, GpuError, Source, StreamOptions};

use linerate_sumfile::s3::{S3Algorithm, S3Value};

use crate::read::Reader;
use crate::s3::checksums::Request;
use crate::s3::etags::checksums_in_order;
use crate::s3::layout::{Layout, Policy};
use crate::whole::regular_jobs;
use crate::{FileError, Input, Progress};

/// A regular file, or a part of one (an S3 part), opened on first read
/// unless given open.
struct FileSource<'a> {
    input: Input<'a>,
    /// Where the part starts in the file, and its length.
    start: u64,
    len: u64,
    /// The file's length when it was `stat`ed.
    file_len: u64,
    file: Mutex<Option<Arc<File>>>,
    /// The error to report, where it is more than a read error.
    error: Mutex<Option<FileError>>,
    /// Asked before every read: a cancelled run reads nothing more.
    progress: &'a dyn Progress,
}

impl FileSource<'_> {
    fn fail(&self, e: FileError) -> io::Error {
        let copy = io::Error::new(e.io_error().kind(), e.to_string());
        *self.error.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
        copy
    }
}

impl Source for FileSource<'_> {
    fn size(&self) -> u64 {
        self.len
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        if self.progress.cancelled() {
            return Err(self.fail(FileError::cancelled()));
        }
        let mut guard = self.file.lock().unwrap_or_else(|p| p.into_inner());
        if guard.is_none() {
            let file = self
                .input
                .open_regular()
                .map_err(|e| self.fail(FileError::Open(e)))?;
            *guard = Some(Arc::new(file));
        }
        let file = guard.as_ref().expect("opened above");
        let offset = self.start + offset;
        let mut done = 0;
        while done < buf.len() {
            match file.read_at(&mut buf[done..], offset + done as u64) {
                Ok(0) => return Err(self.fail(FileError::changed())),
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.fail(FileError::Read(e))),
            }
        }
        if offset + buf.len() as u64 == self.file_len {
            // The end as it was stat'ed: a byte past it means the file grew.
            let mut one = [0u8; 1];
            if matches!(file.read_at(&mut one, self.file_len), Ok(n) if n > 0) {
                return Err(self.fail(FileError::changed()));
            }
        }
        Ok(())
    }

    fn done(&self) {
        *self.file.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }
}

/// Files open at once at most (each holds a descriptor while in flight).
fn window() -> usize {
    let soft = rustix::process::getrlimit(rustix::process::Resource::Nofile)
        .current
        .unwrap_or(u64::MAX);
    (soft.saturating_sub(64) as usize).clamp(16, 8192)
}

/// [`crate::whole::hash_in_order`] for MD5 on the GPU `ctx`: outcomes in
/// input order, each with its index. `Err` only if the GPU itself failed
/// (before anything was delivered).
pub fn hash_in_order_gpu(
    ctx: &Context,
    inputs: &[Input<'_>],
    progress: &dyn Progress,
    mut each: impl FnMut(usize, Result<[u8; 16], FileError>),
) -> Result<(), GpuError> {
    let (jobs, routes) = regular_jobs(inputs);
    let sources: Vec<FileSource> = jobs
        .iter()
        .map(|j| FileSource {
            input: j.input,
            start: 0,
            len: j.len,
            file_len: j.len,
            file: Mutex::new(None),
            error: Mutex::new(None),
            progress,
        })
        .collect();
    let options = StreamOptions {
        window: window(),
        ..StreamOptions::default()
    };
    let mut results: Vec<Option<Result<[u8; 16], FileError>>> =
        hash_sources(ctx, &sources, options)?
            .into_iter()
            .map(Some)
            .collect();
    let mut reader = Reader::default();
    for (index, (input, route)) in inputs.iter().zip(routes).enumerate() {
        let result = match route {
            None => {
                let result = reader.digest(*input, HashAlgorithm::Md5, progress);
                progress.file_done();
                result
            }
            Some(job) => {
                progress.begin_file(*input, None);
                let result = results[job].take().expect("one outcome per job");
                progress.end_file();
                result
            }
        };
        each(index, result);
    }
    Ok(())
}

/// MD5 of every source on the GPU, each error as the CPU path names it.
fn hash_sources(
    ctx: &Context,
    sources: &[FileSource<'_>],
    options: StreamOptions,
) -> Result<Vec<Result<[u8; 16], FileError>>, GpuError> {
    Ok(ctx
        .md5_streams(sources, options)?
        .into_iter()
        .zip(sources)
        .map(|(r, s)| {
            r.map_err(|e| {
                s.error
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .take()
                    .unwrap_or(FileError::Read(e))
            })
        })
        .collect())
}

/// A file's layout and its ETag (or why not).
type EtagOutcome = (Layout, Result<Vec<S3Value>, FileError>);

/// [`crate::s3::etags::checksums_in_order`] for plain ETags with the parts
/// of every regular file on the GPU `ctx`, all files' parts in one window
/// (many parts are what a GPU needs); other inputs go through the CPU path
/// in their turn. `Err` only if the GPU itself failed, before anything was
/// delivered.
pub fn etags_in_order_gpu(
    ctx: &Context,
    inputs: &[Input<'_>],
    policy: &Policy,
    threads: usize,
    progress: &dyn Progress,
    mut each: impl FnMut(usize, Option<Layout>, Result<Vec<S3Value>, FileError>),
) -> Result<(), GpuError> {
    let (jobs, routes) = regular_jobs(inputs);
    let mut sources = Vec::new();
    let mut first_part = Vec::with_capacity(jobs.len());
    for j in &jobs {
        first_part.push(sources.len());
        let layout = policy.layout(j.len);
        let (size, count) = match layout {
            // Refused: no part is read.
            _ if policy.refuses(layout, j.len).is_some() => (1, 0),
            Layout::Plain => (j.len.max(1), 1),
            Layout::Parts { size, count } => (size, count),
        };
        for k in 0..count {
            let start = (k * size).min(j.len);
            sources.push(FileSource {
                input: j.input,
                start,
                len: (j.len - start).min(size),
                file_len: j.len,
                file: Mutex::new(None),
                error: Mutex::new(None),
                progress,
            });
        }
    }
    first_part.push(sources.len());
    // Parts of one file share its descriptor: open each file once, in
    // groups that stay under the descriptor limit.
    let group = window();
    let mut digests: Vec<Result<[u8; 16], FileError>> = Vec::with_capacity(sources.len());
    for files in (0..jobs.len()).collect::<Vec<_>>().chunks(group) {
        let parts = first_part[files[0]]..first_part[files[files.len() - 1] + 1];
        for &f in files {
            if let Ok(file) = jobs[f].input.open_regular() {
                let file = Arc::new(file);
                for s in &sources[first_part[f]..first_part[f + 1]] {
                    *s.file.lock().unwrap_or_else(|p| p.into_inner()) = Some(Arc::clone(&file));
                }
            }
        }
        let options = StreamOptions {
            window: 8192,
            ..StreamOptions::default()
        };
        digests.extend(hash_sources(ctx, &sources[parts], options)?);
    }
    let mut digests = digests.into_iter();
    let mut results: Vec<Option<EtagOutcome>> = jobs
        .iter()
        .enumerate()
        .map(|(f, j)| {
            let layout = policy.layout(j.len);
            let parts: Result<Vec<[u8; 16]>, FileError> = digests
                .by_ref()
                .take(first_part[f + 1] - first_part[f])
                .collect();
            if let Some(broken) = policy.refuses(layout, j.len) {
                return Some((layout, Err(broken.into_error())));
            }
            let value = parts.map(|parts| {
                vec![match layout {
                    Layout::Plain => S3Value {
                        algorithm: S3Algorithm::Md5,
                        value: parts[0].to_vec(),
                        parts: None,
                    },
                    Layout::Parts { count, .. } => S3Value {
                        algorithm: S3Algorithm::Md5,
                        value: linerate::md5(parts.as_flattened()).to_vec(),
                        parts: Some(count),
                    },
                }]
            });
            Some((layout, value))
        })
        .collect();
    let request = Request::etag();
    for (index, (input, route)) in inputs.iter().zip(routes).enumerate() {
        match route {
            None => checksums_in_order(
                std::slice::from_ref(input),
                policy,
                &request,
                threads,
                progress,
                |_, layout, result| each(index, layout, result),
            ),
            Some(job) => {
                let (layout, result) = results[job].take().expect("one outcome per job");
                progress.begin_file(*input, None);
                progress.end_file();
                each(index, Some(layout), result);
            }
        }
    }
    Ok(())
}
