//! The 64 MD5 steps as a table for the `asm!` kernels without ternlog
//! (AVX2, SSE2): each row names the registers (a, b, c, d) in their
//! rotation, the round function (F, G, H, I), the message word `X_INDEX[i]`,
//! the step `i` (which selects its constant) and the rotation `S[i]`.
//! `md5_steps!(emit)` hands the rows to the macro `emit`.

macro_rules! md5_steps {
    ($emit:ident) => {
        $emit!(
            a, b, c, d, F,  0,  0,  7;
            d, a, b, c, F,  1,  1, 12;
            c, d, a, b, F,  2,  2, 17;
            b, c, d, a, F,  3,  3, 22;
            a, b, c, d, F,  4,  4,  7;
            d, a, b, c, F,  5,  5, 12;
            c, d, a, b, F,  6,  6, 17;
            b, c, d, a, F,  7,  7, 22;
            a, b, c, d, F,  8,  8,  7;
            d, a, b, c, F,  9,  9, 12;
            c, d, a, b, F, 10, 10, 17;
            b, c, d, a, F, 11, 11, 22;
            a, b, c, d, F, 12, 12,  7;
            d, a, b, c, F, 13, 13, 12;
            c, d, a, b, F, 14, 14, 17;
            b, c, d, a, F, 15, 15, 22;
            a, b, c, d, G,  1, 16,  5;
            d, a, b, c, G,  6, 17,  9;
            c, d, a, b, G, 11, 18, 14;
            b, c, d, a, G,  0, 19, 20;
            a, b, c, d, G,  5, 20,  5;
            d, a, b, c, G, 10, 21,  9;
            c, d, a, b, G, 15, 22, 14;
            b, c, d, a, G,  4, 23, 20;
            a, b, c, d, G,  9, 24,  5;
            d, a, b, c, G, 14, 25,  9;
            c, d, a, b, G,  3, 26, 14;
            b, c, d, a, G,  8, 27, 20;
            a, b, c, d, G, 13, 28,  5;
            d, a, b, c, G,  2, 29,  9;
            c, d, a, b, G,  7, 30, 14;
            b, c, d, a, G, 12, 31, 20;
            a, b, c, d, H,  5, 32,  4;
            d, a, b, c, H,  8, 33, 11;
            c, d, a, b, H, 11, 34, 16;
            b, c, d, a, H, 14, 35, 23;
            a, b, c, d, H,  1, 36,  4;
            d, a, b, c, H,  4, 37, 11;
            c, d, a, b, H,  7, 38, 16;
            b, c, d, a, H, 10, 39, 23;
            a, b, c, d, H, 13, 40,  4;
            d, a, b, c, H,  0, 41, 11;
            c, d, a, b, H,  3, 42, 16;
            b, c, d, a, H,  6, 43, 23;
            a, b, c, d, H,  9, 44,  4;
            d, a, b, c, H, 12, 45, 11;
            c, d, a, b, H, 15, 46, 16;
            b, c, d, a, H,  2, 47, 23;
            a, b, c, d, I,  0, 48,  6;
            d, a, b, c, I,  7, 49, 10;
            c, d, a, b, I, 14, 50, 15;
            b, c, d, a, I,  5, 51, 21;
            a, b, c, d, I, 12, 52,  6;
            d, a, b, c, I,  3, 53, 10;
            c, d, a, b, I, 10, 54, 15;
            b, c, d, a, I,  1, 55, 21;
            a, b, c, d, I,  8, 56,  6;
            d, a, b, c, I, 15, 57, 10;
            c, d, a, b, I,  6, 58, 15;
            b, c, d, a, I, 13, 59, 21;
            a, b, c, d, I,  4, 60,  6;
            d, a, b, c, I, 11, 61, 10;
            c, d, a, b, I,  2, 62, 15;
            b, c, d, a, I,  9, 63, 21;
        )
    };
}

pub(crate) use md5_steps;

#[cfg(test)]
mod tests {
    use crate::md5::reference::{S, X_INDEX};

    macro_rules! collect {
        ($($a:ident, $b:ident, $c:ident, $d:ident, $f:ident, $x:literal, $k:literal, $s:literal;)*) => {
            [$((stringify!($a), stringify!($f), $x, $k, $s)),*]
        };
    }

    #[test]
    fn the_table_is_rfc_1321s_schedule() {
        let rows = md5_steps!(collect);
        for (i, (a, f, x, k, s)) in rows.into_iter().enumerate() {
            assert_eq!(a, ["a", "d", "c", "b"][i % 4], "step {i}");
            assert_eq!(f, ["F", "G", "H", "I"][i / 16], "step {i}");
            assert_eq!((x, k, s), (X_INDEX[i], i, S[i]), "step {i}");
        }
    }
}
