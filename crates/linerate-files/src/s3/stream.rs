//! The ETag (and S3's other checksums) of an input read once, in order:
//! standard input, a pipe, a device. Parts are cut as the bytes stream
//! past, one single-stream MD5 (and the other checksums asked for) per
//! part, so memory stays constant whatever the length.
//!
//! Standard input redirected from a regular file has a known length, and
//! gets the layout the file itself would. Otherwise the length is unknown,
//! as it is to `aws s3 cp - s3://...`: parts of the part size (8 MiB by
//! default, never doubled), or one PUT if the input ends below the
//! threshold.

use std::fs::File;
use std::io::{self, Seek};
use std::os::fd::AsFd;

use linerate_sumfile::s3::S3Value;

use super::Etag;
use super::checksums::{PartSums, Request, Upload, etag_of};
use super::layout::{Layout, Policy};
use crate::read::{Opened, Reader};
use crate::{FileError, Input, Progress};

/// The ETag of `input`, read once in order.
pub fn etag_of_input(
    input: Input<'_>,
    policy: &Policy,
    reader: &mut Reader,
    progress: &dyn Progress,
) -> Result<Etag, FileError> {
    checksums_of_input(input, policy, &Request::etag(), reader, progress).map(etag_of)
}

/// The checksums `request` asks for of `input`, read once in order.
pub fn checksums_of_input(
    input: Input<'_>,
    policy: &Policy,
    request: &Request,
    reader: &mut Reader,
    progress: &dyn Progress,
) -> Result<Vec<S3Value>, FileError> {
    checksums_and_layout(input, policy, request, reader, progress).1
}

/// [`checksums_of_input`], and the layout the parts were cut in once the
/// input ended (`None` if it could not be read). A layout outside the
/// policy's [`limits`](Policy::limits) is the input's error; with
/// [`regular_only`](Policy::regular_only), so is a FIFO or device.
pub fn checksums_and_layout(
    input: Input<'_>,
    policy: &Policy,
    request: &Request,
    reader: &mut Reader,
    progress: &dyn Progress,
) -> (Option<Layout>, Result<Vec<S3Value>, FileError>) {
    let known = match input {
        Input::Stdin => stdin_len(),
        Input::Path(_) | Input::Beneath(..) => None,
    };
    let mut splitter = match known.map(|len| policy.layout(len)) {
        Some(Layout::Plain) => Splitter::new(request, None, 0),
        Some(Layout::Parts { size, .. }) => Splitter::new(request, Some(size), 0),
        None => Splitter::new(request, policy.stream_part_size(), policy.threshold()),
    };
    let read = match input {
        Input::Path(_) | Input::Beneath(..) if policy.regular_only => {
            match regular_or_unsized(input) {
                Ok(opened) => {
                    reader.absorb_opened(input, opened, progress, |data| splitter.absorb(data))
                }
                Err(e) => {
                    progress.begin_file(input, None);
                    progress.end_file();
                    Err(e)
                }
            }
        }
        _ => reader.absorb(input, progress, |data| splitter.absorb(data)),
    };
    if let Err(e) = read {
        return (None, Err(e));
    }
    let layout = splitter.layout();
    if let Some(broken) = policy.refuses(layout, splitter.total) {
        return (Some(layout), Err(broken.into_error()));
    }
    (Some(layout), Ok(splitter.finish()))
}

/// `input` opened, if it is a regular file (one whose size the kernel makes
/// up, since it reaches here) or a directory (whose read fails as a
/// directory's); anything else is refused, unread.
fn regular_or_unsized(input: Input<'_>) -> Result<Opened, FileError> {
    let opened = Opened::open(input).map_err(FileError::Open)?;
    let meta = opened.metadata();
    if !meta.is_file() && !meta.is_dir() {
        return Err(FileError::Open(std::io::Error::other(
            "not a regular file (an upload's parts are laid out from the file's size)",
        )));
    }
    Ok(opened)
}

/// What is left to read of standard input, if it is a regular file.
fn stdin_len() -> Option<u64> {
    let mut file = File::from(io::stdin().as_fd().try_clone_to_owned().ok()?);
    let meta = file.metadata().ok().filter(std::fs::Metadata::is_file)?;
    let position = file.stream_position().ok()?;
    Some(meta.len().saturating_sub(position))
}

/// Cuts a stream into parts and folds their checksums.
pub struct Splitter {
    request: Request,
    /// `None`: one PUT, the checksums of the whole.
    part_size: Option<u64>,
    /// A stream that ends below this many bytes was one PUT after all.
    threshold: u64,
    part: PartSums,
    in_part: u64,
    upload: Upload,
    total: u64,
    /// The checksums of the whole stream, kept while the stream is below
    /// the threshold and a part is shorter than it.
    whole: Option<PartSums>,
}

impl Splitter {
    pub fn new(request: &Request, part_size: Option<u64>, threshold: u64) -> Splitter {
        let whole_needed = part_size.is_some_and(|size| threshold > size);
        Splitter {
            request: request.clone(),
            part_size,
            threshold,
            part: PartSums::new(request, true),
            in_part: 0,
            upload: Upload::new(request),
            total: 0,
            whole: whole_needed.then(|| PartSums::new(request, true)),
        }
    }

    pub fn absorb(&mut self, mut data: &[u8]) {
        self.total += data.len() as u64;
        if let Some(whole) = &mut self.whole {
            whole.update(data);
            if self.total >= self.threshold {
                self.whole = None;
            }
        }
        let Some(size) = self.part_size else {
            self.part.update(data);
            return;
        };
        while !data.is_empty() {
            let take = (size - self.in_part).min(data.len() as u64) as usize;
            self.part.update(&data[..take]);
            self.in_part += take as u64;
            data = &data[take..];
            if self.in_part == size {
                let next = PartSums::new(&self.request, true);
                let done = std::mem::replace(&mut self.part, next);
                self.upload.add(self.upload.parts_in(), done.finish());
                self.in_part = 0;
            }
        }
    }

    /// How the bytes so far were cut: one PUT, or parts.
    pub fn layout(&self) -> Layout {
        match self.part_size {
            Some(size) if self.total >= self.threshold => Layout::Parts {
                size,
                count: super::layout::part_count(self.total, size),
            },
            _ => Layout::Plain,
        }
    }

    pub fn finish(mut self) -> Vec<S3Value> {
        if self.part_size.is_none() || self.total < self.threshold {
            // Below the threshold with parts at least as long: one part,
            // whose checksums are the whole stream's.
            let whole = self.whole.unwrap_or(self.part);
            let mut upload = Upload::new(&self.request);
            upload.add(0, whole.finish());
            return upload.finish(None);
        }
        if self.in_part > 0 || self.upload.parts_in() == 0 {
            self.upload.add(self.upload.parts_in(), self.part.finish());
        }
        let parts = self.upload.parts_in();
        self.upload.finish(Some(parts))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ETag by definition, from whole slices.
    fn reference(data: &[u8], size: usize) -> Etag {
        let mut concat = Vec::new();
        let mut parts = 0;
        for part in data.chunks(size) {
            concat.extend_from_slice(&linerate::md5(part));
            parts += 1;
        }
        if data.is_empty() {
            concat.extend_from_slice(&linerate::md5(b""));
            parts = 1;
        }
        Etag {
            digest: linerate::md5(&concat),
            parts: Some(parts),
        }
    }

    fn split(data: &[u8], size: Option<u64>, threshold: u64, piece: usize) -> Etag {
        let mut splitter = Splitter::new(&Request::etag(), size, threshold);
        for chunk in data.chunks(piece) {
            splitter.absorb(chunk);
        }
        etag_of(splitter.finish())
    }

    #[test]
    fn parts_cut_anywhere_in_the_stream() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 7 % 256) as u8).collect();
        for len in [0, 1, 99, 100, 101, 1000] {
            for piece in [1, 7, 100, 4096] {
                let got = split(&data[..len], Some(100), 0, piece);
                assert_eq!(got, reference(&data[..len], 100), "{len} {piece}");
            }
        }
    }

    #[test]
    fn below_the_threshold_it_is_the_plain_md5() {
        let data = vec![5u8; 1000];
        let plain = |n: usize| Etag {
            digest: linerate::md5(&data[..n]),
            parts: None,
        };
        // Threshold above the part size: several parts' worth, still plain.
        assert_eq!(split(&data[..499], Some(100), 500, 33), plain(499));
        assert_eq!(
            split(&data[..500], Some(100), 500, 33),
            reference(&data[..500], 100)
        );
        // Threshold at or below the part size.
        assert_eq!(split(&data[..99], Some(100), 100, 7), plain(99));
        assert_eq!(split(&data[..0], Some(100), 100, 7), plain(0));
        assert_eq!(split(&data, None, 0, 64), plain(1000));
    }
}
