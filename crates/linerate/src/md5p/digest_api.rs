//! MD5-P/K in the RustCrypto `digest` ecosystem; the design (why two
//! types, why a 64-byte block size) is in the [module docs](mod@crate::md5p).

use super::error::is_valid_k;
use super::stream::Md5p;
use digest::block_api::BlockSizeUser;
use digest::typenum::{U16, U64};
use digest::{FixedOutput, FixedOutputReset, HashMarker, Output, OutputSizeUser, Reset, Update};

impl OutputSizeUser for Md5p {
    type OutputSize = U16;
}

impl Update for Md5p {
    fn update(&mut self, data: &[u8]) {
        Md5p::update(self, data);
    }
}

impl FixedOutput for Md5p {
    fn finalize_into(self, out: &mut Output<Self>) {
        out.copy_from_slice(&Md5p::finalize(self));
    }
}

impl Reset for Md5p {
    fn reset(&mut self) {
        Md5p::reset(self);
    }
}

impl FixedOutputReset for Md5p {
    fn finalize_into_reset(&mut self, out: &mut Output<Self>) {
        out.copy_from_slice(&Md5p::finalize_reset(self));
    }
}

/// MD5-P/K with K fixed at compile time: a `digest::Digest` (see the
/// [module docs](mod@crate::md5p)). `Md5pK<6>` and other invalid K fail to
/// compile where a value is made.
///
/// ```
/// use digest::Digest;
/// let d = linerate::md5p::Md5p16::digest(b"abc");
/// assert_eq!(hex::encode(d), "8a814c93bae856e7e8001a63e313ee31");
/// ```
///
/// ```compile_fail
/// let h = linerate::md5p::Md5pK::<6>::new(); // K = 6: not a multiple of 4
/// ```
#[derive(Clone, Debug)]
pub struct Md5pK<const K: usize>(Md5p);

/// MD5-P/4: fills the 4 lanes of an SSE2 register.
pub type Md5p4 = Md5pK<4>;
/// MD5-P/8: fills the 8 lanes of an AVX2 register.
pub type Md5p8 = Md5pK<8>;
/// MD5-P/16: fills the 16 lanes of an AVX-512 register (RFC 1810's choice).
pub type Md5p16 = Md5pK<16>;
/// MD5-P/32: two AVX-512 register sets.
pub type Md5p32 = Md5pK<32>;
/// MD5-P/64.
pub type Md5p64 = Md5pK<64>;

impl<const K: usize> Md5pK<K> {
    const VALID: () = assert!(is_valid_k(K), "MD5-P/K needs K a multiple of 4 in 4..=256");

    /// A hasher on the active lanes backend.
    pub fn new() -> Md5pK<K> {
        let () = Self::VALID;
        Md5pK(Md5p::new(K).expect("K checked at compile time"))
    }

    /// K.
    pub const fn k() -> usize {
        K
    }

    /// Absorbs `data`.
    pub fn update(&mut self, data: impl AsRef<[u8]>) {
        self.0.update(data);
    }

    /// The digest of everything absorbed.
    pub fn finalize(self) -> [u8; 16] {
        self.0.finalize()
    }

    /// The digest of everything absorbed; the hasher starts over.
    pub fn finalize_reset(&mut self) -> [u8; 16] {
        self.0.finalize_reset()
    }

    /// Starts over.
    pub fn reset(&mut self) {
        self.0.reset();
    }

    /// The run-time hasher inside.
    pub fn into_inner(self) -> Md5p {
        self.0
    }
}

impl<const K: usize> Default for Md5pK<K> {
    fn default() -> Self {
        Md5pK::new()
    }
}

impl<const K: usize> HashMarker for Md5pK<K> {}

impl<const K: usize> OutputSizeUser for Md5pK<K> {
    type OutputSize = U16;
}

impl<const K: usize> BlockSizeUser for Md5pK<K> {
    type BlockSize = U64;
}

impl<const K: usize> Update for Md5pK<K> {
    fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }
}

impl<const K: usize> FixedOutput for Md5pK<K> {
    fn finalize_into(self, out: &mut Output<Self>) {
        out.copy_from_slice(&self.0.finalize());
    }
}

impl<const K: usize> Reset for Md5pK<K> {
    fn reset(&mut self) {
        self.0.reset();
    }
}

impl<const K: usize> FixedOutputReset for Md5pK<K> {
    fn finalize_into_reset(&mut self, out: &mut Output<Self>) {
        out.copy_from_slice(&self.0.finalize_reset());
    }
}
