//! One command-line convention for every subcommand: `--help` and
//! `--version` work everywhere, an unknown option is said the same way
//! (md5sum's words, with the hint to the command's `--help`), and the
//! top-level help names every command.

use std::process::Command;

use crate::support::LINERATE;

const COMMANDS: [&str; 10] = [
    "sum", "cksum", "mac", "etag", "audit", "md5", "md5p", "packets", "speed", "report",
];

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(LINERATE)
        .args(args)
        .output()
        .expect("linerate runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn every_command_takes_help_and_version() {
    for command in COMMANDS {
        let (status, stdout, stderr) = run(&[command, "--version"]);
        assert_eq!(status, Some(0), "{command}: {stderr}");
        assert!(
            stdout.starts_with(&format!(
                "linerate {command} (linerate) {}\n",
                env!("CARGO_PKG_VERSION")
            )),
            "{command}: {stdout}"
        );
        let (status, stdout, stderr) = run(&[command, "--help"]);
        assert_eq!(status, Some(0), "{command}: {stderr}");
        assert!(
            stdout.starts_with("Usage: linerate "),
            "{command}: {stdout}"
        );
    }
}

#[test]
fn an_unknown_option_is_said_one_way() {
    for command in COMMANDS {
        // packets takes its own subcommand first.
        let args: &[&str] = if command == "packets" {
            &["packets", "sign", "--bogus"]
        } else {
            &[command, "--bogus"]
        };
        let (status, stdout, stderr) = run(args);
        assert!(matches!(status, Some(1 | 2)), "{command}: {status:?}");
        assert_eq!(stdout, "", "{command}");
        assert_eq!(
            stderr,
            format!(
                "linerate: unrecognized option '--bogus'\nTry 'linerate {command} --help' for more information.\n"
            ),
            "{command}"
        );
    }
}

#[test]
fn the_top_level_help_names_every_command() {
    let (status, stdout, _) = run(&["--help"]);
    assert_eq!(status, Some(0));
    for command in COMMANDS {
        assert!(
            stdout.contains(&format!("\n  {command} ")),
            "{command} missing from the help"
        );
    }
    assert!(stdout.contains("--help (its options and exit status) and --version"));
}
