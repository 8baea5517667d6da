//! Which lanes kernel runs: detected once, forceable through
//! `LINERATE_LANES_BACKEND` or [`Lanes::new`](super::Lanes::new).

use super::LanesFn;
use crate::cpu::Features;
use std::fmt;
use std::sync::OnceLock;

/// The environment variable that forces a lanes backend for the process.
pub const LANES_BACKEND_ENV: &str = "LINERATE_LANES_BACKEND";

/// A multi-buffer MD5 kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LanesBackend {
    /// 2 x 16 lanes in zmm registers: `vpternlogd`, `vprold`.
    Avx512,
    /// 2 x 8 lanes in ymm registers.
    Avx2,
    /// 2 x 4 lanes in xmm registers.
    Sse2,
    /// One lane at a time through the portable single-stream compression.
    Portable,
}

impl LanesBackend {
    /// Every backend, fastest first.
    pub const ALL: [LanesBackend; 4] = [
        LanesBackend::Avx512,
        LanesBackend::Avx2,
        LanesBackend::Sse2,
        LanesBackend::Portable,
    ];

    pub fn name(self) -> &'static str {
        match self {
            LanesBackend::Avx512 => "avx512",
            LanesBackend::Avx2 => "avx2",
            LanesBackend::Sse2 => "sse2",
            LanesBackend::Portable => "portable",
        }
    }

    pub fn from_name(name: &str) -> Option<LanesBackend> {
        LanesBackend::ALL.into_iter().find(|b| b.name() == name)
    }

    /// The most lanes one call runs (its `active` limit, see
    /// [`LanesFn`](super::LanesFn)); fewer work, at about the same cost.
    /// SSE2 runs two sets of 4: one set is latency-bound and two run about
    /// 1.5 times as many bytes a second.
    pub fn width(self) -> usize {
        match self {
            LanesBackend::Avx512 => 32,
            LanesBackend::Avx2 => 16,
            LanesBackend::Sse2 => 8,
            LanesBackend::Portable => 4,
        }
    }

    pub fn is_supported(self) -> bool {
        let f = Features::get();
        match self {
            LanesBackend::Avx512 => cfg!(target_arch = "x86_64") && f.avx512f,
            LanesBackend::Avx2 => cfg!(target_arch = "x86_64") && f.avx2,
            LanesBackend::Sse2 => cfg!(target_arch = "x86_64") && f.sse2,
            LanesBackend::Portable => true,
        }
    }

    pub fn supported() -> impl Iterator<Item = LanesBackend> {
        LanesBackend::ALL.into_iter().filter(|b| b.is_supported())
    }

    /// The fastest supported backend, ignoring the environment.
    pub fn best() -> LanesBackend {
        LanesBackend::supported()
            .find(|b| b.kernel().is_some())
            .unwrap_or(LanesBackend::Portable)
    }

    /// `LINERATE_LANES_BACKEND`'s choice: `Ok(None)` when unset, an error
    /// naming the value when it is unknown or unsupported here.
    pub fn from_env() -> Result<Option<LanesBackend>, String> {
        let Some(value) = std::env::var_os(LANES_BACKEND_ENV) else {
            return Ok(None);
        };
        let value = value.to_string_lossy().into_owned();
        let names: Vec<&str> = LanesBackend::ALL.iter().map(|b| b.name()).collect();
        match LanesBackend::from_name(&value) {
            Some(b) if b.kernel().is_some() => Ok(Some(b)),
            Some(_) => Err(format!(
                "{LANES_BACKEND_ENV}={value:?}: this CPU cannot run that lanes backend"
            )),
            None => Err(format!(
                "{LANES_BACKEND_ENV}={value:?} names no lanes backend (one of: {})",
                names.join(", ")
            )),
        }
    }

    /// The backend used by default: the environment's if usable, else the
    /// fastest. Decided once per process.
    pub fn active() -> LanesBackend {
        static ACTIVE: OnceLock<LanesBackend> = OnceLock::new();
        *ACTIVE.get_or_init(|| {
            LanesBackend::from_env()
                .ok()
                .flatten()
                .unwrap_or_else(LanesBackend::best)
        })
    }

    /// The kernel, if this CPU supports the backend and it is built.
    pub(crate) fn kernel(self) -> Option<LanesFn> {
        if !self.is_supported() {
            return None;
        }
        match self {
            #[cfg(target_arch = "x86_64")]
            LanesBackend::Avx512 => Some(super::x86_64_avx512::compress),
            #[cfg(target_arch = "x86_64")]
            LanesBackend::Avx2 => Some(super::x86_64_avx2::compress),
            #[cfg(target_arch = "x86_64")]
            LanesBackend::Sse2 => Some(super::x86_64_sse2::compress),
            LanesBackend::Portable => Some(super::portable::compress),
            #[cfg(not(target_arch = "x86_64"))]
            _ => None,
        }
    }
}

impl fmt::Display for LanesBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
