//! The three CRCs Amazon S3 reports beside its ETag: CRC-32 (ISO-HDLC, the
//! CRC of zlib, gzip and Ethernet), CRC-32C (Castagnoli, iSCSI) and
//! CRC-64/NVME (S3's default checksum since 2025).
//!
//! The folding kernels are the `crc-fast` crate's (carry-less multiply:
//! VPCLMULQDQ with AVX-512 where the CPU has it, PCLMULQDQ otherwise,
//! chosen at run time): measured at the memory's rate on this project's
//! machines (docs/performance.md, "S3 checksums"), so not written again
//! here. What this module adds is the project's names for them and
//! [`combine`], which lets the CRC of a whole file be put together from
//! the CRCs of its parts, hashed on any thread in any order.
//!
//! coreutils' `cksum` (its default, `-a crc`) computes a different CRC
//! (POSIX's, unreflected, with the length appended): not one of these.
//!
//! ```
//! use linerate::crc::{Crc, CrcAlgorithm, combine, crc};
//!
//! // The catalogue's check values: the CRC of "123456789".
//! assert_eq!(crc(CrcAlgorithm::Crc32, b"123456789"), 0xcbf4_3926);
//! assert_eq!(crc(CrcAlgorithm::Crc32c, b"123456789"), 0xe306_9283);
//! assert_eq!(crc(CrcAlgorithm::Crc64Nvme, b"123456789"), 0xae8b_1486_0a79_9888);
//!
//! // Streamed, or put together from the CRCs of the pieces.
//! let mut c = Crc::new(CrcAlgorithm::Crc32c);
//! c.update(b"1234");
//! c.update(b"56789");
//! let head = crc(CrcAlgorithm::Crc32c, b"1234");
//! let tail = crc(CrcAlgorithm::Crc32c, b"56789");
//! assert_eq!(combine(CrcAlgorithm::Crc32c, head, tail, 5), c.finalize());
//! ```

use std::fmt;

/// One of the CRCs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CrcAlgorithm {
    /// CRC-32/ISO-HDLC: polynomial 0x04C11DB7, reflected (zlib's `crc32`).
    Crc32,
    /// CRC-32/ISCSI: polynomial 0x1EDC6F41, reflected (SSE4.2's `crc32`).
    Crc32c,
    /// CRC-64/NVME: polynomial 0xAD93D23594C93659, reflected.
    Crc64Nvme,
}

impl CrcAlgorithm {
    /// Every CRC, widest first.
    pub const ALL: [CrcAlgorithm; 3] = [
        CrcAlgorithm::Crc64Nvme,
        CrcAlgorithm::Crc32c,
        CrcAlgorithm::Crc32,
    ];

    /// Bytes of the CRC's value (4 or 8), as S3 writes it: big-endian.
    pub fn width(self) -> usize {
        match self {
            CrcAlgorithm::Crc32 | CrcAlgorithm::Crc32c => 4,
            CrcAlgorithm::Crc64Nvme => 8,
        }
    }

    /// The catalogue's name (`CRC-64/NVME`).
    pub fn label(self) -> &'static str {
        match self {
            CrcAlgorithm::Crc32 => "CRC-32/ISO-HDLC",
            CrcAlgorithm::Crc32c => "CRC-32/ISCSI",
            CrcAlgorithm::Crc64Nvme => "CRC-64/NVME",
        }
    }

    fn kernel(self) -> crc_fast::CrcAlgorithm {
        match self {
            CrcAlgorithm::Crc32 => crc_fast::CrcAlgorithm::Crc32IsoHdlc,
            CrcAlgorithm::Crc32c => crc_fast::CrcAlgorithm::Crc32Iscsi,
            CrcAlgorithm::Crc64Nvme => crc_fast::CrcAlgorithm::Crc64Nvme,
        }
    }
}

impl fmt::Display for CrcAlgorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// A CRC being computed over data given in pieces.
#[derive(Clone)]
pub struct Crc {
    algorithm: CrcAlgorithm,
    state: crc_fast::Digest,
}

impl fmt::Debug for Crc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Crc")
            .field("algorithm", &self.algorithm)
            .field("bytes", &self.state.get_amount())
            .finish()
    }
}

impl Crc {
    /// The CRC of nothing yet.
    pub fn new(algorithm: CrcAlgorithm) -> Crc {
        Crc {
            algorithm,
            state: crc_fast::Digest::new(algorithm.kernel()),
        }
    }

    pub fn algorithm(&self) -> CrcAlgorithm {
        self.algorithm
    }

    /// Adds `data` after what came before.
    pub fn update(&mut self, data: &[u8]) {
        self.state.update(data);
    }

    /// Bytes given so far.
    pub fn len(&self) -> u64 {
        self.state.get_amount()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The CRC of everything given (the state is kept: more may follow).
    pub fn finalize(&self) -> u64 {
        self.state.finalize()
    }
}

/// The CRC of `data`.
pub fn crc(algorithm: CrcAlgorithm, data: &[u8]) -> u64 {
    crc_fast::checksum(algorithm.kernel(), data)
}

/// The CRC of `A || B` from the CRC of `A`, the CRC of `B` and `B`'s
/// length, without the data.
pub fn combine(algorithm: CrcAlgorithm, crc_a: u64, crc_b: u64, len_b: u64) -> u64 {
    crc_fast::checksum_combine(algorithm.kernel(), crc_a, crc_b, len_b)
}

/// `value` as S3 writes a CRC: big-endian, in the CRC's width.
pub fn to_be_bytes(algorithm: CrcAlgorithm, value: u64) -> Vec<u8> {
    let bytes = value.to_be_bytes();
    bytes[8 - algorithm.width()..].to_vec()
}
