//! A progress bar on stderr for long runs, shown only to a person watching:
//! when stderr is a terminal and the input is large (many bytes or many
//! files). Otherwise every method is a no-op, so redirected or piped output
//! stays exactly md5sum's. A run's bar shows files done out of the total
//! (when the total is known, as with `-r`), bytes done out of the total, the
//! rate, the time left and the file being waited for.

use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Inputs smaller than this finish too quickly for a bar to help...
pub const THRESHOLD: u64 = 256 * 1024 * 1024;

/// ...unless they are this many files, each with its own `open`.
pub const FILES_THRESHOLD: u64 = 100_000;

const TEMPLATE: &str =
    "{wide_msg} {bytes:>10}/{total_bytes:<10} {binary_bytes_per_sec:>12} [{bar:24}] {eta:>4}";

/// With files done out of the total first, the name last: the counts fit
/// an 80-column terminal up to a million files.
const FILES_TEMPLATE: &str = "{prefix} {bytes:>9}/{total_bytes:<9} \
    {binary_bytes_per_sec:>11} [{bar:16}] {eta:>3} {wide_msg}";

/// The bar of a whole run, or of the large file being hashed.
pub struct Progress {
    enabled: bool,
    /// A bar covering every file of the run, when their total is known.
    run: Option<ProgressBar>,
    /// A bar for one large file, when there is no run bar.
    file: Option<ProgressBar>,
    /// Files done out of the total, when the run's bar shows them.
    files: Option<Arc<FileCount>>,
}

/// Files done (counted by whichever thread hashed them) and their total.
struct FileCount {
    done: AtomicU64,
    total: u64,
}

impl FileCount {
    /// Counts one more file done and shows the count on `bar`.
    fn tick(&self, bar: &ProgressBar) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        bar.set_prefix(format!("{done}/{} files", self.total));
    }
}

impl Progress {
    /// A progress display for a run whose regular files add up to
    /// `total_bytes()` (`None` when unknown, as with `--check`); the total is
    /// only worked out if a bar could be shown.
    pub fn new(total_bytes: impl FnOnce() -> Option<u64>) -> Progress {
        Progress::counting(None, total_bytes)
    }

    /// [`Progress::new`] for a run of `files` files (when known), whose
    /// count the bar shows; a run of many files gets a bar even if small.
    pub fn counting(files: Option<u64>, total_bytes: impl FnOnce() -> Option<u64>) -> Progress {
        let enabled = std::io::stderr().is_terminal();
        let many = files.is_some_and(|n| n >= FILES_THRESHOLD);
        let run = if enabled {
            total_bytes()
                .filter(|&total| total >= THRESHOLD || many)
                .map(|total| match files {
                    Some(files) => {
                        let bar = new_bar(total, FILES_TEMPLATE);
                        bar.set_prefix(format!("0/{files} files"));
                        bar
                    }
                    None => new_bar(total, TEMPLATE),
                })
        } else {
            None
        };
        let files = files.filter(|_| run.is_some()).map(|total| {
            Arc::new(FileCount {
                done: AtomicU64::new(0),
                total,
            })
        });
        Progress {
            enabled,
            run,
            file: None,
            files,
        }
    }

    /// A display that never shows anything.
    pub fn hidden() -> Progress {
        Progress {
            enabled: false,
            run: None,
            file: None,
            files: None,
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
            let bar = new_bar(len, TEMPLATE);
            bar.set_message(label);
            self.file = Some(bar);
        }
    }

    /// A handle through which other threads record bytes hashed; it moves
    /// the run's bar, if there is one.
    pub fn ticker(&self) -> Ticker {
        Ticker {
            bar: self.run.clone(),
            files: self.files.clone(),
        }
    }

    /// Records `bytes` more bytes hashed.
    pub fn advance(&self, bytes: usize) {
        if let Some(bar) = self.run.as_ref().or(self.file.as_ref()) {
            bar.inc(u64::try_from(bytes).unwrap_or(u64::MAX));
        }
    }

    /// One more file of the run is done (or failed) on this thread; the
    /// workers count theirs with [`Ticker::file_done`].
    pub fn file_done(&self) {
        if let (Some(bar), Some(files)) = (&self.run, &self.files) {
            files.tick(bar);
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
pub struct Ticker {
    bar: Option<ProgressBar>,
    files: Option<Arc<FileCount>>,
}

impl Ticker {
    /// Records `bytes` more bytes hashed.
    pub fn advance(&self, bytes: usize) {
        if let Some(bar) = &self.bar {
            bar.inc(u64::try_from(bytes).unwrap_or(u64::MAX));
        }
    }

    /// Records one more file done (or failed).
    pub fn file_done(&self) {
        if let (Some(bar), Some(files)) = (&self.bar, &self.files) {
            files.tick(bar);
        }
    }
}

fn new_bar(len: u64, template: &str) -> ProgressBar {
    let style = ProgressStyle::with_template(template)
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr_with_hz(4));
    bar.set_style(style);
    // A tick keeps the rate and ETA moving while a slow read blocks.
    bar.enable_steady_tick(Duration::from_millis(500));
    bar
}
