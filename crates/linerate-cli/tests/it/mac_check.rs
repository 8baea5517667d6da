//! `linerate mac --check`: round trips for every MAC, tampered files, wrong
//! keys and nonces, missing files, the options shared with `linerate sum
//! --check`, and a differential run against `linerate sum --check` on the
//! same kind of checksum file: same reports, warnings and exit statuses.

use crate::support::{Outcome, mac, scratch, write};
use std::path::Path;
use std::process::Command;

const UMAC_KEY: &str = "000102030405060708090a0b0c0d0e0f";

/// The key (and nonce) options for `algorithm`.
fn keyed(algorithm: &'static str) -> Vec<&'static str> {
    let mut args = vec!["-a", algorithm];
    if algorithm.starts_with("umac") {
        // One nonce for every file (tagged in several runs, checked in one).
        args.extend([
            "--key-hex",
            UMAC_KEY,
            "--nonce-hex",
            "a1b2c3",
            "--nonce-reuse",
        ]);
    } else {
        args.extend(["--key-hex", "6b6579"]);
    }
    args
}

const ALL: [&str; 8] = [
    "hmac-md5",
    "hmac-md5-96",
    "hmac-sha1",
    "hmac-sha1-96",
    "umac-32",
    "umac-64",
    "umac-96",
    "umac-128",
];

/// The tag length of `algorithm` in bytes.
fn tag_len(algorithm: &str) -> usize {
    match algorithm {
        "hmac-md5" | "umac-128" => 16,
        "hmac-sha1" => 20,
        "umac-32" => 4,
        "umac-64" => 8,
        _ => 12,
    }
}

/// The lines `linerate mac` prints for `files` under `args`.
fn list(dir: &Path, args: &[&str], files: &[&str]) -> Vec<u8> {
    let out = mac(dir, &[args, files].concat(), None);
    assert_eq!(out.status, Some(0), "{}", out.stderr_text());
    out.stdout
}

fn check(dir: &Path, args: &[&str], extra: &[&str]) -> Outcome {
    mac(dir, &[args, &["-c"], extra].concat(), None)
}

fn expect(out: &Outcome, status: i32, stdout: &str, stderr: &str) {
    assert_eq!(
        (
            out.status,
            out.stdout_text().as_str(),
            out.stderr_text().as_str()
        ),
        (Some(status), stdout, stderr)
    );
}

#[test]
fn every_mac_round_trips_in_both_line_forms() {
    let dir = scratch();
    let names = ["a", "b c", "new\nline", "back\\slash", "empty"];
    for (i, name) in names.iter().enumerate() {
        let data = if *name == "empty" {
            vec![]
        } else {
            vec![b'x'; 1000 * i]
        };
        write(dir.path(), name, &data);
    }
    for algorithm in ALL {
        let args = keyed(algorithm);
        let mut lines = list(dir.path(), &args, &names);
        lines.extend(list(dir.path(), &[&args[..], &["--tag"]].concat(), &names));
        // Upper-case hex is accepted too.
        let line = String::from_utf8(list(dir.path(), &args, &["a"])).unwrap();
        let (tag, name) = line.split_once(' ').unwrap();
        lines.extend(format!("{} {name}", tag.to_uppercase()).as_bytes());
        write(dir.path(), "list", &lines);
        let ok = "a: OK\nb c: OK\n\\new\\nline: OK\nback\\slash: OK\nempty: OK\n";
        let out = check(dir.path(), &args, &["list"]);
        expect(&out, 0, &format!("{ok}{ok}a: OK\n"), "");
    }
}

#[test]
fn a_tampered_file_fails() {
    let dir = scratch();
    write(dir.path(), "a", b"abc");
    write(dir.path(), "b", b"def");
    for algorithm in ALL {
        let args = keyed(algorithm);
        write(dir.path(), "b", b"def");
        write(dir.path(), "list", &list(dir.path(), &args, &["a", "b"]));
        write(dir.path(), "b", b"deg");
        let out = check(dir.path(), &args, &["list"]);
        expect(
            &out,
            1,
            "a: OK\nb: FAILED\n",
            "linerate: WARNING: 1 computed checksum did NOT match\n",
        );
    }
}

#[test]
fn a_wrong_key_or_nonce_fails() {
    let dir = scratch();
    write(dir.path(), "a", b"abc");
    write(dir.path(), "b", b"");
    let all_failed = "a: FAILED\nb: FAILED\n";
    let warning = "linerate: WARNING: 2 computed checksums did NOT match\n";
    for algorithm in ALL {
        let args = keyed(algorithm);
        write(dir.path(), "list", &list(dir.path(), &args, &["a", "b"]));
        let wrong: Vec<Vec<&str>> = if algorithm.starts_with("umac") {
            let mut other_key = args.clone();
            other_key[3] = "000102030405060708090a0b0c0d0e0e";
            let mut other_nonce = args.clone();
            other_nonce[5] = "a1b2c4";
            // (UMAC pads a nonce with zeros: "a1b2c3" and "a1b2c300" are one
            // nonce for UMAC-96 and UMAC-128, so the longer one does not end
            // in a zero byte.)
            let mut longer_nonce = args.clone();
            longer_nonce[5] = "a1b2c301";
            vec![other_key, other_nonce, longer_nonce]
        } else {
            let mut other_key = args.clone();
            other_key[3] = "6b657a";
            // (HMAC pads a short key with zeros: "key" and "key\0" are one
            // HMAC key, so the longer key ends in a byte that is not zero.)
            let mut longer_key = args.clone();
            longer_key[3] = "6b657901";
            vec![other_key, longer_key]
        };
        for args in wrong {
            let out = check(dir.path(), &args, &["list"]);
            expect(&out, 1, all_failed, warning);
        }
    }
}

#[test]
fn missing_files() {
    let dir = scratch();
    write(dir.path(), "a", b"abc");
    write(dir.path(), "b", b"def");
    let args = keyed("umac-64");
    let lines = list(dir.path(), &args, &["a", "b"]);
    let text = String::from_utf8(lines).unwrap();
    let (first, second) = text.split_once('\n').unwrap();
    let missing = format!("{}  missing\n", &first[..16]);
    write(
        dir.path(),
        "list",
        format!("{first}\n{missing}{second}").as_bytes(),
    );
    let out = check(dir.path(), &args, &["list"]);
    expect(
        &out,
        1,
        "a: OK\nmissing: FAILED open or read\nb: OK\n",
        "linerate: missing: No such file or directory\n\
         linerate: WARNING: 1 listed file could not be read\n",
    );
    let out = check(dir.path(), &args, &["--ignore-missing", "list"]);
    expect(&out, 0, "a: OK\nb: OK\n", "");
    write(dir.path(), "only-missing", missing.as_bytes());
    let out = check(dir.path(), &args, &["--ignore-missing", "only-missing"]);
    expect(
        &out,
        1,
        "",
        "linerate: only-missing: no file was verified\n",
    );
    // A missing checksum file, between two good ones.
    let out = check(dir.path(), &args, &["list", "nolist", "list"]);
    assert_eq!(out.status, Some(1));
    assert!(
        out.stderr_text()
            .contains("linerate: nolist: No such file or directory\n")
    );
}

#[test]
fn quiet_status_warn_and_strict() {
    let dir = scratch();
    write(dir.path(), "a", b"abc");
    write(dir.path(), "b", b"def");
    let args = keyed("hmac-sha1-96");
    let mut lines = list(dir.path(), &args, &["a", "b"]);
    lines.extend_from_slice(b"not a checksum line\n");
    write(dir.path(), "list", &lines);
    let warning = "linerate: WARNING: 1 line is improperly formatted\n";
    expect(
        &check(dir.path(), &args, &["list"]),
        0,
        "a: OK\nb: OK\n",
        warning,
    );
    expect(
        &check(dir.path(), &args, &["--quiet", "list"]),
        0,
        "",
        warning,
    );
    expect(&check(dir.path(), &args, &["--status", "list"]), 0, "", "");
    expect(
        &check(dir.path(), &args, &["-w", "list"]),
        0,
        "a: OK\nb: OK\n",
        &format!("linerate: list: 3: improperly formatted HMAC-SHA1-96 checksum line\n{warning}"),
    );
    expect(
        &check(dir.path(), &args, &["--strict", "list"]),
        1,
        "a: OK\nb: OK\n",
        warning,
    );
    expect(
        &check(dir.path(), &args, &["--status", "--strict", "list"]),
        1,
        "",
        "",
    );
    write(dir.path(), "b", b"changed");
    expect(
        &check(dir.path(), &args, &["--quiet", "list"]),
        1,
        "b: FAILED\n",
        &format!("{warning}linerate: WARNING: 1 computed checksum did NOT match\n"),
    );
    expect(&check(dir.path(), &args, &["--status", "list"]), 1, "", "");
}

#[test]
fn lines_of_another_function_are_improperly_formatted() {
    let dir = scratch();
    write(dir.path(), "a", b"abc");
    // md5sum's lines, and each MAC's lines, checked as each other MAC.
    let sum = Command::new(crate::support::LINERATE)
        .args(["sum", "a"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    write(dir.path(), "md5", &sum.stdout);
    for algorithm in ALL {
        for tagged in [false, true] {
            let extra: &[&str] = if tagged { &["--tag"] } else { &[] };
            let lines = list(dir.path(), &[&keyed(algorithm)[..], extra].concat(), &["a"]);
            write(dir.path(), "list", &lines);
            for other in ALL.iter().filter(|&&o| o != algorithm) {
                // Untagged and of the same length, the line parses and the
                // tag differs; anything else is no line of `other`'s.
                let same_len = !tagged && tag_len(algorithm) == tag_len(other);
                let out = check(dir.path(), &keyed(other), &["list"]);
                if same_len {
                    expect(
                        &out,
                        1,
                        "a: FAILED\n",
                        "linerate: WARNING: 1 computed checksum did NOT match\n",
                    );
                } else {
                    expect(
                        &out,
                        1,
                        "",
                        "linerate: list: no properly formatted checksum lines found\n",
                    );
                }
            }
        }
        let out = check(dir.path(), &keyed(algorithm), &["md5"]);
        if algorithm == "hmac-md5" || algorithm == "umac-128" {
            // 32 hex digits: the line parses, the MD5 is no MAC.
            assert_eq!(out.stdout_text(), "a: FAILED\n");
        } else {
            assert_eq!(
                out.stderr_text(),
                "linerate: md5: no properly formatted checksum lines found\n"
            );
        }
    }
}

#[test]
fn the_list_from_standard_input() {
    let dir = scratch();
    write(dir.path(), "a", b"abc");
    let args = keyed("umac-32");
    let lines = list(dir.path(), &args, &["a"]);
    let out = mac(dir.path(), &[&args[..], &["-c"]].concat(), Some(&lines));
    expect(&out, 0, "a: OK\n", "");
    let out = mac(
        dir.path(),
        &[&args[..], &["-c", "-"]].concat(),
        Some(&lines),
    );
    expect(&out, 0, "a: OK\n", "");
}

/// The same checksum file checked by `linerate sum` (MD5 lines) and by
/// `linerate mac -a hmac-md5` (HMAC-MD5 lines, the same length): every
/// option gives the same output, bar the name in `-w`'s warning.
#[test]
fn check_behaves_as_sum_check() {
    let dir = scratch();
    for (name, data) in [("ok", &b"abc"[..]), ("bad", b"def"), ("odd\nname", b"x")] {
        write(dir.path(), name, data);
    }
    let files = ["ok", "bad", "gone", "odd\nname"];
    write(dir.path(), "gone", b"");
    let mac_args = keyed("hmac-md5");
    let sums = Command::new(crate::support::LINERATE)
        .args(["sum", "--tag"])
        .args(files)
        .current_dir(dir.path())
        .output()
        .unwrap()
        .stdout;
    let macs = list(dir.path(), &[&mac_args[..], &["--tag"]].concat(), &files);
    std::fs::remove_file(dir.path().join("gone")).unwrap();
    write(dir.path(), "bad", b"changed");
    let messy = |lines: &[u8]| {
        let mut out = b"# a comment\n\nmalformed line\n".to_vec();
        out.extend_from_slice(lines);
        out.extend_from_slice(b"another bad one\r\n");
        out
    };
    write(dir.path(), "sums", &messy(&sums));
    write(dir.path(), "macs", &messy(&macs));
    let option_sets: [&[&str]; 9] = [
        &[],
        &["--quiet"],
        &["--status"],
        &["-w"],
        &["--strict"],
        &["--ignore-missing"],
        &["-w", "--strict", "--ignore-missing"],
        &["--quiet", "--ignore-missing"],
        &["--warn", "--status"],
    ];
    for options in option_sets {
        let sum = Command::new(crate::support::LINERATE)
            .args(["sum", "-c"])
            .args(options)
            .arg("sums")
            .current_dir(dir.path())
            .env("LC_ALL", "C")
            .output()
            .unwrap();
        let out = check(dir.path(), &mac_args, &[options, &["macs"]].concat());
        let mac_stderr = out
            .stderr_text()
            .replace("HMAC-MD5 checksum line", "MD5 checksum line")
            .replace("macs:", "sums:");
        assert_eq!(out.status, sum.status.code(), "{options:?}");
        assert_eq!(out.stdout, sum.stdout, "{options:?}");
        assert_eq!(
            mac_stderr,
            String::from_utf8_lossy(&sum.stderr),
            "{options:?}"
        );
    }
}
