//! `linerate audit`'s command line, parsed by `linerate sum`'s getopt
//! ([`crate::sum::getopt`]): bundled short options, unambiguous prefixes of
//! the long flags, `--` and options after operands; options that take an
//! argument (`-a`, `-j`, `--exclude`) must be spelled out in full.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use crate::sum::args as sum_args;
use crate::sum::getopt::{Getopt, LongOption};
use linerate::cksum::DigestAlgorithm;
use linerate_files::tree::WalkOptions;

/// How much the report says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Detail {
    /// `-q`: the summary only.
    Quiet,
    /// A line for every file that is not matched, then the summary.
    #[default]
    Normal,
    /// `-v`: matched files too.
    Verbose,
}

/// A valid command line.
#[derive(Debug)]
pub struct Options {
    /// The checksum file (`-`: standard input).
    pub manifest: OsString,
    /// The directory the manifest's relative paths start from.
    pub dir: OsString,
    /// Whether DIR was given: if not, only the trees the manifest's paths
    /// name are searched for new files.
    pub dir_given: bool,
    /// `-a`: the function of untagged lines.
    pub algorithm: DigestAlgorithm,
    /// `-j`: threads hashing files.
    pub threads: usize,
    /// `--follow` and `--exclude`.
    pub walk: WalkOptions,
    /// `--json`: one JSON object instead of text.
    pub json: bool,
    pub detail: Detail,
    /// `--strict`: new files fail the audit too.
    pub strict: bool,
}

/// What the command line asks for.
#[derive(Debug)]
pub enum Command {
    /// Boxed: the compiled `--exclude` globs make it large.
    Run(Box<Options>),
    Help,
}

/// A usage error: the message, without program name or the hint to `--help`.
#[derive(Debug, PartialEq, Eq)]
pub struct UsageError(pub Vec<u8>);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flag {
    Follow,
    Json,
    Quiet,
    Verbose,
    Strict,
    Help,
    Algorithm,
    Threads,
    Exclude,
}

const SHORT: &[(u8, Flag)] = &[(b'q', Flag::Quiet), (b'v', Flag::Verbose)];

const LONG: &[LongOption<Flag>] = &[
    long("follow", Flag::Follow),
    long("json", Flag::Json),
    long("quiet", Flag::Quiet),
    long("verbose", Flag::Verbose),
    long("strict", Flag::Strict),
    long("help", Flag::Help),
];

const SHORT_WITH_ARGUMENT: &[(u8, Flag)] = &[(b'a', Flag::Algorithm), (b'j', Flag::Threads)];

const LONG_WITH_ARGUMENT: &[LongOption<Flag>] = &[
    long("algorithm", Flag::Algorithm),
    long("threads", Flag::Threads),
    long("exclude", Flag::Exclude),
];

const fn long(name: &'static str, value: Flag) -> LongOption<Flag> {
    LongOption { name, value }
}

/// Parses `linerate audit`'s arguments. `--help` acts as soon as it is
/// met; a bad option argument is reported when met, as in `linerate sum`.
pub fn parse(args: &[OsString], posixly_correct: bool) -> Result<Command, UsageError> {
    let usage = |m: String| UsageError(m.into_bytes());
    let mut algorithm = DigestAlgorithm::default();
    let mut threads = None;
    let mut follow = false;
    let mut patterns = Vec::new();
    let mut json = false;
    let mut detail = Detail::Normal;
    let mut strict = false;
    let mut getopt = Getopt::new(args, SHORT, LONG, posixly_correct)
        .with_arguments(SHORT_WITH_ARGUMENT, LONG_WITH_ARGUMENT);
    for found in getopt.by_ref() {
        let found = found.map_err(|e| UsageError(e.message()))?;
        let argument = found.argument.unwrap_or_default();
        match found.value {
            Flag::Help => return Ok(Command::Help),
            Flag::Follow => follow = true,
            Flag::Json => json = true,
            // -q and -v cancel each other: the last wins.
            Flag::Quiet => detail = Detail::Quiet,
            Flag::Verbose => detail = Detail::Verbose,
            Flag::Strict => strict = true,
            Flag::Algorithm => {
                algorithm =
                    DigestAlgorithm::from_name(argument.as_bytes()).map_err(|e| usage(e.0))?
            }
            Flag::Threads => threads = Some(argument),
            Flag::Exclude => patterns.push(argument),
        }
    }
    let mut operands = getopt.into_operands().into_iter();
    let manifest = operands
        .next()
        .ok_or_else(|| usage("missing operand: give MANIFEST [DIR]".to_string()))?;
    let given_dir = operands.next();
    let dir_given = given_dir.is_some();
    let dir = given_dir.unwrap_or_else(|| OsString::from("."));
    if let Some(extra) = operands.next() {
        return Err(usage(format!(
            "extra operand '{}'",
            String::from_utf8_lossy(extra.as_bytes())
        )));
    }
    let exclude = sum_args::exclude(&patterns).map_err(usage)?;
    Ok(Command::Run(Box::new(Options {
        manifest,
        dir,
        dir_given,
        algorithm,
        threads: thread_count(threads)?,
        walk: WalkOptions { follow, exclude },
        json,
        detail,
        strict,
    })))
}

/// `-j`'s argument checked and worded as `linerate sum` does it; one
/// thread per core without it.
fn thread_count(argument: Option<OsString>) -> Result<usize, UsageError> {
    match argument {
        None => Ok(sum_args::default_threads()),
        Some(argument) => sum_args::parse_threads(argument.as_bytes())
            .map_err(|message| UsageError(message.into_bytes())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_strs(args: &[&str]) -> Result<Command, UsageError> {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        parse(&args, false)
    }

    fn options(args: &[&str]) -> Options {
        match parse_strs(args) {
            Ok(Command::Run(options)) => *options,
            other => panic!("expected a run, got {other:?}"),
        }
    }

    fn error(args: &[&str]) -> String {
        match parse_strs(args) {
            Err(UsageError(m)) => String::from_utf8_lossy(&m).into_owned(),
            other => panic!("expected an error, got {other:?}"),
        }
    }

    #[test]
    fn defaults() {
        let o = options(&["m.md5"]);
        assert_eq!(o.manifest, "m.md5");
        assert_eq!(o.dir, ".");
        assert_eq!(o.algorithm, DigestAlgorithm::default());
        assert!(o.threads >= 1);
        assert!(!o.walk.follow && o.walk.exclude.is_empty());
        assert!(!o.json && !o.strict);
        assert_eq!(o.detail, Detail::Normal);
    }

    #[test]
    fn every_option() {
        let o = options(&[
            "-a",
            "md5p16",
            "m",
            "-j4",
            "--follow",
            "--exclude",
            "*.tmp",
            "--exclude=.git",
            "--json",
            "-vq",
            "--str",
            "tree",
        ]);
        assert_eq!(
            (o.manifest.as_os_str(), o.dir.as_os_str()),
            ("m".as_ref(), "tree".as_ref())
        );
        assert_eq!(
            o.algorithm,
            DigestAlgorithm::Hash(linerate::HashAlgorithm::Md5p(16))
        );
        assert_eq!(o.threads, 4);
        assert!(o.walk.follow && !o.walk.exclude.is_empty());
        assert!(o.json && o.strict);
        assert_eq!(o.detail, Detail::Quiet);
        assert_eq!(options(&["-q", "--verbose", "m"]).detail, Detail::Verbose);
    }

    #[test]
    fn usage_errors() {
        assert_eq!(error(&[]), "missing operand: give MANIFEST [DIR]");
        assert_eq!(error(&["m", "d", "x"]), "extra operand 'x'");
        assert_eq!(error(&["-x", "m"]), "invalid option -- 'x'");
        assert_eq!(error(&["--tag", "m"]), "unrecognized option '--tag'");
        assert!(error(&["-a", "sha3", "m"]).starts_with("invalid algorithm 'sha3'"));
        assert!(error(&["-j", "0", "m"]).starts_with("invalid number of threads '0'"));
        assert_eq!(
            error(&["m", "--exclude"]),
            "option '--exclude' requires an argument"
        );
        assert!(matches!(parse_strs(&["--he", "-x"]), Ok(Command::Help)));
        // Operands after `--` may look like options.
        let o = options(&["--", "-m", "-d"]);
        assert_eq!(
            (o.manifest.as_os_str(), o.dir.as_os_str()),
            ("-m".as_ref(), "-d".as_ref())
        );
    }
}
