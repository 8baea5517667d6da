//! `linerate packets`'s command lines (sign, verify, bench), parsed with the
//! getopt rules the other subcommands use ([`crate::sum::getopt`]), and the
//! key, read and checked with `linerate mac`'s rules ([`crate::mac::key`]).

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};

use zeroize::Zeroizing;

use linerate::MacAlgorithm;

use crate::mac::key::{self, KeySource};
use crate::sum::getopt::{Getopt, LongOption};
use linerate_packets::icv::{EVERY, is_tcp, tcp_ao};

/// What to run.
pub enum Command {
    Sign(Sign),
    Verify(Verify),
    Bench(Bench),
    Help,
}

/// An algorithm and where its key comes from.
pub struct Keying {
    pub alg: MacAlgorithm,
    pub keys: Keys,
}

/// Where the keys come from.
pub enum Keys {
    /// One key for everything.
    One(KeySource),
    /// `--key-table FILE`: keys per connection (TCP options only).
    Table(OsString),
}

pub struct Sign {
    pub input: OsString,
    pub output: OsString,
    /// The AH's SPI and first sequence number; `None` for TCP options.
    pub ah: Option<(u32, u32)>,
    pub keying: Keying,
    /// TCP-AO's KeyIDs and option flag.
    pub ao: AoOptions,
    /// Write OUT even when IN is damaged (what was signed before).
    pub partial: bool,
}

/// TCP-AO's settings: `--key-id`, `--rnext-key-id`, `--exclude-options`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AoOptions {
    pub key_id: Option<u8>,
    pub rnext_key_id: Option<u8>,
    pub exclude_options: bool,
}

pub struct Verify {
    pub input: OsString,
    pub keying: Keying,
    pub ao: AoOptions,
    pub spi: Option<u32>,
    pub verbose: bool,
}

pub struct Bench {
    pub input: OsString,
    pub algs: Vec<MacAlgorithm>,
    pub jobs: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flag {
    Help,
    Verbose,
    Partial,
    Output,
    Spi,
    Alg,
    KeyFile,
    KeyHex,
    KeyEnv,
    SeqStart,
    Jobs,
    KeyId,
    RnextKeyId,
    ExcludeOptions,
    KeyTable,
}

const SHORT: &[(u8, Flag)] = &[(b'h', Flag::Help), (b'v', Flag::Verbose)];
const LONG: &[LongOption<Flag>] = &[
    LongOption {
        name: "help",
        value: Flag::Help,
    },
    LongOption {
        name: "verbose",
        value: Flag::Verbose,
    },
    LongOption {
        name: "partial",
        value: Flag::Partial,
    },
    LongOption {
        name: "exclude-options",
        value: Flag::ExcludeOptions,
    },
];
const SHORT_WITH_ARGUMENT: &[(u8, Flag)] = &[(b'o', Flag::Output), (b'j', Flag::Jobs)];
const LONG_WITH_ARGUMENT: &[LongOption<Flag>] = &[
    LongOption {
        name: "output",
        value: Flag::Output,
    },
    LongOption {
        name: "spi",
        value: Flag::Spi,
    },
    LongOption {
        name: "alg",
        value: Flag::Alg,
    },
    LongOption {
        name: "key-file",
        value: Flag::KeyFile,
    },
    LongOption {
        name: "key-hex",
        value: Flag::KeyHex,
    },
    LongOption {
        name: "key-env",
        value: Flag::KeyEnv,
    },
    LongOption {
        name: "seq-start",
        value: Flag::SeqStart,
    },
    LongOption {
        name: "threads",
        value: Flag::Jobs,
    },
    LongOption {
        name: "key-id",
        value: Flag::KeyId,
    },
    LongOption {
        name: "key-table",
        value: Flag::KeyTable,
    },
    LongOption {
        name: "rnext-key-id",
        value: Flag::RnextKeyId,
    },
];

/// Everything given, before the subcommand's checks.
#[derive(Default)]
struct Given {
    verbose: bool,
    partial: bool,
    output: Option<OsString>,
    spi: Option<u32>,
    algs: Vec<MacAlgorithm>,
    key_file: Option<OsString>,
    key_hex: Option<Zeroizing<Vec<u8>>>,
    key_env: Option<OsString>,
    seq_start: Option<u32>,
    jobs: Option<usize>,
    key_id: Option<u8>,
    rnext_key_id: Option<u8>,
    exclude_options: bool,
    key_table: Option<OsString>,
}

/// Parses `sign|verify|bench ARGS...`; the error is a one-line message.
pub fn parse(args: &[OsString]) -> Result<Command, String> {
    let Some((sub, rest)) = args.split_first() else {
        return Err("missing command: give sign, verify or bench".into());
    };
    let sub = sub.to_string_lossy().into_owned();
    if matches!(sub.as_str(), "help" | "--help" | "-h") {
        return Ok(Command::Help);
    }
    if !matches!(sub.as_str(), "sign" | "verify" | "bench") {
        return Err(format!(
            "unknown command '{sub}': give sign, verify or bench"
        ));
    }
    let mut given = Given::default();
    let mut getopt = Getopt::new(rest, SHORT, &[], false)
        .with_arguments(SHORT_WITH_ARGUMENT, LONG_WITH_ARGUMENT)
        .hiding_values()
        .with_exact_flags(LONG);
    for found in getopt.by_ref() {
        let found = found.map_err(|e| String::from_utf8_lossy(&e.message()).into_owned())?;
        match (found.value, found.argument) {
            (Flag::Help, _) => return Ok(Command::Help),
            (Flag::Verbose, _) => given.verbose = true,
            (Flag::Partial, _) => given.partial = true,
            (Flag::ExcludeOptions, _) => given.exclude_options = true,
            (flag, Some(argument)) => apply(&mut given, flag, argument)?,
            (_, None) => return Err("option requires an argument".into()),
        }
    }
    let operands = getopt.into_operands();
    let input = match operands.as_slice() {
        [one] => one.clone(),
        [] => return Err(format!("{sub}: missing input capture")),
        [_, extra, ..] => {
            return Err(format!(
                "{sub}: extra operand '{}'",
                extra.to_string_lossy()
            ));
        }
    };
    if input == "-" && given.key_file.as_deref() == Some(std::ffi::OsStr::new("-")) {
        return Err(format!(
            "{sub}: standard input cannot be both the capture and the key file"
        ));
    }
    let refuse = |what: &str, given: bool| {
        if given {
            Err(format!("{sub}: {what} is not an option of {sub}"))
        } else {
            Ok(())
        }
    };
    match sub.as_str() {
        "sign" => {
            refuse("-v", given.verbose)?;
            refuse("-j", given.jobs.is_some())?;
            let output = given
                .output
                .take()
                .ok_or("sign: missing -o OUT (the signed capture)")?;
            let spi = given.spi;
            let seq_start = given.seq_start;
            let keying = keying(&sub, &mut given)?;
            let ao = ao_options(&sub, &given, keying.alg)?;
            if is_tcp(keying.alg) {
                not_ah(&sub, "--spi", spi.is_some(), keying.alg)?;
                not_ah(&sub, "--seq-start", seq_start.is_some(), keying.alg)?;
                return Ok(Command::Sign(Sign {
                    input,
                    output,
                    ah: None,
                    keying,
                    ao,
                    partial: given.partial,
                }));
            }
            let spi = spi.ok_or("sign: missing --spi N")?;
            // UMAC's nonce is the sequence number: a second run from 1 under
            // the same key would use every nonce again.
            let seq_start = match given.seq_start {
                Some(n) => n,
                None if keying.alg.takes_nonce() => {
                    return Err(format!(
                        "sign: {} takes its nonces from the sequence numbers: give --seq-start N \
                         past every number already used under this key",
                        keying.alg.name()
                    ));
                }
                None => 1,
            };
            Ok(Command::Sign(Sign {
                input,
                output,
                ah: Some((spi, seq_start)),
                keying,
                ao,
                partial: given.partial,
            }))
        }
        "verify" => {
            refuse("-o", given.output.is_some())?;
            refuse("--partial", given.partial)?;
            refuse("--seq-start", given.seq_start.is_some())?;
            refuse("-j", given.jobs.is_some())?;
            let keying = keying(&sub, &mut given)?;
            if is_tcp(keying.alg) {
                not_ah(&sub, "--spi", given.spi.is_some(), keying.alg)?;
            }
            if given.rnext_key_id.is_some() {
                return Err("verify: --rnext-key-id is what sign writes: give --key-id".into());
            }
            let ao = ao_options(&sub, &given, keying.alg)?;
            Ok(Command::Verify(Verify {
                input,
                keying,
                ao,
                spi: given.spi,
                verbose: given.verbose,
            }))
        }
        _ => {
            refuse("-o", given.output.is_some())?;
            refuse("--partial", given.partial)?;
            refuse("--seq-start", given.seq_start.is_some())?;
            refuse("--spi", given.spi.is_some())?;
            refuse("-v", given.verbose)?;
            refuse(
                "--key-id, --rnext-key-id or --exclude-options",
                given.key_id.is_some() || given.rnext_key_id.is_some() || given.exclude_options,
            )?;
            refuse(
                "a key",
                given.key_file.is_some()
                    || given.key_hex.is_some()
                    || given.key_env.is_some()
                    || given.key_table.is_some(),
            )?;
            let mut algs = given.algs;
            if algs.is_empty() {
                algs = EVERY.to_vec();
            }
            algs.dedup();
            let jobs = given.jobs.unwrap_or_else(crate::sum::args::default_threads);
            Ok(Command::Bench(Bench { input, algs, jobs }))
        }
    }
}

/// TCP-AO's options, refused with any other algorithm.
fn ao_options(sub: &str, given: &Given, alg: MacAlgorithm) -> Result<AoOptions, String> {
    let ao = AoOptions {
        key_id: given.key_id,
        rnext_key_id: given.rnext_key_id,
        exclude_options: given.exclude_options,
    };
    if tcp_ao(alg).is_none() && ao != AoOptions::default() {
        return Err(format!(
            "{sub}: --key-id, --rnext-key-id and --exclude-options are TCP-AO's, not {}'s",
            alg.name()
        ));
    }
    Ok(ao)
}

/// An AH option given with a TCP option's algorithm.
fn not_ah(sub: &str, option: &str, given: bool, alg: MacAlgorithm) -> Result<(), String> {
    if given {
        Err(format!(
            "{sub}: {option} is an AH option: {} signs TCP segments, not IP packets",
            alg.name()
        ))
    } else {
        Ok(())
    }
}

fn apply(given: &mut Given, flag: Flag, argument: OsString) -> Result<(), String> {
    let text = || argument.to_string_lossy().into_owned();
    match flag {
        Flag::Output => given.output = Some(argument),
        Flag::Spi => {
            let spi = number(&text(), "--spi")?;
            if spi == 0 {
                return Err("--spi: SPI 0 is reserved and never sent (RFC 4302 2.4)".into());
            }
            given.spi = Some(spi);
        }
        Flag::SeqStart => {
            let seq = number(&text(), "--seq-start")?;
            if seq == 0 {
                return Err("--seq-start: sequence numbers start at 1 (RFC 4302 3.3.2)".into());
            }
            given.seq_start = Some(seq);
        }
        Flag::Alg => given
            .algs
            .push(MacAlgorithm::from_name(text().as_bytes(), &EVERY).map_err(|e| e.0)?),
        Flag::KeyFile => given.key_file = Some(argument),
        Flag::KeyHex => given.key_hex = Some(Zeroizing::new(argument.into_vec())),
        Flag::KeyEnv => given.key_env = Some(argument),
        Flag::KeyTable => given.key_table = Some(argument),
        Flag::Jobs => {
            given.jobs = Some(crate::sum::args::parse_threads(argument.as_bytes())?);
        }
        Flag::KeyId => given.key_id = Some(key_id(&text(), "--key-id")?),
        Flag::RnextKeyId => given.rnext_key_id = Some(key_id(&text(), "--rnext-key-id")?),
        Flag::Help | Flag::Verbose | Flag::Partial | Flag::ExcludeOptions => {}
    }
    Ok(())
}

/// A TCP-AO KeyID: 0 to 255.
fn key_id(text: &str, option: &str) -> Result<u8, String> {
    text.parse::<u8>()
        .map_err(|_| format!("{option}: '{text}' is not a KeyID from 0 to 255"))
}

/// A 32-bit number in decimal or `0x` hex. Both options that take one
/// accept 1 to 4294967295 (0 is refused by the caller with its own
/// reason), which the error says.
fn number(text: &str, option: &str) -> Result<u32, String> {
    let parsed = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(hex, 16),
        None => text.parse::<u32>(),
    };
    parsed.map_err(|_| format!("{option}: '{text}' is not a number from 1 to 4294967295"))
}

fn keying(sub: &str, given: &mut Given) -> Result<Keying, String> {
    let alg = match given.algs.as_slice() {
        [] => return Err(format!("{sub}: missing --alg ALG")),
        [one] => *one,
        _ => return Err(format!("{sub}: give --alg once")),
    };
    if let Some(table) = given.key_table.take() {
        if !is_tcp(alg) {
            return Err(format!(
                "{sub}: --key-table gives keys per TCP connection: for tcp-md5 and tcp-ao-*, not {}",
                alg.name()
            ));
        }
        if given.key_file.is_some() || given.key_hex.is_some() || given.key_env.is_some() {
            return Err(format!(
                "{sub}: give --key-table or one key (--key-file, --key-env, --key-hex), not both"
            ));
        }
        return Ok(Keying {
            alg,
            keys: Keys::Table(table),
        });
    }
    let key = KeySource::choose(
        given.key_file.take(),
        given.key_hex.take(),
        given.key_env.take(),
        alg,
    )?;
    Ok(Keying {
        alg,
        keys: Keys::One(key),
    })
}

/// Reads and checks the key with `linerate mac`'s rules: any non-empty key
/// for the HMACs and keyed MD5, exactly 16 bytes for UMAC.
pub fn load_key(alg: MacAlgorithm, source: &KeySource) -> Result<Zeroizing<Vec<u8>>, String> {
    key::load_key(alg, source).map_err(|m| String::from_utf8_lossy(&m).into_owned())
}
