//! Helpers shared by the integration tests.
#![allow(dead_code)]

use linerate::md5::{Backend, Md5};

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
        (0..len).map(|_| self.next_u64() as u8).collect()
    }
}

/// The backends this CPU runs; says which ones it cannot, so a run on an
/// older CPU shows what it did not cover.
pub fn backends() -> Vec<Backend> {
    for b in Backend::ALL {
        if !b.is_supported() {
            eprintln!("note: this CPU cannot run the {b} backend; not tested here");
        }
    }
    Backend::supported().collect()
}

/// MD5 of `data` on `backend`, in one update.
pub fn md5_on(backend: Backend, data: &[u8]) -> [u8; 16] {
    let mut h = Md5::with_backend(backend).expect("supported backend");
    h.update(data);
    h.finalize()
}
