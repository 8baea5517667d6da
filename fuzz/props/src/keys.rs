//! Key tables (`packets --key-table`): lines of two address prefixes, an
//! optional port and a key. Properties: an error names a line the table
//! has and never echoes a key; a table read picks, for any segment, the
//! key of the first line whose prefixes and port match it, as a slow
//! reference that compares prefixes bit by bit says.
//!
//! `file:` keys are read from a directory that does not exist, and inputs
//! naming an absolute or parent path are skipped: the property opens no
//! file. `env:` keys see one variable, `K`, and nothing of the real
//! environment.

use std::net::IpAddr;
use std::path::Path;

use linerate_packets::ip::Version;
use linerate_packets::keys::KeyTable;
use linerate_packets::tcp::Segment;

const NO_DIR: &str = "/nonexistent/linerate-fuzz";

fn env(name: &str) -> Option<String> {
    (name == "K").then(|| "00112233".to_string())
}

pub fn key_table(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if text.contains("file:/") || text.contains("..") || text.contains("file:~") {
        return;
    }
    let lines = text.lines().count();
    match KeyTable::parse(text, Path::new(NO_DIR), &env) {
        Err(e) => {
            assert!(e.line <= lines, "error on line {} of {lines}", e.line);
            if let Some(line) = text.lines().nth(e.line.wrapping_sub(1)) {
                no_key_echoed(line, &e.why);
            }
        }
        Ok(table) => {
            let Some(entries) = reference_entries(text) else {
                panic!("the table was read, the reference refuses it");
            };
            for (src, dst, sport, dport) in probes(&entries) {
                let (ip, version, seg) = segment(src, dst, sport, dport);
                let expected = entries
                    .iter()
                    .find(|e| e.matches(src, dst, sport, dport))
                    .map(|e| e.key.clone());
                assert_eq!(
                    table.key_for(&ip, version, &seg).map(<[u8]>::to_vec),
                    expected,
                    "{src} > {dst} ports {sport} {dport}"
                );
            }
        }
    }
}

/// A key's material (a `hex:` key's digits, or a KEY written without its
/// kind) must not appear in the message, unless the message says it
/// whatever the key (the same line with another key says it too: a key
/// `file` and "file:PATH") or another field holds it. `env:NAME` and
/// `file:PATH` name where a key is, not the key.
fn no_key_echoed(line: &str, why: &str) {
    let line = line.split('#').next().unwrap_or_default();
    let fields: Vec<&str> = line.split_whitespace().collect();
    if !(3..=4).contains(&fields.len()) {
        return;
    }
    let key = fields[fields.len() - 1];
    if key.starts_with("env:") || key.starts_with("file:") {
        return;
    }
    let kind = if key.starts_with("hex:") { "hex:" } else { "" };
    let material = &key[kind.len()..];
    let elsewhere = fields[..fields.len() - 1]
        .iter()
        .any(|f| f.contains(material));
    if material.len() < 4 || elsewhere {
        return;
    }
    let other_key = line.replacen(key, &format!("{kind}\u{7f}"), 1);
    let wording = KeyTable::parse(&other_key, Path::new(NO_DIR), &env)
        .err()
        .map(|e| e.why)
        .unwrap_or_default();
    if !wording.contains(material) {
        assert!(!why.contains(material), "the key {key:?} is echoed: {why}");
    }
}

struct Entry {
    a: (IpAddr, u8),
    b: (IpAddr, u8),
    port: Option<u16>,
    key: Vec<u8>,
}

/// Whether `addr` has the first `bits` bits of `own`, compared one by one.
fn prefix_holds((own, bits): (IpAddr, u8), addr: IpAddr) -> bool {
    let (own, addr) = match (own, addr) {
        (IpAddr::V4(o), IpAddr::V4(a)) => (o.octets().to_vec(), a.octets().to_vec()),
        (IpAddr::V6(o), IpAddr::V6(a)) => (o.octets().to_vec(), a.octets().to_vec()),
        _ => return false,
    };
    (0..usize::from(bits))
        .all(|i| (own[i / 8] >> (7 - i % 8)) & 1 == (addr[i / 8] >> (7 - i % 8)) & 1)
}

impl Entry {
    fn matches(&self, src: IpAddr, dst: IpAddr, sport: u16, dport: u16) -> bool {
        let pair = (prefix_holds(self.a, src) && prefix_holds(self.b, dst))
            || (prefix_holds(self.a, dst) && prefix_holds(self.b, src));
        pair && self.port.is_none_or(|p| p == sport || p == dport)
    }
}

/// The table read independently: `None` where a line is refused.
fn reference_entries(text: &str) -> Option<Vec<Entry>> {
    let mut entries = Vec::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or_default();
        let fields: Vec<&str> = line.split_whitespace().collect();
        let (a, b, port, key) = match fields.as_slice() {
            [] => continue,
            [a, b, key] => (a, b, None, key),
            [a, b, port, key] => (
                a,
                b,
                Some(port.parse::<u16>().ok().filter(|&p| p > 0)?),
                key,
            ),
            _ => return None,
        };
        let prefix = |text: &str| -> Option<(IpAddr, u8)> {
            let (addr, bits) = text
                .split_once('/')
                .map_or((text, None), |(a, b)| (a, Some(b)));
            let addr: IpAddr = addr.parse().ok()?;
            let max = if addr.is_ipv4() { 32 } else { 128 };
            let bits = match bits {
                None => max,
                Some(b) => b.parse::<u8>().ok().filter(|&b| b <= max)?,
            };
            Some((addr, bits))
        };
        let (a, b) = (prefix(a)?, prefix(b)?);
        if a.0.is_ipv4() != b.0.is_ipv4() {
            return None;
        }
        let hex = match key.split_once(':')? {
            ("hex", hex) => hex.to_string(),
            ("env", name) => env(name)?.trim().to_string(),
            _ => return None,
        };
        if hex.is_empty() || hex.len() % 2 != 0 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let key = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
            .collect::<Option<Vec<u8>>>()?;
        entries.push(Entry { a, b, port, key });
    }
    (!entries.is_empty()).then_some(entries)
}

/// Segments to look up: each line's two addresses either way round, with
/// the last bit of each prefix flipped, and ports that do and do not match.
fn probes(entries: &[Entry]) -> Vec<(IpAddr, IpAddr, u16, u16)> {
    let flip = |(addr, bits): (IpAddr, u8)| -> IpAddr {
        if bits == 0 {
            return addr;
        }
        let i = usize::from(bits - 1);
        match addr {
            IpAddr::V4(a) => {
                let mut o = a.octets();
                o[i / 8] ^= 0x80 >> (i % 8);
                IpAddr::from(o)
            }
            IpAddr::V6(a) => {
                let mut o = a.octets();
                o[i / 8] ^= 0x80 >> (i % 8);
                IpAddr::from(o)
            }
        }
    };
    let mut out = Vec::new();
    for e in entries.iter().take(16) {
        let port = e.port.unwrap_or(179);
        for (src, dst) in [
            (e.a.0, e.b.0),
            (e.b.0, e.a.0),
            (flip(e.a), e.b.0),
            (e.a.0, flip(e.b)),
        ] {
            out.push((src, dst, port, 40000));
            out.push((src, dst, 40001, port));
            out.push((src, dst, port.wrapping_add(1).max(1), 40002));
        }
    }
    out
}

/// An IP packet from `src` to `dst` with a bare TCP header.
fn segment(src: IpAddr, dst: IpAddr, sport: u16, dport: u16) -> (Vec<u8>, Version, Segment) {
    let (mut ip, version) = match (src, dst) {
        (IpAddr::V4(s), IpAddr::V4(d)) => {
            let mut ip = vec![0x45, 0, 0, 40, 0, 0, 0, 0, 64, 6, 0, 0];
            ip.extend_from_slice(&s.octets());
            ip.extend_from_slice(&d.octets());
            (ip, Version::V4)
        }
        (IpAddr::V6(s), IpAddr::V6(d)) => {
            let mut ip = vec![0x60, 0, 0, 0, 0, 20, 6, 64];
            ip.extend_from_slice(&s.octets());
            ip.extend_from_slice(&d.octets());
            (ip, Version::V6)
        }
        _ => unreachable!("a line's two prefixes are of one family"),
    };
    let at = ip.len();
    ip.extend_from_slice(&sport.to_be_bytes());
    ip.extend_from_slice(&dport.to_be_bytes());
    ip.resize(at + 20, 0);
    ip[at + 12] = 5 << 4;
    let seg = Segment {
        at,
        len: 20,
        header_len: 20,
    };
    (ip, version, seg)
}
