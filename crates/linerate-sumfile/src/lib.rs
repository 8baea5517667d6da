//! Checksum files: the lines `md5sum`, `linerate sum`, `linerate mac` and
//! `linerate etag` write, and the parser `--check` and `linerate audit`
//! read them with, exactly as GNU md5sum 9.1 does.
//!
//! - [`check`]: parsing a checksum line (GNU, BSD-tagged and reversed forms,
//!   escaped names) for any family of functions ([`check::Dialect`]);
//! - [`format`](mod@format): the lines written (`HEX  NAME`, `HEX *NAME`, `TAG (NAME) =
//!   HEX`, NUL-terminated), and `--check`'s verdict lines;
//! - [`escape`]: md5sum's escaping of names inside lines;
//! - [`quote`]: names in diagnostics, quoted as coreutils quotes them;
//! - [`manifest`] and [`paths`]: a manifest of a tree (`linerate sum -r`)
//!   read for an audit, its paths in one lexical spelling;
//! - [`etag`]: S3's ETag in text and `ETAG  NAME` lines;
//! - [`mac`]: `linerate mac --check`'s lines, one MAC's tag and length.
//!
//! Nothing here reads files or hashes: callers hand in lines and names.

#![forbid(unsafe_code)]

pub mod check;
pub mod cksum;
pub mod escape;
pub mod etag;
pub mod format;
pub mod listing;
pub mod mac;
pub mod manifest;
pub mod paths;
pub mod quote;
pub mod s3;
mod unprintable;
