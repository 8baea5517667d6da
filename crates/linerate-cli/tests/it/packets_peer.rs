//! `linerate packets` against independent peers: scapy's IPsec
//! (`scripts/ah_peer.py`, run from `.venv-peers`) signs what linerate
//! verifies and verifies what linerate signs, both sign the same bytes,
//! both reject the same tampered packets and accept the same packets
//! changed en route in their mutable fields; Wireshark's dissector (tshark)
//! reads linerate's AH headers and the inner packets.
//!
//! The captures are written here, byte by byte: IPv4 TCP, IPv4 UDP, IPv4
//! with an immutable (Router Alert) and with a mutable (Record Route)
//! option, IPv6 UDP, ICMPv6, IPv6 with Hop-by-Hop options (an immutable one
//! and one whose data may change en route). Only cases where scapy follows
//! RFC 4302 (see ah_peer.py's docstring): no fragments, source routes,
//! routing or destination options headers.
//!
//! A missing peer skips a test with a line on stderr, unless
//! `LINERATE_PEERS=required` (set by scripts/test-all.sh after installing
//! them), where it fails.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

const LINERATE: &str = env!("CARGO_BIN_EXE_linerate");
const ALGS: [(&str, &str); 2] = [
    ("hmac-md5-96", "5a17c0ffee2b8d0113f4e6a79c3b2d10"),
    ("hmac-sha1-96", "0b1c2d3e4f5061728394a5b6c7d8e9fa0b1c2d3e"),
];
const SPI: u32 = 0x1234_abcd;
const ETHERNET: u32 = 1;
const RAW_IP: u32 = 101;
const SLL: u32 = 113;
const SLL2: u32 = 276;
/// The link types the both-ways tests run on.
const LINK_TYPES: [u32; 4] = [ETHERNET, RAW_IP, SLL, SLL2];
const SRC4: [u8; 4] = [192, 0, 2, 1];
const DST4: [u8; 4] = [198, 51, 100, 7];
const SRC6: [u8; 16] = [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
const DST6: [u8; 16] = [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2];
const TCP: u8 = 6;
const UDP: u8 = 17;
const ICMPV6: u8 = 58;
const HOP_BY_HOP: u8 = 0;

// ------------------------------------------------------------------ peers

/// Where a peer is missing: a line past the harness's capture (so that it
/// shows in CI's log), or a failure where the peers must be there.
fn skip(test: &str, why: &str) {
    if std::env::var_os("LINERATE_PEERS").is_some_and(|v| v == "required") {
        panic!("{test}: {why} (LINERATE_PEERS=required)");
    }
    writeln!(std::io::stderr(), "{test}: skipped: {why}").ok();
}

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `.venv-peers/bin/python` if scapy's IPsec imports there.
fn scapy_python() -> Option<&'static Path> {
    static PYTHON: OnceLock<Option<PathBuf>> = OnceLock::new();
    PYTHON
        .get_or_init(|| {
            let python = repository().join(".venv-peers/bin/python");
            let imports = Command::new(&python)
                .args(["-c", "import scapy.layers.ipsec, cryptography"])
                .output()
                .is_ok_and(|out| out.status.success());
            imports.then_some(python)
        })
        .as_deref()
}

fn have_scapy(test: &str) -> bool {
    let found = scapy_python().is_some();
    if !found {
        skip(
            test,
            "scapy not installed in .venv-peers: run scripts/setup.sh",
        );
    }
    found
}

fn have_tshark(test: &str) -> bool {
    let found = Command::new("tshark")
        .arg("-v")
        .output()
        .is_ok_and(|out| out.status.success());
    if !found {
        skip(test, "tshark not installed: run scripts/setup.sh");
    }
    found
}

/// What a finished command left behind.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn finished(what: &str, out: std::io::Result<Output>) -> Run {
    let out = out.unwrap_or_else(|e| panic!("cannot run {what}: {e}"));
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// One of the two AH implementations.
#[derive(Clone, Copy, Debug)]
enum Side {
    Linerate,
    Scapy,
}

const SIDES: [Side; 2] = [Side::Linerate, Side::Scapy];

impl Side {
    /// `linerate packets ARGS` or `ah_peer.py ARGS`, in `dir`.
    fn run(self, dir: &Path, args: &[&str]) -> Run {
        let mut command = match self {
            Side::Linerate => {
                let mut command = Command::new(LINERATE);
                command.arg("packets").env("LC_ALL", "C");
                command
            }
            Side::Scapy => {
                let mut command = Command::new(scapy_python().expect("checked by have_scapy"));
                command.arg(repository().join("scripts/ah_peer.py"));
                command
            }
        };
        finished(
            &format!("{self:?}"),
            command.args(args).current_dir(dir).output(),
        )
    }

    /// Signs `input` into `output` with SPI 0x1234abcd from sequence
    /// number 1000, which must succeed.
    fn sign(self, dir: &Path, input: &str, output: &str, alg: &str, key: &str) {
        let mut args = vec!["sign", input];
        if let Side::Linerate = self {
            args.push("-o");
        }
        args.extend([output, "--spi", "0x1234abcd", "--alg", alg]);
        args.extend(["--key-hex", key, "--seq-start", "1000"]);
        let run = self.run(dir, &args);
        assert_eq!(
            run.code,
            Some(0),
            "{self:?} sign {input} ({alg}): {}",
            run.stderr
        );
    }

    /// Verifies `file`: linerate with -v, so that both name failing packets.
    fn verify(self, dir: &Path, file: &str, alg: &str, key: &str) -> Run {
        let mut args = vec!["verify", file, "--alg", alg, "--key-hex", key];
        if let Side::Linerate = self {
            args.push("-v");
        }
        self.run(dir, &args)
    }

    /// [`Side::verify`] gives `want` and `code`, and names exactly the
    /// packets in `bad` (indices from 1) on stderr.
    fn assert_verify(
        self,
        dir: &Path,
        file: &str,
        keying: (&str, &str),
        want: (&str, i32),
        bad: &[usize],
    ) {
        let (alg, key) = keying;
        let run = self.verify(dir, file, alg, key);
        let what = format!("{self:?} verify {file} ({alg})");
        assert_eq!(run.stdout, want.0, "{what}: {}", run.stderr);
        assert_eq!(run.code, Some(want.1), "{what}: {}", run.stderr);
        for index in 1..=8 {
            let named = run.stderr.contains(&format!(": packet {index}: "));
            assert_eq!(
                named,
                bad.contains(&index),
                "{what}, packet {index}: {}",
                run.stderr
            );
        }
    }
}

/// `linerate packets ARGS` in `dir`.
fn linerate(dir: &Path, args: &[&str]) -> Run {
    Side::Linerate.run(dir, args)
}

/// The summary line both verifiers print.
fn summary(packets: usize, verified: usize, bad: usize) -> String {
    format!("{packets} packets: {verified} verified, {bad} bad ICV, 0 not AH, 0 malformed\n")
}

// ------------------------------------------------------------------ captures

/// The Internet checksum (RFC 1071) of `parts`, concatenated.
fn internet_checksum(parts: &[&[u8]]) -> u16 {
    let bytes: Vec<u8> = parts.concat();
    let mut sum: u32 = bytes
        .chunks(2)
        .map(|c| u32::from(u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)])))
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// A TCP segment, UDP datagram or ICMPv6 message with its checksum over
/// `pseudo` (the pseudo-header) filled in at `at`.
fn upper(pseudo: &[u8], mut segment: Vec<u8>, at: usize) -> Vec<u8> {
    let sum = internet_checksum(&[pseudo, &segment]);
    segment[at..at + 2].copy_from_slice(&sum.to_be_bytes());
    segment
}

fn pseudo4(proto: u8, len: usize) -> Vec<u8> {
    [&SRC4[..], &DST4, &[0, proto], &(len as u16).to_be_bytes()].concat()
}

fn pseudo6(nh: u8, len: usize) -> Vec<u8> {
    [
        &SRC6[..],
        &DST6,
        &(len as u32).to_be_bytes(),
        &[0, 0, 0, nh],
    ]
    .concat()
}

fn udp(pseudo: impl Fn(usize) -> Vec<u8>, data: &[u8]) -> Vec<u8> {
    let len = 8 + data.len();
    let header = [
        &40001u16.to_be_bytes()[..],
        &40002u16.to_be_bytes(),
        &(len as u16).to_be_bytes(),
        &[0, 0],
    ];
    upper(&pseudo(len), [&header.concat(), data].concat(), 6)
}

fn tcp(data: &[u8]) -> Vec<u8> {
    let mut segment = vec![0x9c, 0x40, 0x9c, 0x43]; // 40000 -> 40003
    segment.extend_from_slice(&0x0102_0304u32.to_be_bytes()); // sequence
    segment.extend_from_slice(&0x0a0b_0c0du32.to_be_bytes()); // acknowledgment
    segment.extend_from_slice(&[0x50, 0x18, 0x20, 0x00, 0, 0, 0, 0]); // PSH|ACK
    segment.extend_from_slice(data);
    upper(&pseudo4(TCP, segment.len()), segment, 16)
}

/// An IPv4 packet: TOS 0x2e, DF, TTL 61 (mutable, so changed en route
/// below), a valid header checksum.
fn ipv4(proto: u8, options: &[u8], payload: &[u8]) -> Vec<u8> {
    assert_eq!(options.len() % 4, 0);
    let header_len = 20 + options.len();
    let total = (header_len + payload.len()) as u16;
    let mut ip = vec![0x40 | (header_len / 4) as u8, 0x2e];
    ip.extend_from_slice(&total.to_be_bytes());
    ip.extend_from_slice(&[0x4c, 0x17, 0x40, 0x00, 61, proto, 0, 0]);
    ip.extend_from_slice(&SRC4);
    ip.extend_from_slice(&DST4);
    ip.extend_from_slice(options);
    fix_ipv4_checksum(&mut ip);
    ip.extend_from_slice(payload);
    ip
}

fn fix_ipv4_checksum(ip: &mut [u8]) {
    let header_len = usize::from(ip[0] & 15) * 4;
    ip[10..12].fill(0);
    let sum = internet_checksum(&[&ip[..header_len]]);
    ip[10..12].copy_from_slice(&sum.to_be_bytes());
}

/// An IPv6 packet: traffic class 0xb8, flow label 0x12345, hop limit 33
/// (mutable, so changed en route below).
fn ipv6(nh: u8, rest: &[u8]) -> Vec<u8> {
    let mut ip = vec![0x6b, 0x81, 0x23, 0x45];
    ip.extend_from_slice(&(rest.len() as u16).to_be_bytes());
    ip.extend_from_slice(&[nh, 33]);
    ip.extend_from_slice(&SRC6);
    ip.extend_from_slice(&DST6);
    ip.extend_from_slice(rest);
    ip
}

/// The eight IP packets, in capture order.
fn packets() -> Vec<Vec<u8>> {
    let udp4 = |data: &[u8]| udp(|len| pseudo4(UDP, len), data);
    let udp6 = |data: &[u8]| udp(|len| pseudo6(UDP, len), data);
    // Router Alert: immutable (RFC 4302 Appendix A).
    let router_alert = [0x94, 0x04, 0x00, 0x00];
    // Record Route with two empty slots, then End of Options: mutable.
    let record_route = [7, 11, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    // Hop-by-Hop: Router Alert (0x05, fixed en route) and PadN.
    let hbh_fixed = [UDP, 0, 0x05, 0x02, 0x00, 0x00, 0x01, 0x00];
    // Hop-by-Hop: an experimental option (RFC 4727) whose data may change
    // en route (type bit 0x20).
    let hbh_mutable = [UDP, 0, 0x3e, 0x04, 0xa1, 0xb2, 0xc3, 0xd4];
    let mut echo = vec![128, 0, 0, 0, 0x00, 0x07, 0x00, 0x01];
    echo.extend_from_slice(b"ping over AH");
    let echo = upper(&pseudo6(ICMPV6, echo.len()), echo, 2);
    vec![
        ipv4(TCP, &[], &tcp(b"GET / HTTP/1.1\r\nHost: example\r\n\r\n")),
        ipv4(UDP, &[], &udp4(b"an IPv4 datagram")),
        ipv4(UDP, &router_alert, &udp4(b"router alert")),
        ipv4(UDP, &record_route, &udp4(b"record route")),
        ipv6(UDP, &udp6(b"an IPv6 datagram")),
        ipv6(ICMPV6, &echo),
        ipv6(
            HOP_BY_HOP,
            &[&hbh_fixed[..], &udp6(b"hop by hop, fixed")].concat(),
        ),
        ipv6(
            HOP_BY_HOP,
            &[&hbh_mutable[..], &udp6(b"hop by hop, mutable")].concat(),
        ),
    ]
}

/// The upper-layer protocol of each of [`packets`].
const INNER: [u8; 8] = [TCP, UDP, UDP, UDP, UDP, ICMPV6, UDP, UDP];

/// The link-layer header of `ip`'s frame.
fn link_header(linktype: u32, ip: &[u8]) -> Vec<u8> {
    let ethertype: [u8; 2] = if ip[0] >> 4 == 4 {
        [0x08, 0x00]
    } else {
        [0x86, 0xdd]
    };
    let mac = [2, 0, 0, 0, 0, 1];
    match linktype {
        ETHERNET => [&[2, 0, 0, 0, 0, 2][..], &mac, &ethertype].concat(),
        // Sent by us, ARPHRD_ETHER, a 6-byte address padded to 8.
        SLL => [&[0, 4, 0, 1, 0, 6][..], &mac, &[0, 0], &ethertype].concat(),
        // Protocol, reserved, interface 2, ARPHRD_ETHER, outgoing, address.
        SLL2 => [
            &ethertype[..],
            &[0, 0, 0, 0, 0, 2, 0, 1, 4, 6],
            &mac,
            &[0, 0],
        ]
        .concat(),
        _ => Vec::new(),
    }
}

fn link_len(linktype: u32) -> usize {
    link_header(linktype, &[0x45]).len()
}

/// A classic pcap file (microseconds, little-endian) of `frames`.
fn pcap(linktype: u32, frames: &[Vec<u8>]) -> Vec<u8> {
    let mut file = Vec::new();
    for field in [0xa1b2_c3d4u32, 0x0004_0002, 0, 0, 65535, linktype] {
        file.extend_from_slice(&field.to_le_bytes());
    }
    for (i, frame) in frames.iter().enumerate() {
        let len = frame.len() as u32;
        for field in [1_700_000_000 + i as u32, 1000 * i as u32, len, len] {
            file.extend_from_slice(&field.to_le_bytes());
        }
        file.extend_from_slice(frame);
    }
    file
}

/// The frames of a classic pcap file (either byte order).
fn frames(file: &[u8]) -> Vec<Vec<u8>> {
    let little = file[..4] == [0xd4, 0xc3, 0xb2, 0xa1] || file[..4] == [0x4d, 0x3c, 0xb2, 0xa1];
    let word = |at: usize| {
        let b = [file[at], file[at + 1], file[at + 2], file[at + 3]];
        (if little {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        }) as usize
    };
    let mut out = Vec::new();
    let mut at = 24;
    while at < file.len() {
        let (caplen, origlen) = (word(at + 8), word(at + 12));
        assert_eq!(caplen, origlen, "record {} cut", out.len() + 1);
        out.push(file[at + 16..at + 16 + caplen].to_vec());
        at += 16 + caplen;
    }
    out
}

/// Writes the eight packets as a capture of `linktype` to `dir/name`.
fn write_capture(dir: &Path, name: &str, linktype: u32) {
    let frames: Vec<Vec<u8>> = packets()
        .iter()
        .map(|ip| [link_header(linktype, ip), ip.clone()].concat())
        .collect();
    std::fs::write(dir.join(name), pcap(linktype, &frames)).expect("write a capture");
}

fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("linerate-packets-peer-")
        .tempdir()
        .expect("scratch directory")
}

/// `input` signed by linerate and by scapy, in that order.
fn sign_both(dir: &Path, input: &str, alg: &str, key: &str) -> [String; 2] {
    SIDES.map(|side| {
        let output = format!("{side:?}-{alg}-{input}");
        side.sign(dir, input, &output, alg, key);
        output
    })
}

/// Where the AH starts in one of [`packets`] once signed: after the IPv4
/// header, or after the IPv6 header and its Hop-by-Hop header.
fn ah_offset(ip: &[u8]) -> usize {
    if ip[0] >> 4 == 4 {
        return usize::from(ip[0] & 15) * 4;
    }
    if ip[6] == HOP_BY_HOP {
        40 + 8 * (usize::from(ip[41]) + 1)
    } else {
        40
    }
}

// ------------------------------------------------------------------ tests

/// Runs `check(dir, input, link type, alg, key)` on the eight packets
/// captured on each of `linktypes`, with each algorithm; skips if scapy is
/// missing.
fn on_captures(test: &str, linktypes: &[u32], check: impl Fn(&Path, &str, u32, &str, &str)) {
    if !have_scapy(test) {
        return;
    }
    let dir = scratch();
    for &linktype in linktypes {
        let input = format!("in-{linktype}.pcap");
        write_capture(dir.path(), &input, linktype);
        for (alg, key) in ALGS {
            check(dir.path(), &input, linktype, alg, key);
        }
    }
}

/// `signer`'s output verifies in `verifier` with the key, on every link
/// type, and fails everywhere with another key (on Ethernet: a key is
/// used the same way on any link).
fn one_signs_the_other_verifies(test: &str, signer: Side, verifier: Side) {
    on_captures(test, &LINK_TYPES, |dir, input, linktype, alg, key| {
        let output = format!("{signer:?}-{alg}-{input}");
        signer.sign(dir, input, &output, alg, key);
        verifier.assert_verify(dir, &output, (alg, key), (&summary(8, 8, 0), 0), &[]);
        if linktype != ETHERNET {
            return;
        }
        let mut wrong = key.to_string();
        wrong.replace_range(..2, "00");
        let all = [1, 2, 3, 4, 5, 6, 7, 8];
        verifier.assert_verify(dir, &output, (alg, &wrong), (&summary(8, 0, 8), 1), &all);
    });
}

#[test]
fn linerate_signs_and_scapy_verifies() {
    one_signs_the_other_verifies(
        "linerate_signs_and_scapy_verifies",
        Side::Linerate,
        Side::Scapy,
    );
}

#[test]
fn scapy_signs_and_linerate_verifies() {
    one_signs_the_other_verifies(
        "scapy_signs_and_linerate_verifies",
        Side::Scapy,
        Side::Linerate,
    );
}

/// AH has no randomness: for the same SA both must write the same frames.
#[test]
fn both_sign_the_same_bytes() {
    on_captures(
        "both_sign_the_same_bytes",
        &LINK_TYPES,
        |dir, input, linktype, alg, key| {
            let [ours, theirs] = sign_both(dir, input, alg, key);
            let ours = frames(&std::fs::read(dir.join(ours)).expect("linerate's output"));
            let theirs = frames(&std::fs::read(dir.join(theirs)).expect("scapy's output"));
            assert_eq!(ours.len(), theirs.len());
            for (index, (a, b)) in ours.iter().zip(&theirs).enumerate() {
                if a != b {
                    let at = a
                        .iter()
                        .zip(b)
                        .position(|(x, y)| x != y)
                        .unwrap_or(a.len().min(b.len()));
                    panic!(
                        "{alg}, link type {linktype}, packet {}: frames differ from byte {at}\n\
                     linerate: {}\nscapy:    {}",
                        index + 1,
                        hex::encode(a),
                        hex::encode(b)
                    );
                }
            }
        },
    );
}

/// Signs the Ethernet capture with both sides and both algorithms, applies
/// `change` (to the frames, given the link header's length) to each
/// output, and has both sides verify it: the packets in `bad` (indices
/// from 1) fail, the others verify.
fn change_and_verify(test: &str, change: impl Fn(&mut [Vec<u8>], usize), bad: &[usize]) {
    on_captures(test, &[ETHERNET], |dir, input, linktype, alg, key| {
        for signed in sign_both(dir, input, alg, key) {
            let mut frames = frames(&std::fs::read(dir.join(&signed)).expect("signed"));
            change(&mut frames, link_len(linktype));
            let changed = format!("changed-{signed}");
            std::fs::write(dir.join(&changed), pcap(linktype, &frames)).expect("write");
            let want = summary(8, 8 - bad.len(), bad.len());
            let code = i32::from(!bad.is_empty());
            for side in SIDES {
                side.assert_verify(dir, &changed, (alg, key), (&want, code), bad);
            }
        }
    });
}

/// A byte changed in the payload, an immutable option, an address, the
/// sequence number or the ICV fails in both verifiers, on both signers'
/// output; the untouched packets still verify.
#[test]
fn tampered_packets_fail_in_both() {
    let tamper = |frames: &mut [Vec<u8>], link: usize| {
        // 1, IPv4 TCP: the last payload byte.
        *frames[0].last_mut().expect("payload") ^= 0x01;
        // 3, IPv4 Router Alert: its value (immutable), checksum fixed.
        frames[2][link + 23] ^= 0x01;
        fix_ipv4_checksum(&mut frames[2][link..]);
        // 5, IPv6 UDP: the source address.
        frames[4][link + 23] ^= 0x80;
        // 7, IPv6 Hop-by-Hop: the AH's sequence number.
        let ah = link + ah_offset(&frames[6][link..]);
        frames[6][ah + 11] ^= 0x01;
        // 8, IPv6 Hop-by-Hop, mutable option: the ICV.
        let ah = link + ah_offset(&frames[7][link..]);
        frames[7][ah + 12] ^= 0x01;
    };
    change_and_verify("tampered_packets_fail_in_both", tamper, &[1, 3, 5, 7, 8]);
}

/// What routers may change (RFC 4302 3.3.3.1: IPv4 TOS, flags, TTL,
/// checksum, a mutable option; IPv6 traffic class, flow label, hop limit,
/// option data with type bit 0x20) leaves every packet verified in both.
#[test]
fn mutable_fields_changed_en_route_verify_in_both() {
    let route = |frames: &mut [Vec<u8>], link: usize| {
        for frame in &mut frames[..4] {
            let ip = &mut frame[link..];
            ip[1] = 0x01; // DSCP 0, ECN CE
            ip[6] &= !0x40; // DF cleared
            ip[8] -= 7; // seven hops
        }
        // 4: the first router recorded itself.
        frames[3][link + 23..link + 27].copy_from_slice(&[203, 0, 113, 9]);
        frames[3][link + 22] += 4;
        for frame in &mut frames[..4] {
            fix_ipv4_checksum(&mut frame[link..]);
        }
        for frame in &mut frames[4..] {
            let ip = &mut frame[link..];
            ip[..4].copy_from_slice(&[0x60, 0x0f, 0xed, 0xcb]); // class 0, new flow
            ip[7] = 1; // hop limit
        }
        // 8: the option data a router may rewrite.
        frames[7][link + 44..link + 48].copy_from_slice(b"hop!");
    };
    change_and_verify("mutable_fields_changed_en_route_verify_in_both", route, &[]);
}

/// Fields tshark prints for each frame, tab-separated.
fn tshark_fields(dir: &Path, file: &str, fields: &[&str]) -> Vec<Vec<String>> {
    let mut command = Command::new("tshark");
    command
        .current_dir(dir)
        .args(["-n", "-r", file, "-T", "fields"]);
    for pref in [
        "ip.check_checksum:TRUE",
        "udp.check_checksum:TRUE",
        "tcp.check_checksum:TRUE",
    ] {
        command.args(["-o", pref]);
    }
    for field in fields {
        command.args(["-e", field]);
    }
    let run = finished("tshark", command.output());
    assert_eq!(run.code, Some(0), "tshark -r {file}: {}", run.stderr);
    run.stdout
        .lines()
        .map(|line| line.split('\t').map(str::to_string).collect())
        .collect()
}

/// Wireshark's dissector reads linerate's AH (SPI, sequence numbers from
/// --seq-start or 1, a 12-byte ICV, the inner protocol), finds the IP
/// lengths and checksums right, and dissects the inner packets as in the
/// input.
#[test]
fn tshark_reads_linerates_ah() {
    if !have_tshark("tshark_reads_linerates_ah") {
        return;
    }
    let dir = scratch();
    write_capture(dir.path(), "in.pcap", ETHERNET);
    let ah_fields = [
        "ah.spi",
        "ah.sequence",
        "ah.icv",
        "ah.length",
        "ah.next_header",
        "ip.proto",
        "ipv6.nxt",
        "ipv6.hopopts.nxt",
        "ip.checksum.status",
        "frame.protocols",
    ];
    // Everything of the inner packets that AH must leave as it was.
    let inner_fields = [
        "ip.src",
        "ip.dst",
        "ip.id",
        "ipv6.src",
        "ipv6.dst",
        "ipv6.hopopts.len",
        "tcp.srcport",
        "tcp.dstport",
        "tcp.seq_raw",
        "tcp.len",
        "tcp.payload",
        "tcp.checksum.status",
        "udp.srcport",
        "udp.dstport",
        "udp.length",
        "udp.checksum.status",
        "icmpv6.type",
        "icmpv6.echo.sequence_number",
        "icmpv6.checksum.status",
        "data.data",
    ];
    let original = tshark_fields(dir.path(), "in.pcap", &inner_fields);
    for (alg, key) in ALGS {
        for (start, first) in [(Some("1000"), 1000u32), (None, 1)] {
            let out = format!("out-{alg}-{first}.pcap");
            let mut args = vec![
                "sign",
                "in.pcap",
                "-o",
                &out,
                "--spi",
                "0x1234abcd",
                "--alg",
                alg,
                "--key-hex",
                key,
            ];
            if let Some(start) = start {
                args.extend(["--seq-start", start]);
            }
            let run = linerate(dir.path(), &args);
            assert_eq!(run.code, Some(0), "linerate sign: {}", run.stderr);
            let rows = tshark_fields(dir.path(), &out, &ah_fields);
            assert_eq!(rows.len(), 8);
            for (i, row) in rows.iter().enumerate() {
                let what = format!("{alg}, packet {}: {row:?}", i + 1);
                let v4 = i < 4;
                assert_eq!(row[0], format!("{SPI:#010x}"), "{what}");
                assert_eq!(row[1], (first + i as u32).to_string(), "{what}");
                assert_eq!(row[2].len(), 24, "{what}: a 12-byte ICV");
                assert_eq!(row[3], "4", "{what}: AH length 6 words - 2");
                assert_eq!(row[4], INNER[i].to_string(), "{what}");
                let hop_by_hop = i >= 6;
                let (proto, nxt, hbh_nxt) = match (v4, hop_by_hop) {
                    (true, _) => ("51", "", ""),
                    (false, false) => ("", "51", ""),
                    (false, true) => ("", "0", "51"),
                };
                assert_eq!(
                    (&*row[5], &*row[6], &*row[7]),
                    (proto, nxt, hbh_nxt),
                    "{what}"
                );
                assert_eq!(
                    row[8],
                    if v4 { "1" } else { "" },
                    "{what}: IPv4 header checksum good"
                );
                let layers = if hop_by_hop {
                    "ipv6:ipv6.hopopts:ah:"
                } else if v4 {
                    "ip:ah:"
                } else {
                    "ipv6:ah:"
                };
                let inner = match INNER[i] {
                    TCP => "tcp",
                    UDP => "udp",
                    _ => "icmpv6",
                };
                assert!(row[9].contains(&format!("{layers}{inner}")), "{what}");
                assert!(!row[9].contains("malformed"), "{what}");
            }
            let inner = tshark_fields(dir.path(), &out, &inner_fields);
            assert_eq!(
                inner, original,
                "{alg}: the inner packets as tshark reads them"
            );
        }
    }
    // The checksums tshark checked were good ones to begin with.
    for row in &original {
        assert!(
            row[11] == "1" || row[15] == "1" || row[18] == "1",
            "{row:?}"
        );
    }
}
