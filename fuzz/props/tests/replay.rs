//! Replays every committed seed (`fuzz/seeds/TARGET/*`) through its
//! target's property, on stable, in every `cargo test`: one test per
//! target. With `LINERATE_FUZZ_WRITE_SEEDS=1`, `write_seeds` first
//! rewrites the generated seeds (`gen-*`), leaving the fuzzer's finds; with
//! `LINERATE_FUZZ_REPLAY_CORPUS=1` the working corpora (`fuzz/corpus/`)
//! are replayed too.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use linerate_fuzz_props::{TARGETS, seeds, target};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The files of `dir`, sorted by name; none if it does not exist.
fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// Runs `property` on `data` on a thread of its own, for at most
/// `limit`: `Err` with the panic or "timed out".
fn run_bounded(property: fn(&[u8]), data: Vec<u8>, limit: Duration) -> Result<(), String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let outcome = std::panic::catch_unwind(|| property(&data)).map_err(|e| {
            e.downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "panicked".into())
        });
        let _ = tx.send(outcome);
    });
    rx.recv_timeout(limit)
        .unwrap_or_else(|_| Err(format!("timed out after {limit:?}")))
}

fn replay(name: &str) {
    let property = target(name).expect("a registered target");
    let dir = fuzz_dir().join("seeds").join(name);
    let mut inputs = files(&dir);
    assert!(!inputs.is_empty(), "no seeds in {}", dir.display());
    // After a property changes: what libFuzzer kept too (git-ignored).
    if std::env::var_os("LINERATE_FUZZ_REPLAY_CORPUS").is_some_and(|v| v == "1") {
        inputs.extend(files(&fuzz_dir().join("corpus").join(name)));
    }
    let mut failed = Vec::new();
    for path in &inputs {
        let data = fs::read(path).expect("a seed reads");
        if let Err(why) = run_bounded(property, data, Duration::from_secs(60)) {
            failed.push(format!("{}: {why}", path.display()));
        }
    }
    println!("replayed {} inputs of {name}", inputs.len());
    assert!(
        failed.is_empty(),
        "{} of {} failed:\n{}",
        failed.len(),
        inputs.len(),
        failed.join("\n")
    );
}

macro_rules! replay_tests {
    ($($name:ident),* $(,)?) => {
        $(#[test] fn $name() { replay(stringify!($name)); })*

        /// Every target has a test here, a `fuzz_targets/` file and seeds.
        #[test]
        fn every_target_is_replayed_and_fuzzed() {
            let tested = [$(stringify!($name)),*];
            let registered: Vec<&str> = TARGETS.iter().map(|(n, _)| *n).collect();
            assert_eq!(tested.as_slice(), registered.as_slice());
            let mut sources: Vec<String> = files(&fuzz_dir().join("fuzz_targets"))
                .iter()
                .filter_map(|p| Some(p.file_stem()?.to_str()?.to_string()))
                .collect();
            sources.sort();
            let mut names: Vec<String> = registered.iter().map(|n| n.to_string()).collect();
            names.sort();
            assert_eq!(sources, names, "fuzz_targets/*.rs and TARGETS differ");
        }
    };
}

replay_tests!(
    check_line,
    check_sum,
    check_cksum,
    check_mac,
    check_etag,
    quote_name,
    listing,
    manifest,
    tcp_options,
    pcapng,
    packets_parse,
    packets_ah,
    key_table,
    lab_run,
    md5_reference,
);

/// Writes `dir/gen-NAME` for each seed, after removing the old `gen-*`.
fn write_generated(root: &Path, generated: &[seeds::Seed]) {
    for (name, _) in TARGETS {
        for old in files(&root.join(name)) {
            if old
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("gen-"))
            {
                fs::remove_file(old).expect("an old seed removed");
            }
        }
    }
    for (target, name, data) in generated {
        let dir = root.join(target);
        fs::create_dir_all(&dir).expect("a seed directory");
        fs::write(dir.join(format!("gen-{name}")), data).expect("a seed written");
    }
}

/// Regenerates the seeds with `LINERATE_FUZZ_WRITE_SEEDS=1`; otherwise
/// checks that the committed ones are what the generator writes now.
#[test]
fn write_seeds() {
    let vectors = fs::read_to_string(
        fuzz_dir().join("../crates/linerate-packets/tests/data/rfc9235-vectors.txt"),
    )
    .expect("RFC 9235's vectors");
    let generated = seeds::all(&vectors);
    let known = seeds::known_failures();
    if std::env::var_os("LINERATE_FUZZ_WRITE_SEEDS").is_some_and(|v| v == "1") {
        write_generated(&fuzz_dir().join("seeds"), &generated);
        write_generated(&fuzz_dir().join("known_failures"), &known);
    }
    for (root, seeds) in [("seeds", &generated), ("known_failures", &known)] {
        for (target, name, data) in seeds {
            let path = fuzz_dir()
                .join(root)
                .join(target)
                .join(format!("gen-{name}"));
            let committed = fs::read(&path).unwrap_or_default();
            assert!(
                committed == *data,
                "{} is not what the generator writes: run LINERATE_FUZZ_WRITE_SEEDS=1 cargo test \
                 --manifest-path fuzz/Cargo.toml -p linerate-fuzz-props write_seeds",
                path.display()
            );
        }
    }
}

/// The inputs of bugs found outside the fuzz workspace and not fixed yet
/// (`fuzz/known_failures/`): each must still fail; one that passes moves
/// to the seeds. Ignored, so that CI stays green until they are fixed.
#[test]
#[ignore = "known failures in other crates: see docs/fuzzing.md"]
fn known_failures_still_fail() {
    let mut fixed = Vec::new();
    for (name, property) in TARGETS {
        for path in files(&fuzz_dir().join("known_failures").join(name)) {
            let data = fs::read(&path).expect("an input reads");
            match run_bounded(*property, data, Duration::from_secs(10)) {
                Ok(()) => fixed.push(path.display().to_string()),
                Err(why) => println!("{}: still fails: {why}", path.display()),
            }
        }
    }
    assert!(
        fixed.is_empty(),
        "fixed now, move to fuzz/seeds/: {fixed:?}"
    );
}
