//! How a lab run tells its caller what it is measuring: the cells in all,
//! then each cell as it starts and ends. A command line draws a bar from
//! it; a library caller may ignore it ([`NoProgress`]).

/// Hears of a lab run's progress, cell by cell.
pub trait CellProgress {
    /// The run will measure `cells` cells.
    fn begin(&self, _cells: u64) {}
    /// The cell `what` is being measured.
    fn start(&self, _what: &str) {}
    /// One more cell is done.
    fn done(&self) {}
    /// The run is over.
    fn finish(&self) {}
}

/// Progress nobody watches.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoProgress;

impl CellProgress for NoProgress {}
