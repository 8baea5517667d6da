//! Message authentication codes: HMAC with precomputed keys (RFC 2104, with
//! the truncations of RFC 2403/2404) and UMAC (RFC 4418).
//!
//! These, not MD5 alone, are what authenticates: MD5's collisions do not
//! break HMAC-MD5 as a MAC, and UMAC's security rests on AES.

pub mod hmac;
pub mod umac;
