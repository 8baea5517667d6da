//! Keys per connection, as routers configure TCP-MD5 and TCP-AO per peer:
//! a table whose lines map a pair of address prefixes (and optionally a
//! port) to a key. A segment takes the key of the first line whose two
//! prefixes hold its two addresses (either way round) and whose port, if
//! the line has one, is one of its ports. One key for every segment is
//! the table of a single line that matches everything.
//!
//! ```text
//! # LOCAL-PREFIX   PEER-PREFIX      [PORT]  KEY
//! 10.0.0.1         10.0.0.2                 hex:6b657931
//! 192.0.2.0/24     198.51.100.7     179     env:BGP_PEER7_KEY
//! fd00::/64        fd00::2                  file:peer2.key
//! ```
//!
//! KEY is `hex:HEX`, `env:NAME` (hexadecimal in that environment
//! variable) or `file:PATH` (the file's bytes exactly; a relative path is
//! taken from the table's directory). Blank lines and `#` comments are
//! skipped. A line that cannot be read is an error naming its number.

use std::fs::File;
use std::io::{self, Read};
use std::net::IpAddr;
use std::path::Path;

use zeroize::Zeroizing;

use crate::ip::Version;
use crate::tcp::Segment;

/// The largest key file read, in bytes, wherever a key comes from a file
/// (`file:` in a key table, `--key-file` of `packets` and `mac`): HMAC
/// hashes a key longer than a block (64 bytes) anyway, and the bound stops
/// `file:/dev/zero` or an endless FIFO.
pub const MAX_KEY_FILE: usize = 64 * 1024;

/// The largest key table read, in bytes (about ten thousand lines).
pub const MAX_TABLE: usize = 1 << 20;

/// Opens a key file (or table) for reading. A FIFO is read from the writer
/// that has it open; where none has, it reads as empty instead of waiting
/// for one (the open does not block).
pub fn open_key_file(path: &Path) -> io::Result<File> {
    use rustix::fs::OFlags;
    use std::os::unix::fs::OpenOptionsExt;
    let nonblocking = (OFlags::NONBLOCK | OFlags::NOCTTY).bits();
    let file = File::options()
        .read(true)
        .custom_flags(nonblocking as i32)
        .open(path)?;
    // Reads wait for data again, as for any file (a FIFO's writer that
    // has it open; a FIFO without one is at its end).
    let flags = rustix::fs::fcntl_getfl(&file)?;
    rustix::fs::fcntl_setfl(&file, flags - OFlags::NONBLOCK)?;
    Ok(file)
}

/// Reads `reader` to its end into a wiped buffer, at most `limit` bytes:
/// `None` where there is more (the buffer, allocated once, never grows,
/// so no copy of a key is left behind by a reallocation).
pub fn read_bounded(mut reader: impl Read, limit: usize) -> io::Result<Option<Zeroizing<Vec<u8>>>> {
    let mut buf = Zeroizing::new(vec![0u8; limit + 1]);
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    if filled > limit {
        return Ok(None);
    }
    buf.truncate(filled);
    Ok(Some(buf))
}

/// What [`read_bounded`] says of a file over `limit` bytes.
pub fn too_long(limit: usize) -> String {
    format!("longer than {limit} bytes (is it the right file?)")
}

/// An I/O error's words without Rust's ` (os error N)`.
pub fn error_words(e: &io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error ") {
        Some(at) if e.raw_os_error().is_some() => text[..at].to_string(),
        _ => text,
    }
}

/// An address prefix: the address and how many leading bits count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prefix {
    addr: IpAddr,
    bits: u8,
}

impl Prefix {
    /// The prefix of every address of both families.
    const ANY: Option<Prefix> = None;

    fn parse(text: &str) -> Result<Prefix, String> {
        let (addr, bits) = match text.split_once('/') {
            Some((a, b)) => (a, Some(b)),
            None => (text, None),
        };
        let addr: IpAddr = addr
            .parse()
            .map_err(|_| format!("'{text}' is not an IPv4 or IPv6 address or prefix"))?;
        let max = if addr.is_ipv4() { 32 } else { 128 };
        let bits = match bits {
            None => max,
            Some(b) => b
                .parse::<u8>()
                .ok()
                .filter(|b| *b <= max)
                .ok_or_else(|| format!("'{text}': prefix length must be 0 to {max}"))?,
        };
        Ok(Prefix { addr, bits })
    }

    fn holds(&self, addr: &[u8]) -> bool {
        let own: Vec<u8> = match self.addr {
            IpAddr::V4(a) => a.octets().to_vec(),
            IpAddr::V6(a) => a.octets().to_vec(),
        };
        if own.len() != addr.len() {
            return false;
        }
        let whole = usize::from(self.bits / 8);
        let rest = self.bits % 8;
        own[..whole] == addr[..whole]
            && (rest == 0 || (own[whole] ^ addr[whole]) >> (8 - rest) == 0)
    }
}

/// One line of a table.
struct Entry {
    ends: [Option<Prefix>; 2],
    port: Option<u16>,
    key: Zeroizing<Vec<u8>>,
}

/// Keys by connection.
pub struct KeyTable {
    entries: Vec<Entry>,
}

/// A line of a table that could not be read: its number (from 1) and why.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("line {line}: {why}")]
pub struct TableError {
    pub line: usize,
    pub why: String,
}

impl KeyTable {
    /// One key for every segment.
    pub fn single(key: Zeroizing<Vec<u8>>) -> KeyTable {
        KeyTable {
            entries: vec![Entry {
                ends: [Prefix::ANY, Prefix::ANY],
                port: None,
                key,
            }],
        }
    }

    /// Reads a table's text; `dir` is where relative `file:` keys are, and
    /// `env` looks up `env:` keys.
    pub fn parse(
        text: &str,
        dir: &Path,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<KeyTable, TableError> {
        let mut entries = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let fail = |why: String| TableError { line: i + 1, why };
            let line = line.split('#').next().unwrap_or_default().trim();
            if line.is_empty() {
                continue;
            }
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (a, b, port, key) = match fields.as_slice() {
                [a, b, key] => (a, b, None, key),
                [a, b, port, key] => (a, b, Some(port), key),
                _ => {
                    return Err(fail("give LOCAL-PREFIX PEER-PREFIX [PORT] KEY".to_string()));
                }
            };
            let a = Prefix::parse(a).map_err(fail)?;
            let b = Prefix::parse(b).map_err(fail)?;
            if a.addr.is_ipv4() != b.addr.is_ipv4() {
                return Err(fail("the two prefixes are of different families".into()));
            }
            let port = match port {
                None => None,
                Some(p) => Some(
                    p.parse::<u16>()
                        .ok()
                        .filter(|p| *p > 0)
                        .ok_or_else(|| fail(format!("'{p}' is not a TCP port")))?,
                ),
            };
            let key = load(key, dir, env).map_err(fail)?;
            entries.push(Entry {
                ends: [Some(a), Some(b)],
                port,
                key,
            });
        }
        if entries.is_empty() {
            return Err(TableError {
                line: 0,
                why: "no keys in the table".into(),
            });
        }
        Ok(KeyTable { entries })
    }

    /// The key of the segment `seg` of `ip`, if a line matches it.
    pub fn key_for(&self, ip: &[u8], version: Version, seg: &Segment) -> Option<&[u8]> {
        let (src, dst) = match version {
            Version::V4 => (&ip[12..16], &ip[16..20]),
            Version::V6 => (&ip[8..24], &ip[24..40]),
        };
        let port = |at: usize| u16::from_be_bytes([ip[seg.at + at], ip[seg.at + at + 1]]);
        let (sport, dport) = (port(0), port(2));
        let holds = |p: &Option<Prefix>, addr: &[u8]| p.is_none_or(|p| p.holds(addr));
        self.entries
            .iter()
            .find(|e| {
                let [a, b] = &e.ends;
                let pair = (holds(a, src) && holds(b, dst)) || (holds(a, dst) && holds(b, src));
                pair && e.port.is_none_or(|p| p == sport || p == dport)
            })
            .map(|e| &e.key[..])
    }

    /// Whether it is one key for everything (no table).
    pub fn is_single(&self) -> bool {
        self.entries.len() == 1 && self.entries[0].ends == [Prefix::ANY, Prefix::ANY]
    }
}

/// A `hex:`, `env:` or `file:` key.
fn load(
    spec: &str,
    dir: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Zeroizing<Vec<u8>>, String> {
    let from_hex = |hex: &str, what: &str| -> Result<Zeroizing<Vec<u8>>, String> {
        if hex.is_empty()
            || !hex.len().is_multiple_of(2)
            || !hex.bytes().all(|c| c.is_ascii_hexdigit())
        {
            return Err(format!(
                "{what} is not an even number of hexadecimal digits"
            ));
        }
        Ok(Zeroizing::new(
            (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex digits"))
                .collect(),
        ))
    };
    if let Some(hex) = spec.strip_prefix("hex:") {
        from_hex(hex, "the hex: key")
    } else if let Some(name) = spec.strip_prefix("env:") {
        let value = Zeroizing::new(
            env(name).ok_or_else(|| format!("environment variable {name} is not set"))?,
        );
        from_hex(value.trim(), &format!("environment variable {name}"))
    } else if let Some(path) = spec.strip_prefix("file:") {
        let failure = |why: String| format!("cannot read key file {path}: {why}");
        let file = open_key_file(&dir.join(path)).map_err(|e| failure(error_words(&e)))?;
        let key = read_bounded(file, MAX_KEY_FILE)
            .map_err(|e| failure(error_words(&e)))?
            .ok_or_else(|| failure(too_long(MAX_KEY_FILE)))?;
        if key.is_empty() {
            return Err(format!("key file {path} is empty"));
        }
        Ok(key)
    } else {
        // Never echo what may be a key written without its kind.
        Err("KEY must be hex:HEX, env:NAME or file:PATH".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg_of(src: [u8; 4], dst: [u8; 4], sport: u16, dport: u16) -> (Vec<u8>, Segment) {
        let mut ip = vec![0x45, 0, 0, 40, 0, 0, 0, 0, 64, 6, 0, 0];
        ip.extend_from_slice(&src);
        ip.extend_from_slice(&dst);
        ip.extend_from_slice(&sport.to_be_bytes());
        ip.extend_from_slice(&dport.to_be_bytes());
        ip.resize(40, 0);
        (
            ip,
            Segment {
                at: 20,
                len: 20,
                header_len: 20,
            },
        )
    }

    fn table(text: &str) -> Result<KeyTable, TableError> {
        let env = |name: &str| (name == "K7").then(|| "6b37".to_string());
        KeyTable::parse(text, Path::new("/nonexistent"), &env)
    }

    #[test]
    fn first_matching_line_either_way_round() {
        let t = table(
            "# comment\n\n10.0.0.1 10.0.0.2 hex:6b31  # peer one\n\
             192.0.2.0/24 198.51.100.7 179 env:K7\n0.0.0.0/0 0.0.0.0/0 hex:6466\n\
             fd00::/64 fd00::2 hex:7636\n",
        )
        .unwrap();
        let key = |src, dst, sp, dp| {
            let (ip, seg) = seg_of(src, dst, sp, dp);
            t.key_for(&ip, Version::V4, &seg).map(<[u8]>::to_vec)
        };
        assert_eq!(
            key([10, 0, 0, 1], [10, 0, 0, 2], 1, 2),
            Some(b"k1".to_vec())
        );
        assert_eq!(
            key([10, 0, 0, 2], [10, 0, 0, 1], 2, 1),
            Some(b"k1".to_vec())
        );
        assert_eq!(
            key([198, 51, 100, 7], [192, 0, 2, 200], 40000, 179),
            Some(b"k7".to_vec())
        );
        // The port does not match: the catch-all line.
        assert_eq!(
            key([198, 51, 100, 7], [192, 0, 2, 200], 40000, 80),
            Some(b"df".to_vec())
        );
        assert!(!t.is_single());
        assert!(KeyTable::single(Zeroizing::new(vec![1])).is_single());
    }

    #[test]
    fn prefixes_hold_what_they_should() {
        let p = Prefix::parse("192.0.2.128/25").unwrap();
        assert!(p.holds(&[192, 0, 2, 200]) && !p.holds(&[192, 0, 2, 127]));
        assert!(Prefix::parse("0.0.0.0/0").unwrap().holds(&[1, 2, 3, 4]));
        let v6 = Prefix::parse("fd00::/13").unwrap();
        assert!(v6.holds(&[0xfd, 0x07, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]));
        assert!(!v6.holds(&[0xfd, 0x08, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]));
        assert!(!v6.holds(&[192, 0, 2, 1]));
    }

    #[test]
    fn bad_lines_say_which_and_never_show_a_key() {
        for (text, line, why) in [
            ("10.0.0.1 hex:00\n", 1, "give LOCAL-PREFIX"),
            ("\n10.0.0.1 10.0.0.300 hex:00\n", 2, "not an IPv4 or IPv6"),
            ("10.0.0.0/33 10.0.0.1 hex:00\n", 1, "0 to 32"),
            ("10.0.0.1 fd00::1 hex:00\n", 1, "different families"),
            ("10.0.0.1 10.0.0.2 0 hex:00\n", 1, "not a TCP port"),
            ("10.0.0.1 10.0.0.2 hex:0\n", 1, "hexadecimal"),
            ("10.0.0.1 10.0.0.2 env:NOPE\n", 1, "NOPE is not set"),
            (
                "10.0.0.1 10.0.0.2 file:missing.key\n",
                1,
                "key file missing.key",
            ),
            ("10.0.0.1 10.0.0.2 s3cr3tpassword\n", 1, "KEY must be"),
            ("# nothing\n", 0, "no keys"),
        ] {
            let e = table(text)
                .err()
                .unwrap_or_else(|| panic!("{text:?} was read"));
            assert_eq!(e.line, line, "{text:?}");
            assert!(e.why.contains(why), "{text:?}: {}", e.why);
            assert!(!e.to_string().contains("s3cr3t"));
        }
    }
}
