//! Message authentication codes: HMAC with precomputed keys (RFC 2104, with
//! the truncations of RFC 2403/2404), UMAC (RFC 4418), RFC 1828's keyed
//! MD5 (the AH transform of RFC 1810's time, for comparison) and RFC
//! 2385's TCP-MD5, and AES-CMAC (RFC 4493, TCP-AO's second MAC).
//!
//! These, not MD5 alone, are what authenticates: MD5's collisions do not
//! break HMAC-MD5 as a MAC, and UMAC's security rests on AES.

pub mod cmac;
pub mod hmac;
pub mod keyed;
pub mod keyed_md5;
pub mod umac;

pub use keyed::{MacKey, MacStream};
