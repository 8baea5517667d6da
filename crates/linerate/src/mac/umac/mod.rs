//! UMAC (RFC 4418): UMAC-32, UMAC-64, UMAC-96 and UMAC-128, and OpenSSH's
//! `umac-64@openssh.com` and `umac-128@openssh.com`.
//!
//! A tag is `UHASH(M) xor PDF(nonce)`. UHASH runs one stream per 32 bits of
//! tag, each in three layers: NH over 1024-byte chunks (`nh`, the only
//! loop over the message bytes, in AVX-512, AVX2 and portable kernels, see
//! [`NhBackend`]), POLY over the chunk hashes (the 64-bit prime, then the
//! 128-bit one past 2^24 bytes, as corrected by erratum 3507), and an inner
//! product mod 2^36 - 5. The PDF enciphers the nonce with AES-128 (the
//! `aes` crate, AES-NI where present) and caches the block across
//! consecutive nonces. Every subkey comes from the 16-byte key through the
//! AES-based KDF, once per [`Umac`].
//!
//! Each file does one job: `kdf` (key derivation), `nh` (L1), `l2` (POLY),
//! `l3` (inner product), `uhash` (the layers together), `pdf` (the pad),
//! `api` ([`Umac`]), `state` ([`UmacState`]), `tag` ([`Tag`]).

mod api;
mod kdf;
mod l2;
mod l3;
mod nh;
mod pdf;
mod state;
mod tag;
mod uhash;

pub use api::{TagBits, Umac, UmacError};
pub use nh::NhBackend;
pub use state::UmacState;
pub use tag::Tag;
