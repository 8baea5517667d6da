//! `linerate cksum`'s command line, parsed with `linerate sum`'s getopt
//! ([`crate::sum::getopt`]) and checked as cksum 9.1 checks it, with its
//! messages (several lines where cksum prints several).

use std::ffi::OsString;

use linerate::cksum::CksumAlgorithm;
use linerate_sumfile::quote::Charset;

use crate::sum::args::CheckOptions;
use crate::sum::getopt::{Getopt, LongOption};

/// A valid command line.
#[derive(Debug, PartialEq, Eq)]
pub struct Options {
    pub algorithm: CksumAlgorithm,
    /// `-a` was given (with `--check`: untagged lines are its function's).
    pub specified: bool,
    /// `-c`: the operands are checksum lists.
    pub check: bool,
    pub check_options: CheckOptions,
    pub untagged: bool,
    /// `--base64` (coreutils 9.2): digests in base64, not hex.
    pub base64: bool,
    /// `--raw` (coreutils 9.2): the digest's bytes alone.
    pub raw: bool,
    pub zero: bool,
    pub debug: bool,
    /// `-j`: worker threads; `None` for one per core.
    pub threads: Option<usize>,
    /// FILE operands were given (legacy sums print names only then).
    pub operands_given: bool,
    /// The operands; `-` alone when none were given.
    pub files: Vec<OsString>,
}

impl Options {
    pub fn thread_count(&self) -> usize {
        self.threads
            .unwrap_or_else(crate::sum::args::default_threads)
    }
}

#[derive(Debug, PartialEq, Eq)]
pub enum Command {
    Run(Options),
    Help,
    Version,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flag {
    Algorithm,
    Length,
    Threads,
    Tag,
    Untagged,
    Zero,
    Debug,
    Help,
    Version,
    Check,
    Warn,
    Quiet,
    Status,
    Strict,
    IgnoreMissing,
    Base64,
    Raw,
}

const SHORT: &[(u8, Flag)] = &[(b'z', Flag::Zero), (b'c', Flag::Check), (b'w', Flag::Warn)];
const SHORT_WITH_ARGUMENT: &[(u8, Flag)] = &[
    (b'a', Flag::Algorithm),
    (b'l', Flag::Length),
    (b'j', Flag::Threads),
];

const fn long(name: &'static str, value: Flag) -> LongOption<Flag> {
    LongOption { name, value }
}

const LONG: &[LongOption<Flag>] = &[
    long("tag", Flag::Tag),
    long("untagged", Flag::Untagged),
    long("zero", Flag::Zero),
    long("debug", Flag::Debug),
    long("help", Flag::Help),
    long("version", Flag::Version),
    long("check", Flag::Check),
    long("warn", Flag::Warn),
    long("quiet", Flag::Quiet),
    long("status", Flag::Status),
    long("strict", Flag::Strict),
    long("ignore-missing", Flag::IgnoreMissing),
];

/// cksum 9.1's options that take an argument: abbreviated as getopt_long
/// abbreviates them (`--algo=sha1`, `--len 256`).
const LONG_WITH_ARGUMENT: &[LongOption<Flag>] = &[
    long("algorithm", Flag::Algorithm),
    long("length", Flag::Length),
];

/// Options cksum 9.1 lacks (9.2's `--base64` and `--raw`, linerate's
/// `--threads`) match only when spelled out in full, so that every
/// abbreviation means what it means to cksum 9.1 (`--t` is `--tag`).
const LONG_EXACT_WITH_ARGUMENT: &[LongOption<Flag>] = &[long("threads", Flag::Threads)];
const LONG_EXACT: &[LongOption<Flag>] = &[long("base64", Flag::Base64), long("raw", Flag::Raw)];

/// The order cksum's argmatch lists `-a`'s names in (coreutils 9.6's, with
/// crc32b).
const ARGMATCH_ORDER: [&str; 12] = [
    "bsd", "sysv", "crc", "crc32b", "md5", "sha1", "sha224", "sha256", "sha384", "sha512",
    "blake2b", "sm3",
];

/// `text` quoted as coreutils' `quote` does in this locale.
fn quoted(text: &[u8]) -> Vec<u8> {
    let (open, close): (&[u8], &[u8]) = match Charset::from_env() {
        Charset::Utf8 => ("\u{2018}".as_bytes(), "\u{2019}".as_bytes()),
        Charset::Ascii => (b"'", b"'"),
    };
    [open, text, close].concat()
}

fn line(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

#[derive(Debug, PartialEq, Eq)]
enum LengthError {
    Invalid,
    /// More than `uintmax_t` holds.
    TooLarge,
}

/// `-l`'s argument read as cksum 9.1 reads it (`xdectoumax`, so
/// `strtoumax` in base 10): leading white space (C's `isspace`), an
/// optional `+` (a `-` is refused), then decimal digits to the end.
fn parse_length(text: &[u8]) -> Result<u64, LengthError> {
    let blanks = text.iter().take_while(|b| is_c_space(**b)).count();
    let rest = &text[blanks..];
    let digits = rest.strip_prefix(b"+").unwrap_or(rest);
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return Err(LengthError::Invalid);
    }
    digits.iter().try_fold(0u64, |value, &digit| {
        value
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(digit - b'0')))
            .ok_or(LengthError::TooLarge)
    })
}

/// C's `isspace` in the C locale.
fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// The usage hint, after an option error.
const TRY: &[u8] = b"Try 'linerate cksum --help' for more information.";

/// Parses the words after `linerate cksum`; the error is cksum's message,
/// one entry per line (without the program name).
pub fn parse(args: &[OsString], posixly_correct: bool) -> Result<Command, Vec<Vec<u8>>> {
    let mut algorithm = CksumAlgorithm::Crc;
    let mut length: Option<(u64, Vec<u8>)> = None;
    let mut options = Options {
        algorithm,
        specified: false,
        check: false,
        check_options: CheckOptions::default(),
        untagged: false,
        base64: false,
        raw: false,
        zero: false,
        debug: false,
        threads: None,
        operands_given: false,
        files: Vec::new(),
    };
    let mut getopt = Getopt::new(args, SHORT, LONG, posixly_correct)
        .with_arguments(SHORT_WITH_ARGUMENT, LONG_EXACT_WITH_ARGUMENT)
        .with_abbreviable_arguments(LONG_WITH_ARGUMENT)
        .with_exact_flags(LONG_EXACT);
    for found in getopt.by_ref() {
        let found = found.map_err(|e| vec![e.message(), TRY.to_vec()])?;
        let argument = found.argument.clone().unwrap_or_default();
        let argument = std::os::unix::ffi::OsStrExt::as_bytes(argument.as_os_str()).to_vec();
        match found.value {
            Flag::Help => return Ok(Command::Help),
            Flag::Version => return Ok(Command::Version),
            Flag::Tag => options.untagged = false,
            Flag::Untagged => options.untagged = true,
            Flag::Zero => options.zero = true,
            Flag::Debug => options.debug = true,
            Flag::Check => options.check = true,
            // As md5sum: the last of --status, --warn and --quiet wins.
            Flag::Warn => {
                let c = &mut options.check_options;
                (c.warn, c.status, c.quiet) = (true, false, false);
            }
            Flag::Quiet => {
                let c = &mut options.check_options;
                (c.warn, c.status, c.quiet) = (false, false, true);
            }
            Flag::Status => {
                let c = &mut options.check_options;
                (c.warn, c.status, c.quiet) = (false, true, false);
            }
            Flag::Strict => options.check_options.strict = true,
            Flag::IgnoreMissing => options.check_options.ignore_missing = true,
            Flag::Base64 => options.base64 = true,
            Flag::Raw => options.raw = true,
            Flag::Threads => {
                options.threads = Some(
                    crate::sum::args::parse_threads(&argument)
                        .map_err(|e| vec![e.into_bytes(), TRY.to_vec()])?,
                )
            }
            Flag::Algorithm => {
                let name = String::from_utf8_lossy(&argument);
                options.specified = true;
                algorithm = CksumAlgorithm::from_name(&name).ok_or_else(|| {
                    let mut lines = vec![
                        line(&[
                            b"invalid argument ",
                            &quoted(&argument),
                            b" for ",
                            &quoted(b"--algorithm"),
                        ]),
                        b"Valid arguments are:".to_vec(),
                    ];
                    lines.extend(
                        ARGMATCH_ORDER
                            .iter()
                            .map(|n| line(&[b"  - ", &quoted(n.as_bytes())])),
                    );
                    lines.push(TRY.to_vec());
                    // The list's lines carry no program name.
                    lines
                })?;
            }
            Flag::Length => {
                let invalid = line(&[b"invalid length: ", &quoted(&argument)]);
                let bits = match parse_length(&argument) {
                    Ok(bits) => bits,
                    Err(LengthError::Invalid) => return Err(vec![invalid]),
                    Err(LengthError::TooLarge) => {
                        return Err(vec![line(&[
                            &invalid,
                            b": Value too large for defined data type",
                        ])]);
                    }
                };
                if !bits.is_multiple_of(8) {
                    return Err(vec![invalid, b"length is not a multiple of 8".to_vec()]);
                }
                length = Some((bits, argument.clone()));
            }
        }
    }
    // As cksum: a length of 0 is the default, with any function.
    if let Some((bits, text)) = &length
        && *bits != 0
    {
        if !matches!(algorithm, CksumAlgorithm::Blake2b(_)) {
            return Err(vec![
                b"--length is only supported with --algorithm=blake2b".to_vec(),
            ]);
        }
        let bits = usize::try_from(*bits).unwrap_or(usize::MAX);
        algorithm = algorithm.with_length(bits).ok_or_else(|| {
            vec![
                line(&[b"invalid length: ", &quoted(text)]),
                line(&[
                    b"maximum digest length for ",
                    &quoted(b"BLAKE2b"),
                    b" is 512 bits",
                ]),
            ]
        })?;
    }
    options.algorithm = algorithm;
    if options.check && options.specified && algorithm.is_legacy() {
        // 9.1's words; 9.6's, which name crc32b too, for crc32b.
        let message: &[u8] = if algorithm == CksumAlgorithm::Crc32b {
            b"--check is not supported with --algorithm={bsd,sysv,crc,crc32b}"
        } else {
            b"--check is not supported with --algorithm={bsd,sysv,crc}"
        };
        return Err(vec![message.to_vec()]);
    }
    if options.base64 && options.raw {
        return Err(vec![
            b"--base64 and --raw are mutually exclusive".to_vec(),
            TRY.to_vec(),
        ]);
    }
    let zero_check = options.zero && options.check;
    let checked = if zero_check {
        Err("the --zero option is not supported when verifying checksums")
    } else {
        crate::sum::args::check_only_options(&options.check_options, options.check)
    };
    if let Err(message) = checked {
        return Err(vec![message.as_bytes().to_vec(), TRY.to_vec()]);
    }
    options.files = getopt.into_operands();
    options.operands_given = !options.files.is_empty();
    if options.raw && options.files.len() > 1 && !options.check {
        return Err(vec![
            b"the --raw option is not supported with multiple files".to_vec(),
        ]);
    }
    if options.files.is_empty() {
        options.files.push(OsString::from("-"));
    }
    Ok(Command::Run(options))
}
