//! `linerate etag`: S3 multipart ETags (placeholder, being written).

use std::ffi::OsString;
use std::process::ExitCode;

/// Runs `linerate etag` with `args` (the words after `linerate etag`).
pub fn main(_args: &[OsString]) -> ExitCode {
    eprintln!("{}: etag: not implemented yet", crate::PROGRAM);
    ExitCode::from(2)
}
