//! `linerate etag FILE...` against the independent reference
//! (`scripts/etag_reference.py`, hashlib) and GNU md5sum: part sizes, the
//! AWS CLI's default rule, thresholds, standard input, names, threads and
//! errors.

use std::fs;
use std::io::Write;
use std::process::{Command, Stdio};

use crate::support::{
    AWKWARD_NAMES, KIB, LINERATE, MIB, Rng, assert_like_reference, etag, etag_os, oracle,
    random_bytes, random_file, reference, reference_os, scratch, sparse_file, write,
};

#[test]
fn part_sizes_against_the_reference() {
    let dir = scratch();
    let mut rng = Rng::new(0xe7a6_0001);
    let sizes = [
        0,
        1,
        63,
        64,
        1000,
        64 * 1024,
        64 * 1024 + 1,
        100_000,
        37 * 64 * 1024 + 5,
        rng.below(3 << 20),
    ];
    let files: Vec<String> = sizes
        .iter()
        .enumerate()
        .map(|(i, &len)| {
            let name = format!("f{i}-{len}");
            random_file(dir.path(), &name, len, &mut rng);
            name
        })
        .collect();
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    // A block, a non-multiple of 64, S3-style sizes.
    for part_size in ["64", "65536", "100000", "1048576"] {
        let out = assert_like_reference(dir.path(), &["--part-size", part_size], &files);
        assert_eq!(out.lines().count(), files.len());
    }
    // One-byte parts, on the small files only.
    assert_like_reference(dir.path(), &["--part-size", "1"], &files[..5]);
    // Every file with --part-size is multipart, the empty one as one part.
    let out = etag(dir.path(), &["--part-size", "65536", files[0], files[6]]);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(
        lines[0]
            .split("  ")
            .next()
            .is_some_and(|e| e.ends_with("-1"))
    );
    assert!(
        lines[1]
            .split("  ")
            .next()
            .is_some_and(|e| e.ends_with("-2"))
    );
}

#[test]
fn size_units_mean_the_same_bytes() {
    let dir = scratch();
    let mut rng = Rng::new(0xe7a6_0002);
    random_file(dir.path(), "f", 300_000, &mut rng);
    let bytes = etag(dir.path(), &["--part-size", "65536", "f"]);
    for spelled in ["64KiB", "64k", "64 KIB", "64K"] {
        let out = etag(dir.path(), &["--part-size", spelled, "f"]);
        assert_eq!(out.stdout, bytes.stdout, "{spelled}");
    }
    let decimal = etag(dir.path(), &["--part-size", "100KB", "f"]);
    let want = etag(dir.path(), &["--part-size", "100000", "f"]);
    assert_eq!(decimal.stdout, want.stdout);
    assert_ne!(decimal.stdout, bytes.stdout);
}

#[test]
fn the_aws_default_rule_around_8_mib() {
    let dir = scratch();
    let mut rng = Rng::new(0xe7a6_0003);
    // Sparse files with random runs at every part boundary.
    let marks = [0, 8 * MIB - 4 * KIB, 8 * MIB, 16 * MIB - 2 * KIB, 16 * MIB];
    let cases = [
        ("below", 8 * MIB - 1, None),
        ("exactly", 8 * MIB, Some(1)),
        ("over", 8 * MIB + 1, Some(2)),
        ("three", 16 * MIB + 3, Some(3)),
    ];
    for (name, len, _) in cases {
        sparse_file(dir.path(), name, len, &marks, &mut rng);
    }
    random_file(dir.path(), "small", 5000, &mut rng);
    write(dir.path(), b"empty", b"");
    let names = ["below", "exactly", "over", "three", "small", "empty"];
    let out = assert_like_reference(dir.path(), &[], &names);
    for ((name, _, parts), line) in cases.iter().zip(out.lines()) {
        let tag = line.split("  ").next().unwrap_or_default();
        let suffix = tag.split_once('-').map(|(_, n)| n.to_string());
        assert_eq!(suffix, parts.map(|n: u64| n.to_string()), "{name}: {line}");
    }
    // Below the threshold the ETag is md5sum's digest.
    if let Some(md5sum) = oracle() {
        let want = Command::new(md5sum)
            .args(["below", "small", "empty"])
            .current_dir(dir.path())
            .output()
            .expect("md5sum");
        let ours = etag(dir.path(), &["below", "small", "empty"]);
        assert_eq!(ours.stdout.as_bytes(), want.stdout);
    }
}

#[test]
fn threshold_and_part_size_together() {
    let dir = scratch();
    let mut rng = Rng::new(0xe7a6_0004);
    for len in [99_999, 100_000, 300_000] {
        random_file(dir.path(), &format!("f{len}"), len, &mut rng);
    }
    let files = ["f99999", "f100000", "f300000"];
    let out = assert_like_reference(
        dir.path(),
        &["--threshold", "100000", "--part-size", "65536"],
        &files,
    );
    assert!(!out.lines().next().unwrap_or_default().contains('-'));
    // A tiny threshold with the default part size: one 8 MiB part.
    let out = assert_like_reference(dir.path(), &["--threshold", "1"], &files);
    assert!(out.lines().all(|l| l.contains("-1  ")));
    // --single is the plain MD5 whatever the size.
    assert_like_reference(dir.path(), &["--single"], &files);
}

/// Runs `linerate etag ARGS -` with `data` on a pipe.
fn etag_piped(args: &[&str], data: &[u8]) -> (Option<i32>, String) {
    let mut child = Command::new(LINERATE)
        .arg("etag")
        .args(args)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let mut pipe = child.stdin.take().expect("stdin pipe");
    let data = data.to_vec();
    let feeder = std::thread::spawn(move || pipe.write_all(&data).ok());
    let output = child.wait_with_output().expect("wait");
    feeder.join().ok();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

#[test]
fn standard_input_is_hashed_as_it_streams() {
    let dir = scratch();
    let mut rng = Rng::new(0xe7a6_0005);
    for (len, options) in [
        (0, &[][..]),
        (200_000, &[][..]),
        (0, &["--part-size", "65536"][..]),
        (65536, &["--part-size", "65536"][..]),
        (300_001, &["--part-size", "65536"][..]),
        (
            300_001,
            &["--part-size", "65536", "--threshold", "300002"][..],
        ),
        (
            300_001,
            &["--part-size", "65536", "--threshold", "300001"][..],
        ),
        (150_000, &["--single"][..]),
    ] {
        let data = random_bytes(&mut rng, len);
        let path = write(dir.path(), b"input", &data);
        let (status, ours) = etag_piped(options, &data);
        assert_eq!(status, Some(0), "{len} {options:?}");
        let mut args: Vec<&std::ffi::OsStr> = options.iter().map(std::ffi::OsStr::new).collect();
        args.push(std::ffi::OsStr::new("-"));
        if let Some(want) = reference_os(dir.path(), &args, Some(&path)) {
            assert_eq!(ours, want, "{len} {options:?}");
        }
        // Redirected from the file itself: the same ETag.
        let redirected = etag_os(dir.path(), &args, Some(&path));
        assert_eq!(redirected.stdout, ours, "{len} {options:?}");
    }
    // A regular file on stdin gets the AWS rule of its size: 2 parts here.
    let marks = [0, 8 * MIB];
    let path = sparse_file(dir.path(), "big", 8 * MIB + 1, &marks, &mut rng);
    let redirected = etag_os(dir.path(), &[std::ffi::OsStr::new("-")], Some(&path));
    let want = assert_like_reference(dir.path(), &[], &["big"]);
    assert_eq!(redirected.stdout.replace("  -", "  big"), want);
    assert!(want.contains("-2  big"));
}

#[test]
fn single_is_exactly_md5sum() {
    let Some(md5sum) = oracle() else {
        return;
    };
    let dir = scratch();
    let mut rng = Rng::new(0xe7a6_0006);
    let mut args: Vec<std::ffi::OsString> = Vec::new();
    for name in AWKWARD_NAMES {
        write(dir.path(), name, name);
        args.push(std::os::unix::ffi::OsStringExt::from_vec(name.to_vec()));
    }
    for len in [0, 1, 100_000, 9 << 20] {
        let name = format!("r{len}");
        random_file(dir.path(), &name, len, &mut rng);
        args.push(name.into());
    }
    let os_args: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsString::as_os_str).collect();
    let mut single = vec![std::ffi::OsStr::new("--single")];
    single.extend_from_slice(&os_args);
    let ours = etag_os(dir.path(), &single, None);
    let want = Command::new(md5sum)
        .args(&os_args)
        .current_dir(dir.path())
        .output()
        .expect("md5sum");
    assert_eq!(ours.status, Some(0));
    assert_eq!(ours.raw_stdout, want.stdout);
}

#[test]
fn odd_names_are_escaped_like_the_reference() {
    let dir = scratch();
    let mut args: Vec<std::ffi::OsString> = Vec::new();
    for name in AWKWARD_NAMES {
        write(dir.path(), name, name);
        args.push(std::os::unix::ffi::OsStringExt::from_vec(name.to_vec()));
    }
    let mut os_args: Vec<&std::ffi::OsStr> = vec!["--part-size".as_ref(), "4".as_ref()];
    os_args.extend(args.iter().map(std::ffi::OsString::as_os_str));
    let ours = etag_os(dir.path(), &os_args, None);
    assert_eq!(ours.status, Some(0));
    if let Some(want) = reference_os(dir.path(), &os_args, None) {
        assert_eq!(ours.stdout, want);
    }
    assert!(ours.stdout.contains("  new\\nline\n"));
}

#[test]
fn thread_counts_agree() {
    let dir = scratch();
    let mut rng = Rng::new(0xe7a6_0007);
    let mut names = Vec::new();
    for i in 0..40 {
        let len = match i % 8 {
            0 => rng.below(2 << 20),
            1 => 64 * 1024 * rng.below(4),
            _ => rng.below(100_000),
        };
        let name = format!("f{i:02}");
        random_file(dir.path(), &name, len, &mut rng);
        names.push(name);
        if i % 13 == 5 {
            names.push(format!("missing{i}"));
        }
    }
    fs::create_dir(dir.path().join("sub")).expect("mkdir");
    names.insert(20, "sub".into());
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    for options in [&["--part-size", "65536"][..], &[][..], &["--single"][..]] {
        let run = |threads: &str| {
            let mut args = vec!["-j", threads];
            args.extend_from_slice(options);
            args.extend_from_slice(&names);
            etag(dir.path(), &args)
        };
        let one = run("1");
        assert_eq!(one.status, Some(1), "missing files fail the run");
        assert_eq!(run("3"), one, "{options:?}");
        assert_eq!(run("8"), one, "{options:?}");
        let mut good = options.to_vec();
        good.extend(names.iter().filter(|n| n.starts_with('f')));
        if let Some(want) = reference(dir.path(), &good) {
            let printed: Vec<&str> = one.stdout.lines().collect();
            assert_eq!(printed, want.lines().collect::<Vec<_>>(), "{options:?}");
        }
    }
}

#[test]
fn errors_name_the_file_and_the_rest_is_done() {
    let dir = scratch();
    write(dir.path(), b"a", b"abc");
    fs::create_dir(dir.path().join("dir")).expect("mkdir");
    let out = etag(dir.path(), &["a", "nope", "dir", "a"]);
    assert_eq!(out.status, Some(1));
    assert_eq!(out.stdout.lines().count(), 2);
    assert!(
        out.stdout
            .starts_with("900150983cd24fb0d6963f7d28e17f72  a\n")
    );
    assert_eq!(
        out.stderr,
        "linerate: nope: No such file or directory\nlinerate: dir: Is a directory\n"
    );
    // Usage errors: exit status 2, one line naming the bad value.
    for (args, needle) in [
        (&["--part-size", "0", "a"][..], "invalid size '0'"),
        (&["--part-size", "8XB", "a"][..], "invalid size '8XB'"),
        (&["--threshold", "-5", "a"][..], "invalid size '-5'"),
        (&["--match", "abc", "a"][..], "invalid ETag 'abc'"),
        (&["--bogus", "a"][..], "unrecognized option '--bogus'"),
        (&["-j", "0", "a"][..], "invalid number of threads '0'"),
    ] {
        let out = etag(dir.path(), args);
        assert_eq!(out.status, Some(2), "{args:?}");
        assert!(out.stdout.is_empty());
        let first = out.stderr.lines().next().unwrap_or_default();
        assert!(
            first.starts_with("linerate: ") && first.contains(needle),
            "{first}"
        );
    }
}

#[test]
fn sizes_outside_s3s_limits_are_computed_with_a_warning() {
    let dir = scratch();
    write(dir.path(), b"a", b"abc");
    let out = etag(dir.path(), &["--part-size", "1KiB", "a"]);
    assert_eq!(out.status, Some(0));
    assert!(out.stdout.ends_with("-1  a\n"));
    assert!(
        out.stderr.starts_with(
            "linerate: warning: part size 1 KiB is outside S3's range of 5 MiB to 5 GiB"
        )
    );
    let quiet = etag(dir.path(), &["--part-size", "5MiB", "a"]);
    assert_eq!((quiet.status, quiet.stderr.as_str()), (Some(0), ""));
    let many = random_bytes(&mut Rng::new(9), 10_001);
    write(dir.path(), b"many", &many);
    let out = etag(dir.path(), &["--part-size", "1", "many"]);
    assert!(out.stdout.contains("-10001  many"));
    assert!(
        out.stderr
            .contains("many: warning: 10001 parts of 1 byte; S3 takes at most 10000")
    );
}

#[test]
fn a_stream_cut_into_more_than_ten_thousand_parts_is_computed_with_a_warning() {
    // Piped, its length is known only at its end: the part count is told
    // then, as a file's is before it is read.
    let data = random_bytes(&mut Rng::new(10), 10_001);
    let mut child = Command::new(LINERATE)
        .args(["etag", "--part-size", "1", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut pipe = child.stdin.take().expect("stdin pipe");
    let feeder = std::thread::spawn(move || pipe.write_all(&data).ok());
    let output = child.wait_with_output().expect("wait");
    feeder.join().ok();
    assert_eq!(output.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&output.stdout).ends_with("-10001  -\n"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("linerate: -: warning: 10001 parts of 1 byte; S3 takes at most 10000\n"),
        "{stderr}"
    );
}

#[test]
fn help_says_what_an_etag_is_and_the_exit_codes() {
    let dir = scratch();
    let out = etag(dir.path(), &["--help"]);
    assert_eq!(out.status, Some(0));
    for needle in [
        "MD5(MD5(part 1)",
        "8 MiB",
        "10,000",
        "Exit status",
        "2 for a usage error",
        "not tampering",
    ] {
        assert!(out.stdout.contains(needle), "{needle}");
    }
}
