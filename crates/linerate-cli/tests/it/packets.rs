//! `linerate packets sign | verify`: captures built here, signed, checked
//! against the test's own reading of RFC 4302 (insertion point, lengths,
//! checksum, mutable fields) and against Python's hmac/hashlib for the
//! ICVs; tampering; bad input.

use crate::support::*;
use std::path::Path;

const KEY_HEX: &str = "000102030405060708090a0b0c0d0e0f";
const ALGS: [(&str, usize); 5] = [
    ("hmac-md5-96", 12),
    ("hmac-sha1-96", 12),
    ("keyed-md5", 16),
    ("umac-64", 8),
    ("umac-96", 12),
];

fn key() -> Vec<u8> {
    hex::decode(KEY_HEX).unwrap()
}

/// What sign should do with a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Want {
    Signed,
    Skipped,
}

fn addr(last: u8) -> [u8; 16] {
    let mut a = [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    a[15] = last;
    a
}

/// The test corpus: every link type the tool reads (or `only` for pcap,
/// which has one link type per file).
fn corpus(only: Option<Link>) -> Vec<(Rec, Want)> {
    let pick = |l: Link| only.unwrap_or(l);
    let mut v = Vec::new();
    let mut add = |link: Link, ip: Vec<u8>, want: Want| {
        let link = pick(link);
        v.push((Rec::new(link.link_type(), frame(link, &ip)), want));
    };
    add(
        Link::Ethernet,
        ipv4(17, &[], &udp(b"hello over udp"), 0x10, 64, 0x4000),
        Want::Signed,
    );
    // Router Alert (immutable), Record Route (mutable), end of list.
    let mut opts = vec![148, 4, 0, 0, 7, 11, 4];
    opts.extend_from_slice(&[10, 0, 0, 1, 0, 0, 0, 0, 0]);
    add(
        Link::Vlan,
        ipv4(6, &opts, &tcp(b"GET / HTTP/1.0\r\n"), 0, 17, 0),
        Want::Signed,
    );
    // Loose source route with two addresses still to visit.
    let mut lsrr = vec![131, 11, 4, 203, 0, 113, 1, 203, 0, 113, 9, 0];
    lsrr.extend_from_slice(&[1, 1, 1, 0]);
    add(
        Link::Raw,
        ipv4(17, &lsrr, &udp(b"routed"), 0, 9, 0),
        Want::Signed,
    );
    // Hop-by-hop: an option that may change (0x3e) and one that may not (0x1e).
    let hbh = options_header(17, &[0x3e, 2, 0xaa, 0xbb, 0x1e, 2, 0xcc, 0xdd]);
    add(
        Link::Sll,
        ipv6(0, &[hbh, udp(b"v6 udp")].concat(), 0x28, 0x12345, 64),
        Want::Signed,
    );
    // Destination options before a type 0 routing header, then final
    // destination options, then TCP.
    let dest1 = options_header(43, &[0x3f, 2, 1, 2]);
    let rh0 = routing_header(60, 0, 2, &[addr(9), addr(10)]);
    let dest2 = options_header(6, &[0x1f, 1, 7, 0x3d, 1, 8]);
    add(
        Link::Sll2,
        ipv6(60, &[dest1, rh0, dest2, tcp(b"rh0")].concat(), 0, 7, 3),
        Want::Signed,
    );
    // Type 2 routing header (Mobile IPv6), ICMPv6.
    let rh2 = routing_header(58, 2, 1, &[addr(0x33)]);
    add(
        Link::Raw,
        ipv6(43, &[rh2, icmpv6_echo()].concat(), 0, 0, 255),
        Want::Signed,
    );
    // Only a destination options header: the AH goes before it.
    let dest = options_header(58, &[0x1e, 4, 1, 2, 3, 4]);
    add(
        Link::Ethernet,
        ipv6(60, &[dest, icmpv6_echo()].concat(), 0, 0, 1),
        Want::Signed,
    );
    // IPv4 fragments (MF; then an offset) and an IPv6 fragment.
    add(
        Link::Ethernet,
        ipv4(17, &[], &udp(&[7; 32]), 0, 64, 0x2000),
        Want::Skipped,
    );
    add(
        Link::Ethernet,
        ipv4(17, &[], &[8; 24], 0, 64, 0x0004),
        Want::Skipped,
    );
    let frag = fragment_header(17, 0, true);
    add(
        Link::Raw,
        ipv6(44, &[frag, udp(b"frag")].concat(), 0, 0, 64),
        Want::Skipped,
    );
    // A short UDP packet in a frame padded to Ethernet's minimum.
    let small = ipv4(17, &[], &udp(b"x"), 0, 64, 0);
    let link = pick(Link::Ethernet);
    let mut f = frame(link, &small);
    if matches!(link, Link::Ethernet | Link::Vlan) {
        f.resize(60, 0xee);
    }
    v.push((Rec::new(link.link_type(), f), Want::Signed));
    if matches!(only, None | Some(Link::Ethernet)) {
        v.push((Rec::new(1, arp()), Want::Skipped));
    }
    v
}

/// Where the AH went (offset in the IP packet) per the test's own reading
/// of RFC 4302 3.1.1, and the original next-header value there.
fn insertion(ip: &[u8]) -> (usize, u8, usize) {
    if ip[0] >> 4 == 4 {
        return (usize::from(ip[0] & 15) * 4, ip[9], 9);
    }
    let (mut next, mut at, mut nh_at) = (ip[6], 40, 6);
    let (mut insert, mut insert_nh, mut insert_nh_at) = (40, ip[6], 6);
    loop {
        let len = match next {
            0 | 43 | 60 => (usize::from(ip[at + 1]) + 1) * 8,
            44 => 8,
            _ => break,
        };
        let following = ip[at];
        nh_at = at;
        if next != 60 {
            insert = at + len;
            insert_nh = following;
            insert_nh_at = nh_at;
        }
        next = following;
        at += len;
    }
    let _ = nh_at;
    (insert, insert_nh, insert_nh_at)
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_str().unwrap().to_string()
}

fn sign(input: &str, output: &str, alg: &str, spi: &str, seq: &str) -> (i32, String, String) {
    linerate(&[
        "packets",
        "sign",
        input,
        "-o",
        output,
        "--spi",
        spi,
        "--alg",
        alg,
        "--key-hex",
        KEY_HEX,
        "--seq-start",
        seq,
    ])
}

fn verify(input: &str, alg: &str, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec![
        "packets",
        "verify",
        input,
        "--alg",
        alg,
        "--key-hex",
        KEY_HEX,
    ];
    args.extend_from_slice(extra);
    linerate(&args)
}

/// Checks one signed record against its original; returns the ICV input
/// (zeroed by the test), the ICV and the sequence number.
fn check_signed(orig: &Rec, out: &Rec, icv_len: usize, spi: u32) -> (Vec<u8>, Vec<u8>, u32) {
    let start = ip_start(orig.link_type, &orig.data);
    assert_eq!(
        out.data[..start],
        orig.data[..start],
        "link header untouched"
    );
    let o = &orig.data[start..];
    let s = &out.data[start..];
    let v4 = o[0] >> 4 == 4;
    let ah_len = if v4 {
        (12 + icv_len).div_ceil(4) * 4
    } else {
        (12 + icv_len).div_ceil(8) * 8
    };
    assert_eq!(out.data.len(), orig.data.len() + ah_len);
    assert_eq!(out.orig_len as usize, out.data.len());
    let (k, next, nh_at) = insertion(o);
    assert_eq!(s[k..k + ah_len].len(), ah_len);
    assert_eq!(
        s[k + ah_len..],
        o[k..],
        "payload byte-identical after the AH"
    );
    assert_eq!(s[nh_at], 51, "next header names AH");
    assert_eq!(s[k], next, "AH's next header");
    assert_eq!(usize::from(s[k + 1]), ah_len / 4 - 2);
    assert_eq!(s[k + 2..k + 4], [0, 0]);
    assert_eq!(u32::from_be_bytes(s[k + 4..k + 8].try_into().unwrap()), spi);
    let seq = u32::from_be_bytes(s[k + 8..k + 12].try_into().unwrap());
    assert!(
        s[k + 12 + icv_len..k + ah_len].iter().all(|&b| b == 0),
        "ICV padding"
    );
    let ip_len = if v4 {
        let total = usize::from(u16::from_be_bytes([s[2], s[3]]));
        assert_eq!(
            total,
            usize::from(u16::from_be_bytes([o[2], o[3]])) + ah_len
        );
        assert_eq!(checksum(&s[..k]), 0, "IPv4 header checksum valid");
        for i in (0..k).filter(|i| ![2, 3, 9, 10, 11].contains(i)) {
            assert_eq!(s[i], o[i], "IPv4 header byte {i}");
        }
        total
    } else {
        let payload = usize::from(u16::from_be_bytes([s[4], s[5]]));
        assert_eq!(
            payload,
            usize::from(u16::from_be_bytes([o[4], o[5]])) + ah_len
        );
        for i in (0..k).filter(|&i| i != 4 && i != 5 && i != nh_at) {
            assert_eq!(s[i], o[i], "IPv6 header byte {i}");
        }
        40 + payload
    };
    let input = zero_mutable(&s[..ip_len], k, icv_len);
    (input, s[k + 12..k + 12 + icv_len].to_vec(), seq)
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// The capture containers exercised: (name, builder).
/// A container's name, its corpus and the file.
type Container = (&'static str, Vec<(Rec, Want)>, Vec<u8>);

fn containers() -> Vec<Container> {
    let mut out = Vec::new();
    let mixed = corpus(None);
    let recs: Vec<Rec> = mixed.iter().map(|(r, _)| r.clone()).collect();
    out.push(("pcapng-le", mixed.clone(), pcapng(&recs, false, &[])));
    out.push(("pcapng-be", mixed, pcapng(&recs, true, &[])));
    for (name, link, be, nanos) in [
        ("pcap-eth", Link::Ethernet, false, false),
        ("pcap-vlan-be-ns", Link::Vlan, true, true),
        ("pcap-raw", Link::Raw, false, true),
        ("pcap-sll", Link::Sll, true, false),
        ("pcap-sll2", Link::Sll2, false, false),
    ] {
        let c = corpus(Some(link));
        let recs: Vec<Rec> = c.iter().map(|(r, _)| r.clone()).collect();
        out.push((name, c, pcap(&recs, be, nanos)));
    }
    // Simple packet blocks (interface 0 = Ethernet).
    let c = corpus(Some(Link::Ethernet));
    let recs: Vec<Rec> = c.iter().map(|(r, _)| r.clone()).collect();
    out.push(("pcapng-spb", c, pcapng(&recs, false, &[0, 2])));
    out
}

#[test]
fn sign_then_verify_every_alg_and_container() {
    let dir = tmp();
    let mut python_requests: Vec<(&str, &[u8], Vec<u8>)> = Vec::new();
    let mut python_expect: Vec<Vec<u8>> = Vec::new();
    let key = key();
    for (name, corpus, file) in containers() {
        let input = write(dir.path(), &format!("{name}.in"), &file);
        for (alg, icv_len) in ALGS {
            let output = dir.path().join(format!("{name}-{alg}.out"));
            let output = output.to_str().unwrap();
            let (status, stdout, stderr) = sign(&input, output, alg, "0x1000", "5");
            let signed = corpus.iter().filter(|(_, w)| *w == Want::Signed).count();
            let skipped = corpus.len() - signed;
            assert!(
                stdout.starts_with(&format!(
                    "{} packets: {signed} signed, {skipped} skipped (",
                    corpus.len()
                )),
                "{name} {alg}: {stdout}"
            );
            assert_eq!(status, 1, "skipped packets make exit 1");
            assert!(
                stderr.contains(": packet 8: fragment: not signed"),
                "{stderr}"
            );
            let out = read_capture(&std::fs::read(output).unwrap());
            assert_eq!(out.len(), corpus.len());
            let mut seq_want = 5;
            for ((orig, want), got) in corpus.iter().zip(&out) {
                if *want == Want::Skipped {
                    assert_eq!(got, orig, "{name}: skipped frames copied unchanged");
                    continue;
                }
                let (input_bytes, icv, seq) = check_signed(orig, got, icv_len, 0x1000);
                assert_eq!(seq, seq_want);
                seq_want += 1;
                if alg.starts_with("umac") {
                    let bits = if icv_len == 8 {
                        linerate::mac::umac::TagBits::B64
                    } else {
                        linerate::mac::umac::TagBits::B96
                    };
                    let k: [u8; 16] = key.clone().try_into().unwrap();
                    let mut umac = linerate::mac::umac::Umac::new(&k, bits);
                    let tag = umac
                        .tag(&input_bytes, &u64::from(seq).to_be_bytes())
                        .unwrap();
                    assert_eq!(tag.as_bytes(), &icv[..], "{name} {alg} UMAC");
                } else {
                    python_requests.push((alg, &[], input_bytes));
                    python_expect.push(icv);
                }
            }
            let (status, stdout, stderr) = verify(output, alg, &["-v"]);
            let frags = 3;
            assert_eq!(
                stdout.trim(),
                format!(
                    "{} packets: {signed} verified, 0 bad ICV, {} not AH, 0 malformed",
                    corpus.len(),
                    skipped
                ),
                "{name} {alg}: {stderr}"
            );
            let _ = frags;
            assert_eq!(status, 0, "{stderr}");
            // Another SPI: nothing checked, which is no success.
            let (status, stdout, stderr) = verify(output, alg, &["--spi", "4097"]);
            assert_eq!(status, 1);
            assert!(stdout.contains("0 verified, 0 bad ICV"), "{stdout}");
            assert!(
                stderr.ends_with(": nothing verified: no AH packet with SPI 4097\n"),
                "{stderr}"
            );
        }
    }
    let requests: Vec<(&str, &[u8], Vec<u8>)> = python_requests
        .into_iter()
        .map(|(a, _, d)| (a, key.as_slice(), d))
        .collect();
    if let Some(answers) = python_icvs(&requests) {
        assert_eq!(answers.len(), python_expect.len());
        for ((req, got), want) in requests.iter().zip(&answers).zip(&python_expect) {
            assert_eq!(&got[..want.len()], &want[..], "{} ICV vs Python", req.0);
        }
    }
}

/// Signs the pcap corpus with `alg`; (dir, signed records, originals).
fn signed_corpus(alg: &str) -> (tempfile::TempDir, Vec<Rec>, Vec<(Rec, Want)>) {
    let dir = tmp();
    let c = corpus(None);
    let recs: Vec<Rec> = c.iter().map(|(r, _)| r.clone()).collect();
    let input = write(dir.path(), "in.pcapng", &pcapng(&recs, false, &[]));
    let output = dir.path().join("out.pcapng");
    sign(&input, output.to_str().unwrap(), alg, "77", "1");
    let out = read_capture(&std::fs::read(&output).unwrap());
    (dir, out, c)
}

/// The length of the AH at `k`, from its Payload Len.
fn ah_len_of(ip: &[u8], k: usize) -> usize {
    (usize::from(ip[k + 1]) + 2) * 4
}

fn verify_records(dir: &Path, recs: &[Rec], alg: &str) -> (i32, String, String) {
    let path = write(dir, "tampered.pcapng", &pcapng(recs, false, &[]));
    verify(&path, alg, &["-v"])
}

#[test]
fn immutable_bytes_are_covered_and_mutable_fields_are_not() {
    for alg in ["hmac-md5-96", "umac-64"] {
        let (dir, out, corpus) = signed_corpus(alg);
        let icv_len = if alg == "umac-64" { 8 } else { 12 };
        let not_ah = corpus.iter().filter(|(_, w)| *w == Want::Skipped).count();
        for (i, ((orig, want), rec)) in corpus.iter().zip(&out).enumerate() {
            if *want != Want::Signed {
                continue;
            }
            let start = ip_start(rec.link_type, &rec.data);
            let ip_end = start
                + if rec.data[start] >> 4 == 4 {
                    usize::from(u16::from_be_bytes([
                        rec.data[start + 2],
                        rec.data[start + 3],
                    ]))
                } else {
                    40 + usize::from(u16::from_be_bytes([
                        rec.data[start + 4],
                        rec.data[start + 5],
                    ]))
                };
            let (k0, _, _) = insertion(&orig.data[start..]);
            let zeroed = zero_mutable(&rec.data[start..ip_end], k0, icv_len);
            // Every byte the rules keep, flipped alone: bad ICV (or, for a
            // byte that structures the headers, a malformed packet).
            let original_ip = &rec.data[start..ip_end];
            let (k, _, _) = insertion(&orig.data[start..]);
            let ah_len = ah_len_of(original_ip, k);
            let mut tried = 0;
            for b in 0..ip_end - start {
                if b > 80 && b % 7 != 0 {
                    continue; // every 7th payload byte keeps the run short
                }
                let mut t = original_ip.to_vec();
                t[b] ^= 0x01;
                let same = std::panic::catch_unwind(|| zero_mutable(&t, k, icv_len) == zeroed)
                    .unwrap_or(false);
                let icv_byte = (k + 12..k + ah_len).contains(&b);
                let v4_checksum = original_ip[0] >> 4 == 4 && (10..12).contains(&b);
                if (same && !icv_byte) || v4_checksum {
                    continue;
                }
                let mut recs = out.clone();
                recs[i].data[start + b] ^= 0x01;
                if original_ip[0] >> 4 == 4 && b < 60 {
                    // Keep the checksum valid: the ICV must catch it.
                    let ihl = usize::from(recs[i].data[start] & 15) * 4;
                    recs[i].data[start + 10..start + 12].fill(0);
                    let sum = checksum(&recs[i].data[start..start + ihl.max(20)]);
                    recs[i].data[start + 10..start + 12].copy_from_slice(&sum.to_be_bytes());
                }
                let (status, stdout, stderr) = verify_records(dir.path(), &recs, alg);
                if stdout.contains(" 1 bad ICV") {
                    assert_eq!(status, 1);
                    assert!(
                        stderr.contains(&format!("packet {}: bad ICV", i + 1)),
                        "{stderr}"
                    );
                } else {
                    // A byte that structures the headers (the protocol
                    // number, a length) makes the packet unreadable as AH.
                    let unreadable = stdout.contains(" 1 malformed")
                        || stdout.contains(&format!("{} not AH", not_ah + 1));
                    assert!(unreadable, "packet {} byte {b}: {stdout}", i + 1);
                    assert!(
                        b < k + 12 || stdout.contains(" 1 malformed"),
                        "only headers can break parsing: byte {b}"
                    );
                }
                tried += 1;
            }
            assert!(tried > 5);
            // TTL / hop limit, TOS / traffic class, flow label: still verified.
            let mut recs = out.clone();
            let d = &mut recs[i].data;
            if d[start] >> 4 == 4 {
                d[start + 8] = d[start + 8].wrapping_sub(3);
                d[start + 1] ^= 0xfc;
                let ihl = usize::from(d[start] & 15) * 4;
                d[start + 10..start + 12].fill(0);
                let sum = checksum(&d[start..start + ihl]);
                d[start + 10..start + 12].copy_from_slice(&sum.to_be_bytes());
            } else {
                d[start + 7] = 1;
                d[start] ^= 0x0f;
                d[start + 1] ^= 0xff;
                d[start + 3] ^= 0x55;
            }
            let (status, stdout, stderr) = verify_records(dir.path(), &recs, alg);
            assert_eq!(status, 0, "packet {}: {stdout} {stderr}", i + 1);
        }
    }
}

/// `-o -` is standard output (the summary then goes to standard error), as
/// for `report`; a device is written to, not replaced.
#[test]
fn sign_writes_to_standard_output_and_through_devices() {
    let dir = tmp();
    let good = ipv4(17, &[], &udp(b"payload"), 0, 64, 0);
    let recs = vec![Rec::new(1, frame(Link::Ethernet, &good)); 3];
    let input = write(dir.path(), "good.pcap", &pcap(&recs, false, false));
    let file_out = dir.path().join("out.pcap");
    let (status, stdout, stderr) = sign(
        &input,
        file_out.to_str().unwrap(),
        "hmac-md5-96",
        "300",
        "1",
    );
    assert_eq!(status, 0, "{stderr}");
    assert_eq!(stdout.trim(), "3 packets: 3 signed, 0 skipped");
    let signed = std::fs::read(&file_out).unwrap();
    let args = [
        "packets",
        "sign",
        &input,
        "-o",
        "-",
        "--spi",
        "300",
        "--alg",
        "hmac-md5-96",
    ];
    let out = std::process::Command::new(LINERATE)
        .args(args)
        .args(["--key-hex", KEY_HEX, "--seq-start", "1"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout == signed, "the capture on standard output");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "3 packets: 3 signed, 0 skipped"
    );
    assert!(!dir.path().join("-").exists(), "no file named -");
    // `/dev/stdout` (a link into /proc): written through, here to a pipe.
    let out = std::process::Command::new(LINERATE)
        .args([
            "packets",
            "sign",
            &input,
            "-o",
            "/dev/stdout",
            "--spi",
            "300",
        ])
        .args([
            "--alg",
            "hmac-md5-96",
            "--key-hex",
            KEY_HEX,
            "--seq-start",
            "1",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stdout.starts_with(&signed),
        "the capture through /dev/stdout"
    );
    // A device node of our own (root only): still a device afterwards.
    let null = dir.path().join("null");
    let made = std::process::Command::new("mknod")
        .arg(&null)
        .args(["c", "1", "3"])
        .output();
    if made.is_ok_and(|m| m.status.success()) {
        let (status, _, stderr) = sign(&input, null.to_str().unwrap(), "hmac-md5-96", "300", "1");
        assert_eq!(status, 0, "{stderr}");
        use std::os::unix::fs::FileTypeExt;
        assert!(
            std::fs::symlink_metadata(&null)
                .unwrap()
                .file_type()
                .is_char_device()
        );
    }
}

/// SIGINT or SIGTERM while `sign` writes: the temporary file is removed,
/// the old OUT is as it was, the status is 130 or 143. The input is a FIFO
/// the test writes half a capture into and keeps open, so the signal comes
/// while the run waits for the rest.
#[test]
fn a_signal_mid_run_leaves_the_old_out_and_no_temporary_file() {
    use std::io::Write;
    let good = ipv4(17, &[], &udp(b"payload"), 0, 64, 0);
    let capture = pcap(
        &vec![Rec::new(1, frame(Link::Ethernet, &good)); 200],
        false,
        false,
    );
    for (signal, status) in [("INT", 130), ("TERM", 143)] {
        let dir = tmp();
        let fifo = dir.path().join("in.pcap");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        let out = dir.path().join("out.pcap");
        std::fs::write(&out, b"the old capture").unwrap();
        let child = std::process::Command::new(LINERATE)
            .args([
                "packets",
                "sign",
                fifo.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
            ])
            .args(["--spi", "300", "--alg", "hmac-md5-96", "--key-hex", KEY_HEX])
            // Small reads, so that half a capture is read and signed.
            .env("LINERATE_PACKETS_CHUNK", "4096")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let mut writer = std::fs::File::options().write(true).open(&fifo).unwrap();
        writer.write_all(&capture[..capture.len() / 2]).unwrap();
        // The temporary file (unnamed: seen only among the process's open
        // files) is made once the capture's header was read.
        let pid = child.id();
        let temp_open = || {
            std::fs::read_dir(format!("/proc/{pid}/fd"))
                .into_iter()
                .flatten()
                .flatten()
                .filter_map(|fd| std::fs::read_link(fd.path()).ok())
                .any(|target| target.starts_with(dir.path()) && target != fifo)
        };
        let temp_files = || {
            std::fs::read_dir(dir.path())
                .unwrap()
                .filter(|e| {
                    e.as_ref()
                        .unwrap()
                        .file_name()
                        .to_string_lossy()
                        .ends_with(".tmp")
                })
                .count()
        };
        let start = std::time::Instant::now();
        while !temp_open() {
            assert!(start.elapsed().as_secs() < 60, "no temporary file");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let pid = pid.to_string();
        let killed = std::process::Command::new("kill")
            .args([&format!("-{signal}"), &pid])
            .status();
        assert!(killed.unwrap().success());
        let done = child.wait_with_output().unwrap();
        drop(writer);
        assert_eq!(done.status.code(), Some(status), "SIG{signal}");
        assert_eq!(
            std::fs::read(&out).unwrap(),
            b"the old capture",
            "SIG{signal}"
        );
        assert_eq!(temp_files(), 0, "SIG{signal}");
    }
}

/// An IPv4 packet with an option whose length is impossible is malformed
/// for `verify` as for `sign`, AH or not.
#[test]
fn malformed_options_are_malformed_for_sign_and_verify() {
    let dir = tmp();
    let good = ipv4(17, &[], &udp(b"payload"), 0, 64, 0);
    // Record Route (7) with length 1: shorter than its own two bytes.
    let bad = ipv4(17, &[7, 1, 0, 0], &udp(b"payload"), 0, 64, 0);
    let recs = vec![
        Rec::new(1, frame(Link::Ethernet, &good)),
        Rec::new(1, frame(Link::Ethernet, &bad)),
    ];
    let input = write(dir.path(), "opts.pcap", &pcap(&recs, false, false));
    let out = dir.path().join("opts-out.pcap");
    let out = out.to_str().unwrap();
    let (status, stdout, stderr) = sign(&input, out, "hmac-md5-96", "300", "1");
    assert_eq!(status, 1, "{stderr}");
    assert_eq!(
        stdout.trim(),
        "2 packets: 1 signed, 1 skipped (1 malformed)"
    );
    let message = "packet 2: IPv4 option 7 has a bad length 1";
    assert!(stderr.contains(message), "{stderr}");
    // The signed capture: the good packet verified, the bad one malformed
    // (it was copied unchanged), reported the same way.
    let (status, stdout, stderr) = verify(out, "hmac-md5-96", &[]);
    assert_eq!(status, 1, "{stderr}");
    assert_eq!(
        stdout.trim(),
        "2 packets: 1 verified, 0 bad ICV, 0 not AH, 1 malformed"
    );
    assert!(stderr.contains(message), "{stderr}");
}

/// A pcapng block its parser refuses is named, with what is wrong in words
/// (not the parser's "predicate verification"), and the packet's index.
#[test]
fn a_corrupt_pcapng_block_is_said_in_words() {
    let dir = tmp();
    let good = ipv4(17, &[], &udp(b"payload"), 0, 64, 0);
    let recs = vec![Rec::new(1, frame(Link::Ethernet, &good)); 2];
    let mut file = pcapng(&recs, false, &[]);
    // The second enhanced packet block (type 6): its captured length (at
    // byte 20 of the block) larger than the block.
    let blocks = |file: &[u8]| {
        let mut at = 0;
        let mut starts = Vec::new();
        while at + 8 <= file.len() {
            starts.push(at);
            at += u32::from_le_bytes(file[at + 4..at + 8].try_into().unwrap()) as usize;
        }
        starts
    };
    let epbs: Vec<usize> = blocks(&file)
        .into_iter()
        .filter(|&at| file[at..at + 4] == [6, 0, 0, 0])
        .collect();
    let second = epbs[1];
    file[second + 20..second + 24].copy_from_slice(&5000u32.to_le_bytes());
    let input = write(dir.path(), "corrupt.pcapng", &file);
    let (status, _, stderr) = verify(&input, "hmac-md5-96", &[]);
    assert_eq!(status, 1, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "linerate: {input}: packet 2: corrupt pcapng enhanced packet block: a length inside it does not fit the block"
        )),
        "{stderr}"
    );
    assert!(!stderr.contains("predicate"), "{stderr}");
}

/// UMAC's nonce is the sequence number: `sign` takes no default start for
/// it (a second run from 1 would reuse every nonce); HMAC keeps 1.
#[test]
fn umac_signing_needs_an_explicit_sequence_start() {
    let dir = tmp();
    let good = ipv4(17, &[], &udp(b"payload"), 0, 64, 0);
    let input = write(
        dir.path(),
        "in.pcap",
        &pcap(&[Rec::new(1, frame(Link::Ethernet, &good))], false, false),
    );
    let out = dir.path().join("out.pcap");
    let out = out.to_str().unwrap();
    let base = [
        "packets",
        "sign",
        &input,
        "-o",
        out,
        "--spi",
        "300",
        "--key-hex",
        KEY_HEX,
    ];
    let (status, _, stderr) = linerate(&[&base[..], &["--alg", "umac-64"]].concat());
    assert_eq!(status, 2);
    assert!(
        stderr.contains(
            "sign: umac-64 takes its nonces from the sequence numbers: give --seq-start N"
        ),
        "{stderr}"
    );
    assert!(!Path::new(out).exists());
    let (status, _, stderr) =
        linerate(&[&base[..], &["--alg", "umac-64", "--seq-start", "1001"]].concat());
    assert_eq!(status, 0, "{stderr}");
    let (status, _, stderr) = linerate(&[&base[..], &["--alg", "hmac-md5-96"]].concat());
    assert_eq!(status, 0, "{stderr}");
}

#[test]
fn bad_input_is_reported_with_the_packet_index() {
    let dir = tmp();
    let good = ipv4(17, &[], &udp(b"payload"), 0, 64, 0);
    let mut recs = vec![Rec::new(1, frame(Link::Ethernet, &good)); 5];
    // Packet 2: IPv4 header cut short; packet 3: snap-cut; packet 4: total
    // length past the data.
    recs[1].data.truncate(14 + 12);
    recs[1].orig_len = recs[1].data.len() as u32;
    recs[2].orig_len += 100;
    recs[3].data[14 + 3] = 200;
    let mut file = pcap(&recs, false, false);
    // The last record cut short: a truncated capture.
    file.truncate(file.len() - 10);
    let input = write(dir.path(), "bad.pcap", &file);
    let out = dir.path().join("bad-out.pcap");
    let out = out.to_str().unwrap();
    // By default a damaged input writes nothing: OUT stays as it was.
    std::fs::write(out, b"the old capture").unwrap();
    let (status, stdout, stderr) = sign(&input, out, "hmac-md5-96", "300", "1");
    assert_eq!(status, 3, "{stderr}");
    assert!(
        stderr.ends_with(&format!(
            "linerate: {out}: not written: the input capture is damaged (--partial writes the packets before the damage)\n"
        )),
        "{stderr}"
    );
    assert_eq!(stdout, "");
    assert_eq!(std::fs::read(out).unwrap(), b"the old capture");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    // --partial: the packets before the damage, and the summary.
    let (status, stdout, stderr) = linerate(&[
        "packets",
        "sign",
        &input,
        "-o",
        out,
        "--spi",
        "300",
        "--alg",
        "hmac-md5-96",
        "--key-hex",
        KEY_HEX,
        "--partial",
    ]);
    assert_eq!(status, 1, "{stderr}");
    assert_eq!(
        stdout.trim(),
        "5 packets: 1 signed, 4 skipped (2 truncated, 1 cut at snap length, 1 capture error)",
        "{stderr}"
    );
    for (n, what) in [
        (2, "truncated IPv4 header"),
        (3, "cut at snap length"),
        (4, "truncated IPv4 packet"),
        (5, "truncated capture"),
    ] {
        assert!(
            stderr.contains(&format!("linerate: {input}: packet {n}: {what}")),
            "{stderr}"
        );
    }
    assert_eq!(read_capture(&std::fs::read(out).unwrap()).len(), 4);
    let (status, stdout, _) = verify(out, "hmac-md5-96", &[]);
    assert_eq!(status, 1);
    assert_eq!(
        stdout.trim(),
        "4 packets: 1 verified, 0 bad ICV, 0 not AH, 3 malformed"
    );

    // Unknown link type: every packet reported, copied unchanged.
    let mut weird = vec![Rec::new(147, good.clone()); 2];
    weird[1].data.push(0);
    let input = write(dir.path(), "weird.pcap", &pcap(&weird, false, false));
    let (status, stdout, stderr) = sign(&input, out, "hmac-md5-96", "300", "1");
    assert_eq!(status, 1);
    assert_eq!(
        stdout.trim(),
        "2 packets: 0 signed, 2 skipped (2 link type)"
    );
    assert!(
        stderr.contains("packet 2: unknown link type 147"),
        "{stderr}"
    );

    // Not a capture; a missing file; a bad key: exit 2, nothing written.
    let junk = write(dir.path(), "junk", b"hello, world, this is no capture");
    let fresh = dir.path().join("never.pcap");
    let fresh = fresh.to_str().unwrap();
    let (status, _, stderr) = sign(&junk, fresh, "hmac-md5-96", "300", "1");
    assert_eq!(status, 2);
    assert!(stderr.contains("not a pcap or pcapng capture"), "{stderr}");
    let (status, _, _) = sign("/nonexistent/in.pcap", fresh, "hmac-md5-96", "300", "1");
    assert_eq!(status, 2);
    let (status, _, stderr) = linerate(&[
        "packets",
        "verify",
        &input,
        "--alg",
        "umac-64",
        "--key-hex",
        "00",
    ]);
    assert_eq!(status, 2);
    assert!(
        stderr.contains("umac-64 needs a key of exactly 16 bytes"),
        "{stderr}"
    );
    assert!(!Path::new(fresh).exists());
    let (status, _, stderr) = linerate(&["packets", "sign", &input, "--spi", "1", "--alg", "md5"]);
    assert_eq!(status, 2);
    assert!(stderr.contains("invalid algorithm 'md5'"), "{stderr}");
}

#[test]
fn output_is_never_half_written() {
    let dir = tmp();
    let recs = vec![Rec::new(101, ipv4(17, &[], &udp(b"x"), 0, 64, 0))];
    let input = write(dir.path(), "in.pcap", &pcap(&recs, false, false));
    // A directory that does not exist: exit 2, nothing there.
    let (status, _, stderr) = sign(
        &input,
        "/nonexistent-dir/out.pcap",
        "hmac-md5-96",
        "300",
        "1",
    );
    assert_eq!(status, 2);
    assert_eq!(
        stderr,
        "linerate: /nonexistent-dir/out.pcap: No such file or directory\n"
    );
    // An existing OUT is replaced only at the end; no temporary file stays.
    let out = dir.path().join("out.pcap");
    std::fs::write(&out, b"old").unwrap();
    let (status, stdout, _) = sign(&input, out.to_str().unwrap(), "hmac-md5-96", "300", "1");
    assert_eq!(status, 0);
    assert_eq!(stdout.trim(), "1 packets: 1 signed, 0 skipped");
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert_ne!(std::fs::read(&out).unwrap(), b"old");
}

/// What a directory holds, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn an_existing_out_is_replaced_whole_and_never_written_into() {
    use std::os::unix::fs::symlink;
    let dir = tmp();
    let recs = vec![
        Rec::new(101, ipv4(17, &[], &udp(b"first"), 0, 64, 0)),
        Rec::new(101, ipv4(6, &[], &udp(b"second packet"), 0, 64, 0)),
    ];
    let input = write(dir.path(), "in.pcap", &pcap(&recs, false, false));
    let fresh = dir.path().join("fresh.pcap");
    assert_eq!(
        sign(&input, fresh.to_str().unwrap(), "hmac-md5-96", "300", "1").0,
        0
    );
    let want = std::fs::read(&fresh).unwrap();

    // A regular file, with a second link to it: OUT becomes the new capture
    // (the same bytes as a fresh OUT), the old file lives on under its other
    // name untouched, and no temporary file is left behind.
    let out = dir.path().join("out.pcap");
    let other_link = dir.path().join("old-link");
    std::fs::write(&out, b"the old capture").unwrap();
    std::fs::hard_link(&out, &other_link).unwrap();
    let before = listing(dir.path());
    for _ in 0..2 {
        let (status, _, stderr) = sign(&input, out.to_str().unwrap(), "hmac-md5-96", "300", "1");
        assert_eq!(status, 0, "{stderr}");
        assert!(std::fs::read(&out).unwrap() == want);
        assert_eq!(std::fs::read(&other_link).unwrap(), b"the old capture");
        assert_eq!(listing(dir.path()), before);
    }

    // A symbolic link is written through: its target becomes the capture
    // (replaced whole, in its own directory), the link stays a link.
    let target = dir.path().join("target");
    std::fs::write(&target, b"target").unwrap();
    let link = dir.path().join("link.pcap");
    symlink(&target, &link).unwrap();
    assert_eq!(
        sign(&input, link.to_str().unwrap(), "hmac-md5-96", "300", "1").0,
        0
    );
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(std::fs::read(&target).unwrap() == want);

    // A directory is never swapped out: an error naming OUT, the directory
    // and what it holds as they were, no temporary file.
    let sub = dir.path().join("sub.pcap");
    std::fs::create_dir(&sub).unwrap();
    std::fs::write(sub.join("inside"), b"kept").unwrap();
    let before = listing(dir.path());
    let (status, _, stderr) = sign(&input, sub.to_str().unwrap(), "hmac-md5-96", "300", "1");
    assert_ne!(status, 0);
    assert!(stderr.contains("sub.pcap"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert_eq!(std::fs::read(sub.join("inside")).unwrap(), b"kept");
    assert_eq!(listing(dir.path()), before);
}

#[test]
fn tshark_dissects_the_signed_capture() {
    let tshark = Path::new("/usr/bin/tshark");
    if !tshark.exists() {
        crate::support::peer_missing(
            "/usr/bin/tshark is not installed (scripts/setup.sh installs it): the tshark check is skipped",
        );
        return;
    }
    let dir = tmp();
    let c = corpus(Some(Link::Ethernet));
    let recs: Vec<Rec> = c.iter().map(|(r, _)| r.clone()).collect();
    let input = write(dir.path(), "in.pcap", &pcap(&recs, false, false));
    let out = dir.path().join("out.pcap");
    sign(&input, out.to_str().unwrap(), "hmac-sha1-96", "4660", "1");
    let (out_text, _) = tshark_fields(&out, &["-e", "ah.spi", "-e", "ah.sequence", "-e", "ah.icv"]);
    let signed = read_capture(&std::fs::read(&out).unwrap());
    let mut seq = 1;
    let lines: Vec<&str> = out_text.lines().collect();
    assert_eq!(lines.len(), c.len());
    for ((line, (_, want)), rec) in lines.iter().zip(&c).zip(&signed) {
        if *want == Want::Signed {
            let fields: Vec<&str> = line.split('\t').collect();
            assert!(fields[0] == "0x00001234" || fields[0] == "4660", "{line}");
            assert_eq!(fields[1], seq.to_string());
            let icv = fields[2].replace(':', "");
            assert!(hex::encode(&rec.data).contains(&icv), "{line}");
            seq += 1;
        }
    }
    let (protocols, _) = tshark_fields(&out, &["-e", "frame.protocols"]);
    assert!(protocols.contains("ah:udp"), "{protocols}");
    assert!(protocols.contains("ah:tcp"), "{protocols}");
}

fn tshark_fields(file: &Path, fields: &[&str]) -> (String, String) {
    let mut args = vec!["-r", file.to_str().unwrap(), "-T", "fields"];
    args.extend_from_slice(fields);
    let out = std::process::Command::new("/usr/bin/tshark")
        .args(&args)
        .output()
        .unwrap();
    assert!(out.status.success());
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn help_names_the_algorithms_and_exit_codes() {
    let (status, stdout, _) = linerate(&["packets", "--help"]);
    assert_eq!(status, 0);
    for alg in ALGS {
        assert!(stdout.contains(alg.0));
    }
    assert!(stdout.contains("RFC 1828") && stdout.contains("not an IANA AH"));
    assert!(stdout.contains("Exit status"));
}

/// Inputs fuzzing found to crash (`fuzz/fuzz_targets/packets_parse.rs`):
/// each must give a one-line diagnostic and an exit status, not a panic.
#[test]
fn fuzz_regressions() {
    // A process information block whose length is below 12 (pcap-parser's
    // parser underflowed on it).
    const CRASHES: [&str; 1] = [concat!(
        "0a0d0d0a0000001c1a2b3c4debfd3c4dc8b58a5df2000000000000ff800000010000000a0d0d0a",
        "0000001c1a2b3c4d1afd3c4dc8b58a250b0000005dfffbff0000000400000050500500000000",
        "000aaaaaaaaa00000000000000000000000a00ff0d0a0000001c1a2b3c4d000000010000002e",
        "0000000000000000000000060000007979797979797979797979797979797979797979797a79",
        "7979797979797979797979797979797979feffffff000000000001ff00ff00002e00",
    )];
    let dir = tmp();
    for (i, crash) in CRASHES.iter().enumerate() {
        let input = write(
            dir.path(),
            &format!("crash-{i}"),
            &hex::decode(crash).unwrap(),
        );
        let (status, _, stderr) = verify(&input, "hmac-md5-96", &[]);
        assert!(status == 1 || status == 2, "{status}: {stderr}");
        assert!(stderr.starts_with("linerate: "), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        let out = dir.path().join(format!("crash-{i}.out"));
        let (status, _, stderr) = sign(&input, out.to_str().unwrap(), "umac-64", "300", "1");
        assert!((1..=3).contains(&status), "{status}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

/// A run's exit status, standard output and standard error.
type Run = (i32, String, String);

/// Runs linerate with `LINERATE_PACKETS_CHUNK` (the read buffer's size) set
/// to `chunk`, or unset: (status, stdout, stderr).
fn linerate_chunked(chunk: Option<usize>, args: &[&str]) -> Run {
    let mut command = std::process::Command::new(LINERATE);
    command.args(args).env_remove("LINERATE_PACKETS_CHUNK");
    if let Some(n) = chunk {
        command.env("LINERATE_PACKETS_CHUNK", n.to_string());
    }
    let out = command.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Signs `input` into `output` and verifies the result, reading with a
/// buffer of `chunk` bytes: the two runs' statuses and messages, and the
/// signed capture.
fn sign_and_verify_chunked(input: &str, output: &str, chunk: Option<usize>) -> (Run, Run, Vec<u8>) {
    let keying = ["--alg", "hmac-md5-96", "--key-hex", KEY_HEX];
    let sign = [
        "packets",
        "sign",
        input,
        "-o",
        output,
        "--spi",
        "0x1000",
        "--partial",
    ];
    let signed = linerate_chunked(chunk, &[&sign[..], &keying].concat());
    let bytes = std::fs::read(output).unwrap_or_default();
    let verify = ["packets", "verify", output, "-v"];
    let verified = linerate_chunked(chunk, &[&verify[..], &keying].concat());
    // Verify's messages name its input, which differs between runs.
    let verified = (verified.0, verified.1, verified.2.replace(output, "OUT"));
    (signed, verified, bytes)
}

/// Captures whose records are cut by the end of the read buffer, at every
/// place: tiny buffers must give the output, the messages (packet indices
/// included) and the exit statuses of a buffer that holds the whole file
/// (the default for these small files, which the tests above check against
/// independent readings). The bad captures end in a truncated record, a
/// block whose two lengths differ, a block cut short, or hold a block too
/// short for its type.
#[test]
fn records_cut_by_the_read_buffer_change_nothing() {
    let dir = tmp();
    let mut files: Vec<(String, Vec<u8>)> = containers()
        .into_iter()
        .map(|(name, _, file)| (name.to_string(), file))
        .collect();
    let good = ipv4(17, &[], &udp(b"payload"), 0, 64, 0);
    let mut recs = vec![Rec::new(1, frame(Link::Ethernet, &good)); 4];
    recs[1].orig_len += 100;
    let mut cut = pcap(&recs, true, false);
    cut.truncate(cut.len() - 10);
    files.push(("pcap-truncated".into(), cut));
    let mut cut_ng = pcapng(&recs, false, &[]);
    cut_ng.truncate(cut_ng.len() - 6);
    files.push(("pcapng-truncated".into(), cut_ng));
    let mut corrupt = pcapng(&recs, false, &[]);
    let n = corrupt.len();
    corrupt[n - 4] ^= 4;
    files.push(("pcapng-corrupt".into(), corrupt));
    // An enhanced packet block of 12 bytes (its framing whole, too short
    // for its fields) after the headers, before the first packet (while the
    // tiny buffers are still small).
    let whole = pcapng(&recs, false, &[]);
    let per = whole.len() - pcapng(&recs[..3], false, &[]).len();
    let mut short = whole[..whole.len() - 4 * per].to_vec();
    short.extend_from_slice(&[6, 0, 0, 0, 12, 0, 0, 0, 12, 0, 0, 0]);
    short.extend_from_slice(&whole[whole.len() - 4 * per..]);
    files.push(("pcapng-short-block".into(), short));
    for (name, file) in files {
        let input = write(dir.path(), &format!("{name}.in"), &file);
        let whole_out = dir.path().join(format!("{name}.whole"));
        let whole = sign_and_verify_chunked(&input, whole_out.to_str().unwrap(), None);
        assert!(!whole.2.is_empty(), "{name}: {:?}", whole.0);
        for chunk in [1, 2, 3, 5, 16, 61, 200, 1000] {
            let out = dir.path().join(format!("{name}.{chunk}"));
            let got = sign_and_verify_chunked(&input, out.to_str().unwrap(), Some(chunk));
            assert_eq!(got.0, whole.0, "{name}, chunk {chunk}: sign");
            assert_eq!(got.1, whole.1, "{name}, chunk {chunk}: verify");
            assert!(got.2 == whole.2, "{name}, chunk {chunk}: signed capture");
        }
    }
}

/// A capture larger than the default read buffer (1 MiB), read with it:
/// a snap-cut record straddles the buffer's end, and the file ends inside
/// a record. Each is reported with its packet index, as with a buffer that
/// holds the whole file, and the output is the same.
#[test]
fn captures_larger_than_the_read_buffer() {
    const CHUNK: usize = 1 << 20;
    let dir = tmp();
    let payload = vec![0x5a; 1400];
    let good = frame(Link::Ethernet, &ipv4(17, &[], &udp(&payload), 0, 64, 0));
    let count = 1000;
    for container in ["pcap", "pcapng"] {
        let mut recs = vec![Rec::new(1, good.clone()); count];
        let build = |recs: &[Rec]| match container {
            "pcap" => pcap(recs, false, false),
            _ => pcapng(recs, false, &[]),
        };
        // The headers' length, and each record's.
        let per = build(&recs[..2]).len() - build(&recs[..1]).len();
        let start = build(&recs[..1]).len() - per;
        // The record that holds the buffer's last byte (index from 1).
        let straddling = (CHUNK - start) / per + 1;
        assert!((CHUNK - start) % per > 16);
        recs[straddling - 1].orig_len += 100;
        let mut file = build(&recs);
        assert_eq!(file.len(), start + count * per);
        file.truncate(file.len() - 10);
        let input = write(dir.path(), &format!("big.{container}"), &file);
        let out = dir.path().join(format!("big-out.{container}"));
        let out = out.to_str().unwrap();
        let (sign, verify, bytes) = sign_and_verify_chunked(&input, out, None);
        assert_eq!(sign.0, 1, "{}", sign.2);
        assert_eq!(
            sign.1.trim(),
            format!(
                "{count} packets: {} signed, 2 skipped (1 cut at snap length, 1 capture error)",
                count - 2
            )
        );
        let snap = format!("linerate: {input}: packet {straddling}: cut at snap length");
        let truncated = format!("linerate: {input}: packet {count}: truncated capture");
        assert!(sign.2.contains(&snap), "{}", sign.2);
        assert!(sign.2.contains(&truncated), "{}", sign.2);
        assert_eq!(read_capture(&bytes).len(), count - 1);
        assert_eq!(verify.0, 1, "{}", verify.2);
        assert_eq!(
            verify.1.trim(),
            format!(
                "{} packets: {} verified, 0 bad ICV, 0 not AH, 1 malformed",
                count - 1,
                count - 2
            )
        );
        // The whole file in one buffer.
        let whole_out = dir.path().join(format!("big-whole.{container}"));
        let whole = sign_and_verify_chunked(&input, whole_out.to_str().unwrap(), Some(4 * CHUNK));
        assert_eq!(whole.0, sign, "{container}");
        assert_eq!(whole.1, verify, "{container}");
        assert!(whole.2 == bytes, "{container}: signed capture");
    }
}
