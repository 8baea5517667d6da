//! S3's ETag in text, and the lines `linerate etag` prints and `--check`
//! reads.
//!
//! An ETag is `HEX` (one PUT: the MD5 of the object) or `HEX-N` (a
//! multipart upload of N parts: the MD5 of the N binary part digests, one
//! after another). Its lines are `ETAG  NAME`, in md5sum's layout, a name
//! holding a backslash, newline or carriage return escaped as md5sum escapes
//! it (`\\`, `\n`, `\r`, the line marked by a leading backslash).

use std::fmt;

use crate::check::decode_hex_into;
use crate::escape;
use crate::format::push_hex;

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
pub(crate) fn parse_count(digits: &[u8]) -> Option<u64> {
    if digits.first() == Some(&b'0') || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(digits).ok()?.parse().ok()
}

/// Appends the line for `name` with `etag`, newline included.
pub fn push_line(out: &mut Vec<u8>, etag: &Etag, name: &[u8]) {
    let escaped = escape::needs_escape(name);
    if escaped {
        out.push(b'\\');
    }
    out.extend_from_slice(etag.to_string().as_bytes());
    out.extend_from_slice(b"  ");
    if escaped {
        escape::push_escaped(out, name);
    } else {
        out.extend_from_slice(name);
    }
    out.push(b'\n');
}

/// A well-formed line of a checksum file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub etag: Etag,
    /// The file name, unescaped.
    pub name: Vec<u8>,
}

/// Parses `line` (without its line end, as [`crate::check::line_content`]
/// gives it): leading blanks, an optional backslash for an escaped name, the
/// ETag, a blank (space or tab), a space or `*` (md5sum's binary mark, read
/// and ignored), the name (unescaped, or up to a NUL byte as md5sum reads
/// it). `None` if it is malformed.
pub fn parse_line(line: &[u8]) -> Option<Line> {
    let start = line.iter().take_while(|&&b| is_blank(b)).count();
    let mut rest = &line[start..];
    let escaped = rest.first() == Some(&b'\\');
    if escaped {
        rest = &rest[1..];
    }
    let end = rest.iter().position(|&b| is_blank(b))?;
    let etag = Etag::parse(&rest[..end])?;
    let name = match rest.get(end + 1..)? {
        [b' ' | b'*', name @ ..] if !name.is_empty() => name,
        _ => return None,
    };
    let name = if escaped {
        escape::unescape(name)?
    } else {
        // md5sum reads a line as a C string: an unescaped name ends at its
        // first NUL (an escaped one may hold none).
        let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
        name[..end].to_vec()
    };
    (!name.is_empty()).then_some(Line { etag, name })
}

/// A space or a tab, as md5sum's `ISWHITE`.
fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEX: &str = "900150983cd24fb0d6963f7d28e17f72";

    fn etag(parts: Option<u64>) -> Etag {
        Etag {
            digest: linerate::md5(b"abc"),
            parts,
        }
    }

    #[test]
    fn lines_round_trip() {
        for name in [&b"a"[..], b"two  spaces", b"x\\y\nz\r", b" lead", b"-"] {
            for parts in [None, Some(1), Some(10_000)] {
                let mut out = Vec::new();
                push_line(&mut out, &etag(parts), name);
                let text = out.strip_suffix(b"\n").expect("newline");
                assert_eq!(
                    parse_line(text),
                    Some(Line {
                        etag: etag(parts),
                        name: name.to_vec()
                    })
                );
            }
        }
        let mut out = Vec::new();
        push_line(&mut out, &etag(Some(3)), b"a\nb");
        assert_eq!(out, format!("\\{HEX}-3  a\\nb\n").as_bytes());
    }

    #[test]
    fn accepted_and_malformed_forms() {
        let parsed = |text: &str| parse_line(text.as_bytes());
        let line = |name: &[u8], parts| {
            Some(Line {
                etag: etag(parts),
                name: name.to_vec(),
            })
        };
        assert_eq!(parsed(&format!("  {HEX}-2 *b")), line(b"b", Some(2)));
        assert_eq!(parsed(&format!("{HEX}\t f")), line(b"f", None));
        assert_eq!(
            parsed(&format!("{}-7  F", HEX.to_uppercase())),
            line(b"F", Some(7))
        );
        for bad in [
            String::new(),
            HEX.to_string(),
            format!("{HEX}  "),
            format!("{HEX} f"),
            format!("{HEX}-0  f"),
            format!("{HEX}-x  f"),
            format!("{}  f", &HEX[2..]),
            format!("\\{HEX}  a\\t"),
            format!("MD5 (f) = {HEX}"),
        ] {
            assert_eq!(parsed(&bad), None, "{bad}");
        }
    }

    #[test]
    fn an_unescaped_name_ends_at_a_nul() {
        // Found by fuzzing (fuzz/seeds/check_etag/found-name-nul):
        // the name was kept whole, NUL and all, and printed back it was a
        // line that no longer parsed.
        let line = format!("{HEX}  a\\2\0\0\x04rest");
        assert_eq!(
            parse_line(line.as_bytes()).map(|l| l.name),
            Some(b"a\\2".to_vec())
        );
        assert_eq!(parse_line(format!("{HEX}  \0a").as_bytes()), None);
        assert_eq!(parse_line(format!("\\{HEX}  a\\0").as_bytes()), None);
    }

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
}
