//! md5sum's options, their interplay and their usage errors.

use std::ffi::OsString;

use super::format::LineStyle;
use super::getopt::{Getopt, LongOption};

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
    /// The operands; never empty (`-` stands for standard input).
    pub files: Vec<OsString>,
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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flag {
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
}

const SHORT: &[(u8, Flag)] = &[
    (b'b', Flag::Binary),
    (b'c', Flag::Check),
    (b't', Flag::Text),
    (b'w', Flag::Warn),
    (b'z', Flag::Zero),
];

/// md5sum 9.1's table, in its order: glibc lists ambiguous matches in it.
const LONG: &[LongOption<Flag>] = &[
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
struct Given {
    check: bool,
    /// `Some(true)` for -b or --tag, `Some(false)` for -t, whichever came last.
    binary: Option<bool>,
    tag: bool,
    zero: bool,
    check_options: CheckOptions,
}

impl Given {
    fn apply(&mut self, flag: Flag) {
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
            Flag::Help | Flag::Version => {}
        }
    }

    /// md5sum's checks, in md5sum's order: the first failing one is reported.
    fn validate(&self) -> Result<(), &'static str> {
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
}

/// Parses `linerate sum`'s arguments. `--help` and `--version` act as soon
/// as they are met, as in md5sum, so an error after them goes unnoticed.
pub fn parse(args: &[OsString], posixly_correct: bool) -> Result<Command, UsageError> {
    let mut given = Given::default();
    let mut getopt = Getopt::new(args, SHORT, LONG, posixly_correct);
    for flag in getopt.by_ref() {
        match flag.map_err(|e| UsageError(e.message()))? {
            Flag::Help => return Ok(Command::Help),
            Flag::Version => return Ok(Command::Version),
            flag => given.apply(flag),
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
        style: LineStyle {
            tagged: given.tag,
            binary: given.binary.unwrap_or(false),
            zero: given.zero,
        },
        check_options: given.check_options,
        files,
    }))
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
    fn help_acts_before_later_errors() {
        assert_eq!(parse_strs(&["--he", "-x"]), Ok(Command::Help));
        assert_eq!(error(&["-x", "--help"]), "invalid option -- 'x'");
        assert_eq!(
            parse_strs(&["--tag", "-t", "--version"]),
            Ok(Command::Version)
        );
    }
}
