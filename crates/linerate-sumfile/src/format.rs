//! The lines `linerate sum` prints: `HEX  NAME`, `HEX *NAME` and the BSD
//! `MD5 (NAME) = HEX` (`MD5P16 (NAME) = HEX` for MD5-P/16), each escaped the
//! way md5sum escapes them. `linerate mac` prints the same lines with its
//! tags and tag lengths ([`push_line`]).

use crate::escape;
use linerate::HashAlgorithm;

/// How a computed checksum line is laid out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LineStyle {
    /// BSD form `MD5 (NAME) = HEX` (`--tag`).
    pub tagged: bool,
    /// `*` before the name instead of a space (`--binary`); unused when tagged.
    pub binary: bool,
    /// NUL-terminated and never escaped (`--zero`).
    pub zero: bool,
}

/// Appends the lower-case hex of `digest`.
pub fn push_hex(out: &mut Vec<u8>, digest: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for &b in digest {
        out.push(HEX[usize::from(b >> 4)]);
        out.push(HEX[usize::from(b & 0xf)]);
    }
}

/// Appends the line md5sum prints for `name` with `digest`, terminator included.
pub fn push_sum_line(out: &mut Vec<u8>, digest: &[u8; 16], name: &[u8], style: LineStyle) {
    push_sum_line_for(out, HashAlgorithm::Md5, digest, name, style);
}

/// [`push_sum_line`] for any function: only the BSD tag differs.
pub fn push_sum_line_for(
    out: &mut Vec<u8>,
    algorithm: HashAlgorithm,
    digest: &[u8; 16],
    name: &[u8],
    style: LineStyle,
) {
    match algorithm {
        HashAlgorithm::Md5 => push_line(out, b"MD5", digest, name, style),
        other => push_line(out, other.tag().as_bytes(), digest, name, style),
    }
}

/// Appends the line for `name` with `digest` of any length, `tag` naming
/// the function on BSD lines (`MD5`, `HMAC-MD5`), terminator included.
pub fn push_line(out: &mut Vec<u8>, tag: &[u8], digest: &[u8], name: &[u8], style: LineStyle) {
    let mut hex = Vec::with_capacity(2 * digest.len());
    push_hex(&mut hex, digest);
    push_line_text(out, tag, &hex, name, style);
}

/// [`push_line`] with the digest already written out (hex, or the base64
/// of `cksum --base64`).
pub fn push_line_text(out: &mut Vec<u8>, tag: &[u8], text: &[u8], name: &[u8], style: LineStyle) {
    // With --zero the NUL terminator keeps names unambiguous, so md5sum
    // leaves them as they are.
    let escaped = !style.zero && escape::needs_escape(name);
    if escaped {
        out.push(b'\\');
    }
    let push_name = |out: &mut Vec<u8>| {
        if escaped {
            escape::push_escaped(out, name);
        } else {
            out.extend_from_slice(name);
        }
    };
    if style.tagged {
        out.extend_from_slice(tag);
        out.extend_from_slice(b" (");
        push_name(out);
        out.extend_from_slice(b") = ");
        out.extend_from_slice(text);
    } else {
        out.extend_from_slice(text);
        out.push(b' ');
        out.push(if style.binary { b'*' } else { b' ' });
        push_name(out);
    }
    out.push(if style.zero { 0 } else { b'\n' });
}

/// Appends a `--check` verdict line, `NAME: OK` and the like.
pub fn push_check_report(out: &mut Vec<u8>, name: &[u8], verdict: &str) {
    if escape::check_report_needs_escape(name) {
        out.push(b'\\');
        escape::push_escaped(out, name);
    } else {
        out.extend_from_slice(name);
    }
    out.extend_from_slice(b": ");
    out.extend_from_slice(verdict.as_bytes());
    out.push(b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    const ABC: [u8; 16] = [
        0x90, 0x01, 0x50, 0x98, 0x3c, 0xd2, 0x4f, 0xb0, 0xd6, 0x96, 0x3f, 0x7d, 0x28, 0xe1, 0x7f,
        0x72,
    ];

    fn line(name: &[u8], style: LineStyle) -> Vec<u8> {
        let mut out = Vec::new();
        push_sum_line(&mut out, &ABC, name, style);
        out
    }

    #[test]
    fn plain_binary_and_tagged_lines() {
        let text = LineStyle::default();
        let binary = LineStyle {
            binary: true,
            ..text
        };
        let tagged = LineStyle {
            tagged: true,
            binary: true,
            ..text
        };
        assert_eq!(line(b"a", text), b"900150983cd24fb0d6963f7d28e17f72  a\n");
        assert_eq!(line(b"a", binary), b"900150983cd24fb0d6963f7d28e17f72 *a\n");
        assert_eq!(
            line(b"a", tagged),
            b"MD5 (a) = 900150983cd24fb0d6963f7d28e17f72\n"
        );
    }

    #[test]
    fn escaped_names_get_a_leading_backslash_unless_zero() {
        let tagged = LineStyle {
            tagged: true,
            ..LineStyle::default()
        };
        assert_eq!(
            line(b"a\nb", LineStyle::default()),
            b"\\900150983cd24fb0d6963f7d28e17f72  a\\nb\n"
        );
        assert_eq!(
            line(b"a\\b", tagged),
            b"\\MD5 (a\\\\b) = 900150983cd24fb0d6963f7d28e17f72\n"
        );
        let zero = LineStyle {
            zero: true,
            ..LineStyle::default()
        };
        assert_eq!(
            line(b"a\nb", zero),
            b"900150983cd24fb0d6963f7d28e17f72  a\nb\0"
        );
    }

    #[test]
    fn md5p_tags() {
        let tagged = LineStyle {
            tagged: true,
            binary: true,
            zero: false,
        };
        let mut out = Vec::new();
        push_sum_line_for(&mut out, HashAlgorithm::Md5p(16), &ABC, b"a\\b", tagged);
        assert_eq!(
            out,
            b"\\MD5P16 (a\\\\b) = 900150983cd24fb0d6963f7d28e17f72\n"
        );
        out.clear();
        push_sum_line_for(
            &mut out,
            HashAlgorithm::Md5p(4),
            &ABC,
            b"a",
            LineStyle::default(),
        );
        assert_eq!(out, b"900150983cd24fb0d6963f7d28e17f72  a\n");
    }

    #[test]
    fn check_reports() {
        let mut out = Vec::new();
        push_check_report(&mut out, b"x\\y", "OK");
        push_check_report(&mut out, b"x\ny", "FAILED");
        assert_eq!(out, b"x\\y: OK\n\\x\\ny: FAILED\n");
    }
}
