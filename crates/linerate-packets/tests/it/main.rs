//! linerate-packets' integration tests, one binary: whole captures signed
//! and verified through the library, for every ICV algorithm and TCP-MD5,
//! read in chunks that cut records anywhere.

mod tcp_ao_vectors;

use std::io::Write;

use linerate::mac::MacKey;
use linerate_packets::icv::{EVERY, is_tcp, tcp_ao};
use linerate_packets::keys::KeyTable;
use linerate_packets::sign::{Signing, sign};
use linerate_packets::stream::CaptureReader;
use linerate_packets::verify::{Checking, Finding, verify};
use linerate_packets::write::CaptureWriter;
use zeroize::Zeroizing;

/// The Internet checksum of `bytes`.
fn checksum(bytes: &[u8]) -> u16 {
    let mut sum: u32 = bytes
        .chunks(2)
        .map(|p| u32::from(p[0]) << 8 | p.get(1).map_or(0, |&b| u32::from(b)))
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// A pcap (little-endian, Ethernet) of `count` IPv4 packets of growing
/// size, UDP and TCP in turn (the TCP ones with a timestamps option), and
/// one ARP frame (not IP) among them.
fn capture(count: usize) -> Vec<u8> {
    let mut file = Vec::new();
    for v in [0xa1b2_c3d4u32, 0x0004_0002, 0, 0, 65535, 1] {
        file.extend_from_slice(&v.to_le_bytes());
    }
    let mut frames = Vec::new();
    for i in 0..count {
        let payload: Vec<u8> = (0..20 + 37 * i).map(|j| (i * 7 + j) as u8).collect();
        let tcp = i % 2 == 1;
        let header = if tcp { 32 } else { 8 };
        let l4_len = header + payload.len();
        let protocol = if tcp { 6 } else { 17 };
        let mut ip = vec![
            0x45, 0, 0, 0, 0, i as u8, 0, 0, 64, protocol, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
        ];
        ip[2..4].copy_from_slice(&((20 + l4_len) as u16).to_be_bytes());
        let sum = checksum(&ip);
        ip[10..12].copy_from_slice(&sum.to_be_bytes());
        ip.extend_from_slice(&(1000 + i as u16).to_be_bytes());
        ip.extend_from_slice(&179u16.to_be_bytes());
        if tcp {
            ip.extend_from_slice(&[0, 0, 0, i as u8, 0, 0, 0, 0, 0x80, 0x18, 0x01, 0x00]);
            ip.extend_from_slice(&[0, 0, 0, 0, 1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0]);
        } else {
            ip.extend_from_slice(&(l4_len as u16).to_be_bytes());
            ip.extend_from_slice(&[0, 0]);
        }
        ip.extend_from_slice(&payload);
        let mut frame = vec![2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 8, 0];
        frame.extend_from_slice(&ip);
        frames.push(frame);
    }
    let mut arp = vec![0xff; 6];
    arp.extend_from_slice(&[2, 0, 0, 0, 0, 1, 8, 6]);
    arp.extend_from_slice(&[0; 28]);
    frames.insert(count / 2, arp);
    for (i, frame) in frames.iter().enumerate() {
        let len = frame.len() as u32;
        for v in [1_700_000_000 + i as u32, 0, len, len] {
            file.extend_from_slice(&v.to_le_bytes());
        }
        file.extend_from_slice(frame);
    }
    file
}

fn file_with(dir: &std::path::Path, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::File::create(&path)
        .and_then(|mut f| f.write_all(bytes))
        .expect("write capture");
    path
}

#[test]
fn signed_captures_verify_and_tampered_ones_do_not() {
    let dir = tempfile::tempdir().unwrap();
    let input = file_with(dir.path(), "in.pcap", &capture(40));
    let key = b"0123456789abcdef";
    // TCP-AO needs connections with their SYNs (its keys are derived from
    // both ISNs): tests/it/tcp_ao_vectors.rs and the CLI's scapy tests.
    for alg in EVERY.into_iter().filter(|a| tcp_ao(*a).is_none()) {
        // An AH goes into every IP packet, a TCP-MD5 option into the TCP
        // ones (the odd ones, half of them).
        let (protected, others) = if is_tcp(alg) { (20, 21) } else { (40, 1) };
        let table = || Box::new(KeyTable::single(Zeroizing::new(key.to_vec())));
        let signing = || {
            if is_tcp(alg) {
                Signing::TcpMd5(table())
            } else {
                Signing::Ah {
                    key: MacKey::new(alg, key).unwrap(),
                    spi: 0x1000,
                    seq_start: 1,
                }
            }
        };
        let checking = || {
            if is_tcp(alg) {
                Checking::TcpMd5(table())
            } else {
                Checking::Ah {
                    key: MacKey::new(alg, key).unwrap(),
                    spi: Some(0x1000),
                }
            }
        };
        for chunk in [64, 1000, 1 << 20] {
            let mut reader = CaptureReader::with_chunk(input.as_os_str(), chunk)
                .ok()
                .unwrap();
            let mut writer = CaptureWriter::new(Vec::new());
            let mut notes = Vec::new();
            let done = sign(&mut reader, &mut writer, signing(), &mut |i, m| {
                notes.push((i, m.to_string()))
            })
            .unwrap();
            assert_eq!(
                (done.packets, done.signed),
                (41, protected),
                "{alg:?} {chunk}"
            );
            assert_eq!(notes.len(), others, "the others are copied and said so");
            let signed = writer.finish().unwrap();
            let out = file_with(dir.path(), "out.pcap", &signed);
            let check = |path: &std::path::Path| {
                let mut reader = CaptureReader::with_chunk(path.as_os_str(), chunk)
                    .ok()
                    .unwrap();
                let mut bad = Vec::new();
                let counts = verify(&mut reader, checking(), &mut |i, _, f| {
                    bad.push((i, f));
                })
                .unwrap();
                (counts, bad)
            };
            let (counts, bad) = check(&out);
            assert_eq!(
                (
                    counts.verified,
                    counts.bad,
                    counts.unprotected + counts.not_tcp
                ),
                (protected, 0, others),
                "{alg:?}"
            );
            assert!(bad.is_empty());
            // One payload byte flipped in the last packet: that one fails.
            let mut tampered = signed.clone();
            let last = tampered.len() - 1;
            tampered[last] ^= 1;
            let (counts, bad) = check(&file_with(dir.path(), "bad.pcap", &tampered));
            assert_eq!((counts.verified, counts.bad), (protected - 1, 1), "{alg:?}");
            assert_eq!(bad, vec![(41, Finding::BadIcv)]);
        }
    }
}
