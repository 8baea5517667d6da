//! Message authentication codes: HMAC with precomputed keys (RFC 2104, with
//! the truncations of RFC 2403/2404), UMAC (RFC 4418), and RFC 1828's keyed
//! MD5 (the AH transform of RFC 1810's time, for comparison).
//!
//! These, not MD5 alone, are what authenticates: MD5's collisions do not
//! break HMAC-MD5 as a MAC, and UMAC's security rests on AES.

pub mod hmac;
pub mod keyed;
pub mod keyed_md5;
pub mod umac;

pub use keyed::{MacKey, MacStream};
