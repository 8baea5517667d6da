//! A segment open in a lane of a worker's engine: each round it reads its
//! next piece (`pread`) into its cache-line-aligned buffer.

use linerate::StreamId;

use super::Segment;
use super::range::read_at_most;
use crate::FileError;
use crate::lane_buf::LaneBuf;

/// Room past a lane's chunk, where the byte after a file's end is looked for.
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
    /// Bytes still to read.
    pub(super) fn left(&self) -> u64 {
        self.segment.len.saturating_sub(self.done)
    }

    /// Reads the next piece: `target` bytes or what is left of the
    /// segment. Where a segment that ends the file ends, it reads one byte
    /// more into the buffer's spare room, to see in the same call that the
    /// file did not grow. A file that shrank or grew is
    /// [`FileError::Changed`].
    pub(super) fn fill(&mut self, target: usize) {
        self.filled = 0;
        let left = self.left();
        let want = left.min(target.min(self.buf.len()) as u64) as usize;
        let at_end = want as u64 == left;
        let probe = self.segment.ends_file && at_end && want < self.buf.len();
        let offset = self.segment.offset + self.done;
        let read = &mut self.buf[..want + usize::from(probe)];
        self.end = match read_at_most(&self.segment.file, read, offset) {
            Err(e) => Some(Err(FileError::Read(e))),
            Ok(got) if got != want => Some(Err(FileError::changed())),
            Ok(got) => {
                self.filled = got;
                self.done += got as u64;
                crate::test_pause::after_read(offset, !at_end);
                at_end.then_some(Ok(()))
            }
        };
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

    /// A lane stream on the whole of `file`, expected to be `len` bytes.
    fn lane_stream(file: &Arc<File>, len: u64) -> Stream<usize> {
        Stream {
            segment: Segment {
                file: Arc::clone(file),
                offset: 0,
                len,
                ends_file: true,
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
    /// everything read, in order, or how it ended.
    fn read_expecting(file: &Arc<File>, len: u64, target: usize) -> Result<Vec<u8>, FileError> {
        let mut stream = lane_stream(file, len);
        let mut read = Vec::new();
        let mut rounds = 0;
        while stream.end.is_none() {
            stream.fill(target);
            read.extend_from_slice(&stream.buf[..stream.filled]);
            rounds += 1;
            assert!(rounds < 100, "no end found");
        }
        stream.end.expect("ended").map(|()| read)
    }

    #[test]
    fn a_file_of_another_size_than_expected_changed() {
        let data: Vec<u8> = (0..300_000).map(|i| (i * 13 % 251) as u8).collect();
        let (dir, file) = scratch("expected", &data);
        for target in [MIN_ROUND_READ, MIN_LANE_CHUNK, 300_000] {
            // The size it has: all of it.
            assert!(read_expecting(&file, 300_000, target).ok() == Some(data.clone()));
            // Smaller (the file grew since), larger (it shrank), empty.
            for len in [100_000, 299_999, 300_001, 1 << 20, 0] {
                let end = read_expecting(&file, len, target);
                assert!(matches!(end, Err(FileError::Changed(_))), "{len} {target}");
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
