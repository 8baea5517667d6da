//! `linerate sum`'s command line against GNU md5sum's: getopt_long's
//! errors, md5sum's checks on option combinations, `--help`, `--version`.

use crate::support::{Input, Run, awkward_tree, write};

const TRY: &str = "Try 'linerate sum --help' for more information.\n";

/// Argument lists md5sum rejects, with linerate's expected first line.
const REJECTED: &[(&[&[u8]], &str)] = &[
    (&[b"-x"], "invalid option -- 'x'"),
    (&[b"-c:", b"sums"], "invalid option -- ':'"),
    (&[b"-b\xc3\xa9"], "invalid option -- '\u{fffd}'"),
    (&[b"--foo"], "unrecognized option '--foo'"),
    (&[b"--foo=bar"], "unrecognized option '--foo=bar'"),
    (&[b"---x"], "unrecognized option '---x'"),
    (
        &[b"--st", b"a"],
        "option '--st' is ambiguous; possibilities: '--status' '--strict'",
    ),
    (
        &[b"--t", b"a"],
        "option '--t' is ambiguous; possibilities: '--tag' '--text'",
    ),
    (
        &[b"--s=1"],
        "option '--s=1' is ambiguous; possibilities: '--status' '--strict'",
    ),
    (
        &[b"--=x"],
        "option '--=x' is ambiguous; possibilities: '--check' '--ignore-missing' '--quiet' '--status' \
         '--warn' '--strict' '--tag' '--zero' '--binary' '--text' '--help' '--version'",
    ),
    (
        &[b"--check=x", b"sums"],
        "option '--check' doesn't allow an argument",
    ),
    (
        &[b"--ch=x", b"sums"],
        "option '--check' doesn't allow an argument",
    ),
    (&[b"--text="], "option '--text' doesn't allow an argument"),
    (
        &[b"--tag", b"-t", b"a"],
        "--tag does not support --text mode",
    ),
    (
        &[b"--tag", b"-t", b"-c"],
        "--tag does not support --text mode",
    ),
    (
        &[b"-c", b"-z", b"sums"],
        "the --zero option is not supported when verifying checksums",
    ),
    (
        &[b"-c", b"--tag", b"sums"],
        "the --tag option is meaningless when verifying checksums",
    ),
    (
        &[b"-bc", b"sums"],
        "the --binary and --text options are meaningless when verifying checksums",
    ),
    (
        &[b"sums", b"-tc"],
        "the --binary and --text options are meaningless when verifying checksums",
    ),
    (
        &[b"--ignore", b"a"],
        "the --ignore-missing option is meaningful only when verifying checksums",
    ),
    (
        &[b"--stat", b"a"],
        "the --status option is meaningful only when verifying checksums",
    ),
    (
        &[b"-w", b"a"],
        "the --warn option is meaningful only when verifying checksums",
    ),
    (
        &[b"--quiet", b"--tag", b"a"],
        "the --quiet option is meaningful only when verifying checksums",
    ),
    (
        &[b"--strict", b"a"],
        "the --strict option is meaningful only when verifying checksums",
    ),
    (&[b"-x", b"--help"], "invalid option -- 'x'"),
];

#[test]
fn rejected_command_lines() {
    let dir = awkward_tree();
    write(dir.path(), b"sums", b"");
    for (args, message) in REJECTED {
        let out = Run::new(dir.path(), args).assert_same();
        assert_eq!(out.status, Some(1), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert_eq!(
            out.stderr_text(),
            format!("linerate: {message}\n{TRY}"),
            "{args:?}"
        );
    }
}

#[test]
fn abbreviations_and_bundles_that_work() {
    let dir = awkward_tree();
    write(
        dir.path(),
        b"sums",
        b"900150983cd24fb0d6963f7d28e17f72  a\n",
    );
    let accepted: &[&[&[u8]]] = &[
        &[b"--c", b"sums"],
        &[b"--ch", b"--qu", b"sums"],
        &[b"-cw", b"sums"],
        &[b"-wc", b"--stri", b"sums"],
        &[b"--ta", b"a"],
        &[b"--te", b"a"],
        &[b"--bin", b"--z", b"a"],
        &[b"-zb", b"a"],
        &[b"-t", b"--tag", b"a"],
    ];
    for args in accepted {
        let out = Run::new(dir.path(), args).assert_same();
        assert_eq!(out.status, Some(0), "{args:?}: {}", out.stderr_text());
    }
}

#[test]
fn help() {
    let dir = awkward_tree();
    let cases: &[&[&[u8]]] = &[
        &[b"--help"],
        &[b"--he"],
        &[b"--help", b"-x"],
        &[b"--tag", b"-t", b"--h"],
    ];
    for args in cases {
        let out = Run::new(dir.path(), args).linerate();
        assert_eq!(out.status, Some(0));
        assert!(out.stderr.is_empty());
        let text = out.stdout_text();
        assert!(
            text.starts_with("Usage: linerate sum [OPTION]... [FILE]...\n"),
            "{text}"
        );
        for option in [
            "--binary",
            "--check",
            "--tag",
            "--text",
            "--zero",
            "--ignore-missing",
            "--quiet",
        ] {
            assert!(text.contains(option), "{option} missing from help");
        }
        assert!(text.contains("--status") && text.contains("--strict") && text.contains("--warn"));
        assert!(text.contains("not collision resistant"));
    }
    // md5sum's help fails the same way on a full disk.
    let full = std::path::Path::new("/dev/full");
    if full.exists() {
        let out = Run::new(dir.path(), &[b"--help"])
            .stdout_to(full)
            .assert_same();
        assert_eq!(
            (out.status, out.stderr_text()),
            (Some(1), "linerate: write error\n".to_owned())
        );
    }
}

#[test]
fn version() {
    let dir = awkward_tree();
    let out = Run::new(dir.path(), &[b"--ver"])
        .stdin(Input::Null)
        .linerate();
    assert_eq!(out.status, Some(0));
    assert!(
        out.stdout_text().starts_with("linerate sum (linerate) "),
        "{}",
        out.stdout_text()
    );
    assert!(out.stdout_text().contains("md5sum (GNU coreutils) 9.1"));
}
