//! Which NH kernel runs: detected once, forceable for tests and benchmarks
//! through `LINERATE_NH_BACKEND` (the rules of [`crate::backend`]) or
//! [`Umac::with_backend`](crate::mac::umac::Umac::with_backend).

use crate::backend::{Backend, backend_family};
use crate::cpu::Features;

/// An implementation of UMAC's NH hash (RFC 4418 section 5.2.2), the loop
/// that touches every message byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NhBackend {
    /// AVX-512F + BW: 512-bit `vpmuludq`, 128 message bytes per step, the
    /// tail read with byte-masked loads; whole messages under 256 bytes go
    /// to the AVX2 kernel, which is faster there.
    Avx512,
    /// AVX2: 256-bit `vpmuludq`, 64 message bytes per step.
    Avx2,
    /// Plain Rust, 32-bit words and 64-bit sums: every target.
    Portable,
}

impl Backend for NhBackend {
    const ENV: &'static str = "LINERATE_NH_BACKEND";
    const FAMILY: &'static str = "NH";
    const ALL: &'static [NhBackend] = &[NhBackend::Avx512, NhBackend::Avx2, NhBackend::Portable];

    fn name(self) -> &'static str {
        match self {
            NhBackend::Avx512 => "avx512",
            NhBackend::Avx2 => "avx2",
            NhBackend::Portable => "portable",
        }
    }

    fn is_supported(self) -> bool {
        let f = Features::get();
        match self {
            NhBackend::Avx512 => cfg!(target_arch = "x86_64") && f.avx512f && f.avx512bw && f.avx2,
            NhBackend::Avx2 => cfg!(target_arch = "x86_64") && f.avx2,
            NhBackend::Portable => true,
        }
    }
}

backend_family!(NhBackend);
