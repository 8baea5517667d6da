//! What can go wrong with one file, as md5sum tells it.

use std::io;

/// Why a file could not be hashed. md5sum reports both kinds the same way
/// (`NAME: strerror`), but a file that is missing at the open is no failure
/// under `--ignore-missing`.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The file could not be opened.
    #[error("{}", strerror(.0))]
    Open(#[source] io::Error),
    /// Reading failed part way (or at once, as for a directory).
    #[error("{}", strerror(.0))]
    Read(#[source] io::Error),
    /// The file shrank or grew while it was read: its digest would be of
    /// no version of it. (md5sum hashes whatever its reads return.)
    #[error("{}", strerror(.0))]
    Changed(#[source] io::Error),
}

impl FileError {
    /// The underlying I/O error.
    pub fn io_error(&self) -> &io::Error {
        match self {
            FileError::Open(e) | FileError::Read(e) | FileError::Changed(e) => e,
        }
    }

    /// The file changed size while it was read.
    pub fn changed() -> FileError {
        FileError::Changed(io::Error::other("file changed while reading"))
    }

    /// The caller cancelled the run ([`crate::Progress::cancelled`]) before
    /// this input was done.
    pub fn cancelled() -> FileError {
        FileError::Read(FileError::cancelled_io())
    }

    pub(crate) fn cancelled_io() -> io::Error {
        io::Error::other("cancelled")
    }

    /// Whether the file does not exist.
    pub fn is_missing(&self) -> bool {
        matches!(self, FileError::Open(e) if e.kind() == io::ErrorKind::NotFound)
    }

    /// An equivalent error (`io::Error` is not `Clone`): the same OS error,
    /// or the same kind and text.
    pub fn duplicate(&self) -> FileError {
        match self {
            FileError::Open(e) => FileError::Open(duplicate(e)),
            FileError::Read(e) => FileError::Read(duplicate(e)),
            FileError::Changed(e) => FileError::Changed(duplicate(e)),
        }
    }
}

/// An equivalent of `e`.
pub(crate) fn duplicate(e: &io::Error) -> io::Error {
    match e.raw_os_error() {
        Some(code) => io::Error::from_raw_os_error(code),
        None => io::Error::new(e.kind(), e.to_string()),
    }
}

/// The text of an I/O error without Rust's ` (os error N)` suffix: exactly
/// what C's `strerror` says, as md5sum prints it.
pub fn strerror(e: &io::Error) -> String {
    let text = e.to_string();
    match (e.raw_os_error(), text.rfind(" (os error ")) {
        (Some(_), Some(at)) => text[..at].to_string(),
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_text_is_strerror() {
        let e = io::Error::from_raw_os_error(2);
        assert_eq!(strerror(&e), "No such file or directory");
        assert_eq!(FileError::Open(e).to_string(), "No such file or directory");
        let e = io::Error::other("custom");
        assert_eq!(strerror(&e), "custom");
        let missing = FileError::Open(io::Error::from_raw_os_error(2));
        assert!(missing.is_missing());
        assert!(!FileError::Read(io::Error::from_raw_os_error(2)).is_missing());
        assert_eq!(missing.duplicate().io_error().raw_os_error(), Some(2));
        let changed = FileError::changed();
        assert_eq!(changed.to_string(), "file changed while reading");
        assert_eq!(changed.duplicate().to_string(), changed.to_string());
        assert!(!changed.is_missing());
    }
}
