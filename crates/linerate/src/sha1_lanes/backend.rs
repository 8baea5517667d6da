//! Which SHA-1 batch path runs: detected once, forceable for tests and
//! benchmarks through `LINERATE_SHA1_LANES_BACKEND` (the rules of
//! [`crate::backend`]).

use crate::backend::{Backend, backend_family};
use crate::cpu::Features;

/// How batches of SHA-1 messages (HMAC-SHA1's, TCP-AO's) are hashed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sha1LanesBackend {
    /// AVX-512F + BW: sixteen messages side by side, one per 32-bit lane.
    Avx512,
    /// One message after another on RustCrypto's `sha1` (SHA-NI where the
    /// CPU has it): every target.
    Single,
}

impl Backend for Sha1LanesBackend {
    const ENV: &'static str = "LINERATE_SHA1_LANES_BACKEND";
    const FAMILY: &'static str = "SHA-1 lanes";
    const ALL: &'static [Sha1LanesBackend] = &[Sha1LanesBackend::Avx512, Sha1LanesBackend::Single];

    fn name(self) -> &'static str {
        match self {
            Sha1LanesBackend::Avx512 => "avx512",
            Sha1LanesBackend::Single => "single",
        }
    }

    fn is_supported(self) -> bool {
        let f = Features::get();
        match self {
            Sha1LanesBackend::Avx512 => cfg!(target_arch = "x86_64") && f.avx512f && f.avx512bw,
            Sha1LanesBackend::Single => true,
        }
    }
}

backend_family!(Sha1LanesBackend);
