//! Which K MD5-P/K accepts, and the error for any other.

use core::fmt;

/// The smallest K the spec allows.
pub const MIN_K: usize = 4;
/// The largest K the spec allows.
pub const MAX_K: usize = 256;

/// Whether `k` names an MD5-P/K: a multiple of 4 in `4..=256`. RFC 1810 asks
/// for a multiple of 4 so that the K chain digests (4 words each) fill whole
/// 64-byte blocks of the final MD5.
pub const fn is_valid_k(k: usize) -> bool {
    k.is_multiple_of(4) && MIN_K <= k && k <= MAX_K
}

/// `k` itself if valid, else the error that names it.
pub(super) fn check_k(k: usize) -> Result<usize, Md5pError> {
    if is_valid_k(k) {
        Ok(k)
    } else {
        Err(Md5pError::InvalidK(k))
    }
}

/// Why an MD5-P/K hasher could not be made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Md5pError {
    /// K is not a multiple of 4 in `4..=256`.
    InvalidK(usize),
}

impl fmt::Display for Md5pError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Md5pError::InvalidK(k) => write!(
                f,
                "MD5-P/K: K = {k} is not a multiple of 4 in {MIN_K}..={MAX_K}"
            ),
        }
    }
}

impl std::error::Error for Md5pError {}
