//! Any MAC of the registry ([`MacAlgorithm`]) under one key: set up once,
//! then used for streams (a file read in pieces) or batches (a capture's
//! packets), with the algorithm's fastest path for each.
//!
//! Keying happens once per key, never per message (RFC 1810's and
//! OpenSSH's point): HMAC keeps its inner and outer chaining values, keyed
//! MD5 its state after the padded key, UMAC its derived subkeys.

use zeroize::Zeroizing;

use crate::Md5;
use crate::mac::cmac::AesCmacKey;
use crate::mac::hmac::HmacStream;
use crate::mac::hmac::{HmacKey, HmacMd5Key, HmacSha1Key};
use crate::mac::keyed_md5::KeyedMd5Key;
use crate::mac::umac::{Umac, UmacError, UmacState};
use crate::registry::{KeyProblem, MacAlgorithm, UMAC_KEY_LEN};

/// Bytes of a tag in a batch slot ([`MacKey::tag_many_into`]).
pub const BATCH_TAG_LEN: usize = 16;

/// A MAC under one key. Its key material is wiped when it is dropped.
pub struct MacKey {
    algorithm: MacAlgorithm,
    keyed: Inner,
}

enum Inner {
    /// The fast key for batches and one-shot tags, the generic one for
    /// streams (the raw key keeps no buffer for pieces).
    HmacMd5(Box<HmacMd5Key>, Box<HmacKey<Md5>>),
    HmacSha1(Box<HmacSha1Key>, Box<HmacKey<sha1::Sha1>>),
    KeyedMd5(Box<KeyedMd5Key>),
    Cmac(Box<AesCmacKey>),
    Umac(Box<Umac>),
}

impl MacKey {
    /// Sets up `key` for `algorithm`; an error if the key breaks the
    /// algorithm's rule ([`MacAlgorithm::key_rule`]).
    pub fn new(algorithm: MacAlgorithm, key: &[u8]) -> Result<MacKey, KeyProblem> {
        algorithm.check_key_len(key.len())?;
        let keyed = match algorithm {
            MacAlgorithm::HmacMd5 | MacAlgorithm::HmacMd5_96 => {
                Inner::HmacMd5(Box::new(HmacMd5Key::new(key)), Box::new(HmacKey::new(key)))
            }
            MacAlgorithm::HmacSha1 | MacAlgorithm::HmacSha1_96 | MacAlgorithm::TcpAoHmacSha1_96 => {
                Inner::HmacSha1(Box::new(HmacSha1Key::new(key)), Box::new(HmacKey::new(key)))
            }
            MacAlgorithm::KeyedMd5 => Inner::KeyedMd5(Box::new(KeyedMd5Key::new(key))),
            MacAlgorithm::TcpMd5 => Inner::KeyedMd5(Box::new(KeyedMd5Key::suffix_only(key))),
            MacAlgorithm::TcpAoAes128Cmac96 => Inner::Cmac(Box::new(AesCmacKey::new(key))),
            MacAlgorithm::Umac32
            | MacAlgorithm::Umac64
            | MacAlgorithm::Umac96
            | MacAlgorithm::Umac128 => {
                let mut umac_key = Zeroizing::new([0u8; UMAC_KEY_LEN]);
                umac_key.copy_from_slice(key);
                let bits = algorithm.umac_bits().expect("a UMAC has a tag length");
                Inner::Umac(Box::new(Umac::new(&umac_key, bits)))
            }
        };
        Ok(MacKey { algorithm, keyed })
    }

    /// The algorithm it computes.
    pub fn algorithm(&self) -> MacAlgorithm {
        self.algorithm
    }

    /// The tag of `message` ([`MacAlgorithm::tag_len`] bytes); `nonce` is
    /// UMAC's and ignored by the others.
    pub fn tag(&mut self, message: &[u8], nonce: &[u8]) -> Result<Vec<u8>, UmacError> {
        let mut stream = self.stream();
        stream.update(message);
        stream.finalize(nonce)
    }

    /// A message fed in pieces.
    pub fn stream(&mut self) -> MacStream<'_> {
        let len = self.algorithm.tag_len();
        let state = match &mut self.keyed {
            Inner::HmacMd5(_, key) => StreamState::HmacMd5(key.stream()),
            Inner::HmacSha1(_, key) => StreamState::HmacSha1(key.stream()),
            Inner::KeyedMd5(key) => StreamState::KeyedMd5(key, key.prefix()),
            Inner::Cmac(key) => StreamState::Cmac(Box::new(key.stream())),
            Inner::Umac(umac) => StreamState::Umac(Box::new(umac.start())),
        };
        MacStream { state, len }
    }

    /// The tags of `messages` into `out`, `nonces[i]` being message `i`'s
    /// UMAC nonce (the other MACs take none: pass an empty slice), through
    /// the batch paths: HMAC-MD5 and keyed MD5 side by side in SIMD lanes,
    /// UMAC with the next messages prefetched, HMAC-SHA1 one at a time
    /// (SHA-NI). Each slot gets the tag's first [`BATCH_TAG_LEN`] bytes at
    /// most: every tag whole but full HMAC-SHA1's (20 bytes), which is cut
    /// as RFC 2104 section 5 allows; its bytes past the tag are left as they
    /// were.
    ///
    /// # Panics
    /// If `out` and `messages` differ in length, or a UMAC gets fewer
    /// nonces than messages.
    pub fn tag_many_into(
        &mut self,
        messages: &[&[u8]],
        nonces: &[&[u8]],
        out: &mut [[u8; BATCH_TAG_LEN]],
    ) -> Result<(), UmacError> {
        assert_eq!(messages.len(), out.len(), "one output per message");
        let len = self.algorithm.tag_len().min(BATCH_TAG_LEN);
        match &mut self.keyed {
            Inner::HmacMd5(key, _) => key.tag_many_into(messages, out),
            Inner::HmacSha1(key, _) => {
                crate::sha1_lanes::hmac_sha1_many_into(key, messages, out, len)
            }
            Inner::KeyedMd5(key) => key.tag_many_into(messages, out),
            Inner::Cmac(key) => key.tag_many_into(messages, out, len),
            Inner::Umac(umac) => {
                let mut tags = Vec::with_capacity(messages.len());
                umac.tag_many(messages, &nonces[..messages.len()], &mut tags)?;
                for (slot, tag) in out.iter_mut().zip(&tags) {
                    slot[..len].copy_from_slice(tag.as_bytes());
                }
            }
        }
        Ok(())
    }
}

impl Clone for MacKey {
    /// A copy of the keyed state (not keyed again), for another thread.
    fn clone(&self) -> MacKey {
        let keyed = match &self.keyed {
            Inner::HmacMd5(raw, generic) => Inner::HmacMd5(raw.clone(), generic.clone()),
            Inner::HmacSha1(raw, generic) => Inner::HmacSha1(raw.clone(), generic.clone()),
            Inner::KeyedMd5(key) => Inner::KeyedMd5(key.clone()),
            Inner::Cmac(key) => Inner::Cmac(key.clone()),
            Inner::Umac(umac) => Inner::Umac(umac.clone()),
        };
        MacKey {
            algorithm: self.algorithm,
            keyed,
        }
    }
}

impl std::fmt::Debug for MacKey {
    /// The algorithm only, never key material.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MacKey({}) {{ .. }}", self.algorithm.name())
    }
}

/// One message in progress under a [`MacKey`].
pub struct MacStream<'k> {
    state: StreamState<'k>,
    len: usize,
}

enum StreamState<'k> {
    HmacMd5(HmacStream<'k, Md5>),
    HmacSha1(HmacStream<'k, sha1::Sha1>),
    KeyedMd5(&'k KeyedMd5Key, Md5),
    Cmac(Box<cmac::Cmac<aes::Aes128>>),
    Umac(Box<UmacState<'k>>),
}

impl MacStream<'_> {
    /// Absorbs `data`.
    pub fn update(&mut self, data: &[u8]) {
        match &mut self.state {
            StreamState::HmacMd5(s) => s.update(data),
            StreamState::HmacSha1(s) => s.update(data),
            StreamState::KeyedMd5(_, md5) => md5.update(data),
            StreamState::Cmac(mac) => cmac::Mac::update(mac.as_mut(), data),
            StreamState::Umac(s) => s.update(data),
        }
    }

    /// The tag of everything absorbed; `nonce` is UMAC's and ignored by the
    /// others.
    pub fn finalize(self, nonce: &[u8]) -> Result<Vec<u8>, UmacError> {
        let tag = match self.state {
            StreamState::HmacMd5(s) => s.finalize().to_vec(),
            StreamState::HmacSha1(s) => s.finalize().to_vec(),
            StreamState::KeyedMd5(key, md5) => key.finish(md5).to_vec(),
            StreamState::Cmac(mac) => cmac::Mac::finalize(*mac).into_bytes().to_vec(),
            StreamState::Umac(s) => s.finalize(nonce)?.as_bytes().to_vec(),
        };
        Ok(tag[..self.len].to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 7 % 251) as u8).collect()
    }

    #[test]
    fn streams_batches_and_one_shots_agree_for_every_mac() {
        let messages: Vec<Vec<u8>> = [0, 1, 55, 64, 100, 1500].map(message).to_vec();
        let views: Vec<&[u8]> = messages.iter().map(|m| &m[..]).collect();
        let nonce_bytes: Vec<[u8; 8]> = (0..views.len() as u64).map(u64::to_be_bytes).collect();
        let nonces: Vec<&[u8]> = nonce_bytes.iter().map(|n| &n[..]).collect();
        for algorithm in MacAlgorithm::ALL {
            let key = match algorithm.key_rule() {
                crate::registry::KeyRule::Exactly(n) => message(n),
                crate::registry::KeyRule::NonEmpty => message(20),
            };
            let mut mac = MacKey::new(algorithm, &key).unwrap();
            let mut out = vec![[0u8; BATCH_TAG_LEN]; views.len()];
            mac.tag_many_into(&views, &nonces, &mut out).unwrap();
            for (i, m) in views.iter().enumerate() {
                let one = mac.tag(m, nonces[i]).unwrap();
                assert_eq!(one.len(), algorithm.tag_len(), "{algorithm:?}");
                let mut stream = mac.stream();
                for piece in m.chunks(7) {
                    stream.update(piece);
                }
                assert_eq!(stream.finalize(nonces[i]).unwrap(), one, "{algorithm:?}");
                let cut = one.len().min(BATCH_TAG_LEN);
                assert_eq!(out[i][..cut], one[..cut], "{algorithm:?} {i}");
            }
        }
    }

    #[test]
    fn each_mac_is_its_definition() {
        let key = message(16);
        let m = message(300);
        let tag = |a| MacKey::new(a, &key).unwrap().tag(&m, b"12345678").unwrap();
        let hmac_md5 = crate::HmacMd5Key::new(&key).tag(&m);
        assert_eq!(tag(MacAlgorithm::HmacMd5), hmac_md5);
        assert_eq!(tag(MacAlgorithm::HmacMd5_96), hmac_md5[..12]);
        let hmac_sha1 = crate::HmacSha1Key::new(&key).tag(&m);
        assert_eq!(tag(MacAlgorithm::HmacSha1), hmac_sha1);
        assert_eq!(tag(MacAlgorithm::HmacSha1_96), hmac_sha1[..12]);
        let mut whole = key.clone();
        whole.resize(64, 0);
        whole.extend_from_slice(&m);
        whole.extend_from_slice(&key);
        assert_eq!(tag(MacAlgorithm::KeyedMd5), crate::md5(&whole));
        let mut suffixed = m.clone();
        suffixed.extend_from_slice(&key);
        assert_eq!(tag(MacAlgorithm::TcpMd5), crate::md5(&suffixed));
        assert_eq!(tag(MacAlgorithm::TcpAoHmacSha1_96), hmac_sha1[..12]);
        let cmac = crate::mac::cmac::AesCmacKey::new(&key).tag(&m);
        assert_eq!(tag(MacAlgorithm::TcpAoAes128Cmac96), cmac[..12]);
        let key16: [u8; 16] = key[..16].try_into().unwrap();
        let mut umac = Umac::new(&key16, crate::mac::umac::TagBits::B64);
        let want = umac.tag(&m, b"12345678").unwrap();
        assert_eq!(tag(MacAlgorithm::Umac64), want.as_bytes());
    }

    #[test]
    fn keys_follow_the_rules() {
        assert_eq!(
            MacKey::new(MacAlgorithm::Umac32, &[1; 15]).err(),
            Some(KeyProblem::Length {
                needed: 16,
                got: 15
            })
        );
        assert_eq!(
            MacKey::new(MacAlgorithm::HmacSha1, &[]).err(),
            Some(KeyProblem::Empty)
        );
        let mut umac = MacKey::new(MacAlgorithm::Umac96, &[1; 16]).unwrap();
        assert_eq!(umac.tag(b"x", &[]), Err(UmacError::NonceLength(0)));
        assert_eq!(format!("{umac:?}"), "MacKey(umac-96) { .. }");
    }
}
