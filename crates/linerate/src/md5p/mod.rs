//! MD5-P/K: RFC 1810's K-way interleaved MD5, as `docs/md5p.md` defines
//! it.
//!
//! Block `i` of the message (64 bytes, the last one possibly partial) goes to
//! chain `i mod K`; each chain is plain MD5 of the blocks dealt to it (its own
//! padding and bit length); the digest is MD5 of the K chain digests in
//! chain order. K is a multiple of 4 in `4..=256`.
//!
//! MD5-P/K is exactly as weak as MD5 (a collision of one is a collision of
//! the other): for integrity against accidents, never against an adversary.
//!
//! ```
//! let d = linerate::md5p(16, b"abc").unwrap();
//! assert_eq!(hex::encode(d), "8a814c93bae856e7e8001a63e313ee31");
//!
//! let mut h = linerate::Md5p::new(16).unwrap();
//! h.update(b"a");
//! h.update(b"bc");
//! assert_eq!(h.finalize(), d);
//! ```
//!
//! # Why it is fast
//!
//! One MD5 chain is latency-bound; K chains have no dependency on each other,
//! so they run side by side in the lanes engine ([`crate::lanes`]). The
//! message is cut into stripes of K blocks aligned on multiples of K * 64
//! bytes; in a stripe, block `j` belongs to chain `j`. Over a run of whole
//! stripes chain `j` reads every (K * 64)-th byte offset from `j * 64`, so one
//! lanes call per group of chains absorbs the whole run: lane `i` of group `g`
//! is chain `g * width + i`, its pointer starts at that chain's first block
//! and strides K * 64 bytes. With the backend's width W
//! ([`Lanes::width`](crate::lanes::Lanes::width): 32 on AVX-512, 16 on AVX2),
//! K <= W is one call per run and larger K is ceil(K / W) calls. For
//! K >= 32, an `update` of 8 MiB or more runs the groups on rayon's threads
//! (when there are several); the digest does not change. Each chain's
//! padding also goes through the lanes engine, a call per W chains.
//!
//! # With the RustCrypto `digest` traits
//!
//! `digest::Digest` needs `Default`, so K must be known without a value: the
//! run-time [`Md5p`] cannot have it, a type that carries K can. Hence two
//! faces over one engine:
//!
//! - [`Md5p`] implements `Update`, `FixedOutput`, `FixedOutputReset` and
//!   `Reset`, and so `digest::DynDigest`: K chosen at run time, behind
//!   `Box<dyn DynDigest>`.
//! - [`Md5pK<K>`] wraps an `Md5p` with K a const parameter (checked at
//!   compile time) and adds `Default`, `HashMarker` and `BlockSizeUser`, so
//!   it is a `Digest` and fits `hmac::SimpleHmac`. [`Md5p4`], [`Md5p8`],
//!   [`Md5p16`], [`Md5p32`] and [`Md5p64`] name the common K.
//!
//! `BlockSizeUser` is 64 bytes: MD5-P/K iterates MD5's 64-byte compression
//! (a stripe of K blocks is a scheduling unit, not the function's block), so
//! HMAC pads keys to 64 bytes as it does for MD5. Why not
//! `digest::buffer_fixed!` over a block-level core, as [`Md5`](crate::Md5)
//! does: the core's natural block is the stripe, K * 64 bytes, which stable
//! Rust cannot turn into a typenum from a const K, and `block_buffer` stops
//! below 256 bytes. Without a core, `hmac::Hmac` does not apply;
//! `hmac::SimpleHmac` computes the same RFC 2104 HMAC.
//!
//! ```
//! use digest::Digest;
//! use hmac::{KeyInit, Mac};
//!
//! let d = linerate::md5p::Md5p16::digest(b"abc");
//! assert_eq!(hex::encode(d), "8a814c93bae856e7e8001a63e313ee31");
//!
//! let mut mac = hmac::SimpleHmac::<linerate::md5p::Md5p16>::new_from_slice(b"key").unwrap();
//! mac.update(b"message");
//! let tag = mac.finalize().into_bytes();
//! assert_eq!(tag.len(), 16);
//! ```
//!
//! # Layout
//!
//! - `stream`: [`Md5p`], the streaming state: chains, stripes absorbed, the
//!   stripe in progress.
//! - `chains`: the K chaining values, one [`LaneState`](crate::lanes::LaneState)
//!   per group of W chains.
//! - `stripes`: the stripe driver, whole stripes into the chains (and the
//!   threaded split).
//! - `finish`: each chain's padding through the lanes engine, then MD5 of the
//!   chain digests.
//! - `digest_api`: the RustCrypto `digest` traits; [`Md5pK`] and its aliases
//!   for K fixed at compile time, so that `Md5p16` is a `digest::Digest`.
//! - `error`: valid K and [`Md5pError`].

mod chains;
mod digest_api;
mod error;
mod finish;
mod stream;
mod stripes;

pub use digest_api::{Md5p4, Md5p8, Md5p16, Md5p32, Md5p64, Md5pK};
pub use error::{MAX_K, MIN_K, Md5pError, is_valid_k};
pub use stream::Md5p;

/// MD5-P/K of `data`, on the active lanes backend.
///
/// # Errors
/// If `k` is not a multiple of 4 in `4..=256`.
pub fn md5p(k: usize, data: &[u8]) -> Result<[u8; 16], Md5pError> {
    let mut h = Md5p::new(k)?;
    h.update(data);
    Ok(h.finalize())
}
