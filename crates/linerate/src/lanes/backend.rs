//! Which lanes kernel runs: detected once, forceable through
//! `LINERATE_LANES_BACKEND` (the rules of [`crate::backend`]) or
//! [`Lanes::new`](super::Lanes::new).

use super::LanesFn;
use crate::backend::{Backend, backend_family};
use crate::cpu::Features;

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

impl Backend for LanesBackend {
    const ENV: &'static str = "LINERATE_LANES_BACKEND";
    const FAMILY: &'static str = "lanes";
    const ALL: &'static [LanesBackend] = &[
        LanesBackend::Avx512,
        LanesBackend::Avx2,
        LanesBackend::Sse2,
        LanesBackend::Portable,
    ];

    fn name(self) -> &'static str {
        match self {
            LanesBackend::Avx512 => "avx512",
            LanesBackend::Avx2 => "avx2",
            LanesBackend::Sse2 => "sse2",
            LanesBackend::Portable => "portable",
        }
    }

    fn is_supported(self) -> bool {
        let f = Features::get();
        match self {
            LanesBackend::Avx512 => cfg!(target_arch = "x86_64") && f.avx512f,
            LanesBackend::Avx2 => cfg!(target_arch = "x86_64") && f.avx2,
            LanesBackend::Sse2 => cfg!(target_arch = "x86_64") && f.sse2,
            LanesBackend::Portable => true,
        }
    }
}

backend_family!(LanesBackend);

impl LanesBackend {
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
