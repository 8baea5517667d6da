//! Shared by the `sum_*` integration tests: scratch directories full of
//! awkward files, and running `linerate sum` next to GNU md5sum to compare
//! them byte for byte.
//!
//! The oracle is `md5sum` from `$LINERATE_MD5SUM` or `/usr/bin/md5sum`, used
//! only if it is GNU coreutils 9.1: other versions quote and escape
//! differently. Without it the differential halves of the tests are skipped
//! (with a note on stderr); the assertions on known output still run.

#![allow(dead_code)] // Each test crate uses its own subset.

use std::ffi::OsString;
use std::fs;
use std::io::Write;
use std::os::unix::ffi::OsStringExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

pub const LINERATE: &str = env!("CARGO_BIN_EXE_linerate");

/// The digest of `abc`, the contents of the fixture file `a`.
pub const ABC_HEX: &str = "900150983cd24fb0d6963f7d28e17f72";
/// The digest of nothing.
pub const EMPTY_HEX: &str = "d41d8cd98f00b204e9800998ecf8427e";

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

/// One invocation, run the same way for both programs.
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
            args: args
                .iter()
                .map(|a| OsString::from_vec(a.to_vec()))
                .collect(),
            stdin: Input::Null,
            stdout_file: None,
            env: Vec::new(),
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

    fn run(&self, program: &Path, leading: &[&str]) -> Outcome {
        let mut command = Command::new(program);
        // md5sum names itself after argv[0]; a full path would leak into its messages.
        command.arg0(program.file_name().unwrap_or(program.as_os_str()));
        command.args(leading).args(&self.args).current_dir(self.dir);
        command
            .env_remove("POSIXLY_CORRECT")
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

    /// `linerate sum ARGS`.
    pub fn linerate(&self) -> Outcome {
        self.run(Path::new(LINERATE), &["sum"])
    }

    /// `md5sum ARGS`, if the oracle is available.
    pub fn md5sum(&self) -> Option<Outcome> {
        oracle().map(|md5sum| self.run(md5sum, &[]))
    }

    /// Runs both and asserts identical status, stdout and (after renaming)
    /// stderr. Returns linerate's outcome for further checks.
    pub fn assert_same(&self) -> Outcome {
        let ours = self.linerate();
        assert_ne!(
            ours.status,
            Some(101),
            "linerate panicked: {}",
            ours.stderr_text()
        );
        if let Some(theirs) = self.md5sum() {
            let expected = Outcome {
                stderr: rename_program(&theirs.stderr),
                ..theirs
            };
            if ours != expected {
                panic!(
                    "linerate sum differs from md5sum for args {:?} in {}\n\
                     md5sum:   status {:?}\n  stdout {:?}\n  stderr {:?}\n\
                     linerate: status {:?}\n  stdout {:?}\n  stderr {:?}",
                    self.args,
                    self.dir.display(),
                    expected.status,
                    expected.stdout_text(),
                    expected.stderr_text(),
                    ours.status,
                    ours.stdout_text(),
                    ours.stderr_text(),
                );
            }
        }
        ours
    }
}

/// md5sum's stderr as linerate words it: `md5sum: ` becomes `linerate: `
/// and the usage hint names `linerate sum`.
pub fn rename_program(stderr: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(stderr.len());
    for line in stderr.split_inclusive(|&b| b == b'\n') {
        if let Some(rest) = line.strip_prefix(b"md5sum: ") {
            out.extend_from_slice(b"linerate: ");
            out.extend_from_slice(rest);
        } else if line == b"Try 'md5sum --help' for more information.\n" {
            out.extend_from_slice(b"Try 'linerate sum --help' for more information.\n");
        } else {
            out.extend_from_slice(line);
        }
    }
    out
}

/// The GNU md5sum 9.1 to compare against, if there is one.
pub fn oracle() -> Option<&'static Path> {
    static ORACLE: OnceLock<Option<PathBuf>> = OnceLock::new();
    ORACLE
        .get_or_init(|| {
            let path = std::env::var_os("LINERATE_MD5SUM")
                .map_or_else(|| PathBuf::from("/usr/bin/md5sum"), PathBuf::from);
            let version = Command::new(&path).arg("--version").output().ok()?;
            let first_line = version.stdout.split(|&b| b == b'\n').next()?.to_vec();
            if first_line == b"md5sum (GNU coreutils) 9.1" {
                Some(path)
            } else {
                eprintln!(
                    "note: no GNU md5sum 9.1 at {}; differential checks skipped",
                    path.display()
                );
                None
            }
        })
        .as_deref()
}

/// A scratch directory.
pub fn scratch() -> tempfile::TempDir {
    tempfile::tempdir().expect("temporary directory")
}

/// Creates `name` (any bytes but `/` and NUL) in `dir` with `contents`.
pub fn write(dir: &Path, name: &[u8], contents: &[u8]) -> PathBuf {
    let path = dir.join(OsString::from_vec(name.to_vec()));
    fs::write(&path, contents).expect("write fixture");
    path
}

/// File names that stress escaping and quoting, each holding its own name.
pub const AWKWARD_NAMES: &[&[u8]] = &[
    b"with space",
    b"back\\slash",
    b"new\nline",
    b"carriage\rreturn",
    b"all\\three\n\r",
    b"*star",
    b" leading space",
    b"trailing space ",
    b"it's",
    b"co:lon",
    b"tab\there",
    b"caf\xc3\xa9",
    b"not utf-8 \xff\xfe",
    b"paren)s(",
    b"MD5 (fake) = x",
    b"#hash",
];

/// A directory with `a` (`abc`), `empty`, a subdirectory `dir` and every
/// name of [`AWKWARD_NAMES`].
pub fn awkward_tree() -> tempfile::TempDir {
    let dir = scratch();
    write(dir.path(), b"a", b"abc");
    write(dir.path(), b"empty", b"");
    fs::create_dir(dir.path().join("dir")).expect("mkdir");
    for name in AWKWARD_NAMES {
        write(dir.path(), name, name);
    }
    dir
}

/// Lower-case hex of an MD5 digest.
pub fn hex(digest: [u8; 16]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// A small deterministic generator (xorshift64*), so randomised tests need
/// no extra dependency and replay exactly.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
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
}

/// The reference implementation of `docs/md5p.md`, verbatim, then one hex
/// digest per file named on the command line (after K).
const PYTHON_MD5P: &str = r#"
import hashlib, sys

def md5p(data: bytes, k: int) -> bytes:
    chains = [hashlib.md5() for _ in range(k)]
    for i in range(0, len(data), 64):
        chains[(i // 64) % k].update(data[i:i + 64])
    return hashlib.md5(b"".join(c.digest() for c in chains)).digest()

k = int(sys.argv[1])
for path in sys.argv[2:]:
    with open(path, "rb") as f:
        print(md5p(f.read(), k).hex())
"#;

/// MD5-P/K of each file by the spec's Python reference (`python3 -c`), or
/// `None` (with a note) where there is no python3.
pub fn python_md5p(k: usize, files: &[PathBuf]) -> Option<Vec<String>> {
    let output = Command::new("python3")
        .arg("-c")
        .arg(PYTHON_MD5P)
        .arg(k.to_string())
        .args(files)
        .output();
    match output {
        Ok(output) if output.status.success() => Some(
            String::from_utf8(output.stdout)
                .expect("hex digests")
                .lines()
                .map(str::to_owned)
                .collect(),
        ),
        Ok(output) => panic!(
            "the Python reference failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ),
        Err(e) => {
            eprintln!("note: no python3 ({e}); the Python reference checks are skipped");
            None
        }
    }
}

/// `len` bytes from the generator.
pub fn random_bytes(rng: &mut Rng, len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        out.extend_from_slice(&rng.next_u64().to_le_bytes());
    }
    out.truncate(len);
    out
}

/// `linerate ARGS` (any subcommand) in `dir`, with `stdin` as input and the
/// environment of [`Run`] plus `env`.
pub fn linerate_in(dir: &Path, args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Outcome {
    let mut command = Command::new(LINERATE);
    command
        .args(args)
        .current_dir(dir)
        .env_remove("POSIXLY_CORRECT")
        .env_remove("LINERATE_LANES_BACKEND")
        .env_remove("LINERATE_MD5_BACKEND")
        .env("LC_ALL", "C.UTF-8")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (key, value) in env {
        command.env(key, value);
    }
    let mut child = command.spawn().expect("spawn linerate");
    let mut pipe = child.stdin.take().expect("stdin");
    let input = stdin.to_vec();
    let feeder = std::thread::spawn(move || pipe.write_all(&input).ok());
    let output = child.wait_with_output().expect("wait");
    feeder.join().ok();
    Outcome {
        status: output.status.code(),
        stdout: output.stdout,
        stderr: output.stderr,
    }
}
