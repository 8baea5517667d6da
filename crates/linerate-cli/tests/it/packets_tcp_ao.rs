//! `linerate packets --alg tcp-ao-*` (RFC 5925, RFC 5926) against scapy's
//! TCP-AO (`scripts/tcp_ao_peer.py` in `.venv-peers`), both ways: for
//! both algorithms, IPv4 and IPv6, options covered and excluded, what
//! scapy signs linerate verifies and what linerate signs scapy verifies,
//! across a sequence-number wrap (SNE 0 to 1, and a retransmission from
//! before it). A wrong key fails every segment; a capture that lacks a
//! connection's SYNs says so once for that connection; --key-id selects.
//! (The kernel here has no TCP-AO; RFC 9235's vectors are the packets
//! crate's tests.)

use crate::support::peer_missing;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const LINERATE: &str = env!("CARGO_BIN_EXE_linerate");
const KEY: &str = "746573747665637465"; // "testvecte"
const SEGMENTS: usize = 17;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `tcp_ao_peer.py ARGS` in .venv-peers, or `None` (said) without scapy.
fn peer(args: &[&str]) -> Option<Output> {
    let python = repository().join(".venv-peers/bin/python");
    if !python.exists() {
        peer_missing("scapy not installed in .venv-peers: run scripts/setup.sh");
        return None;
    }
    let out = Command::new(python)
        .arg(repository().join("scripts/tcp_ao_peer.py"))
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    Some(out)
}

fn linerate(args: &[&str]) -> Output {
    Command::new(LINERATE).args(args).output().unwrap()
}

fn summary(verified: usize, bad: usize, no_ao: usize, no_syn: usize) -> String {
    format!(
        "{SEGMENTS} packets: {verified} verified, {bad} bad MAC, {no_ao} no TCP-AO option, \
         {no_syn} no SYN, 0 not TCP, 0 malformed\n"
    )
}

#[test]
fn scapy_and_linerate_agree_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    let made = dir.path().join("scapy.pcap");
    let plain = dir.path().join("plain.pcap");
    let signed = dir.path().join("linerate.pcap");
    let (made_s, plain_s, signed_s) = (
        made.to_str().unwrap(),
        plain.to_str().unwrap(),
        signed.to_str().unwrap(),
    );
    for alg in ["hmac-sha1-96", "aes128-cmac-96"] {
        let ours = format!("tcp-ao-{alg}");
        for family in [None, Some("--ipv6")] {
            for exclude in [None, Some("--exclude-options")] {
                let case = format!("{alg} {family:?} {exclude:?}");
                let mut args = vec!["make", made_s, "--alg", alg, "--key", KEY, "--key-id", "7"];
                args.extend(family);
                args.extend(exclude);
                let Some(_) = peer(&args) else {
                    return;
                };
                // scapy signed, linerate verifies.
                let mut verify = vec!["packets", "verify", made_s, "--alg", &ours];
                verify.extend(["--key-hex", KEY]);
                verify.extend(exclude);
                let out = linerate(&verify);
                assert_eq!(out.status.code(), Some(0), "{case}: {}", text(&out.stderr));
                assert_eq!(text(&out.stdout), summary(SEGMENTS, 0, 0, 0), "{case}");
                // Under the other option mode the segments with options
                // besides TCP-AO (the SYN's MSS, the timestamps) fail.
                let mut other = vec!["packets", "verify", made_s, "--alg", &ours];
                other.extend(["--key-hex", KEY]);
                if exclude.is_none() {
                    other.push("--exclude-options");
                }
                assert_eq!(
                    linerate(&other).status.code(),
                    Some(1),
                    "{case}: option mode"
                );

                // linerate signs, scapy verifies.
                let mut args = vec!["make", plain_s, "--alg", alg, "--key", KEY, "--unsigned"];
                args.extend(family);
                peer(&args).unwrap();
                let mut sign = vec!["packets", "sign", plain_s, "-o", signed_s, "--alg", &ours];
                sign.extend(["--key-hex", KEY, "--key-id", "9"]);
                sign.extend(exclude);
                let out = linerate(&sign);
                assert_eq!(out.status.code(), Some(0), "{case}: {}", text(&out.stderr));
                assert_eq!(
                    text(&out.stdout),
                    format!("{SEGMENTS} packets: {SEGMENTS} signed, 0 skipped\n")
                );
                let mut check = vec!["check", signed_s, "--alg", alg, "--key", KEY];
                check.extend(exclude);
                let verdict = peer(&check).unwrap();
                assert_eq!(
                    text(&verdict.stdout),
                    format!("{SEGMENTS} 0\n"),
                    "{case}: scapy's valid, invalid"
                );
            }
        }
    }
}

#[test]
fn wrong_keys_missing_syns_and_key_ids() {
    let dir = tempfile::tempdir().unwrap();
    let made = dir.path().join("scapy.pcap");
    let made_s = made.to_str().unwrap();
    let alg = "tcp-ao-hmac-sha1-96";
    let Some(_) = peer(&[
        "make",
        made_s,
        "--alg",
        "hmac-sha1-96",
        "--key",
        KEY,
        "--key-id",
        "7",
    ]) else {
        return;
    };
    let out = linerate(&[
        "packets",
        "verify",
        made_s,
        "--alg",
        alg,
        "--key-hex",
        "00",
        "-v",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), summary(0, SEGMENTS, 0, 0));
    assert_eq!(text(&out.stderr).lines().count(), SEGMENTS);
    assert!(text(&out.stderr).contains("packet 4: bad TCP-AO MAC"));
    // --key-id 8 matches no segment: nothing verified.
    let out = linerate(&[
        "packets",
        "verify",
        made_s,
        "--alg",
        alg,
        "--key-hex",
        KEY,
        "--key-id",
        "8",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), summary(0, 0, SEGMENTS, 0));
    // The SYN and SYN-ACK cut from the capture (24-byte header, then
    // records): one line for each direction of the connection, exit 1.
    let data = std::fs::read(&made).unwrap();
    let mut at = 24;
    for _ in 0..2 {
        let caplen = u32::from_le_bytes(data[at + 8..at + 12].try_into().unwrap()) as usize;
        at += 16 + caplen;
    }
    let cut = dir.path().join("cut.pcap");
    std::fs::write(&cut, [&data[..24], &data[at..]].concat()).unwrap();
    let out = linerate(&[
        "packets",
        "verify",
        cut.to_str().unwrap(),
        "--alg",
        alg,
        "--key-hex",
        KEY,
    ]);
    assert_eq!(out.status.code(), Some(1));
    let n = SEGMENTS - 2;
    assert_eq!(
        text(&out.stdout),
        format!(
            "{n} packets: 0 verified, 0 bad MAC, 0 no TCP-AO option, {n} no SYN, 0 not TCP, 0 malformed\n"
        )
    );
    let err = text(&out.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 3, "{err}");
    assert!(
        lines[0].ends_with(
            "packet 1: connection 10.11.12.13:51000 > 172.27.28.29:179: its SYNs are not in the \
             capture (TCP-AO's traffic keys need both ISNs): its segments are not verified"
        ),
        "{err}"
    );
    assert!(
        lines[1].contains(": connection 172.27.28.29:179 > 10.11.12.13:51000: its SYNs"),
        "{err}"
    );
    assert!(lines[2].contains("nothing verified"), "{err}");
}

/// Master keys per connection from a key table: the matching line's key
/// verifies every segment; a table without the connection says so.
#[test]
fn a_key_table_gives_the_master_key() {
    let dir = tempfile::tempdir().unwrap();
    let made = dir.path().join("scapy.pcap");
    let made_s = made.to_str().unwrap();
    let Some(_) = peer(&["make", made_s, "--alg", "aes128-cmac-96", "--key", KEY]) else {
        return;
    };
    let table = dir.path().join("keys.txt");
    let verify = |lines: &str| {
        std::fs::write(&table, lines).unwrap();
        Command::new(LINERATE)
            .args([
                "packets",
                "verify",
                made_s,
                "--alg",
                "tcp-ao-aes128-cmac-96",
            ])
            .arg("--key-table")
            .arg(&table)
            .env("PEER_KEY", KEY)
            .output()
            .unwrap()
    };
    let out = verify("10.0.0.0/8 192.0.2.1 hex:00\n172.27.28.0/24 10.11.12.13 179 env:PEER_KEY\n");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        format!(
            "{SEGMENTS} packets: {SEGMENTS} verified, 0 bad MAC, 0 no TCP-AO option, 0 no SYN, \
             0 no key, 0 not TCP, 0 malformed\n"
        )
    );
    let out = verify("172.27.28.0/24 10.11.12.13 180 env:PEER_KEY\n");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).contains(&format!(" {SEGMENTS} no key")),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(
        text(&out.stderr).lines().count(),
        3,
        "two directions, then nothing verified"
    );
}
