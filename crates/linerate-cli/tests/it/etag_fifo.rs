//! `etag --match` and `etag -c` given a FIFO with no writer, or a device
//! that never ends: each is refused at once as not a regular file (a plain
//! open of such a FIFO would wait for ever), named on one line of stderr,
//! and the other files are still searched. Every run is bounded: one that
//! outlives its limit is killed and fails the test.

use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{LINERATE, Outcome, scratch, write};

const ABC_MD5: &str = "900150983cd24fb0d6963f7d28e17f72";

/// How long a run may take before it counts as hung.
const LIMIT: Duration = Duration::from_secs(30);

/// `linerate ARGS` in `dir`, killed (and the test failed) past [`LIMIT`].
fn run_bounded(dir: &Path, args: &[&str]) -> Outcome {
    let mut child = Command::new(LINERATE)
        .args(args)
        .current_dir(dir)
        .env("LC_ALL", "C.UTF-8")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn linerate");
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
