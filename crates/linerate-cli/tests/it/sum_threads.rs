//! `linerate sum` over many files: the worker threads and the lanes of the
//! job manager must not change a byte of the output. Every thread count,
//! every lanes backend and md5sum agree, errors included, in argument order.

use std::fs;
use std::path::Path;

use crate::support::{Input, Outcome, Rng, Run, random_bytes, scratch, write};

/// `files` + 8 operands in a scratch directory: files of random sizes
/// (mostly small, one in ten up to `large` bytes so that it spans several
/// read chunks, some exactly a chunk), with missing files, a directory,
/// `/dev/null` and standard input among them.
fn many_operands(dir: &Path, files: usize, large: usize) -> Vec<Vec<u8>> {
    let mut rng = Rng::new(0x7357_0002);
    fs::create_dir(dir.join("subdir")).expect("mkdir");
    let mut operands = Vec::new();
    for i in 0..files {
        let size = match i % 10 {
            0 => rng.below(large),
            1 => [0, 1, 64, 65, 256 << 10, 512 << 10, 1 << 20][rng.below(7)],
            _ => rng.below(70_000),
        };
        let name = format!("file{i:03}");
        write(dir, name.as_bytes(), &random_bytes(&mut rng, size));
        operands.push(name.into_bytes());
        match i {
            _ if i == 7 || i == files / 2 - 10 || i == files - 1 => {
                operands.push(format!("missing{i}").into_bytes());
            }
            _ if i == files / 2 => operands.push(b"subdir".to_vec()),
            _ if i == files / 2 + 1 => operands.push(b"/dev/null".to_vec()),
            _ if i == files * 3 / 4 => operands.push(b"-".to_vec()),
            // A regular file whose first read fails (EIO), among files in
            // the lanes: the read error path of a batch.
            _ if i == files / 4 && Path::new(PROC_MEM).exists() => {
                operands.push(PROC_MEM.as_bytes().to_vec());
            }
            _ => {}
        }
    }
    // The same file twice, and a name that needs escaping.
    write(dir, b"new\nline", b"x");
    operands.push(b"file003".to_vec());
    operands.push(b"new\nline".to_vec());
    operands
}

/// `linerate sum LEADING... OPERANDS...` in `dir`, with some standard input.
fn run_with<'a>(dir: &'a Path, leading: &[&[u8]], operands: &[Vec<u8>]) -> Run<'a> {
    let mut args: Vec<&[u8]> = leading.to_vec();
    args.extend(operands.iter().map(Vec::as_slice));
    Run::new(dir, &args).stdin(Input::Bytes(b"standard input"))
}

/// Linux's memory of the reading process: a regular file of size 0 whose
/// read at offset 0 fails with EIO, for md5sum as for us.
const PROC_MEM: &str = "/proc/self/mem";

/// The diagnostics of [`many_operands`]`(_, 120, _)`, in order.
fn check_errors(out: &Outcome) {
    assert_eq!(out.status, Some(1));
    let proc_mem = if Path::new(PROC_MEM).exists() {
        "linerate: /proc/self/mem: Input/output error\n"
    } else {
        ""
    };
    assert_eq!(
        out.stderr_text(),
        format!(
            "linerate: missing7: No such file or directory\n\
             {proc_mem}\
             linerate: missing50: No such file or directory\n\
             linerate: subdir: Is a directory\n\
             linerate: missing119: No such file or directory\n"
        )
    );
}

/// How many operands failed: one diagnostic line each.
fn out_failures(out: &Outcome) -> usize {
    out.stderr_text().lines().count()
}

#[test]
fn thread_counts_give_identical_output_in_order() {
    let dir = scratch();
    let operands = many_operands(dir.path(), 120, 3 << 19);
    let default = run_with(dir.path(), &[], &operands).assert_same();
    check_errors(&default);
    let failed = out_failures(&default);
    assert_eq!(
        default.stdout_text().lines().count(),
        operands.len() - failed
    );
    for threads in ["1", "2", "4", "7"] {
        let out = run_with(dir.path(), &[b"-j", threads.as_bytes()], &operands).linerate();
        assert_eq!(out, default, "-j {threads}");
    }
    // The same for MD5-P/16, and with --tag.
    let md5p = run_with(dir.path(), &[b"-a", b"md5p16", b"--tag"], &operands).linerate();
    check_errors(&md5p);
    for threads in ["1", "3"] {
        let out = run_with(
            dir.path(),
            &[b"-a", b"md5p16", b"--tag", b"--threads", threads.as_bytes()],
            &operands,
        )
        .linerate();
        assert_eq!(out, md5p, "md5p16 -j {threads}");
    }
}

#[test]
fn every_lanes_backend_matches_md5sum() {
    // Fewer and smaller files: the portable backend is slow unoptimised.
    let dir = scratch();
    let operands = many_operands(dir.path(), 40, 5 << 18);
    // md5sum knows no -j: it sees the default, one thread per core.
    let expected = run_with(dir.path(), &[], &operands).assert_same();
    // One thread (all files share one engine) or three, by turns.
    for (backend, threads) in
        linerate::lanes::LanesBackend::supported().zip(["1", "3"].iter().cycle())
    {
        let out = run_with(dir.path(), &[b"-j", threads.as_bytes()], &operands)
            .env("LINERATE_LANES_BACKEND", backend.name())
            .linerate();
        assert_eq!(out, expected, "{backend} -j {threads}");
    }
}

#[test]
fn many_small_files_match_md5sum() {
    let dir = scratch();
    let mut rng = Rng::new(0x7357_0003);
    let names: Vec<Vec<u8>> = (0..400)
        .map(|i| {
            let name = format!("s{i}");
            let size = rng.below(3000);
            write(dir.path(), name.as_bytes(), &random_bytes(&mut rng, size));
            name.into_bytes()
        })
        .collect();
    for mode in [&[][..], &[&b"--tag"[..]], &[b"-z"]] {
        let out = run_with(dir.path(), mode, &names).assert_same();
        assert_eq!(out.status, Some(0));
        let mut threaded = mode.to_vec();
        threaded.extend([&b"-j"[..], b"3"]);
        assert_eq!(run_with(dir.path(), &threaded, &names).linerate(), out);
    }
}

#[test]
fn a_large_file_among_small_ones() {
    // The large file is hashed alone, the small ones in lanes meanwhile.
    let dir = scratch();
    let mut rng = Rng::new(0x7357_0004);
    let mut names = Vec::new();
    for i in 0..12 {
        let size = if i == 2 { 9 << 20 } else { rng.below(5000) };
        let name = format!("m{i}");
        write(dir.path(), name.as_bytes(), &random_bytes(&mut rng, size));
        names.push(name.into_bytes());
    }
    let expected = run_with(dir.path(), &[], &names).assert_same();
    for threads in ["1", "2", "4", "16"] {
        let out = run_with(dir.path(), &[b"-j", threads.as_bytes()], &names).linerate();
        assert_eq!(out, expected, "-j {threads}");
    }
}
