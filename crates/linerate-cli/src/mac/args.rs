//! `linerate mac`'s command line: md5sum's options, parsed and checked as
//! `linerate sum` does ([`crate::sum::args`], [`crate::sum::getopt`]), plus
//! `-a`, `--key-file`, `--key-hex` and `--nonce-hex`, whose long names must
//! be spelled out in full.

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};

use zeroize::Zeroizing;

use linerate::MacAlgorithm;
use linerate::registry::names;

use super::OFFERED;
use super::key::KeySource;
use crate::sum::args::{CheckOptions, Flag, Given, LONG, SHORT};
use crate::sum::getopt::{Getopt, LongOption};
use linerate_sumfile::format::LineStyle;

/// A command line that parsed; the key and nonce are checked later
/// ([`super::key`]), once every option is known.
pub struct Request {
    /// `-c`: the operands are checksum files to verify.
    pub check: bool,
    pub style: LineStyle,
    pub check_options: CheckOptions,
    pub algorithm: MacAlgorithm,
    pub key: KeySource,
    /// `--nonce-hex`, as given.
    pub nonce_hex: Option<OsString>,
    /// `--nonce-start`, as given: message k takes this nonce plus k.
    pub nonce_start: Option<OsString>,
    /// `--nonce-reuse`: several files may be tagged under one `--nonce-hex`.
    pub nonce_reuse: bool,
    /// The operands; never empty (`-` stands for standard input).
    pub files: Vec<OsString>,
}

/// What the command line asks for.
pub enum Command {
    Run(Request),
    Help,
    Version,
}

/// A command line that cannot run.
#[derive(Debug, PartialEq, Eq)]
pub enum UsageError {
    /// An option md5sum's way would reject (unknown, ambiguous, missing its
    /// argument, meaningless in this mode): reported with the hint to
    /// `--help`.
    Options(Vec<u8>),
    /// A missing or invalid algorithm, key or nonce: one line.
    Setup(Vec<u8>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MacFlag {
    /// One of md5sum's options.
    Sum(Flag),
    Algorithm,
    KeyFile,
    KeyHex,
    KeyEnv,
    NonceHex,
    NonceStart,
    NonceReuse,
}

const SHORT_WITH_ARGUMENT: &[(u8, MacFlag)] = &[(b'a', MacFlag::Algorithm)];

const LONG_WITH_ARGUMENT: &[LongOption<MacFlag>] = &[
    LongOption {
        name: "algorithm",
        value: MacFlag::Algorithm,
    },
    LongOption {
        name: "key-file",
        value: MacFlag::KeyFile,
    },
    LongOption {
        name: "key-hex",
        value: MacFlag::KeyHex,
    },
    LongOption {
        name: "key-env",
        value: MacFlag::KeyEnv,
    },
    LongOption {
        name: "nonce-hex",
        value: MacFlag::NonceHex,
    },
    LongOption {
        name: "nonce-start",
        value: MacFlag::NonceStart,
    },
];

/// Flags of linerate mac's own, matched only when spelled out.
const EXACT_FLAGS: &[LongOption<MacFlag>] = &[LongOption {
    name: "nonce-reuse",
    value: MacFlag::NonceReuse,
}];

/// linerate mac's own options as given.
#[derive(Default)]
struct MacGiven {
    algorithm: Option<MacAlgorithm>,
    key_file: Option<OsString>,
    key_hex: Option<Zeroizing<Vec<u8>>>,
    key_env: Option<OsString>,
    nonce_hex: Option<OsString>,
    nonce_start: Option<OsString>,
    nonce_reuse: bool,
}

/// Parses `linerate mac`'s arguments. As in `linerate sum`, `--help` and
/// `--version` act as soon as they are met, and an invalid `-a` is reported
/// when met.
pub fn parse(args: &[OsString], posixly_correct: bool) -> Result<Command, UsageError> {
    let short: Vec<(u8, MacFlag)> = SHORT.iter().map(|&(c, f)| (c, MacFlag::Sum(f))).collect();
    let long: Vec<LongOption<MacFlag>> = LONG
        .iter()
        .map(|o| LongOption {
            name: o.name,
            value: MacFlag::Sum(o.value),
        })
        .collect();
    let mut given = Given::default();
    let mut mac = MacGiven::default();
    let mut getopt = Getopt::new(args, &short, &long, posixly_correct)
        .with_arguments(SHORT_WITH_ARGUMENT, LONG_WITH_ARGUMENT)
        .with_exact_flags(EXACT_FLAGS)
        .hiding_values();
    for found in getopt.by_ref() {
        let found = found.map_err(|e| UsageError::Options(e.message()))?;
        match (found.value, found.argument) {
            (MacFlag::Sum(Flag::Help), _) => return Ok(Command::Help),
            (MacFlag::Sum(Flag::Version), _) => return Ok(Command::Version),
            (MacFlag::Sum(flag), _) => given.apply(flag),
            (MacFlag::NonceReuse, _) => mac.nonce_reuse = true,
            (flag, Some(argument)) => apply_argument(&mut mac, flag, argument)?,
            (_, None) => unreachable!("getopt gives these options an argument"),
        }
    }
    given
        .validate()
        .map_err(|m| UsageError::Options(m.as_bytes().to_vec()))?;
    let setup = |m: String| UsageError::Setup(m.into_bytes());
    let algorithm = mac.algorithm.ok_or_else(|| {
        setup(format!(
            "no algorithm: choose one with -a ({})",
            names(&OFFERED)
        ))
    })?;
    let key =
        KeySource::choose(mac.key_file, mac.key_hex, mac.key_env, algorithm).map_err(setup)?;
    let mut files = getopt.into_operands();
    if files.is_empty() {
        files.push(OsString::from("-"));
    }
    if matches!(&key, KeySource::File(path) if path == "-") && files.iter().any(|f| f == "-") {
        return Err(setup(
            "standard input cannot give both the key (--key-file -) and a message".to_string(),
        ));
    }
    Ok(Command::Run(Request {
        check: given.check,
        style: given.style(),
        check_options: given.check_options,
        algorithm,
        key,
        nonce_hex: mac.nonce_hex,
        nonce_start: mac.nonce_start,
        nonce_reuse: mac.nonce_reuse,
        files,
    }))
}

/// An option of linerate mac's own, with its argument; the last of each
/// wins. A `--key-hex` argument goes straight into a wiped buffer.
fn apply_argument(mac: &mut MacGiven, flag: MacFlag, argument: OsString) -> Result<(), UsageError> {
    match flag {
        MacFlag::Algorithm => {
            let algorithm = MacAlgorithm::from_name(argument.as_bytes(), &OFFERED)
                .map_err(|m| UsageError::Setup(m.0.into_bytes()))?;
            mac.algorithm = Some(algorithm);
        }
        MacFlag::KeyFile => mac.key_file = Some(argument),
        MacFlag::KeyHex => mac.key_hex = Some(Zeroizing::new(argument.into_vec())),
        MacFlag::KeyEnv => mac.key_env = Some(argument),
        MacFlag::NonceHex => mac.nonce_hex = Some(argument),
        MacFlag::NonceStart => mac.nonce_start = Some(argument),
        MacFlag::Sum(_) | MacFlag::NonceReuse => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_strs(args: &[&str]) -> Result<Command, UsageError> {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        parse(&args, false)
    }

    fn request(args: &[&str]) -> Request {
        match parse_strs(args) {
            Ok(Command::Run(request)) => request,
            Ok(_) => panic!("help or version"),
            Err(e) => panic!("{e:?}"),
        }
    }

    fn error(args: &[&str]) -> (bool, String) {
        match parse_strs(args) {
            Err(UsageError::Options(m)) => (true, String::from_utf8_lossy(&m).into_owned()),
            Err(UsageError::Setup(m)) => (false, String::from_utf8_lossy(&m).into_owned()),
            Ok(_) => panic!("expected an error"),
        }
    }

    #[test]
    fn a_full_command_line() {
        let r = request(&[
            "-a",
            "UMAC-64",
            "--key-hex=00",
            "--nonce-hex",
            "01",
            "--tag",
            "f",
            "-z",
            "g",
        ]);
        assert_eq!(r.algorithm, MacAlgorithm::Umac64);
        assert!(matches!(&r.key, KeySource::Hex(hex) if hex.as_slice() == b"00"));
        assert_eq!(r.nonce_hex, Some(OsString::from("01")));
        assert!(r.style.tagged && r.style.binary && r.style.zero);
        assert_eq!(r.files, vec![OsString::from("f"), OsString::from("g")]);
        assert!(!r.check);

        let r = request(&[
            "--algorithm",
            "hmac-sha1",
            "--key-file",
            "k",
            "-c",
            "--quiet",
        ]);
        assert!(matches!(&r.key, KeySource::File(path) if path == "k"));
        assert!(r.check && r.check_options.quiet);
        assert_eq!(r.files, vec![OsString::from("-")]);
    }

    #[test]
    fn errors() {
        assert_eq!(
            error(&["--key-hex", "00"]).1,
            format!("no algorithm: choose one with -a ({})", names(&OFFERED))
        );
        assert_eq!(
            error(&["-a", "hmac-md5"]),
            (
                false,
                "hmac-md5 needs a key: give --key-file FILE, --key-env NAME or --key-hex HEX"
                    .into()
            )
        );
        assert_eq!(
            error(&["-a", "hmac-md5", "--key-file", "k", "--key-hex", "00"]),
            (
                false,
                "give the key once: one of --key-file, --key-env, --key-hex".into()
            )
        );
        assert!(
            error(&["-a", "md5"])
                .1
                .starts_with("invalid algorithm 'md5'")
        );
        assert_eq!(
            error(&["-a", "hmac-md5", "--key-hex"]),
            (true, "option '--key-hex' requires an argument".into())
        );
        assert_eq!(
            error(&["--key", "x"]),
            (true, "unrecognized option '--key'".into())
        );
        // A misspelled key option never shows the key.
        assert_eq!(
            error(&["-a", "hmac-md5", "--keyhex=00112233"]),
            (true, "unrecognized option '--keyhex=...'".into())
        );
        assert_eq!(
            error(&["-a", "hmac-md5", "--key=00112233"]),
            (true, "unrecognized option '--key=...'".into())
        );
        assert_eq!(error(&["-j", "2"]), (true, "invalid option -- 'j'".into()));
        assert_eq!(
            error(&["-c", "--tag", "-a", "hmac-md5"]),
            (
                true,
                "the --tag option is meaningless when verifying checksums".into()
            )
        );
        assert_eq!(
            error(&["--quiet"]),
            (
                true,
                "the --quiet option is meaningful only when verifying checksums".into()
            )
        );
    }

    #[test]
    fn help_and_version_act_when_met() {
        assert!(matches!(parse_strs(&["--help", "-x"]), Ok(Command::Help)));
        assert!(matches!(parse_strs(&["--vers"]), Ok(Command::Version)));
        assert!(parse_strs(&["-a", "x", "--help"]).is_err());
    }
}
