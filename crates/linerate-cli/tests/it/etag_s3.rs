//! `linerate etag --checksum` against a real S3-compatible server and the
//! AWS Common Runtime's checksums.
//!
//! The server is the Versity S3 Gateway (versitygw, Apache-2.0, built from
//! its Go module by scripts/setup.sh into `.peers/bin`; MinIO's server is
//! AGPL and is not used), started here on a free loopback port over a
//! temporary directory. Files go up with boto3 (`scripts/s3_peer.py`, in
//! `.venv-peers`): one PUT and multipart in several part sizes, with every
//! checksum algorithm and type S3 offers; what the server then reports
//! through HeadObject and GetObjectAttributes must be what linerate prints.
//! `awscrt` (the AWS SDKs' own CRCs) checks the CRCs on every length of
//! 0-4096 bytes and across part boundaries.

use std::collections::BTreeMap;
use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{
    Json, LINERATE, MIB, Rng, as_nobody, dies_with_test, peer_missing, peers_python,
    plant_as_nobody, repository, scratch,
};

const ACCESS: &str = "linerate-test";
const SECRET: &str = "linerate-test-secret";

/// A versitygw serving a temporary directory on loopback; stopped on drop.
struct Server {
    child: Child,
    endpoint: String,
    _data: tempfile::TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }
}

fn versitygw() -> Option<PathBuf> {
    let path = repository().join(".peers/bin/versitygw");
    if path.is_file() {
        Some(path)
    } else {
        peer_missing("versitygw not built into .peers/bin: run scripts/setup.sh");
        None
    }
}

fn start_server(binary: &Path) -> Server {
    let data = tempfile::tempdir().expect("server dir");
    // A port the kernel says is free; versitygw binds it right after.
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let child = dies_with_test(&mut Command::new(binary))
        .env("ROOT_ACCESS_KEY", ACCESS)
        .env("ROOT_SECRET_KEY", SECRET)
        .args(["--port", &format!("127.0.0.1:{port}"), "posix"])
        .arg(data.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start versitygw");
    let server = Server {
        child,
        endpoint: format!("http://127.0.0.1:{port}"),
        _data: data,
    };
    let started = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "versitygw did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    server
}

/// One upload: a file, how it goes up, and the linerate options that
/// describe the same upload.
struct Upload {
    key: String,
    file: &'static str,
    /// `""`: no checksum (the ETag alone).
    algorithm: &'static str,
    kind: Option<&'static str>,
    part_size: Option<u64>,
}

impl Upload {
    fn spec(&self, dir: &Path) -> String {
        let null = |v: Option<String>| v.unwrap_or_else(|| "null".into());
        let algorithm = match self.algorithm {
            "" => "null".to_string(),
            a => format!("\"{a}\""),
        };
        format!(
            r#"{{"key": "{}", "file": "{}", "algorithm": {algorithm}, "type": {}, "part_size": {}}}"#,
            self.key,
            dir.join(self.file).display(),
            null(self.kind.map(|k| format!("\"{k}\""))),
            null(self.part_size.map(|p| p.to_string())),
        )
    }

    fn linerate_args(&self) -> Vec<String> {
        let mut args = vec![format!("--checksum=md5,{}", self.algorithm.to_lowercase())];
        match self.part_size {
            None => args.push("--single".into()),
            Some(size) => args.push(format!("--part-size={size}")),
        }
        if let Some(kind) = self.kind {
            args.push(format!("--checksum-type={kind}"));
        }
        args.push(self.file.into());
        args
    }
}

/// linerate's `TAG (NAME) = VALUE` lines as tag -> value.
fn tagged_values(stdout: &str) -> BTreeMap<String, String> {
    stdout
        .lines()
        .filter_map(|line| {
            let (tag, rest) = line.split_once(" (")?;
            let (_, value) = rest.rsplit_once(") = ")?;
            Some((tag.to_string(), value.to_string()))
        })
        .collect()
}

/// Uploads `uploads` (files under `dir`) through `scripts/s3_peer.py` and
/// returns what the server reports for each key; with `listings`, the
/// bucket's list-objects-v2 and head-object JSON are written there.
fn upload_all(
    server: &Server,
    python: &Path,
    dir: &Path,
    uploads: &[Upload],
    listings: Option<&Path>,
) -> Json {
    let specs: Vec<String> = uploads.iter().map(|u| u.spec(dir)).collect();
    let mut peer = dies_with_test(&mut Command::new(python))
        .arg(repository().join("scripts/s3_peer.py"))
        .args([&server.endpoint, "linerate-test"])
        .args(listings)
        .env("LINERATE_S3_ACCESS_KEY", ACCESS)
        .env("LINERATE_S3_SECRET_KEY", SECRET)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run s3_peer.py");
    peer.stdin
        .take()
        .expect("stdin")
        .write_all(format!("[{}]", specs.join(",\n")).as_bytes())
        .expect("write the uploads");
    let out = peer.wait_with_output().expect("s3_peer.py");
    assert!(out.status.success(), "s3_peer.py failed");
    Json::parse(&String::from_utf8_lossy(&out.stdout))
}

#[test]
fn every_checksum_is_what_a_real_s3_server_reports() {
    let (Some(server_binary), Some(python)) = (versitygw(), peers_python("boto3, awscrt")) else {
        return;
    };
    let server = start_server(&server_binary);
    let dir = scratch();
    let mut rng = Rng::new(0x53_0001);
    let files: [(&str, u64); 4] = [
        ("empty", 0),
        ("small", 1000),
        ("mid", 6 * MIB + 123),
        ("big", 11 * MIB + 7),
    ];
    for (name, len) in files {
        std::fs::write(dir.path().join(name), rng.bytes(len as usize)).expect("write");
    }
    let algorithms = ["CRC64NVME", "CRC32C", "CRC32", "SHA1", "SHA256"];
    let mut uploads = Vec::new();
    for (file, _) in files {
        for algorithm in algorithms {
            uploads.push(Upload {
                key: format!("{file}-{algorithm}-put"),
                file,
                algorithm,
                kind: None,
                part_size: None,
            });
        }
    }
    // Multipart: every type each algorithm has, in parts of 5 MiB (S3's
    // least) and 8 MiB (the AWS CLI's), and an empty file as one part.
    let multipart = [
        ("CRC64NVME", "FULL_OBJECT"),
        ("CRC32C", "FULL_OBJECT"),
        ("CRC32C", "COMPOSITE"),
        ("CRC32", "FULL_OBJECT"),
        ("CRC32", "COMPOSITE"),
        ("SHA1", "COMPOSITE"),
        ("SHA256", "COMPOSITE"),
    ];
    for (file, sizes) in [("mid", &[5][..]), ("big", &[5, 8]), ("empty", &[5])] {
        for &mib in sizes {
            for (algorithm, kind) in multipart {
                uploads.push(Upload {
                    key: format!("{file}-{algorithm}-{kind}-{mib}"),
                    file,
                    algorithm,
                    kind: Some(kind),
                    part_size: Some(mib * MIB),
                });
            }
        }
    }
    let reported = upload_all(&server, &python, dir.path(), &uploads, None);

    for upload in &uploads {
        let object = reported.get(&upload.key);
        let ours = Command::new(LINERATE)
            .arg("etag")
            .args(upload.linerate_args())
            .current_dir(dir.path())
            .output()
            .expect("run linerate");
        assert!(ours.status.success(), "{}: {ours:?}", upload.key);
        let ours = tagged_values(&String::from_utf8_lossy(&ours.stdout));
        let field = format!("Checksum{}", upload.algorithm);
        for (what, fields) in [
            ("head", object.get("head")),
            ("attributes", object.get("attributes")),
        ] {
            assert_eq!(
                Some(fields.get(&field).str()),
                ours.get(upload.algorithm).map(String::as_str),
                "{} {what} {field}",
                upload.key
            );
            let kind = if upload.part_size.is_some() {
                upload.kind.unwrap_or("FULL_OBJECT")
            } else {
                "FULL_OBJECT"
            };
            assert_eq!(
                fields.get("ChecksumType").str(),
                kind,
                "{} {what}",
                upload.key
            );
        }
        // The server's composite value leads --match to the part size.
        if let (Some(size), Some("COMPOSITE")) = (upload.part_size, upload.kind) {
            let value = object.get("head").get(&field).str();
            let found = Command::new(LINERATE)
                .args(["etag", "--match", value, "--checksum", upload.algorithm])
                .arg(upload.file)
                .current_dir(dir.path())
                .output()
                .expect("run linerate");
            let want = if upload.file == "empty" {
                format!("{}: one empty part (any part size)\n", upload.file)
            } else {
                format!(
                    "{}: part size {size} bytes ({} MiB)\n",
                    upload.file,
                    size / MIB
                )
            };
            assert_eq!(
                String::from_utf8_lossy(&found.stdout),
                want,
                "{}",
                upload.key
            );
        }
        let etag = object.get("head").get("ETag").str().trim_matches('"');
        assert_eq!(
            Some(etag),
            ours.get("ETag").map(String::as_str),
            "{} ETag",
            upload.key
        );
    }
}

#[test]
fn crcs_match_awscrt_on_every_short_length_and_across_parts() {
    let Some(python) = peers_python("awscrt") else {
        return;
    };
    let dir = scratch();
    let mut rng = Rng::new(0x53_0002);
    let data = rng.bytes(4096 + 3000);
    let mut names = Vec::new();
    for len in 0..=4096 {
        let name = format!("l{len}");
        std::fs::write(dir.path().join(&name), &data[..len]).expect("write");
        names.push(name);
    }
    // Whole files of every length, then parts of 1000 bytes across their
    // boundaries (full-object: combined CRCs; composite: CRC of the CRCs).
    let script = r#"
import base64, sys
from awscrt import checksums as c
def b64(v, n): return base64.b64encode(v.to_bytes(n, "big")).decode()
algs = [("CRC64NVME", c.crc64nvme, 8), ("CRC32C", c.crc32c, 4), ("CRC32", c.crc32, 4)]
mode, size = sys.argv[1], int(sys.argv[2])
for path in sys.argv[3:]:
    data = open(path, "rb").read()
    for name, f, n in algs:
        if mode == "composite" and name == "CRC64NVME":
            continue  # full-object only
        if mode in ("whole", "full"):
            print(name, b64(f(data), n)); continue
        parts = [data[i:i + size] for i in range(0, len(data), size)] or [b""]
        joined = b"".join(f(p).to_bytes(n, "big") for p in parts)
        print(name, b64(f(joined), n) + "-%d" % len(parts))
"#;
    let cases: [(&str, &[&str], usize); 3] = [
        ("whole", &["--single"], 0),
        (
            "full",
            &["--part-size=1000", "--checksum-type=full-object"],
            1000,
        ),
        (
            "composite",
            &["--part-size=1000", "--checksum-type=composite"],
            1000,
        ),
    ];
    for (mode, options, size) in cases {
        let algorithms = if mode == "composite" {
            "crc32c,crc32"
        } else {
            "crc64nvme,crc32c,crc32"
        };
        let want = Command::new(&python)
            .args(["-c", script, mode, &size.to_string()])
            .args(&names)
            .current_dir(dir.path())
            .output()
            .expect("awscrt");
        assert!(want.status.success(), "awscrt script failed");
        let want: Vec<String> = String::from_utf8_lossy(&want.stdout)
            .lines()
            .map(str::to_owned)
            .collect();
        let ours = Command::new(LINERATE)
            .arg("etag")
            .arg(format!("--checksum={algorithms}"))
            .args(options)
            .args(&names)
            .current_dir(dir.path())
            .output()
            .expect("linerate");
        assert!(ours.status.success(), "{mode}");
        let ours: Vec<String> = String::from_utf8_lossy(&ours.stdout)
            .lines()
            .map(|line| {
                let (tag, rest) = line.split_once(" (").expect("tagged");
                format!("{tag} {}", rest.rsplit_once(") = ").expect("value").1)
            })
            .collect();
        assert_eq!(ours.len(), want.len(), "{mode}");
        for (i, (a, b)) in ours.iter().zip(&want).enumerate() {
            assert_eq!(a, b, "{mode}: line {i}");
        }
    }
}

#[test]
fn bad_checksum_options_are_one_line_usage_errors() {
    let dir = scratch();
    std::fs::write(dir.path().join("f"), b"data").expect("write");
    for (args, says) in [
        (
            &["--checksum=crc64", "f"][..],
            "invalid checksum algorithm 'crc64'",
        ),
        (
            &["--checksum=sha256", "--checksum-type=full-object", "f"],
            "full-object sha256",
        ),
        (
            &["--checksum=crc64nvme", "--checksum-type=composite", "f"],
            "composite crc64nvme",
        ),
        (
            &["--checksum=crc32", "--checksum-type=whole", "f"],
            "invalid checksum type 'whole'",
        ),
        (&["--checksum-type=composite", "f"], "only with --checksum"),
        (
            &[
                "--checksum=crc32",
                "--match=d41d8cd98f00b204e9800998ecf8427e",
                "f",
            ],
            "24 bytes, not 4",
        ),
        (
            &["--checksum=crc32,sha1", "--match=AAAAAA==-2", "f"],
            "one --checksum",
        ),
        (
            &["--checksum=crc32", "--match=AAAA-2", "f"],
            "invalid CRC32 value 'AAAA-2'",
        ),
        (&["--match=AAAAAA==-2", "f"], "invalid ETag"),
        (
            &["--checksum=crc32", "--match=AAAAAA==-2", "-c", "f"],
            "--match and --check",
        ),
    ] {
        let out = Command::new(LINERATE)
            .arg("etag")
            .args(args)
            .current_dir(dir.path())
            .output()
            .expect("run linerate");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let first = stderr.lines().next().unwrap_or_default();
        assert!(
            first.starts_with("linerate: ") && first.contains(says),
            "{args:?}: {stderr}"
        );
    }
    // Repeats are dropped, a list may be split over options, and a file
    // that cannot be read is said with the others still done (exit 1).
    let out = Command::new(LINERATE)
        .args([
            "etag",
            "--checksum=crc32,sha1",
            "--checksum",
            "CRC32",
            "nothere",
            "f",
        ])
        .current_dir(dir.path())
        .output()
        .expect("run linerate");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        // zlib.crc32 and hashlib.sha1 of b"data", in base64.
        "CRC32 (f) = rfPzYw==\nSHA1 (f) = oXyaqmHoChv3HQ2FCvTluqmAC70=\n"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothere"));
}

/// An object to upload: key (and file), bytes, checksum, type, part size.
type Listed = (
    &'static str,
    u64,
    &'static str,
    Option<&'static str>,
    Option<u64>,
);

/// `linerate etag ARGS` run in `cwd`: (status, stdout, stderr).
fn verify(cwd: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(LINERATE)
        .arg("etag")
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run linerate");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn verify_a_tree_against_the_servers_own_listings() {
    let (Some(server_binary), Some(python)) = (versitygw(), peers_python("boto3")) else {
        return;
    };
    let server = start_server(&server_binary);
    let dir = scratch();
    let tree = dir.path().join("tree");
    std::fs::create_dir_all(tree.join("sub")).expect("mkdir");
    let mut rng = Rng::new(0x53_0003);
    // (key, bytes, checksum, type, part size): a PUT with a CRC, multipart
    // uploads with a composite CRC, a full-object CRC, the ETag alone in
    // the AWS CLI's 8 MiB and in 6 MiB (found by the search), a PUT with
    // SHA-256, and one in parts of 5 MiB + 4 KiB that no search tries.
    let objects: [Listed; 7] = [
        ("a", 1000, "CRC64NVME", None, None),
        (
            "sub/b",
            6 * MIB + 5,
            "CRC32",
            Some("COMPOSITE"),
            Some(5 * MIB),
        ),
        (
            "sub/c",
            11 * MIB,
            "CRC64NVME",
            Some("FULL_OBJECT"),
            Some(8 * MIB),
        ),
        ("d", 2 * MIB, "SHA256", None, None),
        ("e", 9 * MIB, "", None, Some(8 * MIB)),
        ("f", 13 * MIB, "", None, Some(6 * MIB)),
        ("g", 11 * MIB, "", None, Some(5 * MIB + 4096)),
    ];
    let mut uploads = Vec::new();
    for (key, len, algorithm, kind, part_size) in objects {
        std::fs::write(tree.join(key), rng.bytes(len as usize)).expect("write");
        uploads.push(Upload {
            key: key.into(),
            file: key,
            algorithm,
            kind,
            part_size,
        });
    }
    let listings = dir.path().join("listings");
    std::fs::create_dir_all(&listings).expect("mkdir");
    let file_root = tree.clone();
    let uploads: Vec<Upload> = uploads;
    upload_all(&server, &python, &file_root, &uploads, Some(&listings));
    let list = listings.join("list.json");
    let heads = listings.join("heads.json");
    let (list, heads) = (list.to_str().unwrap(), heads.to_str().unwrap());

    // Untouched: every object matched by its ETag and checksums. The server,
    // as S3 does since 2025, gives every object a full-object CRC-64/NVME
    // when the upload names no checksum: g, whose part size no search
    // finds, is matched by that.
    let (status, stdout, _) = verify(&tree, &["-v", &format!("--verify={heads}")]);
    assert_eq!(status, Some(0), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 8, "{stdout}");
    let expect: [(&str, &[&str]); 7] = [
        ("a", &["ETag", "CRC64NVME"]),
        ("d", &["ETag", "SHA256"]),
        ("e", &["CRC64NVME", "(part size 8 MiB)"]),
        ("f", &["CRC64NVME", "(part size 6 MiB)"]),
        ("g", &["CRC64NVME", "part size not found"]),
        ("sub/b", &["(part size 5 MiB)", "CRC32 (part size 5 MiB)"]),
        ("sub/c", &["CRC64NVME", "(part size 8 MiB)"]),
    ];
    for (line, (path, words)) in lines.iter().zip(expect) {
        assert!(line.starts_with(&format!("matched: {path} (")), "{stdout}");
        for word in words {
            assert!(line.contains(word), "{path}: {word}: {stdout}");
        }
    }
    assert_eq!(
        lines[7],
        "linerate etag --verify: 7 matched, 0 changed, 0 missing, 0 extra, 0 cannot tell, 0 errors"
    );
    // list-objects-v2 has sizes and ETags only: g cannot be told.
    let (status, stdout, _) = verify(&tree, &[&format!("--verify={list}")]);
    assert_eq!(status, Some(1), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(
        lines[0].starts_with("cannot tell: g (no part size tried gives its ETag"),
        "{stdout}"
    );
    assert_eq!(
        lines[1],
        "linerate etag --verify: 6 matched, 0 changed, 0 missing, 0 extra, 1 cannot tell, 0 errors"
    );

    // A byte changed in sub/c (same size), d gone, a file nobody listed,
    // g (which nothing could tell) gone too; from the parent directory.
    let mut c = std::fs::read(tree.join("sub/c")).expect("read");
    c[7 * MIB as usize] ^= 1;
    std::fs::write(tree.join("sub/c"), c).expect("write");
    std::fs::remove_file(tree.join("d")).expect("rm");
    std::fs::remove_file(tree.join("g")).expect("rm");
    std::fs::write(tree.join("sub/new.txt"), b"new").expect("write");
    let (status, stdout, _) = verify(dir.path(), &[&format!("--verify={heads}"), "tree"]);
    assert_eq!(status, Some(1), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "missing: tree/d", "{stdout}");
    assert_eq!(lines[1], "missing: tree/g", "{stdout}");
    assert!(
        lines[2].starts_with("changed: tree/sub/c (CRC64NVME "),
        "{stdout}"
    );
    assert_eq!(lines[3], "extra: tree/sub/new.txt", "{stdout}");
    assert_eq!(
        lines[4],
        "linerate etag --verify: 4 matched, 1 changed, 2 missing, 1 extra, 0 cannot tell, 0 errors"
    );
}

#[test]
fn a_listing_s_bad_objects_are_named_and_the_rest_verified() {
    let dir = scratch();
    std::fs::write(dir.path().join("ten"), b"0123456789").expect("write");
    std::fs::write(dir.path().join("ok"), b"data").expect("write");
    // zlib.crc32(b"data") in base64, and the MD5 of b"data".
    let listing = r#"[
        {"Key": "ok", "Size": 4, "ETag": "\"8d777f385d3dfec8815d20f7496026dc\"", "ChecksumCRC32": "rfPzYw=="},
        {"Size": 3},
        {"Key": "bad64", "ChecksumCRC32": "not base64!"},
        {"Key": "alg", "ChecksumXXHASH64": "AAAAAAAAAAA="},
        {"Key": "ten", "ETag": "\"d41d8cd98f00b204e9800998ecf8427e-20\""},
        {"Key": "ten2", "Size": 10},
        {"Key": "../ok", "Size": 4}
    ]"#;
    std::fs::write(dir.path().join("listing.json"), listing).expect("write");
    let (status, stdout, stderr) = verify(dir.path(), &["--verify=listing.json", "--prefix="]);
    assert_eq!(status, Some(1));
    let errors: Vec<&str> = stderr.lines().collect();
    assert_eq!(errors.len(), 3, "{stderr}");
    assert!(
        errors[0].starts_with("linerate: listing.json: object 2: no 'Key'"),
        "{stderr}"
    );
    assert!(
        errors[1].contains("object 3 (bad64)") && errors[1].contains("not base64"),
        "{stderr}"
    );
    assert!(
        errors[2].contains("object 4 (alg)") && errors[2].contains("ChecksumXXHASH64"),
        "{stderr}"
    );
    let lines: Vec<&str> = stdout.lines().collect();
    // The listing itself is never extra.
    assert_eq!(
        lines,
        [
            "outside DIR: ../ok",
            "changed: ten (20 parts cannot split 10 bytes)",
            "missing: ten2",
            "linerate etag --verify: 1 matched, 1 changed, 1 missing, 0 extra, 0 cannot tell, 1 error",
        ],
        "{stdout}"
    );
    // Not a listing at all: one line, exit 1; usage errors exit 2.
    std::fs::write(dir.path().join("junk.json"), "{ nope").expect("write");
    let (status, stdout, stderr) = verify(dir.path(), &["--verify=junk.json"]);
    assert_eq!((status, stdout.as_str()), (Some(1), ""));
    assert!(
        stderr.starts_with("linerate: junk.json: not JSON"),
        "{stderr}"
    );
    // From standard input, --quiet: the summary alone; extra files fail
    // the run only with --strict.
    let one = r#"[{"Key": "ok", "Size": 4}]"#;
    for (strict, want) in [(false, Some(0)), (true, Some(1))] {
        let mut args = vec!["--quiet", "--verify=-"];
        if strict {
            args.push("--strict");
        }
        let out = Command::new(LINERATE)
            .arg("etag")
            .args(&args)
            .current_dir(dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                child
                    .stdin
                    .take()
                    .expect("stdin")
                    .write_all(one.as_bytes())?;
                child.wait_with_output()
            })
            .expect("run linerate");
        assert_eq!(out.status.code(), want, "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "linerate etag --verify: 1 matched, 0 changed, 0 missing, 3 extra, 0 cannot tell, 0 errors\n"
        );
    }
    for args in [
        &["--verify=listing.json", "a", "b"][..],
        &["--prefix=x", "ok"],
        &["--verify=listing.json", "--part-size=8MiB"],
        &["--verify=listing.json", "-c"],
    ] {
        let (status, _, stderr) = verify(dir.path(), args);
        assert_eq!(status, Some(2), "{args:?}: {stderr}");
    }
}

/// A tree of `nobody`'s with links planted out of it (to root's 0600
/// file beside it, to the directory holding it, an absolute one) and one
/// that stays inside: a listing naming the links learns nothing of the
/// secret (no size, no match), each is `outside DIR`; the inside link
/// verifies.
#[test]
fn verify_never_opens_a_path_outside_dir() {
    let dir = scratch();
    let tree = dir.path().join("tree");
    std::fs::create_dir_all(tree.join("in")).expect("mkdir");
    std::fs::write(tree.join("in/a"), b"inside").expect("write");
    let secret = dir.path().join("secret");
    std::fs::write(&secret, b"root's secret").expect("write");
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    // Given away where we may: the links are nobody's.
    let _ = Command::new("chown")
        .args(["-R", "65534:65534"])
        .arg(&tree)
        .status();
    let secret_name = secret.to_str().expect("UTF-8 path");
    for (to, name) in [
        ("../secret", "link"),
        ("..", "linkdir"),
        (secret_name, "abslink"),
        ("in/a", "inlink"),
    ] {
        if !plant_as_nobody(&tree, "ln", &[b"-s", to.as_bytes(), name.as_bytes()]) {
            return;
        }
    }
    // MD5 of "root's secret" and of "inside".
    let secret_etag = r#""\"953bf3613517c8f241e906f3e1d30264\"""#;
    let a_etag = r#""\"335cf4508dd597be4bfc9caa3e08b901\"""#;
    let listing = format!(
        r#"[{{"Key": "link", "Size": 13, "ETag": {secret_etag}}},
            {{"Key": "linkdir/secret", "Size": 999}},
            {{"Key": "abslink", "ETag": {secret_etag}}},
            {{"Key": "in/a", "Size": 6, "ETag": {a_etag}}},
            {{"Key": "inlink", "Size": 6, "ETag": {a_etag}}}]"#
    );
    std::fs::write(dir.path().join("listing.json"), listing).expect("write");
    let (status, stdout, stderr) = verify(dir.path(), &["--verify=listing.json", "-v", "tree"]);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 6, "{stdout}{stderr}");
    assert_eq!(lines[0], "outside DIR: tree/abslink", "{stdout}");
    assert!(lines[1].starts_with("matched: tree/in/a ("), "{stdout}");
    assert!(lines[2].starts_with("matched: tree/inlink ("), "{stdout}");
    assert_eq!(
        lines[3..],
        [
            "outside DIR: tree/link",
            "outside DIR: tree/linkdir/secret",
            "linerate etag --verify: 2 matched, 0 changed, 0 missing, 0 extra, 0 cannot tell, 3 errors",
        ],
        "{stdout}"
    );
    assert_eq!((status, stderr.as_str()), (Some(1), ""));
}

/// Keys map to paths as S3 clients download them (`./a`, `sub//b`); the
/// forms that cannot are refused, each named.
#[test]
fn verify_normalises_keys_and_refuses_what_names_no_file() {
    let dir = scratch();
    std::fs::create_dir_all(dir.path().join("sub")).expect("mkdir");
    std::fs::write(dir.path().join("a"), b"data").expect("write");
    std::fs::write(dir.path().join("sub/b"), b"data").expect("write");
    let listing = r#"[{"Key": "./a", "Size": 4}, {"Key": "sub//b", "Size": 4}]"#;
    std::fs::write(dir.path().join("listing.json"), listing).expect("write");
    let (status, stdout, _) = verify(dir.path(), &["--verify=listing.json", "-v", "--strict"]);
    assert_eq!(
        stdout,
        "matched: a (size)\nmatched: sub/b (size)\n\
         linerate etag --verify: 2 matched, 0 changed, 0 missing, 0 extra, 0 cannot tell, 0 errors\n"
    );
    assert_eq!(status, Some(0));
    let listing = r#"[{"Key": ".", "Size": 4}, {"Key": "/etc/passwd"},
        {"Key": "x/../a", "Size": 4}, {"Key": "a", "Size": 4}, {"Key": "sub/b", "Size": 4}]"#;
    std::fs::write(dir.path().join("listing.json"), listing).expect("write");
    let (status, stdout, _) = verify(dir.path(), &["--verify=listing.json"]);
    assert_eq!(
        stdout,
        "error: .: the key names the directory itself: not read\n\
         outside DIR: /etc/passwd\n\
         outside DIR: x/../a\n\
         linerate etag --verify: 2 matched, 0 changed, 0 missing, 0 extra, 0 cannot tell, 3 errors\n"
    );
    assert_eq!(status, Some(1));
}

/// A key's NUL and escape bytes never reach the output raw: quoted as
/// diagnostics quote names, on stdout and stderr.
#[test]
fn verify_quotes_keys_with_control_bytes() {
    let dir = scratch();
    std::fs::create_dir_all(dir.path().join("tree")).expect("mkdir");
    let listing = r#"[{"Key": "a\u0000b", "Size": 1}, {"Key": "e\u001b[31mred", "Size": 1},
        {"Key": "z\u0000", "Size": "bad"}]"#;
    std::fs::write(dir.path().join("listing.json"), listing).expect("write");
    let out = Command::new(LINERATE)
        .args(["etag", "--verify=listing.json", "tree"])
        .current_dir(dir.path())
        .env("LC_ALL", "C.UTF-8")
        .output()
        .expect("run linerate");
    for stream in [&out.stdout, &out.stderr] {
        assert!(
            !stream.iter().any(|&b| b == 0 || b == 0x1b),
            "{}",
            String::from_utf8_lossy(stream)
        );
    }
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "error: 'tree/a'$'\\000''b': the key holds a NUL byte, which no file name can: not read\n\
         missing: 'tree/e'$'\\033''[31mred'\n\
         linerate etag --verify: 0 matched, 0 changed, 1 missing, 0 extra, 0 cannot tell, 1 error\n"
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "linerate: listing.json: object 3 ('z'$'\\000'): bad size \"bad\"\n"
    );
    assert_eq!(out.status.code(), Some(1));
}

/// DIR that is a file or a device is a usage error: one line, exit 2, as
/// for `audit`.
#[test]
fn verify_of_a_dir_that_is_no_directory_is_a_usage_error() {
    let dir = scratch();
    std::fs::write(dir.path().join("file"), b"f").expect("write");
    std::fs::write(dir.path().join("listing.json"), r#"[{"Key": "k"}]"#).expect("write");
    for root in ["/dev/null", "file"] {
        let (status, stdout, stderr) = verify(dir.path(), &["--verify=listing.json", root]);
        assert_eq!(
            (status, stdout.as_str(), stderr),
            (Some(2), "", format!("linerate: {root}: Not a directory\n"))
        );
    }
}

/// An inventory row short of a column its schema names, and a JSON object
/// naming a field twice, are refused with their place; the rest verified.
#[test]
fn verify_refuses_short_rows_and_repeated_fields() {
    let dir = scratch();
    std::fs::write(dir.path().join("ok"), b"data").expect("write");
    std::fs::write(dir.path().join("short"), b"data").expect("write");
    let csv = "\"b\",\"ok\",\"4\",\"2026-01-01T00:00:00.000Z\",\"8d777f385d3dfec8815d20f7496026dc\"\n\
               \"b\",\"short\",\"4\"\n";
    std::fs::write(dir.path().join("inventory.csv"), csv).expect("write");
    let (status, stdout, stderr) = verify(dir.path(), &["--verify=inventory.csv"]);
    assert_eq!(
        stderr,
        "linerate: inventory.csv: line 2 (short): 3 fields where the schema names 5 \
         (Bucket, Key, Size, LastModifiedDate, ETag)\n"
    );
    assert!(
        stdout.ends_with("1 matched, 0 changed, 0 missing, 1 extra, 0 cannot tell, 0 errors\n"),
        "{stdout}"
    );
    assert_eq!(status, Some(1));
    std::fs::write(dir.path().join("two.csv"), "short,4\n").expect("write");
    let (status, _, stderr) = verify(
        dir.path(),
        &["--verify=two.csv", "--inventory-schema=Key, Size, ETag"],
    );
    assert_eq!(
        stderr,
        "linerate: two.csv: line 1 (short): 2 fields where the schema names 3 (Key, Size, ETag)\n"
    );
    assert_eq!(status, Some(1));
    let json = r#"[{"Key": "ok", "Key": "short", "Size": 4}, {"Key": "ok", "Size": 4}]"#;
    std::fs::write(dir.path().join("listing.json"), json).expect("write");
    let (status, stdout, stderr) = verify(dir.path(), &["--verify=listing.json"]);
    assert_eq!(
        stderr,
        "linerate: listing.json: object 1: 'Key' given twice: ambiguous\n"
    );
    assert!(
        stdout.ends_with("1 matched, 0 changed, 0 missing, 3 extra, 0 cannot tell, 0 errors\n"),
        "{stdout}"
    );
    assert_eq!(status, Some(1));
}

/// A child process killed (and reaped) when dropped, a failed assertion
/// included.
struct KilledOnDrop(Child);

impl Drop for KilledOnDrop {
    fn drop(&mut self) {
        self.0.kill().ok();
        self.0.wait().ok();
    }
}

/// `nobody` swaps a link out of DIR and a decoy file in turn under one
/// name while the listing is verified again and again: whatever moment
/// the swap comes, the secret's size or ETag is never reported (the file
/// is opened beneath DIR once and read from that descriptor).
#[test]
fn verify_of_a_name_swapped_for_a_link_learns_nothing() {
    let dir = scratch();
    let tree = dir.path().join("tree");
    std::fs::create_dir_all(&tree).expect("mkdir");
    std::fs::write(tree.join("decoy"), b"decoy").expect("write");
    std::fs::write(tree.join("x"), b"decoy").expect("write");
    let secret = dir.path().join("secret");
    std::fs::write(&secret, b"root's secret").expect("write");
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let _ = Command::new("chown")
        .args(["-R", "65534:65534"])
        .arg(&tree)
        .status();
    // Renames are atomic: `x` is always the decoy or the link.
    let script = "i=0; while [ $i -lt 20000 ]; do \
                  ln -s ../secret l.$$ && mv -T l.$$ x; \
                  cp decoy f.$$ && mv -T f.$$ x; i=$((i+1)); done";
    let mut swapper = as_nobody("sh").unwrap_or_else(|| Command::new("sh"));
    swapper.args(["-c", script]);
    let swapper = KilledOnDrop(
        swapper
            .current_dir(&tree)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the swapper"),
    );
    let listing = r#"[{"Key": "x", "Size": 13, "ETag": "\"953bf3613517c8f241e906f3e1d30264\""}]"#;
    std::fs::write(dir.path().join("listing.json"), listing).expect("write");
    let mut seen = std::collections::BTreeSet::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    while seen.len() < 2 && Instant::now() < deadline {
        for _ in 0..20 {
            let (_, stdout, _) = verify(dir.path(), &["--verify=listing.json", "-v", "tree"]);
            // The swapper's half-made names may show as extra; x's line
            // is one of the two, never a match or the secret's size.
            let line = stdout
                .lines()
                .find(|l| l.contains("tree/x"))
                .unwrap_or_default()
                .to_string();
            assert!(
                line == "outside DIR: tree/x" || line == "changed: tree/x (size 5, listed 13)",
                "{stdout}"
            );
            seen.insert(line);
        }
    }
    drop(swapper);
    // Both sides of the swap were met (else the race was not run).
    assert_eq!(seen.len(), 2, "{seen:?}");
}
