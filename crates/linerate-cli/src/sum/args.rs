//! md5sum's options, their interplay and their usage errors.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use super::getopt::{Getopt, LongOption};
use linerate::HashAlgorithm;
use linerate::cksum::{CksumAlgorithm, DigestAlgorithm};
use linerate::gpu::Device;
use linerate_files::tree::{Exclude, WalkOptions};
use linerate_sumfile::format::LineStyle;
use linerate_sumfile::quote::{self, Charset};

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
    pub algorithm: DigestAlgorithm,
    /// `--also`: more digests of each file, from the same read, printed as
    /// tagged lines after the main one.
    pub also: Vec<CksumAlgorithm>,
    /// `-j`: threads hashing files; `None` for one per available core.
    pub threads: Option<usize>,
    /// `--device` (else `LINERATE_DEVICE`, else cpu): where MD5 of regular
    /// files runs.
    pub device: Device,
    /// `-r`: directories among the operands are walked for their files.
    pub recursive: bool,
    /// `--follow` and `--exclude`, for `-r`'s walk.
    pub walk: WalkOptions,
    /// `--files-from FILE`: the operands are read from FILE (`-`: stdin).
    pub files_from: Option<OsString>,
    /// `-0`: `--files-from`'s names end with NUL, not newline.
    pub null: bool,
    /// The operands on the command line: empty with `--files-from`, else
    /// never empty (`-` stands for standard input).
    pub files: Vec<OsString>,
}

impl Options {
    /// The number of threads to hash files on: `-j`'s, else one per core.
    pub fn thread_count(&self) -> usize {
        self.threads.unwrap_or_else(default_threads)
    }
}

/// Threads when `-j` is not given: one per available core.
pub(crate) fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
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

/// md5sum's options (and linerate's `-a`, `-j`, `-r`, ...); `linerate mac`
/// shares md5sum's through [`SHORT`], [`LONG`] and [`Given`].
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
    /// `--also ALGO`: another digest of each file, in the same pass.
    Also,
    /// `-j N` (takes an argument).
    Threads,
    /// `-r`.
    Recursive,
    /// `--follow`.
    Follow,
    /// `--exclude GLOB` (takes an argument; repeatable).
    Exclude,
    /// `--files-from FILE` (takes an argument).
    FilesFrom,
    /// `-0`.
    Null,
    /// `--device cpu|cuda|auto` (takes an argument).
    Device,
}

/// linerate's own options, which take an argument.
const SHORT_WITH_ARGUMENT: &[(u8, Flag)] = &[(b'a', Flag::Algorithm), (b'j', Flag::Threads)];

/// linerate's own short options without an argument.
const SHORT_OWN: &[(u8, Flag)] = &[(b'r', Flag::Recursive), (b'0', Flag::Null)];

/// Their long forms, and `--follow`: matched only in full.
const LONG_OWN: &[LongOption<Flag>] = &[
    LongOption {
        name: "recursive",
        value: Flag::Recursive,
    },
    LongOption {
        name: "follow",
        value: Flag::Follow,
    },
    LongOption {
        name: "null",
        value: Flag::Null,
    },
];

/// Their long forms, matched only in full (see [`super::getopt`]).
const LONG_WITH_ARGUMENT: &[LongOption<Flag>] = &[
    LongOption {
        name: "algorithm",
        value: Flag::Algorithm,
    },
    LongOption {
        name: "also",
        value: Flag::Also,
    },
    LongOption {
        name: "threads",
        value: Flag::Threads,
    },
    LongOption {
        name: "exclude",
        value: Flag::Exclude,
    },
    LongOption {
        name: "files-from",
        value: Flag::FilesFrom,
    },
    LongOption {
        name: "device",
        value: Flag::Device,
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
    algorithm: DigestAlgorithm,
    also: Vec<CksumAlgorithm>,
    threads: Option<usize>,
    device: Option<Device>,
    tree: TreeGiven,
}

/// linerate's options for trees and file lists, as given.
#[derive(Default)]
struct TreeGiven {
    recursive: bool,
    follow: bool,
    exclude: Vec<OsString>,
    files_from: Option<OsString>,
    null: bool,
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
            Flag::Recursive => self.tree.recursive = true,
            Flag::Follow => self.tree.follow = true,
            Flag::Null => self.tree.null = true,
            Flag::Help
            | Flag::Version
            | Flag::Algorithm
            | Flag::Also
            | Flag::Threads
            | Flag::Exclude
            | Flag::Device
            | Flag::FilesFrom => {}
        }
    }

    /// An option's argument; a bad one is a usage error at once, as a
    /// getopt loop reports it.
    fn apply_argument(&mut self, flag: Flag, argument: OsString) -> Result<(), String> {
        match flag {
            Flag::Algorithm => {
                self.algorithm = DigestAlgorithm::from_name(argument.as_bytes()).map_err(|e| e.0)?
            }
            Flag::Also => {
                let algorithm = match DigestAlgorithm::from_name(argument.as_bytes()) {
                    Ok(DigestAlgorithm::Cksum(a)) => a,
                    Ok(DigestAlgorithm::Hash(HashAlgorithm::Md5)) => CksumAlgorithm::Md5,
                    _ => {
                        return Err(format!(
                            "invalid algorithm '{}' for --also: give md5, sha1, sha224, \
                             sha256, sha384, sha512, blake2b or sm3",
                            String::from_utf8_lossy(argument.as_bytes())
                        ));
                    }
                };
                if !self.also.contains(&algorithm) {
                    self.also.push(algorithm);
                }
            }
            Flag::Threads => self.threads = Some(parse_threads(argument.as_bytes())?),
            Flag::Exclude => {
                // Compiled here only to report a bad pattern when met.
                exclude(std::slice::from_ref(&argument))?;
                self.tree.exclude.push(argument);
            }
            Flag::FilesFrom => self.tree.files_from = Some(argument),
            Flag::Device => {
                let name = String::from_utf8_lossy(argument.as_bytes());
                self.device = Some(Device::from_name(&name).map_err(|e| e.to_string())?);
            }
            _ => {}
        }
        Ok(())
    }

    /// md5sum's checks, in md5sum's order: the first failing one is reported.
    pub(crate) fn validate(&self) -> Result<(), &'static str> {
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
        ];
        first_failed(&checks)?;
        check_only_options(&self.check_options, self.check)
    }

    /// The checks of linerate's tree options, after md5sum's.
    fn validate_tree(&self) -> Result<(), &'static str> {
        let t = &self.tree;
        let checks = [
            (
                t.recursive && self.check,
                "the --recursive option is meaningless when verifying checksums",
            ),
            (
                t.follow && !t.recursive,
                "the --follow option is meaningful only with --recursive",
            ),
            (
                !t.exclude.is_empty() && !t.recursive,
                "the --exclude option is meaningful only with --recursive",
            ),
            (
                t.null && t.files_from.is_none(),
                "the --null option is meaningful only with --files-from",
            ),
            (
                !self.also.is_empty() && self.check,
                "the --also option is meaningless when verifying checksums (tagged lines of every digest are checked)",
            ),
        ];
        first_failed(&checks)
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

/// The message of the first check that failed.
/// md5sum's (and cksum's) errors for the five options that only `--check`
/// uses, in their order.
pub(crate) fn check_only_options(o: &CheckOptions, check: bool) -> Result<(), &'static str> {
    first_failed(&[
        (
            o.ignore_missing && !check,
            "the --ignore-missing option is meaningful only when verifying checksums",
        ),
        (
            o.status && !check,
            "the --status option is meaningful only when verifying checksums",
        ),
        (
            o.warn && !check,
            "the --warn option is meaningful only when verifying checksums",
        ),
        (
            o.quiet && !check,
            "the --quiet option is meaningful only when verifying checksums",
        ),
        (
            o.strict && !check,
            "the --strict option is meaningful only when verifying checksums",
        ),
    ])
}

fn first_failed(checks: &[(bool, &'static str)]) -> Result<(), &'static str> {
    match checks.iter().find(|(failed, _)| *failed) {
        Some((_, message)) => Err(message),
        None => Ok(()),
    }
}

/// Parses `linerate sum`'s arguments. `--help` and `--version` act as soon
/// as they are met, as in md5sum, so an error after them goes unnoticed.
pub fn parse(args: &[OsString], posixly_correct: bool) -> Result<Command, UsageError> {
    let mut given = Given::default();
    let short: Vec<(u8, Flag)> = SHORT.iter().chain(SHORT_OWN).copied().collect();
    let mut getopt = Getopt::new(args, &short, LONG, posixly_correct)
        .with_arguments(SHORT_WITH_ARGUMENT, LONG_WITH_ARGUMENT)
        .with_exact_flags(LONG_OWN);
    for found in getopt.by_ref() {
        let found = found.map_err(|e| UsageError(e.message()))?;
        match (found.value, found.argument) {
            (Flag::Help, _) => return Ok(Command::Help),
            (Flag::Version, _) => return Ok(Command::Version),
            (flag, Some(argument)) => given
                .apply_argument(flag, argument)
                .map_err(|m| UsageError(m.into_bytes()))?,
            (flag, None) => given.apply(flag),
        }
    }
    let message = |m: &str| UsageError(m.as_bytes().to_vec());
    given.validate().map_err(message)?;
    given.validate_tree().map_err(message)?;
    let mut files = getopt.into_operands();
    if let (Some(_), Some(extra)) = (&given.tree.files_from, files.first()) {
        let mut m = b"extra operand ".to_vec();
        let quoted = quote::quote(extra.as_bytes(), Charset::from_env());
        if quoted == extra.as_bytes() {
            // A name md5sum would print bare is quoted here, as du does.
            m.push(b'\'');
            m.extend_from_slice(&quoted);
            m.push(b'\'');
        } else {
            m.extend_from_slice(&quoted);
        }
        m.extend_from_slice(b": file operands cannot be combined with --files-from");
        return Err(UsageError(m));
    }
    if files.is_empty() && given.tree.files_from.is_none() {
        files.push(OsString::from("-"));
    }
    let tree = std::mem::take(&mut given.tree);
    let exclude = exclude(&tree.exclude).map_err(|m| UsageError(m.into_bytes()))?;
    Ok(Command::Run(Options {
        check: given.check,
        style: given.style(),
        check_options: given.check_options,
        algorithm: given.algorithm,
        also: given.also.clone(),
        threads: given.threads,
        device: match given.device {
            Some(d) => d,
            None => Device::from_env()
                .map_err(|e| {
                    UsageError(format!("{}: {e}", linerate::gpu::DEVICE_ENV).into_bytes())
                })?
                .unwrap_or(Device::Cpu),
        },
        recursive: tree.recursive,
        walk: WalkOptions {
            follow: tree.follow,
            exclude,
        },
        files_from: tree.files_from,
        null: tree.null,
        files,
    }))
}

/// `-j`'s argument: 1 to [`MAX_THREADS`] (`audit` and `etag` share it).
/// `--exclude`'s patterns compiled; the error is the one-line message.
pub(crate) fn exclude(patterns: &[OsString]) -> Result<Exclude, String> {
    Exclude::new(patterns)
        .map_err(|e| format!("invalid --exclude pattern '{}': {}", e.pattern, e.problem))
}

pub(crate) fn parse_threads(argument: &[u8]) -> Result<usize, String> {
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
        assert_eq!(
            options.algorithm,
            DigestAlgorithm::Hash(HashAlgorithm::Md5p(16))
        );
        assert_eq!(options.threads, Some(2));
        let Ok(Command::Run(options)) =
            parse_strs(&["--algorithm=md5p4", "--threads", "7", "-c", "f"])
        else {
            panic!("no run")
        };
        assert_eq!(
            options.algorithm,
            DigestAlgorithm::Hash(HashAlgorithm::Md5p(4))
        );
        assert_eq!(options.threads, Some(7));
        assert!(options.check);
        let Ok(Command::Run(options)) = parse_strs(&["f"]) else {
            panic!("no run")
        };
        assert_eq!(
            (options.algorithm, options.threads),
            (DigestAlgorithm::Hash(HashAlgorithm::Md5), None)
        );
        assert!(error(&["-a", "md5p6", "f"]).starts_with("invalid algorithm 'md5p6'"));
        assert!(error(&["-a", "sha3"]).starts_with("invalid algorithm 'sha3'"));
        assert!(error(&["-a", "crc"]).starts_with("invalid algorithm 'crc'"));
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

    #[test]
    fn tree_options() {
        let run = |args: &[&str]| match parse_strs(args) {
            Ok(Command::Run(options)) => options,
            other => panic!("no run: {other:?}"),
        };
        let options = run(&[
            "-r",
            "--follow",
            "--exclude",
            "*.tmp",
            "--exclude=b/**",
            "d",
        ]);
        assert!(options.recursive && options.walk.follow);
        let patterns: Vec<OsString> = ["*.tmp", "b/**"].iter().map(OsString::from).collect();
        assert_eq!(options.walk.exclude, Exclude::new(&patterns).unwrap());
        assert_eq!(options.files, vec![OsString::from("d")]);
        let options = run(&["--files-from", "list", "-0r"]);
        assert_eq!(options.files_from, Some(OsString::from("list")));
        assert!(options.null && options.recursive && options.files.is_empty());
        let options = run(&["--null", "--files-from=-", "-c"]);
        assert!(options.check && options.null);
        let rejected: [(&[&str], &str); 6] = [
            (
                &["-r", "-c"],
                "the --recursive option is meaningless when verifying checksums",
            ),
            // md5sum's own checks come first.
            (
                &["-r", "-c", "--tag"],
                "the --tag option is meaningless when verifying checksums",
            ),
            (
                &["--follow"],
                "the --follow option is meaningful only with --recursive",
            ),
            (
                &["-0", "f"],
                "the --null option is meaningful only with --files-from",
            ),
            (
                &["--files-from", "l", "f"],
                "extra operand 'f': file operands cannot be combined with --files-from",
            ),
            (&["--recursiv"], "unrecognized option '--recursiv'"),
        ];
        for (args, message) in rejected {
            assert_eq!(error(args), message, "{args:?}");
        }
        assert!(
            error(&["-r", "--exclude", "[", "--help"]).starts_with("invalid --exclude pattern '['")
        );
    }
}
