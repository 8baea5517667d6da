//! linerate-files' integration tests, one binary: the engine's public
//! paths checked against MD5 computed by definition on random files.

mod cancel;
mod etags;
mod limits;
mod whole;

use std::path::{Path, PathBuf};

/// Reproducible bytes: a linear congruential generator seeded per test
/// (its high bits; no dependency needed).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n
    }
    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.below(256) as u8).collect()
    }
}

/// Writes `data` to `dir/name`.
pub fn write(dir: &Path, name: &str, data: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, data).expect("write");
    path
}
