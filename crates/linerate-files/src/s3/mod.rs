//! S3 ETags and checksums: the ETag Amazon S3 shows for a file uploaded in
//! parts, S3's CRCs and SHAs of it, and the part size that reproduces a
//! given ETag.
//!
//! - [`layout`]: how an upload splits a file (the AWS CLI's rule, or a
//!   given part size and threshold);
//! - [`etags`]: the ETags (and checksums) of many inputs, in input order:
//!   every part a segment of the [engine](crate::engine), so one large file
//!   fills every lane of every thread and many small files share them;
//! - [`checksums`]: which checksums, one part's being computed, and an
//!   upload's put together from its parts' as S3 does (full-object,
//!   composite);
//! - [`stream`]: the ETag of an input read once in order (standard input,
//!   a pipe);
//! - [`assemble`]: part digests folded into the ETag;
//! - [`search`]: the part-size search behind `--match` and `--check`;
//! - [`search_checksum`]: the same for a composite CRC or SHA;
//! - [`verify`]: local files against a listing of objects (`--verify`);
//! - [`size`]: sizes as the command line writes them (`8MiB`, `15MB`).
//!
//! The ETag's text form and its lines are the sum-file crate's
//! ([`linerate_sumfile::etag`]).

pub mod assemble;
pub mod checksums;
pub mod etags;
pub mod layout;
pub mod search;
pub mod search_checksum;
pub mod size;
pub mod stream;
pub mod verify;

pub use linerate_sumfile::etag::Etag;
pub use linerate_sumfile::s3::{ChecksumType, S3Algorithm, S3Value};
