//! `linerate sum FILE...`: every file's checksum line, in argument order,
//! from the file engine ([`linerate_files::whole`]): regular files on `-j`
//! threads, many at a time in the lanes of the multi-buffer engine, the
//! rest (standard input, pipes, devices) read in order. Each error is
//! reported in its place among the lines, so stdout, stderr and the exit
//! status do not depend on `-j`.

use std::os::unix::ffi::OsStrExt;

use linerate::cksum::{CksumValue, DigestAlgorithm};
use linerate_files::FileError;
use linerate_files::whole::{digests_in_order, hash_in_order};
use linerate_sumfile::format;

use super::args::Options;
use super::console::{Console, error_text};
use super::files_from::{Listing, Misfortune};
use super::input;

/// Prints the checksum line of every file of `listing`, and its errors each
/// in its place; true if all could be read.
pub fn compute(console: &mut Console, options: &Options, listing: &Listing) -> bool {
    let mut ok = listing.errors.is_empty();
    let mut line = Vec::new();
    let mut errors = listing.errors.iter().peekable();
    let report = |console: &mut Console, e: &Misfortune| {
        console.error_about(e.path.as_bytes(), &error_text(&e.error));
    };
    let inputs: Vec<_> = listing.files.iter().map(|f| input(f)).collect();
    let progress = std::sync::Arc::clone(&console.progress);
    let mut each = |index: usize, result: Result<Vec<u8>, FileError>| {
        while let Some(e) = errors.next_if(|e| e.index <= index) {
            report(console, e);
        }
        let file = listing.files[index].as_bytes();
        match result {
            Ok(digest) => {
                line.clear();
                let tag = options.algorithm.tag();
                format::push_line(&mut line, tag.as_bytes(), &digest, file, options.style);
                console.print(&line);
            }
            Err(e) => {
                console.error_about(file, &error_text(e.io_error()));
                ok = false;
            }
        }
    };
    let threads = options.thread_count();
    match options.algorithm {
        // MD5 and MD5-P/K: in the lanes.
        DigestAlgorithm::Hash(algorithm) => {
            hash_in_order(&inputs, algorithm, threads, &*progress, |i, r| {
                each(i, r.map(|d| d.to_vec()));
            });
        }
        // cksum's digests: beside the engine's reads.
        DigestAlgorithm::Cksum(algorithm) => {
            digests_in_order(&inputs, algorithm, threads, &*progress, |i, r| {
                each(
                    i,
                    r.map(|v| match v {
                        CksumValue::Digest(d) => d,
                        CksumValue::Sum { .. } => Vec::new(),
                    }),
                );
            });
        }
    }
    for e in errors {
        report(console, e);
    }
    ok
}
