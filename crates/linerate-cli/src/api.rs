//! The CLI's file engines for other programs (the Python package): the
//! same scheduling, lanes and reads as `linerate sum` and `linerate etag`,
//! with the outcomes returned instead of printed.
//!
//! Paths are file names, never options: `-` is the file named `-` here,
//! not standard input.

use std::ffi::{OsStr, OsString};
use std::io;
use std::path::Path;

use crate::etag::compute::etags_in_order;
use crate::etag::layout::Policy;
use crate::sum::console::Console;
use crate::sum::hash::HashError;
use crate::sum::jobs::hash_in_order;
use linerate::HashAlgorithm;

pub use linerate::registry::VALID_K;
pub use linerate_sumfile::etag::Etag;

/// What can go wrong with one file.
#[derive(Debug)]
pub struct FileError {
    /// The path as it was given.
    pub path: OsString,
    /// True if opening failed; false if reading failed part way.
    pub at_open: bool,
    pub error: io::Error,
}

/// An algorithm by its `linerate sum -a` name (`md5`, `md5p16`, ...).
pub fn algorithm(name: &str) -> Result<HashAlgorithm, String> {
    HashAlgorithm::from_name(name.as_bytes()).map_err(|e| e.0)
}

/// The digest of every one of `paths` with `algorithm`, in order, on up to
/// `threads` threads (files share the lanes of the multi-buffer engine).
pub fn hash_files(
    paths: &[OsString],
    algorithm: HashAlgorithm,
    threads: usize,
) -> Vec<Result<[u8; 16], FileError>> {
    let names = as_file_names(paths);
    let mut results = Vec::with_capacity(paths.len());
    hash_in_order(
        &mut Console::silent(),
        &names,
        algorithm,
        threads.max(1),
        |_, _, result| results.push(result),
    );
    with_paths(paths, results)
}

/// The S3 ETag of every one of `paths`: multipart with `part_size` bytes
/// per part, or, without one, the AWS CLI's default (8 MiB parts, doubled
/// until at most 10,000; one PUT, the plain MD5, below 8 MiB).
pub fn s3_etags(
    paths: &[OsString],
    part_size: Option<u64>,
    threads: usize,
) -> Vec<Result<Etag, FileError>> {
    let names = as_file_names(paths);
    let policy = Policy {
        part_size,
        ..Policy::default()
    };
    let mut results = Vec::with_capacity(paths.len());
    etags_in_order(
        &mut Console::silent(),
        &names,
        &policy,
        threads.max(1),
        |_, _, result| results.push(result),
    );
    with_paths(paths, results)
}

/// `-` names the file `./-`: the engines read standard input for `-`.
fn as_file_names(paths: &[OsString]) -> Vec<OsString> {
    paths
        .iter()
        .map(|p| {
            if p == OsStr::new("-") {
                Path::new(".").join(p).into_os_string()
            } else {
                p.clone()
            }
        })
        .collect()
}

fn with_paths<T>(
    paths: &[OsString],
    results: Vec<Result<T, HashError>>,
) -> Vec<Result<T, FileError>> {
    paths
        .iter()
        .zip(results)
        .map(|(path, result)| {
            result.map_err(|e| {
                let at_open = matches!(e, HashError::Open(_));
                let (HashError::Open(error) | HashError::Read(error)) = e;
                FileError {
                    path: path.clone(),
                    at_open,
                    error,
                }
            })
        })
        .collect()
}
