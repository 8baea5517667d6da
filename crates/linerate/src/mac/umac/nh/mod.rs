//! NH (RFC 4418 section 5.2.2): the first-layer hash of one chunk of at
//! most 1024 message bytes, for up to four streams at once (one per 32 bits
//! of tag), in three interchangeable kernels.
//!
//! NH reads the message as little-endian 32-bit words `m` and the key as
//! big-endian 32-bit words `k` and, per 32-byte block, sums
//! `(m[i] + k[i]) * (m[i+4] + k[i+4])` for `i` in `0..4` (additions mod
//! 2^32, products and sum mod 2^64). Stream `s` uses the key from word `4s`
//! on. A chunk is zero-padded to a positive multiple of 32 bytes.

mod backend;
pub(super) mod portable;
#[cfg(target_arch = "x86_64")]
pub(super) mod x86_64_avx2;
#[cfg(target_arch = "x86_64")]
pub(super) mod x86_64_avx512;

pub use backend::NhBackend;

use zeroize::Zeroize;

/// Bytes of message per NH chunk (and of NH key per stream).
pub(super) const CHUNK: usize = 1024;
/// Key words: 256 for the first stream, 4 more per further stream.
pub(super) const KEY_WORDS: usize = CHUNK / 4 + 4 * 3;
/// The AVX-512 backend hashes whole messages shorter than this with its
/// 256-bit code: measured here, that tags 40- to 100-byte messages about
/// 25% faster, the two are even at 200 bytes, and 512-bit code wins from
/// 300 on. (Only whole messages: switching widths inside a message, for a
/// short last chunk, measured slower than staying at 512 bits.)
const AVX512_FROM: usize = 256;
/// 32-byte blocks per chunk.
const BLOCKS: usize = CHUNK / 32;

/// The NH key in two layouts: plain words for the portable kernel, and
/// half-blocks for the vector kernels.
///
/// `halves[h][4 * j..4 * j + 4]` holds key words `8j + 4h .. 8j + 4h + 4`:
/// the words that meet the first half of message block `j` in stream `h`,
/// which are also the words that meet its second half in stream `h - 1`.
/// Vector kernels gather the first halves of consecutive blocks into one
/// register, the second halves into another, and add these rows with
/// aligned loads: no key shuffles in the loop.
#[derive(Clone)]
#[repr(C, align(64))]
pub(super) struct NhKey {
    pub(super) halves: [[u32; 4 * BLOCKS]; 5],
    pub(super) words: [u32; KEY_WORDS],
}

impl NhKey {
    pub(super) const fn zeroed() -> NhKey {
        NhKey {
            halves: [[0; 4 * BLOCKS]; 5],
            words: [0; KEY_WORDS],
        }
    }

    /// Lays out the half-block rows from `words`, once they hold the key
    /// (the words past the last stream's reading zero).
    pub(super) fn lay_out(&mut self) {
        for (h, row) in self.halves.iter_mut().enumerate() {
            for j in 0..BLOCKS {
                let from = 8 * j + 4 * h;
                row[4 * j..4 * j + 4].copy_from_slice(&self.words[from..from + 4]);
            }
        }
    }
}

impl Zeroize for NhKey {
    fn zeroize(&mut self) {
        self.halves.zeroize();
        self.words.zeroize();
    }
}

/// A backend this CPU supports: the only way to run a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct NhKernel(NhBackend);

impl NhKernel {
    /// The kernel of `backend`, if this CPU can run it.
    pub(super) fn new(backend: NhBackend) -> Option<NhKernel> {
        backend.is_supported().then_some(NhKernel(backend))
    }

    pub(super) fn backend(self) -> NhBackend {
        self.0
    }

    /// NH of `data` (at most [`CHUNK`] bytes, zero-padded to a positive
    /// multiple of 32) for streams `0..S`, without the length term.
    #[inline]
    pub(super) fn nh<const S: usize>(self, key: &NhKey, data: &[u8]) -> [u64; S] {
        debug_assert!(data.len() <= CHUNK && (1..=4).contains(&S));
        match self.0 {
            #[cfg(target_arch = "x86_64")]
            NhBackend::Avx512 => {
                // SAFETY: an `NhKernel` exists only for a backend
                // `is_supported` confirmed: here AVX-512F and AVX-512BW.
                unsafe { x86_64_avx512::nh::<S>(key, data) }
            }
            #[cfg(target_arch = "x86_64")]
            NhBackend::Avx2 => {
                // SAFETY: as above, AVX2.
                unsafe { x86_64_avx2::nh::<S>(key, data) }
            }
            _ => portable::nh::<S>(key, data),
        }
    }

    /// NH of each full chunk of `data` (a whole number of chunks), in
    /// order, handed to `f`, in one call into the kernel.
    #[inline]
    pub(super) fn nh_chunks<const S: usize>(
        self,
        key: &NhKey,
        data: &[u8],
        f: impl FnMut([u64; S]),
    ) {
        debug_assert!(data.len().is_multiple_of(CHUNK) && (1..=4).contains(&S));
        match self.0 {
            #[cfg(target_arch = "x86_64")]
            NhBackend::Avx512 => {
                // SAFETY: an `NhKernel` exists only for a backend
                // `is_supported` confirmed: here AVX-512F and AVX-512BW.
                unsafe { x86_64_avx512::nh_chunks::<S, _>(key, data, f) }
            }
            #[cfg(target_arch = "x86_64")]
            NhBackend::Avx2 => {
                // SAFETY: as above, AVX2.
                unsafe { x86_64_avx2::nh_chunks::<S, _>(key, data, f) }
            }
            _ => portable::nh_chunks::<S>(key, data, f),
        }
    }

    /// As [`NhKernel::nh`], for a message that is this one chunk: the
    /// AVX-512 backend takes the 256-bit kernel below [`AVX512_FROM`] bytes.
    #[inline]
    pub(super) fn nh_whole<const S: usize>(self, key: &NhKey, data: &[u8]) -> [u64; S] {
        #[cfg(target_arch = "x86_64")]
        if self.0 == NhBackend::Avx512 && data.len() < AVX512_FROM {
            // SAFETY: an `NhKernel` exists only for a backend `is_supported`
            // confirmed; the AVX-512 backend's check includes AVX2.
            return unsafe { x86_64_avx2::nh::<S>(key, data) };
        }
        self.nh::<S>(key, data)
    }
}
