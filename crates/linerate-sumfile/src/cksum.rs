//! The check lines of `cksum -c` (coreutils 9.1): BSD-style lines of any of
//! its digests (`SHA256 (NAME) = HEX`, `BLAKE2b-256 (NAME) = HEX`), each
//! checked with the function its tag names; untagged lines only when `-a`
//! names the function (and then only that function's tagged lines too);
//! and `linerate sum -c`'s, md5sum's lines with cksum's tagged ones beside.

use std::cell::Cell;

use linerate::cksum::{CksumAlgorithm, DigestAlgorithm};

use crate::check::{Dialect, decode_hex_into};

/// `cksum -c`'s lines; `specified` is `-a`'s function, if given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CksumFamily {
    pub specified: Option<CksumAlgorithm>,
    /// Without `-a`, the function of the last tag read, whether its line
    /// was then well formed or not: cksum names malformed lines after it.
    last_tag: Cell<Option<CksumAlgorithm>>,
}

impl CksumFamily {
    pub fn new(specified: Option<CksumAlgorithm>) -> CksumFamily {
        CksumFamily {
            specified,
            last_tag: Cell::new(None),
        }
    }

    /// The function cksum names in "improperly formatted X checksum line":
    /// `-a`'s, else the last tag read (CRC before any), BLAKE2b without
    /// its length.
    pub fn label(&self) -> String {
        match self
            .specified
            .or(self.last_tag.get())
            .unwrap_or(CksumAlgorithm::Crc)
        {
            CksumAlgorithm::Blake2b(_) => "BLAKE2b".into(),
            other => other.tag(),
        }
    }
}

impl Dialect for CksumFamily {
    type Function = CksumAlgorithm;
    type Digest = Vec<u8>;

    fn hex_len(&self) -> usize {
        self.specified.map_or(0, |a| 2 * a.digest_len())
    }

    fn untagged_hex_len(&self, s: &[u8]) -> Option<usize> {
        match self.specified? {
            // cksum takes BLAKE2b's length from the line: its hex digits
            // (an even number, 2 to 128).
            CksumAlgorithm::Blake2b(_) => {
                let digits = s.iter().take_while(|b| b.is_ascii_hexdigit()).count();
                (digits >= 2 && digits % 2 == 0 && digits <= 128).then_some(digits)
            }
            other => Some(2 * other.digest_len()),
        }
    }

    fn is_tagged(&self, s: &[u8]) -> bool {
        match self.specified {
            // Without -a, every line must be tagged.
            None => true,
            Some(algorithm) => {
                let tag = match algorithm {
                    CksumAlgorithm::Blake2b(_) => "BLAKE2b".to_string(),
                    other => other.tag(),
                };
                s.starts_with(tag.as_bytes())
            }
        }
    }

    fn parse_tag(&self, s: &[u8]) -> Option<(CksumAlgorithm, usize, usize)> {
        // cksum sets its function from the tag before reading the rest.
        if self.specified.is_none()
            && let Some((algorithm, _)) = CksumAlgorithm::tag_at(s)
        {
            self.last_tag.set(Some(algorithm));
        }
        let (algorithm, len) = CksumAlgorithm::tag_with_length_at(s)?;
        if let Some(specified) = self.specified
            && std::mem::discriminant(&specified) != std::mem::discriminant(&algorithm)
        {
            return None;
        }
        if algorithm.is_legacy() {
            return None;
        }
        Some((algorithm, len, 2 * algorithm.digest_len()))
    }

    fn decode(&self, hex: &[u8]) -> Option<Vec<u8>> {
        let mut digest = vec![0u8; hex.len() / 2];
        decode_hex_into(hex, &mut digest).then_some(digest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{Layout, parse_line};

    #[test]
    fn tagged_lines_of_any_digest_without_a() {
        let family = CksumFamily::new(None);
        let mut layout = Layout::default();
        let hex = "ab".repeat(32);
        let line = format!("BLAKE2b-256 (f) = {hex}");
        let parsed = parse_line(&family, line.as_bytes(), &mut layout).expect("blake2b-256");
        assert_eq!(parsed.tag, Some(CksumAlgorithm::Blake2b(32)));
        assert_eq!(parsed.digest.len(), 32);
        let line = format!("SHA256 (f) = {hex}");
        assert!(parse_line(&family, line.as_bytes(), &mut layout).is_some());
        // Untagged, a wrong length, an unknown tag: improperly formatted.
        for bad in [
            format!("{hex}  f"),
            format!("SHA256 (f) = {}", "ab".repeat(31)),
            format!("BLAKE2b-7 (f) = {}", "ab"),
            format!("CRC (f) = {hex}"),
        ] {
            assert!(
                parse_line(&family, bad.as_bytes(), &mut layout).is_none(),
                "{bad}"
            );
        }
    }

    #[test]
    fn with_a_its_untagged_and_tagged_lines_only() {
        let family = CksumFamily::new(Some(CksumAlgorithm::Sha1));
        let mut layout = Layout::default();
        let hex = "cd".repeat(20);
        assert!(parse_line(&family, format!("{hex}  f").as_bytes(), &mut layout).is_some());
        assert!(parse_line(&family, format!("SHA1 (f) = {hex}").as_bytes(), &mut layout).is_some());
        let md5 = format!("MD5 (f) = {}", "cd".repeat(16));
        assert!(parse_line(&family, md5.as_bytes(), &mut layout).is_none());
    }
}

/// `linerate sum -c`'s lines: md5sum's (`MD5`, `MD5PK` tags and untagged
/// lines of `-a`'s function) and BSD-style lines of cksum's digests
/// (`SHA256 (NAME) = HEX`), each checked with its tag's function, so a
/// manifest may mix them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SumFamily {
    /// `-a`: the function of untagged lines.
    pub untagged: DigestAlgorithm,
}

impl Dialect for SumFamily {
    type Function = DigestAlgorithm;
    type Digest = Vec<u8>;

    fn hex_len(&self) -> usize {
        2 * self.untagged.digest_len()
    }

    fn is_tagged(&self, s: &[u8]) -> bool {
        // md5sum's test, and any of cksum's digest tags.
        s.starts_with(b"MD5") || CksumAlgorithm::tag_at(s).is_some()
    }

    fn parse_tag(&self, s: &[u8]) -> Option<(DigestAlgorithm, usize, usize)> {
        let (algorithm, len) = DigestAlgorithm::from_tag_prefix(s)?;
        Some((algorithm, len, 2 * algorithm.digest_len()))
    }

    fn decode(&self, hex: &[u8]) -> Option<Vec<u8>> {
        let mut digest = vec![0u8; hex.len() / 2];
        decode_hex_into(hex, &mut digest).then_some(digest)
    }
}
