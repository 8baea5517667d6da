//! CPU features, detected once per process.

/// The instruction-set extensions linerate's backends use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Features {
    pub sse2: bool,
    pub bmi1: bool,
    pub avx2: bool,
    pub avx512f: bool,
    pub avx512vl: bool,
    pub avx512bw: bool,
}

impl Features {
    /// The features of the CPU this process runs on.
    pub fn get() -> Features {
        use std::sync::OnceLock;
        static FEATURES: OnceLock<Features> = OnceLock::new();
        *FEATURES.get_or_init(Features::detect)
    }

    #[cfg(target_arch = "x86_64")]
    fn detect() -> Features {
        Features {
            sse2: std::is_x86_feature_detected!("sse2"),
            bmi1: std::is_x86_feature_detected!("bmi1"),
            avx2: std::is_x86_feature_detected!("avx2"),
            avx512f: std::is_x86_feature_detected!("avx512f"),
            avx512vl: std::is_x86_feature_detected!("avx512vl"),
            avx512bw: std::is_x86_feature_detected!("avx512bw"),
        }
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn detect() -> Features {
        Features::default()
    }
}

/// Bytes of a page: the hardware prefetchers follow a stream only within one.
const PAGE: usize = 4096;

/// Bytes [`in_pages`] hands over at a time, and how far past each it
/// prefetches.
const STEP: usize = 1024;
const AHEAD: usize = 2048;
const _: () = assert!(AHEAD <= PAGE);

/// Feeds `data` to `absorb` in steps of 1 KiB, the next 2 KiB prefetched
/// before each step is absorbed. For one stream hashed more slowly than
/// memory delivers (SHA-NI's SHA-256 at about 2 GB/s): the hardware
/// prefetchers stop at page boundaries, so without this each new page of
/// data coming from DRAM stalls the hash. SHA-256 over 512 MiB on the
/// 4 GHz Xeon (docs/performance.md): 1.25-1.36 GB/s plainly; a page at a
/// time with the next prefetched 1.86; 2 KiB steps 4 KiB ahead 1.90;
/// these 1 KiB steps 2 KiB ahead 1.99, the in-cache rate (2.00).
#[inline]
pub fn in_pages(data: &[u8], mut absorb: impl FnMut(&[u8])) {
    let mut rest = data;
    while !rest.is_empty() {
        let (now, later) = rest.split_at(rest.len().min(STEP));
        prefetch(&later[..later.len().min(AHEAD)]);
        absorb(now);
        rest = later;
    }
}

/// Asks the CPU to bring the cache lines of `data` into its caches: a hint
/// for batch APIs that hash one message while the next is on its way from
/// memory. Never faults; does nothing off x86-64.
#[inline]
pub fn prefetch(data: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    for line in data.chunks(64) {
        // SAFETY: `prefetcht0` (SSE, in the x86-64 baseline) is a hint: it
        // neither faults nor changes memory, whatever the address.
        unsafe {
            core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
                line.as_ptr().cast(),
            )
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = data;
}
