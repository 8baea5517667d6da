//! RFC 1321's MD5 compression, written to be read beside the RFC.
//!
//! This is the oracle: every faster backend is tested against it. It follows
//! section 3.4 literally (the four auxiliary functions, the table `T`, the
//! per-round shift amounts and message-word orders) and makes no attempt to be
//! fast.

/// `T[i] = floor(2^32 * abs(sin(i + 1)))`, RFC 1321 section 3.4.
pub const T: [u32; 64] = [
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
];

/// The shift amounts `s` of each step.
pub const S: [u32; 64] = [
    7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, //
    5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, //
    4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, //
    6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
];

/// The message word `k` each step reads: `i`, `(1 + 5i)`, `(5 + 3i)`, `7i` mod 16 by round.
pub const X_INDEX: [usize; 64] = {
    let mut idx = [0usize; 64];
    let mut i = 0;
    while i < 16 {
        idx[i] = i;
        idx[16 + i] = (1 + 5 * i) % 16;
        idx[32 + i] = (5 + 3 * i) % 16;
        idx[48 + i] = (7 * i) % 16;
        i += 1;
    }
    idx
};

/// The initial chaining value (words A, B, C, D), RFC 1321 section 3.3.
pub const INIT: [u32; 4] = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476];

fn f(x: u32, y: u32, z: u32) -> u32 {
    (x & y) | (!x & z)
}
fn g(x: u32, y: u32, z: u32) -> u32 {
    (x & z) | (y & !z)
}
fn h(x: u32, y: u32, z: u32) -> u32 {
    x ^ y ^ z
}
fn i(x: u32, y: u32, z: u32) -> u32 {
    y ^ (x | !z)
}

/// Processes one 64-byte block: RFC 1321 section 3.4, steps 1 to 64.
pub fn compress_block(state: &mut [u32; 4], block: &[u8; 64]) {
    // "Copy block i into X": sixteen little-endian words.
    let mut x = [0u32; 16];
    for (j, word) in x.iter_mut().enumerate() {
        *word = u32::from_le_bytes(block[4 * j..4 * j + 4].try_into().unwrap());
    }
    let [mut a, mut b, mut c, mut d] = *state;
    for step in 0..64 {
        let aux = match step / 16 {
            0 => f(b, c, d),
            1 => g(b, c, d),
            2 => h(b, c, d),
            _ => i(b, c, d),
        };
        // a = b + ((a + AUX(b,c,d) + X[k] + T[i]) <<< s), then rename (a,b,c,d) <- (d,a,b,c).
        let sum = a
            .wrapping_add(aux)
            .wrapping_add(x[X_INDEX[step]])
            .wrapping_add(T[step]);
        let new_b = b.wrapping_add(sum.rotate_left(S[step]));
        (a, b, c, d) = (d, new_b, b, c);
    }
    // "Then perform the following additions."
    state[0] = state[0].wrapping_add(a);
    state[1] = state[1].wrapping_add(b);
    state[2] = state[2].wrapping_add(c);
    state[3] = state[3].wrapping_add(d);
}

/// Compresses consecutive blocks.
pub fn compress(state: &mut [u32; 4], blocks: &[[u8; 64]]) {
    for block in blocks {
        compress_block(state, block);
    }
}

/// Whole-message MD5 by the RFC: pad with 0x80, zeros to 56 mod 64, and the
/// bit length as a little-endian 64-bit integer (section 3.1 and 3.2).
pub fn md5(message: &[u8]) -> [u8; 16] {
    let mut padded = message.to_vec();
    padded.push(0x80);
    while padded.len() % 64 != 56 {
        padded.push(0);
    }
    padded.extend_from_slice(&((message.len() as u64).wrapping_mul(8)).to_le_bytes());
    let mut state = INIT;
    for block in padded.chunks_exact(64) {
        compress_block(&mut state, block.try_into().unwrap());
    }
    let mut out = [0u8; 16];
    for (chunk, word) in out.chunks_exact_mut(4).zip(state) {
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    out
}
