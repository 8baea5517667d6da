//! `linerate md5`, RFC 1321's driver, run as a program: output formats,
//! argument order, errors and the time trial, checked against RFC 1321's
//! appendix A.5 and against coreutils' md5sum.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_linerate");

/// RFC 1321, appendix A.5, verbatim but for the RFC's page-width line breaks.
const RFC_SUITE: &str = "\
MD5 test suite:
MD5 (\"\") = d41d8cd98f00b204e9800998ecf8427e
MD5 (\"a\") = 0cc175b9c0f1b6a831c399e269772661
MD5 (\"abc\") = 900150983cd24fb0d6963f7d28e17f72
MD5 (\"message digest\") = f96b697d7cb7938d525a2f31aaf161d0
MD5 (\"abcdefghijklmnopqrstuvwxyz\") = c3fcd3d76192e4007dfb496cca67e13b
MD5 (\"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789\") = d174ab98d277d9f5a5611c2c9f419d9f
MD5 (\"12345678901234567890123456789012345678901234567890123456789012345678901234567890\") = 57edf4a22be3c955ac49da2e2107b67a
";

fn md5_cmd(args: &[&str]) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.arg("md5").args(args).env_remove("LINERATE_MD5_BACKEND");
    cmd
}

/// Runs `linerate md5 ARGS` with `stdin` as standard input.
fn run_with_stdin(mut cmd: Command, stdin: &[u8]) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn linerate");
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.to_vec();
    // Written from a thread so that a large input cannot deadlock against
    // the child's output.
    let writer = std::thread::spawn(move || pipe.write_all(&input));
    let output = child.wait_with_output().expect("wait for linerate");
    writer.join().unwrap().expect("write stdin");
    output
}

fn run(args: &[&str]) -> Output {
    run_with_stdin(md5_cmd(args), b"")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("UTF-8 output")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The digest coreutils' md5sum computes for `data`: the independent oracle.
fn md5sum(data: &[u8]) -> String {
    let output = run_with_stdin(Command::new("md5sum"), data);
    assert!(output.status.success(), "md5sum failed");
    stdout(&output)[..32].to_string()
}

/// A scratch file under Cargo's per-test-target temporary directory.
fn scratch_file(name: &str, contents: &[u8]) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("md5_driver-{name}"));
    std::fs::write(&path, contents).unwrap();
    path
}

/// Bytes that are not a repeating pattern, so an off-by-one in chunking
/// changes the digest.
fn noise(len: usize) -> Vec<u8> {
    let mut x: u32 = 0x9e37_79b9;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect()
}

/// mddriver's time-trial data: COUNT copies of `block[i] = i & 0xff`.
fn trial_bytes(block_size: usize, count: usize) -> Vec<u8> {
    let block: Vec<u8> = (0..block_size).map(|i| i as u8).collect();
    block.repeat(count)
}

#[test]
fn test_suite_is_rfc_1321_appendix_a5() {
    let output = run(&["-x"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output), RFC_SUITE);
}

#[test]
fn strings_attached_separate_empty_and_with_spaces() {
    let output = run(&["-sabc", "-s", "abc", "-s", "", "-s", "hello world", "-s-x"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let expected: String = [&b"abc"[..], b"abc", b"", b"hello world", b"-x"]
        .iter()
        .map(|s| format!("MD5 (\"{}\") = {}\n", String::from_utf8_lossy(s), md5sum(s)))
        .collect();
    assert_eq!(stdout(&output), expected);
}

#[test]
fn files_match_md5sum() {
    let big = noise(300_001);
    let files = [
        scratch_file("empty", b""),
        scratch_file("small", b"The quick brown fox"),
        scratch_file("big", &big),
    ];
    let names: Vec<&str> = files.iter().map(|p| p.to_str().unwrap()).collect();
    let output = run(&names);
    assert!(output.status.success(), "{}", stderr(&output));
    let expected = format!(
        "MD5 ({}) = {}\nMD5 ({}) = {}\nMD5 ({}) = {}\n",
        names[0],
        md5sum(b""),
        names[1],
        md5sum(b"The quick brown fox"),
        names[2],
        md5sum(&big)
    );
    assert_eq!(stdout(&output), expected);
}

#[test]
fn no_arguments_filters_standard_input() {
    let data = noise(200_003);
    let output = run_with_stdin(md5_cmd(&[]), &data);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output), format!("{}\n", md5sum(&data)));
}

#[test]
fn dash_is_standard_input_among_other_arguments() {
    let output = run_with_stdin(md5_cmd(&["-sa", "-"]), b"from stdin");
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        format!(
            "MD5 (\"a\") = 0cc175b9c0f1b6a831c399e269772661\nMD5 (-) = {}\n",
            md5sum(b"from stdin")
        )
    );
}

#[test]
fn arguments_run_in_order() {
    let file = scratch_file("ordered", b"ordered");
    let name = file.to_str().unwrap();
    let output = run(&["-sabc", name, "-x"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let expected = format!(
        "MD5 (\"abc\") = 900150983cd24fb0d6963f7d28e17f72\nMD5 ({name}) = {}\n{RFC_SUITE}",
        md5sum(b"ordered")
    );
    assert_eq!(stdout(&output), expected);
}

#[test]
fn unreadable_files_are_reported_and_the_rest_still_runs() {
    let missing = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("md5_driver-no-such-file");
    let missing = missing.to_str().unwrap();
    let directory = env!("CARGO_TARGET_TMPDIR");
    let output = run(&["-sa", missing, directory, "-sabc"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        "MD5 (\"a\") = 0cc175b9c0f1b6a831c399e269772661\n\
         MD5 (\"abc\") = 900150983cd24fb0d6963f7d28e17f72\n"
    );
    let errors = stderr(&output);
    let lines: Vec<&str> = errors.lines().collect();
    assert_eq!(lines.len(), 2, "{errors}");
    assert_eq!(
        lines[0],
        format!("linerate: {missing}: No such file or directory")
    );
    assert!(
        lines[1].starts_with(&format!("linerate: {directory}: ")),
        "{errors}"
    );
}

#[test]
fn usage_errors_exit_2_before_anything_runs() {
    for args in [
        &["-sabc", "-X"][..],
        &["-sabc", "--bogus"],
        &["-sabc", "-tx"],
        &["--count", "5"],
        &["-t", "--count", "0"],
        &["-t", "--block-size", "lots"],
        &["-t", "--count"],
        &["-sabc", "-s"],
    ] {
        let output = run(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            output.stdout.is_empty(),
            "{args:?} printed {}",
            stdout(&output)
        );
        assert!(stderr(&output).starts_with("linerate: "), "{args:?}");
    }
}

#[test]
fn files_named_like_options_need_double_dash_or_dot_slash() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("md5_driver-dash-dir");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("-x"), b"dash").unwrap();
    let mut cmd = md5_cmd(&["--", "-x", "./-x"]);
    cmd.current_dir(&dir);
    let output = run_with_stdin(cmd, b"");
    assert!(output.status.success(), "{}", stderr(&output));
    let digest = md5sum(b"dash");
    assert_eq!(
        stdout(&output),
        format!("MD5 (-x) = {digest}\nMD5 (./-x) = {digest}\n")
    );
}

#[test]
fn help_documents_the_exit_status() {
    let output = run(&["--help"]);
    assert!(output.status.success());
    let text = stdout(&output);
    assert!(text.starts_with("Usage: linerate md5"), "{text}");
    assert!(text.contains("Exit status: 0"), "{text}");
    assert!(text.contains("--cold"), "{text}");
}

/// The trial's lines, checked for the shape RFC-era scripts parse; returns
/// the digest and the data description.
fn check_trial_shape(text: &str, count: usize, block_size: usize) -> (String, String) {
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 8, "{text}");
    assert_eq!(
        lines[0],
        format!("MD5 time trial. Digesting {count} {block_size}-byte blocks ... done")
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
    let (_, decimals) = time.split_once('.').expect(text);
    assert_eq!(decimals.len(), 6, "{text}");
    assert!(time.parse::<f64>().expect(text) >= 0.0);
    let speed = lines[3]
        .strip_prefix("Speed = ")
        .and_then(|s| s.strip_suffix(" bytes/second"))
        .expect(text);
    assert!(speed.parse::<u64>().expect(text) > 0, "{text}");
    assert!(lines[4].starts_with("Backend = "), "{text}");
    let data = lines[5].strip_prefix("Data = ").expect(text);
    assert!(lines[6].starts_with("Rate = "), "{text}");
    assert!(lines[7].starts_with("Clock = "), "{text}");
    if cfg!(target_arch = "x86_64") {
        assert!(lines[7].contains(" GHz (measured), "), "{text}");
        assert!(lines[7].contains(" cycles/byte; "), "{text}");
    }
    (digest.to_string(), data.to_string())
}

#[test]
fn time_trial_digests_mddrivers_blocks() {
    let output = run(&["-t", "--block-size", "100", "--count", "10"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let (digest, data) = check_trial_shape(&stdout(&output), 10, 100);
    assert_eq!(digest, md5sum(&trial_bytes(100, 10)));
    assert!(data.starts_with("one 100-byte block"), "{data}");
}

#[test]
fn time_trial_options_take_equals_and_suffixes() {
    let output = run(&["--block-size=1K", "--count=3", "-t"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let (digest, _) = check_trial_shape(&stdout(&output), 3, 1024);
    assert_eq!(digest, md5sum(&trial_bytes(1024, 3)));
}

#[test]
fn cold_trial_hashes_the_same_bytes_from_a_large_buffer() {
    let output = run(&["-t", "--cold", "--block-size", "100", "--count", "10"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let (digest, data) = check_trial_shape(&stdout(&output), 10, 100);
    // Documented: --cold hashes COUNT copies of the same block, so the
    // digest is the one without --cold.
    assert_eq!(digest, md5sum(&trial_bytes(100, 10)));
    assert!(data.starts_with("cold: "), "{data}");
    assert!(data.contains("last-level cache"), "{data}");
}

#[test]
fn every_backend_passes_the_suite_and_is_reported() {
    for backend in linerate::md5::Md5Backend::supported() {
        let name = backend.name();
        let mut cmd = md5_cmd(&["-x", "-t", "--block-size", "64", "--count", "2"]);
        cmd.env("LINERATE_MD5_BACKEND", name);
        let output = run_with_stdin(cmd, b"");
        assert!(output.status.success(), "{name}: {}", stderr(&output));
        let text = stdout(&output);
        let trial = text.strip_prefix(RFC_SUITE).expect(&text);
        let (digest, _) = check_trial_shape(trial, 2, 64);
        assert_eq!(digest, md5sum(&trial_bytes(64, 2)), "{name}");
        assert!(
            trial.contains(&format!("\nBackend = {name}\n")),
            "{name}: {text}"
        );
    }
}

#[test]
fn invalid_backend_is_a_usage_error() {
    let mut cmd = md5_cmd(&["-x"]);
    cmd.env("LINERATE_MD5_BACKEND", "sse9");
    let output = run_with_stdin(cmd, b"");
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    assert!(
        stderr(&output).contains("LINERATE_MD5_BACKEND"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn closed_stdout_ends_quietly() {
    let mut child = md5_cmd(&[])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The reader goes away before the filter has read its input, so the
    // digest's write is certain to meet a closed pipe.
    drop(child.stdout.take());
    child.stdin.take().unwrap().write_all(b"abc").unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(141));
    assert!(output.stderr.is_empty(), "{}", stderr(&output));
}
