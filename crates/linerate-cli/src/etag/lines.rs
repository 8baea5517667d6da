//! The lines `linerate etag` prints and `--check` reads: `ETAG  NAME`, in
//! md5sum's layout, a name holding a backslash, newline or carriage return
//! escaped as md5sum escapes it (`\\`, `\n`, `\r`, the line marked by a
//! leading backslash).

use super::value::Etag;
use crate::sum::escape;

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

/// Parses `line` (without its line end, as [`crate::sum::check::line_content`]
/// gives it): leading blanks, an optional backslash for an escaped name, the
/// ETag, a blank (space or tab), a space or `*` (md5sum's binary mark, read
/// and ignored), the name. `None` if it is malformed.
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
        name.to_vec()
    };
    Some(Line { etag, name })
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
}
