//! `linerate speed ssh`: the lab's OpenSSH section alone (see
//! `linerate_lab::ssh`): bulk transfers to a private sshd on 127.0.0.1,
//! once per MAC, beside the 2007 figures.

use crate::PROGRAM;
use crate::output::print_or_quiet;
use linerate_lab::cells::Context;
use linerate_lab::machine;
use linerate_lab::ssh::{self, SshRequest};
use linerate_lab::table::Lab;
use linerate_lab::timing::Settings;
use std::ffi::OsString;
use std::process::ExitCode;

use super::progress::Progress;

const USAGE: &str = "\
Usage: linerate speed ssh [--bytes N] [--trials N] [--quick] [--json]
OpenSSH's 2007 experiment again: start a private sshd (this machine's
OpenSSH) on 127.0.0.1 with its own temporary configuration and keys (in a
directory only this user can enter: under $XDG_RUNTIME_DIR, /run for
root, or ~/.cache/linerate), and
send the same bytes to it through 'ssh ... cat > /dev/null' once per MAC
(cipher aes128-ctr) and with the AEAD ciphers chacha20-poly1305 and
aes128-gcm; MB/s and CPU seconds per GiB on each side, medians over the
trials, beside the 2007 mail's figures and linerate's own speed for each
MAC. The server is stopped and its files removed at the end, also on
SIGINT or SIGTERM; it and its clients die with linerate, also on SIGKILL,
and the next run removes what a killed one left. The client key may run
the transfer only; root may log in only where linerate runs as root. The
system's sshd and its keys are never touched.

  --bytes N    bytes per transfer (default 1073741824, 1 GiB)
  --trials N   transfers per configuration (default 3)
  --quick      4 MiB, one trial: checks that it runs (rough figures)
  --json       one JSON object (a saved run: 'linerate report --from')
  -h, --help   print this help

Where OpenSSH is not installed or its server does not start, the table
says why and the exit status is still 0.

Exit status: 0 on success; 1 if the output could not be written; 2 for a
usage error.
";

pub fn main(args: &[OsString]) -> ExitCode {
    let mut request = SshRequest::FULL;
    let mut quick = false;
    let mut as_json = false;
    let mut bytes = None;
    let mut trials = None;
    let mut args = args.iter();
    let usage = |m: String| {
        eprintln!(
            "{PROGRAM}: speed ssh: {m}\nTry 'linerate speed ssh --help' for more information."
        );
        ExitCode::from(2)
    };
    while let Some(a) = args.next() {
        let text = a.to_string_lossy();
        let mut number = |name: &str| -> Result<u64, String> {
            let v = args
                .next()
                .ok_or_else(|| format!("option '{name}' needs a number"))?;
            v.to_string_lossy()
                .parse::<u64>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| {
                    format!(
                        "invalid {name} '{}': give a positive whole number",
                        v.to_string_lossy()
                    )
                })
        };
        match text.as_ref() {
            "--quick" => quick = true,
            "--json" => as_json = true,
            "-h" | "--help" => {
                print_or_quiet(USAGE.as_bytes());
                return ExitCode::SUCCESS;
            }
            "--bytes" => match number("--bytes") {
                Ok(n) => bytes = Some(n),
                Err(m) => return usage(m),
            },
            "--trials" => match number("--trials") {
                Ok(n) => trials = Some(n as usize),
                Err(m) => return usage(m),
            },
            _ => return usage(format!("unrecognized argument '{text}'")),
        }
    }
    if quick {
        request = SshRequest::QUICK;
    }
    request.bytes = bytes.unwrap_or(request.bytes);
    request.trials = trials.unwrap_or(request.trials);
    let progress = Progress::default();
    let ctx = Context {
        settings: if quick {
            Settings::QUICK
        } else {
            Settings::DEFAULT
        },
        threads: 1,
        cold: None,
        progress: &progress,
    };
    let lab = Lab {
        machine: machine::Machine::detect(),
        tables: ssh::measure(&ctx, request),
        quick,
    };
    print_or_quiet(super::render(&lab, as_json).as_bytes());
    ExitCode::SUCCESS
}
