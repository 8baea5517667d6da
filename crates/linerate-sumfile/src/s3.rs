//! S3's checksums in text: the algorithms S3 offers (the MD5 ETag, and since
//! 2022-2025 CRC-64/NVME, CRC-32C, CRC-32, SHA-1 and SHA-256), the two
//! types a multipart upload's checksum may have, and values as S3's API
//! and the AWS CLI show them.
//!
//! - An object uploaded with one PUT has checksums of the whole object
//!   (`FULL_OBJECT`): base64 of the value, big-endian for the CRCs.
//! - A multipart upload's checksum is either full-object (the CRCs only:
//!   the CRC of the whole object, the same whatever the parts) or
//!   composite (CRC-32, CRC-32C, SHA-1, SHA-256: the checksum of the parts'
//!   binary checksums, one after another, shown as `BASE64-N` for N parts,
//!   as the ETag is `HEX-N`). CRC-64/NVME is full-object only, the SHAs
//!   composite only. Without a choice, S3 and the AWS CLI make CRC-64/NVME
//!   full-object and the others composite.
//!
//! ```
//! use linerate_sumfile::s3::{S3Algorithm, S3Value};
//!
//! let value = S3Value::parse(S3Algorithm::Crc32, b"\"yZRlqg==-3\"").unwrap();
//! assert_eq!(value.value, [0xc9, 0x94, 0x65, 0xaa]);
//! assert_eq!(value.parts, Some(3));
//! assert_eq!(value.to_string(), "yZRlqg==-3");
//! ```

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use linerate::crc::CrcAlgorithm;

use crate::format::push_hex;

/// A checksum S3 computes for an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum S3Algorithm {
    /// The ETag: MD5 of the object, or of its parts' MD5s (`HEX-N`).
    Md5,
    Crc64Nvme,
    Crc32c,
    Crc32,
    Sha1,
    Sha256,
}

/// How a multipart upload's checksum is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChecksumType {
    /// The checksum of the whole object (CRCs only).
    FullObject,
    /// The checksum of the parts' checksums (`VALUE-N`).
    Composite,
}

impl ChecksumType {
    /// The command line's name: `full-object`, `composite`.
    pub fn name(self) -> &'static str {
        match self {
            ChecksumType::FullObject => "full-object",
            ChecksumType::Composite => "composite",
        }
    }

    /// S3's API name: `FULL_OBJECT`, `COMPOSITE`.
    pub fn api_name(self) -> &'static str {
        match self {
            ChecksumType::FullObject => "FULL_OBJECT",
            ChecksumType::Composite => "COMPOSITE",
        }
    }

    /// Either spelling, any case.
    pub fn from_name(name: &str) -> Option<ChecksumType> {
        match name.to_ascii_lowercase().replace('_', "-").as_str() {
            "full-object" => Some(ChecksumType::FullObject),
            "composite" => Some(ChecksumType::Composite),
            _ => None,
        }
    }
}

impl S3Algorithm {
    /// Every algorithm, in the order `linerate etag` prints them.
    pub const ALL: [S3Algorithm; 6] = [
        S3Algorithm::Md5,
        S3Algorithm::Crc64Nvme,
        S3Algorithm::Crc32c,
        S3Algorithm::Crc32,
        S3Algorithm::Sha1,
        S3Algorithm::Sha256,
    ];

    /// The command line's name: `md5`, `crc64nvme`, `crc32c`, `crc32`,
    /// `sha1`, `sha256`.
    pub fn name(self) -> &'static str {
        match self {
            S3Algorithm::Md5 => "md5",
            S3Algorithm::Crc64Nvme => "crc64nvme",
            S3Algorithm::Crc32c => "crc32c",
            S3Algorithm::Crc32 => "crc32",
            S3Algorithm::Sha1 => "sha1",
            S3Algorithm::Sha256 => "sha256",
        }
    }

    /// The name S3's API gives it: `ETag` for MD5, else the algorithm's
    /// part of the `Checksum...` field (`CRC64NVME`, `SHA256`).
    pub fn api_name(self) -> &'static str {
        match self {
            S3Algorithm::Md5 => "ETag",
            S3Algorithm::Crc64Nvme => "CRC64NVME",
            S3Algorithm::Crc32c => "CRC32C",
            S3Algorithm::Crc32 => "CRC32",
            S3Algorithm::Sha1 => "SHA1",
            S3Algorithm::Sha256 => "SHA256",
        }
    }

    /// Either name, any case (`crc64nvme`, `CRC64NVME`, `etag`; `-` and
    /// `_` ignored, so `crc-64-nvme` and `sha-256` too).
    pub fn from_name(name: &str) -> Option<S3Algorithm> {
        let plain: String = name
            .chars()
            .filter(|c| !matches!(c, '-' | '_'))
            .collect::<String>()
            .to_ascii_lowercase();
        let found = match plain.as_str() {
            "md5" | "etag" => S3Algorithm::Md5,
            "crc64nvme" => S3Algorithm::Crc64Nvme,
            "crc32c" => S3Algorithm::Crc32c,
            "crc32" => S3Algorithm::Crc32,
            "sha1" => S3Algorithm::Sha1,
            "sha256" => S3Algorithm::Sha256,
            _ => return None,
        };
        Some(found)
    }

    /// Bytes of a value.
    pub fn value_len(self) -> usize {
        match self {
            S3Algorithm::Md5 => 16,
            S3Algorithm::Crc64Nvme => 8,
            S3Algorithm::Crc32c | S3Algorithm::Crc32 => 4,
            S3Algorithm::Sha1 => 20,
            S3Algorithm::Sha256 => 32,
        }
    }

    /// The CRC it is, if it is one.
    pub fn crc(self) -> Option<CrcAlgorithm> {
        match self {
            S3Algorithm::Crc64Nvme => Some(CrcAlgorithm::Crc64Nvme),
            S3Algorithm::Crc32c => Some(CrcAlgorithm::Crc32c),
            S3Algorithm::Crc32 => Some(CrcAlgorithm::Crc32),
            _ => None,
        }
    }

    /// Whether a multipart upload's checksum may be of this type. (The
    /// ETag counts as composite: the MD5 of the parts' MD5s.)
    pub fn supports(self, kind: ChecksumType) -> bool {
        match kind {
            ChecksumType::FullObject => self.crc().is_some(),
            ChecksumType::Composite => self != S3Algorithm::Crc64Nvme,
        }
    }

    /// The type S3 and the AWS CLI give a multipart upload's checksum
    /// when none is asked for.
    pub fn default_type(self) -> ChecksumType {
        match self {
            S3Algorithm::Crc64Nvme => ChecksumType::FullObject,
            _ => ChecksumType::Composite,
        }
    }
}

impl fmt::Display for S3Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A checksum's value as S3 shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct S3Value {
    pub algorithm: S3Algorithm,
    /// The binary value (a CRC big-endian).
    pub value: Vec<u8>,
    /// `Some(N)`: a composite value of a multipart upload of N parts.
    pub parts: Option<u64>,
}

impl S3Value {
    /// The ETag it is, if it is the MD5 one.
    pub fn as_etag(&self) -> Option<crate::etag::Etag> {
        (self.algorithm == S3Algorithm::Md5).then(|| crate::etag::Etag {
            digest: self.value.as_slice().try_into().unwrap_or([0; 16]),
            parts: self.parts,
        })
    }

    /// The type of checksum it is: composite when it has a part count.
    pub fn checksum_type(&self) -> ChecksumType {
        match self.parts {
            Some(_) => ChecksumType::Composite,
            None => ChecksumType::FullObject,
        }
    }

    /// Parses `VALUE` or `VALUE-N` as S3 shows `algorithm`'s values (hex
    /// for the ETag, base64 for the others), also in double quotes; the
    /// error says what is wrong in one line.
    pub fn parse(algorithm: S3Algorithm, text: &[u8]) -> Result<S3Value, String> {
        let shown = String::from_utf8_lossy(text);
        let text = text
            .strip_prefix(b"\"")
            .and_then(|t| t.strip_suffix(b"\""))
            .unwrap_or(text);
        if algorithm == S3Algorithm::Md5 {
            let etag = crate::etag::Etag::parse(text).ok_or_else(|| {
                format!("invalid ETag '{shown}': give 32 hex digits, optionally followed by -N")
            })?;
            return Ok(S3Value {
                algorithm,
                value: etag.digest.to_vec(),
                parts: etag.parts,
            });
        }
        // Base64 has no '-', so the last one starts the part count.
        let (body, parts) = match text.iter().rposition(|&b| b == b'-') {
            Some(dash) => {
                let count = crate::etag::parse_count(&text[dash + 1..]).ok_or_else(|| {
                    format!(
                        "invalid {} value '{shown}': bad part count",
                        algorithm.api_name()
                    )
                })?;
                (&text[..dash], Some(count))
            }
            None => (text, None),
        };
        let value = BASE64.decode(body).map_err(|_| {
            format!(
                "invalid {} value '{shown}': not base64",
                algorithm.api_name()
            )
        })?;
        if value.len() != algorithm.value_len() {
            return Err(format!(
                "invalid {} value '{shown}': {} bytes, not {}",
                algorithm.api_name(),
                value.len(),
                algorithm.value_len()
            ));
        }
        Ok(S3Value {
            algorithm,
            value,
            parts,
        })
    }
}

impl fmt::Display for S3Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.algorithm == S3Algorithm::Md5 {
            let mut hex = Vec::with_capacity(32);
            push_hex(&mut hex, &self.value);
            f.write_str(&String::from_utf8_lossy(&hex))?;
        } else {
            f.write_str(&BASE64.encode(&self.value))?;
        }
        match self.parts {
            Some(parts) => write!(f, "-{parts}"),
            None => Ok(()),
        }
    }
}

/// Appends the line `linerate etag --checksum` prints for `name`:
/// `TAG (NAME) = VALUE`, the tag S3's API name (`CRC64NVME`, `ETag`), the
/// name escaped as md5sum escapes names on its BSD lines.
pub fn push_line(out: &mut Vec<u8>, value: &S3Value, name: &[u8]) {
    let escaped = crate::escape::needs_escape(name);
    if escaped {
        out.push(b'\\');
    }
    out.extend_from_slice(value.algorithm.api_name().as_bytes());
    out.extend_from_slice(b" (");
    if escaped {
        crate::escape::push_escaped(out, name);
    } else {
        out.extend_from_slice(name);
    }
    out.extend_from_slice(b") = ");
    out.extend_from_slice(value.to_string().as_bytes());
    out.push(b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_tagged_with_the_api_name_and_escaped() {
        let value = S3Value {
            algorithm: S3Algorithm::Crc32c,
            value: vec![0, 0, 0, 1],
            parts: Some(2),
        };
        let mut out = Vec::new();
        push_line(&mut out, &value, b"a b");
        push_line(&mut out, &value, b"new\nline");
        assert_eq!(
            out,
            b"CRC32C (a b) = AAAAAQ==-2\n\\CRC32C (new\\nline) = AAAAAQ==-2\n"
        );
    }

    #[test]
    fn names_round_trip_in_every_spelling() {
        for algorithm in S3Algorithm::ALL {
            assert_eq!(S3Algorithm::from_name(algorithm.name()), Some(algorithm));
            assert_eq!(
                S3Algorithm::from_name(algorithm.api_name()),
                Some(algorithm)
            );
        }
        assert_eq!(S3Algorithm::from_name("SHA-256"), Some(S3Algorithm::Sha256));
        assert_eq!(S3Algorithm::from_name("crc64"), None);
        for kind in [ChecksumType::FullObject, ChecksumType::Composite] {
            assert_eq!(ChecksumType::from_name(kind.name()), Some(kind));
            assert_eq!(ChecksumType::from_name(kind.api_name()), Some(kind));
        }
    }

    #[test]
    fn types_as_s3_allows_them() {
        use ChecksumType::*;
        use S3Algorithm::*;
        let full: Vec<_> = S3Algorithm::ALL
            .into_iter()
            .filter(|a| a.supports(FullObject))
            .collect();
        assert_eq!(full, [Crc64Nvme, Crc32c, Crc32]);
        let composite: Vec<_> = S3Algorithm::ALL
            .into_iter()
            .filter(|a| a.supports(Composite))
            .collect();
        assert_eq!(composite, [Md5, Crc32c, Crc32, Sha1, Sha256]);
        for algorithm in S3Algorithm::ALL {
            assert!(algorithm.supports(algorithm.default_type()));
        }
    }

    #[test]
    fn values_parse_and_print_as_s3_shows_them() {
        let sha = S3Value::parse(
            S3Algorithm::Sha256,
            b"47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",
        )
        .expect("sha256 of nothing");
        assert_eq!(sha.value[..4], [0xe3, 0xb0, 0xc4, 0x42]);
        assert_eq!(sha.parts, None);
        assert_eq!(sha.checksum_type(), ChecksumType::FullObject);
        let etag = S3Value::parse(S3Algorithm::Md5, b"\"d41d8cd98f00b204e9800998ecf8427e-2\"")
            .expect("etag");
        assert_eq!(etag.to_string(), "d41d8cd98f00b204e9800998ecf8427e-2");
        for (algorithm, bad) in [
            (S3Algorithm::Crc32, &b"AAAA"[..]),
            (S3Algorithm::Crc32, b"AAAAAA==-0"),
            (S3Algorithm::Crc32, b"AAAAAA==-x"),
            (S3Algorithm::Crc64Nvme, b"AAAAAA=="),
            (S3Algorithm::Sha1, b"!!!"),
            (S3Algorithm::Md5, b"abc"),
        ] {
            let error = S3Value::parse(algorithm, bad).expect_err("bad value");
            assert!(error.contains(&*String::from_utf8_lossy(bad)), "{error}");
        }
    }
}
