//! The block-level MD5 state behind [`Md5`](super::Md5): chaining value,
//! block count, and the backend's compression function.

use super::backend::{CompressFn, Md5Backend};
use super::reference::INIT;
use core::fmt;
use digest::{
    HashMarker, Output,
    block_api::{
        AlgorithmName, Block, BlockSizeUser, Buffer, BufferKindUser, Eager, FixedOutputCore,
        OutputSizeUser, Reset, UpdateCore,
    },
    typenum::{U16, U64},
};

/// MD5's block-level state (RustCrypto's `block_api` core).
#[derive(Clone)]
pub struct Md5Core {
    state: [u32; 4],
    /// 64-byte blocks absorbed; the message length is this times 64 plus
    /// the buffered bytes, kept mod 2^64 bits as RFC 1321 says.
    blocks: u64,
    backend: Md5Backend,
    compress: CompressFn,
}

impl Md5Core {
    /// A fresh state on `backend`; `None` if this CPU cannot run it.
    pub fn with_backend(backend: Md5Backend) -> Option<Md5Core> {
        Some(Md5Core {
            state: INIT,
            blocks: 0,
            backend,
            compress: backend.compress_fn()?,
        })
    }

    pub(crate) fn backend(&self) -> Md5Backend {
        self.backend
    }

    pub(crate) fn skip_blocks(&mut self, blocks: u64) {
        self.blocks = self.blocks.wrapping_add(blocks);
    }
}

impl Default for Md5Core {
    fn default() -> Self {
        let backend = Md5Backend::active();
        Md5Core::with_backend(backend)
            .or_else(|| Md5Core::with_backend(Md5Backend::Portable))
            .expect("the portable backend runs everywhere")
    }
}

impl HashMarker for Md5Core {}

impl BlockSizeUser for Md5Core {
    type BlockSize = U64;
}

impl BufferKindUser for Md5Core {
    type BufferKind = Eager;
}

impl OutputSizeUser for Md5Core {
    type OutputSize = U16;
}

impl UpdateCore for Md5Core {
    #[inline]
    fn update_blocks(&mut self, blocks: &[Block<Self>]) {
        self.blocks = self.blocks.wrapping_add(blocks.len() as u64);
        (self.compress)(&mut self.state, Block::<Self>::cast_slice_to_core(blocks));
    }
}

impl FixedOutputCore for Md5Core {
    fn finalize_fixed_core(&mut self, buffer: &mut Buffer<Self>, out: &mut Output<Self>) {
        // RFC 1321 3.2: the length in bits, mod 2^64, little-endian.
        let bit_len = self
            .blocks
            .wrapping_mul(64)
            .wrapping_add(buffer.get_pos() as u64)
            .wrapping_mul(8);
        let mut state = self.state;
        let compress = self.compress;
        buffer.len64_padding_le(bit_len, |block| compress(&mut state, &[block.0]));
        for (chunk, word) in out.chunks_exact_mut(4).zip(state) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
    }
}

impl Reset for Md5Core {
    fn reset(&mut self) {
        self.state = INIT;
        self.blocks = 0;
    }
}

impl AlgorithmName for Md5Core {
    fn write_alg_name(f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Md5")
    }
}

impl fmt::Debug for Md5Core {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Md5Core {{ backend: {} }}", self.backend)
    }
}
