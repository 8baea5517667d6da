//! `linerate report`: the speed lab as one self-contained page, HTML
//! (inline CSS, inline SVG plots, no external assets) or Markdown: every
//! table, each seed table quoted beside today's figures, plots, and the
//! machine (CPU, features, backends, commit, date).
//!
//! Like b3sum and openssl, it writes to standard output unless `-o FILE`
//! names a file; a file is written to a temporary name beside it and
//! renamed into place, so it is never left half-written, and an unwritable
//! place is reported before the lab runs.

use crate::PROGRAM;
use crate::output::{OutputFile, print_or_quiet, reason};
use crate::speed::progress::Progress;
use crate::speed::saved_run;
use linerate_lab::lab::{self, Request};
use linerate_lab::report::{html, markdown};
use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "\
Usage: linerate report [-o FILE] [--markdown] [--quick | --from LAB] [--gpu RUN]
Run the speed lab (as 'linerate speed' with no ALGO), or read a run saved
by 'linerate speed --json > LAB', and write one
self-contained HTML page: every table, each seed document's table quoted
beside today's figures, SVG plots (throughput by block size, cycles/byte
against the 4.0 bound, link rates, MD5-P/K's speed-up), the CPU, its
features, the backends, the commit and the date. No external assets.

  -o FILE, --output FILE   write FILE (see OUTPUT FILES); '-' or no -o
                           writes standard output
  --markdown               Markdown instead of HTML (plots as inline SVG)
  --quick                  a few seconds, rough figures (for CI)
  --from LAB               measure nothing: render the run saved in LAB
                           ('linerate speed --json' output; '-' reads
                           standard input)
  --gpu RUN                add the plot of a saved GPU run ('linerate speed
                           gpu --json' output, e.g. docs/gpu/h100-run3.json):
                           MD5 on the GPU and the CPU by batch size beside
                           the link rates
  -h, --help               print this help

OUTPUT FILES: a regular file (or a new one) is written to a temporary file
beside it and renamed into place when whole: never half-written; it keeps
the mode, owner and group of the file it replaces. A symbolic link is
written through to its target. A device or FIFO is written to directly.

Exit status: 0 on success; 1 if the output could not be written or LAB (or
RUN) is not a saved run or LAB holds a figure out of range (the message
names the table, cell and key, or the missing key; nothing is written); 2
for a usage error. A plot that cannot be drawn from RUN's figures says why
in its place.
";

/// What `linerate report` was asked to do.
struct ReportOptions {
    output: Option<PathBuf>,
    markdown: bool,
    quick: bool,
    from: Option<PathBuf>,
    gpu: Option<PathBuf>,
    help: bool,
}

fn parse(args: &[OsString]) -> Result<ReportOptions, String> {
    let mut o = ReportOptions {
        output: None,
        markdown: false,
        quick: false,
        from: None,
        gpu: None,
        help: false,
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let text = arg.to_string_lossy();
        match text.as_ref() {
            "--markdown" => o.markdown = true,
            "--quick" => o.quick = true,
            "-h" | "--help" => o.help = true,
            "-o" | "--output" => {
                let path = args
                    .next()
                    .ok_or_else(|| format!("option '{text}' needs a FILE"))?;
                o.output = output_path(path);
            }
            "--from" => {
                let path = args
                    .next()
                    .ok_or_else(|| format!("option '{text}' needs a FILE"))?;
                o.from = Some(PathBuf::from(path));
            }
            "--gpu" => {
                let path = args
                    .next()
                    .ok_or_else(|| format!("option '{text}' needs a FILE"))?;
                o.gpu = Some(PathBuf::from(path));
            }
            _ => {
                if let Some(path) = text.strip_prefix("--gpu=") {
                    o.gpu = Some(PathBuf::from(path));
                } else if let Some(path) = text.strip_prefix("--from=") {
                    o.from = Some(PathBuf::from(path));
                } else if let Some(path) = text.strip_prefix("--output=") {
                    o.output = output_path(&OsString::from(path));
                } else if text.starts_with("-o") && text.len() > 2 {
                    o.output = output_path(&OsString::from(&text[2..]));
                } else {
                    return Err(if text.starts_with('-') {
                        format!("unrecognized option '{text}'")
                    } else {
                        format!("extra operand '{text}'")
                    });
                }
            }
        }
    }
    if o.quick && o.from.is_some() {
        return Err("--from renders a saved run: it takes no --quick".to_string());
    }
    Ok(o)
}

/// The plots of the GPU run saved in `path`, or a one-line reason naming
/// the file.
fn gpu_run(path: &std::path::Path) -> Result<Vec<linerate_lab::report::plots::Plot>, String> {
    let name = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: {}", reason(&e)))?;
    let run: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{name}: not JSON: {e}"))?;
    linerate_lab::report::gpu_plots::plots(&run).map_err(|e| format!("{name}: {e}"))
}

/// `-` is standard output.
fn output_path(path: &OsString) -> Option<PathBuf> {
    (path != "-").then(|| PathBuf::from(path))
}

/// Runs `linerate report`.
pub fn main(args: &[OsString]) -> ExitCode {
    // The lab's OpenSSH section runs a private sshd: SIGINT stops it.
    crate::output::on_signal(linerate_lab::ssh::stop_running);
    let options = match parse(args) {
        Ok(o) => o,
        Err(message) => {
            eprintln!("{PROGRAM}: {message}\nTry 'linerate report --help' for more information.");
            return ExitCode::from(2);
        }
    };
    if options.help {
        print_or_quiet(USAGE.as_bytes());
        return ExitCode::SUCCESS;
    }
    // A saved run is read first: if it is not one, nothing is written.
    let saved = match options.from.as_deref().map(saved_run).transpose() {
        Ok(saved) => saved,
        Err(message) => {
            eprintln!("{PROGRAM}: report: {message}");
            return ExitCode::from(1);
        }
    };
    // So is a saved GPU run.
    let gpu_plots = match options.gpu.as_deref().map(gpu_run).transpose() {
        Ok(plots) => plots.unwrap_or_default(),
        Err(message) => {
            eprintln!("{PROGRAM}: report: {message}");
            return ExitCode::from(1);
        }
    };
    // The temporary file next: an unwritable place fails now, not after
    // the lab has run.
    let temp = match &options.output {
        Some(path) => match OutputFile::create(path, "report") {
            Ok(temp) => Some(temp),
            Err(e) => {
                eprintln!(
                    "{PROGRAM}: report: cannot write '{}': {}",
                    path.display(),
                    reason(&e)
                );
                return ExitCode::from(1);
            }
        },
        None => None,
    };
    let lab = match saved {
        Some(lab) => lab,
        None => {
            let request = Request {
                quick: options.quick,
                ..Request::default()
            };
            lab::run(&request, &Progress::default())
        }
    };
    let page = if options.markdown {
        markdown::render_with(&lab, gpu_plots)
    } else {
        html::render_with(&lab, gpu_plots)
    };
    match (temp, &options.output) {
        (Some(mut temp), Some(path)) => {
            match temp.write_all(page.as_bytes()).and_then(|()| temp.commit()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!(
                        "{PROGRAM}: report: cannot write '{}': {}",
                        path.display(),
                        reason(&e)
                    );
                    ExitCode::from(1)
                }
            }
        }
        _ => {
            print_or_quiet(page.as_bytes());
            ExitCode::SUCCESS
        }
    }
}
