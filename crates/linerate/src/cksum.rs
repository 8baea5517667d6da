//! The functions GNU `cksum -a` offers (coreutils 9.1): the three legacy
//! checksums (`sysv` and `bsd`, as `sum -s` and `sum -r`; `crc`, POSIX
//! `cksum`'s CRC with the length appended; and coreutils 9.6's `crc32b`,
//! zlib's CRC-32) and the digests md5, sha1,
//! sha224, sha256, sha384, sha512, blake2b (any whole number of bytes up to
//! 64) and sm3. The digests other than MD5 are well-kept crates' (RustCrypto's
//! SHA-1, SHA-2 with SHA-NI where the CPU has it, chosen at run time, and
//! SM3; `blake2b_simd`, whose output length is set at run time); MD5 is
//! linerate's own.
//!
//! ```
//! use linerate::cksum::{CksumAlgorithm, CksumValue};
//!
//! let mut h = CksumAlgorithm::Crc.hasher();
//! h.update(b"abc");
//! // `printf abc | cksum` prints "1219131554 3".
//! assert_eq!(h.finalize(), CksumValue::Sum { sum: 1_219_131_554, bytes: 3 });
//! ```

use std::fmt;

use digest::Digest as _;

use crate::Md5;

/// One of cksum's functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CksumAlgorithm {
    /// System V's `sum -s`: the byte sum folded to 16 bits, 512-byte blocks.
    Sysv,
    /// BSD's `sum -r`: a 16-bit rotating sum, 1024-byte blocks.
    Bsd,
    /// POSIX `cksum`: CRC-32/CKSUM of the data followed by its length.
    Crc,
    /// coreutils 9.6's `crc32b`: CRC-32/ISO-HDLC (zlib's, gzip's) of the
    /// data alone.
    Crc32b,
    Md5,
    Sha1,
    Sha224,
    Sha256,
    Sha384,
    Sha512,
    /// BLAKE2b with a digest of this many bytes (1 to 64).
    Blake2b(usize),
    Sm3,
}

/// A finished value: a legacy checksum with the byte count it prints
/// blocks or bytes from, or a digest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CksumValue {
    Sum { sum: u32, bytes: u64 },
    Digest(Vec<u8>),
}

impl CksumAlgorithm {
    /// The names `-a` takes, in `--help`'s order.
    pub const NAMES: [&'static str; 12] = [
        "sysv", "bsd", "crc", "crc32b", "md5", "sha1", "sha224", "sha256", "sha384", "sha512",
        "blake2b", "sm3",
    ];

    /// Parses `-a NAME` (exact, lower case, as cksum does); `blake2b` is
    /// the 512-bit one until [`with_length`](Self::with_length).
    pub fn from_name(name: &str) -> Option<CksumAlgorithm> {
        Some(match name {
            "sysv" => CksumAlgorithm::Sysv,
            "bsd" => CksumAlgorithm::Bsd,
            "crc" => CksumAlgorithm::Crc,
            "crc32b" => CksumAlgorithm::Crc32b,
            "md5" => CksumAlgorithm::Md5,
            "sha1" => CksumAlgorithm::Sha1,
            "sha224" => CksumAlgorithm::Sha224,
            "sha256" => CksumAlgorithm::Sha256,
            "sha384" => CksumAlgorithm::Sha384,
            "sha512" => CksumAlgorithm::Sha512,
            "blake2b" => CksumAlgorithm::Blake2b(64),
            "sm3" => CksumAlgorithm::Sm3,
            _ => return None,
        })
    }

    /// BLAKE2b of `bits` bits (a multiple of 8, 8 to 512); other
    /// functions have no length to set.
    pub fn with_length(self, bits: usize) -> Option<CksumAlgorithm> {
        match self {
            CksumAlgorithm::Blake2b(_) if bits.is_multiple_of(8) && (8..=512).contains(&bits) => {
                Some(CksumAlgorithm::Blake2b(bits / 8))
            }
            _ => None,
        }
    }

    /// Whether it is one of the legacy checksums (printed as numbers).
    pub fn is_legacy(self) -> bool {
        matches!(
            self,
            CksumAlgorithm::Sysv
                | CksumAlgorithm::Bsd
                | CksumAlgorithm::Crc
                | CksumAlgorithm::Crc32b
        )
    }

    /// The tag of a BSD-style line (`SHA256`, `BLAKE2b`, `BLAKE2b-256`).
    pub fn tag(self) -> String {
        match self {
            CksumAlgorithm::Sysv => "SYSV".into(),
            CksumAlgorithm::Bsd => "BSD".into(),
            CksumAlgorithm::Crc => "CRC".into(),
            CksumAlgorithm::Crc32b => "CRC32B".into(),
            CksumAlgorithm::Md5 => "MD5".into(),
            CksumAlgorithm::Sha1 => "SHA1".into(),
            CksumAlgorithm::Sha224 => "SHA224".into(),
            CksumAlgorithm::Sha256 => "SHA256".into(),
            CksumAlgorithm::Sha384 => "SHA384".into(),
            CksumAlgorithm::Sha512 => "SHA512".into(),
            CksumAlgorithm::Blake2b(64) => "BLAKE2b".into(),
            CksumAlgorithm::Blake2b(bytes) => format!("BLAKE2b-{}", bytes * 8),
            CksumAlgorithm::Sm3 => "SM3".into(),
        }
    }

    /// Bytes of a digest (none for the legacy checksums).
    pub fn digest_len(self) -> usize {
        match self {
            CksumAlgorithm::Sysv
            | CksumAlgorithm::Bsd
            | CksumAlgorithm::Crc
            | CksumAlgorithm::Crc32b => 0,
            CksumAlgorithm::Md5 => 16,
            CksumAlgorithm::Sha1 => 20,
            CksumAlgorithm::Sha224 => 28,
            CksumAlgorithm::Sha256 | CksumAlgorithm::Sm3 => 32,
            CksumAlgorithm::Sha384 => 48,
            CksumAlgorithm::Sha512 => 64,
            CksumAlgorithm::Blake2b(bytes) => bytes,
        }
    }

    /// A state to feed the data to.
    pub fn hasher(self) -> CksumHasher {
        let state = match self {
            CksumAlgorithm::Sysv => State::Sysv(0),
            CksumAlgorithm::Bsd => State::Bsd(0),
            CksumAlgorithm::Crc => {
                State::Crc(crc_fast::Digest::new(crc_fast::CrcAlgorithm::Crc32Cksum))
            }
            CksumAlgorithm::Crc32b => {
                State::Crc32b(crate::crc::Crc::new(crate::crc::CrcAlgorithm::Crc32))
            }
            CksumAlgorithm::Md5 => State::Md5(Md5::new()),
            CksumAlgorithm::Sha1 => State::Sha1(sha1::Sha1::new()),
            CksumAlgorithm::Sha224 => State::Sha224(sha2::Sha224::new()),
            CksumAlgorithm::Sha256 => State::Sha256(sha2::Sha256::new()),
            CksumAlgorithm::Sha384 => State::Sha384(sha2::Sha384::new()),
            CksumAlgorithm::Sha512 => State::Sha512(sha2::Sha512::new()),
            CksumAlgorithm::Blake2b(bytes) => State::Blake2b(Box::new(
                blake2b_simd::Params::new()
                    .hash_length(bytes.clamp(1, 64))
                    .to_state(),
            )),
            CksumAlgorithm::Sm3 => State::Sm3(sm3::Sm3::new()),
        };
        CksumHasher { state, bytes: 0 }
    }
}

impl fmt::Display for CksumAlgorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.tag())
    }
}

enum State {
    Sysv(u64),
    Bsd(u16),
    Crc(crc_fast::Digest),
    Crc32b(crate::crc::Crc),
    Md5(Md5),
    Sha1(sha1::Sha1),
    Sha224(sha2::Sha224),
    Sha256(sha2::Sha256),
    Sha384(sha2::Sha384),
    Sha512(sha2::Sha512),
    Blake2b(Box<blake2b_simd::State>),
    Sm3(sm3::Sm3),
}

/// One of cksum's functions being computed.
pub struct CksumHasher {
    state: State,
    bytes: u64,
}

impl fmt::Debug for CksumHasher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CksumHasher")
            .field("bytes", &self.bytes)
            .finish()
    }
}

impl CksumHasher {
    /// The next bytes.
    pub fn update(&mut self, data: &[u8]) {
        self.bytes += data.len() as u64;
        match self.state {
            // The CRCs run at memory speed; the others are slower than
            // memory and get their next page prefetched.
            State::Crc(_) | State::Crc32b(_) => self.absorb(data),
            _ => crate::cpu::in_pages(data, |page| self.absorb(page)),
        }
    }

    fn absorb(&mut self, data: &[u8]) {
        match &mut self.state {
            // Wide enough not to overflow before 2^56 bytes; folded at the end.
            State::Sysv(sum) => *sum += data.iter().map(|&b| u64::from(b)).sum::<u64>(),
            State::Bsd(sum) => {
                for &b in data {
                    *sum = sum.rotate_right(1).wrapping_add(u16::from(b));
                }
            }
            State::Crc(crc) => crc.update(data),
            State::Crc32b(crc) => crc.update(data),
            State::Md5(h) => h.update(data),
            State::Sha1(h) => digest::Digest::update(h, data),
            State::Sha224(h) => digest::Digest::update(h, data),
            State::Sha256(h) => digest::Digest::update(h, data),
            State::Sha384(h) => digest::Digest::update(h, data),
            State::Sha512(h) => digest::Digest::update(h, data),
            State::Blake2b(h) => {
                h.update(data);
            }
            State::Sm3(h) => digest::Digest::update(h, data),
        }
    }

    pub fn finalize(self) -> CksumValue {
        let bytes = self.bytes;
        let digest = |d: &[u8]| CksumValue::Digest(d.to_vec());
        match self.state {
            State::Sysv(sum) => {
                // sum -s: the sum folded twice into 16 bits.
                let r = (sum & 0xffff) + ((sum >> 16) & 0xffff) + (sum >> 32);
                let folded = (r & 0xffff) + (r >> 16);
                CksumValue::Sum {
                    sum: folded as u32,
                    bytes,
                }
            }
            State::Bsd(sum) => CksumValue::Sum {
                sum: u32::from(sum),
                bytes,
            },
            State::Crc(mut crc) => {
                // The length follows the data, least significant byte
                // first, as many bytes as it needs.
                let mut len = bytes;
                let mut tail = Vec::new();
                while len > 0 {
                    tail.push(len as u8);
                    len >>= 8;
                }
                crc.update(&tail);
                CksumValue::Sum {
                    sum: crc.finalize() as u32,
                    bytes,
                }
            }
            State::Crc32b(crc) => CksumValue::Sum {
                sum: crc.finalize() as u32,
                bytes,
            },
            State::Md5(h) => digest(&h.finalize()),
            State::Sha1(h) => digest(&h.finalize()),
            State::Sha224(h) => digest(&h.finalize()),
            State::Sha256(h) => digest(&h.finalize()),
            State::Sha384(h) => digest(&h.finalize()),
            State::Sha512(h) => digest(&h.finalize()),
            State::Blake2b(h) => digest(h.finalize().as_bytes()),
            State::Sm3(h) => digest(&h.finalize()),
        }
    }
}

/// A function whose value is a digest printed in a checksum line (`HEX
/// NAME`, `TAG (NAME) = HEX`): linerate's MD5 and MD5-P/K, or one of
/// cksum's digests (not its legacy sums). What `linerate sum -a` takes and
/// `sum -c` reads tags of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DigestAlgorithm {
    /// MD5 or MD5-P/K (MD5 is always this, never `Cksum(Md5)`).
    Hash(crate::HashAlgorithm),
    /// SHA-1, SHA-2, BLAKE2b or SM3.
    Cksum(CksumAlgorithm),
}

impl Default for DigestAlgorithm {
    fn default() -> DigestAlgorithm {
        DigestAlgorithm::Hash(crate::HashAlgorithm::Md5)
    }
}

impl DigestAlgorithm {
    /// Parses a name: `md5`, `md5pK`, `sha1`, `sha224`, `sha256`,
    /// `sha384`, `sha512`, `blake2b`, `sm3` (either case).
    pub fn from_name(name: &[u8]) -> Result<DigestAlgorithm, crate::registry::UnknownAlgorithm> {
        let lower = String::from_utf8_lossy(name).to_ascii_lowercase();
        let md5p_k = lower
            .strip_prefix("md5p")
            .is_some_and(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()));
        if lower == "md5" || md5p_k {
            // An MD5-P/K of a bad K gets MD5-P/K's own message.
            return crate::HashAlgorithm::from_name(name).map(DigestAlgorithm::Hash);
        }
        match CksumAlgorithm::from_name(&lower) {
            Some(algorithm) if !algorithm.is_legacy() => Ok(DigestAlgorithm::Cksum(algorithm)),
            _ => Err(crate::registry::UnknownAlgorithm(format!(
                "invalid algorithm '{}': give md5, md5pK ({}, e.g. md5p16), sha1, sha224, \
                 sha256, sha384, sha512, blake2b or sm3",
                String::from_utf8_lossy(name),
                crate::registry::VALID_K
            ))),
        }
    }

    /// The BSD tag: `MD5`, `MD5P16`, `SHA256`, `BLAKE2b-256`.
    pub fn tag(self) -> String {
        match self {
            DigestAlgorithm::Hash(a) => a.tag(),
            DigestAlgorithm::Cksum(a) => a.tag(),
        }
    }

    /// Bytes of a digest.
    pub fn digest_len(self) -> usize {
        match self {
            DigestAlgorithm::Hash(_) => 16,
            DigestAlgorithm::Cksum(a) => a.digest_len(),
        }
    }

    /// The function a BSD tag at the start of `s` names, and the tag's
    /// length: `MD5`, `MD5PK`, or one of cksum's digests' tags
    /// (`BLAKE2b-N` with its length) followed by ` `, `(` or `-`.
    pub fn from_tag_prefix(s: &[u8]) -> Option<(DigestAlgorithm, usize)> {
        if let Some((algorithm, len)) = crate::HashAlgorithm::from_tag_prefix(s) {
            return Some((DigestAlgorithm::Hash(algorithm), len));
        }
        let (algorithm, len) = CksumAlgorithm::tag_with_length_at(s)?;
        Some((DigestAlgorithm::Cksum(algorithm), len))
    }
}

impl CksumAlgorithm {
    /// The digest tags `cksum -c` reads, each with its function.
    const DIGEST_TAGS: [(&'static str, CksumAlgorithm); 8] = [
        ("MD5", CksumAlgorithm::Md5),
        ("SHA1", CksumAlgorithm::Sha1),
        ("SHA224", CksumAlgorithm::Sha224),
        ("SHA256", CksumAlgorithm::Sha256),
        ("SHA384", CksumAlgorithm::Sha384),
        ("SHA512", CksumAlgorithm::Sha512),
        ("BLAKE2b", CksumAlgorithm::Blake2b(64)),
        ("SM3", CksumAlgorithm::Sm3),
    ];

    /// [`tag_at`](Self::tag_at) with BLAKE2b's `-N` read too (a multiple
    /// of 8 up to 512): the function and the tag's whole length.
    pub fn tag_with_length_at(s: &[u8]) -> Option<(CksumAlgorithm, usize)> {
        let (mut algorithm, mut len) = Self::tag_at(s)?;
        if s.get(len) == Some(&b'-') {
            let digits = s[len + 1..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            let bits: usize = std::str::from_utf8(&s[len + 1..len + 1 + digits])
                .ok()?
                .parse()
                .ok()?;
            algorithm = algorithm.with_length(bits)?;
            len += 1 + digits;
        }
        Some((algorithm, len))
    }

    /// The digest tag at the start of `s` (followed by ` `, `(` or `-`, as
    /// cksum requires), its function and the tag's length (BLAKE2b's
    /// `-N` not included).
    pub fn tag_at(s: &[u8]) -> Option<(CksumAlgorithm, usize)> {
        Self::DIGEST_TAGS.iter().find_map(|&(tag, algorithm)| {
            let rest = s.strip_prefix(tag.as_bytes())?;
            matches!(rest.first(), Some(b' ' | b'(' | b'-')).then_some((algorithm, tag.len()))
        })
    }
}
