//! Shared by the `mac_*` integration tests: running `linerate mac`, random
//! data, and the oracles: Python's `hmac`, `openssl mac`, and Nettle's UMAC
//! through the library's harness (`crates/linerate/tests/support/
//! umac_nettle.c`, compiled here with `cc ... -lnettle`). An oracle that is
//! missing is skipped with a note on stderr; the known-answer tests still
//! run.

#![allow(dead_code)] // Each test crate uses its own subset.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

pub const LINERATE: &str = env!("CARGO_BIN_EXE_linerate");

/// RFC 4418's test key and nonce.
pub const RFC_KEY: &[u8; 16] = b"abcdefghijklmnop";
pub const RFC_NONCE: &[u8] = b"bcdefghi";

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

/// Anything that can be an argument: `&str`, `&[u8]`, paths.
pub fn arg(a: impl AsRef<[u8]>) -> OsString {
    OsString::from_vec(a.as_ref().to_vec())
}

/// Runs `linerate mac ARGS` in `dir` with `stdin` (empty if `None`), in the
/// C locale, so that messages and quoting do not depend on the caller's.
pub fn mac_in(dir: &Path, args: &[OsString], stdin: Option<&[u8]>) -> Outcome {
    let mut child = Command::new(LINERATE)
        .arg("mac")
        .args(args)
        .current_dir(dir)
        .env("LC_ALL", "C")
        .env_remove("POSIXLY_CORRECT")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run linerate");
    let mut input = child.stdin.take().expect("stdin");
    let data = stdin.unwrap_or_default().to_vec();
    let writer = std::thread::spawn(move || {
        // The command may not read it all (errors): a broken pipe is fine.
        input.write_all(&data).ok();
    });
    let out = child.wait_with_output().expect("wait for linerate");
    writer.join().expect("stdin writer");
    Outcome {
        status: out.status.code(),
        stdout: out.stdout,
        stderr: out.stderr,
    }
}

/// [`mac_in`] with string arguments.
pub fn mac(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> Outcome {
    let args: Vec<OsString> = args.iter().map(arg).collect();
    mac_in(dir, &args, stdin)
}

/// A scratch directory, removed when dropped.
pub fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("linerate-mac-")
        .tempdir()
        .expect("scratch directory")
}

/// Writes `data` to `dir/name` and returns the path.
pub fn write(dir: &Path, name: impl AsRef<Path>, data: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, data).expect("write a file");
    path
}

/// A small deterministic generator (xorshift64*): random-looking files,
/// keys and nonces, the same on every run.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }
}

/// Lower-case hex.
pub fn hex(bytes: &[u8]) -> String {
    hex::encode(bytes)
}

/// Python's `hmac` over files: for each `(digest, key, path)` (`digest`
/// being `md5` or `sha1`), the full tag in hex. `None` without `python3`.
pub fn python_hmac(requests: &[(&str, &[u8], &Path)]) -> Option<Vec<String>> {
    const SCRIPT: &str = "\
import hmac, sys
for line in sys.stdin:
    digest, key, path = line.rstrip('\\n').split(' ', 2)
    with open(path, 'rb') as f:
        print(hmac.new(bytes.fromhex(key), f.read(), digest).hexdigest())
";
    let mut input = String::new();
    for (digest, key, path) in requests {
        let path = path.to_str().expect("scratch paths are UTF-8");
        input.push_str(&format!("{digest} {} {path}\n", hex(key)));
    }
    let out = pipe_through(
        Command::new("python3").args(["-c", SCRIPT]),
        input.as_bytes(),
    );
    let Some(out) = out else {
        eprintln!("note: no python3; the Python hmac comparisons are skipped");
        return None;
    };
    let lines: Vec<String> = String::from_utf8(out)
        .expect("hex output")
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(
        lines.len(),
        requests.len(),
        "python3 answered every request"
    );
    Some(lines)
}

/// `openssl mac` (OpenSSL 3) for HMAC with `digest` (`MD5`, `SHA1`): the
/// full tag in lower-case hex, `None` without a working `openssl`.
pub fn openssl_hmac(digest: &str, key: &[u8], path: &Path) -> Option<String> {
    let out = Command::new("openssl")
        .args(["mac", "-digest", digest, "-macopt"])
        .arg(format!("hexkey:{}", hex(key)))
        .arg("-in")
        .arg(path)
        .arg("HMAC")
        .stderr(Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success());
    match out {
        Some(o) => Some(String::from_utf8_lossy(&o.stdout).trim().to_lowercase()),
        None => {
            eprintln!("note: no `openssl mac` (OpenSSL 3); that comparison is skipped");
            None
        }
    }
}

/// One UMAC for Nettle: tag bytes (4, 8, 12, 16), key, nonce, message.
pub type UmacRequest<'a> = (usize, &'a [u8; 16], &'a [u8], &'a [u8]);

/// Nettle's UMAC for each request, in hex; `None` where the harness cannot
/// be built.
pub fn nettle_umac(requests: &[UmacRequest<'_>]) -> Option<Vec<String>> {
    let harness = nettle_harness()?;
    let mut input = String::new();
    for (bytes, key, nonce, msg) in requests {
        input.push_str(&format!(
            "{bytes} {} {} hex:{}\n",
            hex(*key),
            hex(nonce),
            hex(msg)
        ));
    }
    let out = pipe_through(Command::new(harness).arg("serve"), input.as_bytes())
        .expect("the Nettle harness runs");
    let lines: Vec<String> = String::from_utf8(out)
        .expect("hex output")
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(lines.len(), requests.len(), "Nettle answered every request");
    Some(lines)
}

/// The library's Nettle harness, compiled once per test process.
fn nettle_harness() -> Option<PathBuf> {
    static BIN: OnceLock<Option<PathBuf>> = OnceLock::new();
    BIN.get_or_init(|| {
        let src = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../linerate/tests/support/umac_nettle.c"
        );
        let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("umac_nettle_cli_{}", std::process::id()));
        let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
        let built = Command::new(&cc)
            .args(["-O1", "-o"])
            .arg(&out)
            .arg(src)
            .arg("-lnettle")
            .stderr(Stdio::null())
            .status();
        match built {
            Ok(status) if status.success() => Some(out),
            _ => {
                eprintln!(
                    "note: cannot build {src} with `{cc} ... -lnettle`; the Nettle comparisons \
                     are skipped"
                );
                None
            }
        }
    })
    .clone()
}

/// Runs `command` with `input` on stdin; its stdout if it succeeded.
fn pipe_through(command: &mut Command, input: &[u8]) -> Option<Vec<u8>> {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input).is_ok());
    let mut out = Vec::new();
    child.stdout.take()?.read_to_end(&mut out).ok()?;
    let wrote = writer.join().ok()?;
    let status = child.wait().ok()?;
    (wrote && status.success()).then_some(out)
}
