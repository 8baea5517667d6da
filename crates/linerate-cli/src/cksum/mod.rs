//! `linerate cksum`: GNU coreutils `cksum` (9.1) computing sums, byte for
//! byte: `-a sysv|bsd|crc|md5|sha1|sha224|sha256|sha384|sha512|blake2b|sm3`,
//! `-l BITS` for BLAKE2b, BSD-style lines by default (`--tag`),
//! `--untagged`, `-z`; the legacy checksums as numbers (`CHECKSUM BYTES
//! NAME` for crc, `CHECKSUM BLOCKS NAME` for sysv and bsd). The only
//! intended differences are the program name in messages (`linerate:`) and
//! the usage hint (`Try 'linerate cksum --help' ...`). `-j N` (threads) is
//! linerate's own.
//!
//! `--check` (with `--ignore-missing`, `--quiet`, `--status`, `--strict`,
//! `-w`) reads BSD-style lines of every digest, each checked with the
//! function its tag names (`BLAKE2b-256` included), and untagged lines
//! only under `-a`, as cksum 9.1 does, rule for rule
//! ([`linerate_sumfile::cksum`]); it runs on `linerate sum -c`'s checker
//! ([`crate::sum::verify`]).
//!
//! Options are read as cksum 9.1's getopt_long reads them: long ones by
//! any unique prefix (linerate's and 9.2's additions only in full, so
//! that no 9.1 abbreviation changes meaning), `-l` as `xdectoumax` reads
//! a number.
//!
//! From later coreutils, as upstream documents them: `--base64` and
//! `--raw` (9.2; digests in base64 or as raw bytes, the legacy sums raw
//! as big-endian numbers, `--raw` for one FILE only) and `-a crc32b`
//! (9.6; zlib's CRC-32, printed as crc prints). `--check` reads 9.1's hex
//! lines only (not base64 ones).
//!
//! Files are hashed by the file engine ([`linerate_files::whole`]): MD5 in
//! the lanes of the multi-buffer engine, the others on its workers from the
//! pieces it reads, several files at once on `-j` threads; lines in
//! argument order.

mod args;

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;
use std::process::ExitCode;

use linerate::cksum::{CksumAlgorithm, CksumValue};
use linerate_files::FileError;
use linerate_files::read::Reader;
use linerate_files::whole::digests_in_order;
use linerate_sumfile::check::LineOf;
use linerate_sumfile::cksum::CksumFamily;
use linerate_sumfile::format::{self, LineStyle, push_hex};

use crate::sum::console::{Console, error_text};
use crate::sum::progress::Progress;
use crate::sum::verify::Checker;
use crate::sum::{input, print_only, regular_file_bytes};
use args::{Command, Options};

const HELP: &str = "\
Usage: linerate cksum [OPTION]... [FILE]...
Print CRC and size for each FILE, or another checksum with -a, as GNU
coreutils' cksum 9.1 does.

With no FILE, or when FILE is -, read standard input.
  -a, --algorithm=TYPE  select the digest type to use.  See DIGEST below.
      --base64          emit base64-encoded digests, not hexadecimal
                          (coreutils 9.2)
  -j, --threads=N       hash the FILEs on N threads (default: one per core);
                          the output is the same for every N
  -l, --length=BITS     digest length in bits; must not exceed the max for
                          the blake2 algorithm and must be a multiple of 8
      --raw             emit a raw binary digest, not hexadecimal (one FILE;
                          the CRCs as 32-bit and sysv/bsd as 16-bit big-endian
                          numbers; coreutils 9.2)
      --tag             create a BSD-style checksum (the default)
      --untagged        create a reversed style checksum, without digest type
  -z, --zero            end each output line with NUL, not newline,
                          and disable file name escaping
      --debug           indicate which implementation used
      --help            display this help and exit
      --version         output version information and exit

DIGEST determines the digest algorithm and default output format:
  sysv      (equivalent to sum -s)
  bsd       (equivalent to sum -r)
  crc       (equivalent to cksum)
  crc32b    (only available through cksum; zlib's CRC-32, coreutils 9.6)
  md5       (equivalent to md5sum)
  sha1      (equivalent to sha1sum)
  sha224    (equivalent to sha224sum)
  sha256    (equivalent to sha256sum)
  sha384    (equivalent to sha384sum)
  sha512    (equivalent to sha512sum)
  blake2b   (equivalent to b2sum)
  sm3       (only available through cksum)

The following five options are useful only when verifying checksums:
  -c, --check           read checksums from the FILEs and check them
      --ignore-missing  don't fail or report status for missing files
      --quiet           don't print OK for each successfully verified file
      --status          don't output anything, status code shows success
      --strict          exit non-zero for improperly formatted checksum lines
  -w, --warn            warn about improperly formatted checksum lines
When checking, each BSD-style line is checked with the digest its tag
names (one file may mix them); untagged lines only with -a's digest.
Tags are read as cksum 9.1 reads them: 'SHA256-256 (f)', 'MD5  (f)',
'BLAKE2b-0x100 (f)' (the length in C's base 0; a shorter length than the
digest's checks its leading bits). Like md5sum, the files the lines name
are opened wherever they are.

Long options may be shortened to any unique prefix, as in cksum 9.1
(--algo=sha1), except --threads, --base64 and --raw, which 9.1 lacks.
-l takes leading blanks and '+'; -l 0 is the default length.

MD5 is hashed in SIMD lanes, several files at a time; SHA-1 and SHA-2 use
the CPU's SHA instructions where it has them.

MD5 and SHA-1 are not collision resistant, and crc, sysv and bsd are no
hashes at all: they catch accidental corruption only. Use SHA-256 (or a
MAC) where someone might choose the content.
";

/// Runs `linerate cksum` with `args` (the words after `linerate cksum`).
pub fn main(args: &[OsString]) -> ExitCode {
    let posixly_correct = std::env::var_os("POSIXLY_CORRECT").is_some();
    let ok = match args::parse(args, posixly_correct) {
        Ok(Command::Run(options)) => run(&options),
        Ok(Command::Help) => print_only(HELP.as_bytes()),
        Ok(Command::Version) => print_only(version().as_bytes()),
        Err(lines) => {
            use std::io::Write;
            let mut message = Vec::new();
            for line in lines {
                // As cksum: argmatch's list of valid names and the usage
                // hint carry no program name.
                let bare = [&b"Valid arguments are:"[..], b"  - ", b"Try '"]
                    .iter()
                    .any(|p| line.starts_with(p));
                if !bare {
                    message.extend_from_slice(format!("{}: ", crate::PROGRAM).as_bytes());
                }
                message.extend_from_slice(&line);
                message.push(b'\n');
            }
            std::io::stderr().lock().write_all(&message).ok();
            false
        }
    };
    if linerate_files::stdin_refused() {
        eprintln!("{}: standard input: Bad file descriptor", crate::PROGRAM);
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn version() -> String {
    format!(
        "linerate cksum (linerate) {}\n\
         Compatible with cksum (GNU coreutils) 9.1.\n\
         License MIT OR Apache-2.0.\n",
        env!("CARGO_PKG_VERSION")
    )
}

fn run(options: &Options) -> bool {
    if options.check {
        let mut console = Console::new(Progress::new(|| None));
        let checker = CksumChecker {
            dialect: CksumFamily::new(options.specified.then_some(options.algorithm)),
        };
        let ok = crate::sum::verify::run_with(
            &mut console,
            &options.files,
            options.check_options,
            checker,
        );
        return console.finish(ok);
    }
    let files = &options.files;
    let count = u64::try_from(files.len()).unwrap_or(u64::MAX);
    let total = || Some(regular_file_bytes(files));
    let mut console = Console::new(Progress::counting(Some(count), total));
    if options.debug {
        console.error(implementation(options.algorithm).as_bytes());
    }
    let inputs: Vec<_> = files.iter().map(|f| input(f)).collect();
    let progress = std::sync::Arc::clone(&console.progress);
    let mut ok = true;
    let mut line = Vec::new();
    digests_in_order(
        &inputs,
        options.algorithm,
        options.thread_count(),
        &*progress,
        |index, result| {
            let name = files[index].as_bytes();
            match result {
                Ok(value) => {
                    line.clear();
                    push_line(&mut line, options, &value, name);
                    console.print(&line);
                }
                Err(e) => {
                    console.error_about(name, &error_text(e.io_error()));
                    ok = false;
                }
            }
        },
    );
    console.finish(ok)
}

/// `cksum -c`'s checks: each tagged line with its tag's function,
/// untagged ones with `-a`'s.
struct CksumChecker {
    dialect: CksumFamily,
}

impl Checker for CksumChecker {
    type Dialect = CksumFamily;

    fn dialect(&self) -> &CksumFamily {
        &self.dialect
    }

    fn label(&self) -> String {
        self.dialect.label()
    }

    fn matches(
        &mut self,
        input: linerate_files::Input<'_>,
        line: &LineOf<CksumFamily>,
        reader: &mut Reader,
        progress: &dyn linerate_files::Progress,
    ) -> Result<bool, FileError> {
        let algorithm = match (line.tag, self.dialect.specified) {
            (Some(tag), _) => tag,
            // An untagged BLAKE2b line's length is its digest's.
            (None, Some(CksumAlgorithm::Blake2b(_))) => CksumAlgorithm::Blake2b(line.digest.len()),
            (None, Some(specified)) => specified,
            // Without -a every line is tagged.
            (None, None) => return Ok(false),
        };
        let algorithm = linerate::cksum::DigestAlgorithm::Cksum(algorithm);
        let digest = crate::sum::verify::digest_of(input, algorithm, reader, progress)?;
        // A line's length shorter than its function's (`MD5-64`) checks
        // that many leading bytes, as cksum does; BLAKE2b's length is the
        // function's own, so the whole digest.
        Ok(digest.get(..line.digest.len()) == Some(&line.digest[..]))
    }
}

/// `--debug`'s line: which implementation computes the digest.
fn implementation(algorithm: CksumAlgorithm) -> String {
    let what = match algorithm {
        CksumAlgorithm::Md5 => "linerate's MD5 (multi-buffer lanes)",
        CksumAlgorithm::Crc => "crc-fast's CRC-32/CKSUM (carry-less multiply)",
        CksumAlgorithm::Sha1 | CksumAlgorithm::Sha224 | CksumAlgorithm::Sha256 => {
            "RustCrypto (SHA instructions where present)"
        }
        CksumAlgorithm::Blake2b(_) => "blake2b_simd",
        _ => "portable code",
    };
    format!("using {what}")
}

/// One output line, as cksum 9.1 prints it (`--raw`, `--base64` and
/// crc32b as coreutils 9.2-9.6 print them).
fn push_line(out: &mut Vec<u8>, options: &Options, value: &CksumValue, name: &[u8]) {
    let end = if options.zero { 0 } else { b'\n' };
    if options.raw {
        match value {
            // The sum big-endian: 32 bits for the CRCs, 16 for sysv and bsd.
            CksumValue::Sum { sum, .. } => match options.algorithm {
                CksumAlgorithm::Crc | CksumAlgorithm::Crc32b => {
                    out.extend_from_slice(&sum.to_be_bytes())
                }
                _ => out.extend_from_slice(&(*sum as u16).to_be_bytes()),
            },
            CksumValue::Digest(digest) => out.extend_from_slice(digest),
        }
        return;
    }
    match value {
        CksumValue::Sum { sum, bytes } => {
            // Legacy sums: numbers, the name as it is (never escaped), and
            // only when FILE operands were given.
            let text = match options.algorithm {
                CksumAlgorithm::Crc | CksumAlgorithm::Crc32b => format!("{sum} {bytes}"),
                CksumAlgorithm::Sysv => format!("{sum} {}", bytes.div_ceil(512)),
                _ => format!("{sum:05} {:5}", bytes.div_ceil(1024)),
            };
            out.extend_from_slice(text.as_bytes());
            if options.operands_given {
                out.push(b' ');
                out.extend_from_slice(name);
            }
            out.push(end);
        }
        CksumValue::Digest(digest) => {
            let text = if options.base64 {
                use base64::Engine as _;
                base64::engine::general_purpose::STANDARD
                    .encode(digest)
                    .into_bytes()
            } else {
                let mut hex = Vec::with_capacity(2 * digest.len());
                push_hex(&mut hex, digest);
                hex
            };
            let style = LineStyle {
                tagged: !options.untagged,
                binary: false,
                zero: options.zero,
            };
            let tag = options.algorithm.tag();
            format::push_line_text(out, tag.as_bytes(), &text, name, style);
        }
    }
}
