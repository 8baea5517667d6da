//! `cksum -c`'s line parser against GNU cksum 9.1's verdicts, one case a
//! line of `tests/data/cksum-check-lines.txt` (the CLI's tests run GNU
//! cksum itself on the same file).

use linerate::cksum::{CksumAlgorithm, CksumValue};
use linerate_sumfile::check::{Layout, parse_line};
use linerate_sumfile::cksum::CksumFamily;

const CASES: &str = include_str!("../data/cksum-check-lines.txt");

/// One line of the cases file.
struct Case {
    verdict: &'static str,
    algorithm: Option<CksumAlgorithm>,
    line: Vec<u8>,
    /// The case as written, for messages.
    text: &'static str,
}

/// The digest of "abc" under `name` (`md5`, `blake2b-256`, `blake2b`).
fn digest_of_abc(name: &str) -> Vec<u8> {
    let (function, bits) = name.split_once('-').unwrap_or((name, "0"));
    let mut algorithm = CksumAlgorithm::from_name(function).expect("a function's name");
    if bits != "0" {
        algorithm = algorithm
            .with_length(bits.parse().expect("bits"))
            .expect("a length");
    }
    let mut hasher = algorithm.hasher();
    hasher.update(b"abc");
    match hasher.finalize() {
        CksumValue::Digest(digest) => digest,
        CksumValue::Sum { .. } => panic!("{name}: not a digest"),
    }
}

/// `text` with its escapes and `{digest}` placeholders replaced.
fn expand(text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => {
                match bytes.get(i + 1) {
                    Some(b't') => out.push(b'\t'),
                    Some(b'\\') => out.push(b'\\'),
                    Some(b'x') => {
                        let hex = &text[i + 2..i + 4];
                        out.push(u8::from_str_radix(hex, 16).expect("\\xHH"));
                        i += 2;
                    }
                    other => panic!("{text}: unknown escape {other:?}"),
                }
                i += 2;
            }
            b'{' => {
                let end = i + text[i..].find('}').expect("a closing brace");
                let spec = &text[i + 1..end];
                let (name, digits) = spec.split_once(':').unwrap_or((spec, ""));
                let hex = hex::encode(digest_of_abc(name));
                let digits = if digits.is_empty() {
                    hex.len()
                } else {
                    digits.parse().expect("digits")
                };
                out.extend_from_slice(&hex.as_bytes()[..digits]);
                i = end + 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

fn cases() -> Vec<Case> {
    CASES
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|text| {
            let mut fields = text.splitn(3, '\t');
            let verdict = fields.next().expect("a verdict");
            let algorithm = fields.next().expect("an algorithm");
            let line = fields.next().expect("a line");
            assert!(
                matches!(verdict, "ok" | "failed" | "unreadable" | "malformed"),
                "{text}: verdict"
            );
            Case {
                verdict,
                algorithm: (algorithm != "-")
                    .then(|| CksumAlgorithm::from_name(algorithm).expect("-a's name")),
                line: expand(line),
                text,
            }
        })
        .collect()
}

#[test]
fn every_case_as_gnu_cksum_reads_it() {
    let cases = cases();
    assert!(cases.len() > 100, "the cases file is read");
    for case in cases {
        let family = CksumFamily::new(case.algorithm);
        let parsed = parse_line(&family, &case.line, &mut Layout::default());
        let Some(parsed) = parsed else {
            assert_eq!(case.verdict, "malformed", "{}", case.text);
            continue;
        };
        assert_ne!(case.verdict, "malformed", "{}", case.text);
        if case.verdict == "unreadable" {
            assert_ne!(parsed.name, b"a", "{}", case.text);
            continue;
        }
        assert_eq!(parsed.name, b"a", "{}", case.text);
        // The function the line is checked with, and the digest of "abc"
        // under it: the line's digest matches if it is a prefix of it.
        let function = match (parsed.tag, case.algorithm) {
            (Some(tag), _) => tag,
            (None, Some(CksumAlgorithm::Blake2b(_))) => {
                CksumAlgorithm::Blake2b(parsed.digest.len())
            }
            (None, Some(specified)) => specified,
            (None, None) => panic!("{}: untagged without -a", case.text),
        };
        let name = match function {
            CksumAlgorithm::Blake2b(bytes) => format!("blake2b-{}", bytes * 8),
            other => other.tag().to_lowercase(),
        };
        let right = digest_of_abc(&name);
        let matches = right.starts_with(&parsed.digest);
        assert_eq!(matches, case.verdict == "ok", "{}", case.text);
    }
}

/// cksum keeps a tagged line's length for the untagged lines of `-a`'s
/// function that follow it (rule 6).
#[test]
fn a_tagged_length_stays_for_untagged_lines() {
    let family = CksumFamily::new(Some(CksumAlgorithm::Md5));
    let mut layout = Layout::default();
    let full = expand("{md5}  a");
    let short = expand("{md5:16}  a");
    assert!(parse_line(&family, &full, &mut layout).is_some());
    assert!(parse_line(&family, &short, &mut layout).is_none());
    let tagged = expand("MD5-64 (a) = {md5:16}");
    let parsed = parse_line(&family, &tagged, &mut layout).expect("MD5-64");
    assert_eq!(parsed.digest.len(), 8);
    assert!(parse_line(&family, &full, &mut layout).is_none());
    assert_eq!(
        parse_line(&family, &short, &mut layout).map(|l| l.digest.len()),
        Some(8)
    );
    // A tagged line without a length restores the whole digest.
    assert!(parse_line(&family, &expand("MD5 (a) = {md5}"), &mut layout).is_some());
    assert!(parse_line(&family, &full, &mut layout).is_some());
}
