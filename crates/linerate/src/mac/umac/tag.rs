//! The tag a UMAC computes: 4, 8, 12 or 16 bytes, kept inline.

use std::fmt;
use std::ops::Deref;
use subtle::{Choice, ConstantTimeEq};

/// A UMAC tag. Derefs to its bytes; `==` compares in constant time (for
/// the contents; the lengths are public).
#[derive(Clone, Copy)]
pub struct Tag {
    bytes: [u8; 16],
    len: u8,
}

impl Tag {
    /// The tag whose bytes are the first `len` (4, 8, 12 or 16) of `bytes`.
    pub(super) fn new(bytes: [u8; 16], len: usize) -> Tag {
        debug_assert!(matches!(len, 4 | 8 | 12 | 16));
        Tag {
            bytes,
            len: len as u8,
        }
    }

    /// The tag's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }

    /// The tag in lowercase hexadecimal.
    pub fn to_hex(&self) -> String {
        self.to_string()
    }
}

impl Deref for Tag {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl AsRef<[u8]> for Tag {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl From<Tag> for Vec<u8> {
    fn from(tag: Tag) -> Vec<u8> {
        tag.as_bytes().to_vec()
    }
}

impl ConstantTimeEq for Tag {
    fn ct_eq(&self, other: &Tag) -> Choice {
        self.as_bytes().ct_eq(other.as_bytes())
    }
}

impl PartialEq for Tag {
    fn eq(&self, other: &Tag) -> bool {
        self.ct_eq(other).into()
    }
}

impl Eq for Tag {}

impl PartialEq<[u8]> for Tag {
    fn eq(&self, other: &[u8]) -> bool {
        self.as_bytes().ct_eq(other).into()
    }
}

impl fmt::Display for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.as_bytes() {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tag({self})")
    }
}
