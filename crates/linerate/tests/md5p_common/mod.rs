//! Helpers shared by the MD5-P/K tests: the spec's definition as an oracle,
//! the lanes backends this CPU runs, and ways to feed a hasher.
#![allow(dead_code)]

use linerate::lanes::{Lanes, LanesBackend};
use linerate::md5p::Md5p;
use md5_crate::Digest;

/// MD5-P/K straight from the spec's definition (steps 1 to 4), on the
/// RustCrypto md-5 crate: deal block `i` to chain `i mod K`, MD5 each chain,
/// MD5 the K digests in chain order. Shares no code with linerate.
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

/// Every lanes backend this CPU and build run; says which it cannot, so a
/// run on an older CPU shows what it did not cover.
pub fn lanes_backends() -> Vec<Lanes> {
    for b in LanesBackend::ALL {
        if Lanes::new(b).is_none() {
            eprintln!("note: lanes backend {b} not available on this CPU/build; not tested here");
        }
    }
    LanesBackend::ALL
        .into_iter()
        .filter_map(Lanes::new)
        .collect()
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
