//! `linerate audit MANIFEST [DIR]` end to end: manifests written by GNU
//! md5sum (MD5, independent of linerate) and by `linerate sum -r`
//! (MD5-P/16), trees changed in every way an audit reports, and the exact
//! report lines, JSON, diagnostics and exit statuses that follow.

use std::ffi::OsStr;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::support::{
    Json, LINERATE, Outcome, audit, audit_stdin, audit_unprivileged, bytes, copy_tree,
    linerate_manifest, md5sum, md5sum_manifest, plant_as_nobody, put, run_program, scratch, under,
};

/// The files of the standard tree: eight, three of them with names that
/// need escaping or are not UTF-8.
fn fixture(root: &Path) {
    let big: Vec<u8> = (0..100_000u32).map(|i| (i * 7 % 251) as u8).collect();
    put(root, b"a.txt", b"alpha\n");
    put(root, b"b.bin", &big);
    put(root, b"with space", b"s");
    put(root, b"new\nline", b"n");
    put(root, b"caf\xe9", b"c");
    put(root, b"back\\slash", b"bs");
    put(root, b"sub/deep/c", b"c content");
    put(root, b"sub/d", b"");
}

/// A scratch dir with `tree/` (the fixture) and `m.md5`, made by md5sum
/// inside the tree; `None` without md5sum.
fn md5sum_setup(extra: &[&[u8]]) -> Option<tempfile::TempDir> {
    let md5sum = md5sum()?;
    let tmp = scratch();
    let tree = tmp.path().join("tree");
    fixture(&tree);
    let manifest = md5sum_manifest(&md5sum, &tree, extra);
    fs::write(tmp.path().join("m.md5"), manifest).unwrap();
    Some(tmp)
}

/// Asserts an audit's standard output and exit status.
fn assert_report(out: &Outcome, stdout: impl AsRef<[u8]>, status: i32) {
    let stdout = stdout.as_ref();
    assert!(
        out.stdout == stdout && out.status == Some(status),
        "expected status {status} and\n{}\ngot status {:?} and\n{}\nstderr: {}",
        String::from_utf8_lossy(stdout),
        out.status,
        out.stdout_text(),
        out.stderr_text()
    );
}

fn summary(matched: u32, changed: u32, missing: u32, new: u32, errors: u32) -> String {
    let word = if errors == 1 { "error" } else { "errors" };
    format!(
        "linerate audit: {matched} matched, {changed} changed, {missing} missing, {new} new, {errors} {word}\n"
    )
}

fn flip_byte(path: &Path, at: usize) {
    let mut data = fs::read(path).unwrap();
    data[at] ^= 1;
    fs::write(path, data).unwrap();
}

#[test]
fn an_unchanged_tree_passes() {
    let Some(tmp) = md5sum_setup(&[]) else { return };
    let tree = tmp.path().join("tree");
    let out = audit(&tree, &[b"../m.md5"]);
    assert_eq!(out.stdout_text(), summary(8, 0, 0, 0, 0));
    assert_eq!(out.stderr_text(), "");
    assert_eq!(out.status, Some(0));

    let out = audit(&tree, &[b"-v", b"../m.md5"]);
    assert_report(
        &out,
        [
            &b"matched: a.txt\n"[..],
            b"matched: b.bin\n",
            b"\\matched: back\\\\slash\n",
            b"matched: caf\xe9\n",
            b"\\matched: new\\nline\n",
            b"matched: sub/d\n",
            b"matched: sub/deep/c\n",
            b"matched: with space\n",
            summary(8, 0, 0, 0, 0).as_bytes(),
        ]
        .concat(),
        0,
    );
}

#[test]
fn every_change_is_reported_in_path_order() {
    let Some(tmp) = md5sum_setup(&[]) else { return };
    let tree = tmp.path().join("tree");
    flip_byte(&tree.join("b.bin"), 500);
    fs::remove_file(tree.join("sub/d")).unwrap();
    put(&tree, b"added", b"+");
    put(&tree, b"fresh/dir/e", b"e");
    let report = "new: added\nchanged: b.bin\nnew: fresh/dir/e\nmissing: sub/d\n";

    let out = audit(&tree, &[b"../m.md5"]);
    assert_eq!(
        out.stdout_text(),
        format!("{report}{}", summary(6, 1, 1, 2, 0))
    );
    assert_eq!(out.stderr_text(), "");
    assert_eq!(out.status, Some(1));

    let quiet = audit(&tree, &[b"--quiet", b"../m.md5"]);
    assert_report(&quiet, summary(6, 1, 1, 2, 0), 1);

    // And one file nobody may read.
    fs::set_permissions(tree.join("a.txt"), fs::Permissions::from_mode(0o000)).unwrap();
    let Some(out) = audit_unprivileged(&tree, tmp.path(), &[b"../m.md5"]) else {
        return;
    };
    assert_eq!(
        out.stdout_text(),
        format!(
            "error: a.txt: Permission denied\n{report}{}",
            summary(5, 1, 1, 2, 1)
        )
    );
    assert_eq!(out.stderr_text(), "");
    assert_eq!(out.status, Some(1));

    let Some(json) = audit_unprivileged(&tree, tmp.path(), &[b"--json", b"../m.md5"]) else {
        return;
    };
    assert_eq!(json.status, Some(1));
    let report = Json::parse(&json.stdout_text());
    assert_eq!(
        report.keys(),
        [
            "matched",
            "changed",
            "missing",
            "new",
            "moved",
            "errors",
            "malformed_lines",
            "non_utf8_paths",
            "counts",
            "ok"
        ]
    );
    assert_eq!(report.get("matched").num(), 5.0);
    assert_eq!(report.get("changed").strings(), ["b.bin"]);
    assert_eq!(report.get("missing").strings(), ["sub/d"]);
    assert_eq!(report.get("new").strings(), ["added", "fresh/dir/e"]);
    let errors = report.get("errors").items();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].get("path").str(), "a.txt");
    assert_eq!(errors[0].get("error").str(), "Permission denied");
    assert!(report.get("malformed_lines").items().is_empty());
    assert!(report.get("non_utf8_paths").items().is_empty());
    let counts = report.get("counts");
    for (key, value) in [
        ("matched", 5.0),
        ("changed", 1.0),
        ("missing", 1.0),
        ("new", 2.0),
        ("moved", 0.0),
        ("errors", 1.0),
        ("malformed_lines", 0.0),
    ] {
        assert_eq!(counts.get(key).num(), value, "{key}");
    }
    assert_eq!(report.get("ok"), &Json::Bool(false));
}

#[test]
fn md5p16_manifests_from_sum_r() {
    let tmp = scratch();
    let tree = tmp.path().join("tree");
    fixture(&tree);
    let plain = linerate_manifest(&tree, &[b"-a", b"md5p16"]);
    let tagged = linerate_manifest(&tree, &[b"-a", b"md5p16", b"--tag"]);
    assert!(
        tagged.starts_with(b"MD5P16 ("),
        "{}",
        String::from_utf8_lossy(&tagged)
    );
    fs::write(tmp.path().join("p.md5"), plain).unwrap();
    fs::write(tmp.path().join("t.md5"), tagged).unwrap();

    let out = audit(tmp.path(), &[b"-a", b"md5p16", b"p.md5", b"tree"]);
    assert_report(&out, summary(8, 0, 0, 0, 0), 0);
    // Untagged lines are MD5 without -a: every digest differs.
    let out = audit(tmp.path(), &[b"p.md5", b"tree"]);
    assert_eq!(out.stdout.iter().filter(|&&b| b == b'\n').count(), 9);
    assert!(out.stdout_text().ends_with(&summary(0, 8, 0, 0, 0)));
    assert_eq!(out.status, Some(1));
    // Tagged lines name their function, whatever -a says.
    let out = audit(tmp.path(), &[b"-a", b"md5", b"t.md5", b"tree"]);
    assert_report(&out, summary(8, 0, 0, 0, 0), 0);

    flip_byte(&tree.join("b.bin"), 99_999);
    put(&tree, b"sub/new", b"x");
    let expected = format!("changed: b.bin\nnew: sub/new\n{}", summary(7, 1, 0, 1, 0));
    for args in [
        &[&b"-a"[..], b"md5p16", b"p.md5", b"tree"][..],
        &[b"t.md5", b"tree"],
    ] {
        let out = audit(tmp.path(), args);
        assert_report(&out, &expected, 1);
    }
}

#[test]
fn bsd_tagged_md5sum_manifests() {
    let Some(tmp) = md5sum_setup(&[b"--tag"]) else {
        return;
    };
    let manifest = fs::read(tmp.path().join("m.md5")).unwrap();
    assert!(manifest.starts_with(b"MD5 ("));
    let out = audit(tmp.path(), &[b"m.md5", b"tree"]);
    assert_report(&out, summary(8, 0, 0, 0, 0), 0);
    put(&tmp.path().join("tree"), b"with space", b"S");
    let out = audit(tmp.path(), &[b"m.md5", b"tree"]);
    assert_report(
        &out,
        format!("changed: with space\n{}", summary(7, 1, 0, 0, 0)),
        1,
    );
}

#[test]
fn new_files_alone_pass_unless_strict() {
    let Some(tmp) = md5sum_setup(&[]) else { return };
    put(&tmp.path().join("tree"), b"extra", b"x");
    let expected = format!("new: extra\n{}", summary(8, 0, 0, 1, 0));
    let out = audit(tmp.path(), &[b"m.md5", b"tree"]);
    assert_report(&out, &expected, 0);
    let out = audit(tmp.path(), &[b"--strict", b"m.md5", b"tree"]);
    assert_report(&out, expected, 1);
    let json = audit(tmp.path(), &[b"--strict", b"--json", b"m.md5", b"tree"]);
    assert_eq!(
        Json::parse(&json.stdout_text()).get("ok"),
        &Json::Bool(false)
    );
    let json = audit(tmp.path(), &[b"--json", b"m.md5", b"tree"]);
    assert_eq!(
        Json::parse(&json.stdout_text()).get("ok"),
        &Json::Bool(true)
    );
}

#[test]
fn malformed_and_repeated_lines_are_reported_and_skipped() {
    let Some(tmp) = md5sum_setup(&[]) else { return };
    let manifest_path = tmp.path().join("m.md5");
    let mut manifest = fs::read(&manifest_path).unwrap();
    // md5sum lists a.txt first: take its digest for a repeated line.
    let a_hex = manifest[..32].to_vec();
    assert!(manifest[32..].starts_with(b"  ./a.txt\n"));
    assert_eq!(manifest.iter().filter(|&&b| b == b'\n').count(), 8);
    manifest.extend_from_slice(b"garbage\n# a comment\n\n");
    manifest.extend_from_slice(&[&a_hex[..], b"  a.txt\n"].concat());
    manifest.extend_from_slice(&[b"MD5P6 (x) = ", &a_hex[..], b"\n"].concat());
    fs::write(&manifest_path, manifest).unwrap();

    for strict in [false, true] {
        let mut args: Vec<&[u8]> = vec![b"m.md5", b"tree"];
        if strict {
            args.insert(0, b"--strict");
        }
        let out = audit(tmp.path(), &args);
        assert_eq!(
            out.stderr_text(),
            "linerate: m.md5: 9: improperly formatted checksum line\n\
             linerate: m.md5: 12: duplicate of line 1: a.txt\n\
             linerate: m.md5: 13: improperly formatted checksum line\n"
        );
        assert_report(&out, summary(8, 0, 0, 0, 0), 1);
    }

    let out = audit(tmp.path(), &[b"--json", b"m.md5", b"tree"]);
    let report = Json::parse(&out.stdout_text());
    let lines = report.get("malformed_lines").items();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0].get("line").num(), 9.0);
    assert_eq!(
        lines[0].get("error").str(),
        "improperly formatted checksum line"
    );
    assert_eq!(lines[1].get("line").num(), 12.0);
    assert_eq!(lines[1].get("error").str(), "duplicate of line 1");
    assert_eq!(lines[1].get("path").str(), "a.txt");
    assert_eq!(lines[2].get("line").num(), 13.0);
    assert_eq!(report.get("counts").get("malformed_lines").num(), 3.0);
    assert_eq!(report.get("ok"), &Json::Bool(false));
    assert_eq!(out.status, Some(1));

    // Read from standard input, the manifest is named (and quoted) as
    // md5sum names it.
    let out = audit_stdin(tmp.path(), &[b"-", b"tree"], &manifest_path);
    assert!(
        out.stderr_text()
            .starts_with("linerate: 'standard input': 9: improperly formatted checksum line\n")
    );
    assert_report(&out, summary(8, 0, 0, 0, 0), 1);
}

#[test]
fn a_copy_elsewhere_is_audited_against_the_original_manifest() {
    let Some(tmp) = md5sum_setup(&[]) else { return };
    let copy = tmp.path().join("elsewhere/copy");
    copy_tree(&tmp.path().join("tree"), &copy);
    let cwd = tmp.path().join("cwd");
    fs::create_dir(&cwd).unwrap();
    let absolute = bytes(&copy);
    for dir in [&b"../elsewhere/copy"[..], b"../elsewhere//copy/", &absolute] {
        let out = audit(&cwd, &[b"../m.md5", dir]);
        assert_report(&out, summary(8, 0, 0, 0, 0), 0);
    }
    put(&copy, b"with space", b"changed");
    fs::remove_file(under(&copy, b"caf\xe9")).unwrap();
    let out = audit(&cwd, &[b"../m.md5", &absolute]);
    assert_report(
        &out,
        [
            &b"missing: caf\xe9\n"[..],
            b"changed: with space\n",
            summary(6, 1, 1, 0, 0).as_bytes(),
        ]
        .concat(),
        1,
    );
    // The original is untouched.
    let out = audit(&cwd, &[b"../m.md5", b"../tree"]);
    assert_eq!(out.status, Some(0));
}

#[test]
fn odd_names_are_escaped_in_text_and_exact_in_json() {
    let Some(tmp) = md5sum_setup(&[]) else { return };
    let tree = tmp.path().join("tree");
    put(&tree, b"new\nline", b"changed");
    fs::remove_file(under(&tree, b"back\\slash")).unwrap();
    fs::remove_file(under(&tree, b"caf\xe9")).unwrap();
    put(&tree, b"tab\there", b"t");
    put(&tree, b"\xff\xfe odd", b"o");
    let out = audit(tmp.path(), &[b"m.md5", b"tree"]);
    assert_report(
        &out,
        [
            &b"\\missing: back\\\\slash\n"[..],
            b"missing: caf\xe9\n",
            b"\\changed: new\\nline\n",
            b"new: tab\there\n",
            b"new: \xff\xfe odd\n",
            summary(5, 1, 2, 2, 0).as_bytes(),
        ]
        .concat(),
        1,
    );

    let out = audit(tmp.path(), &[b"--json", b"m.md5", b"tree"]);
    let report = Json::parse(&out.stdout_text());
    assert_eq!(
        report.get("missing").strings(),
        ["back\\slash", "caf\u{fffd}"]
    );
    assert_eq!(report.get("changed").strings(), ["new\nline"]);
    assert_eq!(
        report.get("new").strings(),
        ["tab\there", "\u{fffd}\u{fffd} odd"]
    );
    let odd = report.get("non_utf8_paths").items();
    assert_eq!(odd.len(), 2);
    assert_eq!(odd[0].get("path").str(), "caf\u{fffd}");
    assert_eq!(odd[0].get("escaped").str(), "caf\\xe9");
    assert_eq!(odd[1].get("path").str(), "\u{fffd}\u{fffd} odd");
    assert_eq!(odd[1].get("escaped").str(), "\\xff\\xfe odd");
}

#[test]
fn threads_do_not_change_the_report() {
    let Some(md5sum) = md5sum() else { return };
    let tmp = scratch();
    let tree = tmp.path().join("tree");
    for i in 0..150u32 {
        let len = (i as usize * 7919) % 300_000;
        let data: Vec<u8> = (0..len).map(|j| (j as u32 ^ i) as u8).collect();
        put(&tree, format!("d{}/f{i:03}", i % 7).as_bytes(), &data);
    }
    fs::write(
        tmp.path().join("m.md5"),
        md5sum_manifest(&md5sum, &tree, &[]),
    )
    .unwrap();
    fs::write(
        tmp.path().join("p.md5"),
        linerate_manifest(&tree, &[b"-a", b"md5p16"]),
    )
    .unwrap();
    let mut changed = Vec::new();
    for i in (3..150u32).step_by(13) {
        let path = tree.join(format!("d{}/f{i:03}", i % 7));
        if fs::metadata(&path).unwrap().len() > 0 {
            flip_byte(&path, 0);
            changed.push(i);
        }
    }
    for i in (5..150u32).step_by(29) {
        fs::remove_file(tree.join(format!("d{}/f{i:03}", i % 7))).unwrap();
    }
    put(&tree, b"d9/new", b"n");
    for (manifest, algorithm) in [(&b"m.md5"[..], &b"md5"[..]), (b"p.md5", b"md5p16")] {
        for extra in [&b"-v"[..], b"--json"] {
            let one = audit(
                tmp.path(),
                &[b"-j1", b"-a", algorithm, extra, manifest, b"tree"],
            );
            let four = audit(
                tmp.path(),
                &[b"-j", b"4", b"-a", algorithm, extra, manifest, b"tree"],
            );
            assert_eq!(one, four);
            assert_eq!(one.status, Some(1));
        }
        let out = audit(tmp.path(), &[b"-q", b"-a", algorithm, manifest, b"tree"]);
        let missing = (5..150).step_by(29).count() as u32;
        let differ = changed.len() as u32;
        assert_eq!(
            out.stdout_text(),
            summary(150 - missing - differ, differ, missing, 1, 0)
        );
    }
}

#[test]
fn what_cannot_be_hashed_is_an_error_or_missing() {
    let Some(tmp) = md5sum_setup(&[]) else { return };
    let tree = tmp.path().join("tree");
    // A listed file that became a directory, a FIFO (never opened, so the
    // audit cannot hang on it), and one whose directory became a file.
    fs::remove_file(tree.join("with space")).unwrap();
    put(&tree, b"with space/inside", b"i");
    fs::remove_file(tree.join("sub/d")).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(tree.join("sub/d"))
        .status()
        .unwrap();
    assert!(status.success());
    fs::remove_dir_all(tree.join("sub/deep")).unwrap();
    put(&tree, b"sub/deep", b"now a file");
    let out = audit(tmp.path(), &[b"m.md5", b"tree"]);
    assert_report(
        &out,
        format!(
            "error: sub/d: not a regular file\n\
             new: sub/deep\n\
             missing: sub/deep/c\n\
             error: with space: Is a directory\n\
             new: with space/inside\n{}",
            summary(5, 0, 1, 2, 2)
        ),
        1,
    );
}

#[test]
fn unreadable_directories_are_errors() {
    let Some(tmp) = md5sum_setup(&[]) else { return };
    let tree = tmp.path().join("tree");
    // A new directory nobody may read, and a listed one nobody may enter.
    put(&tree, b"locked/x", b"x");
    fs::set_permissions(tree.join("locked"), fs::Permissions::from_mode(0o000)).unwrap();
    fs::set_permissions(tree.join("sub/deep"), fs::Permissions::from_mode(0o000)).unwrap();
    let out = audit_unprivileged(tmp.path(), tmp.path(), &[b"m.md5", b"tree"]);
    for dir in ["locked", "sub/deep"] {
        fs::set_permissions(tree.join(dir), fs::Permissions::from_mode(0o755)).unwrap();
    }
    let Some(out) = out else { return };
    assert_report(
        &out,
        format!(
            "error: locked: Permission denied\n\
             error: sub/deep: Permission denied\n\
             error: sub/deep/c: Permission denied\n{}",
            summary(7, 0, 0, 0, 3)
        ),
        1,
    );
}

#[test]
fn the_manifest_itself_is_not_new() {
    let Some(md5sum) = md5sum() else { return };
    let tmp = scratch();
    let tree = tmp.path().join("tree");
    fixture(&tree);
    let manifest = md5sum_manifest(&md5sum, &tree, &[]);
    fs::write(tree.join("MD5SUMS"), &manifest).unwrap();
    let out = audit(&tree, &[b"MD5SUMS"]);
    assert_report(&out, summary(8, 0, 0, 0, 0), 0);
    let out = audit(tmp.path(), &[b"tree/MD5SUMS", b"tree"]);
    assert_report(&out, summary(8, 0, 0, 0, 0), 0);
    // A copy of it is just another file.
    fs::write(tree.join("MD5SUMS.old"), &manifest).unwrap();
    let out = audit(&tree, &[b"./MD5SUMS"]);
    assert_report(
        &out,
        format!("new: MD5SUMS.old\n{}", summary(8, 0, 0, 1, 0)),
        0,
    );
}

/// An absolute path outside DIR is never read (nothing is said of its
/// content, changed or not); one under DIR is audited there.
#[test]
fn absolute_paths_outside_dir_are_not_read() {
    let Some(md5sum) = md5sum() else { return };
    let tmp = scratch();
    let tree = tmp.path().join("tree");
    fixture(&tree);
    let outside = tmp.path().join("outside.txt");
    fs::write(&outside, b"outside").unwrap();
    let mut manifest = md5sum_manifest(&md5sum, &tree, &[]);
    let absolute =
        crate::support::run_program(md5sum.as_ref(), tmp.path(), &[&bytes(&outside)], None);
    manifest.extend_from_slice(&absolute.stdout);
    fs::write(tmp.path().join("m.md5"), &manifest).unwrap();
    let expected = [
        &b"outside DIR: "[..],
        &bytes(&outside),
        b"\n",
        summary(8, 0, 0, 0, 1).as_bytes(),
    ]
    .concat();
    let out = audit(tmp.path(), &[b"m.md5", b"tree"]);
    assert_report(&out, &expected, 1);
    fs::write(&outside, b"changed").unwrap();
    let out = audit(tmp.path(), &[b"m.md5", b"tree"]);
    assert_report(&out, &expected, 1);
}

#[test]
fn exclude_and_follow_shape_the_walk() {
    let Some(tmp) = md5sum_setup(&[]) else { return };
    let tree = tmp.path().join("tree");
    put(&tree, b"junk.tmp", b"j");
    put(&tree, b".git/HEAD", b"ref");
    std::os::unix::fs::symlink("a.txt", tree.join("link")).unwrap();
    let out = audit(tmp.path(), &[b"m.md5", b"tree"]);
    assert_eq!(
        out.stdout_text(),
        format!("new: .git/HEAD\nnew: junk.tmp\n{}", summary(8, 0, 0, 2, 0))
    );
    let out = audit(
        tmp.path(),
        &[b"--exclude", b"*.tmp", b"--exclude=.git", b"m.md5", b"tree"],
    );
    assert_report(&out, summary(8, 0, 0, 0, 0), 0);
    let out = audit(
        tmp.path(),
        &[b"--follow", b"--exclude=*.tmp", b"m.md5", b"tree"],
    );
    assert_eq!(
        out.stdout_text(),
        format!("new: .git/HEAD\nnew: link\n{}", summary(8, 0, 0, 2, 0))
    );
    // An excluded file that is listed is still checked.
    put(&tree, b"a.txt", b"changed");
    let out = audit(tmp.path(), &[b"--exclude=a.txt", b"-q", b"m.md5", b"tree"]);
    assert_eq!(out.stdout_text(), summary(7, 1, 0, 2, 0));
}

#[test]
fn usage_and_setup_errors_exit_2() {
    let tmp = scratch();
    fixture(&tmp.path().join("tree"));
    fs::write(tmp.path().join("m.md5"), b"").unwrap();
    fs::write(tmp.path().join("file"), b"").unwrap();
    let cases: [(&[&[u8]], &str); 7] = [
        (
            &[],
            "linerate: missing operand: give MANIFEST [DIR]\n\
             Try 'linerate audit --help' for more information.\n",
        ),
        (
            &[b"--bogus", b"m.md5"],
            "linerate: unrecognized option '--bogus'\n\
             Try 'linerate audit --help' for more information.\n",
        ),
        (
            &[b"m.md5", b"tree", b"more"],
            "linerate: extra operand 'more'\n\
             Try 'linerate audit --help' for more information.\n",
        ),
        (
            &[b"nope.md5", b"tree"],
            "linerate: nope.md5: No such file or directory\n",
        ),
        (&[b"tree", b"tree"], "linerate: tree: Is a directory\n"),
        (&[b"m.md5", b"file"], "linerate: file: Not a directory\n"),
        (
            &[b"m.md5", b"nodir"],
            "linerate: nodir: No such file or directory\n",
        ),
    ];
    for (args, stderr) in cases {
        let out = audit(tmp.path(), args);
        assert_eq!(out.stderr_text(), stderr, "{args:?}");
        assert_eq!(out.stdout_text(), "", "{args:?}");
        assert_eq!(out.status, Some(2), "{args:?}");
    }
    let out = audit(tmp.path(), &[b"-a", b"sha3", b"m.md5"]);
    assert!(
        out.stderr_text()
            .starts_with("linerate: invalid algorithm 'sha3'")
    );
    assert_eq!(out.status, Some(2));
    let out = audit(tmp.path(), &[b"-j", b"0", b"m.md5"]);
    assert!(
        out.stderr_text()
            .starts_with("linerate: invalid number of threads '0'")
    );
    assert_eq!(out.status, Some(2));

    // An empty manifest vouches for nothing: it fails, as md5sum -c does.
    let out = audit(tmp.path(), &[b"-q", b"m.md5", b"tree"]);
    assert_report(&out, summary(0, 0, 0, 8, 0), 1);
    assert_eq!(
        out.stderr_text(),
        "linerate: m.md5: no properly formatted checksum lines found\n"
    );

    let help = audit(tmp.path(), &[b"--help"]);
    assert_eq!(help.status, Some(0));
    let text = help.stdout_text();
    for needle in [
        "Usage: linerate audit",
        "--strict",
        "--json",
        "Exit status:",
        "  2  ",
    ] {
        assert!(text.contains(needle), "help lacks {needle}");
    }
}

/// The README's use: `sum -r photos/ > photos.md5`, then `audit photos.md5`
/// from the same (parent) directory. With no DIR the audit looks for new
/// files only in the trees the manifest's paths name, not in the rest of
/// the current directory; with DIR `.` all of it, as before.
#[test]
fn an_audit_without_dir_searches_the_trees_the_manifest_names() {
    let tmp = scratch();
    let root = tmp.path();
    put(root, b"photos/a.jpg", b"a");
    put(root, b"photos/sub/b.jpg", b"b");
    put(root, b"unrelated.txt", b"u");
    let sum = run_program(
        OsStr::new(LINERATE),
        root,
        &[b"sum", b"-r", b"photos/"],
        None,
    );
    assert_eq!(sum.status, Some(0));
    fs::write(root.join("photos.md5"), &sum.stdout).unwrap();
    assert_report(&audit(root, &[b"photos.md5"]), summary(2, 0, 0, 0, 0), 0);
    put(root, b"photos/c.jpg", b"c");
    let expected = format!("new: photos/c.jpg\n{}", summary(2, 0, 0, 1, 0));
    assert_report(&audit(root, &[b"photos.md5"]), expected, 0);
    let expected = format!(
        "new: photos/c.jpg\nnew: unrelated.txt\n{}",
        summary(2, 0, 0, 2, 0)
    );
    assert_report(&audit(root, &[b"photos.md5", b"."]), expected, 0);
    // A tree that is gone: its files missing, nothing else said.
    fs::remove_dir_all(root.join("photos")).unwrap();
    let expected = format!(
        "missing: photos/a.jpg\nmissing: photos/sub/b.jpg\n{}",
        summary(0, 0, 2, 0, 0)
    );
    assert_report(&audit(root, &[b"photos.md5"]), expected, 1);
}

/// A dual manifest (`sum -r --also sha256`): each path one record, changed
/// when any function differs (saying which), and a file that moved (every
/// digest found again under a new path) reported as `moved:`.
#[test]
fn dual_manifests_per_function_and_moves() {
    let tmp = crate::support::scratch();
    let tree = tmp.path().join("tree");
    for (name, len) in [("a", 5000usize), ("b", 1), ("c", 70_000), ("sub/d", 0)] {
        put(&tree, name.as_bytes(), &vec![name.len() as u8; len]);
    }
    put(
        &tree,
        b"c",
        &(0..70_000u32).map(|i| (i % 251) as u8).collect::<Vec<_>>(),
    );
    let manifest = crate::support::run_program(
        std::ffi::OsStr::new(crate::support::LINERATE),
        &tree,
        &[b"sum", b"-r", b"--also", b"sha256", b"."],
        None,
    );
    assert_eq!(manifest.status, Some(0));
    // The SHA-256 of c forged in the manifest: its MD5 still matches.
    let text = String::from_utf8(manifest.stdout.clone()).unwrap();
    let forged: String = text
        .lines()
        .map(|l| {
            if l.starts_with("SHA256 (./c) = ") {
                format!("SHA256 (./c) = {}\n", "0".repeat(64))
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    fs::write(tmp.path().join("dual.sums"), forged).unwrap();
    fs::rename(tree.join("a"), tree.join("sub/a-moved")).unwrap();
    flip_byte(&tree.join("b"), 0);
    put(&tree, b"new", b"new");
    let out = audit(&tree, &[b"../dual.sums"]);
    assert_eq!(
        out.stdout_text(),
        "moved: a -> sub/a-moved\n\
         changed: b (MD5, SHA256 differ)\n\
         changed: c (SHA256 differs, MD5 matches)\n\
         new: new\n\
         linerate audit: 1 matched, 2 changed, 0 missing, 1 new, 1 moved, 0 errors\n"
    );
    assert_eq!(out.status, Some(1));
    // Moved alone still fails (a manifest audited against the wrong
    // directory must): a manifest without b's lines, in a tree without b
    // and the new file.
    let without_b: String = text
        .lines()
        .filter(|l| !l.contains("./b"))
        .map(|l| format!("{l}\n"))
        .collect();
    fs::write(tmp.path().join("moved.sums"), without_b).unwrap();
    fs::remove_file(tree.join("new")).unwrap();
    fs::remove_file(tree.join("b")).unwrap();
    let out = audit(&tree, &[b"../moved.sums"]);
    assert_eq!(
        out.stdout_text(),
        "moved: a -> sub/a-moved\nlinerate audit: 2 matched, 0 changed, 0 missing, 0 new, 1 moved, 0 errors\n"
    );
    assert_eq!(out.status, Some(1));
}

/// A tree `tree/` owned by `nobody`, who plants links out of it (to root's
/// 0600 `secret` beside it, and to the directory holding it) and one that
/// stays inside; `secret`'s manifest line is then listed under the links'
/// names. None of it may be opened: `outside DIR`, and nothing said of
/// the secret's content.
#[test]
fn manifest_paths_never_leave_the_directory() {
    let tmp = scratch();
    let tree = tmp.path().join("tree");
    put(&tree, b"in/a", b"inside");
    let secret = tmp.path().join("secret");
    fs::write(&secret, b"root's secret").unwrap();
    fs::set_permissions(&secret, fs::Permissions::from_mode(0o600)).unwrap();
    fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o755)).unwrap();
    // The tree is nobody's (where we may give it away), who plants the links.
    let _ = std::process::Command::new("chown")
        .args(["-R", "65534:65534"])
        .arg(&tree)
        .status();
    let links: [(&[u8], &[u8]); 4] = [
        (b"../secret", b"link"),
        (b"..", b"linkdir"),
        (b"in/a", b"inlink"),
        (&bytes(&secret), b"abslink"),
    ];
    for (to, name) in links {
        if !plant_as_nobody(&tree, "ln", &[b"-s", to, name]) {
            return;
        }
    }
    let (a_md5, secret_md5) = (
        "335cf4508dd597be4bfc9caa3e08b901",
        "953bf3613517c8f241e906f3e1d30264",
    );
    let manifest = format!(
        "{a_md5}  in/a\n{a_md5}  inlink\n{secret_md5}  link\n{secret_md5}  linkdir/secret\n\
         {secret_md5}  abslink\n{secret_md5}  ../secret\n{secret_md5}  {}\n",
        secret.display(),
    );
    fs::write(tmp.path().join("m.md5"), &manifest).unwrap();
    let out = audit(tmp.path(), &[b"-v", b"m.md5", b"tree"]);
    assert_report(
        &out,
        format!(
            "outside DIR: ../secret\n\
             outside DIR: {}\n\
             outside DIR: abslink\n\
             matched: in/a\n\
             matched: inlink\n\
             outside DIR: link\n\
             outside DIR: linkdir/secret\n{}",
            secret.display(),
            summary(2, 0, 0, 0, 5)
        ),
        1,
    );
    let json = audit(tmp.path(), &[b"--json", b"m.md5", b"tree"]);
    assert!(
        json.stdout_text()
            .contains("{\"path\": \"link\", \"error\": \"outside DIR\"}"),
        "{}",
        json.stdout_text()
    );
    // An absolute path under DIR is audited there.
    let real = fs::canonicalize(tree.join("in/a")).unwrap();
    fs::write(
        tmp.path().join("abs.md5"),
        format!("{a_md5}  {}\n", real.display()),
    )
    .unwrap();
    let out = audit(tmp.path(), &[b"-q", b"abs.md5", b"tree"]);
    assert_report(&out, summary(1, 0, 0, 0, 0), 0);
}

#[test]
fn an_empty_manifest_fails_as_md5sum_c_does() {
    let tmp = scratch();
    put(tmp.path(), b"tree/a", b"a");
    fs::write(tmp.path().join("comments.md5"), b"# nothing\n\n").unwrap();
    for manifest in [&b"/dev/null"[..], b"comments.md5"] {
        let out = audit(tmp.path(), &[manifest, b"tree"]);
        assert_eq!(out.status, Some(1), "{}", out.stderr_text());
        let name = String::from_utf8_lossy(manifest);
        assert_eq!(
            out.stderr_text(),
            format!("linerate: {name}: no properly formatted checksum lines found\n")
        );
        assert_eq!(
            out.stdout_text(),
            format!("new: a\n{}", summary(0, 0, 0, 1, 0))
        );
    }
}

/// DIR that is no directory is a usage error (exit 2, one line naming it),
/// as it is for `etag --verify`.
#[test]
fn a_dir_that_is_a_file_or_device_is_a_usage_error() {
    let tmp = scratch();
    put(tmp.path(), b"file", b"f");
    fs::write(
        tmp.path().join("m.md5"),
        "0cc175b9c0f1b6a831c399e269772661  a\n",
    )
    .unwrap();
    for dir in [&b"/dev/null"[..], b"file"] {
        let out = audit(tmp.path(), &[b"m.md5", dir]);
        assert_eq!(
            (out.status, out.stdout_text(), out.stderr_text()),
            (
                Some(2),
                String::new(),
                format!(
                    "linerate: {}: Not a directory\n",
                    String::from_utf8_lossy(dir)
                )
            )
        );
    }
}

/// Moves pair files of one content by name first, then by directory, then
/// in path order, and say when the choice was among several.
#[test]
fn moves_prefer_the_same_name_then_the_same_directory() {
    let tmp = scratch();
    let tree = tmp.path().join("tree");
    put(&tree, b"old/e1", b"one");
    put(&tree, b"d/f1", b"two");
    put(&tree, b"old/z", b"three");
    fs::write(tmp.path().join("m.md5"), linerate_manifest(&tree, &[])).unwrap();
    fs::remove_dir_all(tree.join("old")).unwrap();
    fs::remove_file(tree.join("d/f1")).unwrap();
    // e1's content under its own name and under one sorted first.
    put(&tree, b"new/a", b"one");
    put(&tree, b"new/e1", b"one");
    // f1's renamed in its directory, and a copy elsewhere sorted first.
    put(&tree, b"a/other", b"two");
    put(&tree, b"d/renamed", b"two");
    // z's content twice, neither near it.
    put(&tree, b"p/q", b"three");
    put(&tree, b"r/s", b"three");
    let out = audit(tmp.path(), &[b"m.md5", b"tree"]);
    assert_report(
        &out,
        "new: a/other\n\
         moved: d/f1 -> d/renamed\n\
         new: new/a\n\
         moved: old/e1 -> new/e1\n\
         moved: old/z -> p/q (ambiguous: 2 candidates)\n\
         new: r/s\n\
         linerate audit: 0 matched, 0 changed, 0 missing, 3 new, 3 moved, 0 errors\n",
        1,
    );
    let json = audit(tmp.path(), &[b"--json", b"m.md5", b"tree"]);
    assert!(
        json.stdout_text()
            .contains("{\"from\": \"old/z\", \"to\": \"p/q\", \"candidates\": 2}"),
        "{}",
        json.stdout_text()
    );
}

/// A manifest from elsewhere naming a path with an escape sequence: the
/// report quotes it (as diagnostics quote names), nothing reaches the
/// terminal raw.
#[test]
fn names_with_control_bytes_are_quoted() {
    let tmp = scratch();
    put(tmp.path(), b"tree/a", b"a");
    fs::write(
        tmp.path().join("m.md5"),
        b"0cc175b9c0f1b6a831c399e269772661  a\n0cc175b9c0f1b6a831c399e269772661  e\x1b[2Jx\n",
    )
    .unwrap();
    let out = audit(tmp.path(), &[b"m.md5", b"tree"]);
    assert!(!out.stdout.contains(&0x1b), "{}", out.stdout_text());
    assert_report(
        &out,
        format!("missing: 'e'$'\\033''[2Jx'\n{}", summary(1, 0, 1, 0, 0)),
        1,
    );
}
