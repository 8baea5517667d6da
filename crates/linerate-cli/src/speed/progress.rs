//! The progress bar of a lab run: cells measured out of the total and the
//! cell being measured, on stderr, only when stderr is a terminal (so a
//! redirected or CI run's stderr stays clean).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// Counts cells as they are measured.
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A bar for `total` cells; hidden unless stderr is a terminal.
    pub fn new(total: u64) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            if let Ok(style) = ProgressStyle::with_template(
                "{pos:>4}/{len:4} cells [{bar:30}] {eta:>4} {wide_msg}",
            ) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar
        });
        Progress { bar }
    }

    /// Names the cell about to be measured.
    pub fn start(&self, what: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(what.to_string());
        }
    }

    /// Counts one cell done.
    pub fn done(&self) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
