//! The TCP MD5 signature option (RFC 2385), what BGP sessions carry today:
//! option kind 19, 18 bytes, holding MD5 over the pseudo-header, the TCP
//! header without its options and with a zero checksum, the payload, and
//! then the key (the key is the MAC's: [`linerate::MacAlgorithm::TcpMd5`]).
//!
//! Signing inserts the option as Linux sends it (NOP, NOP, kind, length,
//! digest: 20 bytes, first among the options) or, where a segment already
//! carries one, overwrites its digest; the data offset, the IP length and
//! header checksum and the TCP checksum follow. The digest is computed
//! later, in a batch; the TCP checksum, which covers it, is then updated
//! incrementally ([`tcp::add_to_checksum`]).

use crate::ip::{self, Version};
use crate::keys::KeyTable;
use crate::packet::Located;
use crate::problem::{Kind, Problem};
use crate::tcp::{self, OPT_MD5, OPT_NOP, Segment};

/// The option's length: kind, length, 16 bytes of digest.
pub const OPTION_LEN: usize = 18;
/// What signing inserts: two NOPs to keep the header 32-bit aligned, then
/// the option.
pub const INSERTED: usize = 20;

/// A segment's TCP-MD5 place, found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Found {
    pub segment: Segment,
    /// Offset of the digest in the IP packet, if the segment carries the
    /// option.
    pub digest_at: Option<usize>,
    /// Whether the segment carries a TCP-AO option (then without a
    /// TCP-MD5 one): signing would put the two side by side.
    pub beside_ao: bool,
}

/// The TCP segment of a located packet and its TCP-MD5 option: `Ok(None)`
/// if the packet is not TCP; an error for malformed options or two
/// TCP-MD5 options.
pub fn find(ip: &[u8], at: &Located) -> Result<Option<Found>, Problem> {
    let Some(segment) = tcp::locate(ip, &at.layout)? else {
        return Ok(None);
    };
    let header = &ip[segment.at..segment.at + segment.header_len];
    let options = tcp::options(header)?;
    tcp::one_authentication_option(&options)?;
    let digest_at = match tcp::only(&options, OPT_MD5, "TCP-MD5")? {
        Some(o) if o.len != OPTION_LEN => {
            return Err(Problem::malformed(format!(
                "TCP-MD5 option of {} bytes, not {OPTION_LEN}",
                o.len
            )));
        }
        Some(o) => Some(segment.at + o.at + 2),
        None => None,
    };
    let beside_ao = options.iter().any(|o| o.kind == tcp::OPT_AO);
    Ok(Some(Found {
        segment,
        digest_at,
        beside_ao,
    }))
}

/// The key of the located TCP segment's connection in `keys`, or (`Err`)
/// the connection's description where no line matches; `None` if the
/// packet holds no readable TCP segment (signing reports that itself).
pub fn key_for<'k>(
    frame: &[u8],
    at: &Located,
    keys: &'k KeyTable,
) -> Option<Result<&'k [u8], String>> {
    let ip = &frame[at.ip_at..at.ip_at + at.layout.len];
    let segment = tcp::locate(ip, &at.layout).ok()??;
    Some(
        keys.key_for(ip, at.layout.version, &segment)
            .ok_or_else(|| tcp::describe(ip, at.layout.version, &segment)),
    )
}

/// RFC 2385 section 2.0's digest input, but the key: the pseudo-header
/// (with the segment's length), the fixed header with a zero checksum,
/// the payload; into `out` (cleared first).
pub fn digest_input(ip: &[u8], version: Version, segment: &Segment, out: &mut Vec<u8>) {
    out.clear();
    tcp::push_pseudo_and_fixed_header(ip, version, segment, out);
    out.extend_from_slice(&ip[segment.at + segment.header_len..segment.at + segment.len]);
}

/// The segment of `frame` and how many bytes signing it adds: none where
/// it carries the option, [`INSERTED`] where it does not (and there is
/// room).
fn plan(frame: &[u8], at: &Located) -> Result<(Found, usize), Problem> {
    let ip = &frame[at.ip_at..at.ip_at + at.layout.len];
    let Some(found) = find(ip, at)? else {
        return Err(Problem::new(Kind::NotTcp, "not TCP: copied unchanged"));
    };
    if found.digest_at.is_some() {
        return Ok((found, 0));
    }
    if found.beside_ao {
        return Err(Problem::unsupported(
            "carries a TCP-AO option: a TCP-MD5 option beside it is forbidden (RFC 5925 section 2.2)",
        ));
    }
    let header_len = found.segment.header_len;
    if header_len + INSERTED > tcp::MAX_HEADER {
        return Err(Problem::unsupported(format!(
            "no room for the TCP-MD5 option: {} bytes of TCP options already",
            header_len - tcp::HEADER
        )));
    }
    Ok((found, INSERTED))
}

/// How many bytes signing `frame` adds (0 or [`INSERTED`]), or why it
/// cannot be signed.
pub fn growth(frame: &[u8], at: &Located) -> Result<usize, Problem> {
    plan(frame, at).map(|(_, grow)| grow)
}

/// Where a signed segment's digest goes and how its checksum is finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pending {
    /// The digest's offset in the destination buffer.
    pub digest_at: usize,
    /// The TCP checksum's offset in the destination buffer.
    pub checksum_at: usize,
    /// Whether the digest sits at an odd offset of the segment.
    pub odd: bool,
}

/// Appends `frame` signed (digest zero, checksums right for a zero digest)
/// to `dest` and puts its digest input into `input`. On an error `dest`
/// may hold part of the frame.
pub fn build(
    frame: &[u8],
    at: &Located,
    dest: &mut Vec<u8>,
    input: &mut Vec<u8>,
) -> Result<Pending, Problem> {
    let (found, grow) = plan(frame, at)?;
    let base = dest.len();
    let ip_len = at.layout.len + grow;
    let (tcp_at, digest_in_ip) = (found.segment.at, found.digest_at);
    let header_start = at.ip_at + tcp_at;
    let digest_in_ip = match digest_in_ip {
        Some(d) => {
            dest.extend_from_slice(frame);
            d
        }
        None => {
            let insert = header_start + tcp::HEADER;
            dest.reserve(frame.len() + INSERTED);
            dest.extend_from_slice(&frame[..insert]);
            dest.extend_from_slice(&[OPT_NOP, OPT_NOP, OPT_MD5, OPTION_LEN as u8]);
            dest.extend_from_slice(&[0; 16]);
            dest.extend_from_slice(&frame[insert..]);
            let signed = &mut dest[base..];
            signed[header_start + 12] += ((INSERTED / 4) as u8) << 4;
            ip::grow(&mut signed[at.ip_at..], at.layout.version, INSERTED)?;
            tcp_at + tcp::HEADER + 4
        }
    };
    let signed = &mut dest[base..];
    let ip = &mut signed[at.ip_at..at.ip_at + ip_len];
    ip[digest_in_ip..digest_in_ip + 16].fill(0);
    let segment = Segment {
        at: tcp_at,
        len: ip_len - tcp_at,
        header_len: usize::from(ip[tcp_at + 12] >> 4) * 4,
    };
    let sum = tcp::checksum(ip, at.layout.version, &ip[tcp_at..]);
    ip[tcp_at + tcp::CHECKSUM_AT..tcp_at + tcp::CHECKSUM_AT + 2]
        .copy_from_slice(&sum.to_be_bytes());
    digest_input(ip, at.layout.version, &segment, input);
    Ok(Pending {
        digest_at: base + at.ip_at + digest_in_ip,
        checksum_at: base + header_start + tcp::CHECKSUM_AT,
        odd: (digest_in_ip - tcp_at) % 2 == 1,
    })
}

/// Writes `digest` into a buffer built by [`build`] and updates the TCP
/// checksum for it.
pub fn seal(buf: &mut [u8], pending: &Pending, digest: &[u8; 16]) {
    buf[pending.digest_at..pending.digest_at + 16].copy_from_slice(digest);
    let at = pending.checksum_at;
    let old = u16::from_be_bytes([buf[at], buf[at + 1]]);
    let new = tcp::add_to_checksum(old, digest, pending.odd);
    buf[at..at + 2].copy_from_slice(&new.to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ip::{self, Layout};
    use linerate::checksum::Checksum;

    /// An IPv4 or IPv6 packet (raw IP) with a TCP segment.
    fn segment(v6: bool, options: &[u8], payload: &[u8]) -> Vec<u8> {
        let mut tcp = vec![0x00, 0xb3, 0xc0, 0x01, 1, 2, 3, 4, 5, 6, 7, 8];
        tcp.push((((tcp::HEADER + options.len()) / 4) as u8) << 4);
        tcp.extend_from_slice(&[0x18, 0x20, 0x00, 0xaa, 0xbb, 0, 0]);
        tcp.extend_from_slice(options);
        tcp.extend_from_slice(payload);
        let mut p = if v6 {
            let mut h = vec![0x60, 0, 0, 0, 0, 0, tcp::TCP, 64];
            h[4..6].copy_from_slice(&(tcp.len() as u16).to_be_bytes());
            h.extend((0..32).map(|i| i as u8 + 1));
            h
        } else {
            let mut h = vec![0x45, 0, 0, 0, 0, 1, 0x40, 0, 64, tcp::TCP, 0, 0];
            h.extend_from_slice(&[192, 0, 2, 1, 198, 51, 100, 7]);
            h[2..4].copy_from_slice(&((20 + tcp.len()) as u16).to_be_bytes());
            let sum = ip::ipv4_checksum(&h);
            h[10..12].copy_from_slice(&sum.to_be_bytes());
            h
        };
        p.extend_from_slice(&tcp);
        p
    }

    fn located(p: &[u8]) -> Located {
        Located {
            ip_at: 0,
            layout: ip::parse(p).unwrap(),
        }
    }

    /// RFC 2385's digest, written out from the packet's fields.
    fn oracle(p: &[u8], v6: bool, key: &[u8]) -> [u8; 16] {
        let l: Layout = ip::parse(p).unwrap();
        let at = if v6 { 40 } else { 20 };
        let seg = &p[at..l.len];
        let mut m = Vec::new();
        if v6 {
            m.extend_from_slice(&p[8..40]);
            m.extend_from_slice(&(seg.len() as u32).to_be_bytes());
            m.extend_from_slice(&[0, 0, 0, 6]);
        } else {
            m.extend_from_slice(&p[12..20]);
            m.extend_from_slice(&[0, 6]);
            m.extend_from_slice(&(seg.len() as u16).to_be_bytes());
        }
        m.extend_from_slice(&seg[..16]);
        m.extend_from_slice(&[0, 0]);
        m.extend_from_slice(&seg[18..20]);
        m.extend_from_slice(&seg[usize::from(seg[12] >> 4) * 4..]);
        m.extend_from_slice(key);
        linerate::md5(&m)
    }

    /// Signs `p` as `sign` does: build, digest the input with the key, seal.
    fn sign(p: &[u8], key: &[u8]) -> Result<Vec<u8>, Problem> {
        let mut out = Vec::new();
        let mut input = Vec::new();
        let pending = build(p, &located(p), &mut out, &mut input)?;
        input.extend_from_slice(key);
        seal(&mut out, &pending, &linerate::md5(&input));
        Ok(out)
    }

    fn checksum_ok(p: &[u8], v6: bool) -> bool {
        let at = if v6 { 40 } else { 20 };
        let version = if v6 { Version::V6 } else { Version::V4 };
        let mut pseudo = Vec::new();
        tcp::pseudo_header(p, version, p.len() - at, &mut pseudo);
        let mut sum = Checksum::new();
        sum.update(&pseudo);
        sum.update(&p[at..]);
        sum.sum() == 0xffff
    }

    #[test]
    fn signing_inserts_the_option_first_and_fixes_every_length_and_checksum() {
        let key = b"bgp secret";
        let timestamps = [1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2];
        for v6 in [false, true] {
            for (options, payload) in [
                (&[][..], &b""[..]),
                (&timestamps[..], &b"BGP UPDATE"[..]),
                (&[2, 4, 5, 0xb4][..], &[0x5a; 1400][..]),
            ] {
                let p = segment(v6, options, payload);
                let signed = sign(&p, key).unwrap();
                assert_eq!(signed.len(), p.len() + INSERTED);
                let l = located(&signed);
                let found = find(&signed, &l).unwrap().unwrap();
                let at = if v6 { 40 } else { 20 };
                assert_eq!(
                    found.segment.header_len,
                    tcp::HEADER + options.len() + INSERTED
                );
                assert_eq!(&signed[at + 20..at + 24], &[1, 1, 19, 18]);
                assert_eq!(&signed[at + 40..at + 40 + options.len()], options);
                assert_eq!(l.layout.len, signed.len());
                let digest = found.digest_at.unwrap();
                assert_eq!(signed[digest..digest + 16], oracle(&signed, v6, key));
                assert!(checksum_ok(&signed, v6), "v6 {v6} options {options:?}");
                if !v6 {
                    assert_eq!(
                        ip::ipv4_checksum(&signed[..20]).to_be_bytes(),
                        [signed[10], signed[11]]
                    );
                }
                // Signed again (the option is there): the same bytes.
                assert_eq!(sign(&signed, key).unwrap(), signed);
                // Another key overwrites the digest in place.
                let other = sign(&signed, b"other").unwrap();
                assert_eq!(other.len(), signed.len());
                assert_eq!(other[digest..digest + 16], oracle(&signed, v6, b"other"));
                assert!(checksum_ok(&other, v6));
            }
        }
    }

    #[test]
    fn an_existing_option_at_an_odd_offset_keeps_the_checksum_right() {
        // NOP then the option: the digest starts at an odd offset.
        let mut options = vec![1, 19, 18];
        options.extend_from_slice(&[0xee; 16]);
        options.push(0);
        for v6 in [false, true] {
            let p = segment(v6, &options, b"odd");
            let signed = sign(&p, b"k").unwrap();
            assert_eq!(signed.len(), p.len());
            assert!(checksum_ok(&signed, v6));
            let at = if v6 { 40 } else { 20 };
            assert_eq!(signed[at + 23..at + 39], oracle(&signed, v6, b"k"));
        }
    }

    #[test]
    fn what_cannot_be_signed_says_why() {
        let full = [1u8; 24]; // 24 bytes of options: 20 more would pass 40
        let p = segment(false, &full, b"");
        let err = sign(&p, b"k").unwrap_err();
        assert_eq!(err.kind, Kind::Unsupported);
        assert!(err.message.contains("no room"), "{}", err.message);
        let mut udp = segment(false, &[], b"x");
        udp[9] = 17;
        let sum = ip::ipv4_checksum(&udp[..20]);
        udp[10..12].copy_from_slice(&sum.to_be_bytes());
        assert_eq!(sign(&udp, b"k").unwrap_err().kind, Kind::NotTcp);
        let short = segment(false, &[19, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], b"");
        let err = sign(&short, b"k").unwrap_err();
        assert!(
            err.message.contains("TCP-MD5 option of 10 bytes"),
            "{}",
            err.message
        );
        let mut two = vec![19, 18];
        two.extend_from_slice(&[0; 16]);
        two.extend_from_slice(&two.clone());
        two.extend_from_slice(&[0, 0, 0, 0]);
        let err = sign(&segment(false, &two, b""), b"k").unwrap_err();
        assert!(
            err.message.contains("two TCP-MD5 options"),
            "{}",
            err.message
        );
    }
}
