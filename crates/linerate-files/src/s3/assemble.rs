//! The part digests of an upload folded into its ETag.

use std::collections::BTreeMap;

use linerate::Md5;
use linerate_sumfile::etag::Etag;

/// The part digests of one upload, arriving in any order, folded into the
/// ETag in part order. Only digests that arrive ahead of a missing one are
/// kept.
pub struct Assembler {
    parts: u64,
    next: u64,
    waiting: BTreeMap<u64, [u8; 16]>,
    md5: Md5,
}

impl Assembler {
    /// An upload of `parts` parts.
    pub fn new(parts: u64) -> Assembler {
        Assembler {
            parts,
            next: 0,
            waiting: BTreeMap::new(),
            md5: Md5::new(),
        }
    }

    /// Records the digest of part `index` (0-based).
    pub fn add(&mut self, index: u64, digest: [u8; 16]) {
        if index != self.next {
            self.waiting.insert(index, digest);
            return;
        }
        self.md5.update(digest);
        self.next += 1;
        while let Some(digest) = self.waiting.remove(&self.next) {
            self.md5.update(digest);
            self.next += 1;
        }
    }

    /// Whether every part has been recorded.
    pub fn is_complete(&self) -> bool {
        self.next == self.parts
    }

    /// The ETag, once complete.
    pub fn finish(&self) -> Etag {
        debug_assert!(self.is_complete());
        Etag {
            digest: self.md5.clone().finalize(),
            parts: Some(self.parts),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assembling_in_any_order_is_md5_of_the_digests_in_part_order() {
        let digests: Vec<[u8; 16]> = (0..5u8).map(|i| linerate::md5(&[i])).collect();
        let mut want = Vec::new();
        for d in &digests {
            want.extend_from_slice(d);
        }
        let mut assembler = Assembler::new(5);
        for i in [3, 0, 4, 1] {
            assembler.add(i, digests[i as usize]);
            assert!(!assembler.is_complete());
        }
        assembler.add(2, digests[2]);
        assert!(assembler.is_complete());
        assert_eq!(
            assembler.finish(),
            Etag {
                digest: linerate::md5(&want),
                parts: Some(5)
            }
        );
    }
}
