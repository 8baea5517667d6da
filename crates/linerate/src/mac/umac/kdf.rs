//! Key derivation (RFC 4418 section 3.2.1) and the derived subkeys.
//!
//! `KDF(K, index, numbytes)` enciphers the blocks `index || i` (two
//! big-endian 64-bit integers, `i = 1, 2, ...`) under AES-128 with the user
//! key and keeps the first `numbytes` bytes. UHASH takes its keys from
//! indices 1 to 4, the PDF its AES key from index 0.

use super::l2::L2Key;
use super::nh::{CHUNK, KEY_WORDS, NhKey};
use aes::Aes128;
use aes::cipher::{Array, BlockCipherEncrypt, KeyInit};
use zeroize::Zeroize;

/// KDF blocks enciphered per AES call: enough to keep AES-NI/VAES busy,
/// few enough that the one scratch batch is cheap to wipe.
const BATCH: usize = 8;

/// L3's prime, 2^36 - 5.
pub(super) const P36: u64 = (1 << 36) - 5;

/// UHASH's subkeys for up to four streams, derived once per key.
#[derive(Clone)]
#[repr(C)]
pub(super) struct Keys {
    /// L1 (NH): `1024 + 16 * (streams - 1)` bytes.
    pub(super) nh: NhKey,
    /// L2 (POLY) per stream.
    pub(super) l2: [L2Key; 4],
    /// L3 first key per stream: eight 64-bit words, each reduced mod 2^36 - 5.
    pub(super) l3: [[u64; 8]; 4],
    /// L3 second key per stream: a 32-bit word xored onto the result.
    pub(super) l3_xor: [u32; 4],
}

impl Keys {
    /// All-zero keys, to be filled in place by [`Keys::derive`].
    pub(super) fn boxed() -> Box<Keys> {
        Box::new(Keys {
            nh: NhKey::zeroed(),
            l2: [L2Key::default(); 4],
            l3: [[0; 8]; 4],
            l3_xor: [0; 4],
        })
    }

    /// Derives the subkeys of `streams` streams (1 to 4) from `aes`, the
    /// user key's cipher; the other streams' keys are zero. Each KDF block
    /// goes straight into its subkey: the only scratch holding key material
    /// is one batch of blocks and the 96 bytes of L2 key, both wiped.
    pub(super) fn derive(&mut self, aes: &Aes128, streams: usize) {
        debug_assert!((1..=4).contains(&streams));

        let words = &mut self.nh.words;
        *words = [0; KEY_WORDS];
        kdf(aes, 1, (CHUNK + 16 * (streams - 1)) / 16, |i, b| {
            for (w, bytes) in words[4 * i..4 * i + 4].iter_mut().zip(b.chunks_exact(4)) {
                *w = u32::from_be_bytes(bytes.try_into().unwrap());
            }
        });
        self.nh.lay_out();

        let mut l2 = [0u8; 96];
        kdf(aes, 2, (24 * streams).div_ceil(16), |i, b| {
            let n = (24 * streams - 16 * i).min(16);
            l2[16 * i..16 * i + n].copy_from_slice(&b[..n]);
        });
        self.l2 = [L2Key::default(); 4];
        for (key, b) in self.l2.iter_mut().zip(l2.chunks_exact(24)).take(streams) {
            *key = L2Key::new(b.try_into().unwrap());
        }
        l2.zeroize();

        self.l3 = [[0; 8]; 4];
        kdf(aes, 3, 4 * streams, |i, b| {
            for (j, w) in b.chunks_exact(8).enumerate() {
                let word = 2 * i + j;
                self.l3[word / 8][word % 8] = u64::from_be_bytes(w.try_into().unwrap()) % P36;
            }
        });

        self.l3_xor = [0; 4];
        kdf(aes, 4, 1, |_, b| {
            for (key, w) in self.l3_xor.iter_mut().zip(b.chunks_exact(4)).take(streams) {
                *key = u32::from_be_bytes(w.try_into().unwrap());
            }
        });
    }
}

impl Drop for Keys {
    fn drop(&mut self) {
        self.nh.zeroize();
        for key in &mut self.l2 {
            key.zeroize();
        }
        self.l3.zeroize();
        self.l3_xor.zeroize();
    }
}

/// The AES-128 cipher of a 16-byte key.
pub(super) fn cipher(key: &[u8; 16]) -> Aes128 {
    let mut k = Array::from(*key);
    let aes = Aes128::new(&k);
    k[..].zeroize();
    aes
}

/// `KDF(K, index, 16 * blocks)`, with `aes` the cipher of `K`: hands each
/// 16-byte block `i` (counting from 0) to `sink` in order.
pub(super) fn kdf(aes: &Aes128, index: u8, blocks: usize, mut sink: impl FnMut(usize, &[u8; 16])) {
    let mut batch = [Array::from([0u8; 16]); BATCH];
    for first in (0..blocks).step_by(BATCH) {
        let n = (blocks - first).min(BATCH);
        for (j, block) in batch[..n].iter_mut().enumerate() {
            *block = Array::from([0u8; 16]);
            block[7] = index;
            block[8..].copy_from_slice(&((first + j) as u64 + 1).to_be_bytes());
        }
        aes.encrypt_blocks(&mut batch[..n]);
        for (j, block) in batch[..n].iter().enumerate() {
            sink(first + j, &block.0);
        }
    }
    for block in &mut batch[..blocks.min(BATCH)] {
        block[..].zeroize();
    }
}
