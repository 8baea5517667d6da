//! What is hashed: a named file, or this process's standard input.

use std::ffi::OsStr;
use std::io;
use std::os::fd::{AsFd, BorrowedFd};

/// An input to hash. Which name (if any) means standard input is the
/// caller's convention (`-` on linerate's command line); here a path is
/// always a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input<'a> {
    /// This process's standard input, read once in order.
    Stdin,
    /// The file at this path (a regular file, a FIFO, a device...).
    Path(&'a OsStr),
}

/// Whether standard input can be read: an error (EBADF, "Bad file
/// descriptor") where it is closed or open for writing only. Rust's
/// `io::stdin()` reads such a descriptor as an empty input, which would
/// give the digest of nothing where md5sum reports the error: every reader
/// of standard input asks this first.
pub fn check_stdin() -> io::Result<()> {
    check_fd(io::stdin().as_fd(), rustix::fs::OFlags::WRONLY)
}

/// Whether standard output can be written: an error (EBADF) where it is
/// closed or open for reading only (Rust's `io::stdout()` drops what is
/// written to such a descriptor and reports success).
pub fn check_stdout() -> io::Result<()> {
    check_fd(io::stdout().as_fd(), rustix::fs::OFlags::RDONLY)
}

/// EBADF if `fd` was closed when the process started, or is open only as
/// `wrong` (read or write only).
///
/// Rust's runtime opens `/dev/null` (read and write) on a standard
/// descriptor that is closed when the process starts, so a closed one
/// looks like that. A shell opens `/dev/null` for reading (`<`) or writing
/// (`>`) only: `/dev/null` open both ways on a standard descriptor is taken
/// for one that was closed (`1<>/dev/null` would be too).
fn check_fd(fd: BorrowedFd<'_>, wrong: rustix::fs::OFlags) -> io::Result<()> {
    use rustix::fs::{FileType, OFlags};
    let flags = rustix::fs::fcntl_getfl(fd)?;
    let mode = flags & OFlags::RWMODE;
    let closed_at_start = mode == OFlags::RDWR && {
        let stat = rustix::fs::fstat(fd)?;
        FileType::from_raw_mode(stat.st_mode) == FileType::CharacterDevice
            && rustix::fs::major(stat.st_rdev) == 1
            && rustix::fs::minor(stat.st_rdev) == 3
    };
    if closed_at_start || mode == wrong {
        return Err(rustix::io::Errno::BADF.into());
    }
    Ok(())
}

/// Standard input, locked, that reads as EBADF ("Bad file descriptor")
/// where [`check_stdin`] fails instead of as an empty input: what every
/// reader of `-` reads.
pub fn stdin() -> Stdin {
    Stdin {
        lock: io::stdin().lock(),
        unusable: check_stdin().is_err(),
    }
}

/// See [`stdin`].
pub struct Stdin {
    lock: io::StdinLock<'static>,
    unusable: bool,
}

/// Set once a read of an unusable standard input was refused.
static REFUSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether a read of standard input failed because it is unusable (md5sum
/// says so once more when it closes standard input at exit).
pub fn stdin_refused() -> bool {
    REFUSED.load(std::sync::atomic::Ordering::Relaxed)
}

impl Stdin {
    fn usable(&self) -> io::Result<()> {
        if self.unusable {
            REFUSED.store(true, std::sync::atomic::Ordering::Relaxed);
            return Err(rustix::io::Errno::BADF.into());
        }
        Ok(())
    }
}

impl io::Read for Stdin {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.usable()?;
        self.lock.read(buf)
    }
}

impl io::BufRead for Stdin {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.usable()?;
        self.lock.fill_buf()
    }

    fn consume(&mut self, amount: usize) {
        self.lock.consume(amount);
    }
}
