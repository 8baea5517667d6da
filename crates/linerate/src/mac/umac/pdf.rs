//! The pad (RFC 4418 section 3.2.2, PDF): AES-128 under `KDF(K, 0, 16)` of
//! the nonce, zero-padded to 16 bytes.
//!
//! UMAC-32 and UMAC-64 clear the nonce's low two bits (one bit) and take
//! the four-byte (eight-byte) piece of the AES output that those bits
//! select, so four (two) consecutive nonces share one AES call. The last
//! input and output are cached: on sequential nonces UMAC-64 runs AES once
//! per two tags and UMAC-32 once per four. UMAC-96 and UMAC-128 use the
//! first 12 or 16 bytes of a fresh block for every nonce.

use aes::Aes128;
use aes::cipher::{Array, BlockCipherEncrypt};
use zeroize::Zeroize;

#[derive(Clone)]
pub(super) struct Pdf {
    aes: Aes128,
    /// The last AES input (the nonce with its index bits cleared), if any.
    input: Option<[u8; 16]>,
    /// Its AES output.
    output: [u8; 16],
    /// AES calls so far (for the tests of the cache).
    calls: u64,
}

impl Pdf {
    /// The PDF under `aes`, the cipher of `KDF(K, 0, 16)`.
    pub(super) fn new(aes: Aes128) -> Pdf {
        Pdf {
            aes,
            input: None,
            output: [0; 16],
            calls: 0,
        }
    }

    /// The pad for `nonce` (1 to 16 bytes, checked by the caller) in the
    /// first `tag_len` (4, 8, 12 or 16) bytes of the result.
    #[inline(always)]
    pub(super) fn pad(&mut self, nonce: &[u8], tag_len: usize) -> [u8; 16] {
        debug_assert!((1..=16).contains(&nonce.len()));
        let mut block = [0u8; 16];
        block[..nonce.len()].copy_from_slice(nonce);
        let last = nonce.len() - 1;
        let index = match tag_len {
            4 => block[last] & 3,
            8 => block[last] & 1,
            _ => 0,
        } as usize;
        block[last] ^= index as u8;
        if self.input != Some(block) {
            let mut b = Array::from(block);
            self.aes.encrypt_block(&mut b);
            self.output = b.into();
            b[..].zeroize();
            self.input = Some(block);
            self.calls += 1;
        }
        let mut pad = [0u8; 16];
        let from = index * tag_len;
        pad[..tag_len].copy_from_slice(&self.output[from..from + tag_len]);
        pad
    }
}

impl Pdf {
    /// AES calls made so far.
    pub(super) fn calls(&self) -> u64 {
        self.calls
    }
}

impl Drop for Pdf {
    fn drop(&mut self) {
        self.output.zeroize();
        // `aes` wipes its round keys itself when the `aes` crate's `zeroize`
        // feature is on.
    }
}
