//! `linerate speed gpu`: the lab's GPU section (see `linerate_lab::gpu`).

use crate::PROGRAM;
use crate::output::print_or_quiet;
use std::ffi::OsString;
use std::process::ExitCode;

const USAGE: &str = "\
Usage: linerate speed gpu [--quick] [--json]
The GPU section of the lab: this GPU's ceilings (HBM copy rate, pinned
host-to-device rate, the integer-ALU bound of MD5's 64 steps), MD5 of
10^8 rows of 64 bytes and 10^6 rows of 16 KiB on the device and from host
memory against the CPU's lanes on every core, the crossover batch size,
and the S3 ETag of a 64 GiB buffer in 8 MiB parts. Every GPU digest is
compared with the CPU's first. Needs about 80 GiB of host memory and a
GPU with 70 GiB; --quick runs the same code on small batches.

  --quick    small batches, seconds (the figures are rough)
  --json     one JSON object at the end (the lines go to standard error)
  -h, --help print this help

Exit status: 0 on success; 1 if there is no usable GPU (the message says
why) or a GPU digest differs from the CPU's; 2 for a usage error.
";

pub fn main(args: &[OsString]) -> ExitCode {
    let mut quick = false;
    let mut json = false;
    for a in args {
        match a.to_str() {
            Some("--quick") => quick = true,
            Some("--json") => json = true,
            Some("-h" | "--help") => {
                print_or_quiet(USAGE.as_bytes());
                return ExitCode::SUCCESS;
            }
            _ => {
                eprintln!(
                    "{PROGRAM}: speed gpu: unrecognized argument '{}'\nTry 'linerate speed gpu --help' for more information.",
                    a.to_string_lossy()
                );
                return ExitCode::from(2);
            }
        }
    }
    run(quick, json)
}

#[cfg(feature = "cuda")]
fn run(quick: bool, json: bool) -> ExitCode {
    use linerate_lab::gpu::{Sizes, run};
    let sizes = if quick { Sizes::quick() } else { Sizes::full() };
    // With --json the lines still show, on standard error.
    let mut say = |line: &str| {
        if json {
            eprintln!("{line}");
        } else {
            print_or_quiet(format!("{line}\n").as_bytes());
        }
    };
    match run(sizes, &mut say) {
        Ok(v) => {
            if json {
                let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
                s.push('\n');
                print_or_quiet(s.as_bytes());
            }
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("{PROGRAM}: speed gpu: {why}");
            ExitCode::from(1)
        }
    }
}

#[cfg(not(feature = "cuda"))]
fn run(_quick: bool, _json: bool) -> ExitCode {
    eprintln!("{PROGRAM}: speed gpu: this build of linerate has no CUDA support (feature `cuda`)");
    ExitCode::from(1)
}
