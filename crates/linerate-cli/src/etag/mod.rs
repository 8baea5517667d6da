//! `linerate etag`: the ETag S3 shows for an object uploaded in parts, the
//! part size that reproduces a given ETag, and `--check` of lists of them.
//!
//! The ETags are computed by the file engine ([`linerate_files::s3`]: the
//! upload's layout, the parts of many files in the lanes of the multi-buffer
//! engine on `-j` threads, the part-size search); their text and lines are
//! the sum-file crate's ([`linerate_sumfile::etag`]). Here:
//!
//! - [`args`]: the command line;
//! - `compute`: `linerate etag FILE...`, a line per file in argument order;
//! - [`matching`] (`--match`) and [`check`] (`--check`): the search's
//!   verdicts, reported.
//!
//! Output, diagnostics and their quoting are `linerate sum`'s
//! ([`crate::sum::console`]).

pub mod args;
pub mod check;
mod compute;
pub mod matching;
pub mod verify;

use std::ffi::OsString;
use std::process::ExitCode;

use crate::sum::console::Console;
use crate::sum::progress::Progress;
use args::{Command, Mode};

const HELP: &str = "\
Usage: linerate etag [OPTION]... [FILE]...
  or:  linerate etag --checksum ALG[,ALG]... [OPTION]... [FILE]...
  or:  linerate etag --match ETAG [OPTION]... FILE...
  or:  linerate etag --check [OPTION]... [LIST]...
  or:  linerate etag --verify LISTING [OPTION]... [DIR]
Print the ETag (and S3's other checksums) Amazon S3 shows for each FILE
uploaded as the AWS CLI uploads it, find the part size that gives an ETag,
check lists of ETags, or check a tree against a listing of S3 objects.

An object uploaded with one PUT has its MD5 as ETag. One uploaded in N parts
has the MD5 of the N parts' binary MD5s, one after another, followed by -N:
  ETag = hex(MD5(MD5(part 1) || ... || MD5(part N))) + \"-N\"
so the ETag depends on the part size as well as on the content.

With no FILE, or when FILE is -, read standard input (hashed as it streams).
Output lines are 'ETAG  NAME', names escaped as md5sum escapes them, so the
output can be read back by --check.

Parts (without options, the AWS CLI's defaults):
      --part-size=SIZE  upload every file in parts of SIZE (a file of at most
                          SIZE bytes, even an empty one, is one part: -1)
      --threshold=SIZE  files smaller than SIZE are one PUT (plain MD5);
                          default 8 MiB, none with --part-size
      --single          print the plain MD5 of every file (no -N)
  By default a file under 8 MiB is one PUT; a larger one goes in parts of
  8 MiB, the part size doubled while there would be more than 10,000 parts.
  Standard input from a pipe has no known size: parts of 8 MiB.
  S3 takes parts of 5 MiB to 5 GiB (the last may be smaller) and at most
  10,000 parts. Other sizes are computed all the same (some S3-compatible
  stores accept them) with a warning on stderr.

Checksums (S3's, besides the ETag; each file is read once for all of them):
      --checksum=ALG[,ALG]...  print 'ALG (NAME) = VALUE' lines, one per ALG
                          and file, in the order given, ALG one of
                            md5        the ETag (hex, -N for N parts)
                            crc64nvme  CRC-64/NVME (S3's default since 2025)
                            crc32c     CRC-32C (Castagnoli)
                            crc32      CRC-32 (zlib's; not cksum's CRC)
                            sha1, sha256
                          values as S3's API and the AWS CLI show them: base64
                          of the value (CRCs big-endian); composite ones
                          followed by -N; the tag is S3's name (ETag,
                          CRC64NVME, CRC32C, CRC32, SHA1, SHA256)
      --checksum-type=TYPE  a multipart upload's checksum: full-object (the
                          checksum of the whole object: the CRCs) or
                          composite (the checksum of the parts' checksums,
                          VALUE-N: all but crc64nvme); default: full-object
                          for crc64nvme, composite for the others, as S3 and
                          the AWS CLI do. One PUT: always the whole object's.

Search:
      --match=VALUE --checksum=ALG  the same for another of S3's checksums:
                          VALUE-N (composite) tried with the common sizes,
                          then every whole MiB, each a pass over the file; a
                          VALUE without -N is the whole object's, compared
      --match=ETAG      find the part size that gives ETAG for each FILE: the
                          common clients' sizes first (8 MiB, 5 MiB, 15 MB,
                          15 MiB, 16 MiB, 50 MiB, 64 MiB, 100 MiB, 128 MiB,
                          256 MiB, 512 MiB, 1 GiB, 8 MiB doubled), then every
                          whole MiB, rounder ones first (multiples of 4 GiB,
                          2 GiB, 1 GiB, 1000 MiB, 512 MiB, 500 MiB, ...);
                          only sizes giving ETAG's N parts are tried.
                          A plain ETAG is compared with the MD5.
                          ETAG may be in the double quotes S3 shows.
  -c, --check           read 'ETAG  NAME' lines from the LISTs and search each
                          file's part size: 'NAME: OK (part size 8 MiB)' or
                          'NAME: FAILED'
      --max-work=SIZE   the most bytes one search may hash trying whole MiBs
                          (default 64 GiB or 4 times the file, whichever is
                          larger); a search cut short says so
  Files searched must be regular files (standard input redirected from one).

Verify (a local tree against what S3 lists):
      --verify=LISTING  check the files under DIR (default: the current
                          directory) against LISTING (- for standard input):
                          the JSON 'aws s3api list-objects-v2' prints (sizes
                          and ETags), a JSON list of 'aws s3api head-object
                          --checksum-mode ENABLED' outputs each with its
                          \"Key\" (checksums too; get-object-attributes'
                          fields are read as well), or an S3 Inventory CSV
      --prefix=P        keys start with P, dropped to make paths under DIR
      --inventory-schema=COLUMNS  an inventory's fileSchema (default
                          'Bucket, Key, Size, LastModifiedDate, ETag'; a
                          first line naming the columns also sets it)
  -v, --verbose         print matched files too, with what matched them
  Every value listed is checked: sizes, whole-object values (a plain ETag,
  full-object CRCs, one PUT's SHAs) in one pass, then values of N parts
  with the part size searched as --match does (composite checksums: the
  common sizes giving N parts). A line per file not matched, in path order:
    changed: PATH (WHAT)       a value differs (which, and both values)
    missing: PATH              listed, and not there
    extra: PATH                under DIR, and not listed (LISTING never is)
    cannot tell: PATH (WHY)    no part size reproduces its ETag, and no
                               other listed value decides
    outside DIR: PATH          its key leads out of DIR ('..', a leading
                               '/', a symbolic link out): never opened
    error: PATH: REASON        unreadable, or a key that names no file
                               (a NUL byte, '.')
  Keys map to paths as S3 clients download them: empty and '.' segments
  dropped ('./x', 'sub//y' name x and sub/y). Symbolic links under DIR are
  followed only while they stay in it.
  then 'linerate etag --verify: N matched, N changed, N missing, N extra,
  N cannot tell, N errors'. An object of LISTING that cannot be read (a
  field given twice, an inventory row without every column its schema
  names) is said on stderr with its place and key, and the others are
  checked.
  --quiet prints the summary alone; --strict fails on extra files too.

Only with --check (as md5sum's):
      --ignore-missing  don't fail or report status for missing files
      --quiet           don't print OK for each file that matches
      --status          don't output anything, the exit status tells
      --strict          exit non-zero for improperly formatted lines
  -w, --warn            warn about improperly formatted lines

  -j, --threads=N       hash on N threads (default: one per core); the parts
                          of each file go in the lanes of the multi-buffer MD5
                          engine; the output is the same for every N
      --device=DEV      where the parts' MD5 runs: cpu (default), cuda (every
                          part on a GPU thread, where there is one; else one
                          line says why and the CPU does it) or auto; default
                          from LINERATE_DEVICE
      --help            display this help and exit

SIZE is a whole number of bytes with an optional unit, any case: KiB, MiB,
GiB, TiB or K, M, G, T (powers of 1024: 8M is 8 MiB, as the AWS CLI reads
it), KB, MB, GB, TB (powers of 1000: 15MB is 15,000,000 bytes; note that
the AWS CLI's configuration reads 8MB as 8 MiB: write 8MiB or 8M for that).

Exit status: 0 if every file was read (and matched or checked OK), 1 if a
file could not be read, a search found no part size, or a check failed
(--verify: anything changed, missing, untold, unreadable or unlisted in
LISTING; extra files only with --strict), 2 for a usage error (bad option,
SIZE or ETAG, or a DIR that is not a directory).

ETags are MD5-based and the CRCs are not cryptographic: they detect
accidental corruption, not tampering. Anyone can make two different files
with the same MD5 (and so the same ETag) or CRC; use SHA-256 or a MAC where
someone might choose the content.
";

/// Runs `linerate etag` with `args` (the words after `linerate etag`).
pub fn main(args: &[OsString]) -> ExitCode {
    let posixly_correct = std::env::var_os("POSIXLY_CORRECT").is_some();
    let options = match args::parse(args, posixly_correct) {
        Ok(Command::Run(options)) => options,
        Ok(Command::Help) => {
            crate::output::print_or_quiet(HELP.as_bytes());
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!(
                "{}: {message}\nTry 'linerate etag --help' for more information.",
                crate::PROGRAM
            );
            return ExitCode::from(2);
        }
    };
    let threads = options.thread_count();
    let ok = match options.mode.clone() {
        Mode::Compute => {
            let total = || Some(crate::sum::regular_file_bytes(&options.files));
            let mut console = Console::new(Progress::new(total));
            let ok = compute::run(
                &mut console,
                &options.files,
                &options.policy,
                options.checksums.as_ref(),
                threads,
                options.device,
            );
            console.finish(ok)
        }
        Mode::Match(target) => {
            // A bar per search, for a person at a terminal.
            let mut console = Console::new(Progress::new(|| None));
            let ok = matching::run(
                &mut console,
                &options.files,
                &target,
                threads,
                options.max_work,
            );
            console.finish(ok)
        }
        Mode::MatchChecksum(target) => {
            let mut console = Console::new(Progress::new(|| None));
            let ok = matching::run_checksum(
                &mut console,
                &options.files,
                &target,
                threads,
                options.max_work,
            );
            console.finish(ok)
        }
        Mode::Verify(listing) => {
            let mut console = Console::new(Progress::new(|| None));
            let outcome = verify::run(
                &mut console,
                &listing,
                options.files.first().map(|d| d.as_os_str()),
                &options.verify,
                threads,
                options.max_work,
            );
            let written = console.finish(outcome == verify::Outcome::Passed);
            if outcome == verify::Outcome::BadDir {
                return ExitCode::from(2);
            }
            written
        }
        Mode::Check => {
            let mut console = Console::new(Progress::new(|| None));
            let ok = check::run(
                &mut console,
                &options.files,
                options.check_options,
                threads,
                options.max_work,
            );
            console.finish(ok)
        }
    };
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
