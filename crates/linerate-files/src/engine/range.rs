//! A segment's bytes read in order by a single-stream hasher: on the
//! worker's own thread, or by a second thread while the worker hashes.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::sync::mpsc::{self, Receiver, SyncSender};

use super::PIPELINE_CHUNK;
use crate::FileError;

/// Buffers in flight between the reading and the hashing thread.
const PIPELINE_DEPTH: usize = 4;

/// The bytes of a segment, read in order.
pub(super) struct Range<'f> {
    pub(super) file: &'f File,
    pub(super) offset: u64,
    /// Exactly this many bytes.
    pub(super) len: u64,
    /// The file should end with the range (see `Segment::ends_file`).
    pub(super) ends_file: bool,
}

impl Range<'_> {
    /// Fills `buf` from `at` bytes into the range: as much as fits, to the
    /// range's end; 0 when the range is over. A file that ends before the
    /// range does shrank, and one with bytes past a range that ends it
    /// grew: [`FileError::Changed`] (after handing out what the range did
    /// hold, so that the prefixes it covers still get their digests).
    fn fill(&self, buf: &mut [u8], at: u64) -> Result<usize, FileError> {
        let left = self.len - at;
        if left == 0 {
            return Ok(0);
        }
        let want = left.min(buf.len() as u64) as usize;
        let at_end = want as u64 == left;
        // Where the range ends, one byte more, to see that nothing follows.
        let probe = self.ends_file && at_end && want < buf.len();
        let read = &mut buf[..want + usize::from(probe)];
        let got = read_at_most(self.file, read, self.offset + at).map_err(FileError::Read)?;
        if got == 0 || got > want {
            return Err(FileError::changed());
        }
        if got == want && self.ends_file && at_end && !probe {
            self.check_end()?;
        }
        crate::test_pause::after_read(self.offset + at, !at_end);
        Ok(got)
    }

    /// Whether the file ends where the range does (it has no byte there).
    fn check_end(&self) -> Result<(), FileError> {
        let mut byte = [0u8; 1];
        match read_at_most(self.file, &mut byte, self.offset + self.len) {
            Ok(0) => Ok(()),
            Ok(_) => Err(FileError::changed()),
            Err(e) => Err(FileError::Read(e)),
        }
    }

    /// An empty range that ends a file reads nothing, but still checks it.
    fn check_empty(&self) -> Result<(), FileError> {
        if self.len == 0 && self.ends_file {
            self.check_end()?;
        }
        Ok(())
    }

    /// Feeds the range to `absorb` through `buf`, on this thread; `false`
    /// if `absorb` asked to stop.
    pub(super) fn read_into(
        &self,
        buf: &mut [u8],
        absorb: &mut dyn FnMut(&[u8]) -> bool,
    ) -> Result<bool, FileError> {
        self.check_empty()?;
        let mut at = 0u64;
        loop {
            let n = self.fill(buf, at)?;
            if n == 0 {
                return Ok(true);
            }
            if !absorb(&buf[..n]) {
                return Ok(false);
            }
            at += n as u64;
        }
    }

    /// [`read_into`](Self::read_into) with the reads on a second thread:
    /// the reader fills buffers and passes them over, this thread hands
    /// them back. A read error ends the reader, and is the result.
    pub(super) fn read_pipelined(
        &self,
        absorb: &mut dyn FnMut(&[u8]) -> bool,
    ) -> Result<bool, FileError> {
        let (full_sender, full) = mpsc::sync_channel::<(Vec<u8>, usize)>(PIPELINE_DEPTH);
        let (empty_sender, empty) = mpsc::channel::<Vec<u8>>();
        for _ in 0..PIPELINE_DEPTH {
            drop(empty_sender.send(vec![0; PIPELINE_CHUNK]));
        }
        std::thread::scope(|scope| {
            let reader = scope.spawn(move || self.read_ahead(&empty, &full_sender));
            let mut going = true;
            for (buf, n) in &full {
                if !absorb(&buf[..n]) {
                    going = false;
                    break;
                }
                // The reader is gone once the range ended; the buffer with it.
                drop(empty_sender.send(buf));
            }
            // Stopping early: closing the channels ends the reader.
            drop(full);
            drop(empty_sender);
            reader.join().expect("the reading thread failed")?;
            Ok(going)
        })
    }

    /// The reading half of [`read_pipelined`](Self::read_pipelined).
    fn read_ahead(
        &self,
        empty: &Receiver<Vec<u8>>,
        full: &SyncSender<(Vec<u8>, usize)>,
    ) -> Result<(), FileError> {
        self.check_empty()?;
        let mut at = 0u64;
        while let Ok(mut buf) = empty.recv() {
            let n = self.fill(&mut buf, at)?;
            if n == 0 || full.send((buf, n)).is_err() {
                return Ok(());
            }
            at += n as u64;
        }
        Ok(())
    }
}

/// Fills `buf` from `file` at `offset` until it is full or the file ends;
/// the bytes read.
pub(super) fn read_at_most(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read_at(&mut buf[filled..], offset + filled as u64) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::tests::scratch;

    #[test]
    fn pipelined_reads_match() {
        let data: Vec<u8> = (0..PIPELINE_CHUNK * 5 + 77)
            .map(|i| (i * 7 % 251) as u8)
            .collect();
        let (dir, file) = scratch("pipeline", &data);
        let whole = data.len() as u64;
        // To the file's end, checked; short of it, unchecked; both ways
        // through the pipeline and on this thread.
        for (offset, len, ends_file) in [(3, whole - 3, true), (3, whole - 8, false), (0, 0, false)]
        {
            let range = Range {
                file: &file,
                offset,
                len,
                ends_file,
            };
            let mut seen = Vec::new();
            assert!(
                range
                    .read_pipelined(&mut |piece| {
                        seen.extend_from_slice(piece);
                        true
                    })
                    .unwrap()
            );
            let (start, end) = (offset as usize, (offset + len) as usize);
            assert!(seen == data[start..end], "{offset} {len}");
            let mut direct = Vec::new();
            let mut buf = vec![0; 1000];
            assert!(
                range
                    .read_into(&mut buf, &mut |piece| {
                        direct.extend_from_slice(piece);
                        true
                    })
                    .unwrap()
            );
            assert!(direct == seen);
        }
        // Past the end of the file (it shrank), or short of an end that is
        // no end (it grew): changed.
        for (len, ends_file) in [(whole + 1, false), (whole - 1, true), (0, true)] {
            let range = Range {
                file: &file,
                offset: 0,
                len,
                ends_file,
            };
            let piped = range.read_pipelined(&mut |_| true);
            assert!(
                matches!(piped, Err(FileError::Changed(_))),
                "{len} {ends_file}"
            );
            let direct = range.read_into(&mut [0; 4096], &mut |_| true);
            assert!(
                matches!(direct, Err(FileError::Changed(_))),
                "{len} {ends_file}"
            );
        }
        // Asked to stop: stops.
        let mut calls = 0;
        let range = Range {
            file: &file,
            offset: 0,
            len: whole,
            ends_file: true,
        };
        assert!(
            !range
                .read_pipelined(&mut |_| {
                    calls += 1;
                    false
                })
                .unwrap()
        );
        assert_eq!(calls, 1);
        std::fs::remove_dir_all(&dir).ok();
    }
}
