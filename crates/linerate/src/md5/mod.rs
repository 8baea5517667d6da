//! MD5 (RFC 1321).
//!
//! MD5 is broken for collision resistance: use it to catch accidents, to
//! interoperate with formats and protocols that require it, and inside HMAC;
//! never to defend against someone choosing the input.
//!
//! [`Md5`] is the streaming hasher, [`md5`] the one-shot function. Both run
//! the fastest compression this CPU supports ([`Md5Backend`]); `reference` holds
//! the RFC's algorithm as written, which every backend is tested against.

mod backend;
mod block;
pub mod portable;
pub mod reference;
#[cfg(target_arch = "x86_64")]
pub mod x86_64_avx512;
#[cfg(target_arch = "x86_64")]
pub mod x86_64_bmi1;

pub use backend::{CompressFn, Md5Backend};
pub use block::Md5Core;

use digest::block_api::CoreProxy;

digest::buffer_fixed!(
    /// Streaming MD5. Cloning copies the state, which is how a caller hashes
    /// many messages that share a prefix. Implements the RustCrypto `digest`
    /// traits, so `hmac::Hmac<linerate::Md5>` works.
    pub struct Md5(Md5Core);
    impl: BaseFixedTraits AlgorithmName Default Clone HashMarker Reset FixedOutputReset;
);

impl Md5 {
    /// A hasher on the active backend ([`Md5Backend::active`]).
    pub fn new() -> Md5 {
        Md5::default()
    }

    /// A hasher on a chosen backend; `None` if this CPU cannot run it.
    pub fn with_backend(backend: Md5Backend) -> Option<Md5> {
        Some(Md5::compose(
            Md5Core::with_backend(backend)?,
            Default::default(),
        ))
    }

    /// The backend this hasher runs on.
    pub fn backend(&self) -> Md5Backend {
        self.core.backend()
    }

    /// Absorbs `data`.
    pub fn update(&mut self, data: impl AsRef<[u8]>) {
        digest::Update::update(self, data.as_ref());
    }

    /// The digest of everything absorbed.
    pub fn finalize(self) -> [u8; 16] {
        digest::FixedOutput::finalize_fixed(self).0
    }

    /// The digest of everything absorbed; the hasher starts over (same backend).
    pub fn finalize_reset(&mut self) -> [u8; 16] {
        digest::FixedOutputReset::finalize_fixed_reset(self).0
    }

    /// Starts over, keeping the backend.
    pub fn reset(&mut self) {
        digest::Reset::reset(self);
    }

    /// Test hook: pretends `blocks` more 64-byte blocks were absorbed, moving
    /// only the length counter. Lets tests check the length encoding of
    /// messages of 2^32 bytes and more (and the 2^64-bit wrap) without
    /// hashing them.
    #[doc(hidden)]
    pub fn __skip_blocks_for_test(&mut self, blocks: u64) {
        self.core.skip_blocks(blocks);
    }
}

/// MD5 of `data`, on the active backend.
pub fn md5(data: &[u8]) -> [u8; 16] {
    let mut h = Md5::new();
    h.update(data);
    h.finalize()
}
