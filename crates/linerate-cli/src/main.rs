//! The `linerate` command.

use std::process::ExitCode;

fn main() -> ExitCode {
    linerate_cli::run(std::env::args_os().skip(1).collect())
}
