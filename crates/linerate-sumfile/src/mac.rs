//! The check lines of `linerate mac --check`: md5sum's line syntax with one
//! MAC's tag and tag length ([`MacDialect`]). Here rather than in the CLI so
//! that the fuzz targets (`fuzz/`) reach the parser without the binary.

use linerate::MacAlgorithm;

use crate::check::{Dialect, decode_hex_into};

/// The checksum lines of one MAC: `HEX  NAME` with as many hex digits as
/// its tag has (8 for UMAC-32 to 40 for HMAC-SHA1), or the BSD
/// `HMAC-MD5 (NAME) = HEX` with its own tag. A BSD line of another MAC (or
/// of MD5) is improperly formatted, as is a digest of another length: one
/// key and nonce serve one MAC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MacDialect(pub MacAlgorithm);

impl Dialect for MacDialect {
    type Function = MacAlgorithm;
    type Digest = Vec<u8>;

    fn hex_len(&self) -> usize {
        2 * self.0.tag_len()
    }

    fn is_tagged(&self, s: &[u8]) -> bool {
        // Hex digits never start a tag, so an untagged line is never taken
        // for a tagged one.
        s.starts_with(self.0.tag().as_bytes())
    }

    fn parse_tag(&self, s: &[u8]) -> Option<(MacAlgorithm, usize, usize)> {
        self.is_tagged(s)
            .then(|| (self.0, self.0.tag().len(), self.hex_len()))
    }

    fn decode(&self, hex: &[u8]) -> Option<Vec<u8>> {
        let mut tag = vec![0u8; hex.len() / 2];
        decode_hex_into(hex, &mut tag).then_some(tag)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{Form, Layout, LineOf, parse_line};

    fn parse(algorithm: MacAlgorithm, line: &str) -> Option<LineOf<MacDialect>> {
        parse_line(
            &MacDialect(algorithm),
            line.as_bytes(),
            &mut Layout::default(),
        )
    }

    #[test]
    fn lines_of_each_tag_length() {
        for algorithm in MacAlgorithm::ALL {
            let tag: Vec<u8> = (0..algorithm.tag_len() as u8).collect();
            let hex: String = tag.iter().map(|b| format!("{b:02x}")).collect();
            let gnu = parse(algorithm, &format!("{hex}  a b")).unwrap();
            assert_eq!(
                (gnu.digest.as_slice(), &gnu.name[..]),
                (&tag[..], &b"a b"[..])
            );
            assert_eq!((gnu.form, gnu.tag), (Form::Gnu, None));
            let bsd = parse(
                algorithm,
                &format!("{} (x) = {}", algorithm.tag(), hex.to_uppercase()),
            )
            .unwrap();
            assert_eq!(bsd.digest, tag);
            assert_eq!((bsd.form, bsd.tag), (Form::Tagged, Some(algorithm)));
            // One digit short or long, or another MAC's tag: malformed.
            assert_eq!(parse(algorithm, &format!("{}  a", &hex[1..])), None);
            assert_eq!(parse(algorithm, &format!("{hex}0  a")), None);
            for other in MacAlgorithm::ALL.into_iter().filter(|&o| o != algorithm) {
                let line = format!("{} (x) = {hex}", other.tag());
                assert_eq!(parse(algorithm, &line), None, "{line}");
            }
            assert_eq!(parse(algorithm, &format!("MD5 (x) = {hex}")), None);
        }
    }

    #[test]
    fn escaped_names() {
        let hex = "00112233";
        let line = parse(MacAlgorithm::Umac32, &format!("\\{hex}  a\\nb")).unwrap();
        assert_eq!(line.name, b"a\nb");
        let line = parse(MacAlgorithm::Umac32, &format!("\\UMAC-32 (a\\\\b) = {hex}")).unwrap();
        assert_eq!(line.name, b"a\\b");
    }
}
