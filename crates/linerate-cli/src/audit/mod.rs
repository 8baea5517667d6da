//! `linerate audit`: a manifest checked against a directory (placeholder,
//! being written).

use std::ffi::OsString;
use std::process::ExitCode;

/// Runs `linerate audit` with `args` (the words after `linerate audit`).
pub fn main(_args: &[OsString]) -> ExitCode {
    eprintln!("{}: audit: not implemented yet", crate::PROGRAM);
    ExitCode::from(2)
}
