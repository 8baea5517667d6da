//! TCP segments inside IP packets: where the segment starts, its header
//! and options (RFC 9293 3.1, checked strictly: an option that overflows
//! the data offset or has an impossible length is malformed), the
//! pseudo-header that both the checksum and RFC 2385's digest begin with,
//! and the checksum itself.

use linerate::checksum::Checksum;

use crate::ip::{self, Layout, Version};
use crate::problem::{Kind, Problem};

/// IP protocol number of TCP.
pub const TCP: u8 = 6;
/// The fixed header, before the options.
pub const HEADER: usize = 20;
/// The longest header: a data offset of 15 words.
pub const MAX_HEADER: usize = 60;
/// Where the checksum is in the header.
pub const CHECKSUM_AT: usize = 16;

pub const OPT_EOL: u8 = 0;
pub const OPT_NOP: u8 = 1;
/// RFC 2385's MD5 signature option.
pub const OPT_MD5: u8 = 19;
/// RFC 5925's authentication option.
pub const OPT_AO: u8 = 29;

/// A TCP segment in an IP packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    /// Offset of the TCP header in the IP packet.
    pub at: usize,
    /// Header and payload, to the end of the IP packet.
    pub len: usize,
    /// Header with its options (the data offset times 4).
    pub header_len: usize,
}

/// One option of a header: its kind, its offset in the header and its
/// length (1 for NOP).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpOption {
    pub kind: u8,
    pub at: usize,
    pub len: usize,
}

/// The upper-layer protocol of `ip` and where its header starts.
fn upper_layer(ip: &[u8], layout: &Layout) -> Result<(u8, usize), Problem> {
    match layout.version {
        Version::V4 => Ok((ip[9], usize::from(ip[0] & 0x0f) * 4)),
        Version::V6 => {
            let headers = ip::ipv6_headers(ip, layout.len)?;
            Ok(match headers.last() {
                Some(last) => (ip[last.at], last.at + last.len),
                None => (ip[6], ip::IPV6_HEADER),
            })
        }
    }
}

/// The TCP segment of `ip` (the IP packet, `layout.len` bytes at least):
/// `Ok(None)` if the packet carries no TCP, an error for a fragment or a
/// header that does not fit.
pub fn locate(ip: &[u8], layout: &Layout) -> Result<Option<Segment>, Problem> {
    let (protocol, at) = upper_layer(ip, layout)?;
    if protocol != TCP {
        return Ok(None);
    }
    if layout.fragment {
        return Err(Problem::new(
            Kind::Fragment,
            "fragment: TCP options are read from whole segments only",
        ));
    }
    let len = layout.len.saturating_sub(at);
    if len < HEADER {
        return Err(Problem::truncated(format!(
            "truncated TCP header ({len} bytes)"
        )));
    }
    let header_len = usize::from(ip[at + 12] >> 4) * 4;
    if header_len < HEADER {
        return Err(Problem::malformed(format!(
            "TCP data offset {header_len} below 20"
        )));
    }
    if header_len > len {
        return Err(Problem::truncated(format!(
            "TCP data offset {header_len} past the segment's {len} bytes"
        )));
    }
    Ok(Some(Segment {
        at,
        len,
        header_len,
    }))
}

/// The options of `header` (the TCP header, options included), up to the
/// end-of-list option or the data offset.
pub fn options(header: &[u8]) -> Result<Vec<TcpOption>, Problem> {
    let mut found = Vec::new();
    let mut at = HEADER;
    while at < header.len() {
        let kind = header[at];
        match kind {
            OPT_EOL => break,
            OPT_NOP => {
                found.push(TcpOption { kind, at, len: 1 });
                at += 1;
            }
            _ => {
                let Some(&len) = header.get(at + 1) else {
                    return Err(Problem::malformed(format!(
                        "TCP option {kind} cut by the data offset"
                    )));
                };
                let len = usize::from(len);
                if len < 2 {
                    return Err(Problem::malformed(format!(
                        "TCP option {kind} of length {len}"
                    )));
                }
                if at + len > header.len() {
                    return Err(Problem::malformed(format!(
                        "TCP option {kind} of {len} bytes overflows the data offset ({} bytes)",
                        header.len()
                    )));
                }
                found.push(TcpOption { kind, at, len });
                at += len;
            }
        }
    }
    Ok(found)
}

/// The one option of `kind` among `options`: `None` if there is none, an
/// error if there are several.
pub fn only(options: &[TcpOption], kind: u8, name: &str) -> Result<Option<TcpOption>, Problem> {
    let mut of_kind = options.iter().filter(|o| o.kind == kind);
    let first = of_kind.next().copied();
    if of_kind.next().is_some() {
        return Err(Problem::malformed(format!("two {name} options")));
    }
    Ok(first)
}

/// RFC 5925 section 2.2: a segment carries TCP-AO or TCP-MD5, never both;
/// one with both is malformed, whichever algorithm signs or verifies it.
pub fn one_authentication_option(options: &[TcpOption]) -> Result<(), Problem> {
    let has = |kind| options.iter().any(|o| o.kind == kind);
    if has(OPT_MD5) && has(OPT_AO) {
        return Err(Problem::malformed(
            "both a TCP-AO and a TCP-MD5 option (RFC 5925 section 2.2 allows one)",
        ));
    }
    Ok(())
}

/// Appends the pseudo-header of a segment of `segment_len` bytes in `ip`
/// (RFC 9293 3.1 for IPv4, RFC 8200 8.1 for IPv6: the addresses as in the
/// header) to `out`.
pub fn pseudo_header(ip: &[u8], version: Version, segment_len: usize, out: &mut Vec<u8>) {
    match version {
        Version::V4 => {
            out.extend_from_slice(&ip[12..20]);
            out.extend_from_slice(&[0, TCP]);
            out.extend_from_slice(&(segment_len as u16).to_be_bytes());
        }
        Version::V6 => {
            out.extend_from_slice(&ip[8..40]);
            out.extend_from_slice(&(segment_len as u32).to_be_bytes());
            out.extend_from_slice(&[0, 0, 0, TCP]);
        }
    }
}

/// `10.0.0.1:179 > 10.0.0.2:40000` or `[fd00::1]:179 > [fd00::2]:40000`.
pub fn describe(ip: &[u8], version: Version, seg: &Segment) -> String {
    let port = |at: usize| u16::from_be_bytes([ip[seg.at + at], ip[seg.at + at + 1]]);
    let (src, dst) = match version {
        Version::V4 => {
            let a = |at: usize| {
                let b: [u8; 4] = ip[at..at + 4].try_into().expect("4 bytes");
                std::net::Ipv4Addr::from(b).to_string()
            };
            (a(12), a(16))
        }
        Version::V6 => {
            let a = |at: usize| {
                let b: [u8; 16] = ip[at..at + 16].try_into().expect("16 bytes");
                format!("[{}]", std::net::Ipv6Addr::from(b))
            };
            (a(8), a(24))
        }
    };
    format!("{src}:{} > {dst}:{}", port(0), port(2))
}

/// Appends what both TCP-MD5 and TCP-AO MAC first: the pseudo-header of
/// `seg` in `ip`, then its fixed 20-byte header with the checksum read as
/// zero.
pub fn push_pseudo_and_fixed_header(ip: &[u8], version: Version, seg: &Segment, out: &mut Vec<u8>) {
    pseudo_header(ip, version, seg.len, out);
    let header = &ip[seg.at..seg.at + HEADER];
    out.extend_from_slice(&header[..CHECKSUM_AT]);
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(&header[CHECKSUM_AT + 2..]);
}

/// The checksum of `segment` (its checksum field read as zero) under the
/// pseudo-header of `ip`.
pub fn checksum(ip: &[u8], version: Version, segment: &[u8]) -> u16 {
    let mut pseudo = Vec::with_capacity(40);
    pseudo_header(ip, version, segment.len(), &mut pseudo);
    let mut sum = Checksum::new();
    sum.update(&pseudo);
    sum.update(&segment[..CHECKSUM_AT]);
    sum.update(&[0, 0]);
    sum.update(&segment[CHECKSUM_AT + 2..]);
    sum.finish()
}

/// The checksum after `bytes` that were zero when `old` was computed are
/// filled in at an offset of parity `odd` in the segment (RFC 1624's
/// incremental update: the checksum covers the digest that is written
/// last).
pub fn add_to_checksum(old: u16, bytes: &[u8], odd: bool) -> u16 {
    let mut added = Checksum::new();
    if odd {
        added.update(&[0]);
    }
    added.update(bytes);
    let (sum, carry) = (!old).overflowing_add(added.sum());
    !(sum + u16::from(carry))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An IPv4 packet carrying a TCP segment with `options` and `payload`.
    pub(crate) fn v4_segment(options: &[u8], payload: &[u8]) -> Vec<u8> {
        let header_len = HEADER + options.len();
        let total = 20 + header_len + payload.len();
        let mut p = vec![
            0x45, 0, 0, 0, 0, 1, 0x40, 0, 64, TCP, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
        ];
        p[2..4].copy_from_slice(&(total as u16).to_be_bytes());
        let sum = ip::ipv4_checksum(&p);
        p[10..12].copy_from_slice(&sum.to_be_bytes());
        p.extend_from_slice(&[0x00, 0xb3, 0x30, 0x39, 0, 0, 0, 1, 0, 0, 0, 0]);
        p.push(((header_len / 4) as u8) << 4);
        p.extend_from_slice(&[0x18, 0xff, 0xff, 0, 0, 0, 0]);
        p.extend_from_slice(options);
        p.extend_from_slice(payload);
        p
    }

    #[test]
    fn options_are_read_strictly() {
        let ok = v4_segment(&[1, 1, 8, 10, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0], b"x");
        let layout = ip::parse(&ok).unwrap();
        let seg = locate(&ok, &layout).unwrap().unwrap();
        assert_eq!((seg.at, seg.header_len, seg.len), (20, 36, 37));
        let opts = options(&ok[20..56]).unwrap();
        assert_eq!(opts.len(), 3);
        assert_eq!(
            opts[2],
            TcpOption {
                kind: 8,
                at: 22,
                len: 10
            }
        );
        for (bad, why) in [
            (&[19, 18, 0, 0][..], "overflows the data offset"),
            (&[1, 1, 1, 19], "cut by the data offset"),
            (&[5, 1, 0, 0], "of length 1"),
        ] {
            let p = v4_segment(bad, b"");
            let err = options(&p[20..20 + HEADER + bad.len()]).unwrap_err();
            assert!(err.message.contains(why), "{bad:?}: {}", err.message);
        }
        let two = options(&v4_segment(&[19, 2, 19, 2], b"")[20..44]).unwrap();
        assert!(only(&two, 19, "TCP-MD5").is_err());
        assert_eq!(only(&two, 29, "TCP-AO"), Ok(None));
    }

    #[test]
    fn tcp_ao_and_tcp_md5_never_together() {
        let mut both = vec![19, 18];
        both.extend_from_slice(&[0; 16]);
        both.extend_from_slice(&[29, 16, 0, 0]);
        both.extend_from_slice(&[0; 12]);
        both.extend_from_slice(&[1, 1]);
        let found = options(&v4_segment(&both, b"")[20..76]).unwrap();
        let e = one_authentication_option(&found).unwrap_err();
        assert_eq!(e.kind, crate::problem::Kind::Malformed);
        assert!(e.message.contains("RFC 5925 section 2.2"), "{}", e.message);
        let mut md5 = both[..18].to_vec();
        md5.extend_from_slice(&[1, 1]);
        let md5_only = options(&v4_segment(&md5, b"")[20..60]).unwrap();
        assert_eq!(one_authentication_option(&md5_only), Ok(()));
    }

    #[test]
    fn data_offset_out_of_range() {
        let mut p = v4_segment(&[], b"");
        p[32] = 0x40; // 16 bytes
        let layout = ip::parse(&p).unwrap();
        assert!(
            locate(&p, &layout)
                .unwrap_err()
                .message
                .contains("below 20")
        );
        p[32] = 0x60; // 24 bytes of a 20-byte segment
        assert!(
            locate(&p, &layout)
                .unwrap_err()
                .message
                .contains("past the segment")
        );
    }

    #[test]
    fn checksum_and_its_incremental_update() {
        // The checksum over a segment with bytes filled in equals the
        // update of the checksum over the same segment with them zero,
        // at even and odd offsets.
        for at in [24usize, 25] {
            let mut p = v4_segment(&[1; 20], b"payload!");
            for b in &mut p[20 + at..20 + at + 16] {
                *b = 0;
            }
            let zero = checksum(&p, Version::V4, &p[20..]);
            let digest: Vec<u8> = (0..16).map(|i| (i * 37 + 5) as u8).collect();
            p[20 + at..20 + at + 16].copy_from_slice(&digest);
            let whole = checksum(&p, Version::V4, &p[20..]);
            assert_eq!(add_to_checksum(zero, &digest, at % 2 == 1), whole, "{at}");
        }
        // A segment whose checksum is right sums to 0xffff with it.
        let mut p = v4_segment(&[], b"abc");
        let c = checksum(&p, Version::V4, &p[20..]);
        p[36..38].copy_from_slice(&c.to_be_bytes());
        let mut pseudo = Vec::new();
        pseudo_header(&p, Version::V4, p.len() - 20, &mut pseudo);
        let mut all = Checksum::new();
        all.update(&pseudo);
        all.update(&p[20..]);
        assert_eq!(all.sum(), 0xffff);
    }
}
