//! Helpers shared by the UMAC integration tests.
#![allow(dead_code)]

use linerate::mac::umac::NhBackend;

/// A small deterministic generator (SplitMix64), seeded per test.
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

/// The NH backends this CPU runs; says which ones it cannot.
pub fn backends() -> Vec<NhBackend> {
    for b in NhBackend::ALL {
        if !b.is_supported() {
            eprintln!("note: this CPU cannot run the {b} NH backend; not tested here");
        }
    }
    NhBackend::supported().collect()
}

/// Bytes from hexadecimal (either case).
pub fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap()
}
