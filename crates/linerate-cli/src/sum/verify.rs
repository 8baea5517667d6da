//! `--check`: reading checksum files and verifying the files they list,
//! with md5sum's reports, warnings and verdict.
//!
//! The machinery serves any family of functions through a [`Checker`]: the
//! line syntax ([`Dialect`]) and how a listed file is checked. `linerate
//! sum`'s is [`SumChecker`]; `linerate mac` has its own (`crate::mac`).

use std::ffi::OsStr;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::os::unix::ffi::OsStrExt;

use linerate::cksum::DigestAlgorithm;
use linerate_files::read::Reader;
use linerate_files::{FileError, Input, Progress};
use linerate_sumfile::check::{self, Dialect, Layout, LineOf};
use linerate_sumfile::cksum::SumFamily;
use linerate_sumfile::format;

use super::args::CheckOptions;
use super::console::{Console, error_text};

/// What `--check` needs to know of a family of functions.
pub trait Checker {
    /// The syntax of its checksum lines.
    type Dialect: Dialect;
    /// That syntax.
    fn dialect(&self) -> &Self::Dialect;
    /// The function named in "improperly formatted MD5 checksum line".
    fn label(&self) -> String;
    /// Whether `input` has the digest `line` expects, read through `reader`.
    fn matches(
        &mut self,
        input: Input<'_>,
        line: &LineOf<Self::Dialect>,
        reader: &mut Reader,
        progress: &dyn Progress,
    ) -> Result<bool, FileError>;
}

/// `linerate sum`'s checks: untagged lines with `-a`'s function, tagged
/// ones (MD5, MD5-P/K, and cksum's SHA, BLAKE2b and SM3 tags) with their
/// tag's.
pub struct SumChecker {
    dialect: SumFamily,
}

impl SumChecker {
    /// Untagged lines are `algorithm`'s.
    pub fn new(algorithm: DigestAlgorithm) -> SumChecker {
        SumChecker {
            dialect: SumFamily {
                untagged: algorithm,
            },
        }
    }
}

impl Checker for SumChecker {
    type Dialect = SumFamily;

    fn dialect(&self) -> &SumFamily {
        &self.dialect
    }

    fn label(&self) -> String {
        // md5sum's words for MD5; `-a`'s tag otherwise.
        self.dialect.untagged.tag()
    }

    fn matches(
        &mut self,
        input: Input<'_>,
        line: &LineOf<SumFamily>,
        reader: &mut Reader,
        progress: &dyn Progress,
    ) -> Result<bool, FileError> {
        Ok(digest_of(
            input,
            line.tag.unwrap_or(self.dialect.untagged),
            reader,
            progress,
        )? == line.digest)
    }
}

/// The digest of `input` with `algorithm`, read through `reader` (what
/// `sum -c` and `cksum -c` check lines against).
pub fn digest_of(
    input: Input<'_>,
    algorithm: DigestAlgorithm,
    reader: &mut Reader,
    progress: &dyn Progress,
) -> Result<Vec<u8>, FileError> {
    match algorithm {
        DigestAlgorithm::Hash(a) => Ok(reader.digest(input, a, progress)?.to_vec()),
        DigestAlgorithm::Cksum(a) => {
            let mut hasher = a.hasher();
            reader.absorb(input, progress, |data| hasher.update(data))?;
            Ok(match hasher.finalize() {
                linerate::cksum::CksumValue::Digest(d) => d,
                linerate::cksum::CksumValue::Sum { .. } => Vec::new(),
            })
        }
    }
}

/// Checks every checksum file in turn; true if all of them pass. Untagged
/// lines are checked with `algorithm`, tagged ones with their tag's.
pub fn run(
    console: &mut Console,
    files: &[std::ffi::OsString],
    options: CheckOptions,
    algorithm: DigestAlgorithm,
) -> bool {
    run_with(console, files, options, SumChecker::new(algorithm))
}

/// [`run`] for any family of functions.
pub fn run_with<C: Checker>(
    console: &mut Console,
    files: &[std::ffi::OsString],
    options: CheckOptions,
    checker: C,
) -> bool {
    let mut verifier = Verifier {
        console,
        options,
        checker,
        reader: Reader::default(),
        layout: Layout::default(),
    };
    let mut ok = true;
    for file in files {
        // Every file is checked, even after a failure.
        ok &= verifier.check_list(file);
    }
    ok
}

/// What one checksum file came to (`etag --check` keeps one too).
#[derive(Default)]
pub(crate) struct Tally {
    pub(crate) malformed: u64,
    pub(crate) unreadable: u64,
    pub(crate) mismatched: u64,
    pub(crate) well_formed: bool,
    pub(crate) matched: bool,
}

/// Opens the checksum list `list` (`-`: standard input), with the label its
/// messages use and whether it is standard input; `None` after reporting
/// why it cannot be opened.
pub(crate) fn open_list<'a>(
    console: &mut Console,
    list: &'a OsStr,
) -> Option<(Box<dyn BufRead>, &'a [u8], bool)> {
    if list.as_bytes() == b"-" {
        return Some((Box::new(linerate_files::stdin()), b"standard input", true));
    }
    match File::open(list) {
        Ok(file) => Some((
            Box::new(BufReader::with_capacity(64 * 1024, file)),
            list.as_bytes(),
            false,
        )),
        Err(e) => {
            console.error_about(list.as_bytes(), &error_text(&e));
            None
        }
    }
}

/// md5sum's summary warnings for one checksum list, and its verdict;
/// `kind` names the lines in the message for a list without any
/// (`checksum`, `ETag`).
pub(crate) fn conclude(
    console: &mut Console,
    options: CheckOptions,
    label: &[u8],
    tally: &Tally,
    kind: &str,
) -> bool {
    if !tally.well_formed {
        let message = format!("no properly formatted {kind} lines found");
        console.error_about(label, message.as_bytes());
    } else if !options.status {
        let warnings = [
            (
                tally.malformed,
                "line is improperly formatted",
                "lines are improperly formatted",
            ),
            (
                tally.unreadable,
                "listed file could not be read",
                "listed files could not be read",
            ),
            (
                tally.mismatched,
                "computed checksum did NOT match",
                "computed checksums did NOT match",
            ),
        ];
        for (count, one, many) in warnings {
            if count != 0 {
                let text = if count == 1 { one } else { many };
                console.error(format!("WARNING: {count} {text}").as_bytes());
            }
        }
        if options.ignore_missing && !tally.matched {
            console.error_about(label, b"no file was verified");
        }
    }
    tally.well_formed
        && tally.matched
        && tally.mismatched == 0
        && tally.unreadable == 0
        && (!options.strict || tally.malformed == 0)
}

struct Verifier<'a, C> {
    console: &'a mut Console,
    options: CheckOptions,
    checker: C,
    reader: Reader,
    /// md5sum decides between the GNU and reversed layouts once per run.
    layout: Layout,
}

impl<C: Checker> Verifier<'_, C> {
    /// Checks the checksum file `list` (`-`: standard input).
    fn check_list(&mut self, list: &OsStr) -> bool {
        let Some((reader, label, from_stdin)) = open_list(self.console, list) else {
            return false;
        };
        match self.check_lines(reader, label, from_stdin) {
            Some(tally) => conclude(self.console, self.options, label, &tally, "checksum"),
            None => {
                // md5sum reports a failed read of the list without the reason.
                self.console.error_about(label, b"read error");
                false
            }
        }
    }

    /// Verifies each line of `reader`; `None` if reading it failed.
    fn check_lines(
        &mut self,
        mut reader: Box<dyn BufRead + '_>,
        label: &[u8],
        from_stdin: bool,
    ) -> Option<Tally> {
        let mut tally = Tally::default();
        let mut raw = Vec::new();
        for line_number in 1u64.. {
            raw.clear();
            match reader.read_until(b'\n', &mut raw) {
                Ok(0) => break,
                Ok(_) => {}
                Err(_) => return None,
            }
            let Some(content) = check::line_content(&raw) else {
                continue;
            };
            // A list read from standard input cannot also name it.
            let parsed = check::parse_line(self.checker.dialect(), content, &mut self.layout)
                .filter(|line| !(from_stdin && line.name == b"-"));
            match parsed {
                Some(line) => {
                    tally.well_formed = true;
                    self.verify(&line, &mut tally);
                }
                None => {
                    tally.malformed += 1;
                    if self.options.warn {
                        let message = format!(
                            ": {line_number}: improperly formatted {} checksum line",
                            self.checker.label()
                        );
                        let mut full = self.console.quote(label);
                        full.extend_from_slice(message.as_bytes());
                        self.console.error(&full);
                    }
                }
            }
        }
        Some(tally)
    }

    /// Hashes the file of one line and reports the verdict.
    fn verify(&mut self, line: &LineOf<C::Dialect>, tally: &mut Tally) {
        let input = super::input(OsStr::from_bytes(&line.name));
        let progress = std::sync::Arc::clone(&self.console.progress);
        let verdict = match self
            .checker
            .matches(input, line, &mut self.reader, &*progress)
        {
            Ok(true) => {
                tally.matched = true;
                (!self.options.quiet).then_some("OK")
            }
            Ok(false) => {
                tally.mismatched += 1;
                Some("FAILED")
            }
            Err(e) if e.is_missing() && self.options.ignore_missing => None,
            Err(e) => {
                self.console
                    .error_about(&line.name, &error_text(e.io_error()));
                tally.unreadable += 1;
                Some("FAILED open or read")
            }
        };
        if let Some(verdict) = verdict.filter(|_| !self.options.status) {
            let mut report = Vec::with_capacity(line.name.len() + 24);
            format::push_check_report(&mut report, &line.name, verdict);
            self.console.print(&report);
        }
    }
}
