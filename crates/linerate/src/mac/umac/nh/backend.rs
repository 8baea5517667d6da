//! Which NH kernel runs: detected once, forceable for tests and benchmarks
//! through `LINERATE_NH_BACKEND` or [`Umac::with_backend`](crate::mac::umac::Umac::with_backend).

use crate::cpu::Features;
use std::fmt;
use std::sync::OnceLock;

/// The environment variable that forces an NH backend for the whole process.
pub const NH_BACKEND_ENV: &str = "LINERATE_NH_BACKEND";

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

impl NhBackend {
    /// Every backend, fastest first.
    pub const ALL: [NhBackend; 3] = [NhBackend::Avx512, NhBackend::Avx2, NhBackend::Portable];

    /// The name used by `LINERATE_NH_BACKEND` and in reports.
    pub fn name(self) -> &'static str {
        match self {
            NhBackend::Avx512 => "avx512",
            NhBackend::Avx2 => "avx2",
            NhBackend::Portable => "portable",
        }
    }

    /// Parses a backend name (as printed by [`NhBackend::name`]).
    pub fn from_name(name: &str) -> Option<NhBackend> {
        NhBackend::ALL.into_iter().find(|b| b.name() == name)
    }

    /// Whether this CPU can run the backend.
    pub fn is_supported(self) -> bool {
        let f = Features::get();
        match self {
            NhBackend::Avx512 => cfg!(target_arch = "x86_64") && f.avx512f && f.avx512bw && f.avx2,
            NhBackend::Avx2 => cfg!(target_arch = "x86_64") && f.avx2,
            NhBackend::Portable => true,
        }
    }

    /// The backends this CPU can run, fastest first.
    pub fn supported() -> impl Iterator<Item = NhBackend> {
        NhBackend::ALL.into_iter().filter(|b| b.is_supported())
    }

    /// The fastest backend this CPU supports, ignoring the environment.
    pub fn best() -> NhBackend {
        NhBackend::supported().next().unwrap_or(NhBackend::Portable)
    }

    /// The backend forced by `LINERATE_NH_BACKEND`: `Ok(None)` when unset,
    /// an error when it names no backend or one this CPU cannot run.
    pub fn from_env() -> Result<Option<NhBackend>, NhBackendError> {
        let Some(value) = std::env::var_os(NH_BACKEND_ENV) else {
            return Ok(None);
        };
        let value = value.to_string_lossy().into_owned();
        match NhBackend::from_name(&value) {
            Some(b) if b.is_supported() => Ok(Some(b)),
            Some(_) => Err(NhBackendError::Unsupported(value)),
            None => Err(NhBackendError::Unknown(value)),
        }
    }

    /// The backend `Umac::new` uses: the forced one if `LINERATE_NH_BACKEND`
    /// names a usable backend, the fastest supported one otherwise. Decided
    /// once per process.
    pub fn active() -> NhBackend {
        static ACTIVE: OnceLock<NhBackend> = OnceLock::new();
        *ACTIVE.get_or_init(|| {
            NhBackend::from_env()
                .ok()
                .flatten()
                .unwrap_or_else(NhBackend::best)
        })
    }
}

impl fmt::Display for NhBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why an NH backend cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NhBackendError {
    /// The value names no backend.
    Unknown(String),
    /// The backend exists but this CPU lacks its instructions.
    Unsupported(String),
}

impl fmt::Display for NhBackendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = NhBackend::ALL.iter().map(|b| b.name()).collect();
        match self {
            NhBackendError::Unknown(v) => write!(
                f,
                "{NH_BACKEND_ENV}={v:?} names no NH backend (one of: {})",
                names.join(", ")
            ),
            NhBackendError::Unsupported(v) => {
                write!(f, "NH backend {v:?}: this CPU cannot run it")
            }
        }
    }
}

impl std::error::Error for NhBackendError {}
