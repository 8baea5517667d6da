//! Scalar x86-64 MD5 for CPUs without AVX-512: general-purpose registers,
//! BMI1 `andn`, and the auxiliary functions arranged so that as little as
//! possible waits for `b`, the previous step's output.
//!
//! Per step the chain from `b` is:
//! - F, I: two logic ops, add, rotate, add: 5 cycles;
//! - G: `(b & d) + (c & !d)`: the terms never share a set bit, so `|` is `+`
//!   and `c & !d` (`andn`) joins `a + M + K` early: one logic op, 4 cycles;
//! - H: `c ^ d` early, `^ b`, 4 cycles.
//!
//! That is 18 cycles per 4 steps, 4.5 cycles/byte. `a + M[k] + K[i]` is
//! always formed before `b` is ready: the message word is a memory operand
//! and `K` rides in a three-component `lea` (one cycle on current cores).
//! Written with `asm!` because the compiler reassociates these sums and
//! lengthens the chain.

use core::arch::asm;

macro_rules! r32 {
    ($r:ident) => {
        concat!("{", stringify!($r), ":e}")
    };
}
macro_rules! r64 {
    ($r:ident) => {
        concat!("{", stringify!($r), ":r}")
    };
}

/// `a += M[x] + K + F(b,c,d)`, F = `d ^ (b & (c ^ d))`; then rotate and add `b`.
#[rustfmt::skip]
macro_rules! f {
    ($a:ident, $b:ident, $c:ident, $d:ident, $x:literal, $k:literal, $s:literal) => {
        concat!(
            "add ", r32!($a), ", dword ptr [{m} + ", $x, "]\n",
            "mov {t:e}, ", r32!($c), "\n",
            "xor {t:e}, ", r32!($d), "\n",
            "and {t:e}, ", r32!($b), "\n",
            "xor {t:e}, ", r32!($d), "\n",
            "lea ", r32!($a), ", [", r64!($a), " + {t:r} + ", $k, "]\n",
            "rol ", r32!($a), ", ", $s, "\n",
            "add ", r32!($a), ", ", r32!($b), "\n",
        )
    };
}

/// G = `(b & d) + andn(d, c)`, with the `andn` term added before `b` is ready.
#[rustfmt::skip]
macro_rules! g {
    ($a:ident, $b:ident, $c:ident, $d:ident, $x:literal, $k:literal, $s:literal) => {
        concat!(
            "add ", r32!($a), ", dword ptr [{m} + ", $x, "]\n",
            "andn {t:e}, ", r32!($d), ", ", r32!($c), "\n",
            "lea ", r32!($a), ", [", r64!($a), " + {t:r} + ", $k, "]\n",
            "mov {t:e}, ", r32!($d), "\n",
            "and {t:e}, ", r32!($b), "\n",
            "add ", r32!($a), ", {t:e}\n",
            "rol ", r32!($a), ", ", $s, "\n",
            "add ", r32!($a), ", ", r32!($b), "\n",
        )
    };
}

/// H = `b ^ (c ^ d)`.
#[rustfmt::skip]
macro_rules! h {
    ($a:ident, $b:ident, $c:ident, $d:ident, $x:literal, $k:literal, $s:literal) => {
        concat!(
            "add ", r32!($a), ", dword ptr [{m} + ", $x, "]\n",
            "mov {t:e}, ", r32!($c), "\n",
            "xor {t:e}, ", r32!($d), "\n",
            "xor {t:e}, ", r32!($b), "\n",
            "lea ", r32!($a), ", [", r64!($a), " + {t:r} + ", $k, "]\n",
            "rol ", r32!($a), ", ", $s, "\n",
            "add ", r32!($a), ", ", r32!($b), "\n",
        )
    };
}

/// I = `c ^ (b | !d)`, with `!d` formed early.
#[rustfmt::skip]
macro_rules! i {
    ($a:ident, $b:ident, $c:ident, $d:ident, $x:literal, $k:literal, $s:literal) => {
        concat!(
            "add ", r32!($a), ", dword ptr [{m} + ", $x, "]\n",
            "mov {t:e}, ", r32!($d), "\n",
            "not {t:e}\n",
            "or {t:e}, ", r32!($b), "\n",
            "xor {t:e}, ", r32!($c), "\n",
            "lea ", r32!($a), ", [", r64!($a), " + {t:r} + ", $k, "]\n",
            "rol ", r32!($a), ", ", $s, "\n",
            "add ", r32!($a), ", ", r32!($b), "\n",
        )
    };
}

/// Compresses consecutive blocks.
///
/// # Safety
/// The CPU must support BMI1 (`andn`).
#[target_feature(enable = "bmi1")]
pub unsafe fn compress(state: &mut [u32; 4], blocks: &[[u8; 64]]) {
    if blocks.is_empty() {
        return;
    }
    let [mut a, mut b, mut c, mut d] = *state;
    // SAFETY: `m` walks `blocks`, reading exactly `blocks.len()` 64-byte
    // blocks (the loop runs while `n` > 0, and `n` starts at the block count,
    // which is non-zero). The asm touches no other memory, no stack, and
    // every register it writes is declared.
    unsafe {
        asm!(
            "2:",
            "mov {sa:e}, {a:e}",
            "mov {sb:e}, {b:e}",
            "mov {sc:e}, {c:e}",
            "mov {sd:e}, {d:e}",
            f!(a, b, c, d,  0,  -680876936,  7),
            f!(d, a, b, c,  4,  -389564586, 12),
            f!(c, d, a, b,  8,   606105819, 17),
            f!(b, c, d, a, 12, -1044525330, 22),
            f!(a, b, c, d, 16,  -176418897,  7),
            f!(d, a, b, c, 20,  1200080426, 12),
            f!(c, d, a, b, 24, -1473231341, 17),
            f!(b, c, d, a, 28,   -45705983, 22),
            f!(a, b, c, d, 32,  1770035416,  7),
            f!(d, a, b, c, 36, -1958414417, 12),
            f!(c, d, a, b, 40,      -42063, 17),
            f!(b, c, d, a, 44, -1990404162, 22),
            f!(a, b, c, d, 48,  1804603682,  7),
            f!(d, a, b, c, 52,   -40341101, 12),
            f!(c, d, a, b, 56, -1502002290, 17),
            f!(b, c, d, a, 60,  1236535329, 22),
            g!(a, b, c, d,  4,  -165796510,  5),
            g!(d, a, b, c, 24, -1069501632,  9),
            g!(c, d, a, b, 44,   643717713, 14),
            g!(b, c, d, a,  0,  -373897302, 20),
            g!(a, b, c, d, 20,  -701558691,  5),
            g!(d, a, b, c, 40,    38016083,  9),
            g!(c, d, a, b, 60,  -660478335, 14),
            g!(b, c, d, a, 16,  -405537848, 20),
            g!(a, b, c, d, 36,   568446438,  5),
            g!(d, a, b, c, 56, -1019803690,  9),
            g!(c, d, a, b, 12,  -187363961, 14),
            g!(b, c, d, a, 32,  1163531501, 20),
            g!(a, b, c, d, 52, -1444681467,  5),
            g!(d, a, b, c,  8,   -51403784,  9),
            g!(c, d, a, b, 28,  1735328473, 14),
            g!(b, c, d, a, 48, -1926607734, 20),
            h!(a, b, c, d, 20,     -378558,  4),
            h!(d, a, b, c, 32, -2022574463, 11),
            h!(c, d, a, b, 44,  1839030562, 16),
            h!(b, c, d, a, 56,   -35309556, 23),
            h!(a, b, c, d,  4, -1530992060,  4),
            h!(d, a, b, c, 16,  1272893353, 11),
            h!(c, d, a, b, 28,  -155497632, 16),
            h!(b, c, d, a, 40, -1094730640, 23),
            h!(a, b, c, d, 52,   681279174,  4),
            h!(d, a, b, c,  0,  -358537222, 11),
            h!(c, d, a, b, 12,  -722521979, 16),
            h!(b, c, d, a, 24,    76029189, 23),
            h!(a, b, c, d, 36,  -640364487,  4),
            h!(d, a, b, c, 48,  -421815835, 11),
            h!(c, d, a, b, 60,   530742520, 16),
            h!(b, c, d, a,  8,  -995338651, 23),
            i!(a, b, c, d,  0,  -198630844,  6),
            i!(d, a, b, c, 28,  1126891415, 10),
            i!(c, d, a, b, 56, -1416354905, 15),
            i!(b, c, d, a, 20,   -57434055, 21),
            i!(a, b, c, d, 48,  1700485571,  6),
            i!(d, a, b, c, 12, -1894986606, 10),
            i!(c, d, a, b, 40,    -1051523, 15),
            i!(b, c, d, a,  4, -2054922799, 21),
            i!(a, b, c, d, 32,  1873313359,  6),
            i!(d, a, b, c, 60,   -30611744, 10),
            i!(c, d, a, b, 24, -1560198380, 15),
            i!(b, c, d, a, 52,  1309151649, 21),
            i!(a, b, c, d, 16,  -145523070,  6),
            i!(d, a, b, c, 44, -1120210379, 10),
            i!(c, d, a, b,  8,   718787259, 15),
            i!(b, c, d, a, 36,  -343485551, 21),
            "add {a:e}, {sa:e}",
            "add {b:e}, {sb:e}",
            "add {c:e}, {sc:e}",
            "add {d:e}, {sd:e}",
            "add {m}, 64",
            "dec {n}",
            "jnz 2b",
            a = inout(reg) a,
            b = inout(reg) b,
            c = inout(reg) c,
            d = inout(reg) d,
            sa = out(reg) _,
            sb = out(reg) _,
            sc = out(reg) _,
            sd = out(reg) _,
            t = out(reg) _,
            m = inout(reg) blocks.as_ptr() => _,
            n = inout(reg) blocks.len() => _,
            options(nostack, readonly),
        );
    }
    *state = [a, b, c, d];
}
