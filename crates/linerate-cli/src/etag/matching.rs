//! `linerate etag --match ETAG FILE...`: the part size that gives ETAG for
//! each FILE, one line each: `NAME: part size 8388608 bytes (8 MiB)`, or
//! `NAME: no part size matches` (exit status 1); `--match VALUE --checksum
//! ALG` the same for another of S3's checksums.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use crate::sum::console::{Console, error_text};
use crate::sum::input;
use linerate_files::FileError;
use linerate_files::s3::S3Value;
use linerate_files::s3::search::{Found, Search, Verdict, open_for_search};
use linerate_files::s3::search_checksum::search_checksum;
use linerate_sumfile::etag::Etag;
use linerate_sumfile::format::push_check_report;

/// Searches every file for the part size of `target`, a CRC's or SHA's
/// value; true if each one matched.
pub fn run_checksum(
    console: &mut Console,
    files: &[OsString],
    target: &S3Value,
    threads: usize,
    max_work: Option<u64>,
) -> bool {
    let mut ok = true;
    for name in files {
        let name_bytes = name.as_bytes();
        let progress = std::sync::Arc::clone(&console.progress);
        let searched = open_for_search(input(name))
            .and_then(|(_, len)| {
                if name == "-" {
                    // Each candidate reads the file again.
                    return Err(std::io::Error::other(
                        "standard input cannot be searched for a checksum's part size",
                    ));
                }
                Ok(len)
            })
            .map_err(FileError::Open)
            .and_then(|len| {
                let verdict = search_checksum(name, len, target, threads, max_work, &*progress)?;
                Ok((verdict, len))
            });
        let mut report = Vec::new();
        match searched {
            Err(e) => {
                console.error_about(name_bytes, &error_text(e.io_error()));
                ok = false;
            }
            Ok((Verdict::Found(Found::Plain), _)) => {
                push_check_report(
                    &mut report,
                    name_bytes,
                    "the whole object's (any part size)",
                );
                console.print(&report);
            }
            Ok((Verdict::Found(found), _)) => {
                push_check_report(&mut report, name_bytes, &found.long());
                console.print(&report);
            }
            Ok((verdict, len)) => {
                push_check_report(&mut report, name_bytes, "no part size matches");
                console.print(&report);
                let why = match verdict {
                    Verdict::NotFound(Some(cut)) => target.parts.map(|p| cut.message(p)),
                    Verdict::NoSuchSplit => target
                        .parts
                        .map(|p| format!("no part size splits {len} bytes into {p} parts")),
                    _ => None,
                };
                if let Some(why) = why {
                    console.error_about(name_bytes, why.as_bytes());
                }
                ok = false;
            }
        }
    }
    ok
}

/// Searches every file; true if each one matched.
pub fn run(
    console: &mut Console,
    files: &[OsString],
    target: &Etag,
    threads: usize,
    max_work: Option<u64>,
) -> bool {
    let mut ok = true;
    for name in files {
        let name_bytes = name.as_bytes();
        let progress = std::sync::Arc::clone(&console.progress);
        let searched = open_for_search(input(name))
            .map_err(FileError::Open)
            .and_then(|(file, len)| {
                let mut search = Search {
                    progress: &*progress,
                    input: input(name),
                    file,
                    len,
                    threads,
                    max_work,
                };
                Ok((search.run(target)?, len))
            });
        let mut report = Vec::new();
        match searched {
            Err(e) => {
                console.error_about(name_bytes, &error_text(e.io_error()));
                ok = false;
            }
            Ok((Verdict::Found(found), _)) => {
                push_check_report(&mut report, name_bytes, &found.long());
                console.print(&report);
            }
            Ok((verdict, len)) => {
                push_check_report(&mut report, name_bytes, "no part size matches");
                console.print(&report);
                if let Some(why) = verdict.explanation(len, target) {
                    console.error_about(name_bytes, why.as_bytes());
                }
                ok = false;
            }
        }
    }
    ok
}
