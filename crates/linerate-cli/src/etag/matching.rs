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
        ok &= report(
            console,
            name_bytes,
            searched,
            target.parts,
            "the whole object's (any part size)",
        );
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
        ok &= report(
            console,
            name_bytes,
            searched,
            target.parts,
            "plain MD5 (uploaded in one PUT)",
        );
    }
    ok
}

/// Reports one file's search: its part size (`plain`'s words for a value
/// of the whole object), or no match with why; true if found.
fn report(
    console: &mut Console,
    name: &[u8],
    searched: Result<(Verdict, u64), FileError>,
    parts: Option<u64>,
    plain: &str,
) -> bool {
    let mut line = Vec::new();
    match searched {
        Err(e) => {
            console.error_about(name, &error_text(e.io_error()));
            false
        }
        Ok((Verdict::Found(found), _)) => {
            let words = match found {
                Found::Plain => plain.to_string(),
                other => other.long(),
            };
            push_check_report(&mut line, name, &words);
            console.print(&line);
            true
        }
        Ok((verdict, len)) => {
            push_check_report(&mut line, name, "no part size matches");
            console.print(&line);
            if let Some(why) = verdict.explanation(len, parts) {
                console.error_about(name, why.as_bytes());
            }
            false
        }
    }
}
