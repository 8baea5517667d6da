//! `linerate md5`: RFC 1321's driver program, mddriver.c (appendix A.4),
//! with a time trial that also reports the core clock and cycles/byte.
//!
//! As in mddriver's main loop, the arguments run in order: `-sSTRING` prints
//! `MD5 ("STRING") = DIGEST`, `-x` the test suite, `-t` the time trial, any
//! other word `MD5 (FILE) = DIGEST`; with no arguments, standard input's
//! digest alone (mddriver's MDFilter). The output lines keep the RFC's shape
//! so that scripts written for mddriver still parse them.
//!
//! Deliberate departures from mddriver:
//! - Every argument is checked before any runs. A word that starts with `-`
//!   and is no option is a usage error (mddriver would try to open it as a
//!   file, which hides typos such as `-X`); such a file is named `./-name` or
//!   put after `--`.
//! - `-s` alone takes the next argument as the string, so `-s ""` hashes the
//!   empty string (mddriver hashed "" for a bare `-s`).
//! - `-` is standard input, printed as `MD5 (-) = DIGEST`.
//! - A file that cannot be read gets a message on stderr and makes the exit
//!   status 1; the other arguments still run (mddriver printed "FILE can't
//!   be opened" on stdout and exited 0).
//! - `-x` checks the digests against the RFC's and fails (status 1) on a
//!   difference: it is a self-test, not only a printout.
//! - The time trial is configurable; see the `trial` module.
//!
//! `linerate md5p` is the same driver for RFC 1810's MD5-P/K
//! (`docs/md5p.md`): `-k K` (default 16) picks K for every argument, the
//! lines read `MD5-P/16 ("abc") = DIGEST`, and the time trial hashes the same
//! blocks with MD5-P/K on the lanes engine. It has no `-x`: RFC 1321's suite
//! is MD5's.

mod suite;
mod trial;

use crate::PROGRAM;
use crate::output::print_or_quiet;
use linerate::HashAlgorithm;
use linerate::registry::VALID_K;
use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read};
use std::process::ExitCode;

const USAGE: &str = "\
Usage: linerate md5 [-sSTRING | -s STRING | -x | -t | FILE | -]...
RFC 1321's MD5 driver (mddriver.c): runs its arguments in order.

  -sSTRING, -s STRING  print MD5 (\"STRING\") = DIGEST
  -x                   run RFC 1321's test suite and check its digests
  -t                   time trial: hash COUNT blocks of SIZE bytes; print the
                       digest, time and speed as mddriver does, then the
                       backend, the measured core clock and cycles/byte
  FILE                 print MD5 (FILE) = DIGEST
  -                    the same for standard input, printed as MD5 (-)
  (no arguments)       print the digest of standard input alone

Time trial options (they apply to every -t):
  --block-size=SIZE    bytes per block; a K or M suffix means KiB or MiB
                       (default 16384)
  --count=COUNT        blocks to hash (default 60000, about a second with AVX-512)
  --cold               read each block from a buffer 4 times the size of the
                       last-level cache, so that no block is in cache, as
                       RFC 1810 did; the digest is the same as without --cold

  --                   every later argument is a FILE
  -h, --help           print this help

A word that starts with '-' and is none of these is an error: name such a
file ./-name. LINERATE_MD5_BACKEND=avx512|scalar|portable|reference forces
the MD5 implementation.

Exit status: 0 if all went well; 1 if a FILE could not be read, the -x
self-test found a wrong digest or the time trial could not get its memory;
2 for a usage error.
";

const MD5P_USAGE: &str = "\
Usage: linerate md5p [-k K] [-sSTRING | -s STRING | -t | FILE | -]...
RFC 1810's MD5-P/K, driven as 'linerate md5' drives MD5: runs its arguments
in order. MD5-P/K deals 64-byte blocks out to K MD5 chains and hashes the K
chain digests with MD5 (docs/md5p.md); it is exactly as weak as MD5.

  -k K, -kK, --k=K     K: a multiple of 4 from 4 to 256 (default 16); it
                       applies to every argument, and the last -k wins
  -sSTRING, -s STRING  print MD5-P/K (\"STRING\") = DIGEST
  -t                   time trial: hash COUNT blocks of SIZE bytes; print the
                       digest, time and speed as mddriver does, then the
                       lanes backend, the measured core clock and cycles/byte
  FILE                 print MD5-P/K (FILE) = DIGEST
  -                    the same for standard input, printed as MD5-P/K (-)
  (no arguments)       print the digest of standard input alone

Time trial options (they apply to every -t): --block-size=SIZE, --count=COUNT
and --cold, as in 'linerate md5 --help'.

  --                   every later argument is a FILE
  -h, --help           print this help

A word that starts with '-' and is none of these is an error: name such a
file ./-name. LINERATE_LANES_BACKEND=avx512|avx2|sse2|portable forces the
lanes engine MD5-P/K runs on.

Exit status: 0 if all went well; 1 if a FILE could not be read or the time
trial could not get its memory; 2 for a usage error.
";

/// Which driver runs: RFC 1321's for MD5, or its MD5-P/K twin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Driver {
    Md5,
    Md5p,
}

impl Driver {
    fn command(self) -> &'static str {
        match self {
            Driver::Md5 => "md5",
            Driver::Md5p => "md5p",
        }
    }

    fn usage(self) -> &'static str {
        match self {
            Driver::Md5 => USAGE,
            Driver::Md5p => MD5P_USAGE,
        }
    }
}

/// Runs `linerate md5` with `args` (the words after `md5`).
pub fn main(args: &[OsString]) -> ExitCode {
    run_driver(args, Driver::Md5)
}

/// Runs `linerate md5p` with `args` (the words after `md5p`).
pub fn main_md5p(args: &[OsString]) -> ExitCode {
    run_driver(args, Driver::Md5p)
}

fn run_driver(args: &[OsString], driver: Driver) -> ExitCode {
    let run = match parse(args, driver) {
        Ok(Command::Help) => {
            print_or_quiet(driver.usage().as_bytes());
            return ExitCode::SUCCESS;
        }
        Ok(Command::Run(run)) => run,
        Err(message) => {
            eprintln!(
                "{PROGRAM}: {message}\nTry 'linerate {} --help' for more information.",
                driver.command()
            );
            return ExitCode::from(2);
        }
    };
    let ok = if run.actions.is_empty() {
        filter_stdin(run.algorithm)
    } else {
        // `&=` rather than `all`: a failure must not stop later arguments.
        let mut ok = true;
        for action in &run.actions {
            ok &= perform(action, &run.trial, run.algorithm);
        }
        ok
    };
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// What the command line asks for.
#[derive(Debug, PartialEq)]
enum Command {
    Help,
    Run(Run),
}

#[derive(Debug, PartialEq)]
struct Run {
    actions: Vec<Action>,
    trial: trial::Options,
    /// MD5, or MD5-P/K with `-k`'s K.
    algorithm: HashAlgorithm,
}

/// One argument's work, done in command-line order.
#[derive(Debug, PartialEq)]
enum Action {
    /// `-sSTRING`: the string's bytes exactly as given.
    String(Vec<u8>),
    /// `-x`.
    Suite,
    /// `-t`.
    Trial,
    File(OsString),
    /// `-`.
    Stdin,
}

/// The K of MD5-P/K when `-k` is not given.
const DEFAULT_K: usize = 16;

/// Reads the whole command line, so that a usage error is reported before
/// anything runs (a typo after `-t` must not cost a time trial first).
fn parse(args: &[OsString], driver: Driver) -> Result<Command, String> {
    let mut actions = Vec::new();
    let mut trial = trial::Options::default();
    let mut algorithm = match driver {
        Driver::Md5 => HashAlgorithm::Md5,
        Driver::Md5p => HashAlgorithm::Md5p(DEFAULT_K),
    };
    let mut trial_option_seen = false;
    let mut only_operands = false;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        // Options are ASCII; the encoded bytes compare them on every platform
        // and are, on Unix, exactly the bytes of the argument.
        let bytes = arg.as_encoded_bytes();
        if only_operands {
            actions.push(operand(arg));
            continue;
        }
        match bytes {
            b"--" => only_operands = true,
            b"-h" | b"--help" => return Ok(Command::Help),
            b"-x" if driver == Driver::Md5 => actions.push(Action::Suite),
            b"-k" | b"--k" if driver == Driver::Md5p => {
                let k = args.next().ok_or(format!(
                    "option '{}' needs K: -k K, -kK or --k=K",
                    arg.to_string_lossy()
                ))?;
                algorithm = parse_k(k.as_encoded_bytes())?;
            }
            [b'-', b'-', b'k', b'=', k @ ..] if driver == Driver::Md5p => {
                algorithm = parse_k(k)?;
            }
            [b'-', b'k', k @ ..] if driver == Driver::Md5p => algorithm = parse_k(k)?,
            b"-t" => actions.push(Action::Trial),
            b"-s" => {
                let string = args
                    .next()
                    .ok_or("option '-s' needs a string: -sSTRING or -s STRING")?;
                actions.push(Action::String(string.as_encoded_bytes().to_vec()));
            }
            [b'-', b's', string @ ..] => actions.push(Action::String(string.to_vec())),
            [b'-', b'-', long @ ..] => {
                parse_long(long, &mut args, &mut trial)?;
                trial_option_seen = true;
            }
            [b'-', _, ..] => {
                return Err(format!(
                    "unrecognized option '{}' (a file of that name: ./{0})",
                    arg.to_string_lossy()
                ));
            }
            _ => actions.push(operand(arg)),
        }
    }
    if trial_option_seen && !actions.contains(&Action::Trial) {
        return Err("--block-size, --count and --cold set up the time trial: add -t".into());
    }
    Ok(Command::Run(Run {
        actions,
        trial,
        algorithm,
    }))
}

/// `-k`'s value: MD5-P/K for a valid K.
fn parse_k(value: &[u8]) -> Result<HashAlgorithm, String> {
    std::str::from_utf8(value)
        .ok()
        .filter(|text| text.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|text| text.parse::<usize>().ok())
        .and_then(HashAlgorithm::md5p)
        .ok_or_else(|| format!("invalid K '{}': {VALID_K}", String::from_utf8_lossy(value)))
}

/// A FILE argument, or `-` for standard input.
fn operand(arg: &OsString) -> Action {
    if arg == "-" {
        Action::Stdin
    } else {
        Action::File(arg.clone())
    }
}

/// A time-trial option, `long` being the text after `--`: `NAME`,
/// `NAME=VALUE`, or `NAME` followed by the value as the next argument.
fn parse_long<'a>(
    long: &'a [u8],
    rest: &mut impl Iterator<Item = &'a OsString>,
    trial: &mut trial::Options,
) -> Result<(), String> {
    let (name, inline) = match long.iter().position(|&b| b == b'=') {
        Some(eq) => (&long[..eq], Some(&long[eq + 1..])),
        None => (long, None),
    };
    let name = String::from_utf8_lossy(name);
    let mut value = || -> Result<&'a [u8], String> {
        match inline {
            Some(v) => Ok(v),
            None => rest
                .next()
                .map(|v| v.as_encoded_bytes())
                .ok_or_else(|| format!("option '--{name}' needs a value")),
        }
    };
    match name.as_ref() {
        "cold" if inline.is_none() => trial.cold = true,
        "cold" => return Err("option '--cold' takes no value".into()),
        "block-size" => trial.block_size = trial::parse_block_size(value()?)?,
        "count" => trial.count = trial::parse_count(value()?)?,
        _ => return Err(format!("unrecognized option '--{name}'")),
    }
    trial.check()
}

/// Does one argument's work; `false` if it failed (already reported).
fn perform(action: &Action, trial: &trial::Options, algorithm: HashAlgorithm) -> bool {
    let label = algorithm.label();
    match action {
        Action::String(string) => {
            let mut hasher = algorithm.hasher();
            hasher.update(string);
            print_or_quiet(&string_line(&label, string, &hasher.finalize()));
            true
        }
        Action::Suite => suite::run(),
        Action::Trial => trial::run(trial, algorithm),
        Action::File(path) => hash_file(path, algorithm),
        Action::Stdin => match digest_reader(linerate_files::stdin(), algorithm) {
            Ok(digest) => {
                print_or_quiet(&labelled_line(&label, b"-", &digest));
                true
            }
            Err(e) => report_read_error("-", &e),
        },
    }
}

/// `MD5 (FILE) = DIGEST`, or a message on stderr.
fn hash_file(path: &OsString, algorithm: HashAlgorithm) -> bool {
    match File::open(path).and_then(|file| digest_reader(file, algorithm)) {
        Ok(digest) => {
            let label = algorithm.label();
            print_or_quiet(&labelled_line(&label, path.as_encoded_bytes(), &digest));
            true
        }
        Err(e) => report_read_error(&path.to_string_lossy(), &e),
    }
}

/// mddriver's MDFilter: standard input's digest alone on a line.
fn filter_stdin(algorithm: HashAlgorithm) -> bool {
    match digest_reader(linerate_files::stdin(), algorithm) {
        Ok(digest) => {
            print_or_quiet(format!("{}\n", hex(&digest)).as_bytes());
            true
        }
        Err(e) => report_read_error("standard input", &e),
    }
}

/// Hashes everything `reader` yields, in constant memory.
fn digest_reader(mut reader: impl Read, algorithm: HashAlgorithm) -> io::Result<[u8; 16]> {
    // Large enough that the per-read system call is noise next to hashing.
    const CHUNK: usize = 128 * 1024;
    let mut buffer = vec![0; CHUNK];
    let mut hasher = algorithm.hasher();
    loop {
        match reader.read(&mut buffer) {
            Ok(0) => return Ok(hasher.finalize()),
            Ok(n) => hasher.update(&buffer[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// Prints `linerate: NAME: REASON` on stderr; returns `false` for the caller.
fn report_read_error(name: &str, e: &io::Error) -> bool {
    eprintln!("{PROGRAM}: {name}: {}", reason(e));
    false
}

/// An I/O error's text without Rust's " (os error N)" suffix, as C tools
/// print it ("No such file or directory").
fn reason(e: &io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error ") {
        Some(at) if text.ends_with(')') => text[..at].to_string(),
        _ => text,
    }
}

/// `MD5 ("STRING") = DIGEST` and a newline, as mddriver's MDString prints
/// it; `function` is the label in front (`MD5`, `MD5-P/16`).
fn string_line(function: &str, string: &[u8], digest: &[u8; 16]) -> Vec<u8> {
    let mut quoted = Vec::with_capacity(string.len() + 2);
    quoted.push(b'"');
    quoted.extend_from_slice(string);
    quoted.push(b'"');
    labelled_line(function, &quoted, digest)
}

/// `MD5 (LABEL) = DIGEST` and a newline; LABEL's bytes are written as given.
fn labelled_line(function: &str, label: &[u8], digest: &[u8; 16]) -> Vec<u8> {
    let mut line = Vec::with_capacity(function.len() + label.len() + 40);
    line.extend_from_slice(function.as_bytes());
    line.extend_from_slice(b" (");
    line.extend_from_slice(label);
    line.extend_from_slice(b") = ");
    line.extend_from_slice(hex(digest).as_bytes());
    line.push(b'\n');
    line
}

/// Lower-case hexadecimal, as mddriver's MDPrint writes a digest.
fn hex(digest: &[u8; 16]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<OsString> {
        words.iter().map(OsString::from).collect()
    }

    fn actions(words: &[&str]) -> Vec<Action> {
        match parse(&args(words), Driver::Md5) {
            Ok(Command::Run(run)) => run.actions,
            other => panic!("{words:?} parsed as {other:?}"),
        }
    }

    #[test]
    fn arguments_keep_their_order() {
        assert_eq!(
            actions(&["-sabc", "f", "-x", "-s", "", "-t", "-", "-s", "-x"]),
            [
                Action::String(b"abc".to_vec()),
                Action::File("f".into()),
                Action::Suite,
                Action::String(Vec::new()),
                Action::Trial,
                Action::Stdin,
                Action::String(b"-x".to_vec()),
            ]
        );
    }

    #[test]
    fn double_dash_makes_operands() {
        assert_eq!(
            actions(&["--", "-x", "-"]),
            [Action::File("-x".into()), Action::Stdin]
        );
    }

    #[test]
    fn usage_errors() {
        for words in [
            &["-X"][..],
            &["-tx"],
            &["--bogus"],
            &["-s"],
            &["--count", "5"],
            &["-t", "--count"],
            &["-t", "--count=0"],
            &["-t", "--block-size=0"],
            &["-t", "--block-size=12Q"],
            &["-t", "--cold=yes"],
        ] {
            assert!(
                parse(&args(words), Driver::Md5).is_err(),
                "{words:?} was accepted"
            );
        }
    }

    #[test]
    fn trial_options_in_both_forms() {
        let Ok(Command::Run(run)) = parse(
            &args(&["--block-size", "2K", "--count=7", "-t", "--cold"]),
            Driver::Md5,
        ) else {
            panic!("rejected");
        };
        assert_eq!(
            run.trial,
            trial::Options {
                block_size: 2048,
                count: 7,
                cold: true
            }
        );
    }

    #[test]
    fn help_wins() {
        assert_eq!(
            parse(&args(&["-x", "--help"]), Driver::Md5),
            Ok(Command::Help)
        );
    }

    #[test]
    fn reason_drops_the_os_error_number() {
        let e = io::Error::from_raw_os_error(2);
        assert!(!reason(&e).contains("os error"), "{}", reason(&e));
    }

    #[test]
    fn lines() {
        let digest = linerate::md5(b"abc");
        assert_eq!(
            string_line("MD5", b"abc", &digest),
            b"MD5 (\"abc\") = 900150983cd24fb0d6963f7d28e17f72\n"
        );
        assert_eq!(
            labelled_line("MD5-P/16", b"-", &[0; 16]),
            b"MD5-P/16 (-) = 00000000000000000000000000000000\n"
        );
    }

    fn md5p(words: &[&str]) -> Result<Run, String> {
        match parse(&args(words), Driver::Md5p)? {
            Command::Run(run) => Ok(run),
            Command::Help => Err("help".into()),
        }
    }

    #[test]
    fn md5p_takes_k_in_every_form() {
        assert_eq!(md5p(&[]).map(|r| r.algorithm), Ok(HashAlgorithm::Md5p(16)));
        for words in [
            &["-k", "8", "-sabc"][..],
            &["-k8"],
            &["--k", "8"],
            &["--k=8"],
            &["-k", "32", "-t", "-k", "8"],
        ] {
            assert_eq!(
                md5p(words).map(|r| r.algorithm),
                Ok(HashAlgorithm::Md5p(8)),
                "{words:?}"
            );
        }
        for words in [
            &["-k"][..],
            &["-k", "6"],
            &["-k0"],
            &["--k=260"],
            &["-k", "x"],
            &["-x"],
            &["-k", "-8"],
        ] {
            assert!(md5p(words).is_err(), "{words:?} was accepted");
        }
        // md5 has no -k.
        assert!(parse(&args(&["-k", "8"]), Driver::Md5).is_err());
    }
}
