//! Timing one cell: a warm-up, then several trials, each long enough for the
//! clock; the median of the trials is the figure and their spread says how
//! far to trust it. A run whose trials disagree by more than
//! [`NOISY_SPREAD`] is flagged noisy rather than hidden.
//!
//! A job is a closure that does one unit of work (hash one block, set up one
//! key); the timer calls it as often as a trial needs. With several threads
//! every thread runs its own job the same number of times and the trial is
//! the wall time of all of them, so the figure is the machine's aggregate.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// Trials whose (max - min) / median exceeds this are flagged noisy.
pub const NOISY_SPREAD: f64 = 0.10;

/// One unit of work, run many times.
pub type Job = Box<dyn FnMut() + Send>;

/// How long and how often each cell is timed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// Wall time of all the trials of one cell together.
    pub seconds: f64,
    /// Trials per cell (the median is reported).
    pub trials: usize,
}

impl Settings {
    /// The default run: about 0.15 s a cell (plus a warm-up trial), so the
    /// whole lab (some 190 cells) stays well under a minute on an idle
    /// machine; five trials give a median and a spread.
    pub const DEFAULT: Settings = Settings {
        seconds: 0.15,
        trials: 5,
    };

    /// `--quick`: the same code path with trials too short to mean much.
    pub const QUICK: Settings = Settings {
        seconds: 0.003,
        trials: 3,
    };

    fn trial(&self) -> Duration {
        Duration::from_secs_f64(self.seconds / self.trials.max(1) as f64)
    }
}

/// A timed figure: seconds per call of the job (per thread, wall time).
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    /// Median over the trials, seconds per call.
    pub seconds: f64,
    /// (max - min) / median of the trials.
    pub spread: f64,
    /// Trials timed.
    pub trials: usize,
    /// Calls per trial (per thread).
    pub calls: u64,
}

impl Measurement {
    /// Whether the trials disagree enough to distrust the figure.
    pub fn noisy(&self) -> bool {
        self.spread > NOISY_SPREAD
    }
}

/// Times `jobs`, each on its own thread (one job: the calling thread).
pub fn measure(settings: &Settings, mut jobs: Vec<Job>) -> Measurement {
    if jobs.is_empty() {
        jobs.push(Box::new(|| {}));
    }
    let calls = calibrate(&mut jobs[0], settings.trial());
    // Warm-up: caches, page faults, the clock's climb under load.
    run(&mut jobs, calls);
    let mut times: Vec<f64> = (0..settings.trials.max(1))
        .map(|_| run(&mut jobs, calls).as_secs_f64() / calls as f64)
        .collect();
    times.sort_by(f64::total_cmp);
    let seconds = median_of_sorted(&times);
    let spread = match (times.first(), times.last()) {
        (Some(lo), Some(hi)) if seconds > 0.0 => (hi - lo) / seconds,
        _ => 0.0,
    };
    Measurement {
        seconds,
        spread,
        trials: times.len(),
        calls,
    }
}

/// Calls of `job` that take about `trial`: doubling until a run is long
/// enough to time, then scaled.
fn calibrate(job: &mut Job, trial: Duration) -> u64 {
    let floor = Duration::from_micros(200).min(trial);
    let mut calls: u64 = 1;
    loop {
        let start = Instant::now();
        for _ in 0..calls {
            job();
        }
        let took = start.elapsed();
        if took >= floor || calls >= 1 << 40 {
            let per_call = took.as_secs_f64() / calls as f64;
            return ((trial.as_secs_f64() / per_call.max(1e-12)) as u64).max(1);
        }
        calls *= 2;
    }
}

/// Runs every job `calls` times, one per thread, and returns the wall time.
fn run(jobs: &mut [Job], calls: u64) -> Duration {
    let start = Instant::now();
    if let [job] = jobs {
        for _ in 0..calls {
            job();
        }
    } else {
        std::thread::scope(|scope| {
            for job in jobs.iter_mut() {
                scope.spawn(move || {
                    for _ in 0..calls {
                        job();
                    }
                });
            }
        });
    }
    black_box(start.elapsed())
}

/// The median of an ascending slice, as the library's clock takes it.
pub use linerate::clock::median_of_sorted;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_something_positive() {
        let job = || -> Job {
            Box::new(|| {
                black_box((0..100u64).sum::<u64>());
            })
        };
        let m = measure(&Settings::QUICK, vec![job(), job()]);
        assert!(m.seconds > 0.0 && m.seconds.is_finite());
        assert_eq!(m.trials, 3);
        assert!(m.calls >= 1);
    }
}
