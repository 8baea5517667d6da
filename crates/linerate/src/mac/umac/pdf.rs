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
    /// The last AES input (the nonce with its index bits cleared, as
    /// [`nonce_block`] numbers it), if any.
    input: Option<u128>,
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
        // The AES input as one big-endian number, built in registers: built
        // as bytes in memory, the cache check's 16-byte load right after the
        // byte stores missed store forwarding, about 6 % of a UMAC-64 tag of
        // a 1500-byte packet (perf).
        let block = nonce_block(nonce);
        let shift = 8 * (16 - nonce.len());
        let index = match tag_len {
            4 => (block >> shift) & 3,
            8 => (block >> shift) & 1,
            _ => 0,
        };
        let block = block ^ (index << shift);
        let index = index as usize;
        if self.input != Some(block) {
            let mut b = Array::from(block.to_be_bytes());
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

/// `nonce` zero-padded to 16 bytes, as a big-endian number (byte 0 the
/// most significant). Eight-byte nonces, the usual kind, take one load.
#[inline(always)]
fn nonce_block(nonce: &[u8]) -> u128 {
    if let Ok(eight) = <[u8; 8]>::try_from(nonce) {
        return u128::from(u64::from_be_bytes(eight)) << 64;
    }
    nonce
        .iter()
        .enumerate()
        .fold(0u128, |acc, (i, &b)| acc | u128::from(b) << (8 * (15 - i)))
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
