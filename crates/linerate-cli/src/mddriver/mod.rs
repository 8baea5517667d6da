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
//! - The time trial is configurable; see [`trial`].

mod suite;
mod trial;

use crate::PROGRAM;
use crate::output::print_or_quiet;
use linerate::Md5;
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

/// Runs `linerate md5` with `args` (the words after `md5`).
pub fn main(args: &[OsString]) -> ExitCode {
    let run = match parse(args) {
        Ok(Command::Help) => {
            print_or_quiet(USAGE.as_bytes());
            return ExitCode::SUCCESS;
        }
        Ok(Command::Run(run)) => run,
        Err(message) => {
            eprintln!("{PROGRAM}: {message}\nTry 'linerate md5 --help' for more information.");
            return ExitCode::from(2);
        }
    };
    let ok = if run.actions.is_empty() {
        filter_stdin()
    } else {
        // `&=` rather than `all`: a failure must not stop later arguments.
        let mut ok = true;
        for action in &run.actions {
            ok &= perform(action, &run.trial);
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

/// Reads the whole command line, so that a usage error is reported before
/// anything runs (a typo after `-t` must not cost a time trial first).
fn parse(args: &[OsString]) -> Result<Command, String> {
    let mut actions = Vec::new();
    let mut trial = trial::Options::default();
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
            b"-x" => actions.push(Action::Suite),
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
                    "unknown option '{}' (a file of that name: ./{0})",
                    arg.to_string_lossy()
                ));
            }
            _ => actions.push(operand(arg)),
        }
    }
    if trial_option_seen && !actions.contains(&Action::Trial) {
        return Err("--block-size, --count and --cold set up the time trial: add -t".into());
    }
    Ok(Command::Run(Run { actions, trial }))
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
        _ => return Err(format!("unknown option '--{name}'")),
    }
    trial.check()
}

/// Does one argument's work; `false` if it failed (already reported).
fn perform(action: &Action, trial: &trial::Options) -> bool {
    match action {
        Action::String(string) => {
            print_or_quiet(&string_line(string, &linerate::md5(string)));
            true
        }
        Action::Suite => suite::run(),
        Action::Trial => trial::run(trial),
        Action::File(path) => hash_file(path),
        Action::Stdin => match digest_reader(io::stdin().lock()) {
            Ok(digest) => {
                print_or_quiet(&labelled_line(b"-", &digest));
                true
            }
            Err(e) => report_read_error("-", &e),
        },
    }
}

/// `MD5 (FILE) = DIGEST`, or a message on stderr.
fn hash_file(path: &OsString) -> bool {
    match File::open(path).and_then(digest_reader) {
        Ok(digest) => {
            print_or_quiet(&labelled_line(path.as_encoded_bytes(), &digest));
            true
        }
        Err(e) => report_read_error(&path.to_string_lossy(), &e),
    }
}

/// mddriver's MDFilter: standard input's digest alone on a line.
fn filter_stdin() -> bool {
    match digest_reader(io::stdin().lock()) {
        Ok(digest) => {
            print_or_quiet(format!("{}\n", hex(&digest)).as_bytes());
            true
        }
        Err(e) => report_read_error("standard input", &e),
    }
}

/// Hashes everything `reader` yields, in constant memory.
fn digest_reader(mut reader: impl Read) -> io::Result<[u8; 16]> {
    // Large enough that the per-read system call is noise next to hashing.
    const CHUNK: usize = 128 * 1024;
    let mut buffer = vec![0; CHUNK];
    let mut hasher = Md5::new();
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

/// `MD5 ("STRING") = DIGEST` and a newline, as mddriver's MDString prints it.
fn string_line(string: &[u8], digest: &[u8; 16]) -> Vec<u8> {
    let mut quoted = Vec::with_capacity(string.len() + 2);
    quoted.push(b'"');
    quoted.extend_from_slice(string);
    quoted.push(b'"');
    labelled_line(&quoted, digest)
}

/// `MD5 (LABEL) = DIGEST` and a newline; LABEL's bytes are written as given.
fn labelled_line(label: &[u8], digest: &[u8; 16]) -> Vec<u8> {
    let mut line = Vec::with_capacity(label.len() + 42);
    line.extend_from_slice(b"MD5 (");
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
        match parse(&args(words)) {
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
            assert!(parse(&args(words)).is_err(), "{words:?} was accepted");
        }
    }

    #[test]
    fn trial_options_in_both_forms() {
        let Ok(Command::Run(run)) =
            parse(&args(&["--block-size", "2K", "--count=7", "-t", "--cold"]))
        else {
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
        assert_eq!(parse(&args(&["-x", "--help"])), Ok(Command::Help));
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
            string_line(b"abc", &digest),
            b"MD5 (\"abc\") = 900150983cd24fb0d6963f7d28e17f72\n"
        );
    }
}
