//! A keyed MAC and files streamed through it in fixed-size chunks, so memory
//! does not depend on a file's size: the library's [`MacKey`] and its
//! streams, under the one nonce of the run.

use linerate::MacAlgorithm;
use linerate::mac::MacKey;
use linerate_files::read::Reader;
use linerate_files::{FileError, Input, Progress};

/// A MAC under one key, ready to tag any number of files. The library's key
/// objects wipe their keyed states when dropped.
pub struct Mac {
    key: MacKey,
    /// The nonce of the next message (UMAC's; empty for the others);
    /// `None` once a counter ran past its largest value.
    nonce: Option<Vec<u8>>,
    /// Whether each message takes the next nonce (`--nonce-start`), the
    /// nonce read as a big-endian number of its own length.
    counting: bool,
}

impl Mac {
    /// Keys `algorithm` with `key`, checked by [`super::key::load_key`]
    /// (any length for the HMACs, 16 bytes for the UMACs) and, for the
    /// UMACs, `nonce` from [`super::key::load_nonce`]. The caller drops
    /// (and so wipes) its key buffer right after.
    ///
    /// # Panics
    ///
    /// If the key was not checked.
    pub fn new(algorithm: MacAlgorithm, key: &[u8], nonce: Option<Vec<u8>>) -> Mac {
        Mac {
            key: MacKey::new(algorithm, key).expect("the key was checked"),
            nonce: Some(nonce.unwrap_or_default()),
            counting: false,
        }
    }

    /// From now on each message takes the next nonce: the first the one
    /// given, then one more, as a big-endian number of its length.
    pub fn counting(mut self) -> Mac {
        self.counting = true;
        self
    }

    /// The nonce for the next message (`None`: none left), and the counter
    /// moved on.
    fn next_nonce(&mut self) -> Option<Vec<u8>> {
        if !self.counting {
            return self.nonce.clone();
        }
        let nonce = self.nonce.take()?;
        // Add one, carrying from the last byte; all 0xff would wrap to
        // zero, which was used first: then no nonce is left.
        let mut next = nonce.clone();
        let wrapped = next.iter_mut().rev().all(|byte| {
            let (sum, carry) = byte.overflowing_add(1);
            *byte = sum;
            carry
        });
        self.nonce = (!wrapped).then_some(next);
        Some(nonce)
    }

    /// The tag of `input`, read in chunks through `reader`'s buffer.
    ///
    /// # Panics
    ///
    /// If a UMAC's nonce was not checked.
    pub fn tag_input(
        &mut self,
        input: Input<'_>,
        reader: &mut Reader,
        progress: &dyn Progress,
    ) -> Result<Vec<u8>, FileError> {
        // Taken first: a message that cannot be read still used its nonce,
        // so that message k always has nonce k.
        let nonce = self.next_nonce().ok_or_else(|| {
            FileError::Read(std::io::Error::other(
                "no nonce left: --nonce-start is too short for so many messages",
            ))
        })?;
        let mut stream = self.key.stream();
        reader.absorb(input, progress, |data| stream.update(data))?;
        Ok(stream
            .finalize(&nonce)
            .expect("the nonce's length was checked"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use linerate::mac::hmac::{HmacMd5Key, HmacSha1Key};
    use linerate::mac::umac::{TagBits, Umac};

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
            .tag_input(
                Input::Path(path.as_os_str()),
                &mut Reader::default(),
                &linerate_files::NoProgress,
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
            let algorithm = super::super::OFFERED
                .into_iter()
                .find(|a| a.umac_bits() == Some(bits))
                .unwrap();
            let mut mac = Mac::new(algorithm, umac_key, Some(b"bcdefghi".to_vec()));
            let expected = Umac::new(umac_key, bits).tag(&data, b"bcdefghi").unwrap();
            assert_eq!(tag_bytes(&mut mac, &data), expected.to_vec(), "{bits:?}");
        }
    }

    #[test]
    fn a_counted_nonce_carries_and_runs_out() {
        let key = [7u8; 16];
        let mut mac = Mac::new(MacAlgorithm::Umac64, &key, Some(vec![0x00, 0xfe])).counting();
        assert_eq!(mac.next_nonce(), Some(vec![0x00, 0xfe]));
        assert_eq!(mac.next_nonce(), Some(vec![0x00, 0xff]));
        assert_eq!(mac.next_nonce(), Some(vec![0x01, 0x00]));
        let mut short = Mac::new(MacAlgorithm::Umac64, &key, Some(vec![0xff])).counting();
        assert_eq!(short.next_nonce(), Some(vec![0xff]));
        assert_eq!(short.next_nonce(), None);
        let mut fixed = Mac::new(MacAlgorithm::Umac64, &key, Some(vec![0xff]));
        assert_eq!(fixed.next_nonce(), Some(vec![0xff]));
        assert_eq!(fixed.next_nonce(), Some(vec![0xff]));
    }
}
