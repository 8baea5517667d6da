//! `linerate sum`: GNU coreutils `md5sum` (9.1), byte for byte.
//!
//! Same options, same output lines, same diagnostics and exit statuses; the
//! only intended differences are the program name in messages (`linerate:`)
//! and the usage hint (`Try 'linerate sum --help' ...`). The help and version
//! texts are our own.
//!
//! Beyond md5sum, options of linerate's own, which md5sum rejects:
//!
//! - `-a`/`--algorithm ALGO`: `md5` (the default) or `md5pK`, RFC 1810's
//!   MD5-P/K ([`linerate::HashAlgorithm`]), or one of cksum's digests
//!   (`sha1` ... `sha512`, `blake2b`, `sm3`: [`linerate::cksum`]). `--tag`
//!   lines carry the tag `MD5PK` (`MD5P16 (name) = hex`), `SHA256`, ....
//!   `--check` reads the function of a BSD line from its tag, so one
//!   checksum file may mix `MD5`, `MD5P16` and `SHA256` lines;
//!   untagged lines are checked with `-a`'s function. With `-w`, a malformed
//!   line is "improperly formatted MD5 checksum line" as in md5sum, or
//!   "improperly formatted MD5P16 checksum line" under `-a md5p16`.
//! - `-j`/`--threads N`: files are hashed on N threads (default: one per
//!   core), several at once per thread in the lanes engine
//!   ([`linerate_files::engine`]);
//!   the output is the same for every N. `--check` hashes its files one
//!   after another and ignores `-j`.
//! - `-r`/`--recursive`: a directory operand stands for the regular files
//!   under it, walked in the order of their sorted paths
//!   ([`linerate_files::tree`]), with
//!   `--follow` (symbolic links inside followed, loops reported) and
//!   `--exclude GLOB`. Every unreadable directory, broken link or loop is
//!   one error line and makes the status 1; the rest is still hashed.
//! - `--files-from FILE` (`-`: standard input) and `-0`/`--null`: the
//!   operands are read from FILE, one per line or NUL-terminated
//!   ([`files_from`]).
//!
//! Their long names must be spelled out in full, so that md5sum's
//! abbreviations keep their meaning and messages (`--t` stays ambiguous
//! between `--tag` and `--text` only). Without them, everything is md5sum's.
//!
//! - [`args`] and [`getopt`]: the command line, parsed as glibc's
//!   `getopt_long` parses md5sum's;
//! - [`files_from`]: the operands, from the command line or a list, with
//!   directories walked ([`linerate_files::tree`]);
//! - `compute`: the lines of many files, computed by the file engine
//!   ([`linerate_files::whole`]) and printed in argument order
//!   ([`linerate_sumfile::format`]);
//! - [`verify`]: `--check`, on the check-line parser of
//!   [`linerate_sumfile::check`];
//! - [`console`] and [`progress`]: stdout and stderr as md5sum uses them
//!   (names quoted by [`linerate_sumfile::quote`]), plus a progress bar for
//!   people at a terminal.
//!
//! `linerate mac` ([`crate::mac`]) shares the options ([`args`]), the
//! lines, the chunked reads ([`linerate_files::read`]) and `--check` for
//! any digest length and tag ([`verify::Checker`]).
//!
//! Known differences, all at the edges:
//!
//! - md5sum writes each output line at once (line buffering); we buffer and
//!   flush before every diagnostic and at the end, so the combined order is
//!   the same but a reader of a pipe sees lines in batches. A closed pipe
//!   ends us with status 141 and no message, where md5sum dies of SIGPIPE
//!   (where SIGPIPE was inherited ignored, both say `write error`, exit 1).
//! - Diagnostics quote names as md5sum does in the locale named by
//!   `LC_ALL`/`LC_CTYPE`/`LANG` (UTF-8 or not); a UTF-8 locale that is not
//!   installed makes md5sum fall back to ASCII, which we cannot see.

pub mod args;
mod compute;
pub mod console;
pub mod files_from;
pub mod getopt;
pub mod progress;
pub mod verify;

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::process::ExitCode;

use linerate_files::Input;

use args::{Command, Options, UsageError};
use console::Console;
use progress::Progress;

const HELP: &str = "\
Usage: linerate sum [OPTION]... [FILE]...
Print or check MD5 (128-bit) checksums, or RFC 1810's MD5-P/K.

With no FILE, or when FILE is -, read standard input.
  -a, --algorithm=ALGO  md5 (the default), or md5pK for MD5-P/K, K a multiple
                          of 4 from 4 to 256: md5p4, md5p8, md5p16, ...; or
                          sha1, sha224, sha256, sha384, sha512, blake2b, sm3
                          (the lines of sha256sum, b2sum, ...)
  -b, --binary          read in binary mode
  -c, --check           read checksums from the FILEs and check them
  -j, --threads=N       hash the FILEs on N threads, several files at a time
                          in each (default: one thread per core); the output
                          is the same for every N
  -r, --recursive       a FILE that is a directory stands for every regular
                          file under it, printed in the order of their sorted
                          paths (DIR/a.b before DIR/a/x); symbolic links inside
                          are skipped, as 'find DIR -type f' skips them
      --follow          with -r, follow symbolic links inside directories too;
                          a broken link or a loop is reported
      --exclude=GLOB    with -r, leave out what GLOB matches (repeatable): a
                          GLOB without '/' matches any file or directory name
                          ('*.tmp', '.git'), one with '/' the path under DIR
                          ('build/**', '/notes.txt'); one ending in '/' only
                          directories; an excluded directory is not entered
      --also=ALGO       print another digest of each FILE too, from the same
                          read (repeatable): a tagged line of ALGO (sha1,
                          sha224, sha256, sha384, sha512, blake2b, sm3, md5)
                          after each FILE's line; 'sum -c' checks them all
      --files-from=FILE  read the FILEs from FILE (- for standard input), one
                          per line; empty lines are skipped; a list read from
                          standard input may not name '-' (each is refused,
                          the other names are still read)
  -0, --null            with --files-from, the names end with NUL, not newline
      --device=DEV      where MD5 of regular files runs: cpu (default), cuda
                          (many files at once on the GPU, where there is one;
                          else one line says why and the CPU does it) or auto
                          (the GPU for file sets past the measured crossover);
                          default from LINERATE_DEVICE
      --tag             create a BSD-style checksum
  -t, --text            read in text mode (default)
  -z, --zero            end each output line with NUL, not newline,
                          and disable file name escaping

The following five options are useful only when verifying checksums:
      --ignore-missing  don't fail or report status for missing files
      --quiet           don't print OK for each successfully verified file
      --status          don't output anything, status code shows success
      --strict          exit non-zero for improperly formatted checksum lines
  -w, --warn            warn about improperly formatted checksum lines

      --help        display this help and exit
      --version     output version information and exit

The sums are computed as described in RFC 1321, and MD5-P/K's as
RFC 1810 proposes (K chains of MD5, then MD5 of their digests).
When checking, the input should be a former output of this program
or of GNU md5sum, with which input and output are compatible.
The default mode is to print a line with: checksum, a space,
a character indicating input mode ('*' for binary, ' ' for text
or where binary is insignificant), and name for each FILE.

With --tag, MD5-P/K lines are tagged MD5PK: 'MD5P16 (FILE) = HEX'.
When checking, a BSD-style line is checked with the function its tag
names (MD5, MD5P16, SHA256, BLAKE2b-256, ... as cksum writes them), so one
file may mix them; other lines are checked with --algorithm's function.
With -w, a malformed line is reported as an 'improperly formatted MD5
checksum line' (MD5P16 under -a md5p16).
--algorithm, --also, --threads, --recursive, --follow, --exclude,
--files-from, --device and --null cannot be abbreviated; --threads applies
to computing sums only.
With -r, an unreadable directory, and with --follow a broken link or a
loop, is reported on a line of its own and makes the exit status 1; the
rest of the tree is still hashed. Names are printed as they are, escaped
as any other (a name that is not UTF-8 is no error).

There is no difference between binary mode and text mode on this system.
A progress bar is drawn on standard error when it is a terminal and
the input is large.

MD5 is not collision resistant: anyone can make two different files with
the same MD5. Use it to detect accidental corruption, never to defend
against someone who chooses the files.
";

/// Runs `linerate sum` with `args` (the words after `linerate sum`).
pub fn main(args: &[OsString]) -> ExitCode {
    let posixly_correct = std::env::var_os("POSIXLY_CORRECT").is_some();
    let ok = match args::parse(args, posixly_correct) {
        Ok(Command::Run(options)) => run(&options),
        Ok(Command::Help) => print_only(HELP.as_bytes()),
        Ok(Command::Version) => print_only(version().as_bytes()),
        Err(error) => {
            usage_error(&error);
            false
        }
    };
    if linerate_files::stdin_refused() {
        // md5sum's closing words on a closed standard input it tried to read.
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
        "linerate sum (linerate) {}\n\
         Compatible with md5sum (GNU coreutils) 9.1.\n\
         License MIT OR Apache-2.0.\n",
        env!("CARGO_PKG_VERSION")
    )
}

/// Prints a usage error as md5sum does (the caller exits with status 1).
fn usage_error(error: &UsageError) {
    use std::io::Write;
    let mut message = format!("{}: ", crate::PROGRAM).into_bytes();
    message.extend_from_slice(&error.0);
    message.extend_from_slice(b"\nTry 'linerate sum --help' for more information.\n");
    // If stderr itself fails there is nowhere left to report it.
    std::io::stderr().lock().write_all(&message).ok();
}

/// Prints `text` (help, version) and reports a failed write as md5sum does.
pub(crate) fn print_only(text: &[u8]) -> bool {
    let mut console = Console::new(Progress::hidden());
    console.print(text);
    console.finish(true)
}

fn run(options: &Options) -> bool {
    let listing = files_from::gather(options);
    if options.check {
        // A bar only for a large file being checked: the total is unknown.
        let mut console = Console::new(Progress::new(|| None));
        // Only a list that could not be read: reported before the checks.
        for e in &listing.errors {
            e.report(&mut console);
        }
        let ok = verify::run(
            &mut console,
            &listing.files,
            options.check_options,
            options.algorithm,
        );
        console.finish(ok && listing.errors.is_empty())
    } else {
        let files = u64::try_from(listing.files.len()).unwrap_or(u64::MAX);
        let total = || Some(regular_file_bytes(&listing.files));
        let mut console = Console::new(Progress::counting(Some(files), total));
        let ok = compute::compute(&mut console, options, &listing);
        console.finish(ok)
    }
}

/// What the operand `name` stands for: `-` is standard input, as in md5sum.
pub(crate) fn input(name: &OsStr) -> Input<'_> {
    if name.as_bytes() == b"-" {
        Input::Stdin
    } else {
        Input::Path(name)
    }
}

/// The combined size of the operands that are regular files, for sizing the
/// progress bar; the others (missing files, pipes) count as empty.
pub(crate) fn regular_file_bytes(files: &[OsString]) -> u64 {
    files
        .iter()
        .filter(|f| f.as_bytes() != b"-")
        .filter_map(|f| std::fs::metadata(f).ok())
        .filter(|m| m.is_file())
        .fold(0u64, |total, m| total.saturating_add(m.len()))
}
