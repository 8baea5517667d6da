//! Shared by `tests/audit.rs`: scratch trees with awkward names, manifests
//! written by GNU md5sum (the independent oracle for MD5) or by `linerate
//! sum -r`, runs of `linerate audit`, and a small JSON parser to read
//! `--json` reports back.

use std::ffi::{OsStr, OsString};
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::{Input, LINERATE, Outcome, Run, peer_missing};

/// Runs `program args` in `cwd` (C.UTF-8 locale, no `POSIXLY_CORRECT`),
/// with `stdin` as standard input.
pub fn run_program(program: &OsStr, cwd: &Path, args: &[&[u8]], stdin: Option<&Path>) -> Outcome {
    let run = Run::new(cwd, args);
    let run = match stdin {
        Some(path) => run.stdin(Input::File(path)),
        None => run,
    };
    run.run(Path::new(program), &[])
}

/// `linerate audit ARGS` in `cwd`.
pub fn audit(cwd: &Path, args: &[&[u8]]) -> Outcome {
    let mut all: Vec<&[u8]> = vec![b"audit"];
    all.extend_from_slice(args);
    let outcome = run_program(OsStr::new(LINERATE), cwd, &all, None);
    assert_ne!(
        outcome.status,
        Some(101),
        "panicked: {}",
        outcome.stderr_text()
    );
    outcome
}

/// `linerate audit ARGS` reading MANIFEST from `stdin`.
pub fn audit_stdin(cwd: &Path, args: &[&[u8]], stdin: &Path) -> Outcome {
    let mut all: Vec<&[u8]> = vec![b"audit"];
    all.extend_from_slice(args);
    run_program(OsStr::new(LINERATE), cwd, &all, Some(stdin))
}

/// `linerate audit ARGS` in `cwd` as a user without privileges, so that
/// permissions are enforced: as ourselves, or, when we are root, as
/// `nobody` through `setpriv` (util-linux), after opening `scratch` (the
/// test's temporary directory) to everyone. `None`, with a note, if root
/// cannot drop its privileges here.
pub fn audit_unprivileged(cwd: &Path, scratch: &Path, args: &[&[u8]]) -> Option<Outcome> {
    if !is_root() {
        return Some(audit(cwd, args));
    }
    let setpriv = Path::new("/usr/bin/setpriv");
    if !setpriv.exists() {
        eprintln!("note: running as root without setpriv; permission checks skipped");
        return None;
    }
    fs::set_permissions(scratch, fs::Permissions::from_mode(0o755)).expect("chmod scratch");
    let mut all: Vec<&[u8]> = vec![
        b"--reuid=65534",
        b"--regid=65534",
        b"--clear-groups",
        LINERATE.as_bytes(),
        b"audit",
    ];
    all.extend_from_slice(args);
    let outcome = run_program(setpriv.as_os_str(), cwd, &all, None);
    if outcome.stderr.starts_with(b"setpriv:") {
        eprintln!(
            "note: setpriv could not run linerate as nobody ({}); permission checks skipped",
            outcome.stderr_text().trim_end()
        );
        return None;
    }
    assert_ne!(
        outcome.status,
        Some(101),
        "panicked: {}",
        outcome.stderr_text()
    );
    Some(outcome)
}

/// GNU md5sum, from `$LINERATE_MD5SUM` or `/usr/bin/md5sum`; `None` (with
/// a note) where there is none, and the test skips its md5sum half.
pub fn md5sum() -> Option<OsString> {
    let path = std::env::var_os("LINERATE_MD5SUM").unwrap_or_else(|| "/usr/bin/md5sum".into());
    if Path::new(&path).exists() {
        Some(path)
    } else {
        peer_missing(&format!(
            "no md5sum at {}: md5sum-made manifests skipped",
            path.to_string_lossy()
        ));
        None
    }
}

/// Whether this process runs as root, which reads files without permission.
fn is_root() -> bool {
    // `id -u` rather than libc: the tests need no unsafe code. If it cannot
    // run, assume root, which only skips the permission checks.
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| o.stdout.trim_ascii() == b"0")
        .unwrap_or(true)
}

/// Writes `contents` to `root/rel`, creating directories on the way.
pub fn put(root: &Path, rel: &[u8], contents: &[u8]) {
    let path = root.join(OsStr::from_bytes(rel));
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).expect("mkdir");
    }
    fs::write(&path, contents).expect("write");
}

/// Every regular file under `root` (no links followed), relative, sorted
/// by bytes.
pub fn files_under(root: &Path) -> Vec<Vec<u8>> {
    fn visit(root: &Path, rel: &Path, out: &mut Vec<Vec<u8>>) {
        let mut entries: Vec<_> = fs::read_dir(root.join(rel))
            .expect("read_dir")
            .map(|e| e.expect("entry"))
            .collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let rel = rel.join(entry.file_name());
            let kind = entry.file_type().expect("file type");
            if kind.is_dir() {
                visit(root, &rel, out);
            } else if kind.is_file() {
                out.push(rel.as_os_str().as_bytes().to_vec());
            }
        }
    }
    let mut out = Vec::new();
    visit(root, Path::new(""), &mut out);
    out.sort();
    out
}

/// `md5sum [extra] ./FILE...` over every file of `tree`, run inside it:
/// the manifest's bytes.
pub fn md5sum_manifest(md5sum: &OsStr, tree: &Path, extra: &[&[u8]]) -> Vec<u8> {
    let names: Vec<Vec<u8>> = files_under(tree)
        .into_iter()
        .map(|rel| [b"./".as_slice(), &rel].concat())
        .collect();
    let mut args: Vec<&[u8]> = extra.to_vec();
    args.extend(names.iter().map(Vec::as_slice));
    let outcome = run_program(md5sum, tree, &args, None);
    assert_eq!(outcome.status, Some(0), "md5sum: {}", outcome.stderr_text());
    outcome.stdout
}

/// `linerate sum -r ARGS .` run inside `tree`: the manifest's bytes.
pub fn linerate_manifest(tree: &Path, args: &[&[u8]]) -> Vec<u8> {
    let mut all: Vec<&[u8]> = vec![b"sum", b"-r"];
    all.extend_from_slice(args);
    all.push(b".");
    let outcome = run_program(OsStr::new(LINERATE), tree, &all, None);
    assert_eq!(outcome.status, Some(0), "sum -r: {}", outcome.stderr_text());
    outcome.stdout
}

/// Copies the tree `from` to `to` (regular files and directories).
pub fn copy_tree(from: &Path, to: &Path) {
    for rel in files_under(from) {
        let rel = OsStr::from_bytes(&rel);
        let contents = fs::read(from.join(rel)).expect("read");
        put(to, rel.as_bytes(), &contents);
    }
}

/// `path` as bytes, for arguments.
pub fn bytes(path: &Path) -> Vec<u8> {
    path.as_os_str().as_bytes().to_vec()
}

/// Joins `root` and `rel` bytes.
pub fn under(root: &Path, rel: &[u8]) -> PathBuf {
    root.join(OsStr::from_bytes(rel))
}

/// A JSON value, as much of JSON as the reports use.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    /// Parses a whole document (surrounding blanks allowed); panics with
    /// the position on anything that is not JSON.
    pub fn parse(text: &str) -> Json {
        let mut parser = Parser {
            s: text.as_bytes(),
            i: 0,
        };
        let value = parser.value();
        parser.blanks();
        assert_eq!(parser.i, parser.s.len(), "trailing text in JSON");
        value
    }

    /// The member `key` of an object; panics if there is none.
    pub fn get(&self, key: &str) -> &Json {
        match self {
            Json::Object(members) => members
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v)
                .unwrap_or_else(|| panic!("no member {key}")),
            other => panic!("not an object: {other:?}"),
        }
    }

    /// The keys of an object, in order.
    pub fn keys(&self) -> Vec<&str> {
        match self {
            Json::Object(members) => members.iter().map(|(k, _)| k.as_str()).collect(),
            other => panic!("not an object: {other:?}"),
        }
    }

    pub fn items(&self) -> &[Json] {
        match self {
            Json::Array(items) => items,
            other => panic!("not an array: {other:?}"),
        }
    }

    pub fn str(&self) -> &str {
        match self {
            Json::String(s) => s,
            other => panic!("not a string: {other:?}"),
        }
    }

    pub fn num(&self) -> f64 {
        match self {
            Json::Number(n) => *n,
            other => panic!("not a number: {other:?}"),
        }
    }

    /// An array of strings.
    pub fn strings(&self) -> Vec<&str> {
        self.items().iter().map(Json::str).collect()
    }
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn blanks(&mut self) {
        while self.s.get(self.i).is_some_and(|b| b" \t\r\n".contains(b)) {
            self.i += 1;
        }
    }

    fn eat(&mut self, b: u8) {
        self.blanks();
        assert_eq!(
            self.s.get(self.i),
            Some(&b),
            "expected {:?} at {}",
            b as char,
            self.i
        );
        self.i += 1;
    }

    fn peek(&mut self) -> u8 {
        self.blanks();
        *self
            .s
            .get(self.i)
            .unwrap_or_else(|| panic!("JSON ends early"))
    }

    fn value(&mut self) -> Json {
        match self.peek() {
            b'{' => {
                let mut members = Vec::new();
                self.sequence(b'{', b'}', |p| {
                    let key = p.string();
                    p.eat(b':');
                    members.push((key, p.value()));
                });
                Json::Object(members)
            }
            b'[' => {
                let mut items = Vec::new();
                self.sequence(b'[', b']', |p| items.push(p.value()));
                Json::Array(items)
            }
            b'"' => Json::String(self.string()),
            b't' => self.word("true", Json::Bool(true)),
            b'f' => self.word("false", Json::Bool(false)),
            b'n' => self.word("null", Json::Null),
            _ => {
                let start = self.i;
                while self
                    .s
                    .get(self.i)
                    .is_some_and(|b| b"+-.eE0123456789".contains(b))
                {
                    self.i += 1;
                }
                let text = std::str::from_utf8(&self.s[start..self.i]).expect("number");
                Json::Number(
                    text.parse()
                        .unwrap_or_else(|_| panic!("bad number at {start}")),
                )
            }
        }
    }

    /// `open item, item, ... close`, each item read by `item`.
    fn sequence(&mut self, open: u8, close: u8, mut item: impl FnMut(&mut Self)) {
        self.eat(open);
        if self.peek() != close {
            loop {
                item(self);
                if self.peek() != b',' {
                    break;
                }
                self.eat(b',');
            }
        }
        self.eat(close);
    }

    fn word(&mut self, word: &str, value: Json) -> Json {
        assert!(
            self.s[self.i..].starts_with(word.as_bytes()),
            "bad word at {}",
            self.i
        );
        self.i += word.len();
        value
    }

    fn string(&mut self) -> String {
        self.eat(b'"');
        let mut out = Vec::new();
        loop {
            let b = *self.s.get(self.i).expect("unterminated string");
            self.i += 1;
            match b {
                b'"' => break,
                b'\\' => {
                    let e = self.s[self.i];
                    self.i += 1;
                    match e {
                        b'"' | b'\\' | b'/' => out.push(e),
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'u' => {
                            let hex = std::str::from_utf8(&self.s[self.i..self.i + 4]).unwrap();
                            self.i += 4;
                            let c = char::from_u32(u32::from_str_radix(hex, 16).unwrap())
                                .expect("no surrogates in these reports");
                            out.extend_from_slice(c.to_string().as_bytes());
                        }
                        _ => panic!("bad escape at {}", self.i),
                    }
                }
                b if b < 0x20 => panic!("raw control character in a string at {}", self.i),
                b => out.push(b),
            }
        }
        String::from_utf8(out).expect("JSON strings are UTF-8")
    }
}
