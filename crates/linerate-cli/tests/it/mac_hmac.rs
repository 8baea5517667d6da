//! `linerate mac` with the HMACs: tags against Python's `hmac` and
//! `openssl mac` on random files and keys (from key files and from hex),
//! RFC 2202's known answers, and `linerate sum`'s output formats.

use crate::support::{Rng, arg, hex, mac, mac_in, openssl_hmac, python_hmac, scratch, write};
use std::ffi::OsString;
use std::path::PathBuf;

/// (algorithm, Python's digest name, tag bytes).
const HMACS: [(&str, &str, usize); 4] = [
    ("hmac-md5", "md5", 16),
    ("hmac-md5-96", "md5", 12),
    ("hmac-sha1", "sha1", 20),
    ("hmac-sha1-96", "sha1", 12),
];

/// File sizes around MD5/SHA-1's block and padding boundaries, and one past
/// the CLI's 256 KiB read chunk.
const SIZES: [usize; 9] = [0, 1, 55, 56, 63, 64, 65, 1000, 300_001];

/// Key lengths: short, a hash's length, around the 64-byte block (longer
/// keys are hashed first), and long.
const KEY_LENS: [usize; 8] = [1, 5, 16, 20, 63, 64, 65, 200];

#[test]
fn random_files_and_keys_match_python_hmac() {
    let dir = scratch();
    let mut rng = Rng::new(1);
    let files: Vec<PathBuf> = SIZES
        .iter()
        .enumerate()
        .map(|(i, &size)| write(dir.path(), format!("f{i}"), &rng.bytes(size)))
        .collect();
    let keys: Vec<Vec<u8>> = KEY_LENS.iter().map(|&len| rng.bytes(len)).collect();
    let mut requests = Vec::new();
    for key in &keys {
        for digest in ["md5", "sha1"] {
            for file in &files {
                requests.push((digest, key.as_slice(), file.as_path()));
            }
        }
    }
    let Some(expected) = python_hmac(&requests) else {
        return;
    };
    let mut answers = expected.iter();
    for (k, key) in keys.iter().enumerate() {
        let key_file = write(dir.path(), format!("key{k}"), key);
        let by_digest: Vec<Vec<&String>> = (0..2)
            .map(|_| answers.by_ref().take(files.len()).collect())
            .collect();
        for (algorithm, digest, len) in HMACS {
            let full = &by_digest[usize::from(digest == "sha1")];
            // Keys alternately from a file and from hex.
            let mut args: Vec<OsString> = vec![arg("-a"), arg(algorithm)];
            if k % 2 == 0 {
                args.extend([arg("--key-file"), key_file.clone().into_os_string()]);
            } else {
                args.push(arg(format!("--key-hex={}", hex(key))));
            }
            args.extend(files.iter().map(|f| f.clone().into_os_string()));
            let out = mac_in(dir.path(), &args, None);
            assert_eq!(out.status, Some(0), "{}", out.stderr_text());
            let expected: String = files
                .iter()
                .zip(full)
                .map(|(file, tag)| format!("{}  {}\n", &tag[..2 * len], file.display()))
                .collect();
            assert_eq!(out.stdout_text(), expected, "{algorithm}, key {k}");
        }
    }
}

#[test]
fn openssl_agrees() {
    let dir = scratch();
    let mut rng = Rng::new(2);
    for (i, (size, key_len)) in [(0, 16), (100, 3), (4097, 64), (70_000, 100)]
        .into_iter()
        .enumerate()
    {
        let file = write(dir.path(), format!("f{i}"), &rng.bytes(size));
        let key = rng.bytes(key_len);
        for (algorithm, digest, len) in HMACS {
            let Some(tag) = openssl_hmac(&digest.to_uppercase(), &key, &file) else {
                return;
            };
            let out = mac(
                dir.path(),
                &["-a", algorithm, "--key-hex", &hex(&key), &format!("f{i}")],
                None,
            );
            assert_eq!(out.stdout_text(), format!("{}  f{i}\n", &tag[..2 * len]));
        }
    }
}

/// RFC 2202 test case 2, with no oracle needed.
#[test]
fn rfc_2202_known_answers_from_standard_input() {
    let dir = scratch();
    let data = b"what do ya want for nothing?";
    let cases = [
        ("hmac-md5", "750c783e6ab0b503eaa86e310a5db738"),
        ("hmac-md5-96", "750c783e6ab0b503eaa86e31"),
        ("hmac-sha1", "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"),
        ("hmac-sha1-96", "effcdf6ae5eb2fa2d27416d5"),
    ];
    for (algorithm, tag) in cases {
        // No FILE and `-` both read standard input.
        let out = mac(
            dir.path(),
            &["-a", algorithm, "--key-hex", "4a656665"],
            Some(data),
        );
        assert_eq!(out.stdout_text(), format!("{tag}  -\n"));
        let out = mac(
            dir.path(),
            &["-a", algorithm, "--key-hex", "4A656665", "-"],
            Some(data),
        );
        assert_eq!(out.stdout_text(), format!("{tag}  -\n"));
        assert_eq!((out.status, out.stderr.len()), (Some(0), 0));
    }
}

#[test]
fn output_formats_are_sums() {
    let dir = scratch();
    let data = b"what do ya want for nothing?";
    let tag = "750c783e6ab0b503eaa86e310a5db738";
    write(dir.path(), "plain", data);
    write(dir.path(), "new\nline", data);
    write(dir.path(), "back\\slash", data);
    let key = ["-a", "hmac-md5", "--key-hex", "4a656665"];
    let run = |extra: &[&str]| {
        let args: Vec<&str> = key
            .iter()
            .chain(extra)
            .chain(&["plain", "new\nline", "back\\slash"])
            .copied()
            .collect();
        let out = mac(dir.path(), &args, None);
        assert_eq!(out.status, Some(0), "{}", out.stderr_text());
        out.stdout_text()
    };
    assert_eq!(
        run(&[]),
        format!("{tag}  plain\n\\{tag}  new\\nline\n\\{tag}  back\\\\slash\n")
    );
    assert_eq!(
        run(&["-b"]),
        format!("{tag} *plain\n\\{tag} *new\\nline\n\\{tag} *back\\\\slash\n")
    );
    assert_eq!(
        run(&["--tag"]),
        format!(
            "HMAC-MD5 (plain) = {tag}\n\\HMAC-MD5 (new\\nline) = {tag}\n\
             \\HMAC-MD5 (back\\\\slash) = {tag}\n"
        )
    );
    assert_eq!(
        run(&["-z"]),
        format!("{tag}  plain\0{tag}  new\nline\0{tag}  back\\slash\0")
    );
    let tags = [
        ("hmac-md5-96", "HMAC-MD5-96", &tag[..24]),
        (
            "hmac-sha1",
            "HMAC-SHA1",
            "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79",
        ),
        ("hmac-sha1-96", "HMAC-SHA1-96", "effcdf6ae5eb2fa2d27416d5"),
    ];
    for (algorithm, name, tag) in tags {
        let out = mac(
            dir.path(),
            &["-a", algorithm, "--key-hex", "4a656665", "--tag", "plain"],
            None,
        );
        assert_eq!(out.stdout_text(), format!("{name} (plain) = {tag}\n"));
    }
}

#[test]
fn a_missing_file_in_the_middle_is_reported_and_skipped() {
    let dir = scratch();
    write(dir.path(), "a", b"abc");
    write(dir.path(), "c", b"");
    std::fs::create_dir(dir.path().join("d")).unwrap();
    let out = mac(
        dir.path(),
        &[
            "-a",
            "hmac-sha1",
            "--key-hex",
            "6b6579",
            "a",
            "missing",
            "c",
            "d",
            "a",
        ],
        None,
    );
    assert_eq!(out.status, Some(1));
    // HMAC-SHA1 under the key "key".
    let abc = "4fd0b215276ef12f2b3e4c8ecac2811498b656fc";
    let empty = "f42bb0eeb018ebbd4597ae7213711ec60760843f";
    assert_eq!(
        out.stdout_text(),
        format!("{abc}  a\n{empty}  c\n{abc}  a\n")
    );
    assert_eq!(
        out.stderr_text(),
        "linerate: missing: No such file or directory\nlinerate: d: Is a directory\n"
    );
}
