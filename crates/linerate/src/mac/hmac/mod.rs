//! HMAC (RFC 2104) with precomputed keys, truncated tags (RFC 2403/2404) and
//! multi-buffer HMAC-MD5 for batches of packets.
//!
//! HMAC is `H((K ^ opad) || H((K ^ ipad) || m))`. `K ^ ipad` and `K ^ opad`
//! fill one block each and do not depend on the message, so a key object
//! absorbs them once, at key setup, and keeps the two chaining values. Each
//! message then costs only its own compressions: the data and padding blocks
//! of the inner hash plus one block for the outer hash (the inner digest,
//! padding and length fit one block). Re-keying per message would add two
//! compressions every time: OpenSSH's 2007 change to reuse the MAC context
//! saved exactly those. For HMAC-MD5 on a 64-byte packet that is three
//! compressions (data, padding, outer) instead of five; the test
//! `hmac_compressions` counts them through a hook.
//!
//! Three ways in:
//! - [`HmacKey<D>`]: any RustCrypto-style hasher (`D: Digest + BlockSizeUser
//!   + Clone`), for example `HmacKey<linerate::Md5>`, `HmacKey<sha1::Sha1>`
//!   or `HmacKey<sha2::Sha256>`. It keeps two keyed hashers and clones them
//!   per message. It also streams ([`HmacKey::stream`]).
//! - [`HmacMd5Key`] and [`HmacSha1Key`]: the fast paths. They keep the two
//!   chaining values as plain words (`[u32; 4]`, `[u32; 5]`) and call the
//!   block compression directly: MD5's [`Md5Backend::compress_fn`] and
//!   `sha1::block_api::compress`, with no hasher buffer in between.
//! - Multi-buffer HMAC-MD5: [`HmacMd5Key::tag_many`] (one key) and
//!   [`hmac_md5_many`] (a key per packet) run a batch's inner and outer
//!   hashes side by side in the lanes engine ([`crate::lanes`]).
//!
//! SHA-1 runs on RustCrypto's `sha1` crate, which picks its compression at
//! run time: on x86-64 it asks CPUID (through `cpufeatures`, once, cached)
//! for SHA-NI with SSE2, SSSE3 and SSE4.1 and uses the SHA-NI code when all
//! are there, its portable code otherwise. There is no cargo feature for
//! it; `RUSTFLAGS='--cfg sha1_backend="soft"'` forces the portable code and
//! `--cfg sha1_backend="x86-sha"` (with those target features enabled)
//! the SHA-NI code without the check.
//!
//! Truncation: [`HmacMd5Key::tag_96`] and friends give the 12-byte tags of
//! HMAC-MD5-96 (RFC 2403) and HMAC-SHA1-96 (RFC 2404), `tag_truncated::<N>`
//! any length RFC 2104 section 5 allows (at least half the output and at
//! least 80 bits; checked at compile time). Verification compares in
//! constant time (`subtle`) and takes a tag of the full length (`verify`) or
//! of a length fixed by the caller's type (`verify_truncated::<N>`,
//! `verify_96`), never a length chosen by whoever sent the tag: accepting
//! any length would let a forger send the shortest.
//!
//! Key material (the padded key, the ipad/opad blocks, the keyed chaining
//! values or hashers) is zeroized: the temporaries at key setup, the stored
//! states when the key is dropped. `Debug` prints the algorithm and backend,
//! never key material.
//!
//! [`Md5Backend::compress_fn`]: crate::md5::Md5Backend::compress_fn
//!
//! ```
//! use linerate::mac::hmac::{HmacKey, HmacMd5Key};
//!
//! // RFC 2202, HMAC-MD5 test case 2.
//! let key = HmacMd5Key::new(b"Jefe");
//! let tag = key.tag(b"what do ya want for nothing?");
//! assert_eq!(tag[..4], [0x75, 0x0c, 0x78, 0x3e]);
//! assert!(key.verify(b"what do ya want for nothing?", &tag));
//! assert_eq!(key.tag_96(b"what do ya want for nothing?"), tag[..12]);
//!
//! // The same through the generic key on linerate's Md5 hasher.
//! let generic = HmacKey::<linerate::Md5>::new(b"Jefe");
//! assert_eq!(generic.tag(b"what do ya want for nothing?")[..], tag[..]);
//! ```

mod generic;
mod many;
mod raw;

pub use generic::{HmacKey, HmacStream};
pub use many::{hmac_md5_many, hmac_md5_many_with};
pub use raw::{Compression, HmacMd5Key, HmacSha1Key, Md5Compression, RawHmacKey, Sha1Compression};

use subtle::ConstantTimeEq;

/// HMAC's inner pad byte (RFC 2104).
const IPAD: u8 = 0x36;
/// HMAC's outer pad byte (RFC 2104).
const OPAD: u8 = 0x5c;

/// The shortest truncated tag RFC 2104 section 5 allows for an `out`-byte
/// hash: at least half the output, and at least 80 bits.
pub const fn min_truncated_len(out: usize) -> usize {
    let half = out.div_ceil(2);
    if half > 10 { half } else { 10 }
}

/// The first `N` bytes of `full` (`N <= full.len()`, checked by callers at
/// compile time).
fn truncate<const N: usize>(full: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    out.copy_from_slice(&full[..N]);
    out
}

/// `expected == got` in time independent of their contents (lengths are
/// public: different lengths are simply unequal).
fn ct_equal(expected: &[u8], got: &[u8]) -> bool {
    expected.len() == got.len() && bool::from(expected.ct_eq(got))
}
