//! Standard output and standard error for one run of `linerate sum`.
//!
//! Output lines go through a buffer, written a whole line at a time so a
//! flush never splits one. Before every diagnostic the buffer is flushed, so
//! when both streams go to one file or terminal the lines interleave exactly
//! as md5sum's do. A closed pipe ends the process quietly; any other write
//! error is remembered, further output dropped, and reported at the end as
//! md5sum reports it (`write error`, status 1).

use std::io::{self, BufWriter, Write};
use std::sync::Arc;

use super::progress::Progress;
use crate::output;
use linerate_sumfile::quote::{self, Charset};

const BUFFER: usize = 64 * 1024;

/// Where `linerate sum` writes.
pub struct Console {
    out: BufWriter<crate::output::Stdout>,
    /// A terminal gets each line at once, like a line-buffered stream.
    out_is_terminal: bool,
    write_failed: bool,
    /// The failure was standard output closed (EBADF).
    write_closed: bool,
    charset: Charset,
    /// The progress bar, kept off the screen while anything else is written;
    /// shared with the file engine's threads.
    pub progress: Arc<Progress>,
}

impl Console {
    /// A console on this process's stdout and stderr.
    pub fn new(progress: Progress) -> Console {
        let stdout = crate::output::stdout();
        Console {
            out_is_terminal: stdout.is_terminal(),
            out: BufWriter::with_capacity(BUFFER, stdout),
            write_failed: false,
            write_closed: false,
            charset: Charset::from_env(),
            progress: Arc::new(progress),
        }
    }

    /// Writes one complete output record.
    pub fn print(&mut self, record: &[u8]) {
        if self.write_failed {
            return;
        }
        let result = self.out.write_all(record);
        self.check(result);
        if self.out_is_terminal {
            self.flush();
        }
    }

    /// `linerate: MESSAGE` on stderr, after everything printed so far.
    pub fn error(&mut self, message: &[u8]) {
        self.flush();
        let mut line = Vec::with_capacity(message.len() + 16);
        line.extend_from_slice(crate::PROGRAM.as_bytes());
        line.extend_from_slice(b": ");
        line.extend_from_slice(message);
        line.push(b'\n');
        // Nothing sensible is left to do if stderr itself fails.
        self.progress
            .suspend(|| io::stderr().lock().write_all(&line).ok());
    }

    /// `linerate: NAME: DETAIL`, the name quoted as md5sum quotes it.
    pub fn error_about(&mut self, name: &[u8], detail: &[u8]) {
        let mut message = self.quote(name);
        message.extend_from_slice(b": ");
        message.extend_from_slice(detail);
        self.error(&message);
    }

    /// `name` quoted for a diagnostic.
    pub fn quote(&self, name: &[u8]) -> Vec<u8> {
        quote::quote(name, self.charset)
    }

    /// Flushes the output and reports a write error that happened on the way;
    /// `ok` is the run's own verdict. Returns the process's success.
    pub fn finish(mut self, ok: bool) -> bool {
        self.flush();
        self.progress.finish();
        if self.write_failed {
            // md5sum's words: with the reason for a closed standard output
            // (found when it closes it), without for a failed write (a full
            // disk, found while it writes).
            let message: &[u8] = if self.write_closed {
                b"write error: Bad file descriptor"
            } else {
                b"write error"
            };
            self.error(message);
            return false;
        }
        ok
    }

    fn flush(&mut self) {
        if self.write_failed {
            return;
        }
        let (out, progress) = (&mut self.out, &self.progress);
        let result = progress.suspend(|| out.flush());
        self.check(result);
    }

    fn check(&mut self, result: io::Result<()>) {
        if let Err(e) = result {
            if output::is_broken_pipe(&e) && output::sigpipe_was_default() {
                // md5sum dies of SIGPIPE at this point (where it was not
                // inherited ignored; then it is a write error, as below);
                // leave no bar behind.
                self.progress.finish();
                output::exit_on_write_error(&e);
            }
            self.write_failed = true;
            self.write_closed = e.raw_os_error() == Some(rustix::io::Errno::BADF.raw_os_error());
        }
    }
}

/// The text of an I/O error as C's `strerror` says it, as md5sum prints it.
pub fn error_text(e: &io::Error) -> Vec<u8> {
    linerate_files::strerror(e).into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_text_is_strerror() {
        let e = io::Error::from_raw_os_error(2);
        assert_eq!(error_text(&e), b"No such file or directory");
        let e = io::Error::other("custom");
        assert_eq!(error_text(&e), b"custom");
    }
}
