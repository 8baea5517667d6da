//! Which compression function runs: detected once, forceable for tests and
//! benchmarks through `LINERATE_MD5_BACKEND` or [`Md5::with_backend`](super::Md5::with_backend).

use crate::cpu::Features;
use std::fmt;
use std::sync::OnceLock;

/// The environment variable that forces a backend for the whole process.
pub const BACKEND_ENV: &str = "LINERATE_MD5_BACKEND";

/// A single-stream MD5 compression function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
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

impl Backend {
    /// Every backend, fastest first.
    pub const ALL: [Backend; 4] = [
        Backend::Avx512,
        Backend::Scalar,
        Backend::Portable,
        Backend::Reference,
    ];

    /// The name used by `LINERATE_MD5_BACKEND` and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Avx512 => "avx512",
            Backend::Scalar => "scalar",
            Backend::Portable => "portable",
            Backend::Reference => "reference",
        }
    }

    /// Parses a backend name (as printed by [`Backend::name`]).
    pub fn from_name(name: &str) -> Option<Backend> {
        Backend::ALL.into_iter().find(|b| b.name() == name)
    }

    /// Whether this CPU can run the backend.
    pub fn is_supported(self) -> bool {
        let f = Features::get();
        match self {
            Backend::Avx512 => cfg!(target_arch = "x86_64") && f.avx512f && f.avx512vl,
            Backend::Scalar => cfg!(target_arch = "x86_64") && f.bmi1,
            Backend::Portable | Backend::Reference => true,
        }
    }

    /// The backends this CPU can run, fastest first.
    pub fn supported() -> impl Iterator<Item = Backend> {
        Backend::ALL.into_iter().filter(|b| b.is_supported())
    }

    /// The fastest backend this CPU supports, ignoring the environment.
    pub fn best() -> Backend {
        Backend::supported().next().unwrap_or(Backend::Portable)
    }

    /// The backend forced by `LINERATE_MD5_BACKEND`: `Ok(None)` when unset,
    /// an error when it names no backend or one this CPU cannot run.
    pub fn from_env() -> Result<Option<Backend>, BackendError> {
        let Some(value) = std::env::var_os(BACKEND_ENV) else {
            return Ok(None);
        };
        let value = value.to_string_lossy().into_owned();
        match Backend::from_name(&value) {
            Some(b) if b.is_supported() => Ok(Some(b)),
            Some(_) => Err(BackendError::Unsupported(value)),
            None => Err(BackendError::Unknown(value)),
        }
    }

    /// The backend `Md5::new` uses: the forced one if `LINERATE_MD5_BACKEND`
    /// names a usable backend, the fastest supported one otherwise. Decided
    /// once per process.
    pub fn active() -> Backend {
        static ACTIVE: OnceLock<Backend> = OnceLock::new();
        *ACTIVE.get_or_init(|| {
            Backend::from_env()
                .ok()
                .flatten()
                .unwrap_or_else(Backend::best)
        })
    }

    /// The backend's block compression function (`state` absorbs each block
    /// in order); `None` if this CPU cannot run it.
    pub fn compress_fn(self) -> Option<CompressFn> {
        if !self.is_supported() {
            return None;
        }
        Some(match self {
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => |state, blocks| {
                // SAFETY: `compress_fn` hands this out only after
                // `is_supported` confirmed AVX-512F and AVX-512VL.
                unsafe { super::x86_64_avx512::compress(state, blocks) }
            },
            #[cfg(target_arch = "x86_64")]
            Backend::Scalar => |state, blocks| {
                // SAFETY: `compress_fn` hands this out only after
                // `is_supported` confirmed BMI1.
                unsafe { super::x86_64_bmi1::compress(state, blocks) }
            },
            Backend::Reference => super::reference::compress,
            _ => super::portable::compress,
        })
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why `LINERATE_MD5_BACKEND` cannot be honoured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BackendError {
    /// The value names no backend.
    Unknown(String),
    /// The backend exists but this CPU lacks its instructions.
    Unsupported(String),
}

impl fmt::Display for BackendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Backend::ALL.iter().map(|b| b.name()).collect();
        match self {
            BackendError::Unknown(v) => write!(
                f,
                "{BACKEND_ENV}={v:?} names no MD5 backend (one of: {})",
                names.join(", ")
            ),
            BackendError::Unsupported(v) => {
                write!(
                    f,
                    "{BACKEND_ENV}={v:?}: this CPU cannot run that MD5 backend"
                )
            }
        }
    }
}

impl std::error::Error for BackendError {}
