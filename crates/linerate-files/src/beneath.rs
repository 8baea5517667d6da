//! Paths named by data (a listing's keys, a manifest's lines), opened only
//! beneath the directory they are relative to.
//!
//! The directory is opened once ([`Root::open`]); every name is then
//! resolved from that descriptor by `openat2` with `RESOLVE_BENEATH` and
//! `RESOLVE_NO_MAGICLINKS`: the kernel refuses (EXDEV) a `..`, an absolute
//! symbolic link or a relative one that climbs out of the directory, at
//! whatever moment it is met, so a link swapped in while we run changes
//! nothing. Symbolic links that stay inside are followed. What is read is
//! the descriptor that was opened: nothing is resolved twice.
//!
//! Kernels before 5.6 lack `openat2` (ENOSYS): there the name is walked a
//! component at a time from the directory's descriptor, never following a
//! symbolic link, and every link counts as leading outside.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;

use rustix::fs::{FileType, Mode, OFlags, ResolveFlags};
use rustix::io::Errno;

/// A directory that data-named paths are opened beneath.
pub struct Root {
    dir: OwnedFd,
    name: OsString,
}

impl Root {
    /// Opens the directory `name` (the user's, so symbolic links to it are
    /// followed); ENOTDIR where it is not one. Only as a place (`O_PATH`):
    /// a directory we may search but not list still works.
    pub fn open(name: &OsStr) -> io::Result<Root> {
        let dir = rustix::fs::open(
            name,
            OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        Ok(Root {
            dir,
            name: name.to_owned(),
        })
    }

    /// The directory's name, as given.
    pub fn name(&self) -> &OsStr {
        &self.name
    }

    /// Opens the regular file `relative` for reading without leaving the
    /// directory; EXDEV ([`is_outside`]) where it would, EISDIR for a
    /// directory, an error for anything else that is not a regular file: a
    /// file named by data is never a FIFO or a device, even one swapped in
    /// after its type was looked at, so no read of it can wait forever.
    pub fn open_file(&self, relative: &OsStr) -> io::Result<File> {
        let file = self.open_any(relative)?;
        let meta = file.metadata()?;
        if meta.is_dir() {
            return Err(Errno::ISDIR.into());
        }
        if !meta.is_file() {
            return Err(io::Error::other("not a regular file"));
        }
        Ok(file)
    }

    /// The metadata of `relative` (beneath the directory), whatever it is,
    /// from a descriptor opened without waiting and never read.
    pub fn metadata(&self, relative: &OsStr) -> io::Result<std::fs::Metadata> {
        self.open_any(relative)?.metadata()
    }

    /// Opens `relative` beneath the directory, whatever it is; a FIFO
    /// without waiting for a writer.
    fn open_any(&self, relative: &OsStr) -> io::Result<File> {
        // NONBLOCK: the open of a FIFO must not wait for a writer.
        let flags = OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NOCTTY | OFlags::NONBLOCK;
        let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS;
        let mut tries = 0;
        let fd = loop {
            match rustix::fs::openat2(&self.dir, relative, flags, Mode::empty(), resolve) {
                // The kernel saw a rename race while resolving: it may be retried.
                Err(Errno::AGAIN) if tries < 8 => tries += 1,
                Err(Errno::NOSYS) => break open_by_walk(self.dir.as_fd(), relative, flags)?,
                other => break other?,
            }
        };
        let mode = rustix::fs::fcntl_getfl(&fd)?;
        rustix::fs::fcntl_setfl(&fd, mode - OFlags::NONBLOCK)?;
        Ok(File::from(fd))
    }
}

impl fmt::Debug for Root {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Root({:?})", self.name)
    }
}

/// Two roots are one if they are one descriptor.
impl PartialEq for Root {
    fn eq(&self, other: &Root) -> bool {
        self.dir.as_raw_fd() == other.dir.as_raw_fd()
    }
}

impl Eq for Root {}

/// Whether `e` says a path would have left its directory.
pub fn is_outside(e: &io::Error) -> bool {
    e.raw_os_error() == Some(Errno::XDEV.raw_os_error())
}

/// The fallback for kernels without `openat2`: each directory component
/// opened with `O_PATH | O_NOFOLLOW` and checked from its descriptor,
/// the last opened with `O_NOFOLLOW`; `..` and every symbolic link give
/// EXDEV.
pub(crate) fn open_by_walk(
    dir: std::os::fd::BorrowedFd<'_>,
    relative: &OsStr,
    flags: OFlags,
) -> io::Result<OwnedFd> {
    let outside = || io::Error::from(Errno::XDEV);
    let bytes = relative.as_bytes();
    if bytes.first() == Some(&b'/') {
        return Err(outside());
    }
    let parts: Vec<&[u8]> = bytes
        .split(|&b| b == b'/')
        .filter(|p| !p.is_empty() && *p != b".")
        .collect();
    if parts.contains(&&b".."[..]) {
        return Err(outside());
    }
    let Some((last, walk)) = parts.split_last() else {
        return Ok(rustix::fs::openat(dir, ".", flags, Mode::empty())?);
    };
    let mut held: Option<OwnedFd> = None;
    for part in walk {
        let at = held.as_ref().map_or(dir, AsFd::as_fd);
        let next = rustix::fs::openat(
            at,
            OsStr::from_bytes(part),
            OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        match FileType::from_raw_mode(rustix::fs::fstat(&next)?.st_mode) {
            FileType::Directory => held = Some(next),
            FileType::Symlink => return Err(outside()),
            _ => return Err(Errno::NOTDIR.into()),
        }
    }
    let at = held.as_ref().map_or(dir, AsFd::as_fd);
    match rustix::fs::openat(
        at,
        OsStr::from_bytes(last),
        flags | OFlags::NOFOLLOW,
        Mode::empty(),
    ) {
        // O_NOFOLLOW's refusal of a symbolic link.
        Err(Errno::LOOP) => Err(outside()),
        other => Ok(other?),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::os::unix::fs::symlink;

    fn tree() -> tempfile::TempDir {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path().join("root");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/in"), b"inside").unwrap();
        std::fs::write(tmp.path().join("secret"), b"outside").unwrap();
        symlink("../secret", root.join("out")).unwrap();
        symlink(tmp.path(), root.join("outdir")).unwrap();
        symlink("sub/in", root.join("in")).unwrap();
        symlink("sub", root.join("subdir")).unwrap();
        tmp
    }

    fn read(file: io::Result<File>) -> io::Result<String> {
        let mut text = String::new();
        file?.read_to_string(&mut text)?;
        Ok(text)
    }

    #[test]
    fn links_inside_are_followed_and_outside_refused() {
        let tmp = tree();
        let root = Root::open(tmp.path().join("root").as_os_str()).unwrap();
        for name in ["sub/in", "in", "subdir/in", "./sub//in"] {
            assert_eq!(read(root.open_file(OsStr::new(name))).unwrap(), "inside");
        }
        for name in ["out", "outdir/secret", "../secret", "sub/../../secret"] {
            let e = root.open_file(OsStr::new(name)).unwrap_err();
            assert!(is_outside(&e), "{name}: {e}");
        }
        let e = root.open_file(OsStr::new("nothing")).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn the_walk_refuses_every_link() {
        let tmp = tree();
        let root = Root::open(tmp.path().join("root").as_os_str()).unwrap();
        let walk = |name: &str| {
            open_by_walk(root.dir.as_fd(), OsStr::new(name), OFlags::RDONLY).map(File::from)
        };
        assert_eq!(read(walk("sub/in")).unwrap(), "inside");
        assert_eq!(read(walk("./sub//in")).unwrap(), "inside");
        for name in [
            "out",
            "outdir/secret",
            "in",
            "subdir/in",
            "../secret",
            "/etc",
        ] {
            let e = walk(name).unwrap_err();
            assert!(is_outside(&e), "{name}: {e}");
        }
        assert_eq!(
            walk("sub/in/x").unwrap_err().raw_os_error(),
            Some(Errno::NOTDIR.raw_os_error())
        );
    }

    #[test]
    fn a_fifo_opens_without_a_writer_and_a_file_is_no_root() {
        let tmp = tree();
        let fifo = tmp.path().join("root/fifo");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            FileType::Fifo,
            Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let root = Root::open(tmp.path().join("root").as_os_str()).unwrap();
        let meta = root.metadata(OsStr::new("fifo")).unwrap();
        assert!(!meta.is_file());
        let e = root.open_file(OsStr::new("fifo")).unwrap_err();
        assert_eq!(e.to_string(), "not a regular file");
        let e = root.open_file(OsStr::new("sub")).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(Errno::ISDIR.raw_os_error()));
        let e = Root::open(tmp.path().join("secret").as_os_str()).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(Errno::NOTDIR.raw_os_error()));
        assert!(Root::open(OsStr::new("/dev/null")).is_err());
    }
}
