//! `linerate etag --match` and `--check`: the part size found for ETags
//! made by the independent reference (`scripts/etag_reference.py`), the
//! searches that fail, the work bound, and md5sum-style checking.

use std::path::Path;

use crate::support::{MIB, Rng, etag, etag_os, random_file, reference_etag, scratch, sparse_file};

/// A file of `len` bytes, random at every MiB (so parts of any whole-MiB
/// size differ) and otherwise sparse.
fn marked_file(dir: &Path, name: &str, len: u64, rng: &mut Rng) {
    let marks: Vec<u64> = (0..=len / MIB).map(|i| i * MIB).collect();
    sparse_file(dir, name, len, &marks, rng);
}

/// The reference's ETag of `file` in parts of `part_size` bytes.
fn etag_with(dir: &Path, file: &str, part_size: u64) -> Option<String> {
    reference_etag(dir, &["--part-size", &part_size.to_string()], file)
}

#[test]
fn match_finds_a_whole_mib_size_that_is_no_default() {
    let dir = scratch();
    let mut rng = Rng::new(0xe7a6_1001);
    // 12 MiB + 1 in 2 parts: 7 to 12 MiB are whole-MiB candidates; 8 MiB
    // (a default) is tried first and fails.
    marked_file(dir.path(), "f", 12 * MIB + 1, &mut rng);
    let Some(target) = etag_with(dir.path(), "f", 11 * MIB) else {
        return;
    };
    assert!(target.ends_with("-2"));
    for threads in ["1", "3"] {
        let out = etag(dir.path(), &["-j", threads, "--match", &target, "f"]);
        assert_eq!(out.status, Some(0), "{}", out.stderr);
        assert_eq!(out.stdout, "f: part size 11534336 bytes (11 MiB)\n");
        assert_eq!(out.stderr, "");
    }
    // 3 MiB parts of 7 MiB + 5: no default gives 3 parts.
    marked_file(dir.path(), "g", 7 * MIB + 5, &mut rng);
    let target = etag_with(dir.path(), "g", 3 * MIB).unwrap_or_default();
    let out = etag(dir.path(), &["--match", &format!("\"{target}\""), "g"]);
    assert_eq!(out.stdout, "g: part size 3145728 bytes (3 MiB)\n");
}

#[test]
fn match_finds_common_defaults() {
    let dir = scratch();
    let mut rng = Rng::new(0xe7a6_1002);
    marked_file(dir.path(), "f", 12 * MIB + 1, &mut rng);
    marked_file(dir.path(), "g", 31_000_000, &mut rng);
    for (file, size, said) in [
        ("f", 5 * MIB, "part size 5242880 bytes (5 MiB)"),
        ("f", 8 * MIB, "part size 8388608 bytes (8 MiB)"),
        ("g", 15_000_000, "part size 15000000 bytes (15 MB)"),
        ("g", 16 * MIB, "part size 16777216 bytes (16 MiB)"),
    ] {
        let Some(target) = etag_with(dir.path(), file, size) else {
            return;
        };
        let out = etag(dir.path(), &["--match", &target, file]);
        assert_eq!(out.stdout, format!("{file}: {said}\n"), "{size}");
        assert_eq!(out.status, Some(0));
    }
}

#[test]
fn match_plain_and_one_part_etags() {
    let dir = scratch();
    let mut rng = Rng::new(0xe7a6_1003);
    random_file(dir.path(), "s", 100_000, &mut rng);
    random_file(dir.path(), "e", 0, &mut rng);
    let Some(plain) = reference_etag(dir.path(), &["--single"], "s") else {
        return;
    };
    let out = etag(dir.path(), &["--match", &plain, "s"]);
    assert_eq!(out.stdout, "s: plain MD5 (uploaded in one PUT)\n");
    // Standard input redirected from the file is searched like the file.
    let args = ["--match".as_ref(), plain.as_ref(), "-".as_ref()];
    let out = etag_os(dir.path(), &args, Some(&dir.path().join("s")));
    assert_eq!(out.stdout, "-: plain MD5 (uploaded in one PUT)\n");
    let out = etag_os(dir.path(), &args, Some(Path::new("/dev/null")));
    assert_eq!(out.status, Some(1));
    assert_eq!(
        out.stderr,
        "linerate: -: not a regular file (a search reads parts at many offsets)\n"
    );
    let one = etag_with(dir.path(), "s", MIB).unwrap_or_default();
    assert!(one.ends_with("-1"));
    let out = etag(dir.path(), &["--match", &one, "s", "e"]);
    assert_eq!(
        out.stdout,
        "s: one part: any part size >= 100000 bytes (97.66 KiB)\ne: no part size matches\n"
    );
    assert_eq!(out.status, Some(1));
    let empty_one = etag_with(dir.path(), "e", MIB).unwrap_or_default();
    let out = etag(dir.path(), &["--match", &empty_one, "e"]);
    assert_eq!(out.stdout, "e: one empty part (any part size)\n");
}

#[test]
fn match_failures_say_so() {
    let dir = scratch();
    let mut rng = Rng::new(0xe7a6_1004);
    marked_file(dir.path(), "f", 5 * MIB + 3, &mut rng);
    marked_file(dir.path(), "other", 5 * MIB + 3, &mut rng);
    let Some(theirs) = etag_with(dir.path(), "other", 2 * MIB) else {
        return;
    };
    // Another file's ETag, an ETag of parts that are no whole MiB, a part
    // count no size gives, a missing file and a directory.
    let odd = etag_with(dir.path(), "f", 1_500_000).unwrap_or_default();
    let hex = &theirs[..32];
    std::fs::create_dir(dir.path().join("d")).expect("mkdir");
    for (target, file, stdout, stderr) in [
        (
            theirs.clone(),
            "f",
            "f: no part size matches\n",
            String::new(),
        ),
        (odd, "f", "f: no part size matches\n", String::new()),
        (
            format!("{hex}-9999999"),
            "f",
            "f: no part size matches\n",
            "linerate: f: no part size splits 5242883 bytes into 9999999 parts\n".to_string(),
        ),
        (
            theirs.clone(),
            "missing",
            "",
            "linerate: missing: No such file or directory\n".into(),
        ),
        (
            theirs.clone(),
            "d",
            "",
            "linerate: d: Is a directory\n".into(),
        ),
    ] {
        let out = etag(dir.path(), &["--match", &target, file]);
        assert_eq!(out.status, Some(1), "{target} {file}");
        assert_eq!(
            (out.stdout.as_str(), out.stderr),
            (stdout, stderr),
            "{target}"
        );
    }
    // The other file still matches in the same run.
    let out = etag(dir.path(), &["--match", &theirs, "f", "other"]);
    assert_eq!(
        out.stdout,
        "f: no part size matches\nother: part size 2097152 bytes (2 MiB)\n"
    );
    assert_eq!(out.status, Some(1));
}

#[test]
fn the_exhaustive_phase_is_bounded_by_max_work() {
    let dir = scratch();
    let mut rng = Rng::new(0xe7a6_1005);
    marked_file(dir.path(), "f", 12 * MIB + 1, &mut rng);
    let Some(target) = etag_with(dir.path(), "f", 11 * MIB) else {
        return;
    };
    // After 8 MiB (a default, tried first), the rounder sizes come first:
    // 10, 12, 7, 9, 11 MiB, costing 2, 0, 5, 3 and 1 MiB (+ 1 byte) of
    // second parts, plus 1 MiB each of the first-parts pass: 14 MiB allows
    // 10, 12 and 7 MiB.
    let out = etag(
        dir.path(),
        &["--max-work", "14MiB", "--match", &target, "f"],
    );
    assert_eq!(out.status, Some(1));
    assert_eq!(out.stdout, "f: no part size matches\n");
    assert_eq!(
        out.stderr,
        "linerate: f: searched 4 of 6 whole-MiB part sizes giving 2 parts (rounder first), \
         up to --max-work 14 MiB; the others would hash 4.00 MiB more\n"
    );
    let out = etag(
        dir.path(),
        &["--max-work", "30MiB", "--match", &target, "f"],
    );
    assert_eq!(out.stdout, "f: part size 11534336 bytes (11 MiB)\n");
}

/// Writes a list of ETag lines for `--check`.
fn write_list(dir: &Path, name: &str, lines: &[String]) {
    let mut text = lines.join("\n");
    text.push('\n');
    std::fs::write(dir.join(name), text).expect("write list");
}

#[test]
fn check_reports_ok_failed_missing_and_malformed_lines() {
    let dir = scratch();
    let mut rng = Rng::new(0xe7a6_1006);
    marked_file(dir.path(), "big", 12 * MIB + 1, &mut rng);
    marked_file(dir.path(), "nine", 9 * MIB, &mut rng);
    random_file(dir.path(), "small", 3000, &mut rng);
    let Some(eleven) = etag_with(dir.path(), "big", 11 * MIB) else {
        return;
    };
    let aws = reference_etag(dir.path(), &[], "nine").unwrap_or_default();
    let plain = reference_etag(dir.path(), &[], "small").unwrap_or_default();
    let wrong = etag_with(dir.path(), "nine", 3 * MIB).unwrap_or_default();
    write_list(
        dir.path(),
        "LIST",
        &[
            format!("{eleven}  big"),
            format!("{aws}  nine"),
            "# a comment".into(),
            format!("{plain}  small"),
            format!("{wrong}  big"),
            "not an etag line".into(),
            format!("{plain}  missing"),
        ],
    );
    let out = etag(dir.path(), &["-c", "-w", "LIST"]);
    assert_eq!(out.status, Some(1));
    assert_eq!(
        out.stdout,
        "big: OK (part size 11 MiB)\nnine: OK (part size 8 MiB)\nsmall: OK (plain MD5)\n\
         big: FAILED\nmissing: FAILED open or read\n"
    );
    assert_eq!(
        out.stderr,
        "linerate: LIST: 6: improperly formatted ETag line\n\
         linerate: missing: No such file or directory\n\
         linerate: WARNING: 1 line is improperly formatted\n\
         linerate: WARNING: 1 listed file could not be read\n\
         linerate: WARNING: 1 computed checksum did NOT match\n"
    );
    // Without -w the malformed line is only counted; --quiet drops the OKs;
    // --status says nothing.
    let quiet = etag(dir.path(), &["--check", "--quiet", "LIST"]);
    assert_eq!(quiet.stdout, "big: FAILED\nmissing: FAILED open or read\n");
    assert!(!quiet.stderr.contains("improperly formatted ETag line"));
    let status = etag(dir.path(), &["--check", "--status", "LIST"]);
    assert_eq!((status.status, status.stdout.as_str()), (Some(1), ""));
    assert_eq!(
        status.stderr,
        "linerate: missing: No such file or directory\n"
    );
    // -j changes nothing.
    assert_eq!(etag(dir.path(), &["-c", "-w", "-j1", "LIST"]), out);
    assert_eq!(etag(dir.path(), &["-c", "-w", "-j3", "LIST"]), out);
}

#[test]
fn check_reads_back_what_etag_prints() {
    let dir = scratch();
    let mut rng = Rng::new(0xe7a6_1007);
    let mut names = Vec::new();
    for (i, len) in [0, 1, 5000, 3 * MIB + 7, 9 * MIB].into_iter().enumerate() {
        let name = format!("f{i}");
        marked_file(dir.path(), &name, len, &mut rng);
        names.push(name);
    }
    std::fs::write(dir.path().join("odd\nname"), b"odd").expect("write");
    names.push("odd\nname".into());
    let mut args: Vec<&str> = vec!["--part-size", "2MiB"];
    args.extend(names.iter().map(String::as_str));
    let printed = etag(dir.path(), &args);
    assert_eq!(printed.status, Some(0));
    std::fs::write(dir.path().join("SUMS"), &printed.raw_stdout).expect("write");
    let out = etag(dir.path(), &["--check", "SUMS"]);
    assert_eq!(out.status, Some(0), "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "f0: OK (one empty part)\nf1: OK (one part, part size >= 1 byte)\n\
         f2: OK (one part, part size >= 5000 bytes)\nf3: OK (part size 2 MiB)\n\
         f4: OK (part size 2 MiB)\n\\odd\\nname: OK (one part, part size >= 3 bytes)\n"
    );
    // A list on standard input, and --ignore-missing.
    let list = dir.path().join("SUMS");
    let from_stdin = etag_os(dir.path(), &["-c".as_ref()], Some(&list));
    assert_eq!(from_stdin.stdout, out.stdout);
    let with_missing = format!("{}{}  gone\n", printed.stdout, &printed.stdout[..34]);
    std::fs::write(dir.path().join("SUMS2"), with_missing).expect("write");
    let out = etag(
        dir.path(),
        &["--check", "--ignore-missing", "--quiet", "SUMS2"],
    );
    assert_eq!(
        (out.status, out.stdout.as_str(), out.stderr.as_str()),
        (Some(0), "", "")
    );
    // Nothing but malformed lines.
    std::fs::write(dir.path().join("BAD"), "x\ny\n").expect("write");
    let out = etag(dir.path(), &["--check", "BAD"]);
    assert_eq!(out.status, Some(1));
    assert_eq!(
        out.stderr,
        "linerate: BAD: no properly formatted ETag lines found\n"
    );
}
