//! One input read on the calling thread in fixed-size chunks, so memory use
//! does not depend on its size and pipes, FIFOs, devices and standard input
//! work like regular files. A regular file that ends elsewhere than its size
//! at the open said changed while it was read ([`FileError::Changed`]),
//! unless the kernel makes its size up ([`size_is_made_up`]: `/proc`,
//! `/sys`), which is read to its end as md5sum reads it.
//!
//! Nothing here waits where the caller's [`Progress::cancelled`] cannot end
//! it: paths are opened without waiting ([`open_without_waiting`]), and a
//! FIFO or device is read without blocking, its data awaited in slices of
//! [`WAIT_SLICE`].

use std::ffi::OsStr;
use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::time::Duration;

use rustix::event::{PollFd, PollFlags, Timespec};
use rustix::fs::OFlags;

use linerate::HashAlgorithm;

use crate::{FileError, Input, Progress};

/// Bytes read per `read` call: large enough to amortise system calls, small
/// enough to stay in cache.
pub const CHUNK: usize = 256 * 1024;

/// How long a read of a FIFO or device waits for data before it looks
/// whether the caller cancelled: what a cancellation may take.
pub const WAIT_SLICE: Duration = Duration::from_millis(50);

/// Opens `path` for reading without ever waiting in `open`, and says what
/// it opened: with `O_NONBLOCK` (a FIFO with no writer, or a device that
/// waits for a carrier, would hold a plain open for ever) and `O_NOCTTY`,
/// its type then read from the descriptor itself, so nothing swapped in
/// after a check can be read instead. A regular file's descriptor gets its
/// blocking mode back (reads of regular files never wait either way); any
/// other keeps `O_NONBLOCK`: [`Reader`] waits for its data in `poll`.
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

/// Filesystems whose files' sizes the kernel makes up rather than knows
/// (each file's content is generated when read): procfs and debugfs,
/// tracefs, securityfs, cgroupfs and selinuxfs report 0, sysfs and
/// configfs 4096. Their `f_type` magic numbers, as `statfs(2)` lists them.
const SIZE_MADE_UP: [u32; 10] = [
    0x9fa0,      // proc
    0x6265_6572, // sysfs
    0x6462_6720, // debugfs
    0x7472_6163, // tracefs
    0x7363_6673, // securityfs
    0x6265_6570, // configfs
    0x0027_e0eb, // cgroup
    0x6367_7270, // cgroup2
    0xf97c_ff8c, // selinuxfs
    0x4249_4e4d, // binfmt_misc
];

/// Whether the size `stat` gives for files of the filesystem `statfs`
/// describes is made up (see [`SIZE_MADE_UP`]): such a regular file is read
/// to its end, as md5sum reads it, not checked against its size.
pub fn size_is_made_up(fs: &rustix::fs::StatFs) -> bool {
    // The magic numbers are 32-bit, whatever the width of `f_type`.
    SIZE_MADE_UP.contains(&(fs.f_type as u32))
}

/// The sizes of regular files, where they are known: whether a device's
/// files have made-up sizes ([`size_is_made_up`]) is looked up once per
/// device (one `statfs`), not once per file.
#[derive(Default)]
pub(crate) struct Sizes {
    /// Devices looked up, and whether their files' sizes are made up.
    devices: Vec<(u64, bool)>,
}

impl Sizes {
    /// The size of `input` if it is a regular file whose size is known
    /// (after symbolic links): what a reader by offsets can rely on.
    /// `None` for anything else, and for a file whose size is made up:
    /// those are read in order to their end.
    pub(crate) fn known_len(&mut self, input: Input<'_>) -> Option<u64> {
        use std::os::unix::fs::MetadataExt;
        let meta = match input {
            Input::Stdin => return None,
            Input::Path(_) | Input::Beneath(..) => input.metadata().ok()?,
        };
        if !meta.is_file() {
            return None;
        }
        let made_up = match self.devices.iter().find(|(dev, _)| *dev == meta.dev()) {
            Some(&(_, made_up)) => made_up,
            None => {
                let made_up = statfs(input).is_some_and(|fs| size_is_made_up(&fs));
                self.devices.push((meta.dev(), made_up));
                made_up
            }
        };
        (!made_up).then_some(meta.len())
    }
}

/// The filesystem of `input` (a path, or a file beneath a directory).
fn statfs(input: Input<'_>) -> Option<rustix::fs::StatFs> {
    match input {
        Input::Path(path) => rustix::fs::statfs(path).ok(),
        // Beneath a directory, only through a descriptor.
        Input::Beneath(..) => {
            let (file, _) = input.open_without_waiting().ok()?;
            rustix::fs::fstatfs(&file).ok()
        }
        Input::Stdin => None,
    }
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

/// An input opened for [`Reader::absorb_opened`].
pub struct Opened {
    file: File,
    meta: Metadata,
}

impl Opened {
    /// Opens `input` (a path, or a file beneath a directory: standard
    /// input is read by [`Reader::absorb`] itself) without waiting
    /// ([`Input::open_without_waiting`]).
    pub fn open(input: Input<'_>) -> io::Result<Opened> {
        let (file, meta) = input.open_without_waiting()?;
        Ok(Opened { file, meta })
    }

    /// What was opened, from the descriptor itself.
    pub fn metadata(&self) -> &Metadata {
        &self.meta
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
    /// A cancelled run ([`Progress::cancelled`]) ends with
    /// [`FileError::cancelled`] within about [`WAIT_SLICE`].
    pub fn absorb(
        &mut self,
        input: Input<'_>,
        progress: &dyn Progress,
        absorb: impl FnMut(&[u8]),
    ) -> Result<(), FileError> {
        match input {
            Input::Stdin => {
                progress.begin_file(input, None);
                let result = if progress.cancelled() {
                    Err(FileError::cancelled())
                } else {
                    let cancelled = || progress.cancelled();
                    read_all(crate::stdin(), &mut self.buf, &cancelled, absorb, |n| {
                        progress.advance(n);
                    })
                    .map_err(|e| read_error(e, progress))
                };
                progress.end_file();
                result
            }
            Input::Path(_) | Input::Beneath(..) => {
                if progress.cancelled() {
                    progress.begin_file(input, None);
                    progress.end_file();
                    return Err(FileError::cancelled());
                }
                match Opened::open(input) {
                    Ok(opened) => self.absorb_opened(input, opened, progress, absorb),
                    Err(e) => {
                        progress.begin_file(input, None);
                        progress.end_file();
                        Err(FileError::Open(e))
                    }
                }
            }
        }
    }

    /// [`absorb`](Self::absorb) for `input` already opened: a regular file
    /// must end where its size said (unless the kernel makes its size up);
    /// a FIFO or device is read without blocking, its data awaited in
    /// `poll` slices so that a cancellation is seen.
    pub fn absorb_opened(
        &mut self,
        input: Input<'_>,
        opened: Opened,
        progress: &dyn Progress,
        absorb: impl FnMut(&[u8]),
    ) -> Result<(), FileError> {
        let Opened { file, meta } = opened;
        let len = meta
            .is_file()
            .then(|| rustix::fs::fstatfs(&file))
            .and_then(|fs| match fs {
                Ok(fs) if size_is_made_up(&fs) => None,
                _ => Some(meta.len()),
            });
        progress.begin_file(input, len);
        let mut read = 0u64;
        let cancelled = || progress.cancelled();
        let advance = |n: usize| {
            if read == 0 {
                let more = len.is_some_and(|len| len > n as u64);
                crate::test_pause::after_read(0, more);
            }
            read += n as u64;
            progress.advance(n);
        };
        let result = if meta.is_file() || meta.is_dir() {
            // Reads of regular files (and the one of a directory, EISDIR)
            // never wait.
            read_all(&file, &mut self.buf, &cancelled, absorb, advance)
        } else {
            let ready = Ready {
                file: &file,
                cancelled: &cancelled,
            };
            read_all(ready, &mut self.buf, &cancelled, absorb, advance)
        };
        let result = result.map_err(|e| read_error(e, progress)).and_then(|()| {
            // A regular file must end where its size said: one that
            // shrank or grew while read changed.
            match len {
                Some(len) if len != read => Err(FileError::changed()),
                _ => Ok(()),
            }
        });
        progress.end_file();
        result
    }

    /// Feeds everything `reader` yields to `absorb`, chunk by chunk through
    /// the one buffer; `advance` hears of every piece.
    pub fn absorb_reader(
        &mut self,
        reader: impl Read,
        absorb: impl FnMut(&[u8]),
        advance: impl FnMut(usize),
    ) -> io::Result<()> {
        read_all(reader, &mut self.buf, &|| false, absorb, advance)
    }
}

/// The error of a read that failed: [`FileError::cancelled`] if that was
/// the run being cancelled.
fn read_error(e: io::Error, progress: &dyn Progress) -> FileError {
    if progress.cancelled() {
        FileError::cancelled()
    } else {
        FileError::Read(e)
    }
}

/// Everything `reader` yields, to `absorb` chunk by chunk through `buf`;
/// `advance` hears of every piece. Stops with an error once `cancelled`.
fn read_all(
    mut reader: impl Read,
    buf: &mut [u8],
    cancelled: &dyn Fn() -> bool,
    mut absorb: impl FnMut(&[u8]),
    mut advance: impl FnMut(usize),
) -> io::Result<()> {
    loop {
        if cancelled() {
            return Err(FileError::cancelled_io());
        }
        match reader.read(buf) {
            Ok(0) => return Ok(()),
            Ok(n) => {
                absorb(&buf[..n]);
                advance(n);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// A FIFO or device opened with `O_NONBLOCK`, read as a blocking reader
/// would read it, except that it waits for data in `poll` slices of
/// [`WAIT_SLICE`] and gives up once `cancelled`. A FIFO's first read waits
/// for a writer as a blocking `open` would have (until one has come, a
/// non-blocking read of it says end of file at once, `poll` waits).
struct Ready<'a> {
    file: &'a File,
    cancelled: &'a dyn Fn() -> bool,
}

impl Read for Ready<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let slice = Timespec {
            tv_sec: 0,
            tv_nsec: WAIT_SLICE.subsec_nanos().into(),
        };
        loop {
            if (self.cancelled)() {
                return Err(FileError::cancelled_io());
            }
            let mut fds = [PollFd::new(self.file, PollFlags::IN)];
            match rustix::event::poll(&mut fds, Some(&slice)) {
                Ok(0) => continue,
                Ok(_) => {}
                Err(rustix::io::Errno::INTR) => continue,
                Err(e) => return Err(e.into()),
            }
            let mut file = self.file;
            match file.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                other => return other,
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
