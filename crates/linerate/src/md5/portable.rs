//! Portable MD5 compression: the reference's 64 steps fully unrolled, with
//! the auxiliary functions in the forms that give the shortest dependency
//! chain on `b` (the previous step's output). Used on every target without a
//! dedicated backend, and as a fallback on x86-64 CPUs without BMI1.

use super::reference::{S, T, X_INDEX};

#[inline(always)]
fn step<const I: usize>(a: u32, b: u32, c: u32, d: u32, x: &[u32; 16]) -> u32 {
    // Everything that does not depend on `b` first, so the compiler can hoist it.
    let early = a.wrapping_add(x[X_INDEX[I]]).wrapping_add(T[I]);
    let sum = match I / 16 {
        // F = d ^ (b & (c ^ d)): `c ^ d` is ready before `b`.
        0 => early.wrapping_add(d ^ (b & (c ^ d))),
        // G = (b & d) + (c & !d): the two terms share no set bits, so `|` is `+`
        // and `c & !d` joins the early sum.
        1 => early.wrapping_add(c & !d).wrapping_add(b & d),
        2 => early.wrapping_add(b ^ c ^ d),
        _ => early.wrapping_add(c ^ (b | !d)),
    };
    b.wrapping_add(sum.rotate_left(S[I]))
}

macro_rules! four_steps {
    ($a:ident, $b:ident, $c:ident, $d:ident, $x:ident, $i:literal) => {
        $a = step::<{ $i }>($a, $b, $c, $d, &$x);
        $d = step::<{ $i + 1 }>($d, $a, $b, $c, &$x);
        $c = step::<{ $i + 2 }>($c, $d, $a, $b, &$x);
        $b = step::<{ $i + 3 }>($b, $c, $d, $a, &$x);
    };
}

/// Compresses consecutive blocks.
pub fn compress(state: &mut [u32; 4], blocks: &[[u8; 64]]) {
    let [mut sa, mut sb, mut sc, mut sd] = *state;
    for block in blocks {
        let mut x = [0u32; 16];
        for (word, bytes) in x.iter_mut().zip(block.chunks_exact(4)) {
            *word = u32::from_le_bytes(bytes.try_into().unwrap());
        }
        let (mut a, mut b, mut c, mut d) = (sa, sb, sc, sd);
        four_steps!(a, b, c, d, x, 0);
        four_steps!(a, b, c, d, x, 4);
        four_steps!(a, b, c, d, x, 8);
        four_steps!(a, b, c, d, x, 12);
        four_steps!(a, b, c, d, x, 16);
        four_steps!(a, b, c, d, x, 20);
        four_steps!(a, b, c, d, x, 24);
        four_steps!(a, b, c, d, x, 28);
        four_steps!(a, b, c, d, x, 32);
        four_steps!(a, b, c, d, x, 36);
        four_steps!(a, b, c, d, x, 40);
        four_steps!(a, b, c, d, x, 44);
        four_steps!(a, b, c, d, x, 48);
        four_steps!(a, b, c, d, x, 52);
        four_steps!(a, b, c, d, x, 56);
        four_steps!(a, b, c, d, x, 60);
        sa = sa.wrapping_add(a);
        sb = sb.wrapping_add(b);
        sc = sc.wrapping_add(c);
        sd = sd.wrapping_add(d);
    }
    *state = [sa, sb, sc, sd];
}
