//! HMAC straight on a block compression function: the keyed inner and outer
//! chaining values as plain words, each message's blocks fed to the
//! compression in place, only the last one or two (tail and padding) and the
//! outer block built in a buffer on the stack.

use super::{IPAD, OPAD, ct_equal, min_truncated_len, truncate};
use crate::md5::{CompressFn, Md5Backend};
use core::fmt;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

mod sealed {
    pub trait Sealed {}
}

/// A Merkle-Damgard hash with 64-byte blocks and a 64-bit length, run
/// through its block compression function: MD5 ([`Md5Compression`]) and
/// SHA-1 ([`Sha1Compression`]). Sealed: the padding and word order below
/// hold for those two only.
pub trait Compression: Clone + Default + fmt::Debug + sealed::Sealed {
    /// The chaining value.
    type State: Copy + Zeroize;
    /// The digest, also the full HMAC tag.
    type Tag: Copy + AsRef<[u8]> + Default + Eq + fmt::Debug + Zeroize;
    /// The name of the key type for `Debug` (`HmacMd5Key`, `HmacSha1Key`).
    const KEY_NAME: &'static str;
    /// Digest length in bytes.
    const OUT: usize;
    /// The initial chaining value.
    const IV: Self::State;
    /// `state` absorbs `blocks` in order.
    fn compress(&self, state: &mut Self::State, blocks: &[[u8; 64]]);
    /// The padding's message length field for `bits` bits.
    fn length_field(bits: u64) -> [u8; 8];
    /// The digest of a final chaining value.
    fn output(state: &Self::State) -> Self::Tag;
}

/// MD5 through one of linerate's single-stream backends.
#[derive(Clone, Copy)]
pub struct Md5Compression {
    backend: Md5Backend,
    compress: CompressFn,
}

impl Md5Compression {
    /// `backend`'s compression; `None` if this CPU cannot run it.
    pub fn with_backend(backend: Md5Backend) -> Option<Md5Compression> {
        Some(Md5Compression {
            backend,
            compress: backend.compress_fn()?,
        })
    }

    pub fn backend(&self) -> Md5Backend {
        self.backend
    }
}

impl Default for Md5Compression {
    /// The active backend ([`Md5Backend::active`]).
    fn default() -> Self {
        Md5Compression::with_backend(Md5Backend::active())
            .or_else(|| Md5Compression::with_backend(Md5Backend::Portable))
            .expect("the portable backend runs everywhere")
    }
}

impl fmt::Debug for Md5Compression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "md5/{}", self.backend)
    }
}

impl sealed::Sealed for Md5Compression {}

impl Compression for Md5Compression {
    type State = [u32; 4];
    type Tag = [u8; 16];
    const KEY_NAME: &'static str = "HmacMd5Key";
    const OUT: usize = 16;
    const IV: [u32; 4] = crate::md5::reference::INIT;

    #[inline]
    fn compress(&self, state: &mut [u32; 4], blocks: &[[u8; 64]]) {
        (self.compress)(state, blocks)
    }

    fn length_field(bits: u64) -> [u8; 8] {
        bits.to_le_bytes()
    }

    fn output(state: &[u32; 4]) -> [u8; 16] {
        crate::lanes::many::digest_bytes(*state)
    }
}

/// SHA-1 through RustCrypto's `sha1::block_api::compress` (SHA-NI when the
/// CPU has it, detected by the `sha1` crate; see the [module docs](super)).
#[derive(Clone, Copy, Default)]
pub struct Sha1Compression;

impl fmt::Debug for Sha1Compression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("sha1")
    }
}

impl sealed::Sealed for Sha1Compression {}

impl Compression for Sha1Compression {
    type State = [u32; 5];
    type Tag = [u8; 20];
    const KEY_NAME: &'static str = "HmacSha1Key";
    const OUT: usize = 20;
    const IV: [u32; 5] = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0];

    #[inline]
    fn compress(&self, state: &mut [u32; 5], blocks: &[[u8; 64]]) {
        sha1::block_api::compress(state, blocks)
    }

    fn length_field(bits: u64) -> [u8; 8] {
        bits.to_be_bytes()
    }

    fn output(state: &[u32; 5]) -> [u8; 20] {
        let mut out = [0u8; 20];
        for (chunk, word) in out.chunks_exact_mut(4).zip(state) {
            chunk.copy_from_slice(&word.to_be_bytes());
        }
        out
    }
}

/// HMAC-MD5 with a precomputed key: `[u32; 4]` inner and outer chaining
/// values on one of linerate's MD5 backends. Batches of packets go through
/// the lanes engine with [`tag_many`](RawHmacKey::tag_many).
pub type HmacMd5Key = RawHmacKey<Md5Compression>;

/// HMAC-SHA1 with a precomputed key: `[u32; 5]` inner and outer chaining
/// values on `sha1::block_api::compress`.
pub type HmacSha1Key = RawHmacKey<Sha1Compression>;

/// An HMAC key with its inner and outer chaining values precomputed
/// (`H`'s state after absorbing `K ^ ipad`, resp. `K ^ opad`). Used through
/// [`HmacMd5Key`] and [`HmacSha1Key`]. Both states are zeroized on drop.
#[derive(Clone)]
pub struct RawHmacKey<C: Compression> {
    inner: C::State,
    outer: C::State,
    hash: C,
}

impl<C: Compression> RawHmacKey<C> {
    /// Precomputes `key` on the default compression (for MD5 the active
    /// backend). Keys longer than 64 bytes are hashed first (RFC 2104); any
    /// length, the empty key included, is accepted.
    pub fn new(key: &[u8]) -> Self {
        Self::with_compression(C::default(), key)
    }

    /// Precomputes `key` on a chosen compression.
    pub fn with_compression(hash: C, key: &[u8]) -> Self {
        // K ^ ipad, then flipped in place to K ^ opad: one buffer of key
        // material to scrub (plus the digest of a long key).
        let digest;
        let key = if key.len() > 64 {
            digest = Zeroizing::new(hash_message(&hash, C::IV, 0, key));
            digest.as_ref()
        } else {
            key
        };
        let mut pad = Zeroizing::new([[IPAD; 64]; 1]);
        for (p, k) in pad[0].iter_mut().zip(key) {
            *p ^= k;
        }
        let mut inner = C::IV;
        hash.compress(&mut inner, &pad[..]);
        for p in pad[0].iter_mut() {
            *p ^= IPAD ^ OPAD;
        }
        let mut outer = C::IV;
        hash.compress(&mut outer, &pad[..]);
        RawHmacKey { inner, outer, hash }
    }

    /// The compression this key runs on.
    pub fn compression(&self) -> &C {
        &self.hash
    }

    /// The full tag of `message`: the message's own compressions (its whole
    /// blocks in place, then one or two padding blocks) and one outer one.
    pub fn tag(&self, message: &[u8]) -> C::Tag {
        self.outer_tag(&self.inner_digest(message))
    }

    /// The tag truncated to its first `N` bytes; `N` must lie between
    /// [`min_truncated_len`] and the full length (checked at compile time):
    ///
    /// ```compile_fail,E0080
    /// let short: [u8; 8] = linerate::mac::hmac::HmacMd5Key::new(b"k").tag_truncated(b"m");
    /// ```
    pub fn tag_truncated<const N: usize>(&self, message: &[u8]) -> [u8; N] {
        const {
            assert!(
                N >= min_truncated_len(C::OUT) && N <= C::OUT,
                "RFC 2104: a truncated tag keeps at least half the output and 80 bits"
            );
        }
        truncate(self.tag(message).as_ref())
    }

    /// The 96-bit tag: HMAC-MD5-96 (RFC 2403), HMAC-SHA1-96 (RFC 2404).
    pub fn tag_96(&self, message: &[u8]) -> [u8; 12] {
        self.tag_truncated(message)
    }

    /// Whether `tag` is `message`'s full tag, compared in constant time. A
    /// tag of any other length is rejected.
    #[must_use]
    pub fn verify(&self, message: &[u8], tag: &[u8]) -> bool {
        ct_equal(self.tag(message).as_ref(), tag)
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

    /// `H((K ^ ipad) || message)`, from the stored inner state.
    pub(crate) fn inner_digest(&self, message: &[u8]) -> C::Tag {
        hash_message(&self.hash, self.inner, 64, message)
    }

    /// `H((K ^ opad) || inner)`: one compression from the stored outer state.
    pub(crate) fn outer_tag(&self, inner: &C::Tag) -> C::Tag {
        let mut block = [0u8; 64];
        block[..C::OUT].copy_from_slice(inner.as_ref());
        block[C::OUT] = 0x80;
        block[56..].copy_from_slice(&C::length_field((64 + C::OUT as u64) * 8));
        let mut state = self.outer;
        self.hash.compress(&mut state, &[block]);
        C::output(&state)
    }

    pub(crate) fn inner_state(&self) -> &C::State {
        &self.inner
    }

    pub(crate) fn outer_state(&self) -> &C::State {
        &self.outer
    }
}

/// The digest of `prefix_len` bytes already absorbed into `state` (a whole
/// number of blocks) followed by `message`.
fn hash_message<C: Compression>(
    hash: &C,
    mut state: C::State,
    prefix_len: u64,
    message: &[u8],
) -> C::Tag {
    let (blocks, rest) = message.as_chunks::<64>();
    if !blocks.is_empty() {
        hash.compress(&mut state, blocks);
    }
    let mut tail = [[0u8; 64]; 2];
    let n = if rest.len() < 56 { 1 } else { 2 };
    let flat = tail.as_flattened_mut();
    flat[..rest.len()].copy_from_slice(rest);
    flat[rest.len()] = 0x80;
    let bits = prefix_len
        .wrapping_add(message.len() as u64)
        .wrapping_mul(8);
    flat[64 * n - 8..64 * n].copy_from_slice(&C::length_field(bits));
    hash.compress(&mut state, &tail[..n]);
    C::output(&state)
}

impl HmacMd5Key {
    /// Precomputes `key` on a chosen MD5 backend; `None` if this CPU cannot
    /// run it.
    pub fn with_backend(key: &[u8], backend: Md5Backend) -> Option<HmacMd5Key> {
        Some(Self::with_compression(
            Md5Compression::with_backend(backend)?,
            key,
        ))
    }

    /// The MD5 backend this key runs on.
    pub fn backend(&self) -> Md5Backend {
        self.hash.backend
    }

    /// Test hook: a key whose MD5 compressions all go through `compress`
    /// (which must compute MD5's compression), so a test can count them.
    #[doc(hidden)]
    pub fn __with_compress_fn_for_test(key: &[u8], compress: CompressFn) -> HmacMd5Key {
        Self::with_compression(
            Md5Compression {
                backend: Md5Backend::Portable,
                compress,
            },
            key,
        )
    }
}

impl<C: Compression> Drop for RawHmacKey<C> {
    fn drop(&mut self) {
        self.inner.zeroize();
        self.outer.zeroize();
    }
}

impl<C: Compression> ZeroizeOnDrop for RawHmacKey<C> {}

impl<C: Compression> fmt::Debug for RawHmacKey<C> {
    /// The algorithm and backend only, never key material.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct(C::KEY_NAME)
            .field("hash", &self.hash)
            .finish_non_exhaustive()
    }
}
