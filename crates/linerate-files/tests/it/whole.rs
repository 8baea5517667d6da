//! Whole files in input order: every regular file through the lanes (or
//! alone), the rest on the calling thread, errors in their places, the same
//! outcomes on any thread count.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

use linerate::HashAlgorithm;
use linerate_files::whole::hash_in_order;
use linerate_files::{FileError, Input, NoProgress};

use crate::{Rng, write};

/// The digest of `data` by definition.
fn expected(algorithm: HashAlgorithm, data: &[u8]) -> [u8; 16] {
    let mut h = algorithm.hasher();
    h.update(data);
    h.finalize()
}

#[test]
fn many_files_of_every_size_come_back_in_order_on_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(42);
    // Lengths across the block and lane-chunk boundaries, small and large,
    // more files than one engine's width.
    let mut lens: Vec<usize> = vec![0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 4095, 65536, 65537];
    lens.extend((0..40).map(|_| rng.below(300_000)));
    lens.push((5 << 20) + 3);
    let mut files = Vec::new();
    for (i, &len) in lens.iter().enumerate() {
        let data = rng.bytes(len);
        let path = write(dir.path(), &format!("f{i:03}"), &data);
        files.push((path, data));
    }
    let missing = dir.path().join("missing");
    let inputs: Vec<Input<'_>> = files
        .iter()
        .map(|(p, _)| Input::Path(p.as_os_str()))
        .chain([
            Input::Path(missing.as_os_str()),
            Input::Path(dir.path().as_os_str()),
        ])
        .collect();
    for algorithm in [HashAlgorithm::Md5, HashAlgorithm::Md5p(16)] {
        for threads in [1, 2, 5] {
            let mut got: Vec<(usize, Result<[u8; 16], FileError>)> = Vec::new();
            hash_in_order(&inputs, algorithm, threads, &NoProgress, |i, r| {
                got.push((i, r))
            });
            assert_eq!(got.len(), inputs.len());
            for (at, (i, result)) in got.iter().enumerate() {
                assert_eq!(*i, at, "in input order");
                match files.get(at) {
                    Some((path, data)) => assert_eq!(
                        result.as_ref().ok(),
                        Some(&expected(algorithm, data)),
                        "{} {algorithm:?} {threads}",
                        path.display()
                    ),
                    None => assert!(result.is_err()),
                }
            }
            let (_, missing) = &got[files.len()];
            assert!(missing.as_ref().is_err_and(FileError::is_missing));
            // A directory opens, then fails to read: no digest, not missing.
            let (_, directory) = &got[files.len() + 1];
            assert!(matches!(directory, Err(FileError::Read(_))));
        }
    }
}

#[test]
fn a_path_is_never_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    let dash = write(dir.path(), "-", b"not stdin");
    let mut got = Vec::new();
    // Relative to the directory: the path `-` itself.
    let inputs = [Input::Path(OsStr::from_bytes(dash.as_os_str().as_bytes()))];
    hash_in_order(&inputs, HashAlgorithm::Md5, 2, &NoProgress, |_, r| {
        got.push(r)
    });
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].as_ref().ok(), Some(&linerate::md5(b"not stdin")));
}
