//! `linerate mac` with the UMACs: RFC 4418's appendix vectors (the 2^25
//! row as corrected by erratum 3507) with the key from a file and from hex,
//! random files, keys and nonces against Nettle, and one nonce for every
//! file of a run.

use crate::support::{RFC_KEY, RFC_NONCE, Rng, arg, hex, mac, mac_in, nettle_umac, scratch, write};
use std::ffi::OsString;

const UMACS: [(&str, usize); 4] = [
    ("umac-32", 4),
    ("umac-64", 8),
    ("umac-96", 12),
    ("umac-128", 16),
];

/// (pattern, repetitions, UMAC-32, UMAC-64, UMAC-96, UMAC-128): RFC 4418's
/// appendix (as in `crates/linerate/tests/umac_vectors.rs`), UMAC-128 from
/// Nettle 3.8's test suite.
const RFC_4418: [(&str, usize, &str, &str, &str, &str); 7] = [
    (
        "a",
        0,
        "113145FB",
        "6E155FAD26900BE1",
        "32FEDB100C79AD58F07FF764",
        "32fedb100c79ad58f07ff7643cc60465",
    ),
    (
        "a",
        3,
        "3B91D102",
        "44B5CB542F220104",
        "185E4FE905CBA7BD85E4C2DC",
        "185e4fe905cba7bd85e4c2dc3d117d8d",
    ),
    (
        "a",
        1 << 10,
        "599B350B",
        "26BF2F5D60118BD9",
        "7A54ABE04AF82D60FB298C3C",
        "7a54abe04af82d60fb298c3cbd195bcb",
    ),
    (
        "a",
        1 << 15,
        "58DCF532",
        "27F8EF643B0D118D",
        "7B136BD911E4B734286EF2BE",
        "7b136bd911e4b734286ef2be501f2c3c",
    ),
    (
        "a",
        1 << 20,
        "DB6364D1",
        "A4477E87E9F55853",
        "F8ACFA3AC31CFEEA047F7B11",
        "f8acfa3ac31cfeea047f7b115b03bef5",
    ),
    (
        "abc",
        1,
        "ABF3A3A0",
        "D4D7B9F6BD4FBFCF",
        "883C3D4B97A61976FFCF2323",
        "883c3d4b97a61976ffcf232308cba5a5",
    ),
    (
        "abc",
        500,
        "ABEB3C8B",
        "D4CF26DDEFD5C01A",
        "8824A260C53C66A36C9260A6",
        "8824a260c53c66a36c9260a62cb83aa1",
    ),
];

#[test]
fn rfc_4418_vectors_with_keys_from_a_file_and_from_hex() {
    let dir = scratch();
    let key_file = write(dir.path(), "key", RFC_KEY);
    let mut names = Vec::new();
    for (i, (pattern, reps, ..)) in RFC_4418.iter().enumerate() {
        write(
            dir.path(),
            format!("m{i}"),
            pattern.repeat(*reps).as_bytes(),
        );
        names.push(arg(format!("m{i}")));
    }
    for (u, (algorithm, _)) in UMACS.iter().enumerate() {
        let expected: String = RFC_4418
            .iter()
            .enumerate()
            .map(|(i, row)| {
                let tag = [row.2, row.3, row.4, row.5][u];
                format!("{}  m{i}\n", tag.to_lowercase())
            })
            .collect();
        let keys = [
            vec![arg("--key-file"), key_file.clone().into_os_string()],
            vec![arg("--key-hex"), arg(hex(RFC_KEY))],
        ];
        for key in keys {
            let mut args: Vec<OsString> = vec![arg("-a"), arg(algorithm)];
            args.extend(key);
            // RFC 4418's vectors share one nonce: accepted as such.
            args.extend([
                arg("--nonce-hex"),
                arg(hex(RFC_NONCE)),
                arg("--nonce-reuse"),
            ]);
            args.extend(names.iter().cloned());
            let out = mac_in(dir.path(), &args, None);
            assert_eq!(out.status, Some(0), "{}", out.stderr_text());
            assert_eq!(out.stdout_text(), expected, "{algorithm}");
        }
    }
}

/// The one row past 2^24 bytes (POLY's 128-bit stage), 32 MiB through
/// standard input.
#[test]
fn rfc_4418_erratum_3507_row_through_standard_input() {
    let dir = scratch();
    let message = vec![b'a'; 1 << 25];
    let expected = [
        "85ee5cae",
        "faca46f856e9b45f",
        "a621c2457c0012e64f3fdae9",
        "a621c2457c0012e64f3fdae9e7e1870c",
    ];
    for ((algorithm, _), tag) in UMACS.iter().zip(expected) {
        let out = mac(
            dir.path(),
            &[
                "-a",
                algorithm,
                "--key-hex",
                &hex(RFC_KEY),
                "--nonce-hex",
                &hex(RFC_NONCE),
                "--tag",
            ],
            Some(&message),
        );
        assert_eq!(
            out.stdout_text(),
            format!("{} (-) = {tag}\n", algorithm.to_uppercase())
        );
    }
}

#[test]
fn random_files_keys_and_nonces_match_nettle() {
    let dir = scratch();
    let mut rng = Rng::new(3);
    // Around UMAC's 32-byte NH blocks and 1024-byte chunks, and past the
    // CLI's 256 KiB read chunk.
    let sizes = [0usize, 1, 31, 32, 33, 1023, 1024, 1025, 2049, 5000, 262_145];
    let files: Vec<Vec<u8>> = sizes.iter().map(|&n| rng.bytes(n)).collect();
    let mut names = Vec::new();
    for (i, data) in files.iter().enumerate() {
        write(dir.path(), format!("f{i}"), data);
        names.push(format!("f{i}"));
    }
    let mut requests = Vec::new();
    let mut runs = Vec::new();
    // Nonces of every length class: 1 byte, a full block, in between.
    for (round, nonce_len) in [1, 16, 8, 3, 12, 5, 16, 1].into_iter().enumerate() {
        let (algorithm, bytes) = UMACS[round % 4];
        let key: [u8; 16] = rng.bytes(16).try_into().unwrap();
        let nonce = rng.bytes(nonce_len);
        runs.push((algorithm, bytes, key, nonce));
    }
    for (_, bytes, key, nonce) in &runs {
        for data in &files {
            requests.push((*bytes, key, nonce.as_slice(), data.as_slice()));
        }
    }
    let Some(expected) = nettle_umac(&requests) else {
        return;
    };
    let mut answers = expected.iter();
    for (r, (algorithm, _, key, nonce)) in runs.iter().enumerate() {
        let mut args: Vec<OsString> = vec![arg("-a"), arg(algorithm)];
        if r % 2 == 0 {
            let key_file = write(dir.path(), format!("key{r}"), key);
            args.extend([arg("--key-file"), key_file.into_os_string()]);
        } else {
            args.push(arg(format!("--key-hex={}", hex(key).to_uppercase())));
        }
        // Every file under the one nonce nettle used for all of them.
        args.extend([arg("--nonce-hex"), arg(hex(nonce)), arg("--nonce-reuse")]);
        args.extend(names.iter().map(arg));
        let out = mac_in(dir.path(), &args, None);
        assert_eq!(out.status, Some(0), "{}", out.stderr_text());
        let expected: String = names
            .iter()
            .map(|name| format!("{}  {name}\n", answers.next().unwrap()))
            .collect();
        assert_eq!(
            out.stdout_text(),
            expected,
            "{algorithm}, nonce {}",
            hex(nonce)
        );
    }
}

/// Every file of a run is tagged under the same nonce: the same as one run
/// per file, and equal files get equal tags.
#[test]
fn one_nonce_for_every_file() {
    let dir = scratch();
    write(dir.path(), "x", b"abc");
    write(dir.path(), "y", b"something else");
    write(dir.path(), "z", b"abc");
    let base = [
        "-a",
        "umac-64",
        "--key-hex",
        "6162636465666768696a6b6c6d6e6f70",
        "--nonce-hex",
        "6263646566676869",
    ];
    // Refused without --nonce-reuse: three files under one nonce.
    let refused = mac(dir.path(), &[&base[..], &["x", "y", "z"]].concat(), None);
    assert_eq!(refused.status, Some(2));
    assert_eq!(
        refused.stderr_text(),
        "linerate: umac-64: --nonce-hex would tag 3 files under one nonce; give --nonce-start HEX \
         (a nonce per file) or --nonce-reuse to accept that\n"
    );
    assert_eq!(refused.stdout_text(), "");
    let reuse = [&base[..], &["--nonce-reuse"]].concat();
    let all = mac(dir.path(), &[&reuse[..], &["x", "y", "z"]].concat(), None);
    let one_by_one: String = ["x", "y", "z"]
        .iter()
        .map(|f| mac(dir.path(), &[&base[..], &[f]].concat(), None).stdout_text())
        .collect();
    assert_eq!(all.stdout_text(), one_by_one);
    let lines: Vec<&str> = one_by_one.lines().collect();
    assert_eq!(lines[0], "d4d7b9f6bd4fbfcf  x");
    assert_eq!(lines[2], "d4d7b9f6bd4fbfcf  z");
    assert_ne!(lines[1][..16], lines[0][..16]);
}

/// `--nonce-start`: file k is tagged under the start plus k (a big-endian
/// number of the start's length), the same tags as one run per file with
/// that nonce; a start too short for the files is refused before any is
/// read; nonces that only differ by trailing zero bytes are one nonce.
#[test]
fn a_nonce_per_file_counted_from_nonce_start() {
    let dir = scratch();
    write(dir.path(), "x", b"abc");
    write(dir.path(), "y", b"abc");
    write(dir.path(), "z", b"abc");
    let key = [
        "-a",
        "umac-64",
        "--key-hex",
        "6162636465666768696a6b6c6d6e6f70",
    ];
    let counted = mac(
        dir.path(),
        &[&key[..], &["--nonce-start", "00fe", "x", "y", "z"]].concat(),
        None,
    );
    assert_eq!(counted.status, Some(0), "{}", counted.stderr_text());
    let one_by_one: String = [("x", "00fe"), ("y", "00ff"), ("z", "0100")]
        .iter()
        .map(|(f, n)| {
            mac(
                dir.path(),
                &[&key[..], &["--nonce-hex", n, f]].concat(),
                None,
            )
            .stdout_text()
        })
        .collect();
    assert_eq!(counted.stdout_text(), one_by_one);
    let tags: Vec<&str> = one_by_one.lines().map(|l| &l[..16]).collect();
    assert!(
        tags[0] != tags[1] && tags[1] != tags[2] && tags[0] != tags[2],
        "{tags:?}"
    );
    // The same nonces check the list, line by line.
    write(dir.path(), "list", counted.stdout.as_slice());
    let checked = mac(
        dir.path(),
        &[&key[..], &["--nonce-start", "00fe", "-c", "list"]].concat(),
        None,
    );
    assert_eq!(checked.status, Some(0), "{}", checked.stderr_text());
    assert_eq!(checked.stdout_text(), "x: OK\ny: OK\nz: OK\n");
    // One byte from fe: fe, ff, and no third.
    let short = mac(
        dir.path(),
        &[&key[..], &["--nonce-start", "fe", "x", "y", "z"]].concat(),
        None,
    );
    assert_eq!(short.status, Some(2));
    assert_eq!(
        short.stderr_text(),
        "linerate: --nonce-start: 3 files need more nonces than its 1 bytes leave; give a longer one\n"
    );
    // 00 and 0000: one nonce (UMAC pads nonces with zeros).
    let a = mac(
        dir.path(),
        &[&key[..], &["--nonce-hex", "00", "x"]].concat(),
        None,
    );
    let b = mac(
        dir.path(),
        &[&key[..], &["--nonce-hex", "0000", "x"]].concat(),
        None,
    );
    assert_eq!(a.stdout_text(), b.stdout_text());
}
