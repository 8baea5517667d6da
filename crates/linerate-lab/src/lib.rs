//! linerate's performance lab: every algorithm linerate has (and the
//! ciphers and digests of the seed documents) timed on this machine, in the
//! seed documents' tables with their figures beside today's: throughput by
//! block size (`openssl speed`'s table, Eric Young's 1998 post), key-setup
//! cost (1998), per-packet MAC cost with the key reused or set up again
//! (OpenSSH 2007), RFC 1810's model and link rates, and the hardware model
//! beside the project's synthesised cores. Rendered as text, JSON, HTML or
//! Markdown.
//!
//! - [`lab`]: one run ([`lab::Request`], [`lab::run`]);
//! - [`algo`]: the throughput rows, taken from linerate's registry, and
//!   their jobs; [`blocks`]: the data a job reads, warm or cold;
//! - [`timing`]: warm-up, trials, median, spread; [`cells`]: measured
//!   cells and the throughput table;
//! - [`keysetup`], [`permac`], [`model`]: the other tables; [`ssh`]: bulk
//!   transfers over a private OpenSSH server, one MAC at a time;
//! - [`seeds`]: the quotations; [`machine`]: what ran it;
//! - [`table`]: the one data model, rendered by [`text`], [`json`] and
//!   [`report`] (HTML, Markdown, SVG plots); [`load`] reads a saved
//!   JSON run back;
//! - [`packets`]: the ICV algorithms timed over a capture's packets, TCP-MD5
//!   beside the kernel's own cost ([`kernel_md5`]);
//! - [`progress`]: how a caller hears of a run;
//! - `gpu` (feature `cuda`): the GPU section, `linerate speed gpu`.

pub mod algo;
pub mod blocks;
pub mod cells;
#[cfg(feature = "cuda")]
pub mod gpu;
pub mod json;
pub mod kernel_md5;
pub mod keysetup;
pub mod lab;
pub mod load;
pub mod machine;
pub mod model;
pub mod packets;
pub mod permac;
pub mod progress;
pub mod report;
pub mod seeds;
pub mod ssh;
pub mod table;
pub mod text;
pub mod timing;

/// Threads a run uses for "all cores": what this process may run on.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}
