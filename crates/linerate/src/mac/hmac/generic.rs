//! HMAC over any RustCrypto-style hasher: two keyed hashers, cloned per
//! message.

use super::{IPAD, OPAD, ct_equal, min_truncated_len, truncate};
use core::fmt;
use digest::array::Array;
use digest::block_api::BlockSizeUser;
use digest::typenum::Unsigned;
use digest::{Digest, Output, OutputSizeUser};
use zeroize::{Zeroize, ZeroizeOnDrop};

/// An HMAC key for the hasher `D` with its inner and outer states
/// precomputed: two hashers that have absorbed `K ^ ipad` and `K ^ opad`.
/// A message costs one clone of each and the message's own compressions
/// plus one for the outer hash (for MD5 and SHA-1).
///
/// Works with linerate's [`Md5`](crate::Md5), RustCrypto's `sha1::Sha1`,
/// `sha2::Sha256`, any `D: Digest + BlockSizeUser + Clone`. For MD5 and
/// SHA-1 [`HmacMd5Key`](super::HmacMd5Key) and
/// [`HmacSha1Key`](super::HmacSha1Key) skip the hasher's buffering.
///
/// On drop both stored hashers are overwritten, with volatile writes, by
/// fresh ones, so the keyed states do not outlive the key. The per-message
/// clones are the hasher's business: linerate's `Md5` and RustCrypto's
/// `Sha1` (without its `zeroize` feature) leave them on the stack.
pub struct HmacKey<D: Digest + BlockSizeUser + Clone> {
    inner: D,
    outer: D,
}

impl<D: Digest + BlockSizeUser + Clone> HmacKey<D> {
    /// Precomputes `key`. Keys longer than `D`'s block are hashed first
    /// (RFC 2104); any length, the empty key included, is accepted.
    pub fn new(key: &[u8]) -> Self {
        // K ^ ipad, then flipped in place to K ^ opad: one buffer of key
        // material to scrub (plus the digest of a long key).
        let mut pad: Array<u8, D::BlockSize> = Array::default();
        pad.fill(IPAD);
        if key.len() > pad.len() {
            let mut digest = D::digest(key);
            for (p, k) in pad.iter_mut().zip(digest.iter()) {
                *p ^= k;
            }
            digest.as_mut_slice().zeroize();
        } else {
            for (p, k) in pad.iter_mut().zip(key) {
                *p ^= k;
            }
        }
        let mut inner = D::new();
        Digest::update(&mut inner, &pad);
        for p in pad.iter_mut() {
            *p ^= IPAD ^ OPAD;
        }
        let mut outer = D::new();
        Digest::update(&mut outer, &pad);
        pad.as_mut_slice().zeroize();
        HmacKey { inner, outer }
    }

    /// The full tag of `message`.
    pub fn tag(&self, message: &[u8]) -> Output<D> {
        let mut stream = self.stream();
        stream.update(message);
        stream.finalize()
    }

    /// The tag truncated to its first `N` bytes; `N` must lie between
    /// [`min_truncated_len`] and the full length (checked at compile time).
    pub fn tag_truncated<const N: usize>(&self, message: &[u8]) -> [u8; N] {
        const {
            assert!(
                N >= min_truncated_len(<D as OutputSizeUser>::OutputSize::USIZE)
                    && N <= <D as OutputSizeUser>::OutputSize::USIZE,
                "RFC 2104: a truncated tag keeps at least half the output and 80 bits"
            );
        }
        truncate(&self.tag(message))
    }

    /// The 96-bit tag (HMAC-MD5-96, HMAC-SHA1-96).
    pub fn tag_96(&self, message: &[u8]) -> [u8; 12] {
        self.tag_truncated(message)
    }

    /// Whether `tag` is `message`'s full tag, compared in constant time. A
    /// tag of any other length is rejected.
    #[must_use]
    pub fn verify(&self, message: &[u8], tag: &[u8]) -> bool {
        ct_equal(&self.tag(message), tag)
    }

    /// Whether `tag` is `message`'s tag truncated to `N` bytes, compared in
    /// constant time; `N` as for [`tag_truncated`](Self::tag_truncated).
    #[must_use]
    pub fn verify_truncated<const N: usize>(&self, message: &[u8], tag: &[u8; N]) -> bool {
        ct_equal(&self.tag_truncated::<N>(message), tag)
    }

    /// Whether `tag` is `message`'s 96-bit tag, compared in constant time.
    #[must_use]
    pub fn verify_96(&self, message: &[u8], tag: &[u8; 12]) -> bool {
        self.verify_truncated(message, tag)
    }

    /// A message fed in pieces (a file, a packet in fragments).
    pub fn stream(&self) -> HmacStream<'_, D> {
        HmacStream {
            key: self,
            inner: self.inner.clone(),
        }
    }
}

impl<D: Digest + BlockSizeUser + Clone> Clone for HmacKey<D> {
    fn clone(&self) -> Self {
        HmacKey {
            inner: self.inner.clone(),
            outer: self.outer.clone(),
        }
    }
}

impl<D: Digest + BlockSizeUser + Clone> Drop for HmacKey<D> {
    fn drop(&mut self) {
        // A generic hasher has no `Zeroize`: overwrite the keyed states with
        // fresh ones instead. `black_box` keeps the compiler from removing
        // the stores as dead, which it otherwise may in a destructor.
        self.inner = D::new();
        self.outer = D::new();
        core::hint::black_box(&mut self.inner);
        core::hint::black_box(&mut self.outer);
    }
}

impl<D: Digest + BlockSizeUser + Clone> ZeroizeOnDrop for HmacKey<D> {}

impl<D: Digest + BlockSizeUser + Clone> fmt::Debug for HmacKey<D> {
    /// The hasher's type only, never key material.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HmacKey<{}> {{ .. }}", core::any::type_name::<D>())
    }
}

/// One message in progress under an [`HmacKey`]: [`update`](Self::update)
/// as often as needed, then [`finalize`](Self::finalize).
pub struct HmacStream<'k, D: Digest + BlockSizeUser + Clone> {
    key: &'k HmacKey<D>,
    inner: D,
}

impl<D: Digest + BlockSizeUser + Clone> HmacStream<'_, D> {
    /// Absorbs `data`.
    pub fn update(&mut self, data: &[u8]) {
        Digest::update(&mut self.inner, data);
    }

    /// The full tag of everything absorbed.
    pub fn finalize(self) -> Output<D> {
        let inner = self.inner.finalize();
        let mut outer = self.key.outer.clone();
        Digest::update(&mut outer, &inner);
        outer.finalize()
    }
}

impl<D: Digest + BlockSizeUser + Clone> fmt::Debug for HmacStream<'_, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HmacStream<{}> {{ .. }}", core::any::type_name::<D>())
    }
}
