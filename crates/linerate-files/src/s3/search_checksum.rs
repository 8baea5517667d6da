//! The part-size search for S3's other checksums (`--match VALUE
//! --checksum ALG`): which part size makes a file's composite checksum
//! `VALUE-N` the given one. A value without `-N` is the whole object's
//! (one PUT, or a full-object CRC), the same for every part size, and is
//! compared once.
//!
//! Unlike the ETag's search ([`super::search`]), a candidate's value cannot
//! be assembled from prefixes' digests, so each candidate is one pass over
//! the file: the common clients' sizes giving N parts first, then every
//! whole MiB giving N, rounder first, as many as `--max-work` (bytes
//! hashed) allows.

use super::checksums::Request;
use super::etags::checksums_in_order;
use super::layout::{Policy, sizes_giving};
use super::search::{
    Cut, DEFAULT_MAX_WORK, DEFAULT_MAX_WORK_FILES, Found, Verdict, default_sizes, whole_mib_sizes,
};
use super::{ChecksumType, S3Value};
use crate::{FileError, Input, Progress};

/// Searches the part size that gives `target` for the regular file `path`
/// of `len` bytes.
pub fn search_checksum(
    path: &std::ffi::OsStr,
    len: u64,
    target: &S3Value,
    threads: usize,
    max_work: Option<u64>,
    progress: &dyn Progress,
) -> Result<Verdict, FileError> {
    search_checksum_of(Input::Path(path), len, target, threads, max_work, progress)
}

/// [`search_checksum`] for any input that names a regular file.
pub fn search_checksum_of(
    input: Input<'_>,
    len: u64,
    target: &S3Value,
    threads: usize,
    max_work: Option<u64>,
    progress: &dyn Progress,
) -> Result<Verdict, FileError> {
    let kind = target.parts.map(|_| ChecksumType::Composite);
    let request = Request::new(&[target.algorithm], kind)
        .map_err(|e| FileError::Read(std::io::Error::other(e)))?;
    let value_with = |policy: Policy| -> Result<S3Value, FileError> {
        let inputs = [input];
        let mut outcome = None;
        checksums_in_order(&inputs, &policy, &request, threads, progress, |_, _, r| {
            outcome = Some(r);
        });
        let values = outcome.unwrap_or_else(|| Err(FileError::changed()))?;
        values.into_iter().next().ok_or_else(FileError::changed)
    };
    let Some(parts) = target.parts else {
        let whole = value_with(Policy {
            single: true,
            ..Policy::default()
        })?;
        return Ok(if whole == *target {
            Verdict::Found(Found::Plain)
        } else {
            Verdict::NotFound(None)
        });
    };
    let Some((low, high)) = sizes_giving(len, parts) else {
        return Ok(Verdict::NoSuchSplit);
    };
    let in_parts = |size: u64| {
        value_with(Policy {
            part_size: Some(size),
            ..Policy::default()
        })
    };
    if parts == 1 {
        return Ok(if in_parts(low)? == *target {
            Verdict::Found(Found::OnePart(len))
        } else {
            Verdict::NotFound(None)
        });
    }
    let common = default_sizes(len, low, high);
    for &size in &common {
        if in_parts(size)? == *target {
            return Ok(Verdict::Found(Found::PartSize(size)));
        }
    }
    // Every whole MiB in the range, rounder first; each costs a pass.
    let max_work = max_work
        .unwrap_or_else(|| DEFAULT_MAX_WORK.max(len.saturating_mul(DEFAULT_MAX_WORK_FILES)));
    let (sizes, _) = whole_mib_sizes(len, low, high, &common, u64::MAX);
    let affordable = usize::try_from(max_work / len.max(1)).unwrap_or(usize::MAX);
    for &size in sizes.iter().take(affordable) {
        if in_parts(size)? == *target {
            return Ok(Verdict::Found(Found::PartSize(size)));
        }
    }
    let cut = (sizes.len() > affordable).then(|| Cut {
        tried: (common.len() + affordable) as u64,
        candidates: (common.len() + sizes.len()) as u64,
        left: (sizes.len() - affordable) as u64 * len,
        max_work,
    });
    Ok(Verdict::NotFound(cut))
}
