//! Shared by the `sum_*` integration tests: scratch directories full of
//! awkward files, and running `linerate sum` next to GNU md5sum to compare
//! them byte for byte.
//!
//! The oracle is `md5sum` from `$LINERATE_MD5SUM` or `/usr/bin/md5sum`, used
//! only if it is GNU coreutils 9.1: other versions quote and escape
//! differently. Without it the differential halves of the tests are skipped
//! (with a note on stderr); the assertions on known output still run.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::{Input, LINERATE, Outcome, Rng, Run, peer_missing, scratch, write};

/// The digest of `abc`, the contents of the fixture file `a`.
pub const ABC_HEX: &str = "900150983cd24fb0d6963f7d28e17f72";
/// The digest of nothing.
pub const EMPTY_HEX: &str = "d41d8cd98f00b204e9800998ecf8427e";

/// `linerate sum`'s runs, beside GNU md5sum's.
impl Run<'_> {
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
                peer_missing(&format!(
                    "no GNU md5sum 9.1 at {}: differential checks skipped",
                    path.display()
                ));
                None
            }
        })
        .as_deref()
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
            peer_missing(&format!(
                "no python3 ({e}): the Python reference checks are skipped"
            ));
            None
        }
    }
}

/// `len` bytes from the generator.
pub fn random_bytes(rng: &mut Rng, len: usize) -> Vec<u8> {
    rng.bytes(len)
}

/// `linerate ARGS` (any subcommand) in `dir`, with `stdin` as input and
/// `env` added to [`Run`]'s.
pub fn linerate_in(dir: &Path, args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Outcome {
    let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
    let mut run = Run::new(dir, &args).stdin(Input::Bytes(stdin));
    for &(key, value) in env {
        run = run.env(key, value);
    }
    run.run(Path::new(LINERATE), &[])
}
