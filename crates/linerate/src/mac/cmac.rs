//! AES-128-CMAC (RFC 4493) under any key length, as RFC 4615 and RFC
//! 5926's KDF take keys: a 16-byte key is used as it is, any other is
//! first reduced to 16 bytes by AES-CMAC under the zero key.
//!
//! One message is a chain of dependent AES blocks, bound by AES-NI's
//! latency; a batch ([`AesCmacKey::tag_many_into`]) runs up to
//! [`INTERLEAVE`] chains side by side, block `j` of every message
//! encrypted in one call, which RustCrypto's `aes` pipelines through the
//! AES units. Single messages and streams use RustCrypto's `cmac`, which
//! the batch path is tested against.

use aes::Aes128;
use aes::cipher::{Array, BlockCipherEncrypt};
use cmac::{Cmac, KeyInit, Mac};
use zeroize::Zeroizing;

/// Messages whose CMAC chains advance together.
pub const INTERLEAVE: usize = 8;

/// An AES-128-CMAC key, set up once (AES's round keys, CMAC's subkeys).
#[derive(Clone)]
pub struct AesCmacKey {
    mac: Cmac<Aes128>,
    /// The block cipher and RFC 4493's subkeys K1 and K2, for batches.
    aes: Aes128,
    k1: [u8; 16],
    k2: [u8; 16],
}

/// RFC 4493's doubling in GF(2^128).
fn double(block: [u8; 16]) -> [u8; 16] {
    let v = u128::from_be_bytes(block);
    let shifted = v << 1;
    (if v >> 127 == 1 {
        shifted ^ 0x87
    } else {
        shifted
    })
    .to_be_bytes()
}

impl AesCmacKey {
    /// Sets up `key`: used as the AES key if it has 16 bytes, else reduced
    /// to 16 (RFC 4615 section 3).
    pub fn new(key: &[u8]) -> AesCmacKey {
        let key: Zeroizing<[u8; 16]> = match <[u8; 16]>::try_from(key) {
            Ok(k) => Zeroizing::new(k),
            Err(_) => Zeroizing::new(AesCmacKey::with_key(&[0; 16]).tag(key)),
        };
        AesCmacKey::with_key(&key)
    }

    fn with_key(key: &[u8; 16]) -> AesCmacKey {
        let aes = <Aes128 as KeyInit>::new(&Array::from(*key));
        let mut l = Array::from([0u8; 16]);
        aes.encrypt_block(&mut l);
        let k1 = double(l.into());
        AesCmacKey {
            mac: <Cmac<Aes128> as KeyInit>::new_from_slice(key).expect("a 16-byte key"),
            aes,
            k1,
            k2: double(k1),
        }
    }

    /// The tags of `messages` into `out` (the first `len` bytes of each
    /// slot), [`INTERLEAVE`] chains at a time.
    ///
    /// # Panics
    /// If `out` is shorter than `messages`, or `len` is over 16.
    pub fn tag_many_into(&self, messages: &[&[u8]], out: &mut [[u8; 16]], len: usize) {
        assert!(out.len() >= messages.len() && len <= 16);
        for (group, slots) in messages.chunks(INTERLEAVE).zip(out.chunks_mut(INTERLEAVE)) {
            let tags = self.group(group);
            for (slot, tag) in slots.iter_mut().zip(&tags) {
                slot[..len].copy_from_slice(&tag[..len]);
            }
        }
    }

    /// The tags of up to [`INTERLEAVE`] messages, their chains advanced
    /// together: at step `j` every message with a block `j` absorbs it,
    /// and all their states are encrypted in one call.
    fn group(&self, group: &[&[u8]]) -> [[u8; 16]; INTERLEAVE] {
        // Blocks per message: at least one (the empty message's padding).
        let blocks: Vec<usize> = group.iter().map(|m| m.len().div_ceil(16).max(1)).collect();
        let steps = blocks.iter().copied().max().unwrap_or(0);
        let mut state = [[0u8; 16]; INTERLEAVE];
        let mut live: Vec<usize> = Vec::with_capacity(INTERLEAVE);
        let mut work = [Array::from([0u8; 16]); INTERLEAVE];
        for j in 0..steps {
            live.clear();
            for (i, m) in group.iter().enumerate() {
                if j >= blocks[i] {
                    continue;
                }
                let mut block = [0u8; 16];
                let start = 16 * j;
                if j + 1 < blocks[i] {
                    block.copy_from_slice(&m[start..start + 16]);
                } else {
                    // The last block: whole, masked with K1; or padded with
                    // 0x80 and zeros, masked with K2.
                    let rest = &m[start..];
                    block[..rest.len()].copy_from_slice(rest);
                    let subkey = if rest.len() == 16 {
                        &self.k1
                    } else {
                        block[rest.len()] = 0x80;
                        &self.k2
                    };
                    for (b, k) in block.iter_mut().zip(subkey) {
                        *b ^= k;
                    }
                }
                for (s, b) in state[i].iter_mut().zip(block) {
                    *s ^= b;
                }
                work[live.len()] = Array::from(state[i]);
                live.push(i);
            }
            self.aes.encrypt_blocks(&mut work[..live.len()]);
            for (w, &i) in work.iter().zip(&live) {
                state[i] = (*w).into();
            }
        }
        state
    }

    /// The 16-byte tag of `message`.
    pub fn tag(&self, message: &[u8]) -> [u8; 16] {
        let mut mac = self.stream();
        mac.update(message);
        mac.finalize().into_bytes().into()
    }

    /// A message fed in pieces (update it, then finalize).
    pub fn stream(&self) -> Cmac<Aes128> {
        self.mac.clone()
    }
}

impl Drop for AesCmacKey {
    fn drop(&mut self) {
        use zeroize::Zeroize;
        self.k1.zeroize();
        self.k2.zeroize();
    }
}

impl std::fmt::Debug for AesCmacKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AesCmacKey { .. }")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// RFC 4493 section 4's examples, and RFC 4615 section 4's for keys of
    /// other lengths.
    #[test]
    fn rfc_4493_and_4615_vectors() {
        let key = hex("2b7e151628aed2a6abf7158809cf4f3c");
        let k = AesCmacKey::new(&key);
        assert_eq!(k.tag(b"").to_vec(), hex("bb1d6929e95937287fa37d129b756746"));
        let m = hex("6bc1bee22e409f96e93d7e117393172a");
        assert_eq!(k.tag(&m).to_vec(), hex("070a16b46b4d4144f79bdd9dd04a287c"));
        let message = hex("000102030405060708090a0b0c0d0e0f10111213");
        for (key, want) in [
            (
                "000102030405060708090a0b0c0d0e0fedcb",
                "84a348a4a45d235babfffc0d2b4da09a",
            ),
            (
                "000102030405060708090a0b0c0d0e0f",
                "980ae87b5f4c9c5214f5b6a8455e4c2d",
            ),
            ("00010203040506070809", "290d9e112edb09ee141fcf64c0b72f3d"),
        ] {
            assert_eq!(
                AesCmacKey::new(&hex(key)).tag(&message).to_vec(),
                hex(want),
                "{key}"
            );
        }
    }

    /// The interleaved batch path against RustCrypto's `cmac`, one message
    /// at a time: every length across the block boundaries, mixed in
    /// groups, with the groups' lengths unequal.
    #[test]
    fn batches_match_one_message_at_a_time() {
        let mut seed = 0x2385_u64;
        let mut byte = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as u8
        };
        for klen in [16, 5, 40] {
            let key: Vec<u8> = (0..klen).map(|_| byte()).collect();
            let k = AesCmacKey::new(&key);
            let mut lens: Vec<usize> = (0..70).collect();
            lens.extend([1500, 1499, 1501, 4096, 15, 17, 0, 1, 32, 33]);
            let messages: Vec<Vec<u8>> = lens
                .iter()
                .map(|&n| (0..n).map(|_| byte()).collect())
                .collect();
            let views: Vec<&[u8]> = messages.iter().map(|m| &m[..]).collect();
            let mut out = vec![[0u8; 16]; views.len()];
            k.tag_many_into(&views, &mut out, 16);
            for (m, tag) in views.iter().zip(&out) {
                assert_eq!(*tag, k.tag(m), "key {klen}, message {}", m.len());
            }
            let mut short = vec![[0xffu8; 16]; views.len()];
            k.tag_many_into(&views, &mut short, 12);
            assert_eq!(short[3][..12], out[3][..12]);
            assert_eq!(short[3][12..], [0xff; 4]);
        }
    }
}
