//! md5sum's escaping of file names inside checksum lines.
//!
//! A name holding a backslash, newline or carriage return would break the
//! one-line-per-file format, so md5sum writes `\\`, `\n` and `\r` instead and
//! marks the whole line with a leading backslash. The reverse is applied when
//! checking: only those three escapes exist, anything else is malformed.

/// Whether a computed line for `name` needs md5sum's escaping (coreutils'
/// `problematic_chars`: backslash, newline, carriage return).
pub fn needs_escape(name: &[u8]) -> bool {
    name.iter().any(|&b| matches!(b, b'\\' | b'\n' | b'\r'))
}

/// Whether a `--check` result line for `name` is escaped. md5sum 9.1 escapes
/// there only for names holding a newline (the one case that would split the
/// report line); a lone backslash or carriage return is printed raw.
pub fn check_report_needs_escape(name: &[u8]) -> bool {
    name.contains(&b'\n')
}

/// Appends `name` with `\`, newline and carriage return escaped.
pub fn push_escaped(out: &mut Vec<u8>, name: &[u8]) {
    for &b in name {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            _ => out.push(b),
        }
    }
}

/// Undoes [`push_escaped`]; `None` for what md5sum rejects: a trailing lone
/// backslash, a backslash before anything but `\`, `n` or `r`, or a NUL byte.
pub fn unescape(s: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len());
    let mut bytes = s.iter();
    while let Some(&b) = bytes.next() {
        match b {
            b'\\' => match bytes.next()? {
                b'\\' => out.push(b'\\'),
                b'n' => out.push(b'\n'),
                b'r' => out.push(b'\r'),
                _ => return None,
            },
            0 => return None,
            _ => out.push(b),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_the_three_problem_bytes() {
        let mut out = Vec::new();
        push_escaped(&mut out, b"a\\b\nc\rd");
        assert_eq!(out, b"a\\\\b\\nc\\rd");
        assert!(needs_escape(b"x\ry"));
        assert!(!needs_escape(b"plain name"));
    }

    #[test]
    fn unescape_rejects_what_md5sum_rejects() {
        assert_eq!(
            unescape(b"a\\\\b\\nc\\rd").as_deref(),
            Some(&b"a\\b\nc\rd"[..])
        );
        assert_eq!(unescape(b"trailing\\"), None);
        assert_eq!(unescape(b"tab\\t"), None);
        assert_eq!(unescape(b"nul\0"), None);
    }

    #[test]
    fn check_reports_escape_only_for_newlines() {
        assert!(check_report_needs_escape(b"a\nb"));
        assert!(!check_report_needs_escape(b"a\\b\r"));
    }
}
