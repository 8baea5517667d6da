//! What is hashed: a named file, or this process's standard input.

use std::ffi::OsStr;

/// An input to hash. Which name (if any) means standard input is the
/// caller's convention (`-` on linerate's command line); here a path is
/// always a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input<'a> {
    /// This process's standard input, read once in order.
    Stdin,
    /// The file at this path (a regular file, a FIFO, a device...).
    Path(&'a OsStr),
}
