//! Reading a capture file chunk by chunk, so that `sign` and `verify` hold
//! a bounded part of it in memory whatever its size: one reused buffer of
//! [`CHUNK`] bytes (more only for a record larger than that), refilled
//! once the whole records in it have been handed out; a record cut by the
//! buffer's end is moved to its start and completed by the next read.
//!
//! The records, their order, and every fault (with its packet index and
//! message) are those of reading the file whole: the parser is given a
//! record only once the buffer holds all of it, or all that is left of the
//! file.
//!
//! [`CaptureReader::with_chunk`] sets the buffer's size, so that tests can
//! cut records at every boundary.

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Read};

use crate::capture::{CaptureError, Format, Item, OpenError, Parser};

/// The buffer's size: large enough that reads and the moving of a cut
/// record cost little, small enough to stay in the caches.
pub const CHUNK: usize = 1 << 20;

/// Why a capture could not be opened.
pub enum OpenFailure {
    Io(io::Error),
    Capture(OpenError),
}

/// A capture file being read.
pub struct CaptureReader {
    input: Input,
    parser: Parser,
}

impl CaptureReader {
    /// Opens `path`, recognises the container and checks its header.
    pub fn open(path: &OsStr) -> Result<CaptureReader, OpenFailure> {
        CaptureReader::with_chunk(path, CHUNK)
    }

    /// [`open`](Self::open) with a buffer of `chunk` bytes (at least 1), so
    /// that tests can cut records at every boundary.
    pub fn with_chunk(path: &OsStr, chunk: usize) -> Result<CaptureReader, OpenFailure> {
        let file = File::open(path).map_err(OpenFailure::Io)?;
        CaptureReader::from_file(file, chunk)
    }

    /// A capture read from `file` as it is (standard input, a pipe), in
    /// chunks of `chunk` bytes.
    pub fn from_file(file: File, chunk: usize) -> Result<CaptureReader, OpenFailure> {
        let chunk = chunk.max(1);
        let mut input = Input {
            file,
            buf: vec![0; chunk],
            start: 0,
            end: 0,
            eof: false,
        };
        // The container is known from the first 24 bytes (the pcap file
        // header), or from all of a shorter file.
        input.fill(24).map_err(OpenFailure::Io)?;
        let parser = Parser::open(input.pending()).map_err(OpenFailure::Capture)?;
        Ok(CaptureReader { input, parser })
    }

    pub fn format(&self) -> Format {
        self.parser.format()
    }

    /// The next run of whole records, `None` at the end of the file or
    /// after a fault; an error if the file cannot be read.
    pub fn next_chunk(&mut self) -> io::Result<Option<Records<'_>>> {
        let input = &mut self.input;
        if self.parser.failed() {
            return Ok(None);
        }
        let need = self.parser.needed(input.pending());
        if input.pending().len() < need && !input.eof {
            input.fill(need)?;
        }
        if input.pending().is_empty() && input.eof {
            return Ok(None);
        }
        Ok(Some(Records {
            parser: &mut self.parser,
            rest: &input.buf[input.start..input.end],
            start: &mut input.start,
            end: input.end,
            eof: input.eof,
        }))
    }
}

/// The file and its buffer.
struct Input {
    file: File,
    buf: Vec<u8>,
    /// The bytes not yet handed out: `buf[start..end]`.
    start: usize,
    end: usize,
    eof: bool,
}

impl Input {
    fn pending(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    /// Moves the pending bytes to the buffer's start and reads until the
    /// buffer is full or the file ends, growing the buffer (doubling, so
    /// that a false length in a corrupt record costs no more than the file
    /// holds) until it holds `need` bytes.
    fn fill(&mut self, need: usize) -> io::Result<()> {
        self.buf.copy_within(self.start..self.end, 0);
        self.end -= self.start;
        self.start = 0;
        loop {
            while self.end < self.buf.len() && !self.eof {
                match self.file.read(&mut self.buf[self.end..]) {
                    Ok(0) => self.eof = true,
                    Ok(n) => self.end += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
            if self.eof || self.end >= need {
                return Ok(());
            }
            let grown = need.min(self.buf.len().saturating_mul(2));
            self.buf.resize(grown, 0);
        }
    }
}
/// The whole records in the buffer, in file order.
pub struct Records<'a> {
    parser: &'a mut Parser,
    rest: &'a [u8],
    /// The reader's position, kept past what was handed out.
    start: &'a mut usize,
    end: usize,
    eof: bool,
}

impl<'a> Iterator for Records<'a> {
    type Item = Result<Item<'a>, CaptureError>;

    fn next(&mut self) -> Option<Self::Item> {
        if !self.eof && self.rest.len() < self.parser.needed(self.rest) {
            return None;
        }
        let item = self.parser.next(&mut self.rest);
        *self.start = self.end - self.rest.len();
        item
    }
}
