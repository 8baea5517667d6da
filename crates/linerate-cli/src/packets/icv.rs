//! The ICV algorithms `linerate packets` offers, keyed once per run: the
//! HMACs keep their precomputed inner and outer states, keyed MD5 its state
//! after the padded key, UMAC its derived subkeys (RFC 1810's and OpenSSH's
//! point: keying is not per packet).
//!
//! Batches go through the multi-buffer paths: HMAC-MD5 and keyed MD5 in
//! SIMD lanes (`tag_many_into`), UMAC's prefetching `tag_many`; HMAC-SHA1
//! runs packet by packet (SHA-NI, one stream).

use linerate::mac::keyed_md5::KeyedMd5Key;
use linerate::mac::umac::{TagBits, Umac};
use linerate::{HmacMd5Key, HmacSha1Key};
use zeroize::Zeroizing;

/// An ICV algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Alg {
    /// HMAC-MD5-96 (RFC 2403).
    HmacMd5_96,
    /// HMAC-SHA1-96 (RFC 2404).
    HmacSha1_96,
    /// Keyed MD5 (RFC 1828): MD5(key, zeros to a block boundary, data, key).
    KeyedMd5,
    /// UMAC-64 (RFC 4418), nonce = the 64-bit sequence number; not an IANA
    /// AH transform.
    Umac64,
    /// UMAC-96, likewise.
    Umac96,
}

impl Alg {
    /// Every algorithm, in the order of the help text.
    pub const ALL: [Alg; 5] = [
        Alg::HmacMd5_96,
        Alg::HmacSha1_96,
        Alg::KeyedMd5,
        Alg::Umac64,
        Alg::Umac96,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Alg::HmacMd5_96 => "hmac-md5-96",
            Alg::HmacSha1_96 => "hmac-sha1-96",
            Alg::KeyedMd5 => "keyed-md5",
            Alg::Umac64 => "umac-64",
            Alg::Umac96 => "umac-96",
        }
    }

    /// The ICV's length in bytes (before the AH's padding).
    pub fn icv_len(self) -> usize {
        match self {
            Alg::HmacMd5_96 | Alg::HmacSha1_96 | Alg::Umac96 => 12,
            Alg::KeyedMd5 => 16,
            Alg::Umac64 => 8,
        }
    }

    pub fn is_umac(self) -> bool {
        matches!(self, Alg::Umac64 | Alg::Umac96)
    }

    /// Parses a name, in either case.
    pub fn from_name(name: &str) -> Result<Alg, String> {
        let lower = name.to_ascii_lowercase();
        Alg::ALL
            .into_iter()
            .find(|a| a.name() == lower)
            .ok_or_else(|| {
                let names: Vec<&str> = Alg::ALL.iter().map(|a| a.name()).collect();
                format!("invalid algorithm '{name}': give {}", names.join(", "))
            })
    }
}

/// The bytes of a UMAC key.
pub const UMAC_KEY_LEN: usize = 16;

/// An ICV algorithm under one key.
#[derive(Clone)]
pub enum Keyed {
    HmacMd5(Box<HmacMd5Key>),
    HmacSha1(Box<HmacSha1Key>),
    /// The chaining value after the key and its zero fill, and the key for
    /// the end; batches run in the lanes engine.
    KeyedMd5(Box<KeyedMd5Key>),
    Umac(Box<Umac>),
}

impl Keyed {
    /// Keys `alg`. The key was checked: non-empty, 16 bytes for UMAC.
    ///
    /// # Panics
    /// If a UMAC key is not 16 bytes long.
    pub fn new(alg: Alg, key: &[u8]) -> Keyed {
        match alg {
            Alg::HmacMd5_96 => Keyed::HmacMd5(Box::new(HmacMd5Key::new(key))),
            Alg::HmacSha1_96 => Keyed::HmacSha1(Box::new(HmacSha1Key::new(key))),
            Alg::KeyedMd5 => Keyed::KeyedMd5(Box::new(KeyedMd5Key::new(key))),
            Alg::Umac64 | Alg::Umac96 => {
                let mut k = Zeroizing::new([0u8; UMAC_KEY_LEN]);
                k.copy_from_slice(key);
                let bits = if alg == Alg::Umac64 {
                    TagBits::B64
                } else {
                    TagBits::B96
                };
                Keyed::Umac(Box::new(Umac::new(&k, bits)))
            }
        }
    }

    /// The ICVs of `inputs` (with their AH sequence numbers, UMAC's nonces)
    /// into `out`, the first `icv_len` bytes of each entry.
    ///
    /// # Panics
    /// If the three slices differ in length.
    pub fn tags(&mut self, inputs: &[&[u8]], seqs: &[u32], out: &mut [[u8; 16]]) {
        assert!(inputs.len() == out.len() && seqs.len() == out.len());
        match self {
            Keyed::HmacMd5(key) => key.tag_many_into(inputs, out),
            Keyed::HmacSha1(key) => {
                for (input, tag) in inputs.iter().zip(out.iter_mut()) {
                    tag[..12].copy_from_slice(&key.tag_96(input));
                }
            }
            Keyed::KeyedMd5(key) => key.tag_many_into(inputs, out),
            Keyed::Umac(umac) => {
                // Without extended sequence numbers the high 32 bits of the
                // nonce are zero.
                let nonces: Vec<[u8; 8]> =
                    seqs.iter().map(|s| u64::from(*s).to_be_bytes()).collect();
                let nonces: Vec<&[u8]> = nonces.iter().map(|n| &n[..]).collect();
                let mut tags = Vec::new();
                if umac.tag_many(inputs, &nonces, &mut tags).is_ok() {
                    for (tag, t) in out.iter_mut().zip(&tags) {
                        tag[..t.len()].copy_from_slice(t);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for a in Alg::ALL {
            assert_eq!(Alg::from_name(&a.name().to_uppercase()), Ok(a));
        }
        assert!(Alg::from_name("hmac-md5").is_err());
    }

    #[test]
    fn keyed_md5_is_rfc_1828() {
        // Independent of the prefix trick: one MD5 over the whole input.
        for key in [&b"k"[..], &[7u8; 64], &[9u8; 65]] {
            let mut keyed = Keyed::new(Alg::KeyedMd5, key);
            let mut out = [[0u8; 16]];
            keyed.tags(&[b"data"], &[1], &mut out);
            let mut whole = key.to_vec();
            whole.resize(key.len().div_ceil(64) * 64, 0);
            whole.extend_from_slice(b"data");
            whole.extend_from_slice(key);
            assert_eq!(out[0], linerate::md5(&whole));
        }
    }
}
