//! `linerate mac`'s command-line errors: every key and nonce problem is one
//! line naming it, with exit status 2, before any file is read, and the key
//! never appears in a message. Option errors get `sum`'s wording and the
//! hint to `--help`, also with status 2.

use crate::support::{LINERATE, Outcome, mac, scratch, write};
use std::process::Command;

const UMAC_KEY: &str = "00112233445566778899aabbccddeeff";
const SECRET: &str = "5ec2e75ec2e75ec2e7";

/// Asserts a one-line error with status 2 and nothing on stdout.
fn one_line(out: &Outcome, message: &str) {
    assert_eq!(
        (
            out.status,
            out.stdout_text().as_str(),
            out.stderr_text().as_str()
        ),
        (Some(2), "", format!("linerate: {message}\n").as_str())
    );
}

/// Asserts an option error: `sum`'s message and the hint, status 2.
fn with_hint(out: &Outcome, message: &str) {
    assert_eq!(
        (
            out.status,
            out.stdout_text().as_str(),
            out.stderr_text().as_str()
        ),
        (
            Some(2),
            "",
            format!("linerate: {message}\nTry 'linerate mac --help' for more information.\n")
                .as_str()
        )
    );
}

#[test]
fn algorithm_errors() {
    let dir = scratch();
    let out = mac(dir.path(), &["--key-hex", "00", "f"], None);
    one_line(
        &out,
        "no algorithm: choose one with -a (hmac-md5, hmac-md5-96, hmac-sha1, \
         hmac-sha1-96, umac-32, umac-64, umac-96 or umac-128)",
    );
    let out = mac(dir.path(), &["-a", "hmac-sha256", "--key-hex", "00"], None);
    one_line(
        &out,
        "invalid algorithm 'hmac-sha256': give hmac-md5, hmac-md5-96, hmac-sha1, \
         hmac-sha1-96, umac-32, umac-64, umac-96 or umac-128",
    );
}

#[test]
fn key_errors() {
    let dir = scratch();
    write(dir.path(), "f", b"data");
    write(dir.path(), "empty", b"");
    write(dir.path(), "k15", &[7; 15]);
    write(dir.path(), "k17", &[7; 17]);
    write(dir.path(), "huge", &vec![7; 65537]);
    std::fs::create_dir(dir.path().join("dir")).unwrap();
    let cases: [(&[&str], &str); 17] = [
        (
            &["-a", "hmac-md5", "f"],
            "hmac-md5 needs a key: give --key-file FILE, --key-env NAME or --key-hex HEX",
        ),
        (
            &["-a", "umac-64", "--nonce-hex", "00", "f"],
            "umac-64 needs a key: give --key-file FILE, --key-env NAME or --key-hex HEX",
        ),
        (
            &["-a", "hmac-md5", "--key-file", "k15", "--key-hex", "00"],
            "give the key once: one of --key-file, --key-env, --key-hex",
        ),
        (
            &["-a", "hmac-sha1", "--key-hex", "5ec2e75ec2e75ec2e"],
            "--key-hex: odd number of hex digits (17); give two per byte",
        ),
        (
            &["-a", "hmac-sha1", "--key-hex", "5ec2e75ec2e75ec2eg"],
            "--key-hex: character 18 is not a hex digit",
        ),
        (
            &["-a", "hmac-sha1", "--key-hex", ""],
            "--key-hex is empty: hmac-sha1 needs a key",
        ),
        (
            &["-a", "hmac-md5-96", "--key-file", "empty"],
            "the key file is empty: hmac-md5-96 needs a key",
        ),
        (
            &["-a", "hmac-md5", "--key-file", "nokey"],
            "cannot read key file nokey: No such file or directory",
        ),
        (
            &["-a", "hmac-md5", "--key-file", "dir"],
            "cannot read key file dir: Is a directory",
        ),
        (
            &["-a", "hmac-md5", "--key-file", "huge"],
            "cannot read key file huge: longer than 65536 bytes (is it the right file?)",
        ),
        (
            &["-a", "umac-32", "--key-file", "k15", "--nonce-hex", "01"],
            "umac-32 needs a key of exactly 16 bytes; the key file holds 15 bytes",
        ),
        (
            &["-a", "umac-128", "--key-file", "k17", "--nonce-hex", "01"],
            "umac-128 needs a key of exactly 16 bytes; the key file holds 17 bytes",
        ),
        (
            &["-a", "umac-96", "--key-hex", SECRET, "--nonce-hex", "01"],
            "umac-96 needs a key of exactly 16 bytes; --key-hex holds 9 bytes",
        ),
        (
            &["-a", "umac-64", "--key-hex=", "--nonce-hex", "01"],
            "umac-64 needs a key of exactly 16 bytes; --key-hex holds 0 bytes",
        ),
        (
            &[
                "-a",
                "hmac-md5",
                "--key-env",
                "LINERATE_TEST_NO_SUCH_KEY",
                "f",
            ],
            "--key-env: LINERATE_TEST_NO_SUCH_KEY is not set",
        ),
        (
            &["-a", "hmac-md5", "--key-file", "-"],
            "standard input cannot give both the key (--key-file -) and a message",
        ),
        (
            &["-a", "hmac-md5", "--key-file", "k15", "--key-env", "K"],
            "give the key once: one of --key-file, --key-env, --key-hex",
        ),
    ];
    for (args, message) in cases {
        let out = mac(dir.path(), args, None);
        one_line(&out, message);
        // The key itself is never shown.
        assert!(!out.stderr_text().contains(&SECRET[..8]), "{args:?}");
    }
}

#[test]
fn nonce_errors() {
    let dir = scratch();
    write(dir.path(), "f", b"data");
    let hmac_nonce = "takes no nonce: --nonce-hex is for umac-32, umac-64, umac-96 and umac-128";
    let cases: [(&[&str], String); 7] = [
        (
            &["-a", "umac-64", "--key-hex", UMAC_KEY, "f"],
            "umac-64 needs a nonce: give --nonce-hex with 1 to 16 bytes in hex".into(),
        ),
        (
            &["-a", "umac-32", "--key-hex", UMAC_KEY, "--nonce-hex", ""],
            "umac-32 needs a nonce of 1 to 16 bytes; --nonce-hex gives 0 bytes".into(),
        ),
        (
            &[
                "-a",
                "umac-128",
                "--key-hex",
                UMAC_KEY,
                "--nonce-hex",
                "000102030405060708090a0b0c0d0e0f10",
            ],
            "umac-128 needs a nonce of 1 to 16 bytes; --nonce-hex gives 17 bytes".into(),
        ),
        (
            &[
                "-a",
                "umac-96",
                "--key-hex",
                UMAC_KEY,
                "--nonce-hex",
                "0x01",
            ],
            "--nonce-hex: character 2 is not a hex digit".into(),
        ),
        (
            &["-a", "umac-96", "--key-hex", UMAC_KEY, "--nonce-hex", "123"],
            "--nonce-hex: odd number of hex digits (3); give two per byte".into(),
        ),
        (
            &["-a", "hmac-md5", "--key-hex", "00", "--nonce-hex", "01"],
            format!("hmac-md5 {hmac_nonce}"),
        ),
        (
            &[
                "-a",
                "hmac-sha1-96",
                "--key-hex",
                "00",
                "--nonce-hex",
                "",
                "f",
            ],
            format!("hmac-sha1-96 {hmac_nonce}"),
        ),
    ];
    for (args, message) in cases {
        one_line(&mac(dir.path(), args, None), &message);
    }
}

/// Setup errors stop the run before anything is read: `--check` lists and
/// standard input included.
#[test]
fn errors_come_before_any_file() {
    let dir = scratch();
    let out = mac(
        dir.path(),
        &[
            "-a",
            "umac-64",
            "--key-hex",
            "00",
            "--nonce-hex",
            "01",
            "-c",
            "nolist",
        ],
        Some(b"never read"),
    );
    one_line(
        &out,
        "umac-64 needs a key of exactly 16 bytes; --key-hex holds 1 byte",
    );
}

#[test]
fn option_errors_get_the_hint() {
    let dir = scratch();
    let key = ["-a", "hmac-md5", "--key-hex", "00"];
    let run = |extra: &[&str]| mac(dir.path(), &[&key[..], extra].concat(), None);
    with_hint(&run(&["--bogus"]), "unrecognized option '--bogus'");
    with_hint(&run(&["-j2"]), "invalid option -- 'j'");
    with_hint(&run(&["--key"]), "unrecognized option '--key'");
    with_hint(
        &mac(dir.path(), &["-a", "hmac-md5", "--key-file"], None),
        "option '--key-file' requires an argument",
    );
    with_hint(
        &run(&["-c", "--tag"]),
        "the --tag option is meaningless when verifying checksums",
    );
    with_hint(
        &run(&["-c", "-z"]),
        "the --zero option is not supported when verifying checksums",
    );
    with_hint(
        &run(&["--strict"]),
        "the --strict option is meaningful only when verifying checksums",
    );
    with_hint(
        &run(&["--st"]),
        "option '--st' is ambiguous; possibilities: '--status' '--strict'",
    );
}

#[test]
fn help_version_and_the_command_list() {
    let dir = scratch();
    let help = mac(dir.path(), &["--help"], None);
    assert_eq!(help.status, Some(0));
    let text = help.stdout_text();
    for needle in [
        "Usage: linerate mac -a ALG",
        "--key-file=FILE",
        "--nonce-hex=HEX",
        "umac-128",
        "Exit status:",
        "  2  a bad command line",
        "A UMAC nonce must never be used twice under one key",
        "--nonce-start=HEX",
        "--nonce-reuse",
        "--key-env=NAME",
    ] {
        assert!(text.contains(needle), "{needle:?} not in the help");
    }
    let version = mac(dir.path(), &["--version"], None);
    assert!(
        version
            .stdout_text()
            .starts_with("linerate mac (linerate) ")
    );
    let usage = Command::new(LINERATE).arg("help").output().unwrap();
    assert!(String::from_utf8_lossy(&usage.stdout).contains("\n  mac -a ALG"));
}

/// A misspelled key option does not echo its value (the key).
#[test]
fn a_misspelled_key_option_is_not_echoed() {
    let dir = scratch();
    for given in ["--keyhex", "--key", "--key-hexx"] {
        let option = format!("{given}={SECRET}");
        let out = mac(dir.path(), &["-a", "hmac-md5", &option, "f"], None);
        with_hint(&out, &format!("unrecognized option '{given}=...'"));
    }
}

/// The key from standard input, an environment variable and an inherited
/// descriptor: the same MACs as `--key-hex`.
#[test]
fn keys_from_stdin_the_environment_and_a_descriptor() {
    let dir = scratch();
    write(dir.path(), "f", b"the message");
    let key = [0x5e_u8, 0xc2, 0xe7, 0x01, 0x02];
    let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
    write(dir.path(), "key", &key);
    let want = mac(
        dir.path(),
        &["-a", "hmac-sha1", "--key-hex", &hex, "f"],
        None,
    );
    assert_eq!(want.status, Some(0));
    let from_stdin = mac(
        dir.path(),
        &["-a", "hmac-sha1", "--key-file", "-", "f"],
        Some(&key),
    );
    assert_eq!(from_stdin.stdout_text(), want.stdout_text());
    let from_env = Command::new(LINERATE)
        .args([
            "mac",
            "-a",
            "hmac-sha1",
            "--key-env",
            "LINERATE_TEST_KEY",
            "f",
        ])
        .env("LINERATE_TEST_KEY", &hex)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&from_env.stdout),
        want.stdout_text()
    );
    let from_fd = Command::new("sh")
        .args([
            "-c",
            "exec \"$0\" mac -a hmac-sha1 --key-file /dev/fd/3 f 3<key",
            LINERATE,
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&from_fd.stdout), want.stdout_text());
}
