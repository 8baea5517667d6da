//! `linerate speed`: the performance lab. Times every algorithm linerate
//! has (and the ciphers and digests of the seed documents) on this machine
//! and prints the seed documents' tables with today's figures: throughput
//! by block size (`openssl speed`'s table), key-setup cost, per-packet MAC
//! cost reused against re-keyed, RFC 1810's model and link rates, and the
//! hardware model. `linerate report` renders the same lab as HTML or
//! Markdown.
//!
//! The lab itself is the lab crate's ([`linerate_lab`]); here are its
//! command line ([`args`]), its progress bar ([`progress`]) and its text
//! and JSON output.

pub mod args;
pub mod gpu;
pub mod progress;
pub mod ssh;

use crate::PROGRAM;
use crate::output::print_or_quiet;
use linerate_lab::table::Lab;
use linerate_lab::{json, lab, load, text};
use progress::Progress;
use std::ffi::OsString;
use std::io::Read;
use std::path::Path;
use std::process::ExitCode;

const USAGE: &str = "\
Usage: linerate speed [OPTION]... [ALGO]...
The performance lab: measure this machine and print the seed documents'
tables (RFC 1810, Eric Young 1998, OpenSSH 2007, the 2015 FPGA paper) with
today's figures beside the quoted ones.

With no ALGO: every table (throughput by block size, key setup, per-packet
MAC cost, RFC 1810's model, link rates, hardware model), about 35 seconds
on an idle machine.
With ALGOs: only their rows of the throughput table.
'linerate speed gpu' runs the GPU section instead, 'linerate speed ssh'
the OpenSSH bulk-transfer section alone (see their --help).

ALGO: md5, md5-mb (multi-buffer), md5p4, md5p8, md5p16, md5p32, hmac-md5,
      hmac-md5-mb (multi-buffer), keyed-md5-mb (RFC 1828, multi-buffer),
      hmac-sha1, umac-32, umac-64, umac-96, umac-128, sha1, ripemd160,
      rc4, cksum (the Internet checksum, RFC 1071), read (the blocks only
      read: the ceiling of every row, the caches' rate or with --cold memory's)

  --bytes N      one block size instead of 8, 64, 256, 1024, 8192, 16384
  --seconds S    time per cell (default 0.15: a warm-up, then five trials,
                 their median shown)
  -j N           threads for the throughput table (default 1)
  --cold         the throughput table reads its blocks in turn from a buffer
                 four times the last-level cache (RFC 1810's 'on-chip caching
                 prohibited'); without it each block stays in the cache
  --json         one JSON object: the machine and every table's cells
                 (a saved run: 'linerate report --from' renders it)
  --from FILE    measure nothing: print the run saved in FILE (the output
                 of --json; '-' reads standard input)
  --quick        the whole run in a few seconds, same code path (for CI;
                 the figures are rough)
  -h, --help     print this help

Throughput figures are in 1000s of bytes per second (openssl speed's and
the 1998 table's unit). A figure followed by '?' is noisy: its trials
differ by more than 10%. 'n/a' cells say why under their table. Quoted
figures are labelled with the document they are quoted from.
A progress bar shows on stderr when it is a terminal.

Exit status: 0 on success; 1 if the output could not be written or FILE
is not a saved run or holds a figure out of range (the message names the
table, cell and key); 2 for a usage error (an unrecognized option or ALGO).
";

/// Runs `linerate speed`.
pub fn main(args: &[OsString]) -> ExitCode {
    // The lab's OpenSSH section runs a private sshd: SIGINT stops it.
    crate::output::on_signal(linerate_lab::ssh::stop_running);
    if args.first().is_some_and(|a| a == "gpu") {
        return gpu::main(&args[1..]);
    }
    if args.first().is_some_and(|a| a == "ssh") {
        return ssh::main(&args[1..]);
    }
    let options = match args::parse(args) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{PROGRAM}: {message}\nTry 'linerate speed --help' for more information.");
            return ExitCode::from(2);
        }
    };
    if options.help {
        print_or_quiet(USAGE.as_bytes());
        return ExitCode::SUCCESS;
    }
    let lab = match &options.from {
        Some(path) => match saved_run(path) {
            Ok(lab) => lab,
            Err(message) => {
                eprintln!("{PROGRAM}: speed: {message}");
                return ExitCode::from(1);
            }
        },
        None => lab::run(&options.request, &Progress::default()),
    };
    print_or_quiet(render(&lab, options.json).as_bytes());
    ExitCode::SUCCESS
}

/// A run as text, or as one JSON object (a saved run).
pub fn render(lab: &Lab, as_json: bool) -> String {
    if as_json {
        let mut s = serde_json::to_string_pretty(&json::render(lab)).unwrap_or_default();
        s.push('\n');
        s
    } else {
        text::render(lab)
    }
}

/// The run saved in `path` (`-`: standard input), or a one-line reason
/// that names the file.
pub fn saved_run(path: &Path) -> Result<Lab, String> {
    let mut text = String::new();
    let read = if path == Path::new("-") {
        linerate_files::stdin().read_to_string(&mut text)
    } else {
        std::fs::File::open(path).and_then(|mut f| f.read_to_string(&mut text))
    };
    let name = if path == Path::new("-") {
        "standard input".into()
    } else {
        path.display().to_string()
    };
    read.map_err(|e| format!("{name}: {}", crate::output::reason(&e)))?;
    load::parse(&text).map_err(|e| format!("{name}: {e}"))
}
