//! `linerate sum -r` and `--files-from` against GNU md5sum run on the same
//! files: the test walks each tree itself (std::fs, paths sorted by bytes),
//! hands the paths to md5sum as operands, and expects our output to be
//! md5sum's byte for byte: every digest, the escaping of odd names, and the
//! order (sorted paths). Errors (broken links, loops, unreadable
//! directories, missing lists) are one line each, naming the path, with the
//! rest still hashed and exit status 1.

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::support::{Input, LINERATE, Outcome, Rng, Run, random_bytes, scratch, write};

/// File sizes around the block (64), padding (56) and read-chunk
/// (256 KiB) boundaries.
const SIZES: &[usize] = &[
    0,
    1,
    55,
    56,
    63,
    64,
    65,
    119,
    120,
    128,
    4095,
    4096,
    4097,
    65535,
    65536,
    262_143,
    262_144,
    262_145,
    (1 << 20) + 3,
    (3 << 20) + 17,
];

/// Names whose escaping or sorting matters.
const ODD_NAMES: &[&[u8]] = &[
    b"new\nline",
    b"back\\slash",
    b"both\\and\n",
    b"carriage\rreturn",
    b"not utf-8 \xff\xfe",
    b"caf\xc3\xa9",
    b"tab\there",
    b"with space",
    b"-dash",
];

fn path_of(dir: &Path, name: &[u8]) -> PathBuf {
    dir.join(std::ffi::OsStr::from_bytes(name))
}

fn mkdirs(dir: &Path, name: &[u8]) -> PathBuf {
    let path = path_of(dir, name);
    fs::create_dir_all(&path).expect("mkdir");
    path
}

/// `top/` in `dir`: nested and empty directories, empty files, files of
/// [`SIZES`], [`ODD_NAMES`] (also as a directory name), a directory `x`
/// beside files `x.b` and `x0` (sorted paths put `x.b` before `x/...` and
/// `x0` after), and 60 small random files for the lanes.
fn fixture(dir: &Path) -> PathBuf {
    let mut rng = Rng::new(0x7ee5);
    let top = mkdirs(dir, b"top");
    write(&top, b"a", b"abc");
    write(&top, b"empty", b"");
    mkdirs(&top, b"emptydir");
    mkdirs(&top, b"emptydir/inner");
    let deep = mkdirs(&top, b"nested/deeper/deepest");
    write(&deep, b"f", b"deep");
    write(&mkdirs(&top, b"nested/deeper"), b"g", b"g");
    let sizes = mkdirs(&top, b"sizes");
    for &size in SIZES {
        write(
            &sizes,
            format!("s{size}").as_bytes(),
            &random_bytes(&mut rng, size),
        );
    }
    let odd = mkdirs(&top, b"odd");
    for name in ODD_NAMES {
        write(&odd, name, name);
    }
    let odd_dir = mkdirs(&top, b"dir \xff\nodd");
    write(&odd_dir, b"inside", b"inside");
    let x = mkdirs(&top, b"x");
    write(&x, b"in", b"in");
    write(&top, b"x.b", b"x.b");
    write(&top, b"x0", b"x0");
    write(&top, b"x-", b"x-");
    let many = mkdirs(&top, b"many");
    for i in 0..60 {
        let size = rng.below(300_000);
        write(
            &many,
            format!("m{i:02}").as_bytes(),
            &random_bytes(&mut rng, size),
        );
    }
    top
}

/// The test's own walk: every regular file under `root` (links not
/// followed), as `shown` joined with the relative path by `/`, sorted.
fn files_under(root: &Path, shown: &[u8]) -> Vec<Vec<u8>> {
    let mut found = Vec::new();
    let mut pending = vec![(root.to_path_buf(), shown.to_vec())];
    while let Some((dir, prefix)) = pending.pop() {
        for entry in fs::read_dir(&dir).expect("read_dir") {
            let entry = entry.expect("entry");
            let mut path = prefix.clone();
            if path.last() != Some(&b'/') {
                path.push(b'/');
            }
            path.extend_from_slice(entry.file_name().as_bytes());
            let kind = entry.file_type().expect("file type");
            if kind.is_dir() {
                pending.push((entry.path(), path));
            } else if kind.is_file() {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

fn args<'a>(leading: &[&'a [u8]], paths: &'a [Vec<u8>]) -> Vec<&'a [u8]> {
    leading
        .iter()
        .copied()
        .chain(paths.iter().map(Vec::as_slice))
        .collect()
}

/// md5sum over `paths` (after `leading` options), if the oracle is there.
fn md5sum(dir: &Path, leading: &[&[u8]], paths: &[Vec<u8>]) -> Option<Outcome> {
    Run::new(dir, &args(leading, paths)).md5sum()
}

fn sum(dir: &Path, args: &[&[u8]]) -> Outcome {
    let out = Run::new(dir, args).linerate();
    assert_ne!(out.status, Some(101), "panicked: {}", out.stderr_text());
    out
}

/// Asserts our stdout is md5sum's over `paths` (when md5sum is there) and
/// returns it.
fn assert_stdout_is_md5sums(dir: &Path, ours: &Outcome, leading: &[&[u8]], paths: &[Vec<u8>]) {
    match md5sum(dir, leading, paths) {
        Some(theirs) => {
            assert_eq!(
                theirs.status,
                Some(0),
                "md5sum failed: {}",
                theirs.stderr_text()
            );
            assert_eq!(
                ours.stdout_text(),
                theirs.stdout_text(),
                "{leading:?} differs from md5sum"
            );
        }
        None => eprintln!("note: no md5sum 9.1; digests not compared"),
    }
}

#[test]
fn a_tree_is_md5sum_of_its_sorted_paths_in_every_mode() {
    let dir = scratch();
    let top = fixture(dir.path());
    let paths = files_under(&top, b"top");
    assert!(paths.len() > 90);
    // The ordering the fixture is built to test: x.b, then x/in, then x0.
    let at = |p: &[u8]| paths.iter().position(|q| q == p).expect("fixture path");
    assert!(at(b"top/x-") < at(b"top/x.b") && at(b"top/x.b") < at(b"top/x/in"));
    assert!(at(b"top/x/in") < at(b"top/x0"));
    let modes: [&[&[u8]]; 5] = [&[], &[b"--tag"], &[b"-z"], &[b"-b"], &[b"--tag", b"-z"]];
    for mode in modes {
        let mut command = mode.to_vec();
        command.extend([&b"-r"[..], b"top"]);
        let ours = sum(dir.path(), &command);
        assert_eq!((ours.status, ours.stderr_text()), (Some(0), String::new()));
        assert_stdout_is_md5sums(dir.path(), &ours, mode, &paths);
    }
}

#[test]
fn operands_mix_trees_files_and_standard_input_in_order() {
    let dir = scratch();
    let top = fixture(dir.path());
    // `top/` prints `top/a`, as find does.
    let mut expected = files_under(&top.join("sizes"), b"top/sizes/");
    expected.push(b"top/a".to_vec());
    expected.push(b"-".to_vec());
    expected.extend(files_under(&top.join("nested"), b"top/nested"));
    let run = Run::new(
        dir.path(),
        &[b"-r", b"top/sizes/", b"top/a", b"-", b"top/nested"],
    )
    .stdin(Input::Bytes(b"standard input"));
    let ours = run.linerate();
    assert_eq!((ours.status, ours.stderr_text()), (Some(0), String::new()));
    if let Some(theirs) = Run::new(dir.path(), &args(&[], &expected))
        .stdin(Input::Bytes(b"standard input"))
        .md5sum()
    {
        assert_eq!(ours.stdout_text(), theirs.stdout_text());
    }
    assert!(ours.stdout_text().contains("  top/sizes/s0\n"));
}

#[test]
fn without_r_a_directory_is_md5sums_error() {
    let dir = scratch();
    fixture(dir.path());
    let out = Run::new(dir.path(), &[b"top", b"top/a"]).assert_same();
    assert_eq!(out.status, Some(1));
    assert_eq!(out.stderr_text(), "linerate: top: Is a directory\n");
}

#[test]
fn thread_counts_give_identical_runs() {
    let dir = scratch();
    let top = fixture(dir.path());
    symlink("nowhere", top.join("many/broken")).expect("symlink");
    symlink("..", top.join("nested/up")).expect("symlink");
    let runs: Vec<Outcome> = [&b"1"[..], b"2", b"4", b"16"]
        .iter()
        .map(|j| {
            sum(
                dir.path(),
                &[b"-j", j, b"-r", b"--follow", b"top", b"top/a"],
            )
        })
        .collect();
    assert_eq!(runs[0].status, Some(1));
    assert_eq!(runs[0].stderr_text().lines().count(), 2);
    for run in &runs[1..] {
        assert_eq!(run, &runs[0]);
    }
    let default = sum(dir.path(), &[b"-r", b"--follow", b"top", b"top/a"]);
    assert_eq!(default, runs[0]);
}

/// `top/` of [`fixture`] plus links: to a file, to a directory outside,
/// a broken one, and one to an ancestor.
fn with_links(dir: &Path) -> PathBuf {
    let top = fixture(dir);
    let outside = mkdirs(dir, b"outside");
    write(&outside, b"o1", b"o1");
    write(&mkdirs(&outside, b"sub"), b"o2", b"o2");
    symlink("../a", top.join("nested/to-file")).expect("symlink");
    symlink("../outside", top.join("to-dir")).expect("symlink");
    symlink("missing", top.join("broken")).expect("symlink");
    symlink("../..", top.join("nested/deeper/loop")).expect("symlink");
    top
}

#[test]
fn links_inside_are_skipped_without_follow() {
    let dir = scratch();
    let top = with_links(dir.path());
    let ours = sum(dir.path(), &[b"-r", b"top"]);
    assert_eq!((ours.status, ours.stderr_text()), (Some(0), String::new()));
    assert_stdout_is_md5sums(dir.path(), &ours, &[], &files_under(&top, b"top"));
    // A root given as a link is followed.
    symlink("top", dir.path().join("via")).expect("symlink");
    let via = sum(dir.path(), &[b"-r", b"via"]);
    assert_eq!(via.status, Some(0));
    assert_stdout_is_md5sums(dir.path(), &via, &[], &files_under(&top, b"via"));
}

#[test]
fn follow_walks_links_and_reports_broken_ones_and_loops() {
    let dir = scratch();
    let top = with_links(dir.path());
    let mut expected = files_under(&top, b"top");
    expected.push(b"top/nested/to-file".to_vec());
    expected.extend(files_under(&dir.path().join("outside"), b"top/to-dir"));
    expected.sort();
    let ours = sum(dir.path(), &[b"-r", b"--follow", b"top"]);
    assert_eq!(ours.status, Some(1));
    assert_eq!(
        ours.stderr_text(),
        "linerate: top/broken: No such file or directory\n\
         linerate: top/nested/deeper/loop: File system loop detected\n"
    );
    assert_stdout_is_md5sums(dir.path(), &ours, &[], &expected);
}

/// Runs `linerate sum ARGS` in `dir` as the user nobody, through setpriv;
/// `None` if that cannot be done here.
fn sum_as_nobody(dir: &Path, args: &[&str]) -> Option<Outcome> {
    let output = crate::support::as_nobody(LINERATE)?
        .arg("sum")
        .args(args)
        .current_dir(dir)
        .env("LC_ALL", "C.UTF-8")
        .stdin(Stdio::null())
        .output()
        .ok()?;
    let out = Outcome {
        status: output.status.code(),
        stdout: output.stdout,
        stderr: output.stderr,
    };
    // setpriv's own failure (no permission to switch, binary unreachable).
    if out.stderr.starts_with(b"setpriv") || out.status == Some(126) || out.status == Some(127) {
        eprintln!("note: cannot run as nobody: {}", out.stderr_text());
        return None;
    }
    Some(out)
}

#[test]
fn an_unreadable_directory_is_reported_and_the_rest_hashed() {
    let dir = scratch();
    let top = fixture(dir.path());
    let locked = top.join("nested/deeper");
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).expect("chmod");
    let readable_anyway = fs::read_dir(&locked).is_ok();
    let mut expected: Vec<Vec<u8>> = Vec::new();
    for path in files_under(&top.join("sizes"), b"top/sizes") {
        expected.push(path);
    }
    let ours = if readable_anyway {
        // Root reads everything: run as nobody instead, if we can.
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).expect("chmod");
        sum_as_nobody(dir.path(), &["-r", "top/nested", "top/sizes"])
    } else {
        Some(sum(dir.path(), &[b"-r", b"top/nested", b"top/sizes"]))
    };
    let Some(ours) = ours else {
        fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).expect("chmod");
        eprintln!("note: permission test skipped (privileged, and no setpriv)");
        return;
    };
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).expect("chmod");
    assert_eq!(ours.status, Some(1));
    assert_eq!(
        ours.stderr_text(),
        "linerate: top/nested/deeper: Permission denied\n"
    );
    // Nothing of top/nested is readable but top/nested/deeper's files.
    assert_stdout_is_md5sums(dir.path(), &ours, &[], &expected);
}

#[test]
fn exclude_by_name_and_by_path() {
    let dir = scratch();
    let top = fixture(dir.path());
    write(&top, b"junk.tmp", b"junk");
    write(&top.join("sizes"), b"more.tmp", b"more");
    let all = files_under(&top, b"top");
    let keep = |path: &Vec<u8>| {
        let text = String::from_utf8_lossy(path);
        !text.ends_with(".tmp")
            && !text.starts_with("top/many/")
            && !text.starts_with("top/nested/")
            && text != "top/a"
            && !text.starts_with("top/sizes/s6")
    };
    let expected: Vec<Vec<u8>> = all.iter().filter(|p| keep(p)).cloned().collect();
    assert!(expected.len() < all.len() - 60);
    let ours = sum(
        dir.path(),
        &[
            b"-r",
            b"--exclude",
            b"*.tmp",
            b"--exclude=many",
            b"--exclude",
            b"nested/",
            b"--exclude",
            b"/a",
            b"--exclude",
            b"sizes/s6*",
            b"top",
        ],
    );
    assert_eq!((ours.status, ours.stderr_text()), (Some(0), String::new()));
    assert_stdout_is_md5sums(dir.path(), &ours, &[], &expected);
    // A path pattern is relative to the root: `a` deeper down stays.
    let ours = sum(dir.path(), &[b"-r", b"--exclude", b"/f", b"top/nested"]);
    assert_eq!(
        ours.stdout_text().lines().count(),
        2,
        "{}",
        ours.stdout_text()
    );
}

#[test]
fn files_from_lines_nul_and_standard_input() {
    let dir = scratch();
    let top = fixture(dir.path());
    let mut names: Vec<Vec<u8>> = files_under(&top.join("sizes"), b"top/sizes");
    names.push(b"top/odd/with space".to_vec());
    names.push(b"top/odd/back\\slash".to_vec());
    // Lines: an empty line skipped, the last line without its newline.
    let mut list = Vec::new();
    for name in &names {
        list.extend_from_slice(name);
        list.extend_from_slice(b"\n\n");
    }
    list.pop();
    list.pop();
    write(dir.path(), b"list", &list);
    let ours = sum(dir.path(), &[b"--files-from", b"list"]);
    assert_eq!((ours.status, ours.stderr_text()), (Some(0), String::new()));
    assert_stdout_is_md5sums(dir.path(), &ours, &[], &names);
    // From standard input.
    let stdin = Run::new(dir.path(), &[b"--files-from", b"-"])
        .stdin(Input::Bytes(&list))
        .linerate();
    assert_eq!(stdin, ours);
    // NUL-separated, with a name holding a newline.
    let mut nul_names = names.clone();
    nul_names.push(b"top/odd/new\nline".to_vec());
    let mut list0 = Vec::new();
    for name in &nul_names {
        list0.extend_from_slice(name);
        list0.push(0);
    }
    write(dir.path(), b"list0", &list0);
    for null in [&b"-0"[..], b"--null"] {
        let ours = sum(dir.path(), &[null, b"--files-from=list0"]);
        assert_eq!(ours.status, Some(0), "{}", ours.stderr_text());
        assert_stdout_is_md5sums(dir.path(), &ours, &[], &nul_names);
    }
    // With -r a listed directory is walked.
    write(dir.path(), b"dirs", b"top/nested\ntop/a\n");
    let ours = sum(dir.path(), &[b"-r", b"--files-from", b"dirs"]);
    let mut expected = files_under(&top.join("nested"), b"top/nested");
    expected.push(b"top/a".to_vec());
    assert_eq!(ours.status, Some(0));
    assert_stdout_is_md5sums(dir.path(), &ours, &[], &expected);
}

#[test]
fn files_from_errors() {
    let dir = scratch();
    fixture(dir.path());
    let ours = sum(dir.path(), &[b"--files-from", b"no list"]);
    assert_eq!(ours.status, Some(1));
    assert!(ours.stdout.is_empty());
    assert_eq!(
        ours.stderr_text(),
        "linerate: 'no list': No such file or directory\n"
    );
    // A missing file in the list is md5sum's error for it; the rest is hashed.
    write(dir.path(), b"list", b"top/a\nmissing\ntop/empty\n");
    let ours = sum(dir.path(), &[b"--files-from", b"list"]);
    let theirs = Run::new(dir.path(), &[b"top/a", b"missing", b"top/empty"]).assert_same();
    assert_eq!(ours, theirs);
    assert_eq!(ours.status, Some(1));
    // A list that is a directory cannot be read.
    let ours = sum(dir.path(), &[b"--files-from", b"top"]);
    assert_eq!(
        (ours.status, ours.stderr_text()),
        (Some(1), "linerate: top: Is a directory\n".to_owned())
    );
    // --check reads its checksum files from the list too.
    let sums = sum(dir.path(), &[b"top/a"]);
    write(dir.path(), b"sums", &sums.stdout);
    write(dir.path(), b"checklist", b"sums\n");
    let ours = sum(dir.path(), &[b"-c", b"--files-from", b"checklist"]);
    assert_eq!(
        (ours.status, ours.stdout_text()),
        (Some(0), "top/a: OK\n".to_owned())
    );
}

/// A list read from standard input naming `-` (standard input again, by
/// then read to its end) refuses each `-` in its place with du's and wc's
/// words, hashes the other names, and exits 1; `-c` the same.
#[test]
fn files_from_standard_input_refuses_a_dash_in_it() {
    let dir = scratch();
    fixture(dir.path());
    let refused = "linerate: when reading file names from stdin, no file name of '-' allowed\n";
    let ours = Run::new(dir.path(), &[b"--files-from", b"-"])
        .stdin(Input::Bytes(b"top/a\n-\ntop/empty\n-\n"))
        .linerate();
    let expected = sum(dir.path(), &[b"top/a", b"top/empty"]);
    assert_eq!(ours.stdout, expected.stdout);
    assert_eq!(ours.stderr_text(), refused.repeat(2));
    assert_eq!(ours.status, Some(1));
    // du says the same of the same list, NUL-separated.
    let du = Command::new("du")
        .arg("--files0-from=-")
        .current_dir(dir.path())
        .env("LC_ALL", "C")
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(b"top/a\0-\0")?;
            child.wait_with_output()
        });
    if let Ok(du) = du {
        assert_eq!(
            String::from_utf8_lossy(&du.stderr).replace("du: ", "linerate: "),
            refused
        );
    }
    // -0, and -c with the checksum files listed on standard input.
    let sums = sum(dir.path(), &[b"top/a"]);
    write(dir.path(), b"sums", &sums.stdout);
    let ours = Run::new(dir.path(), &[b"-c", b"-0", b"--files-from=-"])
        .stdin(Input::Bytes(b"-\0sums\0"))
        .linerate();
    assert_eq!(
        (ours.status, ours.stdout_text(), ours.stderr_text()),
        (Some(1), "top/a: OK\n".to_owned(), refused.to_owned())
    );
    // A `-` in a list read from a file is still standard input.
    write(dir.path(), b"list", b"-\n");
    let ours = Run::new(dir.path(), &[b"--files-from", b"list"])
        .stdin(Input::Bytes(b"abc"))
        .linerate();
    assert_eq!(
        (ours.status, ours.stdout_text()),
        (Some(0), "900150983cd24fb0d6963f7d28e17f72  -\n".to_owned())
    );
}

#[test]
fn a_manifest_checks_with_linerate_and_md5sum() {
    let dir = scratch();
    fixture(dir.path());
    let manifest = sum(dir.path(), &[b"-r", b"top"]);
    assert_eq!(manifest.status, Some(0));
    write(dir.path(), b"m", &manifest.stdout);
    let lines = manifest.stdout.iter().filter(|&&b| b == b'\n').count();
    let checked = Run::new(dir.path(), &[b"-c", b"m"]).assert_same();
    assert_eq!(checked.status, Some(0), "{}", checked.stderr_text());
    assert_eq!(checked.stdout_text().matches(": OK\n").count(), lines);
    let ours = sum(dir.path(), &[b"-c", b"--quiet", b"m"]);
    assert_eq!((ours.status, ours.stdout.len()), (Some(0), 0));
    // A changed file is caught by both.
    fs::write(dir.path().join("top/sizes/s64"), b"changed").expect("write");
    let changed = Run::new(dir.path(), &[b"-c", b"--quiet", b"m"]).assert_same();
    assert_eq!(changed.status, Some(1));
    assert_eq!(changed.stdout_text(), "top/sizes/s64: FAILED\n");
}

#[test]
fn tree_options_on_the_command_line() {
    let dir = scratch();
    fixture(dir.path());
    const TRY: &str = "Try 'linerate sum --help' for more information.\n";
    let rejected: &[(&[&[u8]], &str)] = &[
        (
            &[b"-r", b"-c", b"top"],
            "the --recursive option is meaningless when verifying checksums",
        ),
        (
            &[b"--follow", b"top"],
            "the --follow option is meaningful only with --recursive",
        ),
        (
            &[b"--exclude", b"x", b"top"],
            "the --exclude option is meaningful only with --recursive",
        ),
        (
            &[b"-0", b"top"],
            "the --null option is meaningful only with --files-from",
        ),
        (
            &[b"--files-from", b"l", b"top"],
            "extra operand 'top': file operands cannot be combined with --files-from",
        ),
        (
            &[b"-r", b"--exclude", b"a[", b"top"],
            "invalid --exclude pattern 'a['",
        ),
        // Spelled out in full only: md5sum's abbreviations keep their meaning.
        (&[b"--rec", b"top"], "unrecognized option '--rec'"),
        (&[b"--foll", b"top"], "unrecognized option '--foll'"),
        (&[b"--files", b"l"], "unrecognized option '--files'"),
        (
            &[b"-r", b"--recursive=yes", b"top"],
            "option '--recursive' doesn't allow an argument",
        ),
        (
            &[b"--files-from"],
            "option '--files-from' requires an argument",
        ),
    ];
    for (args, message) in rejected {
        let out = sum(dir.path(), args);
        assert_eq!(out.status, Some(1), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let text = out.stderr_text();
        assert!(
            text.starts_with(&format!("linerate: {message}")) && text.ends_with(TRY),
            "{args:?}: {text}"
        );
    }
    // Long and short forms and bundles mean the same.
    let short = sum(dir.path(), &[b"-rj2", b"top/nested"]);
    let long = sum(dir.path(), &[b"--recursive", b"--threads=2", b"top/nested"]);
    assert_eq!(short, long);
    assert_eq!(short.status, Some(0));
    let help = sum(dir.path(), &[b"--help"]).stdout_text();
    for option in [
        "--recursive",
        "--follow",
        "--exclude",
        "--files-from",
        "--null",
    ] {
        assert!(help.contains(option), "{option} missing from help");
    }
}

#[test]
fn names_that_are_not_utf8_are_hashed_and_escaped() {
    let dir = scratch();
    let top = fixture(dir.path());
    let ours = sum(dir.path(), &[b"-r", b"top/odd", b"top/dir \xff\nodd"]);
    assert_eq!((ours.status, ours.stderr_text()), (Some(0), String::new()));
    let mut expected = files_under(&top.join("odd"), b"top/odd");
    expected.extend(files_under(
        &path_of(&top, b"dir \xff\nodd"),
        b"top/dir \xff\nodd",
    ));
    assert_stdout_is_md5sums(dir.path(), &ours, &[], &expected);
    // md5sum escapes a newline in the name as `\n` and marks the line.
    let text = ours.stdout;
    assert!(
        text.windows(b"top/dir \xff\\nodd/inside".len())
            .any(|w| w == b"top/dir \xff\\nodd/inside")
    );
}

#[test]
fn errors_come_in_walk_order_among_the_lines() {
    let dir = scratch();
    let top = mkdirs(dir.path(), b"top");
    write(&top, b"a", b"a");
    symlink("missing", top.join("b")).expect("symlink");
    write(&top, b"c", b"c");
    symlink("..", mkdirs(&top, b"d").join("loop")).expect("symlink");
    write(&top, b"e", b"e");
    for threads in ["1", "4"] {
        // stdout and stderr into one pipe, as a terminal shows them.
        let output = Command::new("sh")
            .arg("-c")
            .arg(format!(
                "'{LINERATE}' sum -j {threads} -r --follow top 2>&1"
            ))
            .current_dir(dir.path())
            .env("LC_ALL", "C.UTF-8")
            .output()
            .expect("sh");
        let text = String::from_utf8_lossy(&output.stdout);
        let names: Vec<&str> = text
            .lines()
            .map(|line| line.strip_prefix("linerate: ").unwrap_or(&line[34..]))
            .collect();
        assert_eq!(
            names,
            [
                "top/a",
                "top/b: No such file or directory",
                "top/c",
                "top/d/loop: File system loop detected",
                "top/e"
            ],
            "{text}"
        );
        assert_eq!(output.status.code(), Some(1));
    }
}
