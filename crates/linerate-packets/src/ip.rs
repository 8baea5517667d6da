//! IPv4 and IPv6 headers: the packet's extent, where an AH goes (RFC 4302
//! 3.1.1 with RFC 8200's header order) or where it is, and the length and
//! checksum fields `sign` rewrites.

use crate::problem::{Kind, Problem};
use linerate::checksum::Checksum;

/// IP protocol / next header numbers.
pub const HOP_BY_HOP: u8 = 0;
pub const ROUTING: u8 = 43;
pub const FRAGMENT: u8 = 44;
pub const AH: u8 = 51;
pub const DEST_OPTS: u8 = 60;

pub const IPV6_HEADER: usize = 40;

/// The IP version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    V4,
    V6,
}

/// What `sign` and `verify` need to know about an IP packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub version: Version,
    /// The IP packet's length (IPv4 total length, IPv6 40 + payload
    /// length); bytes after it in the frame are link-layer padding.
    pub len: usize,
    /// Where an AH is inserted: after the IPv4 header and its options, or
    /// after IPv6's hop-by-hop, routing (and destination options before a
    /// routing header) and fragment headers.
    pub insert_at: usize,
    /// The byte that names the header at `insert_at` (IPv4's protocol, or
    /// the next-header field of the extension header before it).
    pub next_header_at: usize,
    /// The AH's offset, if the packet carries one.
    pub ah_at: Option<usize>,
    /// An IPv4 fragment (MF set or offset non-zero), or an IPv6 Fragment
    /// header.
    pub fragment: bool,
}

/// Reads the IP header(s) at the start of `packet` (the frame from the IP
/// header on, link padding included).
pub fn parse(packet: &[u8]) -> Result<Layout, Problem> {
    match packet.first().map(|b| b >> 4) {
        Some(4) => parse_v4(packet),
        Some(6) => parse_v6(packet),
        Some(v) => Err(Problem::malformed(format!("IP version {v}"))),
        None => Err(Problem::truncated("empty IP packet")),
    }
}

fn be16(b: &[u8], at: usize) -> usize {
    usize::from(u16::from_be_bytes([b[at], b[at + 1]]))
}

fn parse_v4(p: &[u8]) -> Result<Layout, Problem> {
    if p.len() < 20 {
        return Err(Problem::truncated("truncated IPv4 header"));
    }
    let ihl = usize::from(p[0] & 0x0f) * 4;
    if ihl < 20 {
        return Err(Problem::malformed(format!(
            "IPv4 header length {ihl} below 20"
        )));
    }
    let total = be16(p, 2);
    if total < ihl {
        return Err(Problem::malformed(format!(
            "IPv4 total length {total} shorter than its header ({ihl})"
        )));
    }
    if p.len() < ihl {
        return Err(Problem::truncated("truncated IPv4 header"));
    }
    if p.len() < total {
        return Err(Problem::truncated(format!(
            "truncated IPv4 packet ({} of {total} bytes)",
            p.len()
        )));
    }
    let flags_offset = be16(p, 6);
    let fragment = flags_offset & 0x3fff != 0;
    Ok(Layout {
        version: Version::V4,
        len: total,
        insert_at: ihl,
        next_header_at: 9,
        ah_at: (p[9] == AH).then_some(ihl),
        fragment,
    })
}

/// One IPv6 extension header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExtHeader {
    pub kind: u8,
    pub at: usize,
    pub len: usize,
}

/// The extension headers of an IPv6 packet of length `len`, in order, up to
/// the upper layer (an AH included; nothing after ESP or "no next header").
pub fn ipv6_headers(p: &[u8], len: usize) -> Result<Vec<ExtHeader>, Problem> {
    let mut headers = Vec::new();
    let mut kind = p[6];
    let mut at = IPV6_HEADER;
    loop {
        let hlen = match kind {
            HOP_BY_HOP | ROUTING | DEST_OPTS => match p.get(at + 1) {
                Some(&l) if at + 2 <= len => (usize::from(l) + 1) * 8,
                _ => return Err(Problem::truncated("truncated IPv6 extension header")),
            },
            FRAGMENT => 8,
            AH => match p.get(at + 1) {
                Some(&l) if at + 2 <= len => (usize::from(l) + 2) * 4,
                _ => return Err(Problem::truncated("truncated AH")),
            },
            _ => return Ok(headers),
        };
        if at + hlen > len {
            return Err(Problem::truncated(format!(
                "truncated IPv6 extension header {kind} ({hlen} bytes at {at})"
            )));
        }
        headers.push(ExtHeader {
            kind,
            at,
            len: hlen,
        });
        if kind == HOP_BY_HOP && at != IPV6_HEADER {
            return Err(Problem::malformed("hop-by-hop header not first"));
        }
        kind = p[at];
        at += hlen;
    }
}

fn parse_v6(p: &[u8]) -> Result<Layout, Problem> {
    if p.len() < IPV6_HEADER {
        return Err(Problem::truncated("truncated IPv6 header"));
    }
    let payload = be16(p, 4);
    if payload == 0 {
        return Err(Problem::unsupported(
            "IPv6 payload length 0 (jumbogram) not supported",
        ));
    }
    let len = IPV6_HEADER + payload;
    if p.len() < len {
        return Err(Problem::truncated(format!(
            "truncated IPv6 packet ({} of {len} bytes)",
            p.len()
        )));
    }
    let headers = ipv6_headers(p, len)?;
    let mut layout = Layout {
        version: Version::V6,
        len,
        insert_at: IPV6_HEADER,
        next_header_at: 6,
        ah_at: None,
        fragment: false,
    };
    for h in &headers {
        match h.kind {
            AH => {
                layout.ah_at = Some(h.at);
                break;
            }
            // A destination options header goes before the AH only when a
            // routing header follows it, and then the routing header's
            // end is the later bound anyway.
            DEST_OPTS => {}
            kind => {
                if kind == FRAGMENT {
                    layout.fragment = true;
                }
                layout.insert_at = h.at + h.len;
                layout.next_header_at = h.at;
            }
        }
    }
    Ok(layout)
}

/// The IPv4 header checksum of `header` (its checksum field, bytes 10 and
/// 11, read as zero).
pub fn ipv4_checksum(header: &[u8]) -> u16 {
    let mut sum = Checksum::new();
    sum.update(&header[..header.len().min(10)]);
    sum.update(&[0, 0]);
    sum.update(header.get(12..).unwrap_or_default());
    sum.finish()
}

/// Adds `extra` bytes to the IP packet's length field(s) and, for IPv4,
/// rewrites the header checksum.
pub fn grow(p: &mut [u8], version: Version, extra: usize) -> Result<(), Problem> {
    let at = match version {
        Version::V4 => 2,
        Version::V6 => 4,
    };
    let new = be16(p, at) + extra;
    let Ok(new) = u16::try_from(new) else {
        return Err(Problem::new(
            Kind::Unsupported,
            format!("packet too long for the added header ({new} bytes)"),
        ));
    };
    p[at..at + 2].copy_from_slice(&new.to_be_bytes());
    if version == Version::V4 {
        let ihl = usize::from(p[0] & 0x0f) * 4;
        let sum = ipv4_checksum(&p[..ihl]);
        p[10..12].copy_from_slice(&sum.to_be_bytes());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v6_insertion_point() {
        // IPv6, hop-by-hop (8), destination options (8) then UDP.
        let mut p = vec![0u8; 40 + 8 + 8 + 8];
        p[0] = 0x60;
        p[4..6].copy_from_slice(&24u16.to_be_bytes());
        p[6] = HOP_BY_HOP;
        p[40] = DEST_OPTS;
        p[48] = 17;
        let l = parse(&p).unwrap();
        assert_eq!((l.insert_at, l.next_header_at, l.ah_at), (48, 40, None));
        // A routing header after the destination options moves it.
        p[48] = ROUTING;
        p[56] = 17;
        let l = parse(&p).unwrap();
        assert_eq!((l.insert_at, l.next_header_at), (64, 56));
    }
}
