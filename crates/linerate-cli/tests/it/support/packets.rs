//! Shared by `tests/packets.rs`: a small builder of frames and captures
//! (written here from the formats' definitions, not from linerate's code),
//! a reader for the captures linerate writes, the test's own zeroing of
//! mutable fields, and the Python oracle for the ICVs.

use std::io::Write;
use std::process::{Command, Stdio};

use super::LINERATE;

/// Link layers the builder frames IP packets in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Link {
    Ethernet,
    Vlan,
    Raw,
    Sll,
    Sll2,
}

impl Link {
    pub fn link_type(self) -> u16 {
        match self {
            Link::Ethernet | Link::Vlan => 1,
            Link::Raw => 101,
            Link::Sll => 113,
            Link::Sll2 => 276,
        }
    }
}

/// `ip` framed for `link` (ethertype from its version).
pub fn frame(link: Link, ip: &[u8]) -> Vec<u8> {
    let ethertype: [u8; 2] = if ip[0] >> 4 == 6 {
        [0x86, 0xdd]
    } else {
        [0x08, 0x00]
    };
    let mut f = Vec::new();
    match link {
        Link::Ethernet | Link::Vlan => {
            f.extend_from_slice(&[0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2]);
            if link == Link::Vlan {
                f.extend_from_slice(&[0x81, 0x00, 0x00, 0x2a]);
            }
            f.extend_from_slice(&ethertype);
        }
        Link::Raw => {}
        Link::Sll => {
            f.extend_from_slice(&[0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0]);
            f.extend_from_slice(&ethertype);
        }
        Link::Sll2 => {
            f.extend_from_slice(&ethertype);
            f.extend_from_slice(&[0, 0, 0, 0, 0, 2, 0, 1, 0, 0, 6, 2, 0, 0, 0, 0, 1, 0]);
        }
    }
    f.extend_from_slice(ip);
    f
}

/// An Ethernet ARP request (not IP).
pub fn arp() -> Vec<u8> {
    let mut f = vec![0xff; 6];
    f.extend_from_slice(&[0x02, 0, 0, 0, 0, 1, 0x08, 0x06]);
    f.extend_from_slice(&[0, 1, 8, 0, 6, 4, 0, 1]);
    f.extend_from_slice(&[0x02, 0, 0, 0, 0, 1, 10, 0, 0, 1]);
    f.extend_from_slice(&[0; 6]);
    f.extend_from_slice(&[10, 0, 0, 2]);
    f
}

/// The Internet checksum of `bytes` (RFC 1071).
pub fn checksum(bytes: &[u8]) -> u16 {
    let mut sum: u64 = 0;
    for pair in bytes.chunks(2) {
        let hi = u64::from(pair[0]) << 8;
        let lo = pair.get(1).map_or(0, |&b| u64::from(b));
        sum += hi | lo;
    }
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// An IPv4 packet with a correct header checksum.
pub fn ipv4(
    proto: u8,
    options: &[u8],
    payload: &[u8],
    tos: u8,
    ttl: u8,
    flags_frag: u16,
) -> Vec<u8> {
    assert!(options.len().is_multiple_of(4));
    let ihl = 20 + options.len();
    let total = (ihl + payload.len()) as u16;
    let mut p = vec![0x40 | (ihl / 4) as u8, tos];
    p.extend_from_slice(&total.to_be_bytes());
    p.extend_from_slice(&[0x12, 0x34]);
    p.extend_from_slice(&flags_frag.to_be_bytes());
    p.extend_from_slice(&[ttl, proto, 0, 0]);
    p.extend_from_slice(&[192, 0, 2, 1, 198, 51, 100, 7]);
    p.extend_from_slice(options);
    let sum = checksum(&p[..ihl]);
    p[10..12].copy_from_slice(&sum.to_be_bytes());
    p.extend_from_slice(payload);
    p
}

/// An IPv6 packet: `first` names the first header in `rest` (extension
/// headers already chained, then the upper layer).
pub fn ipv6(first: u8, rest: &[u8], tc: u8, flow: u32, hop: u8) -> Vec<u8> {
    let mut p = vec![0x60 | (tc >> 4), (tc << 4) | ((flow >> 16) as u8 & 0x0f)];
    p.extend_from_slice(&(flow as u16).to_be_bytes());
    p.extend_from_slice(&(rest.len() as u16).to_be_bytes());
    p.extend_from_slice(&[first, hop]);
    p.extend_from_slice(&[0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    p.extend_from_slice(&[0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]);
    p.extend_from_slice(rest);
    p
}

/// An options header (hop-by-hop or destination) naming `next`, with
/// `options` padded by PadN to a multiple of 8.
pub fn options_header(next: u8, options: &[u8]) -> Vec<u8> {
    let mut h = vec![next, 0];
    h.extend_from_slice(options);
    let pad = (8 - h.len() % 8) % 8;
    match pad {
        0 => {}
        1 => h.push(0),
        n => {
            h.push(1);
            h.push((n - 2) as u8);
            h.extend(std::iter::repeat_n(0, n - 2));
        }
    }
    h[1] = (h.len() / 8 - 1) as u8;
    h
}

/// A routing header of `routing_type` with `addresses` and `left`.
pub fn routing_header(next: u8, routing_type: u8, left: u8, addresses: &[[u8; 16]]) -> Vec<u8> {
    let mut h = vec![
        next,
        (addresses.len() * 2) as u8,
        routing_type,
        left,
        0,
        0,
        0,
        0,
    ];
    for a in addresses {
        h.extend_from_slice(a);
    }
    h
}

/// An IPv6 Fragment header.
pub fn fragment_header(next: u8, offset: u16, more: bool) -> Vec<u8> {
    let field = (offset << 3) | u16::from(more);
    let mut h = vec![next, 0];
    h.extend_from_slice(&field.to_be_bytes());
    h.extend_from_slice(&[0, 0, 0x12, 0x34]);
    h
}

pub fn udp(payload: &[u8]) -> Vec<u8> {
    let mut u = vec![0x30, 0x39, 0x00, 0x35];
    u.extend_from_slice(&((8 + payload.len()) as u16).to_be_bytes());
    u.extend_from_slice(&[0, 0]);
    u.extend_from_slice(payload);
    u
}

pub fn tcp(payload: &[u8]) -> Vec<u8> {
    let mut t = vec![
        0xc0, 0x01, 0x00, 0x50, 0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x18, 0x20, 0x00, 0, 0, 0, 0,
    ];
    t.extend_from_slice(payload);
    t
}

pub fn icmpv6_echo() -> Vec<u8> {
    vec![128, 0, 0, 0, 0, 1, 0, 1, b'p', b'i', b'n', b'g']
}

/// A captured frame: its link type and bytes, and its length on the wire
/// if longer (snap-cut).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rec {
    pub link_type: u16,
    pub data: Vec<u8>,
    pub orig_len: u32,
}

impl Rec {
    pub fn new(link_type: u16, data: Vec<u8>) -> Rec {
        let orig_len = data.len() as u32;
        Rec {
            link_type,
            data,
            orig_len,
        }
    }
}

fn put32(out: &mut Vec<u8>, v: u32, be: bool) {
    out.extend_from_slice(&if be { v.to_be_bytes() } else { v.to_le_bytes() });
}

fn put16(out: &mut Vec<u8>, v: u16, be: bool) {
    out.extend_from_slice(&if be { v.to_be_bytes() } else { v.to_le_bytes() });
}

/// A pcap file (all records of `records[0]`'s link type).
pub fn pcap(records: &[Rec], be: bool, nanos: bool) -> Vec<u8> {
    let mut out = Vec::new();
    put32(&mut out, if nanos { 0xa1b2_3c4d } else { 0xa1b2_c3d4 }, be);
    put16(&mut out, 2, be);
    put16(&mut out, 4, be);
    put32(&mut out, 0, be);
    put32(&mut out, 0, be);
    put32(&mut out, 65535, be);
    put32(
        &mut out,
        u32::from(records.first().map_or(1, |r| r.link_type)),
        be,
    );
    for (i, r) in records.iter().enumerate() {
        put32(&mut out, 1_700_000_000 + i as u32, be);
        put32(&mut out, 1000 * i as u32, be);
        put32(&mut out, r.data.len() as u32, be);
        put32(&mut out, r.orig_len, be);
        out.extend_from_slice(&r.data);
    }
    out
}

fn block(out: &mut Vec<u8>, kind: u32, body: &[u8], be: bool) {
    let len = 12 + body.len().div_ceil(4) * 4;
    put32(out, kind, be);
    put32(out, len as u32, be);
    out.extend_from_slice(body);
    out.resize(out.len() + (4 - body.len() % 4) % 4, 0);
    put32(out, len as u32, be);
}

/// A pcapng file: one interface per distinct link type, in order of first
/// use; enhanced packet blocks, and a simple packet block for the records
/// whose index is in `simple` (interface 0's link type).
pub fn pcapng(records: &[Rec], be: bool, simple: &[usize]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut shb = Vec::new();
    put32(&mut shb, 0x1a2b_3c4d, be);
    put16(&mut shb, 1, be);
    put16(&mut shb, 0, be);
    shb.extend_from_slice(&[0xff; 8]);
    block(&mut out, 0x0a0d_0d0a, &shb, be);
    let mut links: Vec<u16> = Vec::new();
    for r in records {
        if !links.contains(&r.link_type) {
            links.push(r.link_type);
        }
    }
    for &l in &links {
        let mut idb = Vec::new();
        put16(&mut idb, l, be);
        put16(&mut idb, 0, be);
        put32(&mut idb, 0, be);
        block(&mut out, 1, &idb, be);
    }
    for (i, r) in records.iter().enumerate() {
        if simple.contains(&i) {
            let mut spb = Vec::new();
            put32(&mut spb, r.orig_len, be);
            spb.extend_from_slice(&r.data);
            block(&mut out, 3, &spb, be);
            continue;
        }
        let if_id = links.iter().position(|&l| l == r.link_type).unwrap() as u32;
        let mut epb = Vec::new();
        put32(&mut epb, if_id, be);
        put32(&mut epb, 0x0006_1234, be);
        put32(&mut epb, i as u32, be);
        put32(&mut epb, r.data.len() as u32, be);
        put32(&mut epb, r.orig_len, be);
        epb.extend_from_slice(&r.data);
        epb.resize(epb.len().div_ceil(4) * 4, 0);
        // An opt_comment and opt_endofopt, to see options carried over.
        put16(&mut epb, 1, be);
        put16(&mut epb, 3, be);
        epb.extend_from_slice(b"hi!\0");
        put32(&mut epb, 0, be);
        block(&mut out, 6, &epb, be);
    }
    out
}

fn get32(b: &[u8], at: usize, be: bool) -> u32 {
    let a = [b[at], b[at + 1], b[at + 2], b[at + 3]];
    if be {
        u32::from_be_bytes(a)
    } else {
        u32::from_le_bytes(a)
    }
}

/// The records of a pcap or pcapng file the tests wrote or linerate wrote
/// (link type per record; SPBs read as interface 0).
pub fn read_capture(file: &[u8]) -> Vec<Rec> {
    let mut recs = Vec::new();
    if file[..4] == [0x0a, 0x0d, 0x0d, 0x0a] {
        let be = file[8..12] == [0x1a, 0x2b, 0x3c, 0x4d];
        let mut links = Vec::new();
        let mut at = 0;
        while at < file.len() {
            let kind = get32(file, at, be);
            let len = get32(file, at + 4, be) as usize;
            assert_eq!(get32(file, at + len - 4, be) as usize, len, "block lengths");
            let body = &file[at + 8..at + len - 4];
            match kind {
                1 => {
                    let l = if be {
                        u16::from_be_bytes([body[0], body[1]])
                    } else {
                        u16::from_le_bytes([body[0], body[1]])
                    };
                    links.push(l);
                }
                6 => {
                    let caplen = get32(body, 12, be) as usize;
                    recs.push(Rec {
                        link_type: links[get32(body, 0, be) as usize],
                        data: body[20..20 + caplen].to_vec(),
                        orig_len: get32(body, 16, be),
                    });
                    assert_eq!(
                        &body[20 + caplen.div_ceil(4) * 4..][..8],
                        &[
                            if be { 0 } else { 1 },
                            if be { 1 } else { 0 },
                            if be { 0 } else { 3 },
                            if be { 3 } else { 0 },
                            b'h',
                            b'i',
                            b'!',
                            0
                        ],
                        "options carried over"
                    );
                }
                3 => {
                    let orig = get32(body, 0, be);
                    recs.push(Rec {
                        link_type: links[0],
                        data: body[4..4 + orig as usize].to_vec(),
                        orig_len: orig,
                    });
                }
                _ => {}
            }
            at += len;
        }
        return recs;
    }
    let magic = u32::from_le_bytes([file[0], file[1], file[2], file[3]]);
    let be = magic == 0xd4c3_b2a1 || magic == 0x4d3c_b2a1;
    let link = get32(file, 20, be) as u16;
    let mut at = 24;
    while at < file.len() {
        let caplen = get32(file, at + 8, be) as usize;
        recs.push(Rec {
            link_type: link,
            data: file[at + 16..at + 16 + caplen].to_vec(),
            orig_len: get32(file, at + 12, be),
        });
        at += 16 + caplen;
    }
    recs
}

/// Where the IP packet starts in a frame of `link_type` (the frames built
/// here: Ethernet with or without one VLAN tag, raw, SLL, SLL2).
pub fn ip_start(link_type: u16, frame: &[u8]) -> usize {
    match link_type {
        1 if frame[12..14] == [0x81, 0x00] => 18,
        1 => 14,
        113 => 16,
        276 => 20,
        _ => 0,
    }
}

/// The test's own ICV input: `ip` (an IPv4 or IPv6 packet with an AH at
/// `ah_at` whose ICV has `icv_len` bytes) with RFC 4302's mutable fields
/// and the ICV zeroed; explicit padding after the ICV counts as sent.
pub fn zero_mutable(ip: &[u8], ah_at: usize, icv_len: usize) -> Vec<u8> {
    let mut z = ip.to_vec();
    if z[0] >> 4 == 4 {
        z[1] = 0; // TOS
        z[6] = 0; // flags, fragment offset
        z[7] = 0;
        z[8] = 0; // TTL
        z[10] = 0; // checksum
        z[11] = 0;
        let ihl = usize::from(z[0] & 15) * 4;
        let mut i = 20;
        while i < ihl && z[i] != 0 {
            if z[i] == 1 {
                i += 1;
                continue;
            }
            let l = usize::from(z[i + 1]);
            assert!(l >= 2, "IPv4 option length below 2");
            let keep = [130u8, 133, 134, 148, 149].contains(&z[i]);
            if !keep {
                if (z[i] == 131 || z[i] == 137) && usize::from(z[i + 2]) + 3 <= l {
                    let last: Vec<u8> = z[i + l - 4..i + l].to_vec();
                    z[16..20].copy_from_slice(&last);
                }
                z[i..i + l].fill(0);
            }
            i += l;
        }
    } else {
        z[0] &= 0xf0;
        z[1] = 0;
        z[2] = 0;
        z[3] = 0;
        z[7] = 0;
        let mut next = z[6];
        let mut i = 40;
        loop {
            match next {
                0 | 60 => {
                    let l = (usize::from(z[i + 1]) + 1) * 8;
                    let mut o = i + 2;
                    while o < i + l {
                        if z[o] == 0 {
                            o += 1;
                            continue;
                        }
                        let ol = usize::from(z[o + 1]);
                        if z[o] & 0x20 != 0 {
                            z[o + 2..o + 2 + ol].fill(0);
                        }
                        o += 2 + ol;
                    }
                    next = z[i];
                    i += l;
                }
                43 => {
                    let l = (usize::from(z[i + 1]) + 1) * 8;
                    let n = (l - 8) / 16;
                    let left = usize::from(z[i + 3]);
                    // The receiver's view: every remaining hop swaps the
                    // destination with the next address.
                    let mut addrs: Vec<Vec<u8>> = (0..n)
                        .map(|k| z[i + 8 + 16 * k..i + 24 + 16 * k].to_vec())
                        .collect();
                    let mut dst = z[24..40].to_vec();
                    for a in &mut addrs[n - left..] {
                        std::mem::swap(&mut dst, a);
                    }
                    z[24..40].copy_from_slice(&dst);
                    for (k, a) in addrs.iter().enumerate() {
                        z[i + 8 + 16 * k..i + 24 + 16 * k].copy_from_slice(a);
                    }
                    z[i + 3] = 0;
                    next = z[i];
                    i += l;
                }
                44 => {
                    next = z[i];
                    i += 8;
                }
                51 => {
                    next = z[i];
                    i += (usize::from(z[i + 1]) + 2) * 4;
                }
                _ => break,
            }
        }
    }
    z[ah_at + 12..ah_at + 12 + icv_len].fill(0);
    z
}

/// ICVs from Python's `hmac`/`hashlib`: one `alg keyhex datahex` request
/// per item, the full digest in hex back. `None` without python3.
pub fn python_icvs(requests: &[(&str, &[u8], Vec<u8>)]) -> Option<Vec<Vec<u8>>> {
    const SCRIPT: &str = r#"
import sys, hmac, hashlib
for line in sys.stdin:
    alg, key, data = line.split()
    key, data = bytes.fromhex(key), bytes.fromhex(data)
    if alg == "hmac-md5-96":
        out = hmac.new(key, data, hashlib.md5).digest()[:12]
    elif alg == "hmac-sha1-96":
        out = hmac.new(key, data, hashlib.sha1).digest()[:12]
    else:
        fill = b"\0" * ((-len(key)) % 64)
        out = hashlib.md5(key + fill + data + key).digest()
    print(out.hex())
"#;
    let mut child = match Command::new("python3")
        .args(["-c", SCRIPT])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(_) => {
            super::peer_missing("no python3: the Python ICV comparisons are skipped");
            return None;
        }
    };
    let mut input = String::new();
    for (alg, key, data) in requests {
        input.push_str(&format!(
            "{alg} {} {}\n",
            hex::encode(key),
            hex::encode(data)
        ));
    }
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "python3 failed");
    let text = String::from_utf8(out.stdout).unwrap();
    Some(text.lines().map(|l| hex::decode(l).unwrap()).collect())
}

/// Runs linerate with `args`: (status, stdout, stderr).
pub fn linerate(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(LINERATE).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
