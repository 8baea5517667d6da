//! File names in diagnostics, quoted as GNU coreutils quotes them.
//!
//! md5sum passes every name in an error message through `quotef`: gnulib's
//! quotearg in "shell-escape" style with `:` also treated as special. A name
//! a shell would take literally is printed bare (`nofile`); anything else is
//! single-quoted (`'a b'`), with control characters and bytes that are not
//! printable in the locale's character set written as `$'\n'` / `$'\377'`
//! segments, and a name that is plain apart from apostrophes is
//! double-quoted instead (`"it's"`). Matching this keeps `linerate sum`'s
//! stderr byte-identical to md5sum's.
//!
//! Printability follows the locale as glibc's does: in a UTF-8 locale a
//! well-formed character glibc 2.36 deems printable is kept (see
//! the `unprintable` table), in any other locale only printable ASCII is.

use crate::unprintable;

/// The character set whose printable characters may appear unquoted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Charset {
    /// The C/POSIX locale: one byte per character, only ASCII is printable.
    Ascii,
    /// A UTF-8 locale.
    Utf8,
}

impl Charset {
    /// The character set of `LC_ALL`, else `LC_CTYPE`, else `LANG` (the
    /// order `setlocale(LC_ALL, "")` uses for character classes).
    pub fn from_env() -> Charset {
        let locale = ["LC_ALL", "LC_CTYPE", "LANG"]
            .iter()
            .filter_map(std::env::var_os)
            .find(|value| !value.is_empty())
            .map(|value| value.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        if locale.contains("utf-8") || locale.contains("utf8") {
            Charset::Utf8
        } else {
            Charset::Ascii
        }
    }
}

/// One character of a name, as quotearg classifies it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Piece<'a> {
    /// Printed as is inside or outside quotes.
    Plain {
        bytes: &'a [u8],
        forces_quotes: bool,
        apostrophe_safe: bool,
    },
    /// A control character with a C escape letter (`\n`, `\t`, ...).
    Letter(u8),
    /// Bytes that are not printable: written as octal escapes.
    Octal(&'a [u8]),
    /// The apostrophe, which needs `'\''` inside single quotes.
    Apostrophe,
}

impl Piece<'_> {
    fn forces_quotes(&self) -> bool {
        match self {
            Piece::Plain { forces_quotes, .. } => *forces_quotes,
            _ => true,
        }
    }

    /// Whether the piece may appear inside double quotes unchanged, which
    /// lets a name with apostrophes be written as `"it's"`.
    fn apostrophe_safe(&self) -> bool {
        match self {
            Piece::Plain {
                apostrophe_safe, ..
            } => *apostrophe_safe,
            Piece::Apostrophe => true,
            Piece::Letter(_) | Piece::Octal(_) => false,
        }
    }
}

/// `name` as md5sum would show it in a diagnostic.
pub fn quote(name: &[u8], charset: Charset) -> Vec<u8> {
    let pieces = split(name, charset);
    if !name.is_empty() && !pieces.iter().any(Piece::forces_quotes) {
        return name.to_vec();
    }
    if pieces.contains(&Piece::Apostrophe) && pieces.iter().all(Piece::apostrophe_safe) {
        let mut out = Vec::with_capacity(name.len() + 2);
        out.push(b'"');
        out.extend_from_slice(name);
        out.push(b'"');
        return out;
    }
    single_quote(&pieces)
}

/// The `'...'` form with `$'...'` segments for what cannot be shown.
fn single_quote(pieces: &[Piece<'_>]) -> Vec<u8> {
    let mut out = vec![b'\''];
    // Inside a `$'...'` segment, opened by the first escape and closed
    // (by `''`) before the next plain character.
    //
    // With an apostrophe in the name, gnulib (as in coreutils 9.1) quotes in
    // two passes, and the second starts in the state where the first ended:
    // inside `$'...'` if the name ends with an escape. Hence odd but genuine
    // md5sum output like `'''a'\''b'$'\377'`.
    let mut in_dollar = pieces.contains(&Piece::Apostrophe)
        && matches!(pieces.last(), Some(Piece::Letter(_) | Piece::Octal(_)));
    for piece in pieces {
        match *piece {
            Piece::Plain { bytes, .. } => {
                if in_dollar {
                    out.extend_from_slice(b"''");
                    in_dollar = false;
                }
                out.extend_from_slice(bytes);
            }
            Piece::Letter(letter) => {
                open_dollar(&mut out, &mut in_dollar);
                out.push(letter);
            }
            Piece::Octal(bytes) => {
                for &b in bytes {
                    open_dollar(&mut out, &mut in_dollar);
                    out.extend_from_slice(&[
                        b'0' + (b >> 6),
                        b'0' + ((b >> 3) & 7),
                        b'0' + (b & 7),
                    ]);
                }
            }
            Piece::Apostrophe => {
                // gnulib closes whatever quote is open with the first `'`.
                out.extend_from_slice(b"'\\''");
                in_dollar = false;
            }
        }
    }
    out.push(b'\'');
    out
}

/// Starts one escape, opening a `$'...'` segment unless one is open.
fn open_dollar(out: &mut Vec<u8>, in_dollar: &mut bool) {
    if !*in_dollar {
        out.extend_from_slice(b"'$'");
        *in_dollar = true;
    }
    out.push(b'\\');
}

/// Splits `name` into quotearg's pieces.
fn split(name: &[u8], charset: Charset) -> Vec<Piece<'_>> {
    let mut pieces = Vec::with_capacity(name.len());
    let mut i = 0;
    while i < name.len() {
        let (piece, len) = match name[i] {
            b if b.is_ascii() => (ascii_piece(name, i), 1),
            _ => non_ascii_piece(&name[i..], charset),
        };
        pieces.push(piece);
        i += len;
    }
    pieces
}

fn ascii_piece(name: &[u8], i: usize) -> Piece<'_> {
    let bytes = &name[i..=i];
    let plain = |forces_quotes, apostrophe_safe| Piece::Plain {
        bytes,
        forces_quotes,
        apostrophe_safe,
    };
    match name[i] {
        b'\n' => Piece::Letter(b'n'),
        b'\r' => Piece::Letter(b'r'),
        b'\t' => Piece::Letter(b't'),
        0x07 => Piece::Letter(b'a'),
        0x08 => Piece::Letter(b'b'),
        0x0b => Piece::Letter(b'v'),
        0x0c => Piece::Letter(b'f'),
        b'\'' => Piece::Apostrophe,
        // Special only as a whole word ("{" or "}") or at the start ("#", "~").
        b'{' | b'}' if name.len() == 1 => plain(true, true),
        b'{' | b'}' => plain(false, false),
        b'#' | b'~' => plain(i == 0, i == 0),
        b' ' => plain(true, true),
        b'!' | b'"' | b'$' | b'&' | b'(' | b')' | b'*' | b';' | b'<' | b'=' | b'>' | b'['
        | b'^' | b'`' | b'|' | b'\\' | b'?' => plain(true, false),
        // quotef adds ':' to the characters that need quoting.
        b':' => plain(true, true),
        b'%'
        | b'+'
        | b','
        | b'-'
        | b'.'
        | b'/'
        | b'0'..=b'9'
        | b'A'..=b'Z'
        | b']'
        | b'_'
        | b'a'..=b'z'
        | b'@' => plain(false, true),
        // The remaining ASCII: control characters without a letter, DEL.
        _ => Piece::Octal(bytes),
    }
}

/// The piece starting at `rest[0]` (not ASCII) and its length.
fn non_ascii_piece(rest: &[u8], charset: Charset) -> (Piece<'_>, usize) {
    if charset == Charset::Utf8
        && let Some((c, len)) = decode_utf8(rest)
    {
        let bytes = &rest[..len];
        if is_printable(c) {
            return (
                Piece::Plain {
                    bytes,
                    forces_quotes: false,
                    apostrophe_safe: true,
                },
                len,
            );
        }
        return (Piece::Octal(bytes), len);
    }
    (Piece::Octal(&rest[..1]), 1)
}

/// The first character of `rest` if it is well-formed UTF-8.
fn decode_utf8(rest: &[u8]) -> Option<(char, usize)> {
    let len = match rest[0] {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return None,
    };
    let s = std::str::from_utf8(rest.get(..len)?).ok()?;
    Some((s.chars().next()?, len))
}

/// glibc's `iswprint` in a UTF-8 locale.
fn is_printable(c: char) -> bool {
    !c.is_control() && !unprintable::is_unprintable(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(name: &[u8]) -> String {
        String::from_utf8_lossy(&quote(name, Charset::Utf8)).into_owned()
    }

    // Expected values are md5sum 9.1's output for the same names.
    #[test]
    fn bare_names_stay_bare() {
        assert_eq!(q(b"nofile"), "nofile");
        assert_eq!(q(b"a@b"), "a@b");
        assert_eq!(q(b"h#"), "h#");
        assert_eq!(q(b"{}"), "{}");
        assert_eq!(q("café".as_bytes()), "café");
    }

    #[test]
    fn shell_specials_are_single_quoted() {
        assert_eq!(q(b"no such"), "'no such'");
        assert_eq!(q(b"x:y"), "'x:y'");
        assert_eq!(q(b"#h"), "'#h'");
        assert_eq!(q(b"{"), "'{'");
        assert_eq!(q(b"b\\s"), "'b\\s'");
        assert_eq!(q(b""), "''");
    }

    #[test]
    fn control_and_invalid_bytes_use_dollar_quotes() {
        assert_eq!(q(b"n\nl"), "'n'$'\\n''l'");
        assert_eq!(q(b"bad\xffx"), "'bad'$'\\377''x'");
        assert_eq!(q(b"\x01"), "''$'\\001'");
        assert_eq!(q(b"a\xe2\x80"), "'a'$'\\342\\200'");
        assert_eq!(q("x\u{85}".as_bytes()), "'x'$'\\302\\205'");
        assert_eq!(q(b"e\x7f"), "'e'$'\\177'");
    }

    #[test]
    fn apostrophes() {
        assert_eq!(q(b"it's no"), "\"it's no\"");
        assert_eq!(q(b"a'b!c"), "'a'\\''b!c'");
        assert_eq!(q(b"a'#b"), "'a'\\''#b'");
        assert_eq!(q(b"\n'"), "''$'\\n'\\'''");
        assert_eq!(q(b"\n'x"), "''$'\\n'\\''x'");
        assert_eq!(q(b"za'a\x98"), "'''za'\\''a'$'\\230'");
        assert_eq!(q(b"\x8bcx'`\xed"), "'\\213''cx'\\''`'$'\\355'");
    }

    #[test]
    fn ascii_locale_escapes_every_non_ascii_byte() {
        let quoted = quote("café'x".as_bytes(), Charset::Ascii);
        assert_eq!(quoted, b"'caf'$'\\303\\251'\\''x'");
    }
}
