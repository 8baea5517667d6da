//! The registry of what linerate computes: every hash function and MAC by
//! name, with the facts a front end needs about it (its BSD tag, digest or
//! tag length, key and nonce rules). The command line's `sum`, `mac`,
//! `packets` and `speed` and the Python package take their names and their
//! subsets from here, so one algorithm has one name everywhere.
//!
//! A function has up to three spellings:
//!
//! - the name, lower case, as `-a`/`--alg` and Python take it (`md5p16`,
//!   `hmac-md5-96`); parsing accepts either case;
//! - the BSD tag of a checksum line (`MD5P16 (name) = hex`,
//!   `HMAC-MD5-96 (name) = hex`), upper case only;
//! - for hashes, a label for messages and driver output (`MD5-P/16`).

use std::fmt;

use crate::md5p::is_valid_k;
use crate::{Md5, Md5p};

/// What an MD5-P/K's K may be, for messages.
pub const VALID_K: &str = "K must be a multiple of 4 from 4 to 256";

/// A hash function linerate computes over files and streams.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum HashAlgorithm {
    /// RFC 1321's MD5.
    #[default]
    Md5,
    /// MD5-P/K (RFC 1810's K-way interleaved MD5, docs/md5p.md); K is
    /// always valid (a multiple of 4 in 4..=256).
    Md5p(usize),
}

/// A name that names no algorithm of a set; its text is the one-line
/// message a front end prints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownAlgorithm(pub String);

impl fmt::Display for UnknownAlgorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UnknownAlgorithm {}

impl HashAlgorithm {
    /// MD5-P/K, if `k` is a valid K.
    pub fn md5p(k: usize) -> Option<HashAlgorithm> {
        is_valid_k(k).then_some(HashAlgorithm::Md5p(k))
    }

    /// Parses a name, `md5` or `md5pK`, in either case.
    pub fn from_name(name: &[u8]) -> Result<HashAlgorithm, UnknownAlgorithm> {
        let lower = name.to_ascii_lowercase();
        if lower == b"md5" {
            return Ok(HashAlgorithm::Md5);
        }
        let shown = String::from_utf8_lossy(name);
        match lower.strip_prefix(b"md5p") {
            Some(digits) if !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) => {
                parse_k(digits)
                    .and_then(HashAlgorithm::md5p)
                    .ok_or_else(|| {
                        UnknownAlgorithm(format!(
                            "invalid algorithm '{shown}': MD5-P/K's {VALID_K}"
                        ))
                    })
            }
            _ => Err(UnknownAlgorithm(format!(
                "invalid algorithm '{shown}': give md5 or md5pK ({VALID_K}, e.g. md5p16)"
            ))),
        }
    }

    /// The function whose BSD tag starts `line` (`MD5` or `MD5PK`, K valid
    /// and without leading zeros), and the tag's length. An `MD5P` followed
    /// by anything else is no tag.
    pub fn from_tag_prefix(line: &[u8]) -> Option<(HashAlgorithm, usize)> {
        let rest = line.strip_prefix(b"MD5")?;
        let Some(after_p) = rest.strip_prefix(b"P") else {
            return Some((HashAlgorithm::Md5, 3));
        };
        let digits = after_p.iter().take_while(|b| b.is_ascii_digit()).count();
        let algorithm = HashAlgorithm::md5p(parse_k(&after_p[..digits])?)?;
        Some((algorithm, 4 + digits))
    }

    /// The name: `md5`, `md5p16`.
    pub fn name(self) -> String {
        match self {
            HashAlgorithm::Md5 => "md5".to_string(),
            HashAlgorithm::Md5p(k) => format!("md5p{k}"),
        }
    }

    /// The BSD tag: `MD5`, `MD5P16`.
    pub fn tag(self) -> String {
        self.name().to_ascii_uppercase()
    }

    /// The label of driver output and messages: `MD5`, `MD5-P/16`.
    pub fn label(self) -> String {
        match self {
            HashAlgorithm::Md5 => "MD5".to_string(),
            HashAlgorithm::Md5p(k) => format!("MD5-P/{k}"),
        }
    }

    /// A fresh streaming hasher.
    pub fn hasher(self) -> Hasher {
        match self {
            HashAlgorithm::Md5 => Hasher::Md5(Md5::new()),
            HashAlgorithm::Md5p(k) => Hasher::Md5p(Box::new(
                Md5p::new(k).expect("a HashAlgorithm holds a valid K"),
            )),
        }
    }
}

/// K in decimal: 1 to 3 digits, no leading zero.
fn parse_k(digits: &[u8]) -> Option<usize> {
    if digits.is_empty() || digits.len() > 3 || digits[0] == b'0' {
        return None;
    }
    std::str::from_utf8(digits).ok()?.parse().ok()
}

/// A streaming hasher of any [`HashAlgorithm`].
#[derive(Clone)]
pub enum Hasher {
    Md5(Md5),
    Md5p(Box<Md5p>),
}

impl Hasher {
    /// Absorbs `data`.
    pub fn update(&mut self, data: &[u8]) {
        match self {
            Hasher::Md5(h) => h.update(data),
            Hasher::Md5p(h) => h.update(data),
        }
    }

    /// The digest of everything absorbed.
    pub fn finalize(self) -> [u8; 16] {
        match self {
            Hasher::Md5(h) => h.finalize(),
            Hasher::Md5p(h) => h.finalize(),
        }
    }
}

/// A MAC linerate computes.
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
    /// Keyed MD5 (RFC 1828), the AH transform RFC 1810 measured:
    /// MD5(key, zeros to a block boundary, data, key).
    KeyedMd5,
    /// The TCP MD5 signature (RFC 2385): MD5(data, key), 16 bytes, where
    /// data is a segment's pseudo-header, header and payload. What BGP
    /// sessions run today.
    TcpMd5,
    /// TCP-AO's HMAC-SHA-1-96 (RFC 5925, 5926): as a MAC, HMAC-SHA-1-96
    /// under the key; on segments, under traffic keys that `linerate
    /// packets` derives from this (master) key per connection.
    TcpAoHmacSha1_96,
    /// TCP-AO's AES-128-CMAC-96: as a MAC, AES-CMAC (RFC 4493) cut to 12
    /// bytes, a key of other than 16 bytes first reduced to one by
    /// AES-CMAC under the zero key (RFC 4615, RFC 5926's KDF); on
    /// segments, under derived traffic keys.
    TcpAoAes128Cmac96,
    /// UMAC-32 (RFC 4418), 4-byte tags.
    Umac32,
    /// UMAC-64, 8-byte tags.
    Umac64,
    /// UMAC-96, 12-byte tags.
    Umac96,
    /// UMAC-128, 16-byte tags.
    Umac128,
}

/// What a MAC's key must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyRule {
    /// Any length but zero (HMAC hashes a long key; keyed MD5 pads it).
    NonEmpty,
    /// Exactly this many bytes (UMAC's AES-128 key).
    Exactly(usize),
}

/// What is wrong with a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyProblem {
    /// The MAC needs a key and got none.
    Empty,
    /// The MAC needs `needed` bytes and got `got`.
    Length { needed: usize, got: usize },
}

/// The nonce a MAC takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NonceRule {
    /// None at all (HMAC, keyed MD5).
    None,
    /// `min..=max` bytes, never repeated under one key (UMAC).
    Bytes { min: usize, max: usize },
}

/// The bytes of a UMAC key (an AES-128 key).
pub const UMAC_KEY_LEN: usize = 16;

/// The longest UMAC nonce, in bytes (the shortest is 1).
pub const UMAC_MAX_NONCE_LEN: usize = 16;

impl MacAlgorithm {
    /// Every MAC, in the order help texts list them.
    pub const ALL: [MacAlgorithm; 12] = [
        MacAlgorithm::HmacMd5,
        MacAlgorithm::HmacMd5_96,
        MacAlgorithm::HmacSha1,
        MacAlgorithm::HmacSha1_96,
        MacAlgorithm::KeyedMd5,
        MacAlgorithm::TcpMd5,
        MacAlgorithm::TcpAoHmacSha1_96,
        MacAlgorithm::TcpAoAes128Cmac96,
        MacAlgorithm::Umac32,
        MacAlgorithm::Umac64,
        MacAlgorithm::Umac96,
        MacAlgorithm::Umac128,
    ];

    /// The name: `hmac-md5`, `keyed-md5`, `umac-64`.
    pub fn name(self) -> &'static str {
        match self {
            MacAlgorithm::HmacMd5 => "hmac-md5",
            MacAlgorithm::HmacMd5_96 => "hmac-md5-96",
            MacAlgorithm::HmacSha1 => "hmac-sha1",
            MacAlgorithm::HmacSha1_96 => "hmac-sha1-96",
            MacAlgorithm::KeyedMd5 => "keyed-md5",
            MacAlgorithm::TcpMd5 => "tcp-md5",
            MacAlgorithm::TcpAoHmacSha1_96 => "tcp-ao-hmac-sha1-96",
            MacAlgorithm::TcpAoAes128Cmac96 => "tcp-ao-aes128-cmac-96",
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
            MacAlgorithm::KeyedMd5 => "KEYED-MD5",
            MacAlgorithm::TcpMd5 => "TCP-MD5",
            MacAlgorithm::TcpAoHmacSha1_96 => "TCP-AO-HMAC-SHA1-96",
            MacAlgorithm::TcpAoAes128Cmac96 => "TCP-AO-AES128-CMAC-96",
            MacAlgorithm::Umac32 => "UMAC-32",
            MacAlgorithm::Umac64 => "UMAC-64",
            MacAlgorithm::Umac96 => "UMAC-96",
            MacAlgorithm::Umac128 => "UMAC-128",
        }
    }

    /// The tag length in bytes.
    pub fn tag_len(self) -> usize {
        match self {
            MacAlgorithm::HmacMd5
            | MacAlgorithm::KeyedMd5
            | MacAlgorithm::TcpMd5
            | MacAlgorithm::Umac128 => 16,
            MacAlgorithm::HmacMd5_96
            | MacAlgorithm::HmacSha1_96
            | MacAlgorithm::TcpAoHmacSha1_96
            | MacAlgorithm::TcpAoAes128Cmac96
            | MacAlgorithm::Umac96 => 12,
            MacAlgorithm::HmacSha1 => 20,
            MacAlgorithm::Umac32 => 4,
            MacAlgorithm::Umac64 => 8,
        }
    }

    /// UMAC's tag length, or `None` for the other MACs.
    pub fn umac_bits(self) -> Option<crate::mac::umac::TagBits> {
        match self {
            MacAlgorithm::Umac32
            | MacAlgorithm::Umac64
            | MacAlgorithm::Umac96
            | MacAlgorithm::Umac128 => crate::mac::umac::TagBits::from_bits(8 * self.tag_len()),
            _ => None,
        }
    }

    /// What its key must be.
    pub fn key_rule(self) -> KeyRule {
        if self.umac_bits().is_some() {
            KeyRule::Exactly(UMAC_KEY_LEN)
        } else {
            KeyRule::NonEmpty
        }
    }

    /// Whether a key of `len` bytes is one it takes.
    pub fn check_key_len(self, len: usize) -> Result<(), KeyProblem> {
        match self.key_rule() {
            KeyRule::NonEmpty if len == 0 => Err(KeyProblem::Empty),
            KeyRule::Exactly(needed) if len != needed => {
                Err(KeyProblem::Length { needed, got: len })
            }
            _ => Ok(()),
        }
    }

    /// The nonce it takes.
    pub fn nonce_rule(self) -> NonceRule {
        if self.umac_bits().is_some() {
            NonceRule::Bytes {
                min: 1,
                max: UMAC_MAX_NONCE_LEN,
            }
        } else {
            NonceRule::None
        }
    }

    /// Whether it takes a nonce (the UMACs do).
    pub fn takes_nonce(self) -> bool {
        self.nonce_rule() != NonceRule::None
    }

    /// Parses a name, in either case, among `offered` (a front end's
    /// subset, in the order its help lists them); the error names them.
    pub fn from_name(
        name: &[u8],
        offered: &[MacAlgorithm],
    ) -> Result<MacAlgorithm, UnknownAlgorithm> {
        let lower = name.to_ascii_lowercase();
        offered
            .iter()
            .copied()
            .find(|a| a.name().as_bytes() == lower)
            .ok_or_else(|| {
                UnknownAlgorithm(format!(
                    "invalid algorithm '{}': give {}",
                    String::from_utf8_lossy(name),
                    names(offered)
                ))
            })
    }
}

/// The names of `offered`, for messages: `hmac-md5, ..., umac-96 or umac-128`.
pub fn names(offered: &[MacAlgorithm]) -> String {
    let all: Vec<&str> = offered.iter().map(|a| a.name()).collect();
    match all.split_last() {
        None => String::new(),
        Some((last, [])) => (*last).to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mac::umac::TagBits;

    #[test]
    fn hash_names() {
        assert_eq!(HashAlgorithm::from_name(b"md5"), Ok(HashAlgorithm::Md5));
        assert_eq!(HashAlgorithm::from_name(b"MD5"), Ok(HashAlgorithm::Md5));
        assert_eq!(
            HashAlgorithm::from_name(b"md5p16"),
            Ok(HashAlgorithm::Md5p(16))
        );
        assert_eq!(
            HashAlgorithm::from_name(b"MD5P4"),
            Ok(HashAlgorithm::Md5p(4))
        );
        assert_eq!(
            HashAlgorithm::from_name(b"md5p256"),
            Ok(HashAlgorithm::Md5p(256))
        );
        for bad in [
            &b"md5p"[..],
            b"md5p5",
            b"md5p0",
            b"md5p016",
            b"md5p260",
            b"md5p1024",
            b"md5p+4",
            b"sha1",
            b"",
            b"md5p16x",
        ] {
            assert!(
                HashAlgorithm::from_name(bad).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        let message = HashAlgorithm::from_name(b"md5p6").unwrap_err().0;
        assert!(message.contains("'md5p6'") && message.contains("multiple of 4"));
        for a in [HashAlgorithm::Md5, HashAlgorithm::Md5p(8)] {
            assert_eq!(HashAlgorithm::from_name(a.name().as_bytes()), Ok(a));
        }
    }

    #[test]
    fn hash_tags() {
        assert_eq!(
            HashAlgorithm::from_tag_prefix(b"MD5 (a)"),
            Some((HashAlgorithm::Md5, 3))
        );
        assert_eq!(
            HashAlgorithm::from_tag_prefix(b"MD5P16 (a)"),
            Some((HashAlgorithm::Md5p(16), 6))
        );
        assert_eq!(HashAlgorithm::from_tag_prefix(b"MD5P (a)"), None);
        assert_eq!(HashAlgorithm::from_tag_prefix(b"MD5P6 (a)"), None);
        assert_eq!(HashAlgorithm::from_tag_prefix(b"MD5P016 (a)"), None);
        assert_eq!(HashAlgorithm::from_tag_prefix(b"md5p16 (a)"), None);
        assert_eq!(HashAlgorithm::Md5p(32).tag(), "MD5P32");
        assert_eq!(HashAlgorithm::Md5p(8).label(), "MD5-P/8");
        assert_eq!(HashAlgorithm::Md5.tag(), "MD5");
    }

    #[test]
    fn hashers_match_the_library() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
        for algorithm in [
            HashAlgorithm::Md5,
            HashAlgorithm::Md5p(4),
            HashAlgorithm::Md5p(16),
        ] {
            let mut h = algorithm.hasher();
            h.update(&data[..100]);
            h.update(&data[100..]);
            let expected = match algorithm {
                HashAlgorithm::Md5 => crate::md5(&data),
                HashAlgorithm::Md5p(k) => crate::md5p(k, &data).unwrap(),
            };
            assert_eq!(h.finalize(), expected, "{algorithm:?}");
        }
    }

    #[test]
    fn mac_names_tags_lengths_and_rules() {
        let all = MacAlgorithm::ALL;
        for a in all {
            assert_eq!(MacAlgorithm::from_name(a.name().as_bytes(), &all), Ok(a));
            assert_eq!(
                MacAlgorithm::from_name(a.name().to_uppercase().as_bytes(), &all),
                Ok(a)
            );
            assert_eq!(a.tag(), a.name().to_uppercase());
            if let Some(bits) = a.umac_bits() {
                assert_eq!(bits.bytes(), a.tag_len());
                assert_eq!(a.key_rule(), KeyRule::Exactly(16));
                assert!(a.takes_nonce());
            } else {
                assert_eq!(a.key_rule(), KeyRule::NonEmpty);
                assert!(!a.takes_nonce());
            }
        }
        assert_eq!(MacAlgorithm::Umac32.umac_bits(), Some(TagBits::B32));
        assert_eq!(MacAlgorithm::Umac128.umac_bits(), Some(TagBits::B128));
        assert_eq!(MacAlgorithm::KeyedMd5.tag_len(), 16);
        assert_eq!(
            MacAlgorithm::Umac64.check_key_len(15),
            Err(KeyProblem::Length {
                needed: 16,
                got: 15
            })
        );
        assert_eq!(
            MacAlgorithm::HmacMd5.check_key_len(0),
            Err(KeyProblem::Empty)
        );
        assert_eq!(MacAlgorithm::HmacMd5.check_key_len(1000), Ok(()));
        for bad in [&b"hmac"[..], b"md5", b"umac-48", b"hmac-md5-", b""] {
            assert!(MacAlgorithm::from_name(bad, &all).is_err());
        }
        // A name outside the offered subset is unknown there.
        let some = [MacAlgorithm::HmacMd5_96, MacAlgorithm::Umac64];
        let message = MacAlgorithm::from_name(b"hmac-md5", &some).unwrap_err().0;
        assert_eq!(
            message,
            "invalid algorithm 'hmac-md5': give hmac-md5-96 or umac-64"
        );
        let message = MacAlgorithm::from_name(b"umac48", &all).unwrap_err().0;
        assert!(message.starts_with("invalid algorithm 'umac48': give hmac-md5, "));
        assert!(message.ends_with("umac-96 or umac-128"));
        assert_eq!(names(&some[..1]), "hmac-md5-96");
    }
}
