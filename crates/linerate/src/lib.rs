//! linerate: MD5 at the single-stream latency bound, and (as the project
//! grows) multi-buffer MD5, RFC 1810's parallel MD5-P/K, MACs and the
//! Internet checksum.
//!
//! MD5 is broken for collision resistance. linerate's MD5 serves integrity
//! against accidents, compatibility and legacy protocols; authenticate with a
//! MAC (HMAC, UMAC).
//!
//! ```
//! let digest = linerate::md5(b"abc");
//! assert_eq!(digest[..4], [0x90, 0x01, 0x50, 0x98]);
//!
//! let mut h = linerate::Md5::new();
//! h.update(b"a");
//! h.update(b"bc");
//! assert_eq!(h.finalize(), digest);
//! ```

pub mod backend;
pub mod checksum;
pub mod cksum;
pub mod clock;
pub mod cpu;
pub mod crc;
pub mod gpu;
pub mod hex;
pub mod lanes;
pub mod mac;
pub mod md5;
pub mod md5p;
pub mod registry;
pub mod sha1_lanes;

pub use lanes::manager::{Md5Manager, StreamId};
pub use lanes::many::{md5_many, md5_many_into, md5_rows};
pub use lanes::rows::{OffsetRows, Rows, RowsError, ViewRows};
pub use mac::hmac::{HmacKey, HmacMd5Key, HmacSha1Key};
pub use md5::{Md5, md5};
pub use md5p::{Md5p, md5p};
pub use registry::{HashAlgorithm, MacAlgorithm};
