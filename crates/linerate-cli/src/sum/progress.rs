//! A progress bar on stderr for long runs, shown only to a person watching:
//! when stderr is a terminal and the input is large (many bytes or many
//! files). Otherwise every method is a no-op, so redirected or piped output
//! stays exactly md5sum's. A run's bar shows files done out of the total
//! (when the total is known, as with `-r`), bytes done out of the total, the
//! rate, the time left and the file being waited for.
//!
//! The file engine reports to it through [`linerate_files::Progress`], from
//! any of its threads.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use linerate_files::Input;

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
    run: Mutex<Option<RunBar>>,
    /// A bar for one large file, when there is no run bar.
    file: Mutex<Option<ProgressBar>>,
}

/// A run's bar, and files done out of the total when it shows them.
#[derive(Clone)]
struct RunBar {
    bar: ProgressBar,
    files: Option<(u64, std::sync::Arc<AtomicU64>)>,
}

impl RunBar {
    /// Counts one more file done and shows the count.
    fn tick(&self) {
        if let Some((total, done)) = &self.files {
            let done = done.fetch_add(1, Ordering::Relaxed) + 1;
            self.bar.set_prefix(format!("{done}/{total} files"));
        }
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
        let progress = Progress {
            enabled: std::io::stderr().is_terminal(),
            run: Mutex::new(None),
            file: Mutex::new(None),
        };
        if progress.enabled
            && let Some(total) = total_bytes()
        {
            progress.start_run(total, files);
        }
        progress
    }

    /// A display that never shows anything.
    pub fn hidden() -> Progress {
        Progress {
            enabled: false,
            run: Mutex::new(None),
            file: Mutex::new(None),
        }
    }

    /// Shows a run's bar if the run is large enough.
    fn start_run(&self, total: u64, files: Option<u64>) {
        let many = files.is_some_and(|n| n >= FILES_THRESHOLD);
        if total < THRESHOLD && !many {
            return;
        }
        let run = match files {
            Some(files) => {
                let bar = new_bar(total, FILES_TEMPLATE);
                bar.set_prefix(format!("0/{files} files"));
                RunBar {
                    bar,
                    files: Some((files, std::sync::Arc::new(AtomicU64::new(0)))),
                }
            }
            None => RunBar {
                bar: new_bar(total, TEMPLATE),
                files: None,
            },
        };
        *lock(&self.run) = Some(run);
    }

    fn run_bar(&self) -> Option<RunBar> {
        lock(&self.run).clone()
    }

    /// The bar on the screen, if any.
    fn shown_bar(&self) -> Option<ProgressBar> {
        self.run_bar()
            .map(|r| r.bar)
            .or_else(|| lock(&self.file).clone())
    }

    /// Runs `f` (which writes to the terminal) with the bar out of the way.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match self.shown_bar() {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }

    /// Removes any bar from the screen.
    pub fn finish(&self) {
        linerate_files::Progress::end_file(self);
        if let Some(run) = lock(&self.run).take() {
            run.bar.finish_and_clear();
        }
    }
}

impl linerate_files::Progress for Progress {
    fn shown(&self) -> bool {
        self.enabled
    }

    fn expect(&self, bytes: u64, inputs: u64) {
        if self.enabled && lock(&self.run).is_none() {
            self.start_run(bytes, Some(inputs));
        }
    }

    fn begin_file(&self, input: Input<'_>, len: Option<u64>) {
        if !self.enabled {
            return;
        }
        let label = match input {
            Input::Stdin => "-".to_string(),
            Input::Path(path) => path.to_string_lossy().into_owned(),
            Input::Beneath(root, path) => std::path::Path::new(root.name())
                .join(path)
                .to_string_lossy()
                .into_owned(),
        };
        if let Some(run) = self.run_bar() {
            run.bar.set_message(label);
        } else if let Some(len) = len.filter(|&len| len >= THRESHOLD) {
            let bar = new_bar(len, TEMPLATE);
            bar.set_message(label);
            *lock(&self.file) = Some(bar);
        }
    }

    fn advance(&self, bytes: usize) {
        if let Some(bar) = self.shown_bar() {
            bar.inc(u64::try_from(bytes).unwrap_or(u64::MAX));
        }
    }

    fn file_done(&self) {
        if let Some(run) = self.run_bar() {
            run.tick();
        }
    }

    fn end_file(&self) {
        if let Some(bar) = lock(&self.file).take() {
            bar.finish_and_clear();
        }
    }
}

/// A lock that a panicking thread did not spoil: a bar is only a display.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
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
