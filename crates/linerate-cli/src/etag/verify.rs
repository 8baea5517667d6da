//! `linerate etag --verify LISTING [DIR]`: the files under DIR against a
//! listing of S3 objects ([`linerate_sumfile::listing`]: list-objects-v2
//! or head-object JSON, an S3 Inventory CSV), checked by the file engine
//! ([`linerate_files::s3::verify`]). A line per object or file that is not
//! matched, `matched:` lines too with `-v`, then the summary; the listing's
//! unusable objects on stderr, each naming it.

use std::ffi::OsStr;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;

use crate::sum::console::{Console, error_text};
use linerate_files::beneath::Root;
use linerate_files::s3::verify::{Record, Status, Target, verify};
use linerate_files::tree::WalkOptions;
use linerate_sumfile::escape;
use linerate_sumfile::listing;

/// What `--verify` was given.
#[derive(Debug, PartialEq, Eq)]
pub struct VerifyOptions {
    pub prefix: String,
    pub schema: Option<String>,
    pub strict: bool,
    pub verbose: bool,
    pub quiet: bool,
}

/// Counts of the report.
#[derive(Default)]
struct Counts {
    matched: usize,
    changed: usize,
    missing: usize,
    extra: usize,
    cannot_tell: usize,
    errors: usize,
}

/// How a verification ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing changed, is missing, outside, cannot be told or read, and
    /// the listing was read whole (extra files fail only with --strict).
    Passed,
    Failed,
    /// DIR is not a directory (said on stderr): a usage error.
    BadDir,
}

/// Verifies the files under DIR against the listing.
pub fn run(
    console: &mut Console,
    listing_name: &OsStr,
    root: Option<&OsStr>,
    options: &VerifyOptions,
    threads: usize,
    max_work: Option<u64>,
) -> Outcome {
    let root_given = root.is_some();
    let root = root.unwrap_or(OsStr::new("."));
    // Opened first, and every listed file beneath it: DIR as a file or a
    // device is a usage error, not a tree of missing files.
    let dir = match Root::open(root) {
        Ok(dir) => dir,
        Err(e) => {
            console.error_about(root.as_bytes(), &error_text(&e));
            return Outcome::BadDir;
        }
    };
    let text = match read_listing(listing_name) {
        Ok(text) => text,
        Err(e) => {
            console.error_about(listing_name.as_bytes(), &error_text(&e));
            return Outcome::Failed;
        }
    };
    let listing = match listing::parse(&text, options.schema.as_deref()) {
        Ok(listing) => listing,
        Err(message) => {
            console.error_about(listing_name.as_bytes(), message.as_bytes());
            return Outcome::Failed;
        }
    };
    for problem in &listing.problems {
        let detail = format!("{}: {}", problem.place, problem.message);
        console.error_about(listing_name.as_bytes(), detail.as_bytes());
    }
    let target = Target {
        root: &dir,
        prefix: &options.prefix,
        threads,
        max_work,
        walk: WalkOptions::default(),
    };
    let progress = std::sync::Arc::clone(&console.progress);
    let mut records = verify(&listing.objects, &target, &*progress);
    // The listing itself, if it lies in DIR, is not an extra file (as
    // audit never reports its manifest as new).
    let listing_file = std::fs::canonicalize(listing_name).ok();
    records.retain(|r| {
        !matches!(r.status, Status::Extra)
            || listing_file.is_none()
            || std::fs::canonicalize(&r.path).ok() != listing_file
    });
    let mut counts = Counts::default();
    let mut line = Vec::new();
    for record in &records {
        let shown = match record.status {
            Status::Matched(_) => options.verbose,
            _ => !options.quiet,
        };
        match record.status {
            Status::Matched(_) => counts.matched += 1,
            Status::Changed(_) => counts.changed += 1,
            Status::Missing => counts.missing += 1,
            Status::Extra => counts.extra += 1,
            Status::CannotTell(_) => counts.cannot_tell += 1,
            Status::Error(_) | Status::Outside => counts.errors += 1,
        }
        if shown {
            line.clear();
            push_line(&mut line, record, root_given, console);
            console.print(&line);
        }
    }
    let summary = format!(
        "{} etag --verify: {} matched, {} changed, {} missing, {} extra, {} cannot tell, {} {}\n",
        crate::PROGRAM,
        counts.matched,
        counts.changed,
        counts.missing,
        counts.extra,
        counts.cannot_tell,
        counts.errors,
        if counts.errors == 1 {
            "error"
        } else {
            "errors"
        },
    );
    console.print(summary.as_bytes());
    let passed = listing.problems.is_empty()
        && counts.changed + counts.missing + counts.cannot_tell + counts.errors == 0
        && (!options.strict || counts.extra == 0);
    if passed {
        Outcome::Passed
    } else {
        Outcome::Failed
    }
}

fn read_listing(name: &OsStr) -> std::io::Result<Vec<u8>> {
    let mut text = Vec::new();
    if name == "-" {
        linerate_files::check_stdin()?;
        std::io::stdin().lock().read_to_end(&mut text)?;
    } else {
        std::fs::File::open(name)?.read_to_end(&mut text)?;
    }
    Ok(text)
}

/// `LABEL: PATH[ (DETAIL)]` or `error: PATH: REASON`, escaped as `linerate
/// sum` escapes names; paths under the current directory without `./`
/// when no DIR was given. A path holding another control character (a
/// NUL, an escape sequence: possible in a key, which need not be a file
/// name) is quoted as diagnostics quote names (`'a'$'\000''b'`), so that
/// nothing from the listing reaches the terminal raw.
fn push_line(out: &mut Vec<u8>, record: &Record, root_given: bool, console: &Console) {
    let path: &[u8] = record.path.as_bytes();
    let path = if root_given {
        path
    } else {
        path.strip_prefix(b"./").unwrap_or(path)
    };
    let quoted = crate::audit::report::needs_quoting(path);
    let escaped = !quoted && escape::needs_escape(path);
    if escaped {
        out.push(b'\\');
    }
    let (label, detail): (&str, Option<String>) = match &record.status {
        Status::Matched(how) => ("matched", Some(how.clone())),
        Status::Changed(what) => ("changed", Some(what.clone())),
        Status::Missing => ("missing", None),
        Status::Extra => ("extra", None),
        Status::CannotTell(why) => ("cannot tell", Some(why.clone())),
        Status::Outside => ("outside DIR", None),
        Status::Error(e) => {
            let reason = String::from_utf8_lossy(&error_text(e.io_error())).into_owned();
            ("error", Some(reason))
        }
    };
    out.extend_from_slice(label.as_bytes());
    out.extend_from_slice(b": ");
    if quoted {
        out.extend_from_slice(&console.quote(path));
    } else if escaped {
        escape::push_escaped(out, path);
    } else {
        out.extend_from_slice(path);
    }
    match (&record.status, detail) {
        (Status::Error(_), Some(reason)) => {
            out.extend_from_slice(b": ");
            out.extend_from_slice(reason.as_bytes());
        }
        (_, Some(detail)) => {
            out.extend_from_slice(b" (");
            out.extend_from_slice(detail.as_bytes());
            out.push(b')');
        }
        (_, None) => {}
    }
    out.push(b'\n');
}
