//! A progress bar on stderr for long runs, shown only to a person watching:
//! when stderr is a terminal and the input is large. Otherwise every method
//! is a no-op, so redirected or piped output stays exactly md5sum's.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Inputs smaller than this finish too quickly for a bar to help.
pub const THRESHOLD: u64 = 256 * 1024 * 1024;

const TEMPLATE: &str =
    "{wide_msg} {bytes:>10}/{total_bytes:<10} {binary_bytes_per_sec:>12} [{bar:24}] {eta:>4}";

/// The bar of a whole run, or of the large file being hashed.
pub struct Progress {
    enabled: bool,
    /// A bar covering every file of the run, when their total is known.
    run: Option<ProgressBar>,
    /// A bar for one large file, when there is no run bar.
    file: Option<ProgressBar>,
}

impl Progress {
    /// A progress display for a run whose regular files add up to
    /// `total_bytes()` (`None` when unknown, as with `--check`); the total is
    /// only worked out if a bar could be shown.
    pub fn new(total_bytes: impl FnOnce() -> Option<u64>) -> Progress {
        let enabled = std::io::stderr().is_terminal();
        let run = if enabled {
            total_bytes()
                .filter(|&total| total >= THRESHOLD)
                .map(new_bar)
        } else {
            None
        };
        Progress {
            enabled,
            run,
            file: None,
        }
    }

    /// A display that never shows anything.
    pub fn hidden() -> Progress {
        Progress {
            enabled: false,
            run: None,
            file: None,
        }
    }

    /// Starts hashing `name`, whose size is `len` if it is a regular file.
    pub fn begin_file(&mut self, name: &[u8], len: Option<u64>) {
        if !self.enabled {
            return;
        }
        let label = String::from_utf8_lossy(name).into_owned();
        if let Some(bar) = &self.run {
            bar.set_message(label);
        } else if let Some(len) = len.filter(|&len| len >= THRESHOLD) {
            let bar = new_bar(len);
            bar.set_message(label);
            self.file = Some(bar);
        }
    }

    /// A handle through which other threads record bytes hashed; it moves
    /// the run's bar, if there is one.
    pub fn ticker(&self) -> Ticker {
        Ticker(self.run.clone())
    }

    /// Records `bytes` more bytes hashed.
    pub fn advance(&self, bytes: usize) {
        if let Some(bar) = self.run.as_ref().or(self.file.as_ref()) {
            bar.inc(u64::try_from(bytes).unwrap_or(u64::MAX));
        }
    }

    /// The current file is done (or failed).
    pub fn end_file(&mut self) {
        if let Some(bar) = self.file.take() {
            bar.finish_and_clear();
        }
    }

    /// Runs `f` (which writes to the terminal) with the bar out of the way.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match self.run.as_ref().or(self.file.as_ref()) {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }

    /// Removes any bar from the screen.
    pub fn finish(&mut self) {
        self.end_file();
        if let Some(bar) = self.run.take() {
            bar.finish_and_clear();
        }
    }
}

/// Moves a run's bar from a worker thread (see [`Progress::ticker`]).
#[derive(Clone, Default)]
pub struct Ticker(Option<ProgressBar>);

impl Ticker {
    /// Records `bytes` more bytes hashed.
    pub fn advance(&self, bytes: usize) {
        if let Some(bar) = &self.0 {
            bar.inc(u64::try_from(bytes).unwrap_or(u64::MAX));
        }
    }
}

fn new_bar(len: u64) -> ProgressBar {
    let style = ProgressStyle::with_template(TEMPLATE)
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr_with_hz(4));
    bar.set_style(style);
    // A tick keeps the rate and ETA moving while a slow read blocks.
    bar.enable_steady_tick(Duration::from_millis(500));
    bar
}
