//! `linerate etag`'s command line, parsed with `linerate sum`'s getopt
//! ([`crate::sum::getopt`]): bundled short options, long options (the flags
//! abbreviable, those with an argument spelled out in full), `--`, and
//! operands anywhere unless `POSIXLY_CORRECT` is set.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use crate::sum::args::{CheckOptions, parse_threads};
use crate::sum::getopt::{Getopt, LongOption};
use linerate::gpu::Device;
use linerate_files::s3::checksums::Request;
use linerate_files::s3::layout::Policy;
use linerate_files::s3::size::parse_size;
use linerate_sumfile::etag::Etag;
use linerate_sumfile::s3::{ChecksumType, S3Algorithm, S3Value};

use super::verify::VerifyOptions;

/// What to do with the operands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Print each file's ETag.
    Compute,
    /// Find the part size that gives this ETag for each file.
    Match(Etag),
    /// Find the part size that gives this value of another of S3's
    /// checksums (`--match VALUE --checksum ALG`).
    MatchChecksum(S3Value),
    /// The operands are lists of `ETAG  NAME` lines to verify.
    Check,
    /// The files under the operand (or `.`) against this listing.
    Verify(OsString),
}

/// A valid command line.
#[derive(Debug, PartialEq, Eq)]
pub struct Options {
    pub mode: Mode,
    pub policy: Policy,
    pub check_options: CheckOptions,
    /// `-j`: worker threads; `None` for one per core.
    pub threads: Option<usize>,
    /// `--device` (else `LINERATE_DEVICE`, else cpu): where the parts'
    /// MD5 runs.
    pub device: Device,
    /// `--max-work`: the most bytes one search may hash in its exhaustive
    /// phase; `None` for the default.
    pub max_work: Option<u64>,
    /// `--verify`'s options.
    pub verify: VerifyOptions,
    /// `--checksum` (and `--checksum-type`): S3's checksums to print as
    /// tagged lines; `None` for the classic `ETAG  NAME` lines.
    pub checksums: Option<Request>,
    /// The operands; never empty (`-` stands for standard input).
    pub files: Vec<OsString>,
}

impl Options {
    /// `-j`'s threads, else one per core.
    pub fn thread_count(&self) -> usize {
        self.threads
            .unwrap_or_else(crate::sum::args::default_threads)
    }
}

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum Command {
    Run(Box<Options>),
    Help,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flag {
    Check,
    Warn,
    Quiet,
    Status,
    Strict,
    IgnoreMissing,
    Single,
    Help,
    PartSize,
    Threshold,
    Match,
    Threads,
    Device,
    MaxWork,
    Checksum,
    ChecksumType,
    Verify,
    Prefix,
    InventorySchema,
    Verbose,
}

const SHORT: &[(u8, Flag)] = &[
    (b'c', Flag::Check),
    (b'w', Flag::Warn),
    (b'v', Flag::Verbose),
];

const fn long(name: &'static str, value: Flag) -> LongOption<Flag> {
    LongOption { name, value }
}

const LONG: &[LongOption<Flag>] = &[
    long("check", Flag::Check),
    long("warn", Flag::Warn),
    long("quiet", Flag::Quiet),
    long("status", Flag::Status),
    long("strict", Flag::Strict),
    long("ignore-missing", Flag::IgnoreMissing),
    long("single", Flag::Single),
    long("help", Flag::Help),
    long("verbose", Flag::Verbose),
];

const SHORT_WITH_ARGUMENT: &[(u8, Flag)] = &[(b'j', Flag::Threads)];

const LONG_WITH_ARGUMENT: &[LongOption<Flag>] = &[
    long("part-size", Flag::PartSize),
    long("threshold", Flag::Threshold),
    long("match", Flag::Match),
    long("threads", Flag::Threads),
    long("device", Flag::Device),
    long("max-work", Flag::MaxWork),
    long("checksum", Flag::Checksum),
    long("checksum-type", Flag::ChecksumType),
    long("verify", Flag::Verify),
    long("prefix", Flag::Prefix),
    long("inventory-schema", Flag::InventorySchema),
];

/// Parses the words after `linerate etag`; the error is a one-line message.
pub fn parse(args: &[OsString], posixly_correct: bool) -> Result<Command, String> {
    let mut options = Options {
        mode: Mode::Compute,
        policy: Policy::default(),
        check_options: CheckOptions::default(),
        threads: None,
        device: Device::from_env()
            .map_err(|e| format!("{}: {e}", linerate::gpu::DEVICE_ENV))?
            .unwrap_or(Device::Cpu),
        max_work: None,
        checksums: None,
        verify: VerifyOptions {
            prefix: String::new(),
            schema: None,
            strict: false,
            verbose: false,
            quiet: false,
        },
        files: Vec::new(),
    };
    let mut verify_flags: Option<&'static str> = None;
    let mut match_text: Option<Vec<u8>> = None;
    let mut algorithms: Vec<S3Algorithm> = Vec::new();
    let mut kind: Option<ChecksumType> = None;
    let mut check = false;
    let mut check_flags: Option<&'static str> = None;
    let mut getopt = Getopt::new(args, SHORT, LONG, posixly_correct)
        .with_arguments(SHORT_WITH_ARGUMENT, LONG_WITH_ARGUMENT);
    for found in getopt.by_ref() {
        let found = found.map_err(|e| String::from_utf8_lossy(&e.message()).into_owned())?;
        let argument = found
            .argument
            .as_ref()
            .map(|a| a.as_bytes())
            .unwrap_or_default();
        let c = &mut options.check_options;
        match found.value {
            Flag::Help => return Ok(Command::Help),
            Flag::Check => check = true,
            // As in md5sum, the last of --status, --warn and --quiet wins.
            Flag::Warn => {
                (c.warn, c.status, c.quiet) = (true, false, false);
                check_flags = Some("--warn");
            }
            Flag::Quiet => {
                (c.warn, c.status, c.quiet) = (false, false, true);
                check_flags = Some("--quiet");
            }
            Flag::Status => {
                (c.warn, c.status, c.quiet) = (false, true, false);
                check_flags = Some("--status");
            }
            Flag::Strict => {
                c.strict = true;
                check_flags = Some("--strict");
            }
            Flag::IgnoreMissing => {
                c.ignore_missing = true;
                check_flags = Some("--ignore-missing");
            }
            Flag::Single => options.policy.single = true,
            Flag::PartSize => {
                options.policy.part_size = Some(parse_size(argument).map_err(|e| e.to_string())?)
            }
            Flag::Threshold => {
                options.policy.threshold = Some(parse_size(argument).map_err(|e| e.to_string())?)
            }
            Flag::MaxWork => {
                options.max_work = Some(parse_size(argument).map_err(|e| e.to_string())?)
            }
            Flag::Threads => options.threads = Some(parse_threads(argument)?),
            Flag::Device => {
                options.device = Device::from_name(&String::from_utf8_lossy(argument))
                    .map_err(|e| e.to_string())?;
            }
            Flag::Checksum => {
                // Repeatable, and a comma-separated list each time.
                for name in String::from_utf8_lossy(argument).split(',') {
                    let algorithm = S3Algorithm::from_name(name.trim()).ok_or_else(|| {
                        format!(
                            "invalid checksum algorithm '{name}': give md5, crc64nvme, \
                             crc32c, crc32, sha1 or sha256 (a comma-separated list)"
                        )
                    })?;
                    algorithms.push(algorithm);
                }
            }
            Flag::Verify => options.mode = Mode::Verify(found.argument.clone().unwrap_or_default()),
            Flag::Prefix => {
                options.verify.prefix = String::from_utf8_lossy(argument).into_owned();
                verify_flags = Some("--prefix");
            }
            Flag::InventorySchema => {
                options.verify.schema = Some(String::from_utf8_lossy(argument).into_owned());
                verify_flags = Some("--inventory-schema");
            }
            Flag::Verbose => {
                options.verify.verbose = true;
                verify_flags = Some("--verbose");
            }
            Flag::ChecksumType => {
                let name = String::from_utf8_lossy(argument);
                kind = Some(ChecksumType::from_name(&name).ok_or_else(|| {
                    format!("invalid checksum type '{name}': give full-object or composite")
                })?);
            }
            Flag::Match => match_text = Some(argument.to_vec()),
        }
    }
    let verifying = matches!(options.mode, Mode::Verify(_));
    if match_text.is_some() && (check || verifying) {
        let other = if check { "--check" } else { "--verify" };
        return Err(format!("--match and {other} cannot be combined"));
    }
    if check {
        if verifying {
            return Err("--verify and --check cannot be combined".into());
        }
        options.mode = Mode::Check;
    } else if verifying {
        // audit's words: --quiet for the summary alone, --strict to fail
        // on extra files.
        let c = &options.check_options;
        if c.warn || c.status || c.ignore_missing {
            return Err(format!(
                "{} is meaningful only with --check",
                check_flags.unwrap_or("--warn")
            ));
        }
        options.verify.quiet = c.quiet;
        options.verify.strict = c.strict;
        if options.verify.quiet && options.verify.verbose {
            return Err("--quiet and --verbose cannot be combined".into());
        }
    } else if let Some(flag) = check_flags {
        return Err(format!("{flag} is meaningful only with --check"));
    }
    if let Some(text) = &match_text {
        let value = match algorithms.as_slice() {
            [] | [S3Algorithm::Md5] => Mode::Match(Etag::parse(text).ok_or_else(|| {
                format!(
                    "invalid ETag '{}': give 32 hex digits, optionally followed by -N \
                     (N parts), or name the checksum with --checksum",
                    String::from_utf8_lossy(text)
                )
            })?),
            [algorithm] => Mode::MatchChecksum(S3Value::parse(*algorithm, text)?),
            _ => return Err("--match takes one --checksum algorithm".into()),
        };
        if kind.is_some() {
            return Err("--checksum-type does not apply to --match (VALUE-N is composite)".into());
        }
        options.mode = value;
        algorithms.clear();
    }
    if !verifying && let Some(flag) = verify_flags {
        return Err(format!("{flag} is meaningful only with --verify"));
    }
    let policy = options.policy;
    if policy.single && (policy.part_size.is_some() || policy.threshold.is_some()) {
        return Err("--single cannot be combined with --part-size or --threshold".into());
    }
    if options.mode != Mode::Compute && policy != Policy::default() {
        return Err(
            "--part-size, --threshold and --single do not apply to --match and --check, \
             which search the part size"
                .into(),
        );
    }
    if let Mode::Verify(_) = options.mode
        && policy != Policy::default()
    {
        return Err("--part-size, --threshold and --single do not apply to --verify".into());
    }
    if options.mode == Mode::Compute && options.max_work.is_some() {
        return Err("--max-work is meaningful only with --match or --check".into());
    }
    if !algorithms.is_empty() {
        if options.mode != Mode::Compute {
            return Err(
                "--checksum applies to computing checksums, not to --match or --check \
                        (which take ETags)"
                    .into(),
            );
        }
        options.checksums = Some(Request::new(&algorithms, kind)?);
    } else if kind.is_some() {
        return Err("--checksum-type is meaningful only with --checksum".into());
    }
    options.files = getopt.into_operands();
    if verifying {
        if options.files.len() > 1 {
            return Err(format!(
                "extra operand '{}': --verify checks one DIR",
                options.files[1].to_string_lossy()
            ));
        }
    } else if options.files.is_empty() {
        options.files.push(OsString::from("-"));
    }
    Ok(Command::Run(Box::new(options)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_strs(args: &[&str]) -> Result<Command, String> {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        parse(&args, false)
    }

    fn options(args: &[&str]) -> Options {
        match parse_strs(args) {
            Ok(Command::Run(options)) => *options,
            other => panic!("{args:?}: {other:?}"),
        }
    }

    fn error(args: &[&str]) -> String {
        parse_strs(args).expect_err("a usage error")
    }

    #[test]
    fn defaults() {
        let o = options(&[]);
        assert_eq!(o.mode, Mode::Compute);
        assert_eq!(o.policy, Policy::default());
        assert_eq!(o.files, vec![OsString::from("-")]);
        assert_eq!(o.threads, None);
        assert_eq!(parse_strs(&["--he"]), Ok(Command::Help));
    }

    #[test]
    fn sizes_threads_and_modes() {
        let o = options(&["--part-size", "64KiB", "a", "--threshold=1M", "-j3", "b"]);
        assert_eq!(o.policy.part_size, Some(64 << 10));
        assert_eq!(o.policy.threshold, Some(1 << 20));
        assert_eq!(o.threads, Some(3));
        assert_eq!(o.files, vec![OsString::from("a"), OsString::from("b")]);
        assert!(options(&["--single", "f"]).policy.single);
        let o = options(&["--match", "\"900150983cd24fb0d6963f7d28e17f72-3\"", "f"]);
        assert_eq!(
            o.mode,
            Mode::Match(Etag {
                digest: linerate::md5(b"abc"),
                parts: Some(3)
            })
        );
        let o = options(&["-cw", "--strict", "--max-work", "1GiB", "sums"]);
        assert_eq!(o.mode, Mode::Check);
        assert!(o.check_options.warn && o.check_options.strict);
        assert_eq!(o.max_work, Some(1 << 30));
    }

    #[test]
    fn usage_errors() {
        assert!(error(&["--part-size", "0", "f"]).contains("invalid size '0'"));
        assert!(error(&["--threshold", "lots"]).contains("invalid size 'lots'"));
        assert!(error(&["--match", "xyz", "f"]).contains("invalid ETag 'xyz'"));
        assert!(error(&["-j", "0"]).contains("invalid number of threads '0'"));
        assert!(error(&["-j", ""]).contains("invalid number of threads ''"));
        assert_eq!(error(&["-x"]), "invalid option -- 'x'");
        assert_eq!(error(&["--part"]), "unrecognized option '--part'");
        assert!(error(&["--single", "--part-size", "8M"]).contains("--single"));
        assert!(error(&["-c", "--match", "900150983cd24fb0d6963f7d28e17f72"]).contains("combined"));
        assert!(error(&["-c", "--part-size", "8M"]).contains("search the part size"));
        assert!(error(&["--quiet", "f"]).contains("only with --check"));
        assert!(error(&["--max-work", "1G", "f"]).contains("--max-work"));
        assert_eq!(
            error(&["--threads"]),
            "option '--threads' requires an argument"
        );
    }
}
