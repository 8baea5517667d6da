//! What is hashed: a named file, one named by data beneath a directory,
//! or this process's standard input.

use std::ffi::OsStr;
use std::fs::{self, File};
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
use std::sync::atomic::{AtomicU8, Ordering};

use crate::beneath::Root;
use crate::read;

/// An input to hash. Which name (if any) means standard input is the
/// caller's convention (`-` on linerate's command line); here a path is
/// always a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input<'a> {
    /// This process's standard input, read once in order.
    Stdin,
    /// The file at this path (a regular file, a FIFO, a device...).
    Path(&'a OsStr),
    /// The regular file at this relative path, never resolved outside the
    /// directory ([`Root`]): a name that came from data (a listing, a
    /// manifest), not from the user. Opening anything else fails.
    Beneath(&'a Root, &'a OsStr),
}

impl Input<'_> {
    /// Opens the file for reading (not standard input: its readers take
    /// [`stdin`]).
    pub fn open(self) -> io::Result<File> {
        match self {
            Input::Stdin => Ok(File::from(io::stdin().as_fd().try_clone_to_owned()?)),
            Input::Path(path) => File::open(path),
            Input::Beneath(root, path) => root.open_file(path),
        }
    }

    /// Opens the file without ever waiting in `open` (a FIFO with no
    /// writer, a device waiting for a carrier), with its metadata read
    /// from the descriptor itself ([`read::open_without_waiting`]).
    pub fn open_without_waiting(self) -> io::Result<(File, fs::Metadata)> {
        let file = match self {
            Input::Path(path) => return read::open_without_waiting(path),
            // Beneath a root only regular files open, never waiting.
            Input::Stdin | Input::Beneath(..) => self.open()?,
        };
        let meta = file.metadata()?;
        Ok((file, meta))
    }

    /// Opens a source whose size was taken beforehand (a whole file, an
    /// upload's parts): anything but a regular file by now, a FIFO or
    /// device swapped in after the `stat`, is an error, never a wait
    /// ([`read::open_regular`]).
    pub fn open_regular(self) -> io::Result<File> {
        match self {
            Input::Path(path) => read::open_regular(path),
            Input::Stdin | Input::Beneath(..) => self.open(),
        }
    }

    /// The file's metadata, symbolic links followed (where they may be).
    pub fn metadata(self) -> io::Result<fs::Metadata> {
        match self {
            Input::Stdin => self.open()?.metadata(),
            Input::Path(path) => fs::metadata(path),
            Input::Beneath(root, path) => root.metadata(path),
        }
    }
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
fn check_fd(fd: BorrowedFd<'_>, wrong: rustix::fs::OFlags) -> io::Result<()> {
    let closed_at_start = usize::try_from(fd.as_raw_fd())
        .is_ok_and(|n| n < 3 && CLOSED_AT_START.load(Ordering::Relaxed) & (1 << n) != 0);
    let mode = rustix::fs::fcntl_getfl(fd)? & rustix::fs::OFlags::RWMODE;
    if closed_at_start || mode == wrong {
        return Err(rustix::io::Errno::BADF.into());
    }
    Ok(())
}

/// Bit n set: descriptor n (0, 1, 2) was closed when the process started.
/// Rust's runtime opens `/dev/null` over a closed standard descriptor
/// before `main`, so afterwards a closed one cannot be told from one a
/// parent opened on `/dev/null` (as Python's `subprocess.DEVNULL` does, for
/// reading and writing). So this is recorded earlier, by a function in
/// `.init_array`, which the C runtime calls before `main` (and so before
/// Rust's runtime); in a library loaded later (the Python module) it
/// records the host's descriptors, which are open.
static CLOSED_AT_START: AtomicU8 = AtomicU8::new(0);

#[allow(unsafe_code)]
// SAFETY: an `.init_array` entry must be a function the C runtime may call
// with no arguments before `main`; `record_closed_at_start` is one, and it
// touches nothing that needs initialising (an atomic, a system call).
#[unsafe(link_section = ".init_array")]
#[used]
static RECORD_CLOSED_AT_START: extern "C" fn() = record_closed_at_start;

extern "C" fn record_closed_at_start() {
    let mut closed = 0u8;
    for fd in 0..3 {
        #[allow(unsafe_code)]
        // SAFETY: F_GETFD takes no pointer; on a descriptor number it only
        // says whether it is open.
        let open = unsafe { libc::fcntl(fd, libc::F_GETFD) } != -1;
        if !open {
            closed |= 1 << fd;
        }
    }
    CLOSED_AT_START.store(closed, Ordering::Relaxed);
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
