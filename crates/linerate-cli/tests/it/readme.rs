//! The README's examples give exactly the transcript recorded in
//! `tests/it/data/readme-examples.txt` (made with the build before the crates were
//! split; recorded again when `audit MANIFEST` stopped reporting the rest
//! of the current directory as new): `scripts/readme_examples.sh` runs them
//! on fixed files and prints every output, message, exit status and
//! written file's digest.

use std::path::Path;
use std::process::Command;

#[test]
fn the_readme_examples_give_the_recorded_transcript() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new("bash")
        .arg(root.join("scripts/readme_examples.sh"))
        .arg(env!("CARGO_BIN_EXE_linerate"))
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let want = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/data/readme-examples.txt"),
    )
    .expect("the recorded transcript");
    let got = String::from_utf8_lossy(&out.stdout);
    if got != want {
        let first = got
            .lines()
            .zip(want.lines())
            .position(|(g, w)| g != w)
            .unwrap_or(got.lines().count().min(want.lines().count()));
        panic!(
            "the transcript differs from line {}:\n got: {:?}\nwant: {:?}",
            first + 1,
            got.lines().nth(first),
            want.lines().nth(first)
        );
    }
}
