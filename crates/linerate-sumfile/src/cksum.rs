//! The check lines of `cksum -c` (coreutils 9.1): BSD-style lines of any of
//! its digests (`SHA256 (NAME) = HEX`, `BLAKE2b-256 (NAME) = HEX`), each
//! checked with the function its tag names; untagged lines only when `-a`
//! names the function (and then only that function's tagged lines too);
//! and `linerate sum -c`'s, md5sum's lines with cksum's tagged ones beside.
//!
//! cksum 9.1 reads a tag by these rules (found by experiment with it; every
//! case is a line of `tests/data/cksum-check-lines.txt`, checked against
//! this parser and, in the CLI's tests, against GNU cksum itself):
//!
//! 1. Without `-a`, the tag is what comes before the first blank (space or
//!    tab), `-`, `(` or the line's end, at most 7 bytes, matched exactly
//!    against `SYSV BSD CRC MD5 SHA1 SHA224 SHA256 SHA384 SHA512 BLAKE2b
//!    SM3`; no match, or one of the three legacy sums, is a malformed line.
//!    With `-a`, the line is tagged if it starts with that function's tag
//!    (`BLAKE2b` whatever `-l` says), and anything may follow it.
//! 2. The byte after the tag is consumed whatever it is, unless it is `(`:
//!    so `MD5 (`, `MD5\t(`, `MD5  (` and `MD5\t (` all read, `MD5 \t(` and
//!    `MD5   (` do not; under `-a md5`, `MD5X (` reads too.
//! 3. If that byte was `-`, a length in bits follows, read as C's
//!    `strtoumax` reads in base 0: leading white space, an optional `+`
//!    (`-` refused), then `0x` hex, `0` octal, or decimal (`BLAKE2b-0x100`
//!    and `BLAKE2b-0400` are 256 bits; `BLAKE2b-008` is octal 0, refused).
//!    It must be 1 to the function's bits and a multiple of 8. Any
//!    function takes one: BLAKE2b's is its digest's length; for the others
//!    the line's digest is that many leading bits of the full one
//!    (`MD5-64 (a) = ` and the first 16 hex digits matches).
//! 4. Without `-`, the length is the function's whole digest (512 bits for
//!    BLAKE2b: `BLAKE2b (a) = ` takes 128 hex digits only).
//! 5. Then one optional space, and `(` must follow; the rest is md5sum's
//!    (the name up to the last `)`, blanks around `=`, exactly the
//!    length's hex digits to the line's end).
//! 6. cksum keeps the last tagged line's length for the untagged lines of
//!    `-a`'s function that follow, in that list and the next ones: after
//!    `MD5-64 (a) = ...` under `-a md5`, an untagged line has 16 hex
//!    digits. (For BLAKE2b, every untagged line's length is its digits'.)
//! 7. An untagged line needs only its digest and a blank: cksum sets its
//!    shortest line (md5sum's digest, a blank and a one-byte name) before
//!    it knows the digest's length, so `HEX ` (an empty name, which then
//!    cannot be opened) reads, where md5sum calls it malformed.

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
    /// Hex digits of `-a`'s untagged lines: the whole digest's until a
    /// tagged line sets a length (rule 6).
    untagged_hex: Cell<Option<usize>>,
}

impl CksumFamily {
    pub fn new(specified: Option<CksumAlgorithm>) -> CksumFamily {
        CksumFamily {
            specified,
            last_tag: Cell::new(None),
            untagged_hex: Cell::new(None),
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
            other => Some(self.untagged_hex.get().unwrap_or(2 * other.digest_len())),
        }
    }

    fn untagged_min_len(&self, _hex_len: usize) -> usize {
        // Rule 7: a blank and one byte, whatever the digest's length.
        2
    }

    fn is_tagged(&self, s: &[u8]) -> bool {
        match self.specified {
            // Without -a, every line must be tagged.
            None => true,
            Some(algorithm) => s.starts_with(family_tag(algorithm).as_bytes()),
        }
    }

    fn parse_tag(&self, s: &[u8]) -> Option<(CksumAlgorithm, usize, usize)> {
        // Rule 1: the tag.
        let (algorithm, mut i) = match self.specified {
            Some(specified) => (specified, family_tag(specified).len()),
            None => {
                let (algorithm, len) = tag_name_at(s)?;
                if algorithm.is_legacy() {
                    return None;
                }
                // cksum sets its function from the tag before reading on.
                self.last_tag.set(Some(algorithm));
                (algorithm, len)
            }
        };
        // Rule 2: the byte after it.
        let separator = s.get(i).copied();
        if separator != Some(b'(') {
            i += 1;
        }
        // Rules 3 and 4: the length.
        let full_bits = 8 * match algorithm {
            CksumAlgorithm::Blake2b(_) => 64,
            other => other.digest_len(),
        };
        let mut bits = full_bits;
        if separator == Some(b'-') {
            let (length, used) = c_strtoumax_base0(s.get(i..).unwrap_or_default())?;
            if !(length > 0 && length <= full_bits as u64 && length % 8 == 0) {
                return None;
            }
            bits = usize::try_from(length).ok()?;
            i += used;
        }
        // Rule 6: the length stays for the untagged lines that follow.
        self.untagged_hex.set(Some(bits / 4));
        let algorithm = match algorithm {
            CksumAlgorithm::Blake2b(_) => CksumAlgorithm::Blake2b(bits / 8),
            other => other,
        };
        Some((algorithm, i, bits / 4))
    }

    fn decode(&self, hex: &[u8]) -> Option<Vec<u8>> {
        let mut digest = vec![0u8; hex.len() / 2];
        decode_hex_into(hex, &mut digest).then_some(digest)
    }
}

/// cksum 9.1's tags, in its order; the first three are the legacy sums,
/// which it refuses to check.
const TAGS: [(&str, CksumAlgorithm); 11] = [
    ("SYSV", CksumAlgorithm::Sysv),
    ("BSD", CksumAlgorithm::Bsd),
    ("CRC", CksumAlgorithm::Crc),
    ("MD5", CksumAlgorithm::Md5),
    ("SHA1", CksumAlgorithm::Sha1),
    ("SHA224", CksumAlgorithm::Sha224),
    ("SHA256", CksumAlgorithm::Sha256),
    ("SHA384", CksumAlgorithm::Sha384),
    ("SHA512", CksumAlgorithm::Sha512),
    ("BLAKE2b", CksumAlgorithm::Blake2b(64)),
    ("SM3", CksumAlgorithm::Sm3),
];

/// cksum only looks this far for a tag's end: its longest tag.
const MAX_TAG_LEN: usize = 7;

/// The tag of `algorithm`'s lines, without BLAKE2b's length.
fn family_tag(algorithm: CksumAlgorithm) -> String {
    match algorithm {
        CksumAlgorithm::Blake2b(_) => "BLAKE2b".into(),
        other => other.tag(),
    }
}

/// Rule 1 without `-a`: the function the tag at the start of `s` names,
/// and the tag's length.
fn tag_name_at(s: &[u8]) -> Option<(CksumAlgorithm, usize)> {
    let end = s
        .iter()
        .position(|&b| matches!(b, b' ' | b'\t' | b'-' | b'(' | 0))
        .unwrap_or(s.len());
    if end > MAX_TAG_LEN {
        return None;
    }
    TAGS.iter()
        .find(|(tag, _)| tag.as_bytes() == &s[..end])
        .map(|&(_, algorithm)| (algorithm, end))
}

/// A number at the start of `s` as cksum reads a tag's length
/// (`xstrtoumax` in base 0 with no suffixes): C white space, an optional
/// `+`, then `0x` and hex digits, `0` and octal ones, or decimal ones; the
/// value and the bytes read, `None` for a `-`, no digits, or more than 64
/// bits.
fn c_strtoumax_base0(s: &[u8]) -> Option<(u64, usize)> {
    let mut i = s
        .iter()
        .take_while(|&&b| matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'))
        .count();
    match s.get(i) {
        Some(b'-') => return None,
        Some(b'+') => i += 1,
        _ => {}
    }
    let hex_prefix = matches!(s.get(i..i + 2), Some(b"0x" | b"0X"))
        && s.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
    let (radix, start) = if hex_prefix {
        (16, i + 2)
    } else if s.get(i) == Some(&b'0') {
        (8, i)
    } else {
        (10, i)
    };
    let mut value = 0u64;
    let mut end = start;
    while let Some(digit) = s.get(end).and_then(|&b| char::from(b).to_digit(radix)) {
        value = value
            .checked_mul(u64::from(radix))?
            .checked_add(u64::from(digit))?;
        end += 1;
    }
    (end > start).then_some((value, end))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{Layout, parse_line};

    #[test]
    fn lengths_in_c_base_0() {
        for (text, value) in [
            ("256 (", Some((256, 3))),
            ("0x100(", Some((256, 5))),
            ("0X1f", Some((31, 4))),
            ("0400", Some((256, 4))),
            ("008", Some((0, 2))),
            (" \t+8", Some((8, 4))),
            ("0x", Some((0, 1))),
            ("-8", None),
            (" -0", None),
            ("+-8", None),
            ("", None),
            ("x", None),
            ("99999999999999999999999", None),
        ] {
            assert_eq!(c_strtoumax_base0(text.as_bytes()), value, "{text:?}");
        }
    }

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
