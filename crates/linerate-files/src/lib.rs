//! linerate's file engine: files, parts of files and trees hashed with
//! MD5 or MD5-P/K, many at once in the SIMD lanes of the multi-buffer
//! engine, on several threads, by one scheduler ([`engine`]).
//!
//! - [`whole`]: whole files, results in input order (`linerate sum`, the
//!   audit, the Python package);
//! - [`s3`]: S3 ETags and checksums (CRC-64/NVME, CRC-32C, CRC-32, SHA-1,
//!   SHA-256) of uploads, and the search for the part size that reproduces
//!   an ETag (`linerate etag`);
//! - [`tree`]: the regular files under a directory, in sorted path order;
//! - [`audit`]: a tree checked against a manifest of it;
//! - [`read`]: one input (a file, standard input, a pipe) read in chunks on
//!   the calling thread;
//! - [`Progress`]: how callers hear of bytes hashed and files done;
//!   [`FileError`]: what went wrong with one file.
//!
//! Inputs are [`Input`]s: a path, or standard input when the caller says
//! so. No name is special here (`-` is a file called `-`).
//!
//! ```no_run
//! use linerate::HashAlgorithm;
//! use linerate_files::{Input, NoProgress, whole::hash_in_order};
//!
//! let inputs = [Input::Path("a.iso".as_ref()), Input::Path("b.iso".as_ref())];
//! hash_in_order(&inputs, HashAlgorithm::Md5, 8, &NoProgress, |i, digest| {
//!     println!("{i}: {digest:?}"); // in input order, whatever the thread count
//! });
//! ```

// Unsafe code only where the OS needs it: the mappings and their SIGBUS
// handler (`map`).
#![deny(unsafe_code)]

pub mod audit;
pub mod beneath;
pub mod engine;
mod error;
#[cfg(feature = "cuda")]
pub mod gpu;
mod input;
mod lane_buf;
#[allow(unsafe_code)]
mod map;
mod progress;
pub mod read;
pub mod s3;
mod test_pause;
pub mod tree;
pub mod whole;

pub use error::{FileError, strerror};
pub use input::{Input, Stdin, check_stdin, check_stdout, stdin, stdin_refused};
pub use map::{FileIo, check_env};
pub use progress::{NoProgress, Progress};
