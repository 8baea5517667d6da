//! A hook for tests that change a file while the engine reads it, not for
//! users: with `LINERATE_TEST_PAUSE=DIR` set, once per process, after
//! reading the first piece of a file that has more to read (the bytes at
//! offset 0 of a file longer than one piece), the engine
//! writes a line to the FIFO `DIR/paused` and waits for a line from the
//! FIFO `DIR/resume`. Between the two, a test (another process) truncates or
//! appends to the file: the change happens for real, in the middle of the
//! read, every time.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

/// The directory of the two FIFOs, if the hook is on; read once.
fn dir() -> Option<&'static PathBuf> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| std::env::var_os("LINERATE_TEST_PAUSE").map(PathBuf::from))
        .as_ref()
}

/// Called after the piece of a file at offset `offset` was read, with
/// whether more of the file follows it: pauses there if the hook is on and
/// this was the first piece of a file that goes on.
#[inline]
pub(crate) fn after_read(offset: u64, more_follows: bool) {
    if offset == 0
        && more_follows
        && let Some(dir) = dir()
    {
        pause(dir);
    }
}

/// The one handshake, by whichever thread gets there first.
fn pause(dir: &Path) {
    static DONE: AtomicBool = AtomicBool::new(false);
    if DONE.swap(true, Ordering::SeqCst) {
        return;
    }
    // A test that set the hook and then failed leaves nothing to wait for:
    // carry on rather than hang.
    let Ok(mut paused) = File::options().write(true).open(dir.join("paused")) else {
        return;
    };
    if writeln!(paused, "paused").is_err() {
        return;
    }
    drop(paused);
    if let Ok(resume) = File::open(dir.join("resume")) {
        let mut line = String::new();
        let _ = BufReader::new(resume).read_line(&mut line);
    }
}
