//! `linerate cksum` against GNU cksum 9.1, byte for byte: every algorithm
//! (BLAKE2b at several lengths), tagged, untagged and NUL-terminated lines,
//! awkward names, files of lengths around every block size the sums count
//! in, standard input with and without `-`, several threads, a missing
//! file among others, and the option errors (the program name and usage
//! hint renamed).

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::support::{AWKWARD_NAMES, LINERATE, Rng, awkward_tree, peer_missing, write};

/// GNU cksum 9.1, if installed.
fn gnu_cksum() -> Option<&'static str> {
    let out = Command::new("cksum").arg("--version").output().ok()?;
    if out.stdout.starts_with(b"cksum (GNU coreutils) 9.1\n") {
        Some("cksum")
    } else {
        peer_missing("no GNU cksum 9.1: cksum's differential checks skipped");
        None
    }
}

/// `program ARGS` in `dir` under the C locale, with `stdin`: (status,
/// stdout, stderr).
fn run(
    program: &[&str],
    args: &[OsString],
    dir: &Path,
    stdin: Option<&[u8]>,
) -> (Option<i32>, Vec<u8>, Vec<u8>) {
    use std::io::Write;
    let mut child = Command::new(program[0])
        .args(&program[1..])
        .args(args)
        .current_dir(dir)
        .env("LC_ALL", "C")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run");
    if let Some(data) = stdin {
        child.stdin.take().expect("stdin").write_all(data).ok();
    }
    let out = child.wait_with_output().expect("wait");
    (out.status.code(), out.stdout, out.stderr)
}

/// cksum's stderr with linerate's program name and usage hint.
fn renamed(stderr: &[u8]) -> Vec<u8> {
    String::from_utf8_lossy(stderr)
        .replace("cksum: ", "linerate: ")
        .replace("Try 'cksum --help'", "Try 'linerate cksum --help'")
        .into_bytes()
}

fn same(args: &[OsString], dir: &Path, stdin: Option<&[u8]>, gnu: &str) {
    let ours = run(&[LINERATE, "cksum"], args, dir, stdin);
    let mut theirs = run(&[gnu], args, dir, stdin);
    // We take coreutils 9.6's crc32b too, and list it as 9.6 does.
    theirs.2 = String::from_utf8_lossy(&theirs.2)
        .replace("  - 'crc'\n", "  - 'crc'\n  - 'crc32b'\n")
        .into_bytes();
    let what = format!("{args:?}");
    assert_eq!(ours.0, theirs.0, "{what}: status");
    assert!(
        ours.1 == theirs.1,
        "{what}: stdout\n{}\n{}",
        String::from_utf8_lossy(&ours.1),
        String::from_utf8_lossy(&theirs.1)
    );
    assert_eq!(
        String::from_utf8_lossy(&ours.2),
        String::from_utf8_lossy(&renamed(&theirs.2)),
        "{what}: stderr"
    );
}

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

#[test]
fn every_algorithm_and_form_as_gnu_cksum() {
    let Some(gnu) = gnu_cksum() else {
        return;
    };
    let dir = awkward_tree();
    let mut rng = Rng::new(0xc5_0001);
    let mut names: Vec<OsString> = Vec::new();
    for len in [
        0,
        1,
        63,
        64,
        65,
        511,
        512,
        513,
        1023,
        1024,
        1025,
        100_000,
        3 << 20,
    ] {
        let name = format!("f{len}");
        write(dir.path(), name.as_bytes(), &rng.bytes(len));
        names.push(name.into());
    }
    names.extend(AWKWARD_NAMES.iter().map(|n| OsString::from_vec(n.to_vec())));
    names.push("missing".into());
    names.push("a".into());
    let algorithms = [
        "crc", "sysv", "bsd", "md5", "sha1", "sha224", "sha256", "sha384", "sha512", "blake2b",
        "sm3",
    ];
    for algorithm in algorithms {
        for form in [&[][..], &["--untagged"], &["-z"], &["--tag", "-j", "3"]] {
            let mut args = os(&["-a", algorithm]);
            args.extend(os(form));
            // cksum has no -j: ours is given it only where cksum ignores nothing.
            if form.contains(&"-j") {
                let ours = run(
                    &[LINERATE, "cksum"],
                    &[args.clone(), names.clone()].concat(),
                    dir.path(),
                    None,
                );
                let mut plain = os(&["-a", algorithm, "--tag"]);
                plain.extend(names.clone());
                let theirs = run(&[gnu], &plain, dir.path(), None);
                assert_eq!(ours.1, theirs.1, "{algorithm} -j 3");
                continue;
            }
            args.extend(names.clone());
            same(&args, dir.path(), None, gnu);
        }
    }
    for bits in ["8", "256", "504", "0"] {
        let mut args = os(&["-a", "blake2b", "-l", bits]);
        args.extend(names.clone());
        same(&args, dir.path(), None, gnu);
    }
    // Standard input, as no operand or as '-'.
    let data = rng.bytes(70_000);
    for args in [
        &[][..],
        &["-"],
        &["-a", "sysv"],
        &["-a", "bsd", "-"],
        &["-a", "sha256", "--untagged"],
    ] {
        same(&os(args), dir.path(), Some(&data), gnu);
    }
}

#[test]
fn option_errors_as_gnu_cksum() {
    let Some(gnu) = gnu_cksum() else {
        return;
    };
    let dir = awkward_tree();
    for args in [
        &["-a", "nope", "a"][..],
        &["-a", "blake2b", "-l", "7", "a"],
        &["-a", "blake2b", "-l", "1000", "a"],
        &["-a", "blake2b", "-l", "x", "a"],
        &["-l", "256", "a"],
        &["-a", "sha1", "-l", "256", "a"],
        &["-l", "256", "-a", "blake2b", "a"],
        &["--bogus", "a"],
        &["-q", "a"],
    ] {
        same(&os(args), dir.path(), None, gnu);
    }
}

#[test]
fn check_mixed_lists_as_gnu_cksum() {
    let Some(gnu) = gnu_cksum() else {
        return;
    };
    let dir = awkward_tree();
    let mut rng = Rng::new(0xc5_0002);
    for len in [0, 100, 5000] {
        write(dir.path(), format!("g{len}").as_bytes(), &rng.bytes(len));
    }
    let mut names: Vec<OsString> = ["g0", "g100", "g5000", "a"]
        .iter()
        .map(OsString::from)
        .collect();
    names.extend(
        AWKWARD_NAMES
            .iter()
            .take(5)
            .map(|n| OsString::from_vec(n.to_vec())),
    );
    // Lines GNU cksum wrote: every digest tagged, BLAKE2b at two lengths,
    // and untagged SHA-1 and BLAKE2b-160 lines.
    let mut list = Vec::new();
    for args in [
        &["-a", "md5"][..],
        &["-a", "sha1"],
        &["-a", "sha224"],
        &["-a", "sha256"],
        &["-a", "sha384"],
        &["-a", "sha512"],
        &["-a", "blake2b"],
        &["-a", "blake2b", "-l", "256"],
        &["-a", "sm3"],
        &["-a", "sha1", "--untagged"],
        &["-a", "blake2b", "-l", "160", "--untagged"],
    ] {
        let mut a = os(args);
        a.extend(names.clone());
        let (_, out, _) = run(&[gnu], &a, dir.path(), None);
        list.extend_from_slice(&out);
    }
    // A mismatch, a missing file, malformed lines, a comment, a CRC line.
    list.extend_from_slice(format!("MD5 (a) = {}\n", "0".repeat(32)).as_bytes());
    list.extend_from_slice(format!("SHA256 (gone) = {}\n", "1".repeat(64)).as_bytes());
    list.extend_from_slice(b"garbage\n# comment\nSHA256 (a) = short\n1219131554 3 a\n");
    list.extend_from_slice(format!("BLAKE2b-7 (a) = {}\n", "ab").as_bytes());
    write(dir.path(), b"list", &list);
    for args in [
        &["-c", "list"][..],
        &["-c", "-w", "list"],
        &["-c", "--strict", "list"],
        &["-c", "--quiet", "list"],
        &["-c", "--status", "list"],
        &["-c", "--ignore-missing", "list"],
        &["-c", "-a", "sha1", "-w", "list"],
        &["-c", "-a", "blake2b", "-w", "list"],
        &["-c", "-a", "sha256", "--quiet", "list"],
        &["-c", "list", "nolist"],
        &["-a", "crc", "-c", "list"],
        &["-c", "-z", "list"],
        &["--quiet", "list"],
        &["--strict", "list"],
        &["--ignore-missing", "list"],
    ] {
        same(&os(args), dir.path(), None, gnu);
    }
    // The list from standard input.
    same(&os(&["-c", "-"]), dir.path(), Some(&list), gnu);
    same(&os(&["-c"]), dir.path(), Some(&list), gnu);
}

/// `-a crc32b`, `--base64` and `--raw` (coreutils 9.2-9.6, not the 9.1
/// installed here) against zlib's CRC-32 and hashlib's digests.
#[test]
fn later_coreutils_options_against_python() {
    let dir = awkward_tree();
    let mut rng = Rng::new(0xc5_0003);
    let data = rng.bytes(70_001);
    write(dir.path(), b"data", &data);
    let python = r#"
import base64, hashlib, sys, zlib
data = open("data", "rb").read()
print("%d %d data" % (zlib.crc32(data), len(data)))
for name in ["md5", "sha1", "sha256", "sha512"]:
    print("%s (data) = %s" % (name.upper(), base64.b64encode(hashlib.new(name, data).digest()).decode()))
print(base64.b64encode(hashlib.sha256(data).digest()).decode() + "  data")
sys.stdout.flush()
sys.stdout.buffer.write(hashlib.sha384(data).digest())
sys.stdout.buffer.write(zlib.crc32(data).to_bytes(4, "big"))
"#;
    let want = Command::new("python3")
        .args(["-c", python])
        .current_dir(dir.path())
        .output()
        .expect("python3");
    let want = want.stdout;
    let mut got = Vec::new();
    for args in [
        &["-a", "crc32b", "data"][..],
        &["-a", "md5", "--base64", "data"],
        &["-a", "sha1", "--base64", "data"],
        &["-a", "sha256", "--base64", "data"],
        &["-a", "sha512", "--base64", "data"],
        &["-a", "sha256", "--base64", "--untagged", "data"],
        &["-a", "sha384", "--raw", "data"],
        &["-a", "crc32b", "--raw", "data"],
    ] {
        let (status, out, err) = run(&[LINERATE, "cksum"], &os(args), dir.path(), None);
        assert_eq!(
            status,
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&err)
        );
        got.extend_from_slice(&out);
    }
    assert!(
        got == want,
        "{}\n{}",
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&want)
    );
    for (args, says) in [
        (
            &["--raw", "data", "a"][..],
            "linerate: the --raw option is not supported with multiple files\n",
        ),
        (
            &["--raw", "--base64", "data"],
            "linerate: --base64 and --raw are mutually exclusive\nTry 'linerate cksum --help' for more information.\n",
        ),
        (
            &["-a", "crc32b", "-c", "data"],
            "linerate: --check is not supported with --algorithm={bsd,sysv,crc,crc32b}\n",
        ),
    ] {
        let (status, out, err) = run(&[LINERATE, "cksum"], &os(args), dir.path(), None);
        assert_eq!((status, out.is_empty()), (Some(1), true), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&err), says, "{args:?}");
    }
}

/// `linerate sum -a` with cksum's digests prints what coreutils' sha*sum
/// and b2sum print, and `sum -c` checks a manifest mixing their tagged
/// lines with MD5 and MD5-P/K ones, each with its tag's function.
#[test]
fn sum_takes_cksum_digests_too() {
    let Some(_) = gnu_cksum() else {
        return;
    };
    let dir = awkward_tree();
    let mut rng = Rng::new(0xc5_0004);
    for len in [0, 64, 5000, 70_000] {
        write(dir.path(), format!("h{len}").as_bytes(), &rng.bytes(len));
    }
    let mut names: Vec<OsString> = ["h0", "h64", "h5000", "h70000"]
        .iter()
        .map(OsString::from)
        .collect();
    names.extend(
        AWKWARD_NAMES
            .iter()
            .take(5)
            .map(|n| OsString::from_vec(n.to_vec())),
    );
    let tools = [
        ("sha1", "sha1sum"),
        ("sha224", "sha224sum"),
        ("sha256", "sha256sum"),
        ("sha384", "sha384sum"),
        ("sha512", "sha512sum"),
        ("blake2b", "b2sum"),
    ];
    let mut manifest = Vec::new();
    for (algorithm, tool) in tools {
        for tag in [false, true] {
            let mut args = os(&["-a", algorithm]);
            let mut theirs_args = Vec::new();
            if tag {
                args.push("--tag".into());
                theirs_args.push(OsString::from("--tag"));
            }
            args.extend(names.clone());
            theirs_args.extend(names.clone());
            let ours = run(&[LINERATE, "sum"], &args, dir.path(), None);
            let theirs = run(&[tool], &theirs_args, dir.path(), None);
            assert_eq!(ours.0, Some(0), "{algorithm}");
            assert!(ours.1 == theirs.1, "{algorithm} tag={tag}");
            if tag {
                manifest.extend_from_slice(&theirs.1);
            }
        }
    }
    // SM3 from cksum, MD5 from md5sum, MD5-P/16 from linerate.
    let mut sm3 = os(&["-a", "sm3"]);
    sm3.extend(names.clone());
    manifest.extend_from_slice(&run(&["cksum"], &sm3, dir.path(), None).1);
    let mut md5 = os(&["--tag"]);
    md5.extend(names.clone());
    manifest.extend_from_slice(&run(&["md5sum"], &md5, dir.path(), None).1);
    let mut md5p = os(&["-a", "md5p16", "--tag"]);
    md5p.extend(names.clone());
    manifest.extend_from_slice(&run(&[LINERATE, "sum"], &md5p, dir.path(), None).1);
    write(dir.path(), b"manifest", &manifest);
    let lines = manifest.iter().filter(|&&b| b == b'\n').count();
    let (status, out, err) = run(
        &[LINERATE, "sum"],
        &os(&["-c", "--quiet", "manifest"]),
        dir.path(),
        None,
    );
    assert_eq!(
        (status, out.is_empty(), err.is_empty()),
        (Some(0), true, true),
        "{}",
        String::from_utf8_lossy(&err)
    );
    let (_, out, _) = run(
        &[LINERATE, "sum"],
        &os(&["-c", "manifest"]),
        dir.path(),
        None,
    );
    assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), lines);
    // A changed file fails under every function that lists it.
    write(dir.path(), b"h64", b"changed");
    let (status, _, err) = run(
        &[LINERATE, "sum"],
        &os(&["-c", "--quiet", "manifest"]),
        dir.path(),
        None,
    );
    assert_eq!(status, Some(1));
    assert_eq!(
        String::from_utf8_lossy(&err),
        "linerate: WARNING: 9 computed checksums did NOT match\n"
    );
    // Untagged lines are -a's function.
    let mut sha = os(&[]);
    sha.extend(names.clone());
    write(
        dir.path(),
        b"sha",
        &run(&["sha256sum"], &sha, dir.path(), None).1,
    );
    let (status, _, _) = run(
        &[LINERATE, "sum"],
        &os(&["-a", "sha256", "-c", "--quiet", "sha"]),
        dir.path(),
        None,
    );
    assert_eq!(status, Some(0), "untagged SHA-256 lines under -a sha256");
    let (status, _, err) = run(&[LINERATE, "sum"], &os(&["-c", "sha"]), dir.path(), None);
    assert_eq!(status, Some(1));
    assert!(String::from_utf8_lossy(&err).contains("no properly formatted checksum lines found"));
}

/// `sum -r --also sha256`: each file's MD5 line (md5sum's) followed by its
/// SHA-256 line (`sha256sum --tag`'s), from one read; `sum -c` checks both,
/// and hashdeep's md5deep and sha256deep each match every file from the
/// lines they read.
#[test]
fn dual_manifests_from_one_pass() {
    let dir = awkward_tree();
    let tree = dir.path().join("tree");
    std::fs::create_dir_all(tree.join("sub")).expect("mkdir");
    let mut rng = Rng::new(0xc5_0005);
    let mut names = Vec::new();
    for (i, len) in [0usize, 1, 4096, 70_000, 3 << 20].into_iter().enumerate() {
        let name = if i % 2 == 0 {
            format!("f{i}")
        } else {
            format!("sub/f{i}")
        };
        write(&tree, name.as_bytes(), &rng.bytes(len));
        names.push(name);
    }
    names.sort();
    for threads in ["1", "3"] {
        let (status, manifest, _) = run(
            &[LINERATE, "sum"],
            &os(&["-r", "--also", "sha256", "-j", threads, "tree"]),
            dir.path(),
            None,
        );
        assert_eq!(status, Some(0));
        let lines: Vec<&[u8]> = manifest.split_inclusive(|&b| b == b'\n').collect();
        assert_eq!(lines.len(), 2 * names.len());
        for (pair, name) in lines.chunks(2).zip(&names) {
            let path = format!("tree/{name}");
            let md5 = run(&["md5sum"], &os(&[&path]), dir.path(), None).1;
            let sha = run(&["sha256sum"], &os(&["--tag", &path]), dir.path(), None).1;
            assert_eq!(
                (pair[0], pair[1]),
                (&md5[..], &sha[..]),
                "{name} -j {threads}"
            );
        }
        write(dir.path(), b"dual", &manifest);
    }
    let (status, out, _) = run(&[LINERATE, "sum"], &os(&["-c", "dual"]), dir.path(), None);
    assert_eq!(status, Some(0));
    assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), 2 * names.len());
    // hashdeep's tools, where installed: each reads its own lines.
    for tool in ["md5deep", "sha256deep"] {
        let mut args = os(&["-r", "-m", "dual"]);
        args.push("tree".into());
        let out = Command::new(tool)
            .args(&args)
            .current_dir(dir.path())
            .output();
        let Ok(out) = out else {
            peer_missing(&format!(
                "{tool} (hashdeep) not installed: run scripts/setup.sh"
            ));
            continue;
        };
        let matched = out.stdout.iter().filter(|&&b| b == b'\n').count();
        assert_eq!(
            matched,
            names.len(),
            "{tool}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

/// uutils' cksum as a second opinion: where it prints what GNU cksum
/// prints (the digests, tagged and untagged, of plainly named files, and
/// `--check` of GNU's lines), linerate does too.
#[test]
fn uutils_agrees_where_gnu_does() {
    let uutils = crate::support::repository().join(".peers/uutils/bin/cksum");
    if !uutils.is_file() {
        peer_missing("uutils' cksum not built into .peers/uutils: run scripts/test-all.sh");
        return;
    }
    let Some(gnu) = gnu_cksum() else {
        return;
    };
    let uutils = uutils.to_str().expect("a UTF-8 path");
    let dir = awkward_tree();
    let mut rng = Rng::new(0xc5_0006);
    let mut names = Vec::new();
    for len in [0, 1, 64, 1000, 70_000] {
        let name = format!("u{len}");
        write(dir.path(), name.as_bytes(), &rng.bytes(len));
        names.push(OsString::from(name));
    }
    let mut compared = 0;
    for algorithm in [
        "md5", "sha1", "sha224", "sha256", "sha384", "sha512", "blake2b", "sm3",
    ] {
        for form in [&[][..], &["--untagged"]] {
            let mut args = os(&["-a", algorithm]);
            args.extend(os(form));
            args.extend(names.clone());
            let theirs = run(&[uutils], &args, dir.path(), None);
            let reference = run(&[gnu], &args, dir.path(), None);
            if theirs.1 != reference.1 {
                continue;
            }
            let ours = run(&[LINERATE, "cksum"], &args, dir.path(), None);
            assert!(ours.1 == theirs.1, "{algorithm} {form:?}");
            compared += 1;
        }
    }
    assert!(
        compared >= 12,
        "uutils agreed with GNU on only {compared} forms"
    );
}

/// The words of a line of `data/cksum-options.txt`: split at spaces,
/// `'...'` keeping its spaces, `\t`, `\n`, `\v` and `\\` escapes anywhere.
fn words(line: &str) -> Vec<OsString> {
    let mut words = Vec::new();
    let mut word: Option<Vec<u8>> = None;
    let mut quoted = false;
    let mut bytes = line.bytes();
    while let Some(b) = bytes.next() {
        match b {
            b' ' if !quoted => words.extend(word.take().map(OsString::from_vec)),
            b'\'' => {
                quoted = !quoted;
                word.get_or_insert_with(Vec::new);
            }
            b'\\' => {
                let escaped = match bytes.next() {
                    Some(b't') => b'\t',
                    Some(b'n') => b'\n',
                    Some(b'v') => 0x0b,
                    Some(b'\\') => b'\\',
                    other => panic!("{line}: unknown escape {other:?}"),
                };
                word.get_or_insert_with(Vec::new).push(escaped);
            }
            b => word.get_or_insert_with(Vec::new).push(b),
        }
    }
    assert!(!quoted, "{line}: unbalanced quote");
    words.extend(word.map(OsString::from_vec));
    words
}

#[test]
fn words_of_an_options_line() {
    assert_eq!(
        words("-l ' +256' '' a\\tb"),
        os(&["-l", " +256", "", "a\tb"])
    );
}

/// Option abbreviations, `-l`'s number forms, `-l 0` with any function and
/// the overflow message, each line of `data/cksum-options.txt` as GNU
/// cksum 9.1 answers it.
#[test]
fn options_as_gnu_cksum() {
    let Some(gnu) = gnu_cksum() else {
        return;
    };
    let dir = crate::support::scratch();
    write(dir.path(), "a", b"abc");
    let mut count = 0;
    for line in include_str!("data/cksum-options.txt")
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        same(&words(line), dir.path(), None, gnu);
        count += 1;
    }
    assert!(count > 60, "the options file is read");
}

/// GNU's results under linerate's names, when GNU cksum is not there:
/// what the data says GNU answers.
#[test]
fn options_as_recorded() {
    let dir = crate::support::scratch();
    write(dir.path(), "a", b"abc");
    let ours = |args: &[&str]| run(&[LINERATE, "cksum"], &os(args), dir.path(), None);
    let blake2b_256 = "BLAKE2b-256 (a) = \
        bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319\n";
    for args in [
        &["--len=256", "-a", "blake2b", "a"][..],
        &["--algo=blake2b", "-l", " 256", "a"],
        &["--a=blake2b", "-l", "+256", "a"],
    ] {
        let (status, stdout, stderr) = ours(args);
        assert_eq!(
            (
                status,
                String::from_utf8_lossy(&stdout).as_ref(),
                &stderr[..]
            ),
            (Some(0), blake2b_256, &b""[..]),
            "{args:?}"
        );
    }
    assert_eq!(
        ours(&["-a", "crc", "-l", "0", "a"]),
        (Some(0), b"1219131554 3 a\n".to_vec(), Vec::new())
    );
    let (status, _, stderr) = ours(&["-a", "blake2b", "-l", "99999999999999999999999", "a"]);
    assert_eq!(status, Some(1));
    assert_eq!(
        String::from_utf8_lossy(&stderr),
        "linerate: invalid length: '99999999999999999999999': \
         Value too large for defined data type\n"
    );
}

/// One case of linerate-sumfile's `tests/data/cksum-check-lines.txt`.
struct CheckCase {
    verdict: String,
    algorithm: Option<String>,
    line: Vec<u8>,
    text: String,
}

/// The cases, their `{digest}` placeholders filled in by `hex_of`.
fn check_cases(hex_of: &mut dyn FnMut(&str) -> String) -> Vec<CheckCase> {
    let data = crate::support::repository()
        .join("crates/linerate-sumfile/tests/data/cksum-check-lines.txt");
    let data = std::fs::read_to_string(data).expect("the check-line cases");
    let mut cases = Vec::new();
    for text in data
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let mut fields = text.splitn(3, '\t');
        let (Some(verdict), Some(algorithm), Some(pattern)) =
            (fields.next(), fields.next(), fields.next())
        else {
            panic!("{text}: three fields");
        };
        let mut line = Vec::new();
        let mut rest = pattern;
        while let Some(c) = rest.chars().next() {
            if let Some(after) = rest.strip_prefix("\\t") {
                line.push(b'\t');
                rest = after;
            } else if let Some(after) = rest.strip_prefix("\\\\") {
                line.push(b'\\');
                rest = after;
            } else if let Some(after) = rest.strip_prefix("\\x") {
                line.push(u8::from_str_radix(&after[..2], 16).expect("\\xHH"));
                rest = &after[2..];
            } else if let Some(after) = rest.strip_prefix('{') {
                let (spec, after) = after.split_once('}').expect("a closing brace");
                let (name, digits) = spec.split_once(':').unwrap_or((spec, ""));
                let hex = hex_of(name);
                let digits = digits.parse().unwrap_or(hex.len());
                line.extend_from_slice(&hex.as_bytes()[..digits]);
                rest = after;
            } else {
                line.extend_from_slice(c.to_string().as_bytes());
                rest = &rest[c.len_utf8()..];
            }
        }
        cases.push(CheckCase {
            verdict: verdict.to_string(),
            algorithm: (algorithm != "-").then(|| algorithm.to_string()),
            line,
            text: text.to_string(),
        });
    }
    cases
}

/// ok, failed, unreadable or malformed, from a `-c` run's output on one
/// line.
fn verdict_of(stdout: &[u8], stderr: &[u8]) -> &'static str {
    match stdout {
        b"a: OK\n" => "ok",
        b"a: FAILED\n" => "failed",
        _ if stdout.ends_with(b": FAILED open or read\n") => "unreadable",
        b"" if String::from_utf8_lossy(stderr).contains("no properly formatted") => "malformed",
        _ => "unexpected",
    }
}

/// `cksum -c` on each line of linerate-sumfile's check-line cases: the
/// verdict recorded there, and where GNU cksum 9.1 is installed, its
/// output, messages and status exactly (with -w, which names the line).
#[test]
fn check_lines_as_gnu_cksum() {
    let gnu = gnu_cksum();
    let dir = crate::support::scratch();
    write(dir.path(), "a", b"abc");
    let mut hexes = std::collections::HashMap::new();
    let mut hex_of = |name: &str| -> String {
        hexes
            .entry(name.to_string())
            .or_insert_with(|| {
                let (function, bits) = name.split_once('-').unwrap_or((name, "0"));
                let args = os(&["--untagged", "-a", function, "-l", bits, "a"]);
                let (status, stdout, _) = run(&[LINERATE, "cksum"], &args, dir.path(), None);
                assert_eq!(status, Some(0), "{name}");
                let out = String::from_utf8(stdout).expect("hex");
                out.split(' ').next().expect("a digest").to_string()
            })
            .clone()
    };
    let cases = check_cases(&mut hex_of);
    assert!(cases.len() > 100, "the cases file is read");
    for case in cases {
        let mut list = case.line.clone();
        list.push(b'\n');
        write(dir.path(), "l", &list);
        let mut args = os(&["-c", "l"]);
        if let Some(algorithm) = &case.algorithm {
            args.extend(os(&["-a", algorithm]));
        }
        let (_, stdout, stderr) = run(&[LINERATE, "cksum"], &args, dir.path(), None);
        assert_eq!(
            verdict_of(&stdout, &stderr),
            case.verdict,
            "{}: {}",
            case.text,
            String::from_utf8_lossy(&stderr)
        );
        if let Some(gnu) = gnu {
            let (_, stdout, stderr) = run(&[gnu], &args, dir.path(), None);
            assert_eq!(
                verdict_of(&stdout, &stderr),
                case.verdict,
                "GNU: {}",
                case.text
            );
            args.push("-w".into());
            same(&args, dir.path(), None, gnu);
        }
    }
}

/// cksum keeps a tagged line's length for the untagged lines of `-a`'s
/// function after it, in that list and the next.
#[test]
fn a_tagged_length_stays_for_later_untagged_lines() {
    let dir = crate::support::scratch();
    write(dir.path(), "a", b"abc");
    let md5 = "900150983cd24fb0d6963f7d28e17f72";
    let short = &md5[..16];
    write(
        dir.path(),
        "l1",
        format!("MD5-64 (a) = {short}\n{md5}  a\n{short}  a\n").as_bytes(),
    );
    write(
        dir.path(),
        "l2",
        format!("{short}  a\nMD5 (a) = {md5}\n{md5}  a\n").as_bytes(),
    );
    let args = os(&["-a", "md5", "-w", "-c", "l1", "l2"]);
    let (status, stdout, stderr) = run(&[LINERATE, "cksum"], &args, dir.path(), None);
    assert_eq!(status, Some(0));
    assert_eq!(String::from_utf8_lossy(&stdout), "a: OK\n".repeat(5));
    assert_eq!(
        String::from_utf8_lossy(&stderr),
        "linerate: l1: 2: improperly formatted MD5 checksum line\n\
         linerate: WARNING: 1 line is improperly formatted\n"
    );
    if let Some(gnu) = gnu_cksum() {
        same(&args, dir.path(), None, gnu);
    }
}
