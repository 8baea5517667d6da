//! `linerate mac`: message authentication codes of files (HMAC-MD5,
//! HMAC-SHA1 and their 96-bit truncations, UMAC-32/64/96/128), printed and
//! checked in `linerate sum`'s (and md5sum's) line formats.
//!
//! Everything but the function is `linerate sum`'s: the options it shares
//! with md5sum and their consistency checks ([`crate::sum::args`]), the
//! output lines and their escaping ([`linerate_sumfile::format`]), the chunked
//! reading of files and standard input ([`linerate_files::read`]), `--check`
//! with its reports, warnings and exit statuses ([`crate::sum::verify`],
//! here through a [`checker::MacChecker`]), and the console.
//!
//! - [`OFFERED`]: the MACs offered, the library registry's
//!   ([`linerate::MacAlgorithm`]) but keyed MD5;
//! - [`args`]: the command line; [`key`]: key and nonce material;
//! - [`engine`]: a keyed MAC streaming files;
//! - [`checker`]: `--check`'s line syntax and comparison for one MAC.
//!
//! Files are tagged one after another on one thread, in argument order.

use std::ffi::OsString;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::process::ExitCode;

pub mod args;
pub mod checker;
pub mod engine;
pub mod key;

use args::{Command, Request, UsageError};
use checker::{MacChecker, MacDialect};
use engine::Mac;

use linerate::MacAlgorithm;

use crate::sum::console::{Console, error_text};
use crate::sum::progress::Progress;
use linerate_files::read::Reader;
use linerate_sumfile::format;

/// Exit status for a command line that cannot run.
const USAGE_STATUS: u8 = 2;

/// The MACs `linerate mac` offers, in the order its help lists them: the
/// registry's, but keyed MD5 (an AH transform, offered by `packets`).
pub const OFFERED: [MacAlgorithm; 8] = [
    MacAlgorithm::HmacMd5,
    MacAlgorithm::HmacMd5_96,
    MacAlgorithm::HmacSha1,
    MacAlgorithm::HmacSha1_96,
    MacAlgorithm::Umac32,
    MacAlgorithm::Umac64,
    MacAlgorithm::Umac96,
    MacAlgorithm::Umac128,
];

const HELP: &str = "\
Usage: linerate mac -a ALG (--key-file=FILE | --key-env=NAME | --key-hex=HEX)
                    [--nonce-hex=HEX [--nonce-reuse] | --nonce-start=HEX]
                    [OPTION]... [FILE]...
Print or check message authentication codes (MACs) of files, in the line
formats of 'linerate sum' and md5sum: 'HEX  FILE' or, with --tag,
'HMAC-MD5 (FILE) = HEX'.

With no FILE, or when FILE is -, read standard input.
  -a, --algorithm=ALG   the MAC (required):
                          hmac-md5, hmac-sha1   HMAC (RFC 2104), 16/20 bytes
                          hmac-md5-96, hmac-sha1-96
                                                their first 12 bytes
                                                (RFC 2403, RFC 2404)
                          umac-32, umac-64, umac-96, umac-128
                                                UMAC (RFC 4418), 4 to 16 bytes
      --key-file=FILE   the key is FILE's bytes, exactly as stored (a final
                          newline is part of it); at most 65536 bytes;
                          - is standard input, /dev/fd/N an inherited
                          descriptor
      --key-env=NAME    the key in hexadecimal in environment variable NAME
      --key-hex=HEX     the key in hexadecimal (two digits per byte); other
                          users can see it (ps): prefer the two above
      --nonce-hex=HEX   the UMAC nonce in hexadecimal: 1 to 16 bytes;
                          required for UMAC (or --nonce-start), refused for
                          HMAC; one FILE only unless --nonce-reuse
      --nonce-start=HEX FILE k (from 0) under nonce HEX + k (see Nonces)
      --nonce-reuse     allow one --nonce-hex for several FILEs
  -b, --binary          read in binary mode
  -c, --check           read MACs from the FILEs and check them
      --tag             create a BSD-style line, tagged HMAC-MD5, HMAC-MD5-96,
                          HMAC-SHA1, HMAC-SHA1-96, UMAC-32, ... UMAC-128
  -t, --text            read in text mode (default)
  -z, --zero            end each output line with NUL, not newline,
                          and disable file name escaping

The following five options are useful only when verifying MACs:
      --ignore-missing  don't fail or report status for missing files
      --quiet           don't print OK for each successfully verified file
      --status          don't output anything, status code shows success
      --strict          exit non-zero for improperly formatted lines
  -w, --warn            warn about improperly formatted lines

      --help        display this help and exit
      --version     output version information and exit

--algorithm, --key-file, --key-env, --key-hex and --nonce-hex cannot be
abbreviated; a misspelled option's value is not echoed.

Keys. HMAC takes a key of any length but not an empty one; a key longer
than 64 bytes is hashed first (RFC 2104), and one shorter than the hash (16
bytes for MD5, 20 for SHA-1) is weak. UMAC takes exactly 16 bytes (an
AES-128 key). The key is never printed, and the buffers that held it are
wiped once the MAC is keyed; but --key-hex puts it on the command line,
where other users may see it (ps, /proc): prefer --key-file (a file, -
for standard input, /dev/fd/N) or --key-env.

Nonces. A UMAC nonce must never be used twice under one key for different
messages: tags of several messages under one key and nonce let whoever sees
them work towards forging a tag. So --nonce-hex tags one FILE; for several,
--nonce-start=HEX gives FILE k (counted from 0, in order) the nonce HEX + k,
a big-endian number as long as HEX (refused before any FILE is read if HEX
is too short for them all); --check with --nonce-start takes line k's nonce
the same way, counting the lines it checks. --nonce-reuse accepts one
--nonce-hex for several FILEs (a checksum-like use: tags that prove files
came from someone holding the key). UMAC pads a nonce with zero bytes to 16
bytes, so 00 and 0000, or any nonces that differ only in trailing zero
bytes, are one nonce. Across runs, keep the ranges apart yourself, or use
HMAC, which takes none.

When checking, each line is 'HEX  FILE' with as many hex digits as the MAC
has (8 for umac-32, 40 for hmac-sha1), or a BSD line tagged with -a's MAC;
other lines are improperly formatted, as in 'linerate sum'. Tags are
compared in constant time.

Exit status:
  0  every FILE was tagged, or every check passed
  1  a FILE could not be read, or a check failed (as in 'linerate sum')
  2  a bad command line: an unknown option, or a missing or invalid
       algorithm, key or nonce, or an unreadable key file

HMAC-MD5 stays a sound MAC although MD5 itself is broken for collisions.
";

/// Runs `linerate mac` with `args` (the words after `linerate mac`).
pub fn main(args: &[OsString]) -> ExitCode {
    let posixly_correct = std::env::var_os("POSIXLY_CORRECT").is_some();
    let request = match args::parse(args, posixly_correct) {
        Ok(Command::Run(request)) => request,
        Ok(Command::Help) => return exit(print_only(HELP.as_bytes())),
        Ok(Command::Version) => return exit(print_only(version().as_bytes())),
        Err(UsageError::Options(message)) => {
            report(&message, true);
            return ExitCode::from(USAGE_STATUS);
        }
        Err(UsageError::Setup(message)) => {
            report(&message, false);
            return ExitCode::from(USAGE_STATUS);
        }
    };
    match keyed(&request) {
        Ok(mac) => exit(run(&request, mac)),
        Err(message) => {
            report(&message, false);
            ExitCode::from(USAGE_STATUS)
        }
    }
}

/// The MAC of `request`, keyed; the buffer that held the key is wiped on
/// the way out.
fn keyed(request: &Request) -> Result<Mac, key::SetupError> {
    let algorithm = request.algorithm;
    let key = key::load_key(algorithm, &request.key)?;
    let setup = |m: String| m.into_bytes();
    let (hex, option) = match (&request.nonce_hex, &request.nonce_start) {
        (Some(_), Some(_)) => {
            return Err(setup(
                "give the nonce once: --nonce-hex or --nonce-start".to_string(),
            ));
        }
        (None, Some(start)) => (Some(start.as_os_str()), "--nonce-start"),
        (hex, None) => (hex.as_deref(), "--nonce-hex"),
    };
    let nonce = key::load_nonce(algorithm, hex, option)?;
    let tagging = (!request.check).then_some(request.files.len());
    if let (Some(files @ 2..), Some(_)) = (tagging, &request.nonce_hex)
        && !request.nonce_reuse
    {
        return Err(setup(format!(
            "{}: --nonce-hex would tag {files} files under one nonce; give --nonce-start HEX \
             (a nonce per file) or --nonce-reuse to accept that",
            algorithm.name()
        )));
    }
    if let (Some(files), Some(start)) = (tagging, nonce.as_deref())
        && request.nonce_start.is_some()
        && !key::nonces_left(start, files)
    {
        return Err(setup(format!(
            "--nonce-start: {files} files need more nonces than its {} bytes leave; give a longer one",
            start.len()
        )));
    }
    let mac = Mac::new(algorithm, &key, nonce);
    Ok(if request.nonce_start.is_some() {
        mac.counting()
    } else {
        mac
    })
}

fn exit(ok: bool) -> ExitCode {
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn version() -> String {
    format!(
        "linerate mac (linerate) {}\nLicense MIT OR Apache-2.0.\n",
        env!("CARGO_PKG_VERSION")
    )
}

/// `linerate: MESSAGE` on stderr, with the hint to `--help` if asked.
fn report(message: &[u8], hint: bool) {
    let mut line = format!("{}: ", crate::PROGRAM).into_bytes();
    line.extend_from_slice(message);
    line.push(b'\n');
    if hint {
        line.extend_from_slice(b"Try 'linerate mac --help' for more information.\n");
    }
    // If stderr itself fails there is nowhere left to report it.
    std::io::stderr().lock().write_all(&line).ok();
}

/// Prints `text` (help, version) and reports a failed write.
fn print_only(text: &[u8]) -> bool {
    let mut console = Console::new(Progress::hidden());
    console.print(text);
    console.finish(true)
}

fn run(request: &Request, mac: Mac) -> bool {
    let total = || (!request.check).then(|| crate::sum::regular_file_bytes(&request.files));
    let mut console = Console::new(Progress::new(total));
    let ok = if request.check {
        let checker = MacChecker {
            dialect: MacDialect(request.algorithm),
            mac,
        };
        crate::sum::verify::run_with(&mut console, &request.files, request.check_options, checker)
    } else {
        compute(&mut console, request, mac)
    };
    console.finish(ok)
}

/// Prints the line of every file in argument order; true if all could be
/// read. A file that cannot be is reported and skipped.
fn compute(console: &mut Console, request: &Request, mut mac: Mac) -> bool {
    let mut reader = Reader::default();
    let tag_name = request.algorithm.tag().as_bytes();
    let mut ok = true;
    let mut line = Vec::new();
    let progress = std::sync::Arc::clone(&console.progress);
    for file in &request.files {
        match mac.tag_input(crate::sum::input(file), &mut reader, &*progress) {
            Ok(tag) => {
                line.clear();
                format::push_line(&mut line, tag_name, &tag, file.as_bytes(), request.style);
                console.print(&line);
            }
            Err(e) => {
                console.error_about(file.as_bytes(), &error_text(e.io_error()));
                ok = false;
            }
        }
    }
    ok
}
