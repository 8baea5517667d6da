//! A segment open in a lane of a worker's engine: each round it reads its
//! next piece (`pread`) into its cache-line-aligned buffer.

use std::io;
use std::os::unix::fs::FileExt;

use linerate::StreamId;

use super::Segment;
use super::range::read_exact_at;
use crate::FileError;
use crate::lane_buf::LaneBuf;

/// Room past a whole file's chunk where the end of the file is found.
pub(super) const SPARE_ROOM: usize = 4 << 10;

/// A segment open in a lane.
pub(super) struct Stream<T> {
    pub(super) segment: Segment<T>,
    pub(super) id: StreamId,
    pub(super) buf: LaneBuf,
    /// Bytes of the segment read so far.
    pub(super) done: u64,
    /// Bytes of `buf` read this round.
    pub(super) filled: usize,
    /// `Some` once the segment ended (`Ok`) or failed (`Err`).
    pub(super) end: Option<Result<(), FileError>>,
}

impl<T> Stream<T> {
    /// Bytes still expected (for a whole file: from its size when taken).
    pub(super) fn left(&self) -> u64 {
        self.segment.len.saturating_sub(self.done)
    }

    /// Reads the next piece: `target` bytes, or to the segment's end, or up
    /// to a failed read.
    pub(super) fn fill(&mut self, target: usize) {
        self.filled = 0;
        if self.segment.to_end {
            self.fill_to_end(target);
        } else {
            self.fill_exact(target);
        }
        self.done += self.filled as u64;
    }

    /// An exact segment: `target` bytes or what is left of it; a file that
    /// ends first has shrunk.
    fn fill_exact(&mut self, target: usize) {
        let want = self.left().min(target.min(self.buf.len()) as u64) as usize;
        let offset = self.segment.offset + self.done;
        match read_exact_at(&self.segment.file, &mut self.buf[..want], offset) {
            Ok(()) => {
                self.filled = want;
                if self.done + want as u64 == self.segment.len {
                    self.end = Some(Ok(()));
                }
            }
            Err(e) => self.end = Some(Err(FileError::Read(e))),
        }
    }

    /// A whole file. Where it is expected to end it reads on into the
    /// buffer's spare room, which finds the end (a read of 0) in this round
    /// instead of costing the lane a round of its own, and takes in what a
    /// growing file added.
    fn fill_to_end(&mut self, target: usize) {
        let expected = self.left();
        loop {
            let goal = if self.filled as u64 >= expected {
                self.buf.len()
            } else {
                target.min(self.buf.len())
            };
            if self.filled >= goal {
                break;
            }
            let offset = self.segment.offset + self.done + self.filled as u64;
            match self
                .segment
                .file
                .read_at(&mut self.buf[self.filled..goal], offset)
            {
                Ok(0) => {
                    self.end = Some(Ok(()));
                    break;
                }
                Ok(n) => self.filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.end = Some(Err(FileError::Read(e)));
                    break;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::fs::File;
    use std::sync::Arc;

    use linerate::Md5Manager;

    use super::*;
    use crate::engine::tests::scratch;
    use crate::engine::{MIN_LANE_CHUNK, MIN_ROUND_READ};

    /// A lane stream on the whole of `file`, whose size hint is `hint`.
    fn lane_stream(file: &Arc<File>, hint: u64) -> Stream<usize> {
        Stream {
            segment: Segment {
                file: Arc::clone(file),
                offset: 0,
                len: hint,
                to_end: true,
                tag: 0,
                prefixes: Vec::new(),
            },
            id: Md5Manager::new().open().unwrap(),
            buf: LaneBuf::new(MIN_LANE_CHUNK + SPARE_ROOM),
            done: 0,
            filled: 0,
            end: None,
        }
    }

    /// [`lane_stream`] read to its end in rounds of `target` bytes:
    /// everything read, in order.
    fn read_with_hint(file: &Arc<File>, hint: u64, target: usize) -> Vec<u8> {
        let mut stream = lane_stream(file, hint);
        let mut read = Vec::new();
        let mut rounds = 0;
        while stream.end.is_none() {
            stream.fill(target);
            read.extend_from_slice(&stream.buf[..stream.filled]);
            rounds += 1;
            assert!(rounds < 100, "no end found");
        }
        assert!(matches!(stream.end, Some(Ok(()))));
        read
    }

    #[test]
    fn reads_follow_the_file_not_its_size_hint() {
        let data: Vec<u8> = (0..300_000).map(|i| (i * 13 % 251) as u8).collect();
        let (dir, file) = scratch("hint", &data);
        // Right, too small (the file grew), too large (it shrank), none.
        for hint in [300_000, 100_000, 1 << 20, 0] {
            for target in [MIN_ROUND_READ, MIN_LANE_CHUNK, 300_000] {
                assert!(
                    read_with_hint(&file, hint, target) == data,
                    "{hint} {target}"
                );
            }
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_file_that_ends_as_expected_ends_in_the_same_round() {
        let (dir, file) = scratch("round", &vec![7u8; MIN_ROUND_READ]);
        let mut stream = lane_stream(&file, MIN_ROUND_READ as u64);
        stream.fill(MIN_ROUND_READ);
        assert_eq!(stream.filled, MIN_ROUND_READ);
        assert!(matches!(stream.end, Some(Ok(()))));
        std::fs::remove_dir_all(&dir).ok();
    }
}
