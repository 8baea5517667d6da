//! Files that change while they are hashed, on every path that hashes
//! regular files (`sum`, `sum -r`, `sum -c`, `audit`, `etag`, and the
//! digests computed beside the lanes: `cksum`, `etag --checksum`,
//! `sum --also`): another process truncates or appends to the file in the
//! middle of the read (the engine's `LINERATE_TEST_PAUSE` handshake stops
//! it there), and the file gets one line, `NAME: file changed while reading`, exit status 1,
//! with the other files still hashed. Each test runs under every file I/O
//! policy (`LINERATE_FILE_IO`): a mapped file that shrinks faults (SIGBUS),
//! which must not end the process.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use crate::support::{LINERATE, Outcome, scratch, write};

/// How the file changes during the read.
#[derive(Clone, Copy, Debug)]
enum Change {
    Truncate,
    Append,
}

impl Change {
    fn apply(self, path: &Path) {
        match self {
            Change::Truncate => {
                let file = OpenOptions::new().write(true).open(path).expect("open");
                file.set_len(1000).expect("truncate");
            }
            Change::Append => {
                let mut file = OpenOptions::new().append(true).open(path).expect("open");
                file.write_all(b"and then some").expect("append");
            }
        }
    }
}

/// The file I/O policies: read, mapped, and the default.
const IO: [&str; 3] = ["read", "map", "auto"];

/// Runs `linerate ARGS` in `dir` under file I/O policy `io`, paused after
/// the first piece of the first file it reads, applies `change` to `target`
/// there, lets it go on.
fn run_changing(dir: &Path, args: &[&str], io: &str, target: &Path, change: Change) -> Outcome {
    let fifos = scratch();
    for name in ["paused", "resume"] {
        let made = Command::new("mkfifo")
            .arg(fifos.path().join(name))
            .status()
            .expect("mkfifo runs");
        assert!(made.success());
    }
    let child = Command::new(LINERATE)
        .args(args)
        .current_dir(dir)
        .env("LC_ALL", "C.UTF-8")
        .env("LINERATE_TEST_PAUSE", fifos.path())
        .env("LINERATE_FILE_IO", io)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn linerate");
    // Opening the FIFO waits for linerate to open its end: it has read the
    // first piece and waits. On another thread, so that a hook that never
    // fires fails the test instead of hanging it.
    let paused = fifos.path().join("paused");
    let (tx, rx) = mpsc::channel();
    let reader = {
        let paused = paused.clone();
        thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(File::open(paused).expect("paused")).read_line(&mut line);
            let _ = tx.send(line);
        })
    };
    let Ok(line) = rx.recv_timeout(Duration::from_secs(120)) else {
        let mut child = child;
        let _ = child.kill();
        // Opening for reading and writing never blocks: it lets the
        // reader's open return.
        drop(File::options().read(true).write(true).open(&paused));
        let _ = reader.join();
        panic!("linerate never paused: LINERATE_TEST_PAUSE did not fire");
    };
    let _ = reader.join();
    assert_eq!(line, "paused\n");
    change.apply(target);
    let mut resume = File::options()
        .write(true)
        .open(fifos.path().join("resume"))
        .expect("resume");
    writeln!(resume, "go").expect("write resume");
    drop(resume);
    let out = child.wait_with_output().expect("wait");
    Outcome {
        status: out.status.code(),
        stdout: out.stdout,
        stderr: out.stderr,
    }
}

/// A tree with `big` (8 MiB, more than one piece: the first file read) and
/// a small `other`.
fn tree() -> tempfile::TempDir {
    let dir = scratch();
    let data: Vec<u8> = (0..8u32 << 20).map(|i| (i % 251) as u8).collect();
    write(dir.path(), "big", &data);
    write(dir.path(), "other", b"abc");
    dir
}

fn assert_changed(out: &Outcome, name: &str, what: &str) {
    assert_eq!(out.status, Some(1), "{what}: {}", out.stderr_text());
    assert_eq!(
        out.stderr_text(),
        format!("linerate: {name}: file changed while reading\n"),
        "{what}"
    );
}

/// Every combination of a change and a file I/O policy.
fn cases() -> impl Iterator<Item = (Change, &'static str)> {
    [Change::Truncate, Change::Append]
        .into_iter()
        .flat_map(|change| IO.map(|io| (change, io)))
}

#[test]
fn sum_reports_a_file_that_shrank_or_grew_and_hashes_the_rest() {
    for (change, io) in cases() {
        for threads in ["-j1", "-j2"] {
            let dir = tree();
            let big = dir.path().join("big");
            let args = ["sum", threads, "big", "other"];
            let out = run_changing(dir.path(), &args, io, &big, change);
            let what = format!("{change:?} {io} {threads}");
            assert_changed(&out, "big", &what);
            assert_eq!(
                out.stdout_text(),
                "900150983cd24fb0d6963f7d28e17f72  other\n",
                "{what}"
            );
        }
    }
}

#[test]
fn a_tree_reports_a_file_that_changed() {
    for (change, io) in cases() {
        let dir = tree();
        let big = dir.path().join("big");
        let out = run_changing(dir.path(), &["sum", "-r", "."], io, &big, change);
        let what = format!("{change:?} {io}");
        assert_changed(&out, "./big", &what);
        assert!(out.stdout_text().ends_with("  ./other\n"), "{what}");
    }
}

#[test]
fn check_reports_a_file_that_changed_as_unreadable() {
    for (change, io) in cases() {
        let dir = tree();
        let sums = Command::new(LINERATE)
            .args(["sum", "big", "other"])
            .current_dir(dir.path())
            .output()
            .expect("sum");
        std::fs::write(dir.path().join("SUMS"), &sums.stdout).expect("write SUMS");
        let big = dir.path().join("big");
        let out = run_changing(dir.path(), &["sum", "-c", "SUMS"], io, &big, change);
        let what = format!("{change:?} {io}");
        assert_eq!(out.status, Some(1), "{what}");
        assert_eq!(
            out.stdout_text(),
            "big: FAILED open or read\nother: OK\n",
            "{what}"
        );
        assert!(
            out.stderr_text()
                .starts_with("linerate: big: file changed while reading\n"),
            "{what}: {}",
            out.stderr_text()
        );
    }
}

#[test]
fn an_audit_reports_a_file_that_changed_as_an_error() {
    for (change, io) in cases() {
        let dir = tree();
        let manifest = Command::new(LINERATE)
            .args(["sum", "-r", "."])
            .current_dir(dir.path())
            .output()
            .expect("sum -r");
        let list = scratch();
        let manifest_path = list.path().join("tree.md5");
        std::fs::write(&manifest_path, &manifest.stdout).expect("write manifest");
        let big = dir.path().join("big");
        let args = ["audit", manifest_path.to_str().expect("UTF-8 path")];
        let out = run_changing(dir.path(), &args, io, &big, change);
        let what = format!("{change:?} {io}");
        assert_eq!(out.status, Some(1), "{what}: {}", out.stderr_text());
        let text = out.stdout_text();
        assert!(
            text.contains("error: big: file changed while reading\n"),
            "{what}: {text}"
        );
        assert!(
            text.contains("1 matched, 0 changed, 0 missing, 0 new, 1 error\n"),
            "{what}: {text}"
        );
    }
}

#[test]
fn etag_never_prints_the_etag_of_a_file_that_grew_or_shrank() {
    for (change, io) in cases() {
        for threads in ["-j1", "-j2"] {
            let dir = tree();
            let big = dir.path().join("big");
            let args = ["etag", threads, "--part-size", "5MiB", "big", "other"];
            let out = run_changing(dir.path(), &args, io, &big, change);
            let what = format!("{change:?} {io} {threads}");
            assert_changed(&out, "big", &what);
            // MD5 of the one part's MD5 ("abc"), then "-1".
            assert_eq!(
                out.stdout_text(),
                "af5da9f45af7a300e3aded972f8ff687-1  other\n",
                "{what}"
            );
        }
    }
}

/// The paths that compute other functions beside (or without) the lanes'
/// MD5: `cksum -a sha256`, `etag --checksum` without the ETag (no MD5 at
/// all) and `sum --also`.
#[test]
fn digests_beside_the_lanes_never_print_a_changed_file() {
    for (change, io) in cases() {
        for (args, other) in [
            (
                &["cksum", "-a", "sha256", "big", "other"][..],
                "SHA256 (other) = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n",
            ),
            (
                &[
                    "etag",
                    "--checksum",
                    "crc32",
                    "--part-size",
                    "5MiB",
                    "big",
                    "other",
                ],
                // zlib.crc32 of the one part's big-endian CRC-32 of "abc".
                "CRC32 (other) = Rf3kaw==-1\n",
            ),
            (
                &["sum", "--also", "sha256", "big", "other"],
                "900150983cd24fb0d6963f7d28e17f72  other\n\
                 SHA256 (other) = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n",
            ),
        ] {
            let dir = tree();
            let big = dir.path().join("big");
            let out = run_changing(dir.path(), args, io, &big, change);
            let what = format!("{args:?} {change:?} {io}");
            assert_changed(&out, "big", &what);
            assert_eq!(out.stdout_text(), other, "{what}");
        }
    }
}
