//! One input read on the calling thread in fixed-size chunks, so memory use
//! does not depend on its size and pipes, FIFOs, devices and standard input
//! work like regular files. A regular file that ends elsewhere than its size
//! at the open said changed while it was read ([`FileError::Changed`]).

use std::ffi::OsStr;
use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;

use rustix::fs::OFlags;

use linerate::HashAlgorithm;

use crate::{FileError, Input, Progress};

/// Bytes read per `read` call: large enough to amortise system calls, small
/// enough to stay in cache.
pub const CHUNK: usize = 256 * 1024;

/// Opens `path` for reading without ever waiting in `open`, and says what
/// it opened: with `O_NONBLOCK` (a FIFO with no writer, or a device that
/// waits for a carrier, would hold a plain open for ever) and `O_NOCTTY`,
/// its type then read from the descriptor itself, so nothing swapped in
/// after a check can be read instead. A regular file's descriptor gets its
/// blocking mode back (reads of regular files never wait either way).
pub fn open_without_waiting(path: &OsStr) -> io::Result<(File, Metadata)> {
    let flags = OFlags::NONBLOCK | OFlags::NOCTTY;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags.bits() as i32)
        .open(path)?;
    let meta = file.metadata()?;
    if meta.is_file() {
        let flags = rustix::fs::fcntl_getfl(&file)?;
        rustix::fs::fcntl_setfl(&file, flags - OFlags::NONBLOCK)?;
    }
    Ok((file, meta))
}

/// [`open_without_waiting`] for a source whose size was taken beforehand
/// (a file a walk or `stat` found regular): anything but a regular file by
/// the time it is opened is an error, EISDIR for a directory.
pub fn open_regular(path: &OsStr) -> io::Result<File> {
    let (file, meta) = open_without_waiting(path)?;
    if meta.is_dir() {
        return Err(io::Error::from_raw_os_error(
            rustix::io::Errno::ISDIR.raw_os_error(),
        ));
    }
    if !meta.is_file() {
        return Err(io::Error::other("not a regular file"));
    }
    Ok(file)
}

/// Reads inputs one after another through one reusable buffer.
pub struct Reader {
    buf: Vec<u8>,
}

impl Default for Reader {
    fn default() -> Self {
        Reader {
            buf: vec![0; CHUNK],
        }
    }
}

impl Reader {
    /// The digest of `input` with `algorithm`.
    pub fn digest(
        &mut self,
        input: Input<'_>,
        algorithm: HashAlgorithm,
        progress: &dyn Progress,
    ) -> Result<[u8; 16], FileError> {
        let mut hasher = algorithm.hasher();
        self.absorb(input, progress, |data| hasher.update(data))?;
        Ok(hasher.finalize())
    }

    /// The digest of everything `reader` yields; `advance` hears of every
    /// piece hashed.
    pub fn digest_reader(
        &mut self,
        reader: impl Read,
        algorithm: HashAlgorithm,
        advance: impl FnMut(usize),
    ) -> io::Result<[u8; 16]> {
        let mut hasher = algorithm.hasher();
        self.absorb_reader(reader, |data| hasher.update(data), advance)?;
        Ok(hasher.finalize())
    }

    /// Feeds the contents of `input` to `absorb`, one chunk at a time,
    /// whatever consumes them: a hasher, a MAC, an ETag's part splitter.
    pub fn absorb(
        &mut self,
        input: Input<'_>,
        progress: &dyn Progress,
        absorb: impl FnMut(&[u8]),
    ) -> Result<(), FileError> {
        let result = match input {
            Input::Stdin => {
                progress.begin_file(input, None);
                self.absorb_reader(crate::stdin(), absorb, |n| progress.advance(n))
                    .map_err(FileError::Read)
            }
            Input::Path(_) | Input::Beneath(..) => {
                let file = input.open().map_err(FileError::Open)?;
                let len = file
                    .metadata()
                    .ok()
                    .filter(|m| m.is_file())
                    .map(|m| m.len());
                progress.begin_file(input, len);
                let mut read = 0u64;
                self.absorb_reader(file, absorb, |n| {
                    if read == 0 {
                        let more = len.is_some_and(|len| len > n as u64);
                        crate::test_pause::after_read(0, more);
                    }
                    read += n as u64;
                    progress.advance(n);
                })
                .map_err(FileError::Read)
                .and_then(|()| {
                    // A regular file must end where its size said: one that
                    // shrank or grew while read changed.
                    match len {
                        Some(len) if len != read => Err(FileError::changed()),
                        _ => Ok(()),
                    }
                })
            }
        };
        progress.end_file();
        result
    }

    /// Feeds everything `reader` yields to `absorb`, chunk by chunk through
    /// the one buffer; `advance` hears of every piece.
    pub fn absorb_reader(
        &mut self,
        mut reader: impl Read,
        mut absorb: impl FnMut(&[u8]),
        mut advance: impl FnMut(usize),
    ) -> io::Result<()> {
        loop {
            match reader.read(&mut self.buf) {
                Ok(0) => return Ok(()),
                Ok(n) => {
                    absorb(&self.buf[..n]);
                    advance(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NoProgress;
    use std::ffi::OsStr;

    #[test]
    fn digest_of_a_reader_matches_the_one_shot_function() {
        let data: Vec<u8> = (0..CHUNK * 2 + 77).map(|i| (i % 251) as u8).collect();
        let mut reader = Reader::default();
        let digest = reader
            .digest_reader(&data[..], HashAlgorithm::Md5, drop)
            .ok();
        assert_eq!(digest, Some(linerate::md5(&data)));
        let digest = reader
            .digest_reader(&data[..], HashAlgorithm::Md5p(8), drop)
            .ok();
        assert_eq!(digest, linerate::md5p(8, &data).ok());
    }

    #[test]
    fn missing_files_are_told_apart() {
        let mut reader = Reader::default();
        let missing = Input::Path(OsStr::new("/nonexistent/linerate-test"));
        let err = reader
            .digest(missing, HashAlgorithm::Md5, &NoProgress)
            .err();
        assert!(err.is_some_and(|e| e.is_missing()));
        let dir = Input::Path(OsStr::new("/"));
        let err = reader.digest(dir, HashAlgorithm::Md5, &NoProgress).err();
        assert!(err.is_some_and(|e| !e.is_missing() && matches!(e, FileError::Read(_))));
    }
}
