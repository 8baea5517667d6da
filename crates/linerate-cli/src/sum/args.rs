//! md5sum's options, their interplay and their usage errors.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use super::format::LineStyle;
use super::getopt::{Getopt, LongOption};
use crate::algorithm::Algorithm;

/// The most threads `-j` accepts.
pub const MAX_THREADS: usize = 1024;

/// What `--check` does besides checking.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckOptions {
    /// `--quiet`: no `OK` lines.
    pub quiet: bool,
    /// `--status`: no output at all, only the exit status.
    pub status: bool,
    /// `-w`: a warning for each malformed line.
    pub warn: bool,
    /// `--strict`: malformed lines make the run fail.
    pub strict: bool,
    /// `--ignore-missing`: listed files that do not exist are skipped.
    pub ignore_missing: bool,
}

/// A valid command line.
#[derive(Debug, PartialEq, Eq)]
pub struct Options {
    /// `-c`: the operands are checksum files to verify.
    pub check: bool,
    pub style: LineStyle,
    pub check_options: CheckOptions,
    /// `-a`: the function computed, and checked on untagged lines.
    pub algorithm: Algorithm,
    /// `-j`: threads hashing files; `None` for one per available core.
    pub threads: Option<usize>,
    /// The operands; never empty (`-` stands for standard input).
    pub files: Vec<OsString>,
}

impl Options {
    /// The number of threads to hash files on: `-j`'s, else one per core.
    pub fn thread_count(&self) -> usize {
        self.threads.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        })
    }
}

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum Command {
    Run(Options),
    Help,
    Version,
}

/// A usage error: the message, without program name or the hint to `--help`.
#[derive(Debug, PartialEq, Eq)]
pub struct UsageError(pub Vec<u8>);

/// md5sum's options (and linerate's `-a`, `-j`); `linerate mac` shares
/// md5sum's through [`SHORT`], [`LONG`] and [`Given`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flag {
    Binary,
    Check,
    IgnoreMissing,
    Quiet,
    Status,
    Text,
    Warn,
    Strict,
    Tag,
    Zero,
    Help,
    Version,
    /// `-a ALGO` (takes an argument).
    Algorithm,
    /// `-j N` (takes an argument).
    Threads,
}

/// linerate's own options, which take an argument.
const SHORT_WITH_ARGUMENT: &[(u8, Flag)] = &[(b'a', Flag::Algorithm), (b'j', Flag::Threads)];

/// Their long forms, matched only in full (see [`super::getopt`]).
const LONG_WITH_ARGUMENT: &[LongOption<Flag>] = &[
    LongOption {
        name: "algorithm",
        value: Flag::Algorithm,
    },
    LongOption {
        name: "threads",
        value: Flag::Threads,
    },
];

/// md5sum's short options.
pub(crate) const SHORT: &[(u8, Flag)] = &[
    (b'b', Flag::Binary),
    (b'c', Flag::Check),
    (b't', Flag::Text),
    (b'w', Flag::Warn),
    (b'z', Flag::Zero),
];

/// md5sum 9.1's table, in its order: glibc lists ambiguous matches in it.
pub(crate) const LONG: &[LongOption<Flag>] = &[
    LongOption {
        name: "check",
        value: Flag::Check,
    },
    LongOption {
        name: "ignore-missing",
        value: Flag::IgnoreMissing,
    },
    LongOption {
        name: "quiet",
        value: Flag::Quiet,
    },
    LongOption {
        name: "status",
        value: Flag::Status,
    },
    LongOption {
        name: "warn",
        value: Flag::Warn,
    },
    LongOption {
        name: "strict",
        value: Flag::Strict,
    },
    LongOption {
        name: "tag",
        value: Flag::Tag,
    },
    LongOption {
        name: "zero",
        value: Flag::Zero,
    },
    LongOption {
        name: "binary",
        value: Flag::Binary,
    },
    LongOption {
        name: "text",
        value: Flag::Text,
    },
    LongOption {
        name: "help",
        value: Flag::Help,
    },
    LongOption {
        name: "version",
        value: Flag::Version,
    },
];

/// The options as given, before md5sum's consistency checks.
#[derive(Default)]
pub(crate) struct Given {
    pub(crate) check: bool,
    /// `Some(true)` for -b or --tag, `Some(false)` for -t, whichever came last.
    binary: Option<bool>,
    tag: bool,
    zero: bool,
    pub(crate) check_options: CheckOptions,
    algorithm: Algorithm,
    threads: Option<usize>,
}

impl Given {
    pub(crate) fn apply(&mut self, flag: Flag) {
        let o = &mut self.check_options;
        match flag {
            Flag::Binary => self.binary = Some(true),
            Flag::Text => self.binary = Some(false),
            Flag::Check => self.check = true,
            Flag::Tag => {
                self.tag = true;
                self.binary = Some(true);
            }
            Flag::Zero => self.zero = true,
            Flag::IgnoreMissing => o.ignore_missing = true,
            Flag::Strict => o.strict = true,
            // --status, --warn and --quiet cancel one another: the last wins.
            Flag::Status => (o.status, o.warn, o.quiet) = (true, false, false),
            Flag::Warn => (o.status, o.warn, o.quiet) = (false, true, false),
            Flag::Quiet => (o.status, o.warn, o.quiet) = (false, false, true),
            Flag::Help | Flag::Version | Flag::Algorithm | Flag::Threads => {}
        }
    }

    /// An option's argument; a bad one is a usage error at once, as a
    /// getopt loop reports it.
    fn apply_argument(&mut self, flag: Flag, argument: &[u8]) -> Result<(), String> {
        match flag {
            Flag::Algorithm => self.algorithm = Algorithm::from_name(argument)?,
            Flag::Threads => self.threads = Some(parse_threads(argument)?),
            _ => {}
        }
        Ok(())
    }

    /// md5sum's checks, in md5sum's order: the first failing one is reported.
    pub(crate) fn validate(&self) -> Result<(), &'static str> {
        let o = &self.check_options;
        let checks = [
            (
                self.tag && self.binary == Some(false),
                "--tag does not support --text mode",
            ),
            (
                self.zero && self.check,
                "the --zero option is not supported when verifying checksums",
            ),
            (
                self.tag && self.check,
                "the --tag option is meaningless when verifying checksums",
            ),
            (
                self.binary.is_some() && self.check,
                "the --binary and --text options are meaningless when verifying checksums",
            ),
            (
                o.ignore_missing && !self.check,
                "the --ignore-missing option is meaningful only when verifying checksums",
            ),
            (
                o.status && !self.check,
                "the --status option is meaningful only when verifying checksums",
            ),
            (
                o.warn && !self.check,
                "the --warn option is meaningful only when verifying checksums",
            ),
            (
                o.quiet && !self.check,
                "the --quiet option is meaningful only when verifying checksums",
            ),
            (
                o.strict && !self.check,
                "the --strict option is meaningful only when verifying checksums",
            ),
        ];
        match checks.iter().find(|(failed, _)| *failed) {
            Some((_, message)) => Err(message),
            None => Ok(()),
        }
    }

    /// How computed lines are laid out.
    pub(crate) fn style(&self) -> LineStyle {
        LineStyle {
            tagged: self.tag,
            binary: self.binary.unwrap_or(false),
            zero: self.zero,
        }
    }
}

/// Parses `linerate sum`'s arguments. `--help` and `--version` act as soon
/// as they are met, as in md5sum, so an error after them goes unnoticed.
pub fn parse(args: &[OsString], posixly_correct: bool) -> Result<Command, UsageError> {
    let mut given = Given::default();
    let mut getopt = Getopt::new(args, SHORT, LONG, posixly_correct)
        .with_arguments(SHORT_WITH_ARGUMENT, LONG_WITH_ARGUMENT);
    for found in getopt.by_ref() {
        let found = found.map_err(|e| UsageError(e.message()))?;
        match (found.value, found.argument) {
            (Flag::Help, _) => return Ok(Command::Help),
            (Flag::Version, _) => return Ok(Command::Version),
            (flag, Some(argument)) => given
                .apply_argument(flag, argument.as_bytes())
                .map_err(|m| UsageError(m.into_bytes()))?,
            (flag, None) => given.apply(flag),
        }
    }
    given
        .validate()
        .map_err(|m| UsageError(m.as_bytes().to_vec()))?;
    let mut files = getopt.into_operands();
    if files.is_empty() {
        files.push(OsString::from("-"));
    }
    Ok(Command::Run(Options {
        check: given.check,
        style: given.style(),
        check_options: given.check_options,
        algorithm: given.algorithm,
        threads: given.threads,
        files,
    }))
}

/// `-j`'s argument: 1 to [`MAX_THREADS`].
fn parse_threads(argument: &[u8]) -> Result<usize, String> {
    std::str::from_utf8(argument)
        .ok()
        .filter(|text| !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|text| text.parse::<usize>().ok())
        .filter(|n| (1..=MAX_THREADS).contains(n))
        .ok_or_else(|| {
            format!(
                "invalid number of threads '{}': give 1 to {MAX_THREADS}",
                String::from_utf8_lossy(argument)
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_strs(args: &[&str]) -> Result<Command, UsageError> {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        parse(&args, false)
    }

    fn error(args: &[&str]) -> String {
        match parse_strs(args) {
            Err(UsageError(m)) => String::from_utf8_lossy(&m).into_owned(),
            other => panic!("expected an error, got {other:?}"),
        }
    }

    #[test]
    fn defaults_to_standard_input_in_text_mode() {
        let Ok(Command::Run(options)) = parse_strs(&[]) else {
            panic!("no run")
        };
        assert_eq!(options.files, vec![OsString::from("-")]);
        assert_eq!(options.style, LineStyle::default());
        assert!(!options.check);
    }

    #[test]
    fn tag_implies_binary_and_text_after_tag_is_an_error() {
        let Ok(Command::Run(options)) = parse_strs(&["-t", "--tag", "f"]) else {
            panic!("no run")
        };
        assert!(options.style.tagged && options.style.binary);
        assert_eq!(
            error(&["--tag", "-t"]),
            "--tag does not support --text mode"
        );
    }

    #[test]
    fn consistency_errors_come_in_md5sums_order() {
        assert_eq!(
            error(&["--tag", "-t", "-c"]),
            "--tag does not support --text mode"
        );
        assert_eq!(
            error(&["-c", "-z", "--tag"]),
            "the --zero option is not supported when verifying checksums"
        );
        assert_eq!(
            error(&["-bc"]),
            "the --binary and --text options are meaningless when verifying checksums"
        );
        assert_eq!(
            error(&["--strict", "--quiet"]),
            "the --quiet option is meaningful only when verifying checksums"
        );
    }

    #[test]
    fn last_of_status_warn_quiet_wins() {
        let Ok(Command::Run(options)) = parse_strs(&["-c", "--status", "-w"]) else {
            panic!("no run")
        };
        assert_eq!(
            options.check_options,
            CheckOptions {
                warn: true,
                ..CheckOptions::default()
            }
        );
    }

    #[test]
    fn algorithm_and_threads() {
        let Ok(Command::Run(options)) = parse_strs(&["-a", "md5p16", "-j2", "f"]) else {
            panic!("no run")
        };
        assert_eq!(options.algorithm, Algorithm::Md5p(16));
        assert_eq!(options.threads, Some(2));
        let Ok(Command::Run(options)) =
            parse_strs(&["--algorithm=md5p4", "--threads", "7", "-c", "f"])
        else {
            panic!("no run")
        };
        assert_eq!(options.algorithm, Algorithm::Md5p(4));
        assert_eq!(options.threads, Some(7));
        assert!(options.check);
        let Ok(Command::Run(options)) = parse_strs(&["f"]) else {
            panic!("no run")
        };
        assert_eq!((options.algorithm, options.threads), (Algorithm::Md5, None));
        assert!(error(&["-a", "md5p6", "f"]).starts_with("invalid algorithm 'md5p6'"));
        assert!(error(&["-a", "sha1"]).starts_with("invalid algorithm 'sha1'"));
        assert!(error(&["-j", "0"]).starts_with("invalid number of threads '0'"));
        assert!(error(&["-j", "x"]).starts_with("invalid number of threads 'x'"));
        assert_eq!(error(&["f", "-a"]), "option requires an argument -- 'a'");
        assert_eq!(
            error(&["--threads"]),
            "option '--threads' requires an argument"
        );
        // A bad argument is reported when met, as getopt loops do.
        assert!(error(&["-a", "x", "--help"]).starts_with("invalid algorithm"));
    }

    #[test]
    fn help_acts_before_later_errors() {
        assert_eq!(parse_strs(&["--he", "-x"]), Ok(Command::Help));
        assert_eq!(error(&["-x", "--help"]), "invalid option -- 'x'");
        assert_eq!(
            parse_strs(&["--tag", "-t", "--version"]),
            Ok(Command::Version)
        );
    }
}
