//! The Authentication Header (RFC 4302 section 2): Next Header, Payload
//! Len (the AH's length in 32-bit words minus 2), Reserved, SPI, Sequence
//! Number, then the ICV padded with zeros so that the whole AH is a
//! multiple of 4 bytes (IPv4) or 8 bytes (IPv6).

use crate::ip::Version;
use crate::problem::Problem;

/// The fixed part before the ICV.
pub const FIXED: usize = 12;

/// The AH's length for an ICV of `icv_len` bytes under IP `version`.
pub fn length(icv_len: usize, version: Version) -> usize {
    let align = match version {
        Version::V4 => 4,
        Version::V6 => 8,
    };
    (FIXED + icv_len).div_ceil(align) * align
}

/// An AH with its ICV field zeroed (filled in once the ICV is known).
pub fn build(next_header: u8, spi: u32, seq: u32, ah_len: usize, out: &mut Vec<u8>) {
    let start = out.len();
    out.push(next_header);
    // ah_len is at most 40 here (a 16-byte ICV padded for IPv6).
    out.push((ah_len / 4 - 2) as u8);
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(&spi.to_be_bytes());
    out.extend_from_slice(&seq.to_be_bytes());
    out.resize(start + ah_len, 0);
}

/// A parsed AH, borrowed from the packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header<'a> {
    pub next_header: u8,
    /// The whole AH's length in bytes.
    pub len: usize,
    pub spi: u32,
    pub seq: u32,
    /// The ICV field, padding included.
    pub icv: &'a [u8],
}

/// Reads the AH at the start of `bytes` (which end where the IP packet
/// ends).
pub fn parse(bytes: &[u8]) -> Result<Header<'_>, Problem> {
    if bytes.len() < FIXED {
        return Err(Problem::truncated("truncated AH"));
    }
    let len = (usize::from(bytes[1]) + 2) * 4;
    if len < FIXED {
        return Err(Problem::malformed(format!("AH length {len} below 12")));
    }
    if len > bytes.len() {
        return Err(Problem::truncated(format!(
            "truncated AH ({} of {len} bytes)",
            bytes.len()
        )));
    }
    let word =
        |at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    Ok(Header {
        next_header: bytes[0],
        len,
        spi: word(4),
        seq: word(8),
        icv: &bytes[FIXED..len],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_and_round_trip() {
        assert_eq!(length(12, Version::V4), 24);
        assert_eq!(length(16, Version::V4), 28);
        assert_eq!(length(16, Version::V6), 32);
        assert_eq!(length(8, Version::V6), 24);
        assert_eq!(length(8, Version::V4), 20);
        let mut out = vec![0xee];
        build(6, 0x1234, 7, 28, &mut out);
        assert_eq!(out.len(), 29);
        let h = parse(&out[1..]).unwrap();
        assert_eq!((h.next_header, h.len, h.spi, h.seq), (6, 28, 0x1234, 7));
        assert_eq!(h.icv, &[0; 16]);
        assert!(parse(&out[1..20]).is_err());
    }
}
