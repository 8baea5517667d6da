//! A segment hashed alone from mapped windows of its file (no copy): on
//! the worker's thread, or with a second thread mapping the next windows
//! (populating their pages) while the worker hashes. What a lane needs of
//! the same checks is here too.

use std::fs::File;
use std::sync::mpsc;

use super::range::{Range, read_at_most};
use crate::FileError;
use crate::map::{FileIo, WINDOW, Window};

/// Windows mapped ahead of the hashing thread, at most.
const MAP_AHEAD: usize = 2;

impl Range<'_> {
    /// Feeds the range to `absorb` a mapped window at a time; `false` if
    /// `absorb` asked to stop. Where a window cannot be mapped, the rest is
    /// read through `buf` instead (`io` says which windows are mapped).
    pub(super) fn map_into(
        &self,
        io: FileIo,
        buf: &mut Vec<u8>,
        absorb: &mut dyn FnMut(&[u8]) -> bool,
    ) -> Result<bool, FileError> {
        self.map_from(None, io, buf, absorb, false)
    }

    /// [`map_into`](Self::map_into) from `first`, the range's first window
    /// if it is mapped already; the rest read on two threads if `pipelined`.
    fn map_from(
        &self,
        mut first: Option<Window>,
        io: FileIo,
        buf: &mut Vec<u8>,
        absorb: &mut dyn FnMut(&[u8]) -> bool,
        pipelined: bool,
    ) -> Result<bool, FileError> {
        let mut at = 0u64;
        while at < self.len {
            let Some(window) = first.take().or_else(|| self.window(at, false, io)) else {
                return self.read_rest(at, buf, absorb, pipelined);
            };
            if !self.hash_window(at, &window, absorb)? {
                return Ok(false);
            }
            at += window.bytes().len() as u64;
        }
        check_mapped_end(self.file, self.offset, self.len, self.ends_file)?;
        Ok(true)
    }

    /// [`map_into`](Self::map_into) with the windows mapped on a second
    /// thread, [`MAP_AHEAD`] ahead, their pages populated there, for a
    /// range that does not start in the page cache (under [`FileIo::Auto`]):
    /// faults that wait for the disk then stall that thread, not the
    /// hashing one. One that does start there is hashed as `map_into` does,
    /// on this thread only: a populating thread gains nothing on pages
    /// already cached, and every window it maps costs a TLB flush on both
    /// CPUs when unmapped (`sum -a md5p16 -j2` of a cached 512 MiB file,
    /// 1.05x faster so). From a window that is not mapped on, the rest is
    /// read on two threads.
    pub(super) fn map_pipelined(
        &self,
        io: FileIo,
        buf: &mut Vec<u8>,
        absorb: &mut dyn FnMut(&[u8]) -> bool,
    ) -> Result<bool, FileError> {
        if io == FileIo::Auto
            && let Some(first) = self.window(0, false, io)
        {
            return self.map_from(Some(first), io, buf, absorb, true);
        }
        let (sender, windows) = mpsc::sync_channel::<(u64, Option<Window>)>(MAP_AHEAD);
        std::thread::scope(|scope| {
            // Owned by this closure, so that returning early drops it and
            // ends a mapper blocked on a send before the scope joins it.
            let windows = windows;
            scope.spawn(move || {
                let mut at = 0u64;
                while at < self.len {
                    let window = self.window(at, true, io);
                    let mapped = window.is_some();
                    let n = window.as_ref().map_or(0, |w| w.bytes().len() as u64);
                    // The hasher gone (it stopped), or a window that could
                    // not be mapped: the hasher reads on from there.
                    if sender.send((at, window)).is_err() || !mapped {
                        return;
                    }
                    at += n;
                }
            });
            for (at, window) in &windows {
                let Some(window) = window else {
                    return self.read_rest(at, buf, absorb, true);
                };
                if !self.hash_window(at, &window, absorb)? {
                    return Ok(false);
                }
            }
            check_mapped_end(self.file, self.offset, self.len, self.ends_file)?;
            Ok(true)
        })
    }

    /// The window `at` bytes into the range: [`WINDOW`] bytes or the rest.
    fn window(&self, at: u64, populate: bool, io: FileIo) -> Option<Window> {
        let len = (self.len - at).min(WINDOW as u64) as usize;
        Window::new(self.file, self.offset + at, len, populate, io)
    }

    /// Hands `window`, `at` bytes into the range, to `absorb`; `false` if
    /// `absorb` asked to stop. A window that faulted while hashed (the
    /// file shrank) ends the range.
    fn hash_window(
        &self,
        at: u64,
        window: &Window,
        absorb: &mut dyn FnMut(&[u8]) -> bool,
    ) -> Result<bool, FileError> {
        let end = at + window.bytes().len() as u64;
        crate::test_pause::after_read(self.offset + at, end < self.len);
        let going = absorb(window.bytes());
        if window.faulted() {
            return Err(fault_error(self.file, self.offset + self.len));
        }
        Ok(going)
    }

    /// The range from `at` on, read through `buf` (or on two threads).
    fn read_rest(
        &self,
        at: u64,
        buf: &mut Vec<u8>,
        absorb: &mut dyn FnMut(&[u8]) -> bool,
        pipelined: bool,
    ) -> Result<bool, FileError> {
        let rest = Range {
            file: self.file,
            offset: self.offset + at,
            len: self.len - at,
            ends_file: self.ends_file,
        };
        if pipelined {
            return rest.read_pipelined(absorb);
        }
        if buf.is_empty() {
            buf.resize(super::ALONE_CHUNK, 0);
        }
        rest.read_into(buf, absorb)
    }
}

/// For a mapped segment of `len > 0` bytes from `offset`, once all of it
/// was hashed: that the file still reaches its end (a mapping reads zeros,
/// not an error, past the end of a file within its last page) and, if it
/// should end the file, that no byte follows.
pub(super) fn check_mapped_end(
    file: &File,
    offset: u64,
    len: u64,
    ends_file: bool,
) -> Result<(), FileError> {
    let mut bytes = [0u8; 2];
    let want = 1 + usize::from(ends_file);
    match read_at_most(file, &mut bytes[..want], offset + len - 1) {
        Ok(1) => Ok(()),
        Ok(_) => Err(FileError::changed()),
        Err(e) => Err(FileError::Read(e)),
    }
}

/// Why a mapped read of a file that should reach `end` faulted: the file
/// is shorter now (it changed), or it is not and its storage failed (the
/// EIO a read of the same bytes would have had).
pub(super) fn fault_error(file: &File, end: u64) -> FileError {
    const EIO: i32 = 5;
    match file.metadata() {
        Ok(meta) if meta.len() >= end => FileError::Read(std::io::Error::from_raw_os_error(EIO)),
        _ => FileError::changed(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::tests::scratch;

    fn collect(range: &Range<'_>, pipelined: bool) -> Result<Vec<u8>, FileError> {
        let mut seen = Vec::new();
        let mut buf = Vec::new();
        let mut absorb = |piece: &[u8]| {
            seen.extend_from_slice(piece);
            true
        };
        if pipelined {
            range.map_pipelined(FileIo::Map, &mut buf, &mut absorb)?;
        } else {
            range.map_into(FileIo::Map, &mut buf, &mut absorb)?;
        }
        Ok(seen)
    }

    #[test]
    fn mapped_ranges_match_or_changed() {
        let data: Vec<u8> = (0..WINDOW * 2 + 4097)
            .map(|i| (i * 7 % 251) as u8)
            .collect();
        let (dir, file) = scratch("mapped", &data);
        let whole = data.len() as u64;
        for pipelined in [false, true] {
            // To the file's end, checked; short of it, unchecked; a window
            // and a byte.
            for (offset, len, ends_file) in [
                (3, whole - 3, true),
                (3, whole - 8, false),
                (0, WINDOW as u64 + 1, false),
            ] {
                let range = Range {
                    file: &file,
                    offset,
                    len,
                    ends_file,
                };
                let (start, end) = (offset as usize, (offset + len) as usize);
                let seen = collect(&range, pipelined).expect("read");
                assert!(seen == data[start..end], "{offset} {len} {pipelined}");
            }
            // Past the end of the file (it shrank: within its last page, or
            // past it), or short of an end that is no end (it grew).
            for (len, ends_file) in [(whole + 1, false), (whole + 9000, true), (whole - 1, true)] {
                let range = Range {
                    file: &file,
                    offset: 0,
                    len,
                    ends_file,
                };
                let got = collect(&range, pipelined);
                assert!(
                    matches!(got, Err(FileError::Changed(_))),
                    "{len} {ends_file} {pipelined}"
                );
            }
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
