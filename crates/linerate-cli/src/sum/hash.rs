//! Hashing a named file (or `-`, standard input) in fixed-size chunks, so
//! memory use does not depend on the file's size and pipes, FIFOs and
//! devices work like regular files. Files are read with `read(2)`, never
//! mapped, so one that shrinks or grows meanwhile is hashed as far as the
//! reads go, never a crash (a mapping of a truncated file faults).

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;

use super::progress::Progress;
use linerate::HashAlgorithm;

/// Bytes read per `read` call: large enough to amortise system calls, small
/// enough to stay in cache.
pub const CHUNK: usize = 256 * 1024;

/// Why a file could not be hashed. md5sum reports both the same way, but an
/// open that fails because the file is missing is no failure under
/// `--ignore-missing`.
#[derive(Debug)]
pub enum HashError {
    /// The file could not be opened.
    Open(io::Error),
    /// Reading failed part way (or at once, as for a directory).
    Read(io::Error),
}

impl HashError {
    /// The underlying I/O error.
    pub fn io_error(&self) -> &io::Error {
        match self {
            HashError::Open(e) | HashError::Read(e) => e,
        }
    }

    /// Whether the file does not exist.
    pub fn is_missing(&self) -> bool {
        matches!(self, HashError::Open(e) if e.kind() == io::ErrorKind::NotFound)
    }
}

/// Hashes files one after another through one reusable buffer.
pub struct FileHasher {
    buf: Vec<u8>,
}

impl Default for FileHasher {
    fn default() -> Self {
        FileHasher {
            buf: vec![0; CHUNK],
        }
    }
}

impl FileHasher {
    /// The digest of the file `name`, or of standard input for `-`.
    pub fn digest_named(
        &mut self,
        name: &OsStr,
        algorithm: HashAlgorithm,
        progress: &mut Progress,
    ) -> Result<[u8; 16], HashError> {
        let mut hasher = algorithm.hasher();
        self.absorb_named(name, progress, |data| hasher.update(data))?;
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

    /// Feeds the contents of the file `name` (standard input for `-`) to
    /// `absorb`, one chunk at a time, whatever consumes them: a hasher, a
    /// MAC (`linerate mac`).
    pub fn absorb_named(
        &mut self,
        name: &OsStr,
        progress: &mut Progress,
        absorb: impl FnMut(&[u8]),
    ) -> Result<(), HashError> {
        let result = if name.as_bytes() == b"-" {
            progress.begin_file(name.as_bytes(), None);
            self.absorb_reader(io::stdin().lock(), absorb, |n| progress.advance(n))
                .map_err(HashError::Read)
        } else {
            let file = File::open(name).map_err(HashError::Open)?;
            let len = file
                .metadata()
                .ok()
                .filter(|m| m.is_file())
                .map(|m| m.len());
            progress.begin_file(name.as_bytes(), len);
            self.absorb_reader(file, absorb, |n| progress.advance(n))
                .map_err(HashError::Read)
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

    #[test]
    fn digest_of_a_reader_matches_the_one_shot_function() {
        let data: Vec<u8> = (0..CHUNK * 2 + 77).map(|i| (i % 251) as u8).collect();
        let mut hasher = FileHasher::default();
        let digest = hasher
            .digest_reader(&data[..], HashAlgorithm::Md5, drop)
            .ok();
        assert_eq!(digest, Some(linerate::md5(&data)));
        let digest = hasher
            .digest_reader(&data[..], HashAlgorithm::Md5p(8), drop)
            .ok();
        assert_eq!(digest, linerate::md5p(8, &data).ok());
    }

    #[test]
    fn missing_files_are_told_apart() {
        let mut hasher = FileHasher::default();
        let err = hasher
            .digest_named(
                OsStr::new("/nonexistent/linerate-test"),
                HashAlgorithm::Md5,
                &mut Progress::hidden(),
            )
            .err();
        assert!(err.is_some_and(|e| e.is_missing()));
        let err = hasher
            .digest_named(OsStr::new("/"), HashAlgorithm::Md5, &mut Progress::hidden())
            .err();
        assert!(err.is_some_and(|e| !e.is_missing() && matches!(e, HashError::Read(_))));
    }
}
