//! The `linerate` command: each subcommand lives in its own module and
//! parses its own arguments, because `sum` follows GNU md5sum's option rules
//! and `md5` follows RFC 1321's driver, neither of which a generic parser
//! reproduces exactly.

use std::ffi::OsString;
use std::process::ExitCode;

mod audit;
mod cksum;
mod device;
mod etag;
mod mac;
mod mddriver;
mod output;
mod packets;
mod report;
mod speed;
mod sum;

/// The name the command uses for itself in messages.
const PROGRAM: &str = "linerate";

const USAGE: &str = "\
Usage: linerate COMMAND [ARGS]...

Commands:
  sum [OPTION]... [FILE]...   print or check MD5 or MD5-P/K sums (GNU md5sum compatible)
  cksum [-a TYPE] [OPTION]... [FILE]...
                              CRC, sysv, bsd, MD5, SHA-1/2, BLAKE2b and SM3 sums
                              (GNU cksum 9.1 compatible, --check included)
  etag [--part-size SIZE | --checksum ALGS | --match ETAG | --check | --verify L] FILE...
                              S3 ETags and checksums of uploads, the part size
                              that reproduces one, a tree against S3's listing
  audit [OPTION]... MANIFEST [DIR]
                              compare a tree with a manifest from 'sum -r':
                              matched, changed, missing and new files
  md5 [-sSTRING | -x | -t | FILE]...
                              RFC 1321's MD5 driver: strings, files, test suite, time trial
  md5p [-k K] [-sSTRING | -t | FILE]...
                              the same driver for RFC 1810's MD5-P/K (default K = 16)
  mac -a ALG (--key-file F | --key-env V | --key-hex HEX) [OPTION]... [FILE]...
                              print or check MACs (HMAC-MD5, HMAC-SHA1, their -96
                              truncations, UMAC-32/64/96/128) in sum's line formats
  packets sign|verify|bench CAPTURE [OPTION]...
                              IP Authentication Headers (RFC 4302) on the
                              packets of a pcap/pcapng capture, and their speed
  speed [OPTION]... [ALGO]... the performance lab: throughput by block size, key
                              setup, per-packet MACs, RFC 1810's model and link
                              rates, with the seed documents' figures beside
  report [-o FILE] [--markdown] [--quick]
                              the lab as one self-contained HTML (or Markdown)
                              page with plots
  help                        this text

Every command takes --help (its options and exit status) and --version.
LINERATE_MD5_BACKEND, LINERATE_LANES_BACKEND and LINERATE_NH_BACKEND force
the single-stream MD5, the lanes (multi-buffer) MD5 and UMAC's NH
implementations; LINERATE_FILE_IO=auto|map|read how files are read.
MD5 is broken for collision resistance: use it against accidents and for
compatibility, not against an adversary.
";

/// Whether `--version` is among the options (before any `--`).
fn asks_version(args: &[OsString]) -> bool {
    args.iter()
        .take_while(|a| a.as_os_str() != "--")
        .any(|a| a.as_os_str() == "--version")
}

fn main() -> ExitCode {
    run(std::env::args_os().skip(1).collect())
}

/// Runs the command line (without the program name) and returns the exit code.
fn run(args: Vec<OsString>) -> ExitCode {
    if let Err(e) = linerate::backend::check_env().and_then(|()| linerate_files::check_env()) {
        eprintln!("{PROGRAM}: {e}");
        return ExitCode::from(2);
    }
    let Some((command, rest)) = args.split_first() else {
        eprint!("{USAGE}");
        return ExitCode::from(2);
    };
    // `--version` means the same to every command (sum and mac print
    // md5sum's longer text themselves).
    let named = command.to_str().unwrap_or_default();
    let commands = ["etag", "audit", "md5", "md5p", "packets", "speed", "report"];
    if commands.contains(&named) && asks_version(rest) {
        let version = env!("CARGO_PKG_VERSION");
        output::print_or_quiet(format!("linerate {named} (linerate) {version}\n").as_bytes());
        return ExitCode::SUCCESS;
    }
    match command.to_str() {
        Some("sum") => sum::main(rest),
        Some("cksum") => cksum::main(rest),
        Some("mac") => mac::main(rest),
        Some("etag") => etag::main(rest),
        Some("audit") => audit::main(rest),
        Some("md5") => mddriver::main(rest),
        Some("md5p") => mddriver::main_md5p(rest),
        Some("packets") => packets::main(rest),
        Some("speed") => speed::main(rest),
        Some("report") => report::main(rest),
        Some("help" | "--help" | "-h") => {
            output::print_or_quiet(USAGE.as_bytes());
            ExitCode::SUCCESS
        }
        Some("--version" | "-V") => {
            output::print_or_quiet(format!("linerate {}\n", env!("CARGO_PKG_VERSION")).as_bytes());
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!(
                "{PROGRAM}: unknown command '{}'\nTry 'linerate help' for more information.",
                command.to_string_lossy()
            );
            ExitCode::from(2)
        }
    }
}
