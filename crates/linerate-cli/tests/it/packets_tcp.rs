//! `linerate packets --alg tcp-md5` (RFC 2385) against the Linux kernel and
//! tcpdump: the kernel signs a loopback connection (setsockopt TCP_MD5SIG
//! on both ends, `scripts/tcp_md5_kernel.py` captures it with an AF_PACKET
//! socket), and linerate accepts every segment with the right key and
//! rejects every one with a wrong key; a connection without the option is
//! "no TCP-MD5 option". What linerate signs, `tcpdump -M KEY` calls valid
//! (digest and TCP checksum), and a tampered segment invalid, here and in
//! linerate's own verify. IPv4 and IPv6.
//!
//! The kernel capture needs CAP_NET_RAW and tcpdump its Debian package:
//! where either is missing the test says so, and fails under
//! `LINERATE_PEERS=required` (scripts/test-all.sh).

use crate::support::peer_missing;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const LINERATE: &str = env!("CARGO_BIN_EXE_linerate");
const KEY: &str = "6267702d7065657220736563726574"; // "bgp-peer secret"
const WRONG: &str = "6267702d7065657220736563726575";

/// Held by every test that uses the loopback interface: a capture there
/// sees all of its traffic, and the kernel-cost measurement's transfers
/// would overflow another test's capture socket.
static LOOPBACK: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn loopback() -> std::sync::MutexGuard<'static, ()> {
    LOOPBACK.lock().unwrap_or_else(|e| e.into_inner())
}

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn linerate(args: &[&str]) -> Output {
    Command::new(LINERATE).args(args).output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A loopback connection captured into `out`: signed by the kernel under
/// `key`, or unsigned; its frame count and the server's port, or `None`
/// (after saying why) where it cannot be made.
fn kernel_connection(out: &Path, family: &str, key: Option<&str>) -> Option<(usize, u16)> {
    let mut command = Command::new("python3");
    command
        .arg(repository().join("scripts/tcp_md5_kernel.py"))
        .arg(out)
        .args(["--family", family, "--bytes", "30000", "--segment", "1400"]);
    if let Some(key) = key {
        command.args(["--key", key]);
    }
    let run = command.output().expect("run python3");
    if run.status.code() == Some(77) {
        peer_missing(&format!(
            "no kernel TCP-MD5 capture: {}",
            text(&run.stderr).trim()
        ));
        return None;
    }
    assert!(run.status.success(), "{}", text(&run.stderr));
    // "N frames on port P"
    let said = text(&run.stderr);
    let words: Vec<&str> = said.split_whitespace().collect();
    let frames: usize = words[0].parse().expect("a frame count");
    let port: u16 = words[4].parse().expect("a port");
    assert!(frames > 20, "{frames} frames");
    Some((frames, port))
}

/// [`kernel_connection`]'s frame count.
fn kernel_capture(out: &Path, family: &str, key: Option<&str>) -> Option<usize> {
    kernel_connection(out, family, key).map(|(frames, _)| frames)
}

/// `packets sign IN -o OUT --alg tcp-md5 --key-hex KEY`.
fn sign_md5(input: &str, output: &str) -> Output {
    linerate(&[
        "packets",
        "sign",
        input,
        "-o",
        output,
        "--alg",
        "tcp-md5",
        "--key-hex",
        KEY,
    ])
}

fn verify(capture: &Path, key: &str, extra: &[&str]) -> Output {
    let mut args = vec!["packets", "verify", capture.to_str().unwrap()];
    args.extend(["--alg", "tcp-md5", "--key-hex", key]);
    args.extend(extra);
    linerate(&args)
}

#[test]
fn kernel_signed_segments_verify_with_the_key_and_fail_without() {
    let _loopback = loopback();
    let dir = tempfile::tempdir().unwrap();
    for family in ["4", "6"] {
        let signed = dir.path().join(format!("kernel{family}.pcap"));
        let Some(n) = kernel_capture(&signed, family, Some(KEY)) else {
            return;
        };
        let good = verify(&signed, KEY, &[]);
        assert_eq!(good.status.code(), Some(0), "{}", text(&good.stderr));
        assert_eq!(
            text(&good.stdout),
            format!(
                "{n} packets: {n} verified, 0 bad digest, 0 no TCP-MD5 option, 0 not TCP, 0 malformed\n"
            ),
            "IPv{family}"
        );
        let bad = verify(&signed, WRONG, &["-v"]);
        assert_eq!(bad.status.code(), Some(1));
        assert_eq!(
            text(&bad.stdout),
            format!(
                "{n} packets: 0 verified, {n} bad digest, 0 no TCP-MD5 option, 0 not TCP, 0 malformed\n"
            )
        );
        let name = signed.display().to_string();
        let lines: Vec<String> = text(&bad.stderr).lines().map(str::to_string).collect();
        assert_eq!(lines.len(), n);
        assert_eq!(
            lines[0],
            format!("linerate: {name}: packet 1: bad TCP-MD5 digest")
        );

        // Signed again by linerate, every digest is the kernel's (the
        // records differ only where the kernel left loopback's checksum
        // to the offload: linerate's are whole).
        let again = dir.path().join("again.pcap");
        let out = sign_md5(&name, again.to_str().unwrap());
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(digests(&signed), digests(&again));
    }
}

#[test]
fn a_connection_without_the_option_is_reported_so() {
    let _loopback = loopback();
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain.pcap");
    let Some(n) = kernel_capture(&plain, "4", None) else {
        return;
    };
    let out = verify(&plain, KEY, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stdout),
        format!(
            "{n} packets: 0 verified, 0 bad digest, {n} no TCP-MD5 option, 0 not TCP, 0 malformed\n"
        )
    );
    assert_eq!(
        text(&out.stderr),
        format!(
            "linerate: {}: nothing verified: no TCP segment with a TCP-MD5 option\n",
            plain.display()
        )
    );
}

/// The TCP-MD5 digests of a capture's segments (Ethernet, IPv4 or IPv6
/// without extension headers, as loopback carries them), in order.
fn digests(capture: &Path) -> Vec<[u8; 16]> {
    let data = std::fs::read(capture).unwrap();
    let mut at = 24;
    let mut found = Vec::new();
    while at + 16 <= data.len() {
        let caplen = u32::from_le_bytes(data[at + 8..at + 12].try_into().unwrap()) as usize;
        let frame = &data[at + 16..at + 16 + caplen];
        at += 16 + caplen;
        let tcp = match frame[12..14] {
            [0x08, 0x00] => 14 + usize::from(frame[14] & 0x0f) * 4,
            [0x86, 0xdd] => 14 + 40,
            _ => continue,
        };
        let header_len = usize::from(frame[tcp + 12] >> 4) * 4;
        let mut i = tcp + 20;
        while i < tcp + header_len {
            match frame[i] {
                0 => break,
                1 => i += 1,
                19 => {
                    found.push(frame[i + 2..i + 18].try_into().unwrap());
                    break;
                }
                _ => i += usize::from(frame[i + 1]),
            }
        }
    }
    found
}

/// tcpdump's verdicts on a capture under `key`: (valid, invalid, correct
/// TCP checksums) counted from `tcpdump -nv -M`.
fn tcpdump(capture: &Path, key: &str) -> Option<(usize, usize, usize)> {
    let secret = String::from_utf8(hex::decode(key).unwrap()).unwrap();
    let Ok(out) = Command::new("tcpdump")
        .args(["-n", "-v", "-r"])
        .arg(capture)
        .args(["-M", &secret])
        .output()
    else {
        peer_missing("tcpdump not installed (Debian package tcpdump)");
        return None;
    };
    assert!(out.status.success(), "{}", text(&out.stderr));
    let dump = text(&out.stdout);
    Some((
        dump.matches("md5 valid").count(),
        // tcpdump 4.99 prints "md5  (invalid)".
        dump.matches("(invalid)").count(),
        dump.matches("(correct)").count(),
    ))
}

#[test]
fn tcpdump_validates_what_linerate_signs() {
    let _loopback = loopback();
    let dir = tempfile::tempdir().unwrap();
    for family in ["4", "6"] {
        let plain = dir.path().join(format!("plain{family}.pcap"));
        let Some(n) = kernel_capture(&plain, family, None) else {
            return;
        };
        let signed = dir.path().join(format!("signed{family}.pcap"));
        let out = sign_md5(plain.to_str().unwrap(), signed.to_str().unwrap());
        // A segment whose options leave no room (timestamps and SACK
        // blocks after a loss on loopback) is copied unsigned and said so.
        let err = text(&out.stderr);
        assert!(
            err.lines()
                .all(|l| l.contains("no room for the TCP-MD5 option")),
            "{err}"
        );
        let skipped = err.lines().count();
        let s = n - skipped;
        assert_eq!(
            out.status.code(),
            Some(if skipped == 0 { 0 } else { 1 }),
            "{err}"
        );
        assert!(
            text(&out.stdout).starts_with(&format!("{n} packets: {s} signed, {skipped} skipped"))
        );
        let Some(verdicts) = tcpdump(&signed, KEY) else {
            return;
        };
        // The unsigned ones keep the kernel's offloaded (partial) checksum.
        assert_eq!(
            verdicts,
            (s, 0, s),
            "IPv{family}: valid, invalid, checksums correct"
        );

        // One payload byte changed in a signed segment with data (the
        // first from the 10th record on): tcpdump and linerate both call
        // that segment, and only it, invalid.
        let mut data = std::fs::read(&signed).unwrap();
        let (mut at, mut index) = (24, 1);
        let target = loop {
            let caplen = u32::from_le_bytes(data[at + 8..at + 12].try_into().unwrap()) as usize;
            let frame = &data[at + 16..at + 16 + caplen];
            if index >= 10 && caplen > 200 && frame.windows(4).any(|w| w == [1, 1, 19, 18]) {
                break (at + 16 + caplen - 1, index);
            }
            at += 16 + caplen;
            index += 1;
        };
        data[target.0] ^= 0x40;
        let tampered = dir.path().join("tampered.pcap");
        std::fs::write(&tampered, &data).unwrap();
        let (valid, invalid, _) = tcpdump(&tampered, KEY).unwrap();
        assert_eq!((valid, invalid), (s - 1, 1));
        let out = verify(&tampered, KEY, &["-v"]);
        assert_eq!(out.status.code(), Some(1));
        let err = text(&out.stderr);
        let bad: Vec<&str> = err
            .lines()
            .filter(|l| l.contains("bad TCP-MD5 digest"))
            .collect();
        assert_eq!(
            bad,
            [format!(
                "linerate: {}: packet {}: bad TCP-MD5 digest",
                tampered.display(),
                target.1
            )]
        );
    }
}

/// Two kernel-signed connections under different keys in one capture: a
/// key table that gives each its key verifies every segment; without the
/// second's line, its segments are "no key" (said once per direction);
/// signing with the table gives the kernel's digests.
#[test]
fn a_key_table_gives_each_connection_its_key() {
    let _loopback = loopback();
    let dir = tempfile::tempdir().unwrap();
    let (one, two) = (dir.path().join("one.pcap"), dir.path().join("two.pcap"));
    let Some((n1, port1)) = kernel_connection(&one, "4", Some(KEY)) else {
        return;
    };
    let (n2, port2) = kernel_connection(&two, "4", Some(WRONG)).unwrap();
    let both = dir.path().join("both.pcap");
    let (a, b) = (std::fs::read(&one).unwrap(), std::fs::read(&two).unwrap());
    std::fs::write(&both, [&a[..], &b[24..]].concat()).unwrap();
    let n = n1 + n2;
    let table = dir.path().join("keys.txt");
    std::fs::write(
        &table,
        format!("127.0.0.1 127.0.0.1 {port1} hex:{KEY}\n").as_bytes(),
    )
    .unwrap();
    std::fs::write(dir.path().join("two.key"), hex::decode(WRONG).unwrap()).unwrap();
    let with_two = format!(
        "# local peer port key\n127.0.0.0/8 127.0.0.1 {port1} hex:{KEY}\n\
         127.0.0.1 127.0.0.0/24 {port2} file:two.key  # the other peer\n"
    );
    let full = dir.path().join("full.txt");
    std::fs::write(&full, with_two).unwrap();
    let table_arg = |t: &Path| {
        vec![
            "packets".to_string(),
            "verify".into(),
            both.display().to_string(),
            "--alg".into(),
            "tcp-md5".into(),
            "--key-table".into(),
            t.display().to_string(),
        ]
    };
    let run = |args: Vec<String>| Command::new(LINERATE).args(args).output().unwrap();

    let out = run(table_arg(&full));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        format!(
            "{n} packets: {n} verified, 0 bad digest, 0 no TCP-MD5 option, 0 no key, 0 not TCP, 0 malformed\n"
        )
    );
    let out = run(table_arg(&table));
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stdout),
        format!(
            "{n} packets: {n1} verified, 0 bad digest, 0 no TCP-MD5 option, {n2} no key, 0 not TCP, 0 malformed\n"
        )
    );
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 2, "{err}");
    assert!(
        err.lines().all(|l| l.contains(&port2.to_string())
            && l.ends_with("no key in the key table: its segments are not verified")),
        "{err}"
    );

    let signed = dir.path().join("signed.pcap");
    let out = Command::new(LINERATE)
        .args([
            "packets",
            "sign",
            both.to_str().unwrap(),
            "-o",
            signed.to_str().unwrap(),
        ])
        .args(["--alg", "tcp-md5", "--key-table", full.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(digests(&signed), digests(&both));
    // A bad table: its line named, nothing done.
    std::fs::write(&table, "127.0.0.1 127.0.0.1 secret\n").unwrap();
    let out = run(table_arg(&table));
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        format!(
            "linerate: {}: line 1: KEY must be hex:HEX, env:NAME or file:PATH\n",
            table.display()
        )
    );
}

/// An IPv4 packet with a TCP segment whose header is `tcp_options` long
/// after the fixed 20 bytes (data offset as given), then `payload`.
fn segment(data_offset: u8, options: &[u8], payload: &[u8], protocol: u8) -> Vec<u8> {
    let total = 20 + 20 + options.len() + payload.len();
    let mut p = vec![
        0x45, 0, 0, 0, 0, 1, 0x40, 0, 64, protocol, 0, 0, 192, 0, 2, 1, 192, 0, 2, 2,
    ];
    p[2..4].copy_from_slice(&(total as u16).to_be_bytes());
    p.extend_from_slice(&[
        0,
        179,
        0xc3,
        0x50,
        0,
        0,
        0,
        1,
        0,
        0,
        0,
        0,
        data_offset << 4,
        0x18,
    ]);
    p.extend_from_slice(&[1, 0, 0, 0, 0, 0]);
    p.extend_from_slice(options);
    p.extend_from_slice(payload);
    p
}

/// A raw-IP pcap of `records` (bytes, and how long each was on the wire).
fn raw_pcap(records: &[(Vec<u8>, usize)]) -> Vec<u8> {
    let mut file = Vec::new();
    for v in [0xa1b2_c3d4u32, 0x0004_0002, 0, 0, 65535, 101] {
        file.extend_from_slice(&v.to_le_bytes());
    }
    for (bytes, wire) in records {
        for v in [1_700_000_000u32, 0, bytes.len() as u32, *wire as u32] {
            file.extend_from_slice(&v.to_le_bytes());
        }
        file.extend_from_slice(bytes);
    }
    file
}

/// Broken segments are counted and reported with their packet index,
/// by verify and by sign, which copies them unchanged; nothing panics.
#[test]
fn broken_segments_are_reported_with_their_index() {
    let dir = tempfile::tempdir().unwrap();
    let mut md5 = vec![19, 18];
    md5.extend_from_slice(&[0xab; 16]);
    let mut two = md5.clone();
    two.extend_from_slice(&md5);
    two.extend_from_slice(&[0, 0, 0, 0]);
    let mut padded = md5.clone();
    padded.extend_from_slice(&[1, 1]);
    let full = segment(10, &padded, b"payload", 6);
    let mut cut = full.clone();
    cut.truncate(full.len() - 3);
    let records = vec![
        (segment(10, &padded, b"x", 6), 0),       // 1: bad digest
        (segment(6, &[19, 18, 0, 0], b"", 6), 0), // 2: overflows the data offset
        (segment(15, &two, b"", 6), 0),           // 3: two options
        (segment(6, &[1, 5, 1, 0], b"", 6), 0),   // 4: length 1
        (cut, full.len()),                        // 5: cut at snap length
        (segment(15, &[], b"", 6), 0),            // 6: data offset past the segment
        (segment(5, &[], b"udp!", 17), 0),        // 7: not TCP
        (segment(5, &[], b"plain", 6), 0),        // 8: no option
    ];
    let records: Vec<(Vec<u8>, usize)> = records
        .into_iter()
        .map(|(b, wire)| {
            let len = b.len();
            (b, if wire == 0 { len } else { wire })
        })
        .collect();
    let capture = dir.path().join("broken.pcap");
    std::fs::write(&capture, raw_pcap(&records)).unwrap();
    let out = verify(&capture, KEY, &["-v"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stdout),
        "8 packets: 0 verified, 1 bad digest, 1 no TCP-MD5 option, 1 not TCP, 5 malformed\n"
    );
    let name = capture.display().to_string();
    let err = text(&out.stderr);
    for (index, why) in [
        (1, "bad TCP-MD5 digest"),
        (
            2,
            "TCP option 19 of 18 bytes overflows the data offset (24 bytes)",
        ),
        (3, "two TCP-MD5 options"),
        (4, "TCP option 5 of length 1"),
        (5, "cut at snap length"),
        (6, "TCP data offset 60 past the segment's 20 bytes"),
    ] {
        let line = format!("linerate: {name}: packet {index}: {why}");
        assert!(err.lines().any(|l| l.starts_with(&line)), "{line}\n{err}");
    }
    assert_eq!(err.lines().count(), 6, "{err}");

    let signed = dir.path().join("signed.pcap");
    let out = sign_md5(&name, signed.to_str().unwrap());
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        // The segment with a (wrong) digest and the plain one are signed.
        "8 packets: 2 signed, 6 skipped (1 not TCP, 1 truncated, 3 malformed, 1 cut at snap length)\n"
    );
    assert_eq!(
        text(&verify(&signed, KEY, &[]).stdout),
        "8 packets: 2 verified, 0 bad digest, 0 no TCP-MD5 option, 1 not TCP, 5 malformed\n"
    );
}

/// `packets bench --alg tcp-md5` times the digests over a capture's TCP
/// segments and measures the kernel's own TCP-MD5 beside them; on a
/// capture without TCP it says there is nothing to time.
#[test]
fn bench_stands_tcp_md5_beside_the_kernel() {
    let _loopback = loopback();
    let dir = tempfile::tempdir().unwrap();
    let records: Vec<(Vec<u8>, usize)> = (0..64)
        .map(|i| {
            let p = segment(5, &[], &vec![i as u8; 1448], 6);
            let len = p.len();
            (p, len)
        })
        .collect();
    let capture = dir.path().join("tcp.pcap");
    std::fs::write(&capture, raw_pcap(&records)).unwrap();
    let out = linerate(&[
        "packets",
        "bench",
        capture.to_str().unwrap(),
        "--alg",
        "tcp-md5",
        "-j",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let row: Vec<&str> = stdout
        .lines()
        .find(|l| l.starts_with("tcp-md5 "))
        .expect("a tcp-md5 row")
        .split_whitespace()
        .collect();
    assert_eq!(row[1], "1");
    assert!(row[2].parse::<f64>().unwrap() > 0.0 && row[3].parse::<f64>().unwrap() > 0.0);
    let kernel = stdout.lines().last().unwrap();
    if kernel.starts_with("Linux kernel TCP-MD5: not measured") {
        peer_missing(kernel);
    } else {
        let words: Vec<&str> = kernel.split_whitespace().collect();
        assert_eq!(
            words[..5],
            ["Linux", "kernel", "TCP-MD5", "on", "this"],
            "{kernel}"
        );
        let ns: f64 = words[6].parse().unwrap();
        let ratio: f64 = words.last().unwrap().trim_end_matches('x').parse().unwrap();
        assert!(ns > 0.0 && ratio > 0.0, "{kernel}");
    }
    let udp = dir.path().join("udp.pcap");
    std::fs::write(&udp, raw_pcap(&[(segment(5, &[], b"udp", 17), 43)])).unwrap();
    let out = linerate(&[
        "packets",
        "bench",
        udp.to_str().unwrap(),
        "--alg",
        "tcp-md5",
        "-j",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        text(&out.stdout).contains("tcp-md5               no packets it applies to"),
        "{}",
        text(&out.stdout)
    );
}
