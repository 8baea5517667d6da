//! A segment open in a lane of a worker's engine. Each round it provides
//! its next piece: read (`pread`) into its cache-line-aligned buffer, or,
//! for a segment the [`FileIo`] policy maps, a slice of a window of the
//! file mapped in place (no copy).

use linerate::StreamId;

use super::mapped::{check_mapped_end, fault_error};
use super::range::read_at_most;
use super::{Segment, Tag};
use crate::FileError;
use crate::lane_buf::LaneBuf;
use crate::map::{FileIo, WINDOW, Window};

/// Room past a lane's chunk, where the byte after a file's end is looked for.
pub(super) const SPARE_ROOM: usize = 4 << 10;

/// Where a lane's pieces come from.
enum Data {
    /// Read into this buffer.
    Read(LaneBuf),
    /// Sliced from a mapped window (none before the first piece) that
    /// starts `from` bytes into the segment, under policy `io` (which
    /// may read a window instead).
    Map {
        window: Option<Window>,
        from: u64,
        io: FileIo,
    },
}

/// The `filled` bytes of a round's piece, `at` bytes into a mapped window.
fn piece(data: &Data, at: usize, filled: usize) -> &[u8] {
    match data {
        Data::Read(buf) => &buf[..filled],
        Data::Map {
            window: Some(window),
            ..
        } => &window.bytes()[at..at + filled],
        Data::Map { window: None, .. } => &[],
    }
}

/// A segment open in a lane.
pub(super) struct Stream<T> {
    pub(super) segment: Segment<T>,
    pub(super) id: StreamId,
    data: Data,
    /// Bytes of the segment read so far.
    pub(super) done: u64,
    /// Bytes of this round's piece.
    pub(super) filled: usize,
    /// Where this round's piece starts in a mapped window.
    piece_at: usize,
    /// `Some` once the segment ended (`Ok`) or failed (`Err`).
    pub(super) end: Option<Result<(), FileError>>,
}

impl<T> Stream<T> {
    /// A segment in lane `id`, mapped if `io` maps segments of its size,
    /// else read into the buffer `buf` gives.
    pub(super) fn new(
        segment: Segment<T>,
        id: StreamId,
        io: FileIo,
        buf: impl FnOnce() -> LaneBuf,
    ) -> Stream<T> {
        let data = if io.maps(segment.len) {
            Data::Map {
                window: None,
                from: 0,
                io,
            }
        } else {
            Data::Read(buf())
        };
        Stream {
            segment,
            id,
            data,
            done: 0,
            filled: 0,
            piece_at: 0,
            end: None,
        }
    }

    /// Bytes still to read.
    pub(super) fn left(&self) -> u64 {
        self.segment.len.saturating_sub(self.done)
    }

    /// This round's piece.
    pub(super) fn piece(&self) -> &[u8] {
        piece(&self.data, self.piece_at, self.filled)
    }

    /// Gives this round's piece to the segment's tag (see [`Tag::beside`]).
    pub(super) fn feed_beside(&mut self)
    where
        T: Tag,
    {
        if self.filled > 0 && !matches!(self.end, Some(Err(_))) {
            let piece = piece(&self.data, self.piece_at, self.filled);
            self.segment.tag.beside(piece);
        }
    }

    /// The segment, its lane, how it ended, and its read buffer (to be
    /// used again by the next segment) if it had one.
    #[allow(clippy::type_complexity)]
    pub(super) fn into_parts(
        self,
    ) -> (
        Segment<T>,
        StreamId,
        Option<Result<(), FileError>>,
        Option<LaneBuf>,
    ) {
        let buf = match self.data {
            Data::Read(buf) => Some(buf),
            Data::Map { .. } => None,
        };
        (self.segment, self.id, self.end, buf)
    }

    /// Prepares the next piece: `target` bytes or what is left of the
    /// segment. Where a segment that ends the file ends, it looks for one
    /// byte more, to see that the file did not grow. A file that shrank or
    /// grew is [`FileError::Changed`].
    pub(super) fn fill(&mut self, target: usize, room: usize) {
        self.filled = 0;
        match self.data {
            Data::Read(_) => self.read(target),
            Data::Map { .. } => self.slice(target, room),
        }
    }

    /// [`fill`](Self::fill) from a mapped window, mapping the next one when
    /// the piece runs past it (or reading from then on if it cannot be
    /// mapped).
    fn slice(&mut self, target: usize, room: usize) {
        let left = self.left();
        let want = left.min(target as u64) as usize;
        let (done, offset) = (self.done, self.segment.offset);
        let Data::Map { window, from, io } = &mut self.data else {
            return;
        };
        let fits = window
            .as_ref()
            .is_some_and(|w| done + want as u64 <= *from + w.bytes().len() as u64);
        if !fits {
            if let Some(old) = window.take()
                && old.faulted()
            {
                self.end = Some(Err(fault_error(&self.segment.file, offset + done)));
                return;
            }
            let len = left.min(WINDOW.max(want) as u64) as usize;
            match Window::new(&self.segment.file, offset + done, len, false, *io) {
                Some(new) => {
                    *window = Some(new);
                    *from = done;
                }
                None => {
                    self.data = Data::Read(LaneBuf::new(room));
                    return self.read(target);
                }
            }
        }
        self.piece_at = (done - *from) as usize;
        self.filled = want;
        self.done += want as u64;
        let at_end = self.done == self.segment.len;
        crate::test_pause::after_read(offset + done, !at_end);
        if at_end {
            self.end = Some(self.check_end());
        }
    }

    /// After a round's pieces were hashed: a mapped piece that faulted
    /// (the file shrank under the mapping) ends the segment as changed,
    /// whatever else was found.
    pub(super) fn check_hashed(&mut self) {
        if let Data::Map {
            window: Some(window),
            ..
        } = &self.data
            && window.faulted()
        {
            let end = self.segment.offset + self.segment.len;
            self.end = Some(Err(fault_error(&self.segment.file, end)));
        }
    }

    /// For a mapped segment, once its last piece is sliced: see
    /// [`check_mapped_end`].
    fn check_end(&self) -> Result<(), FileError> {
        let Segment {
            file,
            offset,
            len,
            ends_file,
            ..
        } = &self.segment;
        check_mapped_end(file, *offset, *len, *ends_file)
    }

    /// [`fill`](Self::fill) by `pread` into the buffer.
    fn read(&mut self, target: usize) {
        let Data::Read(buf) = &mut self.data else {
            return;
        };
        let left = self.segment.len.saturating_sub(self.done);
        let want = left.min(target.min(buf.len()) as u64) as usize;
        let at_end = want as u64 == left;
        let probe = self.segment.ends_file && at_end && want < buf.len();
        let offset = self.segment.offset + self.done;
        let read = &mut buf[..want + usize::from(probe)];
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
    fn lane_stream(file: &Arc<File>, len: u64, io: FileIo) -> Stream<usize> {
        Stream::new(
            Segment {
                file: Arc::clone(file),
                offset: 0,
                len,
                ends_file: true,
                tag: 0,
                prefixes: Vec::new(),
            },
            Md5Manager::new().open().unwrap(),
            io,
            || LaneBuf::new(MIN_LANE_CHUNK + SPARE_ROOM),
        )
    }

    /// [`lane_stream`] read to its end in rounds of `target` bytes:
    /// everything read, in order, or how it ended.
    fn read_expecting(
        file: &Arc<File>,
        len: u64,
        target: usize,
        io: FileIo,
    ) -> Result<Vec<u8>, FileError> {
        let mut stream = lane_stream(file, len, io);
        let mut read = Vec::new();
        let mut rounds = 0;
        while stream.end.is_none() {
            stream.fill(target, MIN_LANE_CHUNK + SPARE_ROOM);
            read.extend_from_slice(stream.piece());
            stream.check_hashed();
            rounds += 1;
            assert!(rounds < 100, "no end found");
        }
        stream.end.expect("ended").map(|()| read)
    }

    #[test]
    fn a_file_of_another_size_than_expected_changed() {
        let data: Vec<u8> = (0..300_000).map(|i| (i * 13 % 251) as u8).collect();
        let (dir, file) = scratch("expected", &data);
        for io in [FileIo::Read, FileIo::Map] {
            for target in [MIN_ROUND_READ, MIN_LANE_CHUNK, 300_000] {
                // The size it has: all of it.
                let whole = read_expecting(&file, 300_000, target, io);
                assert!(whole.ok() == Some(data.clone()), "{io} {target}");
                // Smaller (the file grew since), larger (it shrank: within
                // its last page, or past it), empty.
                for len in [100_000, 299_999, 300_001, 1 << 20, 0] {
                    let end = read_expecting(&file, len, target, io);
                    let what = format!("{io} {len} {target}");
                    assert!(matches!(end, Err(FileError::Changed(_))), "{what}");
                }
            }
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_file_that_ends_as_expected_ends_in_the_same_round() {
        let (dir, file) = scratch("round", &vec![7u8; MIN_ROUND_READ]);
        for io in [FileIo::Read, FileIo::Map] {
            let mut stream = lane_stream(&file, MIN_ROUND_READ as u64, io);
            stream.fill(MIN_ROUND_READ, MIN_LANE_CHUNK + SPARE_ROOM);
            assert_eq!(stream.filled, MIN_ROUND_READ);
            assert!(matches!(stream.end, Some(Ok(()))), "{io}");
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
