//! `linerate sum FILE...`: every file's checksum line, in argument order,
//! from the file engine ([`linerate_files::whole`]): regular files on `-j`
//! threads, many at a time in the lanes of the multi-buffer engine, the
//! rest (standard input, pipes, devices) read in order. Each error is
//! reported in its place among the lines, so stdout, stderr and the exit
//! status do not depend on `-j`. With `--also`, each file's other digests
//! follow its line as tagged lines, all from one read of the file.

use std::os::unix::ffi::OsStrExt;

use linerate::cksum::{CksumValue, DigestAlgorithm};
use linerate_files::FileError;
use linerate_files::whole::{digests_in_order, hash_in_order, several_in_order};
use linerate_sumfile::format::{self, LineStyle};

use super::args::Options;
use super::console::{Console, error_text};
use super::files_from::{Listing, Misfortune};
use super::input;

/// A file's digests: the main one, then `--also`'s.
type Digests = (Vec<u8>, Vec<Vec<u8>>);

/// Prints the checksum line of every file of `listing`, and its errors each
/// in its place; true if all could be read.
pub fn compute(console: &mut Console, options: &Options, listing: &Listing) -> bool {
    let mut ok = listing.errors.is_empty();
    let mut line = Vec::new();
    let mut errors = listing.errors.iter().peekable();
    let report = |console: &mut Console, e: &Misfortune| e.report(console);
    let inputs: Vec<_> = listing.files.iter().map(|f| input(f)).collect();
    let progress = std::sync::Arc::clone(&console.progress);
    let main_tag = options.algorithm.tag();
    let also_tags: Vec<String> = options.also.iter().map(|a| a.tag()).collect();
    // The other digests are tagged, so that -c tells them apart.
    let also_style = LineStyle {
        tagged: true,
        ..options.style
    };
    let mut each = |index: usize, result: Result<Digests, FileError>| {
        while let Some(e) = errors.next_if(|e| e.index <= index) {
            report(console, e);
        }
        let file = listing.files[index].as_bytes();
        match result {
            Ok((digest, also)) => {
                line.clear();
                format::push_line(&mut line, main_tag.as_bytes(), &digest, file, options.style);
                for (tag, digest) in also_tags.iter().zip(&also) {
                    format::push_line(&mut line, tag.as_bytes(), digest, file, also_style);
                }
                console.print(&line);
            }
            Err(e) => {
                console.error_about(file, &error_text(e.io_error()));
                ok = false;
            }
        }
    };
    let digest = |value: CksumValue| match value {
        CksumValue::Digest(d) => d,
        CksumValue::Sum { .. } => Vec::new(),
    };
    let threads = options.thread_count();
    #[cfg(feature = "cuda")]
    if options.algorithm == DigestAlgorithm::Hash(linerate::HashAlgorithm::Md5)
        && options.also.is_empty()
    {
        let work = || {
            let sizes = linerate_files::whole::regular_file_sizes(&inputs);
            linerate::gpu::Work::Streams {
                count: sizes.len() as u64,
                bytes: sizes.iter().sum(),
            }
        };
        if let Some(ctx) = crate::device::gpu_for(options.device, work) {
            let ran = linerate_files::gpu::hash_in_order_gpu(ctx, &inputs, &*progress, |i, r| {
                each(i, r.map(|d| (d.to_vec(), Vec::new())));
            });
            match ran {
                Ok(()) => {
                    for e in errors {
                        report(console, e);
                    }
                    return ok;
                }
                // Nothing was delivered: the CPU does it all.
                Err(e) => eprintln!("{}: GPU not used: {e}", crate::PROGRAM),
            }
        }
    }
    match (options.algorithm, options.also.is_empty()) {
        // MD5 and MD5-P/K alone: in the lanes.
        (DigestAlgorithm::Hash(algorithm), true) => {
            hash_in_order(&inputs, algorithm, threads, &*progress, |i, r| {
                each(i, r.map(|d| (d.to_vec(), Vec::new())));
            });
        }
        // cksum's digests alone: beside the engine's reads.
        (DigestAlgorithm::Cksum(algorithm), true) => {
            digests_in_order(&inputs, algorithm, threads, &*progress, |i, r| {
                each(i, r.map(|v| (digest(v), Vec::new())));
            });
        }
        // Several: one read of each file for all of them, the main one in
        // the lanes when it is MD5 or MD5-P/K.
        (main, false) => {
            let (lanes, mut beside) = match main {
                DigestAlgorithm::Hash(a) => (Some(a), Vec::new()),
                DigestAlgorithm::Cksum(a) => (None, vec![a]),
            };
            beside.extend(options.also.iter().copied());
            several_in_order(&inputs, lanes, &beside, threads, &*progress, |i, r| {
                each(
                    i,
                    r.map(|(lanes_digest, values)| {
                        let mut values = values.into_iter().map(digest);
                        let main = match lanes {
                            Some(_) => lanes_digest.to_vec(),
                            None => values.next().unwrap_or_default(),
                        };
                        (main, values.collect())
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
