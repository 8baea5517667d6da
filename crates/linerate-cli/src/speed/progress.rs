//! The progress bar of a lab run: cells measured out of the total and the
//! cell being measured, on stderr, only when stderr is a terminal (so a
//! redirected or CI run's stderr stays clean).

use std::io::IsTerminal;
use std::sync::{Mutex, PoisonError};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use linerate_lab::progress::CellProgress;

/// Counts cells as they are measured.
#[derive(Default)]
pub struct Progress {
    bar: Mutex<Option<ProgressBar>>,
}

impl Progress {
    fn bar(&self) -> Option<ProgressBar> {
        self.bar
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl CellProgress for Progress {
    /// A bar for `total` cells; none unless stderr is a terminal.
    fn begin(&self, total: u64) {
        if !std::io::stderr().is_terminal() {
            return;
        }
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        if let Ok(style) =
            ProgressStyle::with_template("{pos:>4}/{len:4} cells [{bar:30}] {eta:>4} {wide_msg}")
        {
            bar.set_style(style.progress_chars("=> "));
        }
        *self.bar.lock().unwrap_or_else(PoisonError::into_inner) = Some(bar);
    }

    fn start(&self, what: &str) {
        if let Some(bar) = self.bar() {
            bar.set_message(what.to_string());
        }
    }

    fn done(&self) {
        if let Some(bar) = self.bar() {
            bar.inc(1);
        }
    }

    fn finish(&self) {
        if let Some(bar) = self.bar() {
            bar.finish_and_clear();
        }
    }
}
