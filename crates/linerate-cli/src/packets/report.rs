//! Messages about one input capture: `linerate: IN: packet 5: MESSAGE` on
//! standard error (the name quoted as `linerate sum` quotes names), and the
//! summary line on standard output (quiet on a broken pipe).

use std::ffi::OsStr;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;

use linerate_sumfile::quote::{self, Charset};

/// Reports about the capture `name`.
pub struct Reporter {
    name: Vec<u8>,
    /// Whether per-packet problems are printed.
    pub verbose: bool,
}

impl Reporter {
    pub fn new(name: &OsStr, verbose: bool) -> Reporter {
        Reporter {
            name: quote::quote(name.as_bytes(), Charset::from_env()),
            verbose,
        }
    }

    /// `linerate: NAME: MESSAGE`.
    pub fn error(&self, message: &str) {
        let mut line = Vec::with_capacity(self.name.len() + message.len() + 16);
        line.extend_from_slice(crate::PROGRAM.as_bytes());
        line.extend_from_slice(b": ");
        line.extend_from_slice(&self.name);
        line.extend_from_slice(b": ");
        line.extend_from_slice(message.as_bytes());
        line.push(b'\n');
        // Nothing sensible is left to do if stderr itself fails.
        let _ = std::io::stderr().lock().write_all(&line);
    }

    /// `linerate: NAME: packet INDEX: MESSAGE`, if verbose.
    pub fn packet(&self, index: usize, message: &str) {
        if self.verbose {
            self.error(&format!("packet {index}: {message}"));
        }
    }

    /// The summary line on standard output.
    pub fn summary(&self, line: &str) {
        crate::output::print_or_quiet(format!("{line}\n").as_bytes());
    }
}
