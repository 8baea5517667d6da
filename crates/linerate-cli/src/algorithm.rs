//! The hash functions the command line offers: MD5 (RFC 1321) and MD5-P/K
//! (RFC 1810's K-way interleaved MD5, `specs/md5p.md`), their names and
//! their hashers.
//!
//! Three spellings name a function:
//!
//! - the command-line name, `md5` or `md5pK` (`-a md5p16`; either case);
//! - the BSD tag of `--tag` lines, `MD5` or `MD5PK` (`MD5P16 (name) = hex`),
//!   upper case only, as a checksum line must carry it;
//! - the label of `linerate md5`/`md5p` output, `MD5` or `MD5-P/K`.
//!
//! K is written in decimal without leading zeros, so each function has
//! exactly one name and one tag.

use linerate::md5p::is_valid_k;
use linerate::{Md5, Md5p};

/// A hash function `linerate sum` and the drivers compute.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// RFC 1321's MD5.
    #[default]
    Md5,
    /// MD5-P/K; K is always valid (a multiple of 4 in 4..=256).
    Md5p(usize),
}

/// What an MD5-P/K's K may be, for messages.
pub const VALID_K: &str = "K must be a multiple of 4 from 4 to 256";

impl Algorithm {
    /// MD5-P/K, if `k` is a valid K.
    pub fn md5p(k: usize) -> Option<Algorithm> {
        is_valid_k(k).then_some(Algorithm::Md5p(k))
    }

    /// Parses a command-line name, `md5` or `md5pK`, in either case. The
    /// error is a one-line message naming what was wrong.
    pub fn from_name(name: &[u8]) -> Result<Algorithm, String> {
        let lower = name.to_ascii_lowercase();
        if lower == b"md5" {
            return Ok(Algorithm::Md5);
        }
        let shown = String::from_utf8_lossy(name);
        match lower.strip_prefix(b"md5p") {
            Some(digits) if !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) => {
                parse_k(digits)
                    .and_then(Algorithm::md5p)
                    .ok_or_else(|| format!("invalid algorithm '{shown}': MD5-P/K's {VALID_K}"))
            }
            _ => Err(format!(
                "invalid algorithm '{shown}': give md5 or md5pK ({VALID_K}, e.g. md5p16)"
            )),
        }
    }

    /// The function whose BSD tag starts `line` (`MD5` or `MD5PK`, K valid
    /// and without leading zeros), and the tag's length. An `MD5P` followed
    /// by anything else is no tag.
    pub fn from_tag_prefix(line: &[u8]) -> Option<(Algorithm, usize)> {
        let rest = line.strip_prefix(b"MD5")?;
        let Some(after_p) = rest.strip_prefix(b"P") else {
            return Some((Algorithm::Md5, 3));
        };
        let digits = after_p.iter().take_while(|b| b.is_ascii_digit()).count();
        let algorithm = Algorithm::md5p(parse_k(&after_p[..digits])?)?;
        Some((algorithm, 4 + digits))
    }

    /// The BSD tag: `MD5`, `MD5P16`.
    pub fn tag(self) -> String {
        match self {
            Algorithm::Md5 => "MD5".to_string(),
            Algorithm::Md5p(k) => format!("MD5P{k}"),
        }
    }

    /// The label of driver output and messages: `MD5`, `MD5-P/16`.
    pub fn label(self) -> String {
        match self {
            Algorithm::Md5 => "MD5".to_string(),
            Algorithm::Md5p(k) => format!("MD5-P/{k}"),
        }
    }

    /// A fresh hasher.
    pub fn hasher(self) -> Hasher {
        match self {
            Algorithm::Md5 => Hasher::Md5(Md5::new()),
            Algorithm::Md5p(k) => Hasher::Md5p(Box::new(
                Md5p::new(k).expect("an Algorithm holds a valid K"),
            )),
        }
    }
}

/// K in decimal: 1 to 3 digits, no leading zero.
fn parse_k(digits: &[u8]) -> Option<usize> {
    if digits.is_empty() || digits.len() > 3 || digits[0] == b'0' {
        return None;
    }
    std::str::from_utf8(digits).ok()?.parse().ok()
}

/// A streaming hasher of either function.
pub enum Hasher {
    Md5(Md5),
    Md5p(Box<Md5p>),
}

impl Hasher {
    /// Absorbs `data`.
    pub fn update(&mut self, data: &[u8]) {
        match self {
            Hasher::Md5(h) => h.update(data),
            Hasher::Md5p(h) => h.update(data),
        }
    }

    /// The digest of everything absorbed.
    pub fn finalize(self) -> [u8; 16] {
        match self {
            Hasher::Md5(h) => h.finalize(),
            Hasher::Md5p(h) => h.finalize(),
        }
    }
}

/// A hasher the time trial can drive; implemented by both functions'
/// hashers so that the timed loop is compiled for each without dispatch.
pub trait Digester {
    /// Absorbs `data`.
    fn absorb(&mut self, data: &[u8]);
    /// The digest of everything absorbed.
    fn digest(self) -> [u8; 16];
    /// The backend that computes it, for reports.
    fn backend_name(&self) -> String;
}

impl Digester for Md5 {
    fn absorb(&mut self, data: &[u8]) {
        self.update(data);
    }

    fn digest(self) -> [u8; 16] {
        self.finalize()
    }

    fn backend_name(&self) -> String {
        self.backend().to_string()
    }
}

impl Digester for Md5p {
    fn absorb(&mut self, data: &[u8]) {
        self.update(data);
    }

    fn digest(self) -> [u8; 16] {
        self.finalize()
    }

    fn backend_name(&self) -> String {
        self.backend().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(Algorithm::from_name(b"md5"), Ok(Algorithm::Md5));
        assert_eq!(Algorithm::from_name(b"MD5"), Ok(Algorithm::Md5));
        assert_eq!(Algorithm::from_name(b"md5p16"), Ok(Algorithm::Md5p(16)));
        assert_eq!(Algorithm::from_name(b"MD5P4"), Ok(Algorithm::Md5p(4)));
        assert_eq!(Algorithm::from_name(b"md5p256"), Ok(Algorithm::Md5p(256)));
        for bad in [
            &b"md5p"[..],
            b"md5p5",
            b"md5p0",
            b"md5p016",
            b"md5p260",
            b"md5p1024",
            b"md5p+4",
            b"sha1",
            b"",
            b"md5p16x",
        ] {
            assert!(
                Algorithm::from_name(bad).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        let message = Algorithm::from_name(b"md5p6").unwrap_err();
        assert!(message.contains("'md5p6'") && message.contains("multiple of 4"));
    }

    #[test]
    fn tags() {
        assert_eq!(
            Algorithm::from_tag_prefix(b"MD5 (a)"),
            Some((Algorithm::Md5, 3))
        );
        assert_eq!(
            Algorithm::from_tag_prefix(b"MD5P16 (a)"),
            Some((Algorithm::Md5p(16), 6))
        );
        assert_eq!(Algorithm::from_tag_prefix(b"MD5P (a)"), None);
        assert_eq!(Algorithm::from_tag_prefix(b"MD5P6 (a)"), None);
        assert_eq!(Algorithm::from_tag_prefix(b"MD5P016 (a)"), None);
        assert_eq!(Algorithm::from_tag_prefix(b"md5p16 (a)"), None);
        assert_eq!(Algorithm::Md5p(32).tag(), "MD5P32");
        assert_eq!(Algorithm::Md5p(8).label(), "MD5-P/8");
        assert_eq!(Algorithm::Md5.tag(), "MD5");
    }

    #[test]
    fn hashers_match_the_library() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
        for algorithm in [Algorithm::Md5, Algorithm::Md5p(4), Algorithm::Md5p(16)] {
            let mut h = algorithm.hasher();
            h.update(&data[..100]);
            h.update(&data[100..]);
            let expected = match algorithm {
                Algorithm::Md5 => linerate::md5(&data),
                Algorithm::Md5p(k) => linerate::md5p(k, &data).unwrap(),
            };
            assert_eq!(h.finalize(), expected, "{algorithm:?}");
        }
    }
}
