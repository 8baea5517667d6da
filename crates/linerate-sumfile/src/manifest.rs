//! Reading a manifest: the checksum lines of `linerate sum` (`-r`, `--tag`)
//! or md5sum, parsed by `--check`'s own parser ([`crate::check`]), so
//! a manifest audits exactly when `linerate sum -c` would read it.
//!
//! Comments (`#`) and empty lines are skipped as `--check` skips them. A
//! line the parser rejects, or one naming a path an earlier line already
//! named (after [`normalize`]), is a defect: kept with its line number,
//! never audited. The first line for a path is the one that counts.

use std::collections::HashMap;
use std::collections::hash_map::Entry as Slot;
use std::io::{self, BufRead};

use crate::check::{self, Layout};
use crate::cksum::SumFamily;
use crate::paths::normalize;
use linerate::cksum::DigestAlgorithm;

/// A file the manifest lists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The path, normalised: relative to the audited directory, or absolute.
    pub name: Vec<u8>,
    pub digest: Vec<u8>,
    /// The line's tag's function, else `-a`'s.
    pub algorithm: DigestAlgorithm,
    /// 1-based.
    pub line: u64,
}

/// A line that cannot be audited.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Defect {
    /// 1-based.
    pub line: u64,
    pub kind: DefectKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DefectKind {
    /// Not a checksum line `linerate sum -c` accepts.
    Malformed,
    /// The path `name` (normalised) was listed first on line `first`, with
    /// the same function (a dual manifest lists each path once per function).
    Duplicate { first: u64, name: Vec<u8> },
}

impl DefectKind {
    /// What is wrong, without the path: `improperly formatted checksum
    /// line`, `duplicate of line 3`.
    pub fn reason(&self) -> String {
        match self {
            DefectKind::Malformed => "improperly formatted checksum line".to_string(),
            DefectKind::Duplicate { first, .. } => format!("duplicate of line {first}"),
        }
    }
}

/// A manifest as read: its entries and its defects, each in line order.
#[derive(Debug, Default)]
pub struct Manifest {
    pub entries: Vec<Entry>,
    pub defects: Vec<Defect>,
}

/// Reads every line of `reader`; untagged lines are hashed with `algorithm`,
/// tagged ones (MD5, MD5-P/K, SHA-256, ...) with their tag's. Fails only if
/// reading fails.
pub fn read(mut reader: impl BufRead, algorithm: DigestAlgorithm) -> io::Result<Manifest> {
    let dialect = SumFamily {
        untagged: algorithm,
    };
    let mut manifest = Manifest::default();
    let mut layout = Layout::default();
    let mut first_line: HashMap<(Vec<u8>, DigestAlgorithm), u64> = HashMap::new();
    let mut raw = Vec::new();
    for line in 1u64.. {
        raw.clear();
        if reader.read_until(b'\n', &mut raw)? == 0 {
            break;
        }
        let Some(content) = check::line_content(&raw) else {
            continue;
        };
        let Some(parsed) = check::parse_line(&dialect, content, &mut layout) else {
            manifest.defects.push(Defect {
                line,
                kind: DefectKind::Malformed,
            });
            continue;
        };
        let name = normalize(&parsed.name);
        let function = parsed.tag.unwrap_or(algorithm);
        match first_line.entry((name, function)) {
            Slot::Occupied(slot) => manifest.defects.push(Defect {
                line,
                kind: DefectKind::Duplicate {
                    first: *slot.get(),
                    name: slot.key().0.clone(),
                },
            }),
            Slot::Vacant(slot) => {
                manifest.entries.push(Entry {
                    name: slot.key().0.clone(),
                    digest: parsed.digest,
                    algorithm: function,
                    line,
                });
                slot.insert(line);
            }
        }
    }
    Ok(manifest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use linerate::HashAlgorithm;

    const HEX: &str = "900150983cd24fb0d6963f7d28e17f72";
    fn entry(name: &[u8], algorithm: HashAlgorithm, line: u64) -> Entry {
        Entry {
            name: name.to_vec(),
            digest: hex::decode(HEX).unwrap(),
            algorithm: DigestAlgorithm::Hash(algorithm),
            line,
        }
    }

    #[test]
    fn every_line_form_with_its_function() {
        let text = format!(
            "# made by hand\n{HEX}  ./a\n{HEX} *b//c\n\nMD5P16 (d) = {HEX}\r\n\\{HEX}  e\\nf\nMD5 (/abs) = {HEX}\n"
        );
        let m = read(
            text.as_bytes(),
            DigestAlgorithm::Hash(HashAlgorithm::Md5p(8)),
        )
        .unwrap();
        assert_eq!(
            m.entries,
            vec![
                entry(b"a", HashAlgorithm::Md5p(8), 2),
                entry(b"b/c", HashAlgorithm::Md5p(8), 3),
                entry(b"d", HashAlgorithm::Md5p(16), 5),
                entry(b"e\nf", HashAlgorithm::Md5p(8), 6),
                entry(b"/abs", HashAlgorithm::Md5, 7),
            ]
        );
        assert!(m.defects.is_empty());
    }

    #[test]
    fn malformed_and_duplicate_lines_are_defects() {
        let text = format!("{HEX}  a\ngarbage\n{HEX}  ./a\nMD5P6 (x) = {HEX}\n{HEX}  b");
        let m = read(text.as_bytes(), DigestAlgorithm::Hash(HashAlgorithm::Md5)).unwrap();
        assert_eq!(
            m.entries,
            vec![
                entry(b"a", HashAlgorithm::Md5, 1),
                entry(b"b", HashAlgorithm::Md5, 5)
            ]
        );
        assert_eq!(
            m.defects,
            vec![
                Defect {
                    line: 2,
                    kind: DefectKind::Malformed
                },
                Defect {
                    line: 3,
                    kind: DefectKind::Duplicate {
                        first: 1,
                        name: b"a".to_vec()
                    }
                },
                Defect {
                    line: 4,
                    kind: DefectKind::Malformed
                },
            ]
        );
        assert_eq!(m.defects[1].kind.reason(), "duplicate of line 1");
    }

    #[test]
    fn a_dual_manifest_lists_each_path_once_per_function() {
        let sha = "ab".repeat(32);
        let text = format!("{HEX}  a\nSHA256 (a) = {sha}\nSHA256 (./a) = {sha}\n");
        let m = read(text.as_bytes(), DigestAlgorithm::default()).unwrap();
        assert_eq!(m.entries.len(), 2);
        assert_eq!(
            m.entries[1].algorithm,
            DigestAlgorithm::Cksum(linerate::cksum::CksumAlgorithm::Sha256)
        );
        assert_eq!(m.defects[0].kind.reason(), "duplicate of line 2");
    }

    #[test]
    fn a_read_error_is_returned() {
        struct Failing;
        impl io::Read for Failing {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("boom"))
            }
        }
        let result = read(io::BufReader::new(Failing), DigestAlgorithm::default());
        assert!(result.is_err());
    }
}
