//! The core clock, estimated without hardware counters.
//!
//! Virtual machines often have no PMU, so `cycles` cannot be read. What can be
//! timed is a long chain of dependent `add r, r`: each add needs the result
//! of the one before and has a latency of exactly one cycle on every x86-64
//! core of the last twenty years, so the chain takes one cycle per add and
//! `adds / seconds` is the core clock. (Not `add r, imm`: Golden Cove folds
//! immediate adds at rename, and such a chain reads 15 to 19 "GHz".)
//!
//! The clock moves with load and temperature; a figure that converts a
//! throughput into cycles/byte should use readings taken just before and
//! just after the run it describes, and distrust the run if they differ.

/// Adds per chain in [`core_hz`]: 50 M adds is about 15 ms at 3.5 GHz, long
/// enough that timer resolution and the call overhead vanish.
pub const DEFAULT_ADDS: u64 = 50_000_000;

/// Chains timed by [`core_hz`]; it reports their median.
pub const DEFAULT_CHAINS: usize = 4;

/// Adds per loop iteration of the chain: the loop's own `dec`/`jnz` run on
/// other ports in the shadow of 100 dependent adds and cost nothing.
#[cfg(target_arch = "x86_64")]
const ADDS_PER_ITERATION: u64 = 100;

/// The core clock in Hz: the median of [`DEFAULT_CHAINS`] chains of
/// [`DEFAULT_ADDS`] adds. `None` where there is no estimator (not x86-64).
pub fn core_hz() -> Option<f64> {
    let mut readings = (0..DEFAULT_CHAINS)
        .map(|_| measure_core_hz(DEFAULT_ADDS))
        .collect::<Option<Vec<f64>>>()?;
    readings.sort_by(f64::total_cmp);
    Some(median_of_sorted(&readings))
}

/// How long [`tsc_hz`] watches the time-stamp counter against the
/// monotonic clock.
const TSC_WINDOW: std::time::Duration = std::time::Duration::from_millis(20);

/// The time-stamp counter's rate in Hz (x86-64): its ticks over
/// [`TSC_WINDOW`] of the monotonic clock. On every x86-64 core of the last
/// fifteen years the TSC runs at a fixed rate whatever the core clock does
/// (the "nominal" frequency); beside [`core_hz`] it shows how far the core
/// runs above or below it. `None` elsewhere.
#[cfg(target_arch = "x86_64")]
pub fn tsc_hz() -> Option<f64> {
    let read = || {
        // SAFETY: RDTSC reads a counter into two registers; it has no
        // preconditions (x86-64 always has it) and touches no memory.
        unsafe { core::arch::x86_64::_rdtsc() }
    };
    let start = std::time::Instant::now();
    let t0 = read();
    while start.elapsed() < TSC_WINDOW {
        std::hint::spin_loop();
    }
    let t1 = read();
    let seconds = start.elapsed().as_secs_f64();
    (t1 > t0 && seconds > 0.0).then(|| (t1 - t0) as f64 / seconds)
}

#[cfg(not(target_arch = "x86_64"))]
pub fn tsc_hz() -> Option<f64> {
    None
}

/// The core clock in Hz from one chain of at least `adds` dependent adds
/// (rounded up to a whole number of loop iterations). `None` where there is
/// no estimator (not x86-64) or the chain ran too fast to time.
pub fn measure_core_hz(adds: u64) -> Option<f64> {
    let (adds, seconds) = timed_add_chain(adds)?;
    (seconds > 0.0).then(|| adds as f64 / seconds)
}

/// Runs the chain and returns how many adds ran and how long they took.
#[cfg(target_arch = "x86_64")]
fn timed_add_chain(adds: u64) -> Option<(u64, f64)> {
    let iterations = adds.div_ceil(ADDS_PER_ITERATION).max(1);
    let mut x: u64 = 1;
    let mut n = iterations;
    let start = std::time::Instant::now();
    // SAFETY: the block only reads and writes the two registers it is given
    // (`x` and the counter `n`, which it counts down from at least 1 to 0,
    // so the loop ends) and the flags, which `asm!` assumes clobbered unless
    // told otherwise. It touches no memory and no stack.
    unsafe {
        core::arch::asm!(
            "2:",
            ".rept 100", // ADDS_PER_ITERATION
            "add {x}, {x}",
            ".endr",
            "dec {n}",
            "jnz 2b",
            x = inout(reg) x,
            n = inout(reg) n,
            options(nomem, nostack),
        );
    }
    let seconds = start.elapsed().as_secs_f64();
    // `x` is now 0 (doubled past 64 bits); using it keeps the chain alive.
    std::hint::black_box((x, n));
    Some((iterations * ADDS_PER_ITERATION, seconds))
}

#[cfg(not(target_arch = "x86_64"))]
fn timed_add_chain(_adds: u64) -> Option<(u64, f64)> {
    None
}

/// The median of an ascending slice (the mean of the middle two for an
/// even count); 0 for an empty one.
pub fn median_of_sorted(sorted: &[f64]) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let mid = sorted.len() / 2;
    if sorted.len().is_multiple_of(2) {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    } else {
        sorted[mid]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median() {
        assert_eq!(median_of_sorted(&[1.0, 2.0, 10.0]), 2.0);
        assert_eq!(median_of_sorted(&[1.0, 2.0, 4.0, 10.0]), 3.0);
        assert_eq!(median_of_sorted(&[]), 0.0);
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn clock_is_plausible() {
        // Bounds wide enough for any loaded machine, narrow enough to catch
        // a chain that is folded (tens of "GHz") or not dependent.
        let hz = core_hz().expect("x86-64 has an estimator");
        assert!((0.3e9..8.0e9).contains(&hz), "core clock {hz} Hz");
    }

    #[test]
    #[cfg(not(target_arch = "x86_64"))]
    fn no_estimator_elsewhere() {
        assert_eq!(core_hz(), None);
    }
}
