//! What the command line's tests share: the binary, one way to run it (or
//! a peer) and keep what it left behind, scratch files, a seeded generator,
//! and the peers' rules. Each command's own helpers are in the submodules.
#![allow(dead_code)] // Each test module uses its own subset.

pub mod audit;
pub mod etag;
pub mod mac;
pub mod packets;
pub mod sum;

pub use audit::*;
pub use etag::*;
pub use mac::*;
pub use packets::*;
pub use sum::*;

use std::ffi::{OsStr, OsString};
use std::fs;
use std::io::Write;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Has a server or peer a test starts die with the thread that started
/// it, and so with the test binary, SIGKILL included (the kernel's
/// parent-death signal): nothing a test starts outlives it.
pub fn dies_with_test(command: &mut Command) -> &mut Command {
    let parent = std::process::id();
    // SAFETY: the closure runs in the child between fork and exec and calls
    // only async-signal-safe functions (prctl, getppid, _exit).
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The parent may have died before the signal was asked for.
            if libc::getppid() as u32 != parent {
                libc::_exit(1);
            }
            Ok(())
        });
    }
    command
}

/// A command running `program` as the unprivileged user nobody (uid and
/// gid 65534, no supplementary groups) through util-linux's `setpriv`: how
/// the tests play a second local user. `None`, with a note, where this
/// process cannot switch users (not root, or no setpriv): the caller then
/// skips, or does the step as itself where that still tests something.
pub fn as_nobody(program: impl AsRef<OsStr>) -> Option<Command> {
    use std::os::unix::fs::MetadataExt;
    let root = fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0);
    let setpriv = Path::new("/usr/bin/setpriv");
    if !root || !setpriv.exists() {
        eprintln!("note: cannot run as nobody here (not root, or no /usr/bin/setpriv)");
        return None;
    }
    let mut command = Command::new(setpriv);
    command
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(program);
    Some(command)
}

/// Runs `program ARGS` in `cwd` as nobody where we can, else as ourselves
/// (a planted link is then ours: the test still shows it is not followed);
/// whether it succeeded (a note says why not).
pub fn plant_as_nobody(cwd: &Path, program: &str, args: &[&[u8]]) -> bool {
    let mut command = as_nobody(program).unwrap_or_else(|| Command::new(program));
    let out = command
        .args(args.iter().map(|a| OsStr::from_bytes(a)))
        .current_dir(cwd)
        .stdin(Stdio::null())
        .output()
        .expect("run as nobody");
    if !out.status.success() {
        eprintln!(
            "note: {program} as nobody failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    out.status.success()
}

/// The binary under test.
pub const LINERATE: &str = env!("CARGO_BIN_EXE_linerate");

/// What a finished command left behind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub status: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

impl Outcome {
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}

/// Standard input for a run.
#[derive(Clone, Copy)]
pub enum Input<'a> {
    Null,
    Bytes(&'a [u8]),
    File(&'a Path),
}

/// One invocation: arguments, standard input and environment, run in a
/// directory with `POSIXLY_CORRECT` and the backend variables removed and
/// `LC_ALL=C.UTF-8` (unless the run sets it), so that messages and quoting
/// do not depend on the caller's environment.
#[derive(Clone)]
pub struct Run<'a> {
    pub dir: &'a Path,
    pub args: Vec<OsString>,
    pub stdin: Input<'a>,
    /// Where stdout goes instead of a pipe (e.g. `/dev/full`).
    pub stdout_file: Option<&'a Path>,
    pub env: Vec<(&'a str, &'a str)>,
}

impl<'a> Run<'a> {
    pub fn new(dir: &'a Path, args: &[&[u8]]) -> Run<'a> {
        Run {
            dir,
            args: args.iter().map(arg).collect(),
            stdin: Input::Null,
            stdout_file: None,
            env: Vec::new(),
        }
    }

    /// A run of arguments that need not be text.
    pub fn of(dir: &'a Path, args: &[OsString]) -> Run<'a> {
        Run {
            args: args.to_vec(),
            ..Run::new(dir, &[])
        }
    }

    pub fn stdin(mut self, input: Input<'a>) -> Run<'a> {
        self.stdin = input;
        self
    }

    pub fn stdout_to(mut self, path: &'a Path) -> Run<'a> {
        self.stdout_file = Some(path);
        self
    }

    pub fn env(mut self, key: &'a str, value: &'a str) -> Run<'a> {
        self.env.push((key, value));
        self
    }

    /// Runs `program leading... args...`.
    pub fn run(&self, program: &Path, leading: &[&str]) -> Outcome {
        let mut command = Command::new(program);
        // md5sum names itself after argv[0]; a full path would leak into its messages.
        command.arg0(program.file_name().unwrap_or(program.as_os_str()));
        command.args(leading).args(&self.args).current_dir(self.dir);
        command
            .env_remove("POSIXLY_CORRECT")
            .env_remove("LINERATE_LANES_BACKEND")
            .env_remove("LINERATE_MD5_BACKEND")
            .env_remove("LINERATE_NH_BACKEND")
            .env_remove("LINERATE_SHA1_LANES_BACKEND")
            .env("LC_ALL", "C.UTF-8");
        for (key, value) in &self.env {
            command.env(key, value);
        }
        command.stdin(match self.stdin {
            Input::Null => Stdio::null(),
            Input::Bytes(_) => Stdio::piped(),
            Input::File(path) => Stdio::from(fs::File::open(path).expect("open stdin file")),
        });
        command.stdout(match self.stdout_file {
            Some(path) => Stdio::from(
                fs::OpenOptions::new()
                    .write(true)
                    .open(path)
                    .expect("open stdout file"),
            ),
            None => Stdio::piped(),
        });
        command.stderr(Stdio::piped());
        let mut child = command.spawn().expect("spawn");
        let feeder = match (self.stdin, child.stdin.take()) {
            (Input::Bytes(bytes), Some(mut pipe)) => {
                let bytes = bytes.to_vec();
                // A program may exit without reading everything: ignore EPIPE.
                Some(std::thread::spawn(move || pipe.write_all(&bytes).ok()))
            }
            _ => None,
        };
        let output = child.wait_with_output().expect("wait");
        if let Some(feeder) = feeder {
            feeder.join().ok();
        }
        Outcome {
            status: output.status.code(),
            stdout: output.stdout,
            stderr: output.stderr,
        }
    }

    /// `linerate leading... args...`; a panic fails the test.
    pub fn linerate_with(&self, leading: &[&str]) -> Outcome {
        let outcome = self.run(Path::new(LINERATE), leading);
        assert_ne!(
            outcome.status,
            Some(101),
            "linerate panicked: {}",
            outcome.stderr_text()
        );
        outcome
    }
}

/// Anything that can be an argument: `&str`, `&[u8]`, paths as bytes.
pub fn arg(a: impl AsRef<[u8]>) -> OsString {
    OsString::from_vec(a.as_ref().to_vec())
}

/// A path as argument bytes.
pub fn path_arg(path: &Path) -> &[u8] {
    path.as_os_str().as_bytes()
}

/// A scratch directory, removed when dropped.
pub fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("linerate-test-")
        .tempdir()
        .expect("scratch directory")
}

/// Creates `name` (any bytes but `/` and NUL) in `dir` with `contents`.
pub fn write(dir: &Path, name: impl AsRef<[u8]>, contents: &[u8]) -> PathBuf {
    let path = dir.join(OsStr::from_bytes(name.as_ref()));
    fs::write(&path, contents).expect("write fixture");
    path
}

/// Lower-case hex.
pub fn hex(bytes: impl AsRef<[u8]>) -> String {
    hex::encode(bytes)
}

/// A small deterministic generator (xorshift64*), so randomised tests need
/// no extra dependency and replay exactly.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in `0..n` (n > 0), near enough for tests.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    pub fn pick<'t, T>(&mut self, items: &'t [T]) -> &'t T {
        &items[self.below(items.len())]
    }

    /// One of `items`, for byte strings of mixed lengths.
    pub fn pick_bytes<'t>(&mut self, items: &[&'t [u8]]) -> &'t [u8] {
        items[self.below(items.len())]
    }

    /// `len` random bytes.
    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(len + 8);
        while out.len() < len {
            out.extend_from_slice(&self.next_u64().to_le_bytes());
        }
        out.truncate(len);
        out
    }
}

/// A peer implementation a comparison needs is missing: a note on stderr,
/// and a failure when `LINERATE_PEERS=required` (`scripts/test-all.sh`
/// installs every peer and sets it, so that no comparison is skipped
/// unnoticed).
pub fn peer_missing(what: &str) {
    if std::env::var_os("LINERATE_PEERS").is_some_and(|v| v == "required") {
        panic!("{what} (LINERATE_PEERS=required: scripts/test-all.sh installs every peer)");
    }
    eprintln!("note: {what}");
}

/// The repository's root (where `.venv-peers` and `.peers` are).
pub fn repository() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `.venv-peers/bin/python` if `modules` (comma-separated, as `import`
/// takes them) import there; otherwise `None`, said by [`peer_missing`].
pub fn peers_python(modules: &str) -> Option<std::path::PathBuf> {
    let python = repository().join(".venv-peers/bin/python");
    let imports = std::process::Command::new(&python)
        .args(["-c", &format!("import {modules}")])
        .output()
        .is_ok_and(|out| out.status.success());
    if !imports {
        peer_missing(&format!(
            "{modules} not installed in .venv-peers: run scripts/setup.sh"
        ));
    }
    imports.then_some(python)
}
