//! Measured cells: what every table builder shares (the timing settings,
//! the thread count, the progress bar) and the throughput table.

pub mod throughput;

use crate::progress::CellProgress;
use crate::table::{Cell, Unit, Value};
use crate::timing::{Job, Settings, measure};

/// What a table builder needs to measure cells.
pub struct Context<'a> {
    pub settings: Settings,
    /// `-j`: threads for the throughput table.
    pub threads: usize,
    /// `--cold`: the throughput table's blocks come, in turn, from a
    /// buffer of this many bytes.
    pub cold: Option<usize>,
    pub progress: &'a dyn CellProgress,
}

impl Context<'_> {
    /// Times `make()`'s job on `threads` threads (a job each) and turns the
    /// time per call into the figure `rate` asks for; a job that cannot be
    /// made gives a not-available cell with the reason. `label` names the
    /// cell on the progress bar.
    pub fn cell(
        &self,
        label: &str,
        threads: usize,
        make: &dyn Fn() -> Result<Job, String>,
        rate: Rate,
    ) -> Value {
        self.progress.start(label);
        let jobs: Result<Vec<Job>, String> = (0..threads.max(1)).map(|_| make()).collect();
        let value = match jobs {
            Err(why) => Value::NotAvailable(why),
            Ok(jobs) => {
                let m = measure(&self.settings, jobs);
                let figure = match rate {
                    Rate::PerSecond(units) => units * threads.max(1) as f64 / m.seconds.max(1e-15),
                    Rate::Nanoseconds => m.seconds * 1e9,
                };
                Value::Measured(figure, m)
            }
        };
        self.progress.done();
        value
    }
}

/// How a cell turns seconds per call into its figure.
#[derive(Clone, Copy, Debug)]
pub enum Rate {
    /// Units processed per call per thread; the figure is units per second.
    PerSecond(f64),
    /// The figure is nanoseconds per call.
    Nanoseconds,
}

/// A cell of `algorithm` at `bytes` in bytes per second.
pub fn bytes_cell(algorithm: &str, bytes: u64, threads: usize, value: Value) -> Cell {
    Cell::new(algorithm, "bytes_per_second", Unit::BytesPerSecond, value)
        .bytes(bytes)
        .threads(threads)
}
