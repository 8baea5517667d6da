//! The ETag itself: `HEX` (one PUT: the MD5 of the object) or `HEX-N` (a
//! multipart upload of N parts: the MD5 of the N binary part digests, one
//! after another), its text form, and the combining of part digests.

use std::collections::BTreeMap;
use std::fmt;

use linerate::Md5;

use crate::sum::check::decode_hex_into;
use crate::sum::format::push_hex;

/// An ETag as S3 shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Etag {
    pub digest: [u8; 16],
    /// `Some(N)` for a multipart upload of N parts, `None` for a plain MD5.
    pub parts: Option<u64>,
}

impl fmt::Display for Etag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut hex = Vec::with_capacity(32);
        push_hex(&mut hex, &self.digest);
        f.write_str(&String::from_utf8_lossy(&hex))?;
        match self.parts {
            Some(parts) => write!(f, "-{parts}"),
            None => Ok(()),
        }
    }
}

impl Etag {
    /// Parses `HEX` or `HEX-N` (32 hex digits of either case, N >= 1
    /// without leading zeros), also inside the double quotes S3 puts
    /// around it in headers and listings.
    pub fn parse(text: &[u8]) -> Option<Etag> {
        let text = text
            .strip_prefix(b"\"")
            .and_then(|t| t.strip_suffix(b"\""))
            .unwrap_or(text);
        let (hex, parts) = match text.iter().position(|&b| b == b'-') {
            Some(dash) => (&text[..dash], Some(parse_count(&text[dash + 1..])?)),
            None => (text, None),
        };
        let mut digest = [0u8; 16];
        decode_hex_into(hex, &mut digest).then_some(Etag { digest, parts })
    }
}

/// A part count: decimal digits, no sign, no leading zero, at least 1.
fn parse_count(digits: &[u8]) -> Option<u64> {
    if digits.first() == Some(&b'0') || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(digits).ok()?.parse().ok()
}

/// The part digests of one upload, arriving in any order, folded into the
/// ETag in part order. Only digests that arrive ahead of a missing one are
/// kept.
pub struct Assembler {
    parts: u64,
    next: u64,
    waiting: BTreeMap<u64, [u8; 16]>,
    md5: Md5,
}

impl Assembler {
    /// An upload of `parts` parts.
    pub fn new(parts: u64) -> Assembler {
        Assembler {
            parts,
            next: 0,
            waiting: BTreeMap::new(),
            md5: Md5::new(),
        }
    }

    /// Records the digest of part `index` (0-based).
    pub fn add(&mut self, index: u64, digest: [u8; 16]) {
        if index != self.next {
            self.waiting.insert(index, digest);
            return;
        }
        self.md5.update(digest);
        self.next += 1;
        while let Some(digest) = self.waiting.remove(&self.next) {
            self.md5.update(digest);
            self.next += 1;
        }
    }

    /// Whether every part has been recorded.
    pub fn is_complete(&self) -> bool {
        self.next == self.parts
    }

    /// The ETag, once complete.
    pub fn finish(&self) -> Etag {
        debug_assert!(self.is_complete());
        Etag {
            digest: self.md5.clone().finalize(),
            parts: Some(self.parts),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEX: &str = "900150983cd24fb0d6963f7d28e17f72";

    #[test]
    fn text_forms() {
        let plain = Etag::parse(HEX.as_bytes()).expect("plain");
        assert_eq!(plain.parts, None);
        assert_eq!(plain.digest, linerate::md5(b"abc"));
        assert_eq!(plain.to_string(), HEX);
        let multi = Etag::parse(format!("\"{}-12\"", HEX.to_uppercase()).as_bytes());
        assert_eq!(
            multi,
            Some(Etag {
                digest: plain.digest,
                parts: Some(12)
            })
        );
        assert_eq!(multi.map(|e| e.to_string()), Some(format!("{HEX}-12")));
        for bad in [
            "",
            "-1",
            &HEX[1..],
            &format!("{HEX}0"),
            &format!("{HEX}-"),
            &format!("{HEX}-0"),
            &format!("{HEX}-01"),
            &format!("{HEX}-+1"),
            &format!("{HEX}-1-2"),
            &format!("{HEX}-99999999999999999999999"),
            &format!("\"{HEX}"),
            &format!("{}g", &HEX[1..]),
        ] {
            assert_eq!(Etag::parse(bad.as_bytes()), None, "{bad}");
        }
    }

    #[test]
    fn assembling_in_any_order_is_md5_of_the_digests_in_part_order() {
        let digests: Vec<[u8; 16]> = (0..5u8).map(|i| linerate::md5(&[i])).collect();
        let mut want = Vec::new();
        for d in &digests {
            want.extend_from_slice(d);
        }
        let mut assembler = Assembler::new(5);
        for i in [3, 0, 4, 1] {
            assembler.add(i, digests[i as usize]);
            assert!(!assembler.is_complete());
        }
        assembler.add(2, digests[2]);
        assert!(assembler.is_complete());
        assert_eq!(
            assembler.finish(),
            Etag {
                digest: linerate::md5(&want),
                parts: Some(5)
            }
        );
    }
}
