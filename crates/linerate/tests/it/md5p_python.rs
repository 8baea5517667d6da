//! MD5-P/K against the Python reference of docs/md5p.md, run by `python3` on a few
//! random files (skipped, with a note, where python3 is missing).

use crate::support::Rng;
use linerate::md5p::md5p;
use std::path::PathBuf;
use std::process::Command;

/// The reference function of docs/md5p.md, taken from the document itself
/// (its Python block), and a driver: K, then files; prints one hex digest
/// per file.
fn reference() -> String {
    let doc = include_str!("../../../../docs/md5p.md");
    let start = doc
        .find("```python\n")
        .expect("docs/md5p.md has a Python block")
        + 10;
    let len = doc[start..].find("```").expect("the block ends");
    let mut program = doc[start..start + len].to_string();
    program.push_str(
        "\nimport sys\nk = int(sys.argv[1])\nfor name in sys.argv[2:]:\n    \
         with open(name, \"rb\") as f:\n        print(md5p(f.read(), k).hex())\n",
    );
    program
}

/// A directory of its own under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> TempDir {
        let dir = std::env::temp_dir().join(format!("linerate-md5p-py-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn matches_the_python_reference_on_random_files() {
    if Command::new("python3").arg("--version").output().is_err() {
        crate::support::peer_missing(
            "python3 not found: the Python reference comparison is skipped",
        );
        return;
    }
    let mut rng = Rng::new(9000);
    let dir = TempDir::new();
    let sizes = [
        0,
        1,
        63,
        64,
        65,
        4096 + 17,
        100_000 + rng.below(1000),
        1_000_003,
    ];
    let files: Vec<(PathBuf, Vec<u8>)> = sizes
        .iter()
        .enumerate()
        .map(|(i, &len)| {
            let path = dir.0.join(format!("f{i}"));
            let data = rng.bytes(len);
            std::fs::write(&path, &data).unwrap();
            (path, data)
        })
        .collect();
    for k in [4, 8, 16, 32, 36, 256] {
        let out = Command::new("python3")
            .args(["-c", &reference(), &k.to_string()])
            .args(files.iter().map(|(p, _)| p))
            .output()
            .expect("python3 runs");
        assert!(
            out.status.success(),
            "python3 failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let lines: Vec<String> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect();
        assert_eq!(lines.len(), files.len(), "one digest per file");
        for ((_, data), want) in files.iter().zip(&lines) {
            assert_eq!(
                &hex::encode(md5p(k, data).unwrap()),
                want,
                "K={k}, {} bytes",
                data.len()
            );
        }
    }
}
