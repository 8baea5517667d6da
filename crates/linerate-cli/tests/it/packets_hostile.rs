//! `linerate packets` against a hostile user and hostile input, done for
//! real: a second, unprivileged user (`nobody`) writing `-o` files that are
//! not theirs, in world-writable and sticky directories; a SIGKILL in the
//! middle of `sign`; key tables naming `/dev/zero` and FIFOs; a segment
//! that carries both TCP-AO and TCP-MD5; SIGPIPE inherited ignored; and
//! the messages of `--spi`, `-o` and `-` (standard input).
//!
//! The tests that need a second user run as root (as here and in CI);
//! elsewhere they say why and return.

use crate::support::*;
use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const KEY_HEX: &str = "000102030405060708090a0b0c0d0e0f";
const NOBODY: u32 = 65534;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A scratch directory that every user may enter and read.
fn open_scratch() -> tempfile::TempDir {
    let dir = scratch();
    chmod(dir.path(), 0o755);
    dir
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn chown(path: &Path, uid: u32) {
    std::os::unix::fs::chown(path, Some(uid), Some(uid)).unwrap();
}

/// A small capture: UDP over IPv4 (raw IP), `n` packets.
fn capture(n: usize) -> Vec<u8> {
    let recs: Vec<Rec> = (0..n)
        .map(|i| Rec::new(101, ipv4(17, &[], &udp(&[i as u8; 64]), 0, 64, 0)))
        .collect();
    pcap(&recs, false, false)
}

/// Whether a second user can be tried (root, with setpriv), or `None`
/// after saying why not.
fn second_user() -> Option<()> {
    crate::support::as_nobody("true").map(|_| ())
}

/// The binary copied where `nobody` may run it.
fn binary_for_nobody(dir: &Path) -> PathBuf {
    let copy = dir.join("linerate");
    std::fs::copy(LINERATE, &copy).unwrap();
    chmod(&copy, 0o755);
    copy
}

/// `program ARGS` run as `nobody` (the caller checked [`second_user`]).
fn as_nobody(program: &Path, args: &[&str]) -> Output {
    crate::support::as_nobody(program)
        .expect("root with setpriv")
        .args(args)
        .current_dir("/")
        .output()
        .unwrap()
}

/// `linerate packets sign INPUT -o OUT --alg ALG` with the test key.
fn sign_with(input: &str, out: &str, alg: &str) -> (i32, String, String) {
    linerate(&[
        "packets",
        "sign",
        input,
        "-o",
        out,
        "--alg",
        alg,
        "--key-hex",
        KEY_HEX,
    ])
}

fn sign_args<'a>(input: &'a str, output: &'a str) -> Vec<&'a str> {
    vec![
        "packets",
        "sign",
        input,
        "-o",
        output,
        "--spi",
        "300",
        "--alg",
        "hmac-md5-96",
        "--key-hex",
        KEY_HEX,
    ]
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Point 12: an output the user may not write is refused, not replaced;
/// one they may write but not rename over (a sticky directory, another
/// user's file) is written in place, keeping its owner; owner and group
/// are kept whoever writes.
#[test]
fn outputs_of_other_users_are_refused_or_written_in_place() {
    let Some(()) = second_user() else {
        return;
    };
    let top = open_scratch();
    let program = binary_for_nobody(top.path());
    let input = write(top.path(), "in.pcap", &capture(3));
    chmod(&input, 0o644);
    let input = input.to_str().unwrap();
    // What a signed capture is, written by root where nothing is in the way.
    let reference = top.path().join("reference.pcap");
    let made = Command::new(LINERATE)
        .args(sign_args(input, reference.to_str().unwrap()))
        .output()
        .unwrap();
    assert_eq!(made.status.code(), Some(0), "{}", text(&made.stderr));
    let signed = std::fs::read(&reference).unwrap();

    // Root's 0644 file in a 0777 directory: nobody may not write it, so
    // nobody may not replace it either.
    let open = top.path().join("open");
    std::fs::create_dir(&open).unwrap();
    chmod(&open, 0o777);
    let out = write(&open, "out.pcap", b"old");
    chmod(&out, 0o644);
    let run = as_nobody(&program, &sign_args(input, out.to_str().unwrap()));
    assert_eq!(run.status.code(), Some(2), "{}", text(&run.stderr));
    assert_eq!(
        text(&run.stderr),
        format!("linerate: {}: Permission denied\n", out.display())
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"old");
    assert_eq!(std::fs::metadata(&out).unwrap().uid(), 0);
    assert_eq!(names(&open), ["out.pcap"]);

    // Root's 0666 file there: nobody may write it, but a rename would make
    // it nobody's. Written in place: root's still, mode kept.
    chmod(&out, 0o666);
    let run = as_nobody(&program, &sign_args(input, out.to_str().unwrap()));
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    assert_eq!(std::fs::read(&out).unwrap(), signed);
    let meta = std::fs::metadata(&out).unwrap();
    assert_eq!(
        (meta.uid(), meta.gid(), meta.mode() & 0o7777),
        (0, 0, 0o666)
    );
    assert_eq!(names(&open), ["out.pcap"]);

    // Nobody's own file there: replaced, nobody's.
    let own = write(&open, "own.pcap", b"old");
    chown(&own, NOBODY);
    let run = as_nobody(&program, &sign_args(input, own.to_str().unwrap()));
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    assert_eq!(std::fs::read(&own).unwrap(), signed);
    assert_eq!(std::fs::metadata(&own).unwrap().uid(), NOBODY);

    // A sticky directory (as /tmp): root's 0666 file, which a shell's `>`
    // run by nobody may write, is written in place.
    let sticky = top.path().join("sticky");
    std::fs::create_dir(&sticky).unwrap();
    chmod(&sticky, 0o1777);
    let roots = write(&sticky, "root.pcap", b"old");
    chmod(&roots, 0o666);
    let run = as_nobody(&program, &sign_args(input, roots.to_str().unwrap()));
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    assert_eq!(std::fs::read(&roots).unwrap(), signed);
    let meta = std::fs::metadata(&roots).unwrap();
    assert_eq!((meta.uid(), meta.mode() & 0o7777), (0, 0o666));
    // The other way round: root replaces nobody's file, which stays
    // nobody's.
    let nobodys = write(&sticky, "nobody.pcap", b"old");
    chown(&nobodys, NOBODY);
    chmod(&nobodys, 0o640);
    let run = Command::new(LINERATE)
        .args(sign_args(input, nobodys.to_str().unwrap()))
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    assert_eq!(std::fs::read(&nobodys).unwrap(), signed);
    let meta = std::fs::metadata(&nobodys).unwrap();
    assert_eq!(
        (meta.uid(), meta.gid(), meta.mode() & 0o7777),
        (NOBODY, NOBODY, 0o640)
    );
    assert_eq!(names(&sticky), ["nobody.pcap", "root.pcap"]);

    // A new file in a directory nobody may not write: the reason in words,
    // as coreutils says it (no "(os error 13)").
    let closed = top.path().join("closed");
    std::fs::create_dir(&closed).unwrap();
    let new = closed.join("new.pcap");
    let run = as_nobody(&program, &sign_args(input, new.to_str().unwrap()));
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(
        text(&run.stderr),
        format!("linerate: {}: Permission denied\n", new.display())
    );
    assert!(names(&closed).is_empty());
    // Root's 0666 file in it: written in place (the new capture waits in
    // the temporary directory, none of it left there).
    let shared = write(&closed, "shared.pcap", b"old");
    chmod(&shared, 0o666);
    let run = as_nobody(&program, &sign_args(input, shared.to_str().unwrap()));
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    assert_eq!(std::fs::read(&shared).unwrap(), signed);
    assert_eq!(std::fs::metadata(&shared).unwrap().uid(), 0);
    assert_eq!(names(&closed), ["shared.pcap"]);
}

/// Waits for `child` at most `limit`; kills it (and fails) after that.
fn wait_bounded(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs linerate with `args` for at most 60 seconds: status, stderr.
fn bounded(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(LINERATE)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = stderr.read_to_end(&mut text);
        text
    });
    let status = wait_bounded(&mut child, Duration::from_secs(60));
    (status.code(), text(&reader.join().unwrap()))
}

/// The size of the file `/proc/PID/fd/N` is open on, for every descriptor
/// of `pid` open on a file in `dir`.
fn open_in(pid: u32, dir: &Path) -> Vec<u64> {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return Vec::new();
    };
    fds.flatten()
        .filter(|fd| std::fs::read_link(fd.path()).is_ok_and(|target| target.starts_with(dir)))
        .filter_map(|fd| std::fs::metadata(fd.path()).ok().map(|m| m.len()))
        .collect()
}

/// Point 13: SIGKILL in the middle of `sign` leaves nothing beside OUT,
/// and OUT as it was. The capture comes through a FIFO, held open half
/// written, so that the kill lands mid-run whatever the machine's speed.
#[test]
fn sigkill_mid_sign_leaves_nothing_beside_out() {
    let top = scratch();
    let fifo = top.path().join("in.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let outdir = top.path().join("out");
    std::fs::create_dir(&outdir).unwrap();
    let out = write(&outdir, "out.pcap", b"old");
    let mut child = Command::new(LINERATE)
        .args(sign_args(fifo.to_str().unwrap(), out.to_str().unwrap()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The write end, once linerate has the read end (never blocking).
    let start = Instant::now();
    let mut writer = loop {
        use std::os::unix::fs::OpenOptionsExt;
        match std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&fifo)
        {
            Ok(w) => break w,
            Err(_) if start.elapsed() < Duration::from_secs(30) => {
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("linerate never opened the FIFO: {e}");
            }
        }
    };
    // Blocking writes from here on.
    let flags = rustix::fs::fcntl_getfl(&writer).unwrap();
    rustix::fs::fcntl_setfl(&writer, flags - rustix::fs::OFlags::NONBLOCK).unwrap();
    // About 8 MB: more than any buffer between here and the output.
    let whole = capture(60_000);
    writer.write_all(&whole[..whole.len() / 2]).unwrap();
    // Until the output in the making holds some of it.
    let pid = child.id();
    let start = Instant::now();
    while !open_in(pid, &outdir).iter().any(|&len| len > 0) {
        if start.elapsed() > Duration::from_secs(30) || child.try_wait().unwrap().is_some() {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the output was never written to");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(child.try_wait().unwrap().is_none(), "it ended by itself");
    child.kill().unwrap();
    let status = child.wait().unwrap();
    drop(writer);
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(libc::SIGKILL));
    assert_eq!(names(&outdir), ["out.pcap"]);
    assert_eq!(std::fs::read(&out).unwrap(), b"old");
}

/// Point 7: a key read from a file is bounded wherever it comes from (a
/// key table's `file:`, the table itself, `--key-file`), and a FIFO with
/// no writer does not block.
#[test]
fn keys_from_files_are_bounded() {
    let dir = scratch();
    let input = write(dir.path(), "in.pcap", &capture(1));
    let input = input.to_str().unwrap();
    let out = dir.path().join("out.pcap");
    let out = out.to_str().unwrap();
    let too_long = "longer than 65536 bytes (is it the right file?)";
    let table = write(
        dir.path(),
        "zero.table",
        b"# an endless key\n192.0.2.1 198.51.100.7 file:/dev/zero\n",
    );
    let table = table.to_str().unwrap();
    for command in ["sign", "verify"] {
        let mut args = vec!["packets", command, input, "--alg", "tcp-md5"];
        args.extend(["--key-table", table]);
        if command == "sign" {
            args.extend(["-o", out]);
        }
        let (status, stderr) = bounded(&args);
        assert_eq!(status, Some(2), "{stderr}");
        assert_eq!(
            stderr,
            format!("linerate: {table}: line 2: cannot read key file /dev/zero: {too_long}\n")
        );
    }
    // The table itself.
    let (status, stderr) = bounded(&[
        "packets",
        "verify",
        input,
        "--alg",
        "tcp-md5",
        "--key-table",
        "/dev/zero",
    ]);
    assert_eq!(status, Some(2));
    assert_eq!(
        stderr,
        "linerate: /dev/zero: longer than 1048576 bytes (is it the right file?)\n"
    );
    // A FIFO that a writer fills without end: bounded too.
    let fifo = dir.path().join("key.fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let fifo_table = write(
        dir.path(),
        "fifo.table",
        b"192.0.2.1 198.51.100.7 file:key.fifo\n",
    );
    let fifo_table = fifo_table.to_str().unwrap();
    // The writer: this process, holding the FIFO open (read-write, so
    // that the open waits for no one) and keeping it full until told.
    let endless = {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&fifo)
            .unwrap()
    };
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let filler = {
        let stop = stop.clone();
        let mut endless = endless.try_clone().unwrap();
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                if endless.write(&[b'y'; 4096]).is_err() {
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
        })
    };
    let args = [
        "packets",
        "verify",
        input,
        "--alg",
        "tcp-md5",
        "--key-table",
        fifo_table,
    ];
    let (status, stderr) = bounded(&args);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    filler.join().unwrap();
    drop(endless);
    assert_eq!(status, Some(2));
    assert_eq!(
        stderr,
        format!("linerate: {fifo_table}: line 1: cannot read key file key.fifo: {too_long}\n")
    );
    // The FIFO with no writer: at its end at once, not waiting for one.
    let (status, stderr) = bounded(&args);
    assert_eq!(status, Some(2));
    assert_eq!(
        stderr,
        format!("linerate: {fifo_table}: line 1: key file key.fifo is empty\n")
    );
    let fifo = fifo.to_str().unwrap();
    let (status, stderr) = bounded(&[
        "packets",
        "verify",
        input,
        "--alg",
        "hmac-md5-96",
        "--key-file",
        fifo,
    ]);
    assert_eq!(status, Some(2));
    assert_eq!(
        stderr,
        "linerate: the key file is empty: hmac-md5-96 needs a key\n"
    );
}

/// A TCP segment (IPv4, raw IP) with `options` (a multiple of 4 bytes).
fn segment_with(options: &[u8]) -> Vec<u8> {
    let mut tcp = tcp(b"payload");
    let offset = (20 + options.len()) / 4;
    tcp[12] = (offset as u8) << 4;
    tcp.splice(20..20, options.iter().copied());
    ipv4(6, &[], &tcp, 0, 64, 0)
}

/// Point 18: a segment with both TCP-AO and TCP-MD5 is malformed (RFC 5925
/// section 2.2), whichever algorithm signs or verifies it; and signing
/// never puts the one beside the other.
#[test]
fn tcp_ao_beside_tcp_md5_is_malformed() {
    let dir = scratch();
    let md5 = {
        let mut o = vec![19, 18];
        o.extend_from_slice(&[0xaa; 16]);
        o
    };
    let ao = {
        let mut o = vec![29, 16, 0, 0];
        o.extend_from_slice(&[0xbb; 12]);
        o
    };
    let mut both = [md5.clone(), ao.clone()].concat();
    both.extend_from_slice(&[1, 1]);
    let input = write(
        dir.path(),
        "both.pcap",
        &pcap(&[Rec::new(101, segment_with(&both))], false, false),
    );
    let input = input.to_str().unwrap();
    let out = dir.path().join("out.pcap");
    let out = out.to_str().unwrap();
    let why = "both a TCP-AO and a TCP-MD5 option (RFC 5925 section 2.2 allows one)";
    for alg in ["tcp-md5", "tcp-ao-hmac-sha1-96"] {
        let (status, stdout, stderr) = sign_with(input, out, alg);
        assert_eq!(status, 1, "{alg}: {stderr}");
        assert_eq!(stderr, format!("linerate: {input}: packet 1: {why}\n"));
        assert_eq!(stdout, "1 packets: 0 signed, 1 skipped (1 malformed)\n");
        let (status, stdout, stderr) = linerate(&[
            "packets",
            "verify",
            input,
            "--alg",
            alg,
            "--key-hex",
            KEY_HEX,
        ]);
        assert_eq!(status, 1, "{alg}");
        assert!(
            stderr.starts_with(&format!("linerate: {input}: packet 1: {why}\n")),
            "{stderr}"
        );
        let counts = if alg == "tcp-md5" {
            "0 verified, 0 bad digest, 0 no TCP-MD5 option, 0 not TCP, 1 malformed"
        } else {
            "0 verified, 0 bad MAC, 0 no TCP-AO option, 0 no SYN, 0 not TCP, 1 malformed"
        };
        assert_eq!(stdout, format!("1 packets: {counts}\n"));
    }
    // One option already there: the other algorithm does not add its own.
    for (option, alg, other) in [
        (&ao, "tcp-md5", "TCP-AO"),
        (&md5, "tcp-ao-hmac-sha1-96", "TCP-MD5"),
    ] {
        let mut options = option.clone();
        options.resize(options.len().div_ceil(4) * 4, 1);
        let input = write(
            dir.path(),
            "one.pcap",
            &pcap(&[Rec::new(101, segment_with(&options))], false, false),
        );
        let input = input.to_str().unwrap();
        let (status, _, stderr) = sign_with(input, out, alg);
        assert_eq!(status, 1, "{alg}");
        assert!(
            stderr.contains(&format!("packet 1: carries a {other} option:")),
            "{stderr}"
        );
        let written = read_capture(&std::fs::read(out).unwrap());
        assert_eq!(written[0].data, segment_with(&options), "{alg}");
    }
}

/// Runs `program ARGS` under `sh` with SIGPIPE ignored (`trap '' PIPE`)
/// or not, its standard output a pipe closed after the first byte: its
/// status and standard error.
pub fn with_reader_gone(ignored: bool, program: &str, args: &[&str]) -> (Option<i32>, String) {
    let trap = if ignored { "trap '' PIPE; " } else { "" };
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("{trap}exec \"$@\""))
        .arg("sh")
        .arg(program)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 1];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let mut stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = stderr.read_to_end(&mut text);
        text
    });
    let status = wait_bounded(&mut child, Duration::from_secs(60));
    use std::os::unix::process::ExitStatusExt;
    let code = status.code().or(status.signal().map(|s| 128 + s));
    (code, text(&reader.join().unwrap()))
}

/// Point 14 for `sign -o -`: a reader gone is a quiet end where SIGPIPE
/// kills, and the documented write error (exit 3) where it is ignored.
#[test]
fn sign_to_a_closed_pipe() {
    let dir = scratch();
    let input = write(dir.path(), "in.pcap", &capture(40_000));
    let input = input.to_str().unwrap();
    let args = sign_args(input, "-");
    let (status, stderr) = with_reader_gone(false, LINERATE, &args);
    assert_eq!((status, stderr.as_str()), (Some(141), ""));
    let (status, stderr) = with_reader_gone(true, LINERATE, &args);
    assert_eq!(status, Some(3));
    assert_eq!(
        stderr,
        "linerate: -: write error: Broken pipe, not written\n"
    );
}

/// Point 19: `--spi`'s range as the code takes it; `-` is standard input.
#[test]
fn spi_range_and_standard_input() {
    let dir = scratch();
    let input = write(dir.path(), "in.pcap", &capture(5));
    let input = input.to_str().unwrap();
    for (spi, why) in [
        (
            "4294967296",
            "'4294967296' is not a number from 1 to 4294967295",
        ),
        (
            "0x100000000",
            "'0x100000000' is not a number from 1 to 4294967295",
        ),
        ("0", "SPI 0 is reserved and never sent (RFC 4302 2.4)"),
    ] {
        let mut args = sign_args(input, "/dev/null");
        args[6] = spi;
        let (status, _, stderr) = linerate(&args);
        assert_eq!(status, 2);
        assert_eq!(
            stderr,
            format!(
                "linerate: --spi: {why}\nTry 'linerate packets --help' for more information.\n"
            )
        );
    }
    let mut args = sign_args(input, "-");
    args[6] = "1";
    assert_eq!(linerate(&args).0, 0, "SPI 1 is taken");
    // The capture on standard input, signed as from the file.
    let from_file = dir.path().join("from-file.pcap");
    let (status, _, stderr) = linerate(&sign_args(input, from_file.to_str().unwrap()));
    assert_eq!(status, 0, "{stderr}");
    let from_stdin = dir.path().join("from-stdin.pcap");
    let run = Command::new(LINERATE)
        .args(sign_args("-", from_stdin.to_str().unwrap()))
        .stdin(std::fs::File::open(input).unwrap())
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    assert_eq!(text(&run.stdout), "5 packets: 5 signed, 0 skipped\n");
    assert_eq!(
        std::fs::read(&from_stdin).unwrap(),
        std::fs::read(&from_file).unwrap()
    );
    let run = Command::new(LINERATE)
        .args(["packets", "verify", "-", "--alg", "hmac-md5-96"])
        .args(["--key-hex", KEY_HEX])
        .stdin(std::fs::File::open(&from_stdin).unwrap())
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    // Not both the capture and the key.
    let (status, _, stderr) = linerate(&[
        "packets",
        "sign",
        "-",
        "-o",
        "-",
        "--spi",
        "1",
        "--alg",
        "hmac-md5-96",
        "--key-file",
        "-",
    ]);
    assert_eq!(status, 2);
    assert!(
        stderr.starts_with(
            "linerate: sign: standard input cannot be both the capture and the key file\n"
        ),
        "{stderr}"
    );
}
