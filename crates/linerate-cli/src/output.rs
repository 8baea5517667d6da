//! Writing to standard output: a closed pipe (`linerate sum big | head -1`)
//! ends the command quietly instead of panicking.

use std::io::{self, Write};

/// Whether an I/O error means the reader went away.
pub fn is_broken_pipe(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::BrokenPipe
}

/// Writes `bytes` to stdout and flushes; on a broken pipe exits quietly.
pub fn print_or_quiet(bytes: &[u8]) {
    let mut out = io::stdout().lock();
    if let Err(e) = out.write_all(bytes).and_then(|()| out.flush()) {
        exit_on_write_error(&e);
    }
}

/// Ends the process after a failed write to stdout: silently (status 141 is
/// what a shell reports for SIGPIPE; coreutils dies of the signal itself) on a
/// broken pipe, with a message and status 1 otherwise.
pub fn exit_on_write_error(e: &io::Error) -> ! {
    if is_broken_pipe(e) {
        std::process::exit(141);
    }
    eprintln!("{}: write error: {e}", crate::PROGRAM);
    std::process::exit(1);
}
