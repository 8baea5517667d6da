//! `etag --match` and `etag -c` given a FIFO with no writer, or a device
//! that never ends: each is refused at once as not a regular file (a plain
//! open of such a FIFO would wait for ever), named on one line of stderr,
//! and the other files are still searched. And a regular file swapped for
//! a FIFO after it was found (`stat`ed) but before it is opened, in `sum`
//! and `etag`'s engines: the same refusal, never a wait. Every run is
//! bounded: one that outlives its limit is killed and fails the test.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::support::{LINERATE, Outcome, scratch, write};

const ABC_MD5: &str = "900150983cd24fb0d6963f7d28e17f72";

/// How long a run may take before it counts as hung.
const LIMIT: Duration = Duration::from_secs(30);

/// `linerate ARGS` in `dir`, killed (and the test failed) past [`LIMIT`].
fn run_bounded(dir: &Path, args: &[&str]) -> Outcome {
    let child = Command::new(LINERATE)
        .args(args)
        .current_dir(dir)
        .env("LC_ALL", "C.UTF-8")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn linerate");
    wait_bounded(child, args)
}

/// Waits for `child`, killed (and the test failed) past [`LIMIT`].
fn wait_bounded(mut child: Child, args: &[&str]) -> Outcome {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            let (stdout, stderr) = drain(&mut child);
            return Outcome {
                status: status.code(),
                stdout,
                stderr,
            };
        }
        if started.elapsed() > LIMIT {
            child.kill().ok();
            child.wait().ok();
            panic!("linerate {args:?} still ran after {LIMIT:?}: killed");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// What an exited child left in its pipes (small here: a few lines).
fn drain(child: &mut Child) -> (Vec<u8>, Vec<u8>) {
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    if let Some(mut pipe) = child.stdout.take() {
        pipe.read_to_end(&mut stdout).expect("stdout");
    }
    if let Some(mut pipe) = child.stderr.take() {
        pipe.read_to_end(&mut stderr).expect("stderr");
    }
    (stdout, stderr)
}

/// A scratch directory with `a` ("abc") and `fifo`, a FIFO nobody writes.
fn tree() -> tempfile::TempDir {
    let dir = scratch();
    write(dir.path(), "a", b"abc");
    let made = Command::new("mkfifo")
        .arg(dir.path().join("fifo"))
        .status()
        .expect("mkfifo runs");
    assert!(made.success(), "mkfifo");
    dir
}

const NOT_REGULAR: &str = "not a regular file (a search reads parts at many offsets)";

#[test]
fn match_refuses_a_fifo_and_a_device_and_searches_the_rest() {
    let dir = tree();
    let out = run_bounded(
        dir.path(),
        &["etag", "--match", ABC_MD5, "fifo", "/dev/zero", "a"],
    );
    assert_eq!(out.status, Some(1), "{}", out.stderr_text());
    assert_eq!(out.stdout_text(), "a: plain MD5 (uploaded in one PUT)\n");
    assert_eq!(
        out.stderr_text(),
        format!("linerate: fifo: {NOT_REGULAR}\nlinerate: /dev/zero: {NOT_REGULAR}\n")
    );
    // A checksum's search takes the same open.
    let out = run_bounded(
        dir.path(),
        &[
            "etag",
            "--match",
            "NSRBwg==",
            "--checksum",
            "crc32",
            "fifo",
            "a",
        ],
    );
    assert_eq!(out.status, Some(1), "{}", out.stderr_text());
    assert_eq!(
        out.stderr_text(),
        format!("linerate: fifo: {NOT_REGULAR}\n")
    );
}

#[test]
fn check_reports_a_fifo_and_a_device_and_checks_the_rest() {
    let dir = tree();
    let list = format!("{ABC_MD5}  fifo\n{ABC_MD5}  /dev/zero\n{ABC_MD5}  a\n");
    write(dir.path(), "list", list.as_bytes());
    let out = run_bounded(dir.path(), &["etag", "-c", "list"]);
    assert_eq!(out.status, Some(1), "{}", out.stderr_text());
    assert_eq!(
        out.stdout_text(),
        "fifo: FAILED open or read\n/dev/zero: FAILED open or read\na: OK (plain MD5)\n"
    );
    assert!(
        out.stderr_text().starts_with(&format!(
            "linerate: fifo: {NOT_REGULAR}\nlinerate: /dev/zero: {NOT_REGULAR}\n"
        )),
        "{}",
        out.stderr_text()
    );
}

fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(made.success(), "mkfifo {path:?}");
}

/// `linerate ARGS` in `dir`, paused (LINERATE_TEST_PAUSE) after the first
/// piece of the first file its engine reads; there `target` is replaced by
/// a FIFO nobody writes, then the run goes on, bounded.
fn run_with_fifo_swapped_in(dir: &Path, args: &[&str], target: &str) -> Outcome {
    let fifos = scratch();
    let paused = fifos.path().join("paused");
    mkfifo(&paused);
    mkfifo(&fifos.path().join("resume"));
    let mut child = Command::new(LINERATE)
        .args(args)
        .current_dir(dir)
        .env("LC_ALL", "C.UTF-8")
        .env("LINERATE_TEST_PAUSE", fifos.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn linerate");
    // On another thread, so that a hook that never fires fails the test.
    let (tx, rx) = mpsc::channel();
    let reader = {
        let paused = paused.clone();
        std::thread::spawn(move || {
            let mut line = String::new();
            if let Ok(file) = File::open(paused) {
                BufReader::new(file).read_line(&mut line).ok();
            }
            tx.send(line).ok();
        })
    };
    let Ok(line) = rx.recv_timeout(LIMIT) else {
        child.kill().ok();
        child.wait().ok();
        // Opening for reading and writing never waits: the reader's open
        // returns.
        drop(File::options().read(true).write(true).open(&paused));
        reader.join().ok();
        panic!("linerate {args:?} never paused");
    };
    reader.join().ok();
    assert_eq!(line, "paused\n");
    let target = dir.join(target);
    std::fs::remove_file(&target).expect("remove the target");
    mkfifo(&target);
    let mut resume = File::options()
        .write(true)
        .open(fifos.path().join("resume"))
        .expect("resume");
    writeln!(resume, "go").expect("write resume");
    drop(resume);
    wait_bounded(child, args)
}

/// Many files of more than one piece each, so that the engine has opened
/// only some of them when it pauses, and the small `last`, opened last.
fn many_files() -> tempfile::TempDir {
    let dir = scratch();
    let data: Vec<u8> = (0..3u32 << 19).map(|i| (i % 251) as u8).collect();
    for i in 0..48 {
        write(dir.path(), format!("f{i:02}"), &data);
    }
    write(dir.path(), "last", b"abc");
    dir
}

#[test]
fn sum_refuses_a_fifo_swapped_in_after_the_stat() {
    let dir = many_files();
    let mut args = vec!["sum".to_string(), "-j1".to_string()];
    args.extend((0..48).map(|i| format!("f{i:02}")));
    args.push("last".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = run_with_fifo_swapped_in(dir.path(), &args, "last");
    assert_eq!(out.status, Some(1), "{}", out.stderr_text());
    assert_eq!(out.stderr_text(), "linerate: last: not a regular file\n");
    assert_eq!(out.stdout_text().lines().count(), 48);
}

#[test]
fn etag_refuses_a_fifo_swapped_in_after_the_stat() {
    let dir = scratch();
    // 64 parts of 1 MiB, each more than one piece: the engine has handed
    // out only some of them when it pauses, and `last` after them all.
    let data: Vec<u8> = (0..64u32 << 20).map(|i| (i % 251) as u8).collect();
    write(dir.path(), "big", &data);
    write(dir.path(), "last", b"abc");
    let args = ["etag", "-j1", "--part-size", "1MiB", "big", "last"];
    let out = run_with_fifo_swapped_in(dir.path(), &args, "last");
    assert_eq!(out.status, Some(1), "{}", out.stderr_text());
    let stderr = out.stderr_text();
    let lines: Vec<&str> = stderr.lines().collect();
    // The first line warns that 1 MiB parts are below S3's minimum.
    assert_eq!(lines.len(), 2, "{stderr}");
    assert!(
        lines[0].starts_with("linerate: warning: part size 1 MiB"),
        "{stderr}"
    );
    assert_eq!(lines[1], "linerate: last: not a regular file");
    assert_eq!(
        out.stdout_text().lines().count(),
        1,
        "{}",
        out.stdout_text()
    );
}
