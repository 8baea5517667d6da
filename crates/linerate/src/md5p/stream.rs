//! The streaming state: K chains, whole stripes absorbed, and the bytes of
//! the stripe in progress.
//!
//! Input is cut into stripes by its position in the message, never by
//! `update` calls: bytes wait in `buf` until they complete a stripe, and a
//! long `update` goes straight to the stripe driver from its first stripe
//! boundary. Whole blocks are safe to absorb early: MD5 pads a sub-message
//! ending on a block boundary with a block of its own, so only a partial
//! block waits for [`Md5p::finalize`] to learn it is the last.

use super::chains::Chains;
use super::error::{Md5pError, check_k};
use super::{finish, stripes};
use crate::lanes::{Lanes, LanesBackend};
use core::fmt;

/// Streaming MD5-P/K, with K chosen at run time (see the [module
/// docs](super)). Cloning copies the state, so messages that share a prefix
/// can share its hashing.
#[derive(Clone)]
pub struct Md5p {
    lanes: Lanes,
    chains: Chains,
    /// Whole stripes absorbed: every chain has absorbed this many blocks.
    stripes: u64,
    /// The stripe in progress, `buf[..buf_len]`; `buf_len < K * 64`.
    buf: Box<[u8]>,
    buf_len: usize,
    /// `update`s of at least this many bytes (and K >= 32) use threads.
    parallel_min: usize,
}

impl Md5p {
    /// MD5-P/K on the active lanes backend ([`LanesBackend::active`]).
    ///
    /// # Errors
    /// If `k` is not a multiple of 4 in `4..=256`.
    pub fn new(k: usize) -> Result<Md5p, Md5pError> {
        Md5p::with_lanes(k, Lanes::active())
    }

    /// MD5-P/K on a chosen lanes backend (tests and benchmarks force each
    /// one this way). The digest does not depend on the backend.
    ///
    /// # Errors
    /// If `k` is not a multiple of 4 in `4..=256`.
    pub fn with_lanes(k: usize, lanes: Lanes) -> Result<Md5p, Md5pError> {
        let k = check_k(k)?;
        Ok(Md5p {
            lanes,
            chains: Chains::new(k, stripes::group_width(k, &lanes)),
            stripes: 0,
            buf: vec![0; k * 64].into_boxed_slice(),
            buf_len: 0,
            parallel_min: stripes::PARALLEL_MIN_BYTES,
        })
    }

    /// K, the number of chains.
    pub fn k(&self) -> usize {
        self.chains.k()
    }

    /// The lanes backend this hasher runs on.
    pub fn backend(&self) -> LanesBackend {
        self.lanes.backend()
    }

    /// Absorbs `data`.
    pub fn update(&mut self, data: impl AsRef<[u8]>) {
        let mut data = data.as_ref();
        let stripe = self.buf.len();
        if self.buf_len > 0 {
            let take = (stripe - self.buf_len).min(data.len());
            self.buf[self.buf_len..self.buf_len + take].copy_from_slice(&data[..take]);
            self.buf_len += take;
            data = &data[take..];
            if self.buf_len < stripe {
                return;
            }
            stripes::absorb(&self.lanes, &mut self.chains, &self.buf, false);
            self.stripes = self.stripes.wrapping_add(1);
            self.buf_len = 0;
        }
        let whole = data.len() - data.len() % stripe;
        if whole > 0 {
            let parallel = stripes::wants_threads(self.k(), whole, self.parallel_min);
            stripes::absorb(&self.lanes, &mut self.chains, &data[..whole], parallel);
            self.stripes = self.stripes.wrapping_add((whole / stripe) as u64);
        }
        let rest = &data[whole..];
        self.buf[..rest.len()].copy_from_slice(rest);
        self.buf_len = rest.len();
    }

    /// The digest of everything absorbed.
    pub fn finalize(self) -> [u8; 16] {
        finish::finish(
            &self.lanes,
            &self.chains,
            self.stripes,
            &self.buf[..self.buf_len],
        )
    }

    /// The digest of everything absorbed; the hasher starts over (same K,
    /// same backend).
    pub fn finalize_reset(&mut self) -> [u8; 16] {
        let digest = finish::finish(
            &self.lanes,
            &self.chains,
            self.stripes,
            &self.buf[..self.buf_len],
        );
        self.reset();
        digest
    }

    /// Starts over, keeping K and the backend.
    pub fn reset(&mut self) {
        self.chains.reset();
        self.stripes = 0;
        self.buf_len = 0;
    }

    /// Test hook: `update`s of at least `bytes` (with K >= 32) run their
    /// chain groups on threads, so tests reach the threaded path with small
    /// inputs. The digest must not change.
    #[doc(hidden)]
    pub fn __set_parallel_min_bytes(&mut self, bytes: usize) {
        self.parallel_min = bytes;
    }

    /// Test hook: pretends `stripes` more whole stripes were absorbed,
    /// moving only the length counter (every chain's length grows by
    /// `stripes * 64` bytes, no chaining value changes). Lets tests check
    /// chain lengths of 2^32 bytes and more, and the 2^64-bit wrap, without
    /// hashing them.
    ///
    /// # Panics
    /// Unless the hasher is at a stripe boundary.
    #[doc(hidden)]
    pub fn __skip_stripes_for_test(&mut self, stripes: u64) {
        assert_eq!(self.buf_len, 0, "skip at a stripe boundary only");
        self.stripes = self.stripes.wrapping_add(stripes);
    }
}

impl fmt::Debug for Md5p {
    /// Names K and the backend; never the absorbed data.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Md5p")
            .field("k", &self.k())
            .field("backend", &self.backend())
            .finish_non_exhaustive()
    }
}
