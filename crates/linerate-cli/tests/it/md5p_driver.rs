//! `linerate md5p`, the RFC 1321 driver for MD5-P/K: the spec's vectors,
//! files and standard input, the time trial against the spec's Python
//! reference, usage errors and `LINERATE_LANES_BACKEND`.

use crate::support::{Outcome, hex, linerate_in, python_md5p, scratch, write};

/// `docs/md5p.md`'s vectors for "" and "abc".
const VECTORS: &[(usize, &str, &str)] = &[
    (4, "", "90b83c0fe892d7b4c2bdc38deba7a3cb"),
    (4, "abc", "148ae4e6d92bdddaaf1c1d44cb112e53"),
    (8, "", "e7dd4330655dc61ec7f53e526532adfa"),
    (8, "abc", "900092a79d6aa7b87fbc1193b9ae7be5"),
    (16, "", "6452dea751220e2d7b7af19575fe8d81"),
    (16, "abc", "8a814c93bae856e7e8001a63e313ee31"),
];

fn md5p(args: &[&str]) -> Outcome {
    md5p_with(args, b"", &[])
}

fn md5p_with(args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Outcome {
    let mut all = vec!["md5p"];
    all.extend(args);
    linerate_in(&std::env::temp_dir(), &all, stdin, env)
}

#[test]
fn strings_give_the_spec_vectors() {
    for &(k, message, digest) in VECTORS {
        let k_arg = format!("-k{k}");
        let out = md5p(&[&k_arg, "-s", message]);
        assert_eq!(out.status, Some(0), "{}", out.stderr_text());
        assert_eq!(
            out.stdout_text(),
            format!("MD5-P/{k} (\"{message}\") = {digest}\n")
        );
    }
    // K defaults to 16; every spelling of -k works, the last one wins.
    let out = md5p(&["-s", "", "-sabc"]);
    assert_eq!(
        out.stdout_text(),
        "MD5-P/16 (\"\") = 6452dea751220e2d7b7af19575fe8d81\n\
         MD5-P/16 (\"abc\") = 8a814c93bae856e7e8001a63e313ee31\n"
    );
    for k_args in [
        &["-k", "8"][..],
        &["--k", "8"],
        &["--k=8"],
        &["-k16", "-k8"],
    ] {
        let mut args = k_args.to_vec();
        args.push("-sabc");
        assert_eq!(
            md5p(&args).stdout_text(),
            "MD5-P/8 (\"abc\") = 900092a79d6aa7b87fbc1193b9ae7be5\n",
            "{k_args:?}"
        );
    }
}

#[test]
fn files_and_standard_input() {
    let dir = scratch();
    let data: Vec<u8> = (0..5000u32).map(|i| (i * 13 % 256) as u8).collect();
    let path = write(dir.path(), b"data", &data);
    let expected = hex(linerate::md5p(4, &data).expect("valid K"));
    let out = linerate_in(dir.path(), &["md5p", "-k", "4", "data", "-"], b"abc", &[]);
    assert_eq!(out.status, Some(0), "{}", out.stderr_text());
    assert_eq!(
        out.stdout_text(),
        format!("MD5-P/4 (data) = {expected}\nMD5-P/4 (-) = 148ae4e6d92bdddaaf1c1d44cb112e53\n")
    );
    if let Some(python) = python_md5p(4, &[path]) {
        assert_eq!(python, [expected]);
    }
    // No arguments: standard input's digest alone.
    let out = md5p_with(&[], b"abc", &[]);
    assert_eq!(out.stdout_text(), "8a814c93bae856e7e8001a63e313ee31\n");
    // A missing file is reported; the rest still runs.
    let out = linerate_in(dir.path(), &["md5p", "nofile", "-s", ""], b"", &[]);
    assert_eq!(out.status, Some(1));
    assert_eq!(
        out.stdout_text(),
        "MD5-P/16 (\"\") = 6452dea751220e2d7b7af19575fe8d81\n"
    );
    assert_eq!(
        out.stderr_text(),
        "linerate: nofile: No such file or directory\n"
    );
}

/// The trial's lines in their RFC shape; returns the digest and the backend.
fn check_trial_shape(text: &str, label: &str, count: usize, size: usize) -> (String, String) {
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 8, "{text}");
    assert_eq!(
        lines[0],
        format!("{label} time trial. Digesting {count} {size}-byte blocks ... done")
    );
    let digest = lines[1].strip_prefix("Digest = ").expect(text);
    assert!(
        digest.len() == 32 && digest.bytes().all(|b| b.is_ascii_hexdigit()),
        "{text}"
    );
    let time = lines[2]
        .strip_prefix("Time = ")
        .and_then(|t| t.strip_suffix(" seconds"))
        .expect(text);
    assert!(time.parse::<f64>().expect(text) >= 0.0);
    let speed = lines[3]
        .strip_prefix("Speed = ")
        .and_then(|s| s.strip_suffix(" bytes/second"))
        .expect(text);
    assert!(speed.parse::<u64>().expect(text) > 0, "{text}");
    let backend = lines[4].strip_prefix("Backend = ").expect(text);
    assert!(lines[5].starts_with("Data = "), "{text}");
    assert!(lines[6].starts_with("Rate = "), "{text}");
    assert!(lines[7].starts_with("Clock = "), "{text}");
    (digest.to_string(), backend.to_string())
}

/// mddriver's time-trial data: COUNT copies of `block[i] = i & 0xff`.
fn trial_bytes(block_size: usize, count: usize) -> Vec<u8> {
    let block: Vec<u8> = (0..block_size).map(|i| i as u8).collect();
    block.repeat(count)
}

#[test]
fn time_trial_digests_the_blocks_with_md5p() {
    let dir = scratch();
    for (k, size, count) in [(16, 1000, 37), (8, 64, 3), (32, 4096, 9)] {
        let k_arg = format!("--k={k}");
        let size_arg = format!("--block-size={size}");
        let count_arg = format!("--count={count}");
        let out = md5p(&[&k_arg, "-t", &size_arg, &count_arg]);
        assert_eq!(out.status, Some(0), "{}", out.stderr_text());
        let (digest, backend) =
            check_trial_shape(&out.stdout_text(), &format!("MD5-P/{k}"), count, size);
        let bytes = trial_bytes(size, count);
        assert_eq!(digest, hex(linerate::md5p(k, &bytes).expect("valid K")));
        assert_eq!(backend, linerate::lanes::LanesBackend::active().name());
        let path = write(dir.path(), format!("trial{k}").as_bytes(), &bytes);
        if let Some(python) = python_md5p(k, &[path]) {
            assert_eq!(python, [digest], "K = {k} against the Python reference");
        }
    }
    // --cold hashes the same bytes.
    let out = md5p(&["-t", "--cold", "--block-size", "100", "--count", "10"]);
    let (digest, _) = check_trial_shape(&out.stdout_text(), "MD5-P/16", 10, 100);
    assert_eq!(
        digest,
        hex(linerate::md5p(16, &trial_bytes(100, 10)).expect("valid K"))
    );
}

#[test]
fn every_lanes_backend_runs_and_is_reported() {
    let expected = hex(linerate::md5p(16, &trial_bytes(256, 5)).expect("valid K"));
    for backend in linerate::lanes::LanesBackend::supported() {
        let name = backend.name();
        let out = md5p_with(
            &["-t", "--block-size", "256", "--count", "5", "-sabc"],
            b"",
            &[("LINERATE_LANES_BACKEND", name)],
        );
        assert_eq!(out.status, Some(0), "{name}: {}", out.stderr_text());
        let text = out.stdout_text();
        let (trial, string) = text.rsplit_once("MD5-P/16 (\"abc\")").expect(&text);
        let (digest, reported) = check_trial_shape(trial, "MD5-P/16", 5, 256);
        assert_eq!((digest, reported.as_str()), (expected.clone(), name));
        assert_eq!(string, " = 8a814c93bae856e7e8001a63e313ee31\n");
    }
}

#[test]
fn usage_errors_exit_2() {
    let try_line = "Try 'linerate md5p --help' for more information.\n";
    for (args, message) in [
        (
            &["-k", "6", "-sabc"][..],
            "invalid K '6': K must be a multiple of 4 from 4 to 256",
        ),
        (
            &["-k0"],
            "invalid K '0': K must be a multiple of 4 from 4 to 256",
        ),
        (
            &["--k=260"],
            "invalid K '260': K must be a multiple of 4 from 4 to 256",
        ),
        (&["-sabc", "-k"], "option '-k' needs K: -k K, -kK or --k=K"),
        (
            &["-x"],
            "unrecognized option '-x' (a file of that name: ./-x)",
        ),
        (
            &["--count=5"],
            "--block-size, --count and --cold set up the time trial: add -t",
        ),
    ] {
        let out = md5p(args);
        assert_eq!(out.status, Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert_eq!(
            out.stderr_text(),
            format!("linerate: {message}\n{try_line}"),
            "{args:?}"
        );
    }
    let help = md5p(&["--help"]);
    assert_eq!(help.status, Some(0));
    assert!(
        help.stdout_text()
            .starts_with("Usage: linerate md5p [-k K]")
    );
    // md5 keeps rejecting -k.
    let out = linerate_in(&std::env::temp_dir(), &["md5", "-k", "8"], b"", &[]);
    assert_eq!(out.status, Some(2));
}

#[test]
fn an_invalid_lanes_backend_stops_every_command() {
    for command in [
        &["md5p", "-sabc"][..],
        &["sum", "/dev/null"],
        &["md5", "-sabc"],
    ] {
        let out = linerate_in(
            &std::env::temp_dir(),
            command,
            b"",
            &[("LINERATE_LANES_BACKEND", "sse9")],
        );
        assert_eq!(out.status, Some(2), "{command:?}");
        assert!(out.stdout.is_empty());
        assert_eq!(
            out.stderr_text(),
            "linerate: LINERATE_LANES_BACKEND=\"sse9\" names no lanes backend \
             (one of: avx512, avx2, sse2, portable)\n"
        );
    }
}

#[test]
fn top_level_usage_lists_md5p() {
    let out = linerate_in(&std::env::temp_dir(), &["help"], b"", &[]);
    assert!(
        out.stdout_text().contains("\n  md5p [-k K]"),
        "{}",
        out.stdout_text()
    );
}
