//! Parsing the lines of a checksum file, exactly as md5sum 9.1 does.
//!
//! md5sum accepts three line forms:
//!
//! - GNU: `HEX  NAME` (text) or `HEX *NAME` (binary); a tab may stand for the
//!   first space;
//! - BSD tagged: `MD5 (NAME) = HEX`, the name ending at the last `)`, with
//!   optional blanks around `=` and no space needed after `MD5`; linerate
//!   also reads `MD5PK (NAME) = HEX` for MD5-P/K (`MD5P16`), which md5sum
//!   calls improperly formatted, so every line md5sum accepts still parses
//!   as it does;
//! - BSD reversed (`md5 -r`): `HEX NAME` with a single blank.
//!
//! Leading blanks are skipped, hex digits may be upper case, and a leading
//! backslash means the name is escaped (`\\`, `\n`, `\r`). The GNU and
//! reversed forms are told apart by the first such line of the run: after a
//! reversed line, `HEX  NAME` means the name ` NAME`; after a GNU line a
//! reversed line is malformed. (This guards against renamed files with
//! leading blanks; md5sum keeps the choice across all checksum files of one
//! run, and so does [`Layout`].)
//!
//! The parser mirrors md5sum's C code, which works on NUL-terminated strings:
//! a name read without escapes ends at its first NUL byte, and a tagged line
//! may carry anything after a NUL that follows its digest.

use crate::escape;
use linerate::HashAlgorithm;

/// Length of an MD5 digest in hex digits.
const HEX_LEN: usize = 32;

/// What the checksum lines of one family of functions look like: the
/// digest's length and the BSD tags that name its functions. The parser is
/// md5sum's whatever the dialect; [`Md5Family`] is `linerate sum`'s (and
/// md5sum's) and `linerate mac` has its own (one per MAC).
pub trait Dialect {
    /// What a BSD tag names.
    type Function: Copy;
    /// A decoded digest.
    type Digest;
    /// Hex digits of the digest on an untagged line.
    fn hex_len(&self) -> usize;
    /// Hex digits of the digest on the untagged line `s` (from its digest
    /// on), `None` if it can have none: [`hex_len`](Self::hex_len) unless
    /// the dialect reads the length off the line (cksum's BLAKE2b).
    fn untagged_hex_len(&self, _s: &[u8]) -> Option<usize> {
        Some(self.hex_len())
    }
    /// The fewest bytes an untagged line may have from its digest on, for a
    /// digest of `hex_len` digits: md5sum's digest, a blank and a one-byte
    /// name.
    fn untagged_min_len(&self, hex_len: usize) -> usize {
        hex_len + 2
    }
    /// Whether `s` (the line after its leading blanks and backslash) is a
    /// BSD line; if so it is never read as an untagged one. md5sum's test:
    /// `s` starts with `MD5`.
    fn is_tagged(&self, s: &[u8]) -> bool;
    /// The function the tag at the start of `s` names, the tag's length and
    /// the hex length of its digest; `None` if `s` starts with no valid tag.
    fn parse_tag(&self, s: &[u8]) -> Option<(Self::Function, usize, usize)>;
    /// `hex` (exactly as many digits as the line's digest has, any case)
    /// decoded; `None` if it holds anything but hex digits.
    fn decode(&self, hex: &[u8]) -> Option<Self::Digest>;
}

/// `linerate sum`'s lines: 128-bit digests, tagged `MD5` or `MD5PK`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Md5Family;

impl Dialect for Md5Family {
    type Function = HashAlgorithm;
    type Digest = [u8; 16];

    fn hex_len(&self) -> usize {
        HEX_LEN
    }

    fn is_tagged(&self, s: &[u8]) -> bool {
        s.starts_with(b"MD5")
    }

    fn parse_tag(&self, s: &[u8]) -> Option<(HashAlgorithm, usize, usize)> {
        HashAlgorithm::from_tag_prefix(s).map(|(algorithm, len)| (algorithm, len, HEX_LEN))
    }

    fn decode(&self, hex: &[u8]) -> Option<[u8; 16]> {
        let mut digest = [0u8; 16];
        decode_hex_into(hex, &mut digest).then_some(digest)
    }
}

/// Which untagged layout this run's checksum lines use, decided by the first
/// untagged line md5sum gets far enough to classify.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Layout {
    /// No untagged line seen yet.
    #[default]
    Undecided,
    /// `HEX  NAME` / `HEX *NAME`.
    Gnu,
    /// `HEX NAME`.
    BsdReversed,
}

/// The form a parsed line had.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `MD5 (NAME) = HEX`.
    Tagged,
    /// `HEX  NAME` or `HEX *NAME`.
    Gnu,
    /// `HEX NAME`.
    Reversed,
}

/// A well-formed checksum line; by default one of `linerate sum`'s.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckLine<D = [u8; 16], F = HashAlgorithm> {
    /// The expected digest.
    pub digest: D,
    /// The file name, unescaped.
    pub name: Vec<u8>,
    /// Whether the line marked the file binary (`*`); never for BSD forms.
    pub binary: bool,
    /// Which form the line had.
    pub form: Form,
    /// The function a BSD tag names (`MD5`, `MD5P16`); `None` on untagged
    /// lines, which are checked with `-a`'s function.
    pub tag: Option<F>,
}

/// A line of dialect `L`.
pub type LineOf<L> = CheckLine<<L as Dialect>::Digest, <L as Dialect>::Function>;

/// The part of a raw line (as read, with its newline) that gets parsed, or
/// `None` for the lines md5sum skips: `#` comments and empty lines. One
/// trailing newline and then one carriage return are dropped.
pub fn line_content(raw: &[u8]) -> Option<&[u8]> {
    if raw.first() == Some(&b'#') {
        return None;
    }
    let line = raw.strip_suffix(b"\n").unwrap_or(raw);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    (!line.is_empty()).then_some(line)
}

/// Parses `line` (without its line end) as the first line of a run would be
/// parsed. `None` if md5sum calls it improperly formatted. Never panics.
pub fn parse_check_line(line: &[u8]) -> Option<CheckLine> {
    parse_check_line_in(line, &mut Layout::default())
}

/// Parses `line` under the run's `layout`, which an untagged line may
/// decide. Like md5sum, the layout is decided as soon as the digest is seen
/// to be valid, even if the name then turns out to be malformed.
pub fn parse_check_line_in(line: &[u8], layout: &mut Layout) -> Option<CheckLine> {
    parse_line(&Md5Family, line, layout)
}

/// [`parse_check_line_in`] for the lines of any dialect.
pub fn parse_line<L: Dialect>(dialect: &L, line: &[u8], layout: &mut Layout) -> Option<LineOf<L>> {
    let mut i = line.iter().take_while(|&&b| is_blank(b)).count();
    let escaped = byte_at(line, i) == b'\\';
    if escaped {
        i += 1;
    }
    if dialect.is_tagged(&line[i..]) {
        let (function, tag_len, hex_len) = dialect.parse_tag(&line[i..])?;
        i += tag_len;
        if byte_at(line, i) == b' ' {
            i += 1;
        }
        if byte_at(line, i) != b'(' {
            return None;
        }
        return parse_tagged(dialect, &line[i + 1..], escaped, function, hex_len);
    }
    parse_untagged(dialect, line, i, escaped, layout)
}

/// `NAME) = HEX`, what follows `MD5 (`.
fn parse_tagged<L: Dialect>(
    dialect: &L,
    s: &[u8],
    escaped: bool,
    function: L::Function,
    hex_len: usize,
) -> Option<LineOf<L>> {
    let close = s.iter().rposition(|&b| b == b')')?;
    let name = parse_name(&s[..close], escaped)?;
    let mut i = close + 1;
    i += s[i..].iter().take_while(|&&b| is_blank(b)).count();
    if byte_at(s, i) != b'=' {
        return None;
    }
    i += 1;
    i += s[i..].iter().take_while(|&&b| is_blank(b)).count();
    let digest = dialect.decode(s.get(i..i + hex_len)?)?;
    // The digest must end the string: the line's end, or a NUL byte.
    if byte_at(s, i + hex_len) != 0 {
        return None;
    }
    Some(CheckLine {
        digest,
        name,
        binary: false,
        form: Form::Tagged,
        tag: Some(function),
    })
}

/// `HEX  NAME`, `HEX *NAME` or `HEX NAME`, the digest starting at `start`.
fn parse_untagged<L: Dialect>(
    dialect: &L,
    line: &[u8],
    start: usize,
    escaped: bool,
    layout: &mut Layout,
) -> Option<LineOf<L>> {
    // The shortest untagged line: digest, one blank, a one-byte name.
    // md5sum's length check counts a second backslash as if it were needed.
    let hex_len = dialect.untagged_hex_len(&line[start..])?;
    let min_len = dialect.untagged_min_len(hex_len) + usize::from(byte_at(line, start) == b'\\');
    if line.len() - start < min_len {
        return None;
    }
    let mut i = start + hex_len;
    if !is_blank(byte_at(line, i)) {
        return None;
    }
    let digest = dialect.decode(&line[start..i])?;
    i += 1;
    let marker = byte_at(line, i);
    let reversed_shape = line.len() - i == 1 || (marker != b' ' && marker != b'*');
    let (form, binary) = if reversed_shape {
        if *layout == Layout::Gnu {
            return None;
        }
        *layout = Layout::BsdReversed;
        (Form::Reversed, false)
    } else if *layout == Layout::BsdReversed {
        // The blank or star is part of the name in the reversed layout.
        (Form::Reversed, false)
    } else {
        *layout = Layout::Gnu;
        i += 1;
        (Form::Gnu, marker == b'*')
    };
    let name = parse_name(&line[i..], escaped)?;
    Some(CheckLine {
        digest,
        name,
        binary,
        form,
        tag: None,
    })
}

/// The name field: unescaped, or cut at its first NUL as C would see it.
fn parse_name(field: &[u8], escaped: bool) -> Option<Vec<u8>> {
    if escaped {
        escape::unescape(field)
    } else {
        let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
        Some(field[..end].to_vec())
    }
}

/// Decodes `hex` (two digits per byte of `out`, either case) into `out`;
/// false if the length is wrong or a digit is not hex.
pub fn decode_hex_into(hex: &[u8], out: &mut [u8]) -> bool {
    if hex.len() != 2 * out.len() {
        return false;
    }
    for (byte, pair) in out.iter_mut().zip(hex.chunks_exact(2)) {
        match (hex_value(pair[0]), hex_value(pair[1])) {
            (Some(high), Some(low)) => *byte = (high << 4) | low,
            _ => return false,
        }
    }
    true
}

fn hex_value(b: u8) -> Option<u8> {
    char::from(b)
        .to_digit(16)
        .and_then(|v| u8::try_from(v).ok())
}

/// md5sum's `ISWHITE`: space or tab.
fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// `s[i]`, or the NUL that ends a C string past the end.
fn byte_at(s: &[u8], i: usize) -> u8 {
    s.get(i).copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEX: &str = "900150983cd24fb0d6963f7d28e17f72";
    const DIGEST: [u8; 16] = [
        0x90, 0x01, 0x50, 0x98, 0x3c, 0xd2, 0x4f, 0xb0, 0xd6, 0x96, 0x3f, 0x7d, 0x28, 0xe1, 0x7f,
        0x72,
    ];

    fn parse(line: &str) -> Option<CheckLine> {
        parse_check_line(line.as_bytes())
    }

    fn entry(name: &[u8], binary: bool, form: Form) -> Option<CheckLine> {
        Some(CheckLine {
            digest: DIGEST,
            name: name.to_vec(),
            binary,
            form,
            tag: (form == Form::Tagged).then_some(HashAlgorithm::Md5),
        })
    }

    #[test]
    fn gnu_forms() {
        assert_eq!(parse(&format!("{HEX}  a")), entry(b"a", false, Form::Gnu));
        assert_eq!(
            parse(&format!("{HEX} *a b")),
            entry(b"a b", true, Form::Gnu)
        );
        assert_eq!(parse(&format!("{HEX}\t a")), entry(b"a", false, Form::Gnu));
        assert_eq!(
            parse(&format!(" \t{}  a", HEX.to_uppercase())),
            entry(b"a", false, Form::Gnu)
        );
        assert_eq!(
            parse(&format!("{HEX}  a\0b")),
            entry(b"a", false, Form::Gnu)
        );
    }

    #[test]
    fn tagged_forms() {
        assert_eq!(
            parse(&format!("MD5 (a) = {HEX}")),
            entry(b"a", false, Form::Tagged)
        );
        assert_eq!(
            parse(&format!("MD5(a)b) ={HEX}")),
            entry(b"a)b", false, Form::Tagged)
        );
        assert_eq!(
            parse(&format!("MD5 (a)\t= \t{HEX}\0junk")),
            entry(b"a", false, Form::Tagged)
        );
        assert_eq!(parse(&format!("MD5  (a) = {HEX}")), None);
        assert_eq!(parse(&format!("MD5 (a) = {HEX} ")), None);
        assert_eq!(parse(&format!("MD5 (a) = {}", &HEX[1..])), None);
    }

    #[test]
    fn md5p_tags() {
        let md5p = |k, name: &[u8]| {
            entry(name, false, Form::Tagged).map(|line| CheckLine {
                tag: Some(HashAlgorithm::Md5p(k)),
                ..line
            })
        };
        assert_eq!(parse(&format!("MD5P16 (a) = {HEX}")), md5p(16, b"a"));
        assert_eq!(parse(&format!("MD5P4(a) = {HEX}")), md5p(4, b"a"));
        assert_eq!(
            parse(&format!("\\MD5P256 (a\\nb) = {HEX}")),
            md5p(256, b"a\nb")
        );
        for bad in ["MD5P", "MD5P6", "MD5P016", "MD5P260", "MD5p16", "MD5P16x"] {
            assert_eq!(parse(&format!("{bad} (a) = {HEX}")), None, "{bad}");
        }
    }

    #[test]
    fn escaped_names() {
        assert_eq!(
            parse(&format!("\\{HEX}  a\\\\b\\nc\\rd")),
            entry(b"a\\b\nc\rd", false, Form::Gnu)
        );
        assert_eq!(
            parse(&format!("\\MD5 (a\\nb) = {HEX}")),
            entry(b"a\nb", false, Form::Tagged)
        );
        assert_eq!(parse(&format!("\\{HEX}  a\\b")), None);
        assert_eq!(parse(&format!("\\{HEX}  a\\")), None);
    }

    #[test]
    fn malformed_lines() {
        assert_eq!(parse("garbage"), None);
        assert_eq!(parse(HEX), None);
        assert_eq!(parse(&format!("{HEX}0  a")), None);
        assert_eq!(parse(&format!("{}g  a", &HEX[1..])), None);
        assert_eq!(parse(&format!("{HEX}\0 a")), None);
        assert_eq!(parse(""), None);
    }

    #[test]
    fn reversed_layout_is_decided_by_the_first_untagged_line() {
        let mut layout = Layout::default();
        let reversed = format!("{HEX} b");
        let gnu = format!("{HEX}  a");
        assert_eq!(
            parse_check_line_in(reversed.as_bytes(), &mut layout),
            entry(b"b", false, Form::Reversed)
        );
        assert_eq!(
            parse_check_line_in(gnu.as_bytes(), &mut layout),
            entry(b" a", false, Form::Reversed)
        );

        let mut layout = Layout::default();
        assert!(parse_check_line_in(gnu.as_bytes(), &mut layout).is_some());
        assert_eq!(parse_check_line_in(reversed.as_bytes(), &mut layout), None);
        assert_eq!(layout, Layout::Gnu);
    }

    #[test]
    fn a_two_blank_line_with_nothing_after_is_reversed() {
        assert_eq!(
            parse(&format!("{HEX}  ")),
            entry(b" ", false, Form::Reversed)
        );
    }

    #[test]
    fn skipped_lines() {
        assert_eq!(line_content(b"# comment\n"), None);
        assert_eq!(line_content(b"\r\n"), None);
        assert_eq!(line_content(b"\n"), None);
        assert_eq!(line_content(b"x\r\r\n"), Some(&b"x\r"[..]));
        assert_eq!(line_content(b" #x"), Some(&b" #x"[..]));
    }
}
