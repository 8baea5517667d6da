//! Reading files without the copy: a regular file's bytes hashed straight
//! from a memory mapping of it, a window at a time, instead of copied into
//! a buffer by `pread` first.
//!
//! Which files are mapped is a policy, [`FileIo`], one for the process:
//! by default (`auto`) segments of at least [`MAP_MIN`] bytes, where the
//! copy it saves costs more than setting up the mapping; `map` and `read`
//! force one way for every file (`LINERATE_FILE_IO`, so that the tests run
//! both on one machine). A window that cannot be mapped (no slot, a file
//! system without mappings) is read instead; nothing fails for it.
//!
//! A mapped file that shrinks while it is read would kill the process with
//! SIGBUS: [`sigbus`] catches that, and the window reports
//! [`faulted`](Window::faulted); its reader turns that into
//! [`FileError::Changed`](crate::FileError::Changed).

mod sigbus;

use std::fs::File;

use linerate::backend::Backend;
use memmap2::{Mmap, MmapOptions};

use sigbus::Registration;

/// Segments at least this long are mapped under `auto`. Below it a
/// mapping's set-up and `munmap` cost more than the copy they save: files
/// of 256 KiB hashed 0.75x as fast mapped as read, of 512 KiB 0.90x, of
/// 1 MiB 1.06x (docs/performance.md).
pub(crate) const MAP_MIN: u64 = 1 << 20;

/// Bytes mapped at once, at most, by a lane or a segment hashed alone: what
/// a window keeps resident, besides the page cache that holds the file
/// anyway (a worker's 32 lanes: 128 MiB). Each window ends in a `munmap`,
/// and with more than one thread every `munmap` interrupts the other CPUs
/// running the process to flush their TLBs (a VM exit each in a virtual
/// machine): windows of 4 MiB against 2 MiB made `etag` of 4 GiB on two
/// threads 1.06x faster, `sum -j2` 1.06x; 1 MiB against 2 MiB cost `sum
/// -j1` 1.04x (docs/performance.md).
pub(crate) const WINDOW: usize = 4 << 20;

/// How the file engine reads regular files: a backend family like the
/// hash kernels', forced with `LINERATE_FILE_IO`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileIo {
    /// Map segments of [`MAP_MIN`] bytes or more, read the rest.
    Auto,
    /// Map every non-empty segment of a regular file.
    Map,
    /// Read everything with `pread` (what md5sum does).
    Read,
}

impl Backend for FileIo {
    const ENV: &'static str = "LINERATE_FILE_IO";
    const FAMILY: &'static str = "file I/O";
    const ALL: &'static [FileIo] = &[FileIo::Auto, FileIo::Map, FileIo::Read];

    fn name(self) -> &'static str {
        match self {
            FileIo::Auto => "auto",
            FileIo::Map => "map",
            FileIo::Read => "read",
        }
    }

    fn is_supported(self) -> bool {
        true
    }
}

impl FileIo {
    /// Every policy: `auto`, `map`, `read`.
    pub const ALL: &'static [FileIo] = <FileIo as Backend>::ALL;

    /// The policy of this process: `LINERATE_FILE_IO` if it names one,
    /// else `auto`. Decided once.
    pub fn active() -> FileIo {
        static ACTIVE: std::sync::OnceLock<FileIo> = std::sync::OnceLock::new();
        *ACTIVE.get_or_init(FileIo::resolve)
    }

    /// Whether a segment of `len` bytes is mapped under this policy.
    pub(crate) fn maps(self, len: u64) -> bool {
        match self {
            FileIo::Auto => len >= MAP_MIN,
            FileIo::Map => len > 0,
            FileIo::Read => false,
        }
    }
}

impl std::fmt::Display for FileIo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Whether `LINERATE_FILE_IO` is unset or names a policy: front ends call
/// this with [`linerate::backend::check_env`] at start-up.
pub fn check_env() -> Result<(), linerate::backend::BackendError> {
    FileIo::from_env().map(drop)
}

/// `len` bytes of a file from `offset`, mapped for reading, with faults
/// past the file's end caught.
pub(crate) struct Window {
    // Declared first, so dropped first: the range is unregistered before
    // the mapping goes.
    registration: Registration,
    map: Mmap,
}

impl Window {
    /// Maps the window; `None` if it cannot be mapped or guarded, and the
    /// caller reads it instead. With `populate`, every page is mapped now
    /// (`MADV_POPULATE_READ`), by the calling thread: worth it only on a thread
    /// that maps ahead of the one hashing. Otherwise the hashing thread's
    /// first touch of every 64 KiB maps it (the kernel's fault-around),
    /// which measured 1.16x faster than populating on the same thread
    /// (docs/performance.md).
    ///
    /// Under [`FileIo::Auto`] a window the hashing thread faults in itself
    /// (not `populate`) is mapped only if its pages are in the page cache:
    /// faults that must wait for the disk stall that thread where `pread`
    /// would have had the kernel's readahead working ahead of it (32 cold
    /// files hashed mapped took 1.6x as long as read). The caller reads
    /// such a window instead. A populated window waits for the disk on the
    /// thread that maps ahead, out of the hashing thread's way.
    pub(crate) fn new(
        file: &File,
        offset: u64,
        len: usize,
        populate: bool,
        io: FileIo,
    ) -> Option<Window> {
        if len == 0 {
            return None;
        }
        // SAFETY: the mapping is read only and private to this window. A
        // file that shrinks under it raises SIGBUS, which the registration
        // below catches before any byte is read. Bytes changed in place by
        // another process while mapped are read as they come, as `read`
        // would have returned them at some moment (every tool that maps
        // files, b3sum and ripgrep among them, takes the same view).
        let map = unsafe { MmapOptions::new().offset(offset).len(len).map(file) }.ok()?;
        if io == FileIo::Auto && !populate && !in_page_cache(&map)? {
            return None;
        }
        let registration = Registration::new(map.as_ptr(), map.len())?;
        if populate {
            // Fails on kernels before 5.14 (and where the file shrank):
            // then the hashing thread's faults map what is missing.
            let _ = map.advise(memmap2::Advice::PopulateRead);
        }
        Some(Window { registration, map })
    }

    /// The window's bytes (zeros where a page was gone: see
    /// [`faulted`](Self::faulted)).
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.map
    }

    /// Whether a page was gone when read: the file shrank while mapped (or
    /// its storage failed), and [`bytes`](Self::bytes) is not the file's.
    pub(crate) fn faulted(&self) -> bool {
        self.registration.faulted()
    }
}

/// Pages of a window [`in_page_cache`] looks at: one every this many
/// bytes, and the last.
const PROBE_STRIDE: usize = 1 << 20;

/// Whether a mapping's pages are in the page cache, by a sample of them:
/// every [`PROBE_STRIDE`]th and the last (`mincore`, which looks a file's
/// page up without mapping it); `None` if it cannot be told. All of them
/// would cost a page-cache lookup per 4 KiB: asking about every page of
/// 32 files of 16 MiB made hashing them 1.13x slower. Files come into the
/// cache a readahead window at a time, so the sample tells the rest.
fn in_page_cache(map: &Mmap) -> Option<bool> {
    let page = sigbus::page_size();
    let start = map.as_ptr() as usize;
    let from = start & !(page - 1);
    let last = (start + map.len() - 1) & !(page - 1);
    let probes = (from..last).step_by(PROBE_STRIDE).chain([last]);
    for addr in probes {
        let mut resident = 0u8;
        // SAFETY: `addr` is a page of the mapping (memmap2 maps from the
        // page holding the offset), and `resident` holds one page's byte.
        let rc = unsafe { libc::mincore(addr as *mut libc::c_void, page, &mut resident) };
        if rc != 0 {
            return None;
        }
        if resident & 1 == 0 {
            return Some(false);
        }
    }
    Some(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_window_of_a_file_that_shrinks_reads_zeros_and_says_so() {
        let mut file = tempfile::tempfile().expect("temp file");
        let data: Vec<u8> = (0..3 * 4096 + 100).map(|i| (i % 251) as u8 + 1).collect();
        file.write_all(&data).expect("write");
        let window = Window::new(&file, 4096, 2 * 4096 + 100, true, FileIo::Map).expect("mapped");
        assert_eq!(window.bytes(), &data[4096..]);
        assert!(!window.faulted());
        // The pages past 5000 are gone from the file, and from the mapping.
        file.set_len(5000).expect("truncate");
        let sum: u64 = window.bytes().iter().map(|&b| u64::from(b)).sum();
        assert!(window.faulted(), "the read past the end was caught");
        // The file's bytes still in it read as they were; past them, zeros
        // (the kernel's, in the last page, and ours).
        let kept: u64 = data[4096..5000].iter().map(|&b| u64::from(b)).sum();
        assert_eq!(sum, kept);
        drop(window);
        // A later window of the same file is clean.
        let again = Window::new(&file, 0, 5000, false, FileIo::Map).expect("mapped");
        assert_eq!(again.bytes(), &data[..5000]);
        assert!(!again.faulted());
    }

    #[test]
    fn auto_maps_only_windows_in_the_page_cache() {
        use std::os::fd::AsRawFd;
        let mut file = tempfile::tempfile().expect("temp file");
        file.write_all(&vec![7u8; 16 * 4096]).expect("write");
        file.sync_all().expect("sync");
        let resident = |file: &File| {
            // SAFETY: a read-only mapping of a file no one changes.
            let map = unsafe { MmapOptions::new().offset(100).len(8 * 4096).map(file) };
            in_page_cache(&map.expect("mapped"))
        };
        assert_eq!(resident(&file), Some(true));
        assert!(Window::new(&file, 100, 8 * 4096, false, FileIo::Auto).is_some());
        // Clean pages dropped from the cache (not on tmpfs, whose pages
        // are the file): `auto` reads them, `map` still maps them.
        // SAFETY: plain system calls on an open file descriptor.
        let dropped = unsafe {
            let mut fs: libc::statfs = std::mem::zeroed();
            libc::fstatfs(file.as_raw_fd(), &mut fs) == 0
                && fs.f_type != libc::TMPFS_MAGIC
                && libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) == 0
        };
        if dropped {
            assert_eq!(resident(&file), Some(false));
            assert!(Window::new(&file, 100, 8 * 4096, false, FileIo::Auto).is_none());
            let mapped = Window::new(&file, 100, 8 * 4096, false, FileIo::Map).expect("mapped");
            assert!(mapped.bytes().iter().all(|&b| b == 7));
        }
    }

    #[test]
    fn policies_by_size() {
        assert!(FileIo::Auto.maps(MAP_MIN) && !FileIo::Auto.maps(MAP_MIN - 1));
        assert!(FileIo::Map.maps(1) && !FileIo::Map.maps(0));
        assert!(!FileIo::Read.maps(u64::MAX));
        assert_eq!(FileIo::from_name("read"), Ok(FileIo::Read));
        assert!(FileIo::from_name("mmap").is_err());
    }
}
