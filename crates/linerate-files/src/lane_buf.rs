//! A read buffer that starts on a cache line.
//!
//! The lanes engine loads one 64-byte row per lane per block. A buffer from
//! the allocator usually starts 16 bytes past a page boundary (malloc's
//! header on a mapped chunk), so every row of a file read into it straddles
//! two cache lines. Measured with 32 lanes of 1 MiB, starting each lane on a
//! 64-byte boundary makes the engine (and isa-l_crypto's kernel alike)
//! about 13 % faster (docs/performance.md).

use std::ops::{Deref, DerefMut};

/// The alignment of a lane's rows: one cache line.
const ALIGN: usize = 64;

/// `len` bytes of zeros whose first byte is 64-byte aligned.
pub struct LaneBuf {
    /// `ALIGN - 1` bytes more than asked, so that an aligned start fits.
    bytes: Vec<u8>,
    start: usize,
}

impl LaneBuf {
    pub fn new(len: usize) -> LaneBuf {
        let bytes = vec![0; len + ALIGN - 1];
        let start = bytes.as_ptr().addr().wrapping_neg() % ALIGN;
        LaneBuf { bytes, start }
    }

    fn end(&self) -> usize {
        self.start + self.bytes.len() + 1 - ALIGN
    }
}

impl Deref for LaneBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.bytes[self.start..self.end()]
    }
}

impl DerefMut for LaneBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        let end = self.end();
        &mut self.bytes[self.start..end]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_on_a_cache_line_and_has_the_length_asked() {
        for len in [0, 1, 63, 64, 65, 4096, (256 << 10) + 4096] {
            let mut buf = LaneBuf::new(len);
            assert_eq!(buf.len(), len);
            assert_eq!(buf.as_ptr().addr() % ALIGN, 0, "{len}");
            assert!(buf.iter().all(|&b| b == 0));
            if len > 0 {
                buf[len - 1] = 9;
                assert_eq!(buf[len - 1], 9);
            }
        }
    }
}
