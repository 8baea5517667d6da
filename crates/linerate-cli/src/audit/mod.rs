//! `linerate audit MANIFEST [DIR]`: a directory checked against a manifest
//! of `linerate sum -r` (or md5sum) lines, as hashdeep's audit mode checks
//! one: every file matched, changed, missing, new, or unreadable.
//!
//! - [`args`]: the command line;
//! - the manifest's lines are read by [`linerate_sumfile::manifest`] (the
//!   parser of `sum --check`), and the walk, the hashing and the verdict for
//!   every file are [`linerate_files::audit`]'s;
//! - [`report`] and [`json`]: the text and JSON reports.
//!
//! Diagnostics (defective manifest lines, an unreadable manifest) go to
//! stderr through `linerate sum`'s console; the report goes to stdout.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::os::unix::ffi::OsStrExt;
use std::process::ExitCode;

pub mod args;
pub mod json;
pub mod report;

use args::{Command, Options, UsageError};
use linerate_files::audit::{self as compare, Counts, Target};
use linerate_files::beneath::Root;
use linerate_sumfile::manifest::{self, DefectKind, Manifest};

use crate::sum::console::{Console, error_text};
use crate::sum::progress::Progress;

/// The audit found a difference (or a defective manifest line).
const FAILED: u8 = 1;
/// The audit could not be made: usage, MANIFEST, DIR or a write error.
const TROUBLE: u8 = 2;

const HELP: &str = "\
Usage: linerate audit [OPTION]... MANIFEST [DIR]
Check the files under DIR (default: the current directory) against MANIFEST,
a list of checksums as 'linerate sum -r' or md5sum write it, and report each
file as matched, changed, missing, new (found, not listed) or an error.
With no DIR, new files are looked for only in the trees MANIFEST's paths
name (a manifest of 'linerate sum -r photos/' audits photos, not the rest of
the current directory), unless a path lies directly in it; give DIR ('.')
to search all of DIR.

MANIFEST's paths are relative to DIR; they are compared after dropping './'
and repeated '/'. A path is opened only beneath DIR: one with '..', an
absolute one not under DIR (give DIR, or '/', to audit absolute paths), or
one behind a symbolic link that leads out of DIR (an absolute link counts)
is reported 'outside DIR' and never read. Make the manifest
from inside the tree, and audit it there or elsewhere:
  cd tree && linerate sum -r . > ../tree.md5
  linerate audit ../tree.md5               (in tree)
  linerate audit tree.md5 /backup/tree     (a copy)
MANIFEST - is standard input. Lines are read as 'linerate sum -c' reads
them: 'HEX  NAME', 'HEX *NAME', escaped names, and BSD lines 'MD5 (NAME) = HEX',
'MD5P16 (NAME) = HEX', 'SHA256 (NAME) = HEX' (any of cksum's digests),
checked with the function their tag names. A path may be listed once per
function (a dual manifest of 'linerate sum -r --also sha256'): it is
matched only if every function matches.

  -a, --algorithm=ALGO  the function of untagged lines: md5 (the default),
                          md5pK for MD5-P/K (md5p16, ...), or sha1, sha224,
                          sha256, sha384, sha512, blake2b, sm3
  -j, --threads=N       hash on N threads, several files at a time in each
                          (default: one thread per core); the report is the
                          same for every N
      --follow          follow symbolic links met in DIR (loops are errors);
                          without it they are skipped, as 'find DIR -type f'
                          skips them
      --exclude=GLOB    don't look for new files matching GLOB: a name
                          ('*.tmp', '.git') or, with a '/', a path under DIR
                          ('build/**'); may be repeated; files MANIFEST lists
                          are checked anyway
      --json            print one JSON object instead of text (see below)
  -q, --quiet           print only the summary line (not with --json)
  -v, --verbose         print matched files too (not with --json)
      --strict          new files fail the audit too
      --help            display this help and exit

The report has a line per file that is not matched, in path order:
  changed: PATH         its checksum differs from MANIFEST's (with several
                        functions listed: '(SHA256 differs, MD5 matches)')
  missing: PATH         listed, and not there
  moved: PATH -> NEW    listed, not there, and NEW (not listed) has every
                        digest MANIFEST gives PATH; a NEW of the same name
                        is preferred, then one in the same directory, then
                        the first in path order, and '(ambiguous: N
                        candidates)' follows when N were as good
  outside DIR: PATH     listed, and leads out of DIR: never opened
  new: PATH             there, and not listed (MANIFEST itself never is)
  error: PATH: REASON   listed but unreadable, or unreadable in the walk
then a summary:
  linerate audit: 998 matched, 1 changed, 1 missing, 3 new, 0 errors
(with ', N moved' before the errors when files moved; paths outside DIR
count as errors).
A PATH holding a backslash, newline or carriage return is written with
\\\\, \\n and \\r and its line starts with a backslash, as 'linerate sum'
escapes names; one holding another control character (an escape sequence)
is quoted as error messages quote names: 'e'$'\\033''[2J'. A malformed
MANIFEST line, and a line naming a path again, is reported on standard
error with its line number and skipped.

--json prints {\"matched\": N, \"changed\": [PATH...], \"missing\": [...],
\"new\": [...], \"moved\": [{\"from\", \"to\"[, \"candidates\"]}...],
\"errors\": [{\"path\", \"error\"}...] (\"outside DIR\" the error of a path
outside DIR), \"malformed_lines\": [{\"line\", \"error\"}...],
\"non_utf8_paths\": [{\"path\", \"escaped\"}...], \"counts\": {...},
\"ok\": BOOL}. A path that is not UTF-8 is written with
U+FFFD for its invalid bytes, and listed in non_utf8_paths with its exact
form: invalid bytes as \\xHH, backslashes doubled.

Exit status:
  0  nothing changed, missing, moved or unreadable, and MANIFEST is sound
     (new files alone do not fail the audit, unless --strict)
  1  something changed, is missing, moved, outside DIR or could not be
     read, or MANIFEST has malformed or repeated lines, or no checksum
     line at all
  2  a usage error, an unreadable MANIFEST, a DIR that is not a directory,
     or a failed write of the report

MD5 is not collision resistant: an MD5 audit catches accidents, not
someone who chooses the files; audit a SHA-256 (or dual) manifest for that.
";

/// Runs `linerate audit` with `args` (the words after `linerate audit`).
pub fn main(args: &[OsString]) -> ExitCode {
    let posixly_correct = std::env::var_os("POSIXLY_CORRECT").is_some();
    match args::parse(args, posixly_correct) {
        Ok(Command::Help) => {
            crate::output::print_or_quiet(HELP.as_bytes());
            ExitCode::SUCCESS
        }
        Ok(Command::Run(options)) => ExitCode::from(run(&options)),
        Err(error) => {
            usage_error(&error);
            ExitCode::from(TROUBLE)
        }
    }
}

/// `linerate: MESSAGE` and the hint to `--help`, on stderr.
fn usage_error(error: &UsageError) {
    let mut message = format!("{}: ", crate::PROGRAM).into_bytes();
    message.extend_from_slice(&error.0);
    message.extend_from_slice(b"\nTry 'linerate audit --help' for more information.\n");
    // If stderr itself fails there is nowhere left to report it.
    io::stderr().lock().write_all(&message).ok();
}

/// The audit; returns the exit status.
fn run(options: &Options) -> u8 {
    // A bar for a person at a terminal, sized once the files to hash are known.
    let mut console = Console::new(Progress::new(|| None));
    let from_stdin = options.manifest.as_bytes() == b"-";
    let label: &[u8] = if from_stdin {
        b"standard input"
    } else {
        options.manifest.as_bytes()
    };
    let Some(manifest) = read_manifest(&mut console, &options.manifest, label, options) else {
        return TROUBLE;
    };
    // Every listed file is opened beneath DIR: DIR as a file or a device
    // is a usage error, as it is for `etag --verify`.
    let root = match Root::open(&options.dir) {
        Ok(root) => root,
        Err(e) => {
            console.error_about(options.dir.as_bytes(), &error_text(&e));
            return TROUBLE;
        }
    };
    for defect in &manifest.defects {
        let mut message = console.quote(label);
        message
            .extend_from_slice(format!(": {}: {}", defect.line, defect.kind.reason()).as_bytes());
        if let DefectKind::Duplicate { name, .. } = &defect.kind {
            message.extend_from_slice(b": ");
            message.extend_from_slice(&console.quote(name));
        }
        console.error(&message);
    }
    // As md5sum -c fails on a list without one checksum line: an empty
    // manifest (or one of comments) vouches for nothing.
    let empty = manifest.entries.is_empty();
    if empty {
        console.error_about(label, b"no properly formatted checksum lines found");
    }
    let roots = (!options.dir_given)
        .then(|| compare::manifest_roots(&manifest.entries))
        .flatten();
    let target = Target {
        root: &root,
        walk: &options.walk,
        threads: options.threads,
        manifest: (!from_stdin).then_some(options.manifest.as_os_str()),
        roots: roots.as_deref(),
    };
    let progress = std::sync::Arc::clone(&console.progress);
    let records = compare::audit(&manifest.entries, &target, &*progress);
    let counts = Counts::of(&records, &manifest.defects);
    let ok = counts.ok(options.strict) && !empty;
    if options.json {
        let text = json::render(&records, &manifest.defects, &counts, ok);
        console.print(text.as_bytes());
    } else {
        report::print(&mut console, &records, &counts, options.detail);
    }
    match (console.finish(true), ok) {
        (false, _) => TROUBLE,
        (true, true) => 0,
        (true, false) => FAILED,
    }
}

/// Reads MANIFEST (`-`: standard input); `None` after reporting why it
/// could not be read.
fn read_manifest(
    console: &mut Console,
    path: &OsStr,
    label: &[u8],
    options: &Options,
) -> Option<Manifest> {
    let reader: Box<dyn BufRead> = if path.as_bytes() == b"-" {
        Box::new(linerate_files::stdin())
    } else {
        match File::open(path) {
            Ok(file) => Box::new(BufReader::with_capacity(64 * 1024, file)),
            Err(e) => {
                console.error_about(label, &error_text(&e));
                return None;
            }
        }
    };
    match manifest::read(reader, options.algorithm) {
        Ok(manifest) => Some(manifest),
        Err(e) => {
            console.error_about(label, &error_text(&e));
            None
        }
    }
}
