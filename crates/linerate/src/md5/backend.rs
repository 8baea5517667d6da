//! Which compression function runs: detected once, forceable for tests and
//! benchmarks through `LINERATE_MD5_BACKEND` (the rules of
//! [`crate::backend`]) or [`Md5::with_backend`](super::Md5::with_backend).

use crate::backend::{Backend, backend_family};
use crate::cpu::Features;

/// A single-stream MD5 compression function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Md5Backend {
    /// AVX-512VL: `vpternlogd` and `vprold` on one lane, about 4.0 cycles/byte.
    Avx512,
    /// x86-64 general-purpose registers with BMI1, about 4.5 cycles/byte.
    Scalar,
    /// Plain Rust, unrolled: every target.
    Portable,
    /// RFC 1321 step by step: the oracle, slow on purpose.
    Reference,
}

/// A block compression function: `state` absorbs each 64-byte block in order.
pub type CompressFn = fn(&mut [u32; 4], &[[u8; 64]]);

impl Backend for Md5Backend {
    const ENV: &'static str = "LINERATE_MD5_BACKEND";
    const FAMILY: &'static str = "MD5";
    const ALL: &'static [Md5Backend] = &[
        Md5Backend::Avx512,
        Md5Backend::Scalar,
        Md5Backend::Portable,
        Md5Backend::Reference,
    ];

    fn name(self) -> &'static str {
        match self {
            Md5Backend::Avx512 => "avx512",
            Md5Backend::Scalar => "scalar",
            Md5Backend::Portable => "portable",
            Md5Backend::Reference => "reference",
        }
    }

    fn is_supported(self) -> bool {
        let f = Features::get();
        match self {
            Md5Backend::Avx512 => cfg!(target_arch = "x86_64") && f.avx512f && f.avx512vl,
            Md5Backend::Scalar => cfg!(target_arch = "x86_64") && f.bmi1,
            Md5Backend::Portable | Md5Backend::Reference => true,
        }
    }
}

backend_family!(Md5Backend);

impl Md5Backend {
    /// The backend's block compression function (`state` absorbs each block
    /// in order); `None` if this CPU cannot run it.
    pub fn compress_fn(self) -> Option<CompressFn> {
        if !self.is_supported() {
            return None;
        }
        Some(match self {
            #[cfg(target_arch = "x86_64")]
            Md5Backend::Avx512 => |state, blocks| {
                // SAFETY: `compress_fn` hands this out only after
                // `is_supported` confirmed AVX-512F and AVX-512VL.
                unsafe { super::x86_64_avx512::compress(state, blocks) }
            },
            #[cfg(target_arch = "x86_64")]
            Md5Backend::Scalar => |state, blocks| {
                // SAFETY: `compress_fn` hands this out only after
                // `is_supported` confirmed BMI1.
                unsafe { super::x86_64_bmi1::compress(state, blocks) }
            },
            Md5Backend::Reference => super::reference::compress,
            _ => super::portable::compress,
        })
    }
}
