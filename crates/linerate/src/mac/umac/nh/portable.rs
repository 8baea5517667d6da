//! NH in plain Rust: the specification's loop, one 32-byte block at a time.

use super::{CHUNK, NhKey};

/// NH of `data` (at most 1024 bytes, zero-padded to a positive multiple of
/// 32) for streams `0..S`, without the length term.
pub(crate) fn nh<const S: usize>(key: &NhKey, data: &[u8]) -> [u64; S] {
    debug_assert!(data.len() <= CHUNK);
    let k = &key.words;
    let mut acc = [0u64; S];
    let mut blocks = data.chunks_exact(32);
    let mut offset = 0;
    for block in &mut blocks {
        block_into(&mut acc, &k[offset..], block.try_into().unwrap());
        offset += 8;
    }
    let tail = blocks.remainder();
    if !tail.is_empty() || data.is_empty() {
        let mut padded = [0u8; 32];
        padded[..tail.len()].copy_from_slice(tail);
        block_into(&mut acc, &k[offset..], &padded);
    }
    acc
}

/// Adds one block's terms to every stream; `k` starts at the block's first
/// key word.
#[inline(always)]
fn block_into<const S: usize>(acc: &mut [u64; S], k: &[u32], block: &[u8; 32]) {
    let m: [u32; 8] =
        std::array::from_fn(|i| u32::from_le_bytes(block[4 * i..4 * i + 4].try_into().unwrap()));
    for (s, sum) in acc.iter_mut().enumerate() {
        let k = &k[4 * s..4 * s + 8];
        for i in 0..4 {
            let a = m[i].wrapping_add(k[i]) as u64;
            let b = m[i + 4].wrapping_add(k[i + 4]) as u64;
            *sum = sum.wrapping_add(a * b);
        }
    }
}

/// NH of each 1024-byte chunk of `data` (a whole number of chunks), in
/// order, handed to `f`.
pub(crate) fn nh_chunks<const S: usize>(key: &NhKey, data: &[u8], mut f: impl FnMut([u64; S])) {
    debug_assert!(data.len().is_multiple_of(CHUNK));
    for chunk in data.chunks_exact(CHUNK) {
        f(nh::<S>(key, chunk));
    }
}
