//! The MACs `linerate mac` offers, with their command-line names, BSD tags
//! and tag lengths.
//!
//! Two spellings name a MAC: the command-line name (`-a hmac-md5-96`, either
//! case) and the BSD tag of `--tag` lines (`HMAC-MD5-96 (name) = hex`),
//! upper case only, as a checksum line must carry it.

use linerate::mac::umac::TagBits;

/// A MAC `linerate mac` computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MacAlgorithm {
    /// HMAC-MD5 (RFC 2104), 16-byte tags.
    HmacMd5,
    /// HMAC-MD5-96 (RFC 2403): HMAC-MD5's first 12 bytes.
    HmacMd5_96,
    /// HMAC-SHA1 (RFC 2104), 20-byte tags.
    HmacSha1,
    /// HMAC-SHA1-96 (RFC 2404): HMAC-SHA1's first 12 bytes.
    HmacSha1_96,
    /// UMAC-32 (RFC 4418), 4-byte tags.
    Umac32,
    /// UMAC-64, 8-byte tags.
    Umac64,
    /// UMAC-96, 12-byte tags.
    Umac96,
    /// UMAC-128, 16-byte tags.
    Umac128,
}

/// The bytes of a UMAC key (an AES-128 key).
pub const UMAC_KEY_LEN: usize = 16;

/// The longest UMAC nonce, in bytes (the shortest is 1).
pub const UMAC_MAX_NONCE_LEN: usize = 16;

impl MacAlgorithm {
    /// Every MAC, in the order the help lists them.
    pub const ALL: [MacAlgorithm; 8] = [
        MacAlgorithm::HmacMd5,
        MacAlgorithm::HmacMd5_96,
        MacAlgorithm::HmacSha1,
        MacAlgorithm::HmacSha1_96,
        MacAlgorithm::Umac32,
        MacAlgorithm::Umac64,
        MacAlgorithm::Umac96,
        MacAlgorithm::Umac128,
    ];

    /// The command-line name: `hmac-md5`, `umac-64`.
    pub fn name(self) -> &'static str {
        match self {
            MacAlgorithm::HmacMd5 => "hmac-md5",
            MacAlgorithm::HmacMd5_96 => "hmac-md5-96",
            MacAlgorithm::HmacSha1 => "hmac-sha1",
            MacAlgorithm::HmacSha1_96 => "hmac-sha1-96",
            MacAlgorithm::Umac32 => "umac-32",
            MacAlgorithm::Umac64 => "umac-64",
            MacAlgorithm::Umac96 => "umac-96",
            MacAlgorithm::Umac128 => "umac-128",
        }
    }

    /// The BSD tag: the name in upper case (`HMAC-MD5`, `UMAC-64`).
    pub fn tag(self) -> &'static str {
        match self {
            MacAlgorithm::HmacMd5 => "HMAC-MD5",
            MacAlgorithm::HmacMd5_96 => "HMAC-MD5-96",
            MacAlgorithm::HmacSha1 => "HMAC-SHA1",
            MacAlgorithm::HmacSha1_96 => "HMAC-SHA1-96",
            MacAlgorithm::Umac32 => "UMAC-32",
            MacAlgorithm::Umac64 => "UMAC-64",
            MacAlgorithm::Umac96 => "UMAC-96",
            MacAlgorithm::Umac128 => "UMAC-128",
        }
    }

    /// The tag length in bytes.
    pub fn tag_len(self) -> usize {
        match self {
            MacAlgorithm::HmacMd5 => 16,
            MacAlgorithm::HmacMd5_96 | MacAlgorithm::HmacSha1_96 => 12,
            MacAlgorithm::HmacSha1 => 20,
            MacAlgorithm::Umac32 => 4,
            MacAlgorithm::Umac64 => 8,
            MacAlgorithm::Umac96 => 12,
            MacAlgorithm::Umac128 => 16,
        }
    }

    /// UMAC's tag length, or `None` for the HMACs.
    pub fn umac_bits(self) -> Option<TagBits> {
        match self {
            MacAlgorithm::Umac32
            | MacAlgorithm::Umac64
            | MacAlgorithm::Umac96
            | MacAlgorithm::Umac128 => TagBits::from_bits(8 * self.tag_len()),
            _ => None,
        }
    }

    /// Whether the MAC takes a nonce (the UMACs do, the HMACs do not).
    pub fn takes_nonce(self) -> bool {
        self.umac_bits().is_some()
    }

    /// Parses a command-line name, in either case. The error is a one-line
    /// message naming what was wrong.
    pub fn from_name(name: &[u8]) -> Result<MacAlgorithm, String> {
        let lower = name.to_ascii_lowercase();
        MacAlgorithm::ALL
            .into_iter()
            .find(|a| a.name().as_bytes() == lower)
            .ok_or_else(|| {
                format!(
                    "invalid algorithm '{}': give {}",
                    String::from_utf8_lossy(name),
                    names()
                )
            })
    }
}

/// Every name, for messages: `hmac-md5, ..., umac-96 or umac-128`.
pub fn names() -> String {
    let all: Vec<&str> = MacAlgorithm::ALL.iter().map(|a| a.name()).collect();
    let (last, rest) = all.split_last().expect("there are MACs");
    format!("{} or {last}", rest.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_tags_and_lengths() {
        for a in MacAlgorithm::ALL {
            assert_eq!(MacAlgorithm::from_name(a.name().as_bytes()), Ok(a));
            assert_eq!(
                MacAlgorithm::from_name(a.name().to_uppercase().as_bytes()),
                Ok(a)
            );
            assert_eq!(a.tag(), a.name().to_uppercase());
            if let Some(bits) = a.umac_bits() {
                assert_eq!(bits.bytes(), a.tag_len());
            }
        }
        assert_eq!(MacAlgorithm::Umac32.umac_bits(), Some(TagBits::B32));
        assert_eq!(MacAlgorithm::Umac128.umac_bits(), Some(TagBits::B128));
        assert!(!MacAlgorithm::HmacSha1.takes_nonce());
        assert!(MacAlgorithm::Umac64.takes_nonce());
        for bad in [&b"hmac"[..], b"md5", b"umac-48", b"hmac-md5-", b""] {
            assert!(MacAlgorithm::from_name(bad).is_err());
        }
        let message = MacAlgorithm::from_name(b"umac48").unwrap_err();
        assert!(message.starts_with("invalid algorithm 'umac48': give hmac-md5, "));
        assert!(message.ends_with("umac-96 or umac-128"));
    }
}
