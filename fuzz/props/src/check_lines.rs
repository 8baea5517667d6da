//! Check lines of every dialect: `sum -c` (md5sum's lines, and cksum's
//! tags beside them), `cksum -c`, `mac -c` and `etag -c`. Whatever a parser
//! accepts must survive a round trip: printed back the way linerate prints
//! such lines, it parses to the same value under a fresh run's layout.

use linerate::HashAlgorithm;
use linerate::MacAlgorithm;
use linerate::cksum::{CksumAlgorithm, DigestAlgorithm};
use linerate_sumfile::check::{self, CheckLine, Dialect, Form, Layout, Md5Family};
use linerate_sumfile::cksum::{CksumFamily, SumFamily};
use linerate_sumfile::etag;
use linerate_sumfile::format::{self, LineStyle};
use linerate_sumfile::mac::MacDialect;
use linerate_sumfile::quote::{Charset, quote};
use linerate_sumfile::{escape, s3};

/// The layout a run starts a line under, picked by a byte of the input.
fn layout_of(selector: u8) -> Layout {
    match selector % 3 {
        0 => Layout::Undecided,
        1 => Layout::Gnu,
        _ => Layout::BsdReversed,
    }
}

/// The layout in which a line of `form` is read again as it was.
fn fresh_layout(form: Form) -> Layout {
    match form {
        Form::Tagged => Layout::Undecided,
        Form::Gnu => Layout::Gnu,
        Form::Reversed => Layout::BsdReversed,
    }
}

/// `line` printed back: `tag` names the function on a BSD line.
fn print<D: AsRef<[u8]>, F>(line: &CheckLine<D, F>, tag: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let digest = line.digest.as_ref();
    match line.form {
        Form::Tagged | Form::Gnu => {
            let style = LineStyle {
                tagged: line.form == Form::Tagged,
                binary: line.binary,
                zero: false,
            };
            format::push_line(&mut out, tag.as_bytes(), digest, &line.name, style);
        }
        // linerate never prints BSD `md5 -r`'s form; write it by hand.
        Form::Reversed => {
            let escaped = escape::needs_escape(&line.name);
            if escaped {
                out.push(b'\\');
            }
            format::push_hex(&mut out, digest);
            out.push(b' ');
            if escaped {
                escape::push_escaped(&mut out, &line.name);
            } else {
                out.extend_from_slice(&line.name);
            }
            out.push(b'\n');
        }
    }
    out
}

/// Parses `line` under `layout` with `dialect`; whatever parses must print
/// and parse again to the same value (with a fresh dialect from `fresh`).
fn round_trip<L, M>(
    dialect: &L,
    fresh: M,
    line: &[u8],
    mut layout: Layout,
    tag: fn(L::Function, usize) -> String,
) where
    L: Dialect,
    L::Digest: AsRef<[u8]> + PartialEq + std::fmt::Debug,
    L::Function: PartialEq + std::fmt::Debug,
    M: Fn() -> L,
{
    check::line_content(line);
    let Some(parsed) = check::parse_line(dialect, line, &mut layout) else {
        return;
    };
    assert!(
        parsed.name.len() <= line.len(),
        "a name longer than its line"
    );
    assert!(
        2 * parsed.digest.as_ref().len() <= line.len(),
        "a digest longer than its line"
    );
    // No file has an empty name and no line form can express one.
    if parsed.name.is_empty() {
        return;
    }
    let digest_len = parsed.digest.as_ref().len();
    let tag_text = parsed.tag.map(|t| tag(t, digest_len)).unwrap_or_default();
    let printed = print(&parsed, &tag_text);
    let content = check::line_content(&printed).expect("a printed line is never skipped");
    let mut layout = fresh_layout(parsed.form);
    let reparsed = check::parse_line(&fresh(), content, &mut layout);
    assert_eq!(
        reparsed.as_ref(),
        Some(&parsed),
        "printed as {:?}",
        String::from_utf8_lossy(content)
    );
}

/// md5sum's lines (`linerate sum -c -a md5`): the first byte picks the
/// run's layout so far, the rest is the line.
pub fn md5sum(data: &[u8]) {
    let Some((&selector, line)) = data.split_first() else {
        return;
    };
    round_trip(
        &Md5Family,
        || Md5Family,
        line,
        layout_of(selector),
        |a, _| a.tag(),
    );
}

/// The functions `-a` may name for untagged lines, picked by a byte.
pub(crate) fn digest_algorithm(selector: u8) -> DigestAlgorithm {
    let cksum = [
        CksumAlgorithm::Sha1,
        CksumAlgorithm::Sha224,
        CksumAlgorithm::Sha256,
        CksumAlgorithm::Sha384,
        CksumAlgorithm::Sha512,
        CksumAlgorithm::Blake2b(64),
        CksumAlgorithm::Blake2b(32),
        CksumAlgorithm::Sm3,
    ];
    match usize::from(selector / 3) % (cksum.len() + 2) {
        0 => DigestAlgorithm::Hash(HashAlgorithm::Md5),
        1 => HashAlgorithm::md5p(16).map_or_else(DigestAlgorithm::default, DigestAlgorithm::Hash),
        i => DigestAlgorithm::Cksum(cksum[i - 2]),
    }
}

/// `linerate sum -c`'s lines: md5sum's and cksum's tags beside them; the
/// first byte picks the layout and `-a`'s function.
pub fn sum(data: &[u8]) {
    let Some((&selector, line)) = data.split_first() else {
        return;
    };
    let dialect = SumFamily {
        untagged: digest_algorithm(selector),
    };
    round_trip(
        &dialect,
        || dialect,
        line,
        layout_of(selector),
        |a, _| a.tag(),
    );
}

/// `cksum -c`'s lines: the first byte picks the layout and `-a` (or none).
pub fn cksum(data: &[u8]) {
    let Some((&selector, line)) = data.split_first() else {
        return;
    };
    let specified = match digest_algorithm(selector) {
        _ if selector >= 0xf0 => None,
        DigestAlgorithm::Hash(_) => Some(CksumAlgorithm::Md5),
        DigestAlgorithm::Cksum(a) => Some(a),
    };
    round_trip(
        &CksumFamily::new(specified),
        || CksumFamily::new(specified),
        line,
        layout_of(selector),
        cksum_tag,
    );
}

/// cksum's tag for a digest of `digest_len` bytes: with its length in
/// bits where the line checks only a prefix (`MD5-64`), as cksum 9.1 reads
/// a tag's length on any function.
fn cksum_tag(algorithm: CksumAlgorithm, digest_len: usize) -> String {
    if digest_len == algorithm.digest_len() {
        algorithm.tag()
    } else {
        format!("{}-{}", algorithm.tag(), digest_len * 8)
    }
}

/// `linerate mac -c`'s lines: the first byte picks the layout and the MAC.
pub fn mac(data: &[u8]) {
    let Some((&selector, line)) = data.split_first() else {
        return;
    };
    let all = MacAlgorithm::ALL;
    let dialect = MacDialect(all[usize::from(selector / 3) % all.len()]);
    round_trip(
        &dialect,
        || dialect,
        line,
        layout_of(selector),
        |a, _| a.tag().to_string(),
    );
}

/// `linerate etag -c`'s lines, and ETags and S3 checksum values in text:
/// each printed back parses to the same value.
pub fn etag(data: &[u8]) {
    check::line_content(data);
    if let Some(line) = etag::parse_line(data) {
        assert!(line.name.len() <= data.len());
        let mut out = Vec::new();
        etag::push_line(&mut out, &line.etag, &line.name);
        let content = check::line_content(&out).expect("a printed line is never skipped");
        assert_eq!(
            etag::parse_line(content).as_ref(),
            Some(&line),
            "printed as {:?}",
            String::from_utf8_lossy(content)
        );
    }
    if let Some(tag) = etag::Etag::parse(data) {
        let text = tag.to_string();
        assert_eq!(
            etag::Etag::parse(text.as_bytes()),
            Some(tag),
            "printed as {text}"
        );
    }
    for algorithm in s3::S3Algorithm::ALL {
        if let Ok(value) = s3::S3Value::parse(algorithm, data) {
            let text = value.to_string();
            assert_eq!(
                s3::S3Value::parse(algorithm, text.as_bytes()).as_ref(),
                Ok(&value),
                "printed as {text}"
            );
        }
    }
}

/// Names quoted in diagnostics: a name left unquoted comes out unchanged,
/// a quoted one is wrapped in matching quotes, and nothing grows without
/// bound (a byte is at most a `'$'\ooo''` segment).
pub fn quote_name(name: &[u8]) {
    for charset in [Charset::Utf8, Charset::Ascii] {
        let quoted = quote(name, charset);
        assert!(quoted.len() <= 12 * name.len() + 2, "{quoted:?}");
        if quoted != name {
            let first = quoted.first().copied();
            assert!(matches!(first, Some(b'\'' | b'"')), "{quoted:?}");
            assert_eq!(quoted.last().copied(), first, "{quoted:?}");
        }
    }
}
