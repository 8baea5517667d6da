//! Shared by the `mac_*` integration tests: running `linerate mac`, random
//! data, and the oracles: Python's `hmac`, `openssl mac`, and Nettle's UMAC
//! through the library's harness (`crates/linerate/tests/it/data/
//! umac_nettle.c`, compiled here with `cc ... -lnettle`). An oracle that is
//! missing is skipped with a note on stderr ([`peer_missing`]); the
//! known-answer tests still run.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use super::{Input, Outcome, Run, arg, hex, peer_missing};

/// RFC 4418's test key and nonce.
pub const RFC_KEY: &[u8; 16] = b"abcdefghijklmnop";
pub const RFC_NONCE: &[u8] = b"bcdefghi";

/// Runs `linerate mac ARGS` in `dir` with `stdin` (empty if `None`), in the
/// C locale, so that messages and quoting do not depend on the caller's.
pub fn mac_in(dir: &Path, args: &[OsString], stdin: Option<&[u8]>) -> Outcome {
    Run::of(dir, args)
        .stdin(Input::Bytes(stdin.unwrap_or_default()))
        .env("LC_ALL", "C")
        .linerate_with(&["mac"])
}

/// [`mac_in`] with string arguments.
pub fn mac(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> Outcome {
    let args: Vec<OsString> = args.iter().map(arg).collect();
    mac_in(dir, &args, stdin)
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
        peer_missing("no python3: the Python hmac comparisons are skipped");
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
            peer_missing("no `openssl mac` (OpenSSL 3): that comparison is skipped");
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
            "/../linerate/tests/it/data/umac_nettle.c"
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
                peer_missing(&format!(
                    "cannot build {src} with `{cc} ... -lnettle`: the Nettle comparisons are \
                     skipped"
                ));
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
