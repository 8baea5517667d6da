//! A segment's bytes read in order by a single-stream hasher: on the
//! worker's own thread, or by a second thread while the worker hashes.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::sync::mpsc::{self, Receiver, SyncSender};

use super::PIPELINE_CHUNK;

/// Buffers in flight between the reading and the hashing thread.
const PIPELINE_DEPTH: usize = 4;

/// The bytes of a segment, read in order.
pub(super) struct Range<'f> {
    pub(super) file: &'f File,
    pub(super) offset: u64,
    /// Exactly this many bytes; `None`: to the end of the file.
    pub(super) len: Option<u64>,
}

impl Range<'_> {
    /// Fills `buf` from `at` bytes into the range: as much as fits, to the
    /// range's end. 0 when the range is over; an error if the file ends
    /// before an exact range does (after handing out what it did hold, so
    /// that the prefixes it covers still get their digests).
    fn fill(&self, buf: &mut [u8], at: u64) -> io::Result<usize> {
        let want = match self.len {
            Some(len) => (len - at).min(buf.len() as u64) as usize,
            None => buf.len(),
        };
        let mut filled = 0;
        while filled < want {
            match self
                .file
                .read_at(&mut buf[filled..want], self.offset + at + filled as u64)
            {
                Ok(0) if self.len.is_some() && filled == 0 => return Err(shrank()),
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(filled)
    }

    /// Feeds the range to `absorb` through `buf`, on this thread; `false`
    /// if `absorb` asked to stop.
    pub(super) fn read_into(
        &self,
        buf: &mut [u8],
        absorb: &mut dyn FnMut(&[u8]) -> bool,
    ) -> io::Result<bool> {
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
    pub(super) fn read_pipelined(&self, absorb: &mut dyn FnMut(&[u8]) -> bool) -> io::Result<bool> {
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
    ) -> io::Result<()> {
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

/// The error of a file that ends before an exact segment does.
fn shrank() -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, "file shrank while being read")
}

/// Fills `buf` from `file` at `offset`; a file that ends first has shrunk
/// since its size was taken.
pub(super) fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> io::Result<()> {
    while !buf.is_empty() {
        match file.read_at(buf, offset) {
            Ok(0) => return Err(shrank()),
            Ok(n) => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
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
        for len in [None, Some(data.len() as u64 - 5)] {
            let range = Range {
                file: &file,
                offset: 3,
                len,
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
            let end = len.map_or(data.len(), |l| 3 + l as usize);
            assert!(seen == data[3..end], "{len:?}");
        }
        // Past the end of the file: the shrink is the result.
        let range = Range {
            file: &file,
            offset: 0,
            len: Some(data.len() as u64 + 1),
        };
        assert!(range.read_pipelined(&mut |_| true).is_err());
        // Asked to stop: stops.
        let mut calls = 0;
        let range = Range {
            file: &file,
            offset: 0,
            len: None,
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
