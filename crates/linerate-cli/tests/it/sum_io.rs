//! How `linerate sum` treats its streams: a reader that goes away, a full
//! disk, stdout and stderr sharing one file, and a large input hashed in
//! constant memory.

use std::fs::{self, File};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::support::{ABC_HEX, LINERATE, Run, awkward_tree, hex, oracle, rename_program, write};

#[test]
fn a_closed_pipe_ends_the_run_quietly() {
    let dir = awkward_tree();
    // Far more output than any pipe or buffer holds.
    let mut command = Command::new(LINERATE);
    command
        .arg("sum")
        .args(std::iter::repeat_n("a", 20_000))
        .current_dir(dir.path());
    let (status, stderr) = after_the_first_line(command);
    assert_eq!(stderr, "");
    // 141 = 128 + SIGPIPE, what a shell reports for md5sum in this spot.
    assert_eq!(status, Some(141));
}

/// `PROGRAM sum a a ...` (md5sum or linerate) run by `sh` with SIGPIPE
/// ignored (`trap '' PIPE`, which `exec` keeps), its output a pipe closed
/// after the first line: its status and standard error.
fn with_sigpipe_ignored(program: &str, leading: &[&str], dir: &Path) -> (Option<i32>, String) {
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg("trap '' PIPE; exec \"$@\"")
        .arg("sh")
        .arg(program)
        .args(leading)
        .args(std::iter::repeat_n("a", 20_000))
        .current_dir(dir);
    after_the_first_line(command)
}

/// Runs `command` (`sum a a ...`) with its output a pipe closed after the
/// first line, which must be `a`'s: its status and standard error.
fn after_the_first_line(mut command: Command) -> (Option<i32>, String) {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    stdout.read_line(&mut first).expect("first line");
    drop(stdout);
    let mut stderr = Vec::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_end(&mut stderr)
        .expect("stderr");
    let status = child.wait().expect("wait");
    assert_eq!(first, format!("{ABC_HEX}  a\n"));
    (status.code(), String::from_utf8_lossy(&stderr).into_owned())
}

#[test]
fn a_closed_pipe_with_sigpipe_ignored_is_a_write_error_as_for_md5sum() {
    let dir = awkward_tree();
    let (status, stderr) = with_sigpipe_ignored(LINERATE, &["sum"], dir.path());
    assert_eq!(
        (status, stderr.as_str()),
        (Some(1), "linerate: write error\n")
    );
    // md5sum (where it is installed) says the same.
    if which_md5sum().is_ok() {
        let (status, stderr) = with_sigpipe_ignored("md5sum", &[], dir.path());
        assert_eq!(
            (status, stderr.as_str()),
            (Some(1), "md5sum: write error\n")
        );
    }
}

fn which_md5sum() -> Result<String, ()> {
    let paths = std::env::var_os("PATH").ok_or(())?;
    std::env::split_paths(&paths)
        .map(|p| p.join("md5sum"))
        .find(|p| p.exists())
        .map(|p| p.to_string_lossy().into_owned())
        .ok_or(())
}

#[test]
fn a_full_disk_is_a_write_error() {
    let full = Path::new("/dev/full");
    if !full.exists() {
        eprintln!("note: no /dev/full, skipped");
        return;
    }
    let dir = awkward_tree();
    write(dir.path(), b"sums", format!("{ABC_HEX}  a\n").as_bytes());
    let cases: &[&[&[u8]]] = &[
        &[b"a"],
        &[b"a", b"nofile", b"a"],
        &[b"-c", b"sums"],
        &[b"-c", b"--status", b"sums"],
    ];
    for args in cases {
        Run::new(dir.path(), args).stdout_to(full).assert_same();
    }
    let out = Run::new(dir.path(), &[b"a", b"nofile"])
        .stdout_to(full)
        .linerate();
    assert_eq!(out.status, Some(1));
    assert_eq!(
        out.stderr_text(),
        "linerate: nofile: No such file or directory\nlinerate: write error\n"
    );
}

/// Runs `program ARGS` with stdout and stderr both appended to one file.
fn merged_output(program: &Path, leading: &[&str], args: &[&str], dir: &Path) -> Vec<u8> {
    let log = dir.join("merged.log");
    let file = File::create(&log).expect("log");
    let status = Command::new(program)
        // md5sum names itself after argv[0], which must not be a path.
        .arg0(program.file_name().unwrap_or(program.as_os_str()))
        .args(leading)
        .args(args)
        .current_dir(dir)
        .env("LC_ALL", "C.UTF-8")
        .stdout(file.try_clone().expect("dup"))
        .stderr(file)
        .status()
        .expect("run");
    assert!(status.code().is_some());
    fs::read(&log).expect("read log")
}

#[test]
fn stdout_and_stderr_interleave_like_md5sum() {
    let dir = awkward_tree();
    write(
        dir.path(),
        b"sums",
        format!("{ABC_HEX}  a\n{ABC_HEX}  nofile\nbad\n{ABC_HEX}  empty\n{ABC_HEX}  a\n")
            .as_bytes(),
    );
    let cases: &[&[&str]] = &[
        &["a", "nofile", "empty", "dir", "a"],
        &["-c", "-w", "sums", "dir", "sums"],
    ];
    for args in cases {
        let ours = merged_output(Path::new(LINERATE), &["sum"], args, dir.path());
        if let Some(md5sum) = oracle() {
            let theirs = rename_program(&merged_output(md5sum, &[], args, dir.path()));
            assert_eq!(
                String::from_utf8_lossy(&ours),
                String::from_utf8_lossy(&theirs),
                "{args:?}"
            );
        }
    }
    // Without the oracle: the error lands between the two lines around it.
    let ours = merged_output(
        Path::new(LINERATE),
        &["sum"],
        &["a", "nofile", "a"],
        dir.path(),
    );
    assert_eq!(
        String::from_utf8_lossy(&ours),
        format!("{ABC_HEX}  a\nlinerate: nofile: No such file or directory\n{ABC_HEX}  a\n")
    );
}

/// 200 MB, mostly holes: cheap to create, and still every byte is hashed.
#[test]
fn a_large_sparse_file() {
    let dir = awkward_tree();
    let path = dir.path().join("sparse");
    let mut file = File::create(&path).expect("create");
    let size: u64 = 200 * 1000 * 1000;
    file.set_len(size).expect("set_len");
    // Data in a few places, including across a 256 KiB read boundary.
    for offset in [0, 262_140, 100_000_007, size - 3] {
        file.seek(SeekFrom::Start(offset)).expect("seek");
        file.write_all(b"linerate").ok();
    }
    file.set_len(size).expect("trim");
    drop(file);

    let out = Run::new(dir.path(), &[b"sparse"]).assert_same();
    // Without the oracle, compare with the library fed in other-sized pieces.
    let mut md5 = linerate::Md5::new();
    let mut reader = File::open(&path).expect("open");
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = reader.read(&mut buf).expect("read");
        if n == 0 {
            break;
        }
        md5.update(&buf[..n]);
    }
    assert_eq!(
        out.stdout_text(),
        format!("{}  sparse\n", hex(md5.finalize()))
    );
}

/// `PROGRAM ARGS` run by sh with `redirect` (`>&-`, `<&-`) in `dir`:
/// (status, stdout, stderr).
fn closed(
    program: &str,
    args: &[&str],
    redirect: &str,
    dir: &Path,
) -> (Option<i32>, Vec<u8>, String) {
    let script = format!("exec \"$0\" \"$@\" {redirect}");
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(program)
        .args(args)
        .current_dir(dir)
        .output()
        .expect("sh");
    (
        out.status.code(),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A closed standard output or input is an error (exit 1, "Bad file
/// descriptor"), as md5sum has it, never a lost output or the digest of
/// nothing (Rust's runtime puts /dev/null on a closed descriptor, and its
/// stdin/stdout hide EBADF).
#[test]
fn closed_standard_streams_are_errors_as_in_md5sum() {
    let dir = awkward_tree();
    write(dir.path(), b"sums", format!("{ABC_HEX}  a\n").as_bytes());
    let cases: &[(&[&str], &str)] = &[
        (&["a"], ">&-"),
        (&["-c", "sums"], ">&-"),
        (&[], "<&-"),
        (&["-"], "<&-"),
        (&["-c", "-"], "<&-"),
        (&["a"], "<&-"),
    ];
    for &(args, redirect) in cases {
        let sum: Vec<&str> = ["sum"].iter().chain(args).copied().collect();
        let ours = closed(LINERATE, &sum, redirect, dir.path());
        let what = format!("sum {args:?} {redirect}");
        if let Some(md5sum) = oracle() {
            let path = md5sum.to_str().unwrap();
            let mut theirs = closed(path, args, redirect, dir.path());
            // md5sum names itself as it was called.
            theirs.2 = theirs.2.replace(&format!("{path}: "), "md5sum: ");
            assert_eq!(ours.0, theirs.0, "{what}");
            assert_eq!(ours.1, theirs.1, "{what}");
            let renamed =
                String::from_utf8_lossy(&rename_program(theirs.2.as_bytes())).into_owned();
            assert_eq!(ours.2, renamed, "{what}");
        }
        let expect_error = args != ["a"] || redirect == ">&-";
        assert_eq!(
            ours.0,
            Some(if expect_error { 1 } else { 0 }),
            "{what}: {}",
            ours.2
        );
    }
    // The other commands: the same errors.
    for args in [
        &["etag", "a"][..],
        &["md5", "a"],
        &["mac", "-a", "hmac-md5", "--key-hex", "00", "a"],
    ] {
        let (status, _, stderr) = closed(LINERATE, args, ">&-", dir.path());
        assert_eq!(status, Some(1), "{args:?}");
        assert_eq!(
            stderr, "linerate: write error: Bad file descriptor\n",
            "{args:?}"
        );
    }
    for args in [
        &["etag", "-"][..],
        &["md5"],
        &["mac", "-a", "hmac-md5", "--key-hex", "00", "-"],
    ] {
        let (status, stdout, stderr) = closed(LINERATE, args, "<&-", dir.path());
        assert_eq!(status, Some(1), "{args:?}");
        assert!(stdout.is_empty(), "{args:?}");
        assert!(stderr.contains("Bad file descriptor"), "{args:?}: {stderr}");
    }
}

/// `/dev/null` open for reading and writing on a standard descriptor (as
/// Python's `subprocess.DEVNULL` and `1<>/dev/null` open it) is an open
/// descriptor: written to and read from as md5sum does, not taken for a
/// closed one.
#[test]
fn dev_null_open_both_ways_is_open() {
    let dir = awkward_tree();
    let cases: &[(&[&str], &str)] = &[
        (&["a"], "1<>/dev/null"),
        (&["-"], "0<>/dev/null"),
        (&[], "0<>/dev/null 1<>/dev/null"),
    ];
    for &(args, redirect) in cases {
        let sum: Vec<&str> = ["sum"].iter().chain(args).copied().collect();
        let ours = closed(LINERATE, &sum, redirect, dir.path());
        let what = format!("sum {args:?} {redirect}");
        assert_eq!(ours.0, Some(0), "{what}: {}", ours.2);
        assert!(ours.2.is_empty(), "{what}: {}", ours.2);
        if let Some(md5sum) = oracle() {
            let theirs = closed(md5sum.to_str().unwrap(), args, redirect, dir.path());
            assert_eq!(ours.0, theirs.0, "{what}");
            assert_eq!(ours.1, theirs.1, "{what}");
        }
    }
    for args in [
        &["etag", "--checksum=crc32", "a"][..],
        &["md5", "a"],
        &["mac", "-a", "hmac-md5", "--key-hex", "00", "a"],
    ] {
        let (status, _, stderr) = closed(LINERATE, args, "1<>/dev/null", dir.path());
        assert_eq!(status, Some(0), "{args:?}: {stderr}");
    }
}
