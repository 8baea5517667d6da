//! What the test modules share: a seeded generator, the backends this CPU
//! runs (every family), MD5-P/K's definition as an oracle, and ways to feed
//! a hasher.
#![allow(dead_code)]

use linerate::backend::Backend;
use linerate::lanes::{Lanes, LanesBackend};
use linerate::mac::umac::NhBackend;
use linerate::md5::{Md5, Md5Backend};
use linerate::md5p::Md5p;
use md5_crate::Digest;

/// A small deterministic generator (SplitMix64): reproducible random inputs
/// without a dependency, seeded per test so a failure names its case.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e3779b97f4a7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        let mut v = Vec::with_capacity(len + 8);
        while v.len() < len {
            v.extend_from_slice(&self.next_u64().to_le_bytes());
        }
        v.truncate(len);
        v
    }
    /// A nonce of 1 to 16 random bytes.
    pub fn nonce(&mut self) -> Vec<u8> {
        let n = 1 + self.below(16);
        self.bytes(n)
    }
    pub fn key(&mut self) -> [u8; 16] {
        self.bytes(16).try_into().unwrap()
    }
}

/// The backends of a family this CPU runs; says which ones it cannot, so a
/// run on an older CPU shows what it did not cover.
pub fn supported<B: Backend + std::fmt::Display>() -> Vec<B> {
    for b in B::ALL {
        if !b.is_supported() {
            eprintln!(
                "note: this CPU cannot run the {b} {} backend; not tested here",
                B::FAMILY
            );
        }
    }
    B::supported().collect()
}

/// The single-stream MD5 backends this CPU runs.
pub fn md5_backends() -> Vec<Md5Backend> {
    supported()
}

/// The NH (UMAC) backends this CPU runs.
pub fn nh_backends() -> Vec<NhBackend> {
    supported()
}

/// An engine on every lanes backend this CPU runs.
pub fn lanes_backends() -> Vec<Lanes> {
    supported::<LanesBackend>()
        .into_iter()
        .map(|b| Lanes::new(b).expect("a supported lanes backend"))
        .collect()
}

/// MD5 of `data` on `backend`, in one update.
pub fn md5_on(backend: Md5Backend, data: &[u8]) -> [u8; 16] {
    let mut h = Md5::with_backend(backend).expect("supported backend");
    h.update(data);
    h.finalize()
}

/// Bytes from hexadecimal (either case).
pub fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap()
}

/// MD5-P/K straight from its definition (docs/md5p.md, steps 1 to 4), on
/// the RustCrypto md-5 crate: deal block `i` to chain `i mod K`, MD5 each
/// chain, MD5 the K digests in chain order. Shares no code with linerate.
pub fn oracle(k: usize, data: &[u8]) -> [u8; 16] {
    let mut chains = vec![md5_crate::Md5::new(); k];
    for (i, block) in data.chunks(64).enumerate() {
        chains[i % k].update(block);
    }
    let mut last = md5_crate::Md5::new();
    for chain in chains {
        last.update(chain.finalize());
    }
    last.finalize().into()
}

/// MD5-P/K of `data` on `lanes`, in one update.
pub fn md5p_on(lanes: Lanes, k: usize, data: &[u8]) -> [u8; 16] {
    let mut h = Md5p::with_lanes(k, lanes).unwrap();
    h.update(data);
    h.finalize()
}

/// MD5-P/K of `data` on `lanes`, fed in the chunks `cuts` marks (sorted
/// offsets into `data`).
pub fn md5p_split(lanes: Lanes, k: usize, data: &[u8], cuts: &[usize]) -> [u8; 16] {
    let mut h = Md5p::with_lanes(k, lanes).unwrap();
    let mut at = 0;
    for &cut in cuts.iter().chain([&data.len()]) {
        h.update(&data[at..cut]);
        at = cut;
    }
    h.finalize()
}

/// A peer implementation a comparison needs is missing: a note on stderr,
/// and a failure when `LINERATE_PEERS=required` (`scripts/test-all.sh`
/// installs every peer and sets it, so that no comparison is skipped
/// unnoticed).
pub fn peer_missing(what: &str) {
    if std::env::var_os("LINERATE_PEERS").is_some_and(|v| v == "required") {
        panic!("{what} (LINERATE_PEERS=required: scripts/test-all.sh installs every peer)");
    }
    eprintln!("note: {what}");
}
