//! The crate graph stays as docs/ARCHITECTURE.md draws it: the binary and
//! the lab are leaves nothing in the workspace depends on; the Python
//! package sits on the library crates only, and the fuzz targets on them and
//! the lab (for its saved-run reader, `report --from`'s input), never on the
//! binary.

use std::path::Path;
use std::process::Command;

/// The crates (by name) in the normal dependency tree of `package` in the
/// workspace of `manifest`.
fn dependencies(manifest: &Path, package: &str) -> Vec<String> {
    let out = Command::new(env!("CARGO"))
        .args([
            "tree", "--locked", "--edges", "normal", "--prefix", "none", "--format", "{p}",
        ])
        .arg("--manifest-path")
        .arg(manifest)
        .args(["--package", package])
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree -p {package}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

#[test]
fn nothing_depends_on_the_binary_or_the_lab() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let workspace = root.join("Cargo.toml");
    for library in [
        "linerate",
        "linerate-sumfile",
        "linerate-files",
        "linerate-packets",
    ] {
        let deps = dependencies(&workspace, library);
        assert!(deps.iter().any(|d| d == library), "{library}: {deps:?}");
        for front in ["linerate-cli", "linerate-lab", "linerate-python"] {
            assert!(
                !deps.iter().any(|d| d == front),
                "{library} depends on {front}"
            );
        }
    }
    let python = dependencies(&workspace, "linerate-python");
    assert!(python.iter().any(|d| d == "linerate-files"), "{python:?}");
    assert!(
        !python
            .iter()
            .any(|d| d == "linerate-cli" || d == "linerate-lab")
    );
    // Only the lab links the plotting and the 1998 ciphers.
    let files = dependencies(&workspace, "linerate-files");
    assert!(
        !files.iter().any(|d| d == "plotters" || d == "des"),
        "{files:?}"
    );
    let fuzz = dependencies(&root.join("fuzz/Cargo.toml"), "linerate-fuzz");
    for library in [
        "linerate-fuzz-props",
        "linerate-packets",
        "linerate-sumfile",
    ] {
        assert!(fuzz.iter().any(|d| d == library), "{library}: {fuzz:?}");
    }
    assert!(!fuzz.iter().any(|d| d == "linerate-cli"), "{fuzz:?}");
}
