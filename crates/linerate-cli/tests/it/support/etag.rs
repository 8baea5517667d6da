//! Shared by the `etag*` integration tests: running `linerate etag`, the
//! independent reference `scripts/etag_reference.py` (Python's hashlib),
//! and files to run them on.
//!
//! Without `python3` the comparisons with the reference are skipped with a
//! note, as the other suites skip theirs without their oracle
//! ([`peer_missing`]).

use std::ffi::{OsStr, OsString};
use std::fs;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::{Input, LINERATE, Rng, Run, peer_missing, random_bytes, write};

pub const KIB: u64 = 1 << 10;
pub const MIB: u64 = 1 << 20;

/// What a finished command left behind, as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextOutcome {
    pub status: Option<i32>,
    /// Standard output as text (invalid UTF-8 replaced)...
    pub stdout: String,
    /// ...and as it was.
    pub raw_stdout: Vec<u8>,
    pub stderr: String,
}

/// Runs `program args` in `dir` with `stdin` (a file, or nothing).
fn run_program(program: &OsStr, args: &[&OsStr], dir: &Path, stdin: Option<&Path>) -> TextOutcome {
    let args: Vec<OsString> = args.iter().map(|a| a.to_os_string()).collect();
    let run = Run::of(dir, &args);
    let run = match stdin {
        Some(path) => run.stdin(Input::File(path)),
        None => run,
    };
    let outcome = run.run(Path::new(program), &[]);
    TextOutcome {
        status: outcome.status,
        stdout: outcome.stdout_text(),
        stderr: outcome.stderr_text(),
        raw_stdout: outcome.stdout,
    }
}

/// `linerate etag ARGS` in `dir`; a panic fails the test.
pub fn etag(dir: &Path, args: &[&str]) -> TextOutcome {
    etag_os(dir, &args.iter().map(OsStr::new).collect::<Vec<_>>(), None)
}

/// `linerate etag ARGS` with byte-string arguments and optional stdin.
pub fn etag_os(dir: &Path, args: &[&OsStr], stdin: Option<&Path>) -> TextOutcome {
    let mut all = vec![OsStr::new("etag")];
    all.extend_from_slice(args);
    let outcome = run_program(OsStr::new(LINERATE), &all, dir, stdin);
    assert_ne!(
        outcome.status,
        Some(101),
        "linerate panicked: {}",
        outcome.stderr
    );
    outcome
}

/// The reference script's path.
fn reference_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/etag_reference.py")
}

/// Whether `python3` runs.
pub fn have_python() -> bool {
    static HAVE: OnceLock<bool> = OnceLock::new();
    *HAVE.get_or_init(|| {
        let ok = Command::new("python3")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            peer_missing("no python3: comparisons with scripts/etag_reference.py skipped");
        }
        ok
    })
}

/// `etag_reference.py ARGS` in `dir`: its stdout, or `None` without
/// python3. The script must succeed.
pub fn reference_os(dir: &Path, args: &[&OsStr], stdin: Option<&Path>) -> Option<String> {
    if !have_python() {
        return None;
    }
    let script = reference_script();
    let mut all = vec![script.as_os_str()];
    all.extend_from_slice(args);
    let outcome = run_program(OsStr::new("python3"), &all, dir, stdin);
    assert_eq!(
        outcome.status,
        Some(0),
        "reference failed: {}",
        outcome.stderr
    );
    Some(outcome.stdout)
}

/// [`reference_os`] with text arguments.
pub fn reference(dir: &Path, args: &[&str]) -> Option<String> {
    reference_os(dir, &args.iter().map(OsStr::new).collect::<Vec<_>>(), None)
}

/// The reference's ETag of one file with `options` (`--part-size BYTES`...).
pub fn reference_etag(dir: &Path, options: &[&str], file: &str) -> Option<String> {
    let mut args = options.to_vec();
    args.push(file);
    let out = reference(dir, &args)?;
    Some(out.split("  ").next().unwrap_or_default().to_string())
}

/// Runs ours and the reference with the same arguments and asserts the
/// same output; ours must succeed. Returns our stdout.
pub fn assert_like_reference(dir: &Path, options: &[&str], files: &[&str]) -> String {
    let mut args = options.to_vec();
    args.extend_from_slice(files);
    let ours = etag(dir, &args);
    assert_eq!(
        ours.status,
        Some(0),
        "linerate etag {args:?}: {}",
        ours.stderr
    );
    if let Some(want) = reference(dir, &args) {
        assert_eq!(
            ours.stdout,
            want,
            "linerate etag {args:?} in {}",
            dir.display()
        );
    }
    ours.stdout
}

/// A file of `len` random bytes from `rng`.
pub fn random_file(dir: &Path, name: &str, len: usize, rng: &mut Rng) -> PathBuf {
    write(dir, name.as_bytes(), &random_bytes(rng, len))
}

/// A sparse file of `len` bytes, zero but for random runs of 4 KiB at each
/// offset in `marks` (clamped to the file), so that every part differs
/// while almost nothing is written to disk.
pub fn sparse_file(dir: &Path, name: &str, len: u64, marks: &[u64], rng: &mut Rng) -> PathBuf {
    let path = dir.join(name);
    let mut file = fs::File::create(&path).expect("create");
    file.set_len(len).expect("set_len");
    for &mark in marks {
        let start = mark.min(len);
        let run = (4 * KIB).min(len - start) as usize;
        file.seek(SeekFrom::Start(start)).expect("seek");
        file.write_all(&random_bytes(rng, run)).expect("write");
    }
    path
}
