//! TCP options and TCP-AO (RFC 9293, RFC 5925) on segments wrapped in an
//! IPv4 or IPv6 header, or on raw IP packets; and the Internet checksum
//! they carry, against RFC 1071's word-by-word sum.
//!
//! Properties: options tile the header from byte 20 without overlap; a
//! TCP-AO option found lies inside its header; a TCP-AO option placed by
//! `build` is found again where it was put, the rest of the segment
//! unchanged, and once sealed the TCP checksum (and an IPv4 header
//! checksum that was valid) verifies; a TCP-MD5 option signed in is found
//! again with its digest, the digest input read back from the signed
//! segment is what was signed, and the checksum RFC 1624 updated
//! verifies; the checksum's fast path, in pieces
//! split anywhere, and RFC 1624's incremental update agree with the
//! reference.

use linerate::checksum::{Checksum, ones_complement_sum};
use linerate_packets::ip::{self, Version};
use linerate_packets::packet::Located;
use linerate_packets::tcp::{self, TcpOption};
use linerate_packets::{tcp_ao, tcp_md5};

pub fn tcp_options(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    checksum_agrees(rest, mode);
    let packet = match mode % 3 {
        0 => rest.to_vec(),
        1 => wrap_v4(rest),
        _ => wrap_v6(rest),
    };
    segment(&packet);
}

/// RFC 1071's sum, one big-endian word at a time, carries folded as they
/// come: the slow reference.
pub fn reference_sum(data: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    for pair in data.chunks(2) {
        let word = u32::from(pair[0]) << 8 | u32::from(pair.get(1).copied().unwrap_or(0));
        sum += word;
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum as u16
}

/// Whether two ones' complement numbers are the same (0 and 0xffff are
/// both zero: RFC 1624's update may give either where recomputing gives
/// one).
fn same_sum(a: u16, b: u16) -> bool {
    a == b || (a == 0 && b == 0xffff) || (a == 0xffff && b == 0)
}

fn checksum_agrees(data: &[u8], seed: u8) {
    let reference = reference_sum(data);
    let fast = ones_complement_sum(data);
    // Exactly: both are 0 only for all-zero data, 0xffff for other data
    // that sums to zero.
    assert_eq!(fast, reference, "the fast sum differs from RFC 1071's");
    // The same data in pieces whose lengths the data itself picks.
    let mut c = Checksum::new();
    let mut rest = data;
    let mut step = usize::from(seed);
    while !rest.is_empty() {
        step = (step * 31 + 7) % 23;
        let (piece, after) = rest.split_at(step.min(rest.len()));
        c.update(piece);
        rest = after;
    }
    assert_eq!(c.sum(), fast, "the sum in pieces differs");
    // RFC 1624: bytes that were zero when a checksum was taken, filled in
    // at an offset of either parity.
    if data.len() >= 2 {
        let at = usize::from(seed) % data.len();
        let len = (data.len() - at).min(usize::from(seed % 17) + 1);
        let mut zeroed = data.to_vec();
        zeroed[at..at + len].fill(0);
        let old = linerate::checksum::internet_checksum(&zeroed);
        let updated = tcp::add_to_checksum(old, &data[at..at + len], at % 2 == 1);
        let whole = linerate::checksum::internet_checksum(data);
        assert!(
            same_sum(updated, whole),
            "incremental {updated:#06x}, recomputed {whole:#06x} (bytes {at}..{})",
            at + len
        );
    }
}

/// `segment` (at least a fixed TCP header: padded with zeros) in an IPv4
/// packet with a valid header checksum.
fn wrap_v4(segment: &[u8]) -> Vec<u8> {
    let segment = padded(segment);
    let total = (20 + segment.len()).min(usize::from(u16::MAX));
    let mut p = vec![
        0x45,
        0,
        0,
        0,
        0,
        1,
        0x40,
        0,
        64,
        tcp::TCP,
        0,
        0,
        10,
        0,
        0,
        1,
        10,
        0,
        0,
        2,
    ];
    p[2..4].copy_from_slice(&(total as u16).to_be_bytes());
    let sum = ip::ipv4_checksum(&p);
    p[10..12].copy_from_slice(&sum.to_be_bytes());
    p.extend_from_slice(&segment[..total - 20]);
    p
}

/// `segment` in an IPv6 packet.
fn wrap_v6(segment: &[u8]) -> Vec<u8> {
    let segment = padded(segment);
    let len = segment.len().min(usize::from(u16::MAX));
    let mut p = vec![0x60, 0, 0, 0, 0, 0, tcp::TCP, 64];
    p[4..6].copy_from_slice(&(len as u16).to_be_bytes());
    p.extend_from_slice(&[0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    p.extend_from_slice(&[0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]);
    p.extend_from_slice(&segment[..len]);
    p
}

fn padded(segment: &[u8]) -> Vec<u8> {
    let mut s = segment.to_vec();
    if s.len() < tcp::HEADER {
        s.resize(tcp::HEADER, 0);
    }
    s
}

/// Options tile `header` from byte 20: each starts where the last ended.
fn options_tile(header: &[u8], options: &[TcpOption]) {
    let mut at = tcp::HEADER;
    for o in options {
        assert_eq!(o.at, at, "options overlap or leave a gap: {options:?}");
        assert_eq!(header[o.at], o.kind);
        if o.kind == tcp::OPT_NOP {
            assert_eq!(o.len, 1);
        } else {
            assert!(
                o.len >= 2 && usize::from(header[o.at + 1]) == o.len,
                "{o:?}"
            );
        }
        at += o.len;
    }
    assert!(
        at <= header.len(),
        "options past the data offset: {options:?}"
    );
}

fn segment(packet: &[u8]) {
    let Ok(layout) = ip::parse(packet) else {
        return;
    };
    assert!(layout.len <= packet.len());
    let Ok(Some(seg)) = tcp::locate(packet, &layout) else {
        return;
    };
    assert!(seg.at + seg.len <= layout.len && seg.header_len <= seg.len);
    let header = &packet[seg.at..seg.at + seg.header_len];
    let options = tcp::options(header);
    if let Ok(options) = &options {
        options_tile(header, options);
    }
    if let Ok(Some(found)) = tcp_ao::find(packet, &seg) {
        let offset = found.at - seg.at;
        assert!(offset >= tcp::HEADER && offset + tcp_ao::OPTION_LEN <= seg.header_len);
        assert_eq!(packet[found.at], tcp::OPT_AO);
    }
    let at = Located { ip_at: 0, layout };
    tcp_md5_signed(packet, &at, seg);
    let mut out = Vec::new();
    let Ok(placed) = tcp_ao::build(packet, &at, 61, 84, &mut out) else {
        return;
    };
    tcp_ao::seal(&mut out, &placed, &[0xa5; tcp_ao::MAC_LEN]);
    let signed = placed.ip(&out);
    let grown = placed.ip_len - layout.len;
    assert!(grown == 0 || grown == tcp_ao::OPTION_LEN, "grew by {grown}");
    let again = ip::parse(signed).expect("a signed packet parses");
    assert_eq!(again.len, placed.ip_len);
    let seg2 = tcp::locate(signed, &again)
        .expect("a signed segment is located")
        .expect("still TCP");
    assert_eq!(seg2, placed.segment);
    let found = tcp_ao::find(signed, &seg2).expect("a placed option is well formed");
    assert_eq!(found, Some(placed.option));
    assert_eq!(
        &signed[placed.option.at + 4..][..tcp_ao::MAC_LEN],
        &[0xa5; tcp_ao::MAC_LEN]
    );
    // The payload is the original's.
    assert_eq!(
        &signed[seg2.at + seg2.header_len..],
        &packet[seg.at + seg.header_len..layout.len]
    );
    // The other options are the original's, in their order.
    if grown > 0 {
        let kept: Vec<u8> = header[tcp::HEADER..].to_vec();
        let signed_header = &signed[seg2.at..seg2.at + seg2.header_len];
        assert_eq!(
            &signed_header[tcp::HEADER + tcp_ao::OPTION_LEN..],
            &kept[..]
        );
    }
    // The TCP checksum verifies: the sum over pseudo-header and segment,
    // checksum field included, is zero in ones' complement.
    let stored = u16::from_be_bytes([
        signed[seg2.at + tcp::CHECKSUM_AT],
        signed[seg2.at + tcp::CHECKSUM_AT + 1],
    ]);
    let computed = tcp::checksum(signed, again.version, &signed[seg2.at..]);
    assert_eq!(stored, computed, "TCP checksum after sealing");
    if again.version == Version::V4 {
        let ihl = usize::from(packet[0] & 0x0f) * 4;
        let valid = |p: &[u8]| ip::ipv4_checksum(&p[..ihl]) == u16::from_be_bytes([p[10], p[11]]);
        if grown > 0 || valid(packet) {
            assert!(valid(signed), "IPv4 header checksum after growing");
        }
    }
}

/// TCP-MD5 signed in (RFC 2385): the option is found again with the
/// digest where `build` said, the digest input read back from the signed
/// segment is the one `build` gave, the payload is the original's, and
/// the TCP checksum that `seal` updated incrementally verifies.
fn tcp_md5_signed(packet: &[u8], at: &Located, seg: tcp::Segment) {
    let (mut out, mut input) = (Vec::new(), Vec::new());
    let Ok(pending) = tcp_md5::build(packet, at, &mut out, &mut input) else {
        return;
    };
    let digest = linerate::md5(&input);
    tcp_md5::seal(&mut out, &pending, &digest);
    let layout = ip::parse(&out).expect("a signed packet parses");
    let grown = layout.len - at.layout.len;
    assert!(grown == 0 || grown == tcp_md5::INSERTED, "grew by {grown}");
    let signed = &out[..layout.len];
    let again = Located { ip_at: 0, layout };
    let found = tcp_md5::find(signed, &again)
        .expect("a signed segment is well formed")
        .expect("still TCP");
    assert_eq!(found.digest_at, Some(pending.digest_at));
    assert_eq!(signed[pending.digest_at..][..16], digest);
    let mut reread = Vec::new();
    tcp_md5::digest_input(signed, layout.version, &found.segment, &mut reread);
    assert_eq!(reread, input, "the digest input read back differs");
    let s = found.segment;
    assert_eq!(
        &signed[s.at + s.header_len..],
        &packet[seg.at + seg.header_len..at.layout.len]
    );
    let stored = u16::from_be_bytes([
        signed[s.at + tcp::CHECKSUM_AT],
        signed[s.at + tcp::CHECKSUM_AT + 1],
    ]);
    let computed = tcp::checksum(signed, layout.version, &signed[s.at..]);
    assert!(
        same_sum(stored, computed),
        "TCP checksum after seal: {stored:#06x}, recomputed {computed:#06x}"
    );
}
