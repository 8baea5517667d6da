//! Single-stream MD5 with AVX-512VL on 128-bit registers, at the latency
//! bound of the algorithm.
//!
//! Only lane 0 of each register carries the state. What AVX-512 buys a single
//! stream is `vpternlogd`, which computes any of F, G, H, I in one one-cycle
//! instruction, and `vprold`, a one-cycle rotate. With `a + M[k] + K[i]`
//! summed before `b` (the previous step's output) arrives, the chain of one
//! step is ternlog, add, rotate, add: 4 cycles, 16 steps per 64 bytes, i.e.
//! 4.0 cycles/byte. That is RFC 1810's "optimized tree" made of one-cycle
//! operations: nothing shorter exists without changing the algorithm.
//!
//! The message word and the constant are added straight from memory with
//! embedded broadcasts, so no register shuffling is needed, and `vpternlogd`
//! overwrites a copy of `d` (ready three steps earlier) rather than `b`.

use super::reference::T;
use core::arch::asm;

macro_rules! x {
    ($r:ident) => {
        concat!("{", stringify!($r), "}")
    };
}

/// One step: `a = b + ((a + M[x] + K[i] + AUX(b, c, d)) <<< s)`, where `imm`
/// is AUX's truth table with operand order (d, b, c).
#[rustfmt::skip]
macro_rules! step {
    ($a:ident, $b:ident, $c:ident, $d:ident, $imm:literal, $x:literal, $k:literal, $s:literal) => {
        concat!(
            "vpaddd ", x!($a), ", ", x!($a), ", dword ptr [{m} + ", $x, "]{{1to4}}\n",
            "vpaddd ", x!($a), ", ", x!($a), ", dword ptr [{k} + ", $k, "]{{1to4}}\n",
            "vmovdqa {t}, ", x!($d), "\n",
            "vpternlogd {t}, ", x!($b), ", ", x!($c), ", ", $imm, "\n",
            "vpaddd ", x!($a), ", ", x!($a), ", {t}\n",
            "vprold ", x!($a), ", ", x!($a), ", ", $s, "\n",
            "vpaddd ", x!($a), ", ", x!($a), ", ", x!($b), "\n",
        )
    };
}

/// Compresses consecutive blocks.
///
/// # Safety
/// The CPU must support AVX-512F and AVX-512VL.
#[target_feature(enable = "avx512f,avx512vl")]
pub unsafe fn compress(state: &mut [u32; 4], blocks: &[[u8; 64]]) {
    if blocks.is_empty() {
        return;
    }
    // SAFETY: `m` walks `blocks`, reading exactly `blocks.len()` 64-byte
    // blocks (the loop runs while `n` > 0, and `n` starts at the non-zero
    // block count); `k` reads the 64 words of `T`; `st` reads and writes the
    // four words of `state`. No stack use; every register written is declared.
    unsafe {
        asm!(
            "vmovd {a}, dword ptr [{st}]",
            "vmovd {b}, dword ptr [{st} + 4]",
            "vmovd {c}, dword ptr [{st} + 8]",
            "vmovd {d}, dword ptr [{st} + 12]",
            "2:",
            "vmovdqa {sa}, {a}",
            "vmovdqa {sb}, {b}",
            "vmovdqa {sc}, {c}",
            "vmovdqa {sd}, {d}",
            step!(a, b, c, d, 0xb8,  0,   0,  7),
            step!(d, a, b, c, 0xb8,  4,   4, 12),
            step!(c, d, a, b, 0xb8,  8,   8, 17),
            step!(b, c, d, a, 0xb8, 12,  12, 22),
            step!(a, b, c, d, 0xb8, 16,  16,  7),
            step!(d, a, b, c, 0xb8, 20,  20, 12),
            step!(c, d, a, b, 0xb8, 24,  24, 17),
            step!(b, c, d, a, 0xb8, 28,  28, 22),
            step!(a, b, c, d, 0xb8, 32,  32,  7),
            step!(d, a, b, c, 0xb8, 36,  36, 12),
            step!(c, d, a, b, 0xb8, 40,  40, 17),
            step!(b, c, d, a, 0xb8, 44,  44, 22),
            step!(a, b, c, d, 0xb8, 48,  48,  7),
            step!(d, a, b, c, 0xb8, 52,  52, 12),
            step!(c, d, a, b, 0xb8, 56,  56, 17),
            step!(b, c, d, a, 0xb8, 60,  60, 22),
            step!(a, b, c, d, 0xca,  4,  64,  5),
            step!(d, a, b, c, 0xca, 24,  68,  9),
            step!(c, d, a, b, 0xca, 44,  72, 14),
            step!(b, c, d, a, 0xca,  0,  76, 20),
            step!(a, b, c, d, 0xca, 20,  80,  5),
            step!(d, a, b, c, 0xca, 40,  84,  9),
            step!(c, d, a, b, 0xca, 60,  88, 14),
            step!(b, c, d, a, 0xca, 16,  92, 20),
            step!(a, b, c, d, 0xca, 36,  96,  5),
            step!(d, a, b, c, 0xca, 56, 100,  9),
            step!(c, d, a, b, 0xca, 12, 104, 14),
            step!(b, c, d, a, 0xca, 32, 108, 20),
            step!(a, b, c, d, 0xca, 52, 112,  5),
            step!(d, a, b, c, 0xca,  8, 116,  9),
            step!(c, d, a, b, 0xca, 28, 120, 14),
            step!(b, c, d, a, 0xca, 48, 124, 20),
            step!(a, b, c, d, 0x96, 20, 128,  4),
            step!(d, a, b, c, 0x96, 32, 132, 11),
            step!(c, d, a, b, 0x96, 44, 136, 16),
            step!(b, c, d, a, 0x96, 56, 140, 23),
            step!(a, b, c, d, 0x96,  4, 144,  4),
            step!(d, a, b, c, 0x96, 16, 148, 11),
            step!(c, d, a, b, 0x96, 28, 152, 16),
            step!(b, c, d, a, 0x96, 40, 156, 23),
            step!(a, b, c, d, 0x96, 52, 160,  4),
            step!(d, a, b, c, 0x96,  0, 164, 11),
            step!(c, d, a, b, 0x96, 12, 168, 16),
            step!(b, c, d, a, 0x96, 24, 172, 23),
            step!(a, b, c, d, 0x96, 36, 176,  4),
            step!(d, a, b, c, 0x96, 48, 180, 11),
            step!(c, d, a, b, 0x96, 60, 184, 16),
            step!(b, c, d, a, 0x96,  8, 188, 23),
            step!(a, b, c, d, 0x65,  0, 192,  6),
            step!(d, a, b, c, 0x65, 28, 196, 10),
            step!(c, d, a, b, 0x65, 56, 200, 15),
            step!(b, c, d, a, 0x65, 20, 204, 21),
            step!(a, b, c, d, 0x65, 48, 208,  6),
            step!(d, a, b, c, 0x65, 12, 212, 10),
            step!(c, d, a, b, 0x65, 40, 216, 15),
            step!(b, c, d, a, 0x65,  4, 220, 21),
            step!(a, b, c, d, 0x65, 32, 224,  6),
            step!(d, a, b, c, 0x65, 60, 228, 10),
            step!(c, d, a, b, 0x65, 24, 232, 15),
            step!(b, c, d, a, 0x65, 52, 236, 21),
            step!(a, b, c, d, 0x65, 16, 240,  6),
            step!(d, a, b, c, 0x65, 44, 244, 10),
            step!(c, d, a, b, 0x65,  8, 248, 15),
            step!(b, c, d, a, 0x65, 36, 252, 21),
            "vpaddd {a}, {a}, {sa}",
            "vpaddd {b}, {b}, {sb}",
            "vpaddd {c}, {c}, {sc}",
            "vpaddd {d}, {d}, {sd}",
            "add {m}, 64",
            "dec {n}",
            "jnz 2b",
            "vmovd dword ptr [{st}], {a}",
            "vmovd dword ptr [{st} + 4], {b}",
            "vmovd dword ptr [{st} + 8], {c}",
            "vmovd dword ptr [{st} + 12], {d}",
            st = in(reg) state.as_mut_ptr(),
            m = inout(reg) blocks.as_ptr() => _,
            n = inout(reg) blocks.len() => _,
            k = in(reg) T.as_ptr(),
            a = out(xmm_reg) _,
            b = out(xmm_reg) _,
            c = out(xmm_reg) _,
            d = out(xmm_reg) _,
            sa = out(xmm_reg) _,
            sb = out(xmm_reg) _,
            sc = out(xmm_reg) _,
            sd = out(xmm_reg) _,
            t = out(xmm_reg) _,
            options(nostack),
        );
    }
}
