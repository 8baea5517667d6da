//! `linerate etag --check LIST...`: each `ETAG  NAME` line of the lists is
//! verified by searching a part size that gives ETAG for NAME, as
//! `--match` does, and reported md5sum's way: `NAME: OK (part size 8 MiB)`,
//! `NAME: FAILED`, `NAME: FAILED open or read`, then md5sum's summary
//! warnings. `--quiet`, `--status`, `--strict`, `--warn` and
//! `--ignore-missing` mean what they mean to md5sum.

use std::ffi::{OsStr, OsString};
use std::io::{self, BufRead};
use std::os::unix::ffi::OsStrExt;

use crate::sum::args::CheckOptions;
use crate::sum::console::{Console, error_text};
use crate::sum::input;
use crate::sum::verify::{Tally, conclude, open_list};
use linerate_files::FileError;
use linerate_files::s3::search::{Search, Verdict, open_for_search};
use linerate_sumfile::check::line_content;
use linerate_sumfile::etag::{Line, parse_line};
use linerate_sumfile::format::push_check_report;

/// Checks every list in turn; true if all of them pass.
pub fn run(
    console: &mut Console,
    lists: &[OsString],
    options: CheckOptions,
    threads: usize,
    max_work: Option<u64>,
) -> bool {
    let mut checker = Checker {
        console,
        options,
        threads,
        max_work,
    };
    let mut ok = true;
    for list in lists {
        ok &= checker.check_list(list);
    }
    ok
}

struct Checker<'a> {
    console: &'a mut Console,
    options: CheckOptions,
    threads: usize,
    max_work: Option<u64>,
}

impl Checker<'_> {
    /// Checks the list `list` (`-`: standard input).
    fn check_list(&mut self, list: &OsStr) -> bool {
        let Some((reader, label, from_stdin)) = open_list(self.console, list) else {
            return false;
        };
        match self.check_lines(reader, label, from_stdin) {
            Ok(tally) => conclude(self.console, self.options, label, &tally, "ETag"),
            Err(e) => {
                self.console.error_about(label, &error_text(&e));
                false
            }
        }
    }

    fn check_lines(
        &mut self,
        mut reader: Box<dyn BufRead + '_>,
        label: &[u8],
        from_stdin: bool,
    ) -> io::Result<Tally> {
        let mut tally = Tally::default();
        let mut raw = Vec::new();
        for line_number in 1u64.. {
            raw.clear();
            if reader.read_until(b'\n', &mut raw)? == 0 {
                break;
            }
            let Some(content) = line_content(&raw) else {
                continue;
            };
            // A list read from standard input cannot also name it.
            match parse_line(content).filter(|line| !(from_stdin && line.name == b"-")) {
                Some(line) => {
                    tally.well_formed = true;
                    self.verify(&line, &mut tally);
                }
                None => {
                    tally.malformed += 1;
                    if self.options.warn {
                        let mut message = self.console.quote(label);
                        message.extend_from_slice(
                            format!(": {line_number}: improperly formatted ETag line").as_bytes(),
                        );
                        self.console.error(&message);
                    }
                }
            }
        }
        Ok(tally)
    }

    /// Searches the part size of one line's file and reports the verdict.
    fn verify(&mut self, line: &Line, tally: &mut Tally) {
        let name = OsStr::from_bytes(&line.name);
        let progress = std::sync::Arc::clone(&self.console.progress);
        let searched = open_for_search(input(name))
            .map_err(FileError::Open)
            .and_then(|(file, len)| {
                let mut search = Search {
                    progress: &*progress,
                    input: input(name),
                    file,
                    len,
                    threads: self.threads,
                    max_work: self.max_work,
                };
                Ok((search.run(&line.etag)?, len))
            });
        let mut explanation = None;
        let verdict = match searched {
            Ok((Verdict::Found(found), _)) => {
                tally.matched = true;
                (!self.options.quiet).then(|| format!("OK ({})", found.short()))
            }
            Ok((verdict, len)) => {
                tally.mismatched += 1;
                explanation = verdict.explanation(len, line.etag.parts);
                Some("FAILED".to_string())
            }
            Err(e)
                if e.io_error().kind() == io::ErrorKind::NotFound
                    && self.options.ignore_missing =>
            {
                None
            }
            Err(e) => {
                self.console
                    .error_about(&line.name, &error_text(e.io_error()));
                tally.unreadable += 1;
                Some("FAILED open or read".to_string())
            }
        };
        if let Some(verdict) = verdict.filter(|_| !self.options.status) {
            let mut report = Vec::new();
            push_check_report(&mut report, &line.name, &verdict);
            self.console.print(&report);
        }
        if let Some(why) = explanation.filter(|_| !self.options.status) {
            self.console.error_about(&line.name, why.as_bytes());
        }
    }
}
