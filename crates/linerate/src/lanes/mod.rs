//! The lanes engine: multi-buffer MD5, many independent MD5 chains at once in
//! the lanes of SIMD registers.
//!
//! One MD5 chain is latency-bound (4 cycles per step, see `md5::x86_64_avx512`).
//! Independent chains have no dependency on each other, so a 512-bit register
//! carries 16 of them, one per 32-bit lane, and two register sets interleaved
//! (32 chains) keep the vector units busy while each set waits on its own
//! step latency. [`Lanes::compress`] is the one primitive: every lane absorbs
//! the same number of 64-byte blocks, each lane from its own place in memory.
//! [`many`] (`md5_many`: many messages), [`manager`] (`Md5Manager`: streams
//! fed in pieces, as the file engine feeds files) and MD5-P/K are built on
//! it.

mod backend;
pub mod manager;
pub mod many;
pub mod portable;
pub mod rows;
pub(crate) mod schedule;
mod short;
#[cfg(target_arch = "x86_64")]
mod steps;
#[cfg(target_arch = "x86_64")]
pub mod x86_64_avx2;
#[cfg(target_arch = "x86_64")]
pub mod x86_64_avx512;
#[cfg(target_arch = "x86_64")]
pub mod x86_64_sse2;

pub use backend::LanesBackend;

use crate::md5::reference::INIT;

/// The most lanes any backend runs in one call.
pub const MAX_LANES: usize = 32;

/// The chaining values of up to [`MAX_LANES`] MD5 chains, word-major
/// ("structure of arrays"): `words[w][lane]` is word `w` (A, B, C, D) of
/// chain `lane`, the layout SIMD registers load directly.
#[derive(Clone, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct LaneState {
    pub words: [[u32; MAX_LANES]; 4],
}

impl Default for LaneState {
    fn default() -> Self {
        LaneState::new()
    }
}

impl LaneState {
    /// Every lane at MD5's initial value.
    pub fn new() -> LaneState {
        LaneState {
            words: INIT.map(|w| [w; MAX_LANES]),
        }
    }

    /// Chain `lane`'s chaining value (A, B, C, D).
    pub fn get(&self, lane: usize) -> [u32; 4] {
        [0, 1, 2, 3].map(|w| self.words[w][lane])
    }

    /// Sets chain `lane`'s chaining value.
    pub fn set(&mut self, lane: usize, value: [u32; 4]) {
        for (w, v) in value.into_iter().enumerate() {
            self.words[w][lane] = v;
        }
    }

    /// Restarts chain `lane` at MD5's initial value.
    pub fn reset(&mut self, lane: usize) {
        self.set(lane, INIT);
    }
}

/// A lanes kernel: for `nblocks` rounds, every lane `i < active` absorbs
/// the 64 bytes at `ptrs[i]`, then advances `ptrs[i]` by `strides[i]` bytes.
/// `active` is at most the backend's [`width`](LanesBackend::width).
/// Lanes from `active` up to the width may be computed too (a kernel works
/// in whole register sets: their blocks read and their pointers advanced
/// like the active ones); their chains are left unspecified. Lanes at and
/// past the width are never touched: not read, pointers not advanced,
/// chains unchanged.
///
/// # Safety
/// For every lane `i < MAX_LANES` (idle ones included: point them at a
/// readable block with stride 0) and every round `k < nblocks`, the 64 bytes
/// at `ptrs[i] + k * strides[i]` must be readable; the CPU must support the
/// backend's instructions.
pub type LanesFn =
    unsafe fn(&mut LaneState, &mut [*const u8; MAX_LANES], &[usize; MAX_LANES], usize, usize);

/// Moves each of the first `lanes` pointers on by its stride: a kernel's
/// step from one round of blocks to the next. Wrapping, because after the
/// last round a pointer may point past its buffer (it is not read again).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) fn advance(
    ptrs: &mut [*const u8; MAX_LANES],
    strides: &[usize; MAX_LANES],
    lanes: usize,
) {
    for (p, stride) in ptrs.iter_mut().zip(strides).take(lanes) {
        *p = p.wrapping_add(*stride);
    }
}

/// A 64-byte block of zeros that idle lanes read (stride 0), so a kernel
/// never needs a branch per lane.
pub static IDLE_BLOCK: [u8; 64] = [0; 64];

/// A multi-buffer backend, ready to run (this CPU supports it).
#[derive(Clone, Copy, Debug)]
pub struct Lanes {
    backend: LanesBackend,
    kernel: LanesFn,
}

impl Lanes {
    /// The backend chosen for this process ([`LanesBackend::active`]).
    pub fn active() -> Lanes {
        Lanes::new(LanesBackend::active()).expect("the active backend is supported")
    }

    /// A chosen backend; `None` if this CPU cannot run it.
    pub fn new(backend: LanesBackend) -> Option<Lanes> {
        Some(Lanes {
            backend,
            kernel: backend.kernel()?,
        })
    }

    pub fn backend(&self) -> LanesBackend {
        self.backend
    }

    /// The most lanes one call runs (fewer work, at about the same cost).
    pub fn width(&self) -> usize {
        self.backend.width()
    }

    /// Every lane `i < lanes.len()` absorbs `nblocks` blocks, block `k` being
    /// `lanes[i][k * stride .. k * stride + 64]`. Chains of lanes at and past
    /// `lanes.len()` are left in an unspecified state.
    ///
    /// # Panics
    /// If `lanes.len() > self.width()` or a lane's slice is shorter than
    /// `(nblocks - 1) * stride + 64` bytes.
    pub fn compress(&self, state: &mut LaneState, lanes: &[&[u8]], nblocks: usize, stride: usize) {
        let mut some: [Option<&[u8]>; MAX_LANES] = [None; MAX_LANES];
        assert!(lanes.len() <= MAX_LANES, "at most {MAX_LANES} lanes");
        for (slot, lane) in some.iter_mut().zip(lanes) {
            *slot = Some(lane);
        }
        self.compress_some(state, &some[..lanes.len()], nblocks, stride);
    }

    /// As [`compress`](Self::compress), with idle lanes: a `None` lane reads
    /// a block of zeros and its chain, like those of lanes at and past
    /// `lanes.len()`, is left in an unspecified state.
    ///
    /// # Panics
    /// As [`compress`](Self::compress).
    pub fn compress_some(
        &self,
        state: &mut LaneState,
        lanes: &[Option<&[u8]>],
        nblocks: usize,
        stride: usize,
    ) {
        assert!(
            lanes.len() <= self.width(),
            "{} lanes for the {} backend, whose width is {}",
            lanes.len(),
            self.backend,
            self.width()
        );
        if nblocks == 0 {
            return;
        }
        let need = (nblocks - 1) * stride + 64;
        let mut ptrs = [IDLE_BLOCK.as_ptr(); MAX_LANES];
        let mut strides = [0usize; MAX_LANES];
        for (i, lane) in lanes.iter().enumerate() {
            if let Some(lane) = lane {
                assert!(
                    lane.len() >= need,
                    "lane {i}: {} bytes, need {need}",
                    lane.len()
                );
                ptrs[i] = lane.as_ptr();
                strides[i] = stride;
            }
        }
        // SAFETY: every active lane's slice holds `need` bytes, which covers
        // block `k * stride .. + 64` for every `k < nblocks`; idle lanes read
        // `IDLE_BLOCK` with stride 0. `lanes.len() <= width` was checked, and
        // `Lanes` exists only for a backend this CPU supports.
        unsafe { self.compress_raw(state, &mut ptrs, &strides, nblocks, lanes.len()) }
    }

    /// The kernel itself, for callers that manage pointers (the job manager,
    /// MD5-P/K): see [`LanesFn`].
    ///
    /// # Safety
    /// As [`LanesFn`], for this backend.
    ///
    /// # Panics
    /// If `active > self.width()`.
    pub unsafe fn compress_raw(
        &self,
        state: &mut LaneState,
        ptrs: &mut [*const u8; MAX_LANES],
        strides: &[usize; MAX_LANES],
        nblocks: usize,
        active: usize,
    ) {
        assert!(
            active <= self.width(),
            "{}: at most {} lanes",
            self.backend,
            self.width()
        );
        // SAFETY: forwarded to the caller; the CPU supports the backend.
        unsafe { (self.kernel)(state, ptrs, strides, nblocks, active) }
    }
}
