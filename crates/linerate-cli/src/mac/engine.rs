//! A keyed MAC and files streamed through it in fixed-size chunks, so memory
//! does not depend on a file's size: HMAC through the library's
//! [`HmacStream`](linerate::mac::hmac::HmacStream), UMAC through
//! [`UmacState`](linerate::mac::umac::UmacState).

use std::ffi::OsStr;

use linerate::mac::hmac::HmacKey;
use linerate::mac::umac::Umac;
use zeroize::Zeroizing;

use super::algorithm::{MacAlgorithm, UMAC_KEY_LEN};
use crate::sum::hash::{FileHasher, HashError};
use crate::sum::progress::Progress;

/// A MAC under one key, ready to tag any number of files. The library's key
/// objects wipe their keyed states when dropped.
pub enum Mac {
    /// HMAC-MD5, its tags cut to `len` bytes (16 or 12).
    HmacMd5 {
        key: Box<HmacKey<linerate::Md5>>,
        len: usize,
    },
    /// HMAC-SHA1, its tags cut to `len` bytes (20 or 12).
    HmacSha1 {
        key: Box<HmacKey<sha1::Sha1>>,
        len: usize,
    },
    /// A UMAC with the one nonce every file is tagged under.
    Umac { umac: Box<Umac>, nonce: Vec<u8> },
}

impl Mac {
    /// Keys `algorithm` with `key`, checked by [`super::key::load_key`]
    /// (any length for the HMACs, 16 bytes for the UMACs) and, for the
    /// UMACs, `nonce` from [`super::key::load_nonce`]. The caller drops
    /// (and so wipes) its key buffer right after.
    ///
    /// # Panics
    ///
    /// If the key or nonce were not checked: a UMAC key of another length
    /// than 16 bytes, or a UMAC without a nonce.
    pub fn new(algorithm: MacAlgorithm, key: &[u8], nonce: Option<Vec<u8>>) -> Mac {
        let len = algorithm.tag_len();
        match algorithm {
            MacAlgorithm::HmacMd5 | MacAlgorithm::HmacMd5_96 => Mac::HmacMd5 {
                key: Box::new(HmacKey::new(key)),
                len,
            },
            MacAlgorithm::HmacSha1 | MacAlgorithm::HmacSha1_96 => Mac::HmacSha1 {
                key: Box::new(HmacKey::new(key)),
                len,
            },
            MacAlgorithm::Umac32
            | MacAlgorithm::Umac64
            | MacAlgorithm::Umac96
            | MacAlgorithm::Umac128 => {
                let mut umac_key = Zeroizing::new([0u8; UMAC_KEY_LEN]);
                umac_key.copy_from_slice(key);
                let bits = algorithm.umac_bits().expect("a UMAC has a tag length");
                Mac::Umac {
                    umac: Box::new(Umac::new(&umac_key, bits)),
                    nonce: nonce.expect("a UMAC gets a checked nonce"),
                }
            }
        }
    }

    /// The tag of the file `name` (`-`: standard input), read in chunks
    /// through `hasher`'s buffer.
    pub fn tag_named(
        &mut self,
        name: &OsStr,
        hasher: &mut FileHasher,
        progress: &mut Progress,
    ) -> Result<Vec<u8>, HashError> {
        match self {
            Mac::HmacMd5 { key, len } => {
                let mut stream = key.stream();
                hasher.absorb_named(name, progress, |data| stream.update(data))?;
                Ok(stream.finalize()[..*len].to_vec())
            }
            Mac::HmacSha1 { key, len } => {
                let mut stream = key.stream();
                hasher.absorb_named(name, progress, |data| stream.update(data))?;
                Ok(stream.finalize()[..*len].to_vec())
            }
            Mac::Umac { umac, nonce } => {
                let mut state = umac.start();
                hasher.absorb_named(name, progress, |data| state.update(data))?;
                let tag = state
                    .finalize(nonce)
                    .expect("the nonce's length was checked");
                Ok(tag.to_vec())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use linerate::mac::hmac::{HmacMd5Key, HmacSha1Key};
    use linerate::mac::umac::TagBits;

    fn tag_bytes(mac: &mut Mac, data: &[u8]) -> Vec<u8> {
        let dir = std::env::temp_dir().join(format!(
            "linerate-mac-engine-{}-{}",
            std::process::id(),
            data.len()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("data");
        std::fs::write(&path, data).unwrap();
        let tag = mac
            .tag_named(
                path.as_os_str(),
                &mut FileHasher::default(),
                &mut Progress::hidden(),
            )
            .unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        tag
    }

    #[test]
    fn streamed_tags_match_the_one_shot_ones() {
        // More than one 256 KiB chunk of the file reader, not a multiple of
        // any block.
        let data: Vec<u8> = (0..600_001u32).map(|i| (i * 31 % 251) as u8).collect();
        let key = b"a key of some length";
        let md5 = HmacMd5Key::new(key);
        let sha1 = HmacSha1Key::new(key);
        let cases = [
            (MacAlgorithm::HmacMd5, md5.tag(&data).to_vec()),
            (MacAlgorithm::HmacMd5_96, md5.tag_96(&data).to_vec()),
            (MacAlgorithm::HmacSha1, sha1.tag(&data).to_vec()),
            (MacAlgorithm::HmacSha1_96, sha1.tag_96(&data).to_vec()),
        ];
        for (algorithm, expected) in cases {
            let mut mac = Mac::new(algorithm, key, None);
            assert_eq!(tag_bytes(&mut mac, &data), expected, "{algorithm:?}");
        }
        let umac_key = b"abcdefghijklmnop";
        for bits in TagBits::ALL {
            let algorithm = MacAlgorithm::ALL
                .into_iter()
                .find(|a| a.umac_bits() == Some(bits))
                .unwrap();
            let mut mac = Mac::new(algorithm, umac_key, Some(b"bcdefghi".to_vec()));
            let expected = Umac::new(umac_key, bits).tag(&data, b"bcdefghi").unwrap();
            assert_eq!(tag_bytes(&mut mac, &data), expected.to_vec(), "{bits:?}");
        }
    }
}
