//! How the engine tells a caller what it is doing: bytes hashed (from any
//! thread), files done, and which file the calling thread waits for; and
//! how a caller stops it ([`Progress::cancelled`]). A command line draws a
//! bar from it; a library caller may ignore it ([`NoProgress`]).

use crate::Input;

/// Hears of the engine's progress. Every method may be called from any of
/// the engine's threads, and does nothing by default.
pub trait Progress: Sync {
    /// Whether anyone watches: totals that cost work (a `stat` per file)
    /// are worked out and passed to [`expect`](Self::expect) only then.
    fn shown(&self) -> bool {
        false
    }
    /// The work ahead: about `bytes` bytes in `inputs` inputs.
    fn expect(&self, _bytes: u64, _inputs: u64) {}
    /// The calling thread starts on (or waits for) `input`, of `len` bytes
    /// if it is a regular file whose size is known (or, for a search, the
    /// bytes the search will read).
    fn begin_file(&self, _input: Input<'_>, _len: Option<u64>) {}
    /// `bytes` more bytes were read and hashed.
    fn advance(&self, _bytes: usize) {}
    /// One more input (or part) is done, or failed.
    fn file_done(&self) {}
    /// The calling thread is done with the input of the last `begin_file`.
    fn end_file(&self) {}
    /// Whether the caller wants the run to end now (asked from any thread
    /// between chunks, so it must be cheap): the engine then reads nothing
    /// more, and every input not yet done ends in an error
    /// ([`FileError::cancelled`](crate::FileError::cancelled), or a
    /// failed worker's) instead of waiting, within about
    /// [`WAIT_SLICE`](crate::read::WAIT_SLICE) of a FIFO or device.
    fn cancelled(&self) -> bool {
        false
    }
}

/// Progress nobody watches.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoProgress;

impl Progress for NoProgress {}
