//! `linerate sum --check` against GNU md5sum: every line form, malformed
//! lines, the reporting options, odd checksum files, and a seeded random
//! sweep over generated checksum files.

use std::path::Path;

use crate::support::{ABC_HEX, EMPTY_HEX, Input, Rng, Run, awkward_tree, hex, write};

/// Every combination of the reporting options worth telling apart.
const REPORTING: &[&[&[u8]]] = &[
    &[],
    &[b"--quiet"],
    &[b"--status"],
    &[b"-w"],
    &[b"--strict"],
    &[b"--ignore-missing"],
    &[b"--strict", b"-w"],
    &[b"--strict", b"--status"],
    &[b"--quiet", b"--ignore-missing", b"-w"],
    &[b"-w", b"--status"],
    &[b"--status", b"-w"],
];

/// Runs `-c OPTIONS FILES` under every reporting combination.
fn check_every_way(dir: &Path, files: &[&[u8]], stdin: &[u8]) {
    for options in REPORTING {
        let args: Vec<&[u8]> = [&b"-c"[..]]
            .into_iter()
            .chain(options.iter().copied())
            .chain(files.iter().copied())
            .collect();
        Run::new(dir, &args)
            .stdin(Input::Bytes(stdin))
            .assert_same();
    }
}

fn digest_of(name: &[u8]) -> String {
    hex(linerate::md5(name))
}

#[test]
fn every_accepted_line_form() {
    let dir = awkward_tree();
    let star = digest_of(b"*star");
    let lines = format!(
        "{ABC_HEX}  a\n\
         {EMPTY_HEX} *empty\n\
         {ABC_HEX}\t a\n\
         {ABC_HEX}\t*a\n\
         \x20\t{upper}  a\n\
         {ABC_HEX}  a\r\n\
         MD5 (a) = {ABC_HEX}\n\
         MD5(a) = {ABC_HEX}\n\
         MD5 (a)={ABC_HEX}\n\
         MD5 (a)\t =\t{ABC_HEX}\n\
         MD5 (empty) = {EMPTY_HEX}\0trailing junk after a NUL\n\
         \\{nl}  new\\nline\n\
         \\MD5 (back\\\\slash) = {bs}\n\
         \\{cr}  carriage\\rreturn\n\
         {star}  *star\n\
         {paren}  paren)s(\n\
         MD5 (paren)s() = {paren}\n\
         # a comment\n\
         \n\
         \r\n\
         {ABC_HEX}  a",
        upper = ABC_HEX.to_uppercase(),
        nl = digest_of(b"new\nline"),
        bs = digest_of(b"back\\slash"),
        cr = digest_of(b"carriage\rreturn"),
        paren = digest_of(b"paren)s("),
    );
    write(dir.path(), b"sums", lines.as_bytes());
    check_every_way(dir.path(), &[b"sums"], b"");
    let out = Run::new(dir.path(), &[b"-c", b"sums"]).linerate();
    assert_eq!(out.status, Some(0), "{}", out.stderr_text());
    assert!(out.stderr.is_empty());
    assert_eq!(out.stdout_text().lines().count(), 18);
    assert!(out.stdout_text().contains("\\new\\nline: OK\n"));
    // A name with a carriage return but no newline is reported raw.
    assert!(
        out.stdout
            .windows(20)
            .any(|w| w == b"carriage\rreturn: OK\n")
    );
}

#[test]
fn malformed_lines_are_counted_warned_and_strict() {
    let dir = awkward_tree();
    let lines = format!(
        "{ABC_HEX}  a\n\
         garbage\n\
         {short}  a\n\
         {ABC_HEX}0  a\n\
         {ABC_HEX}\n\
         {bad_hex}  a\n\
         MD5  (a) = {ABC_HEX}\n\
         MD5 (a) = {ABC_HEX} \n\
         md5 (a) = {ABC_HEX}\n\
         SHA1 (a) = {ABC_HEX}\n\
         \\{ABC_HEX}  bad\\tescape\n\
         \\{ABC_HEX}  trailing\\\n\
         {ABC_HEX}\0 a\n\
         \x20\x20\n",
        short = &ABC_HEX[1..],
        bad_hex = ABC_HEX.replace('9', "g"),
    );
    write(dir.path(), b"sums", lines.as_bytes());
    check_every_way(dir.path(), &[b"sums"], b"");
    let out = Run::new(dir.path(), &[b"-c", b"-w", b"sums"]).linerate();
    assert_eq!(out.stdout_text(), "a: OK\n");
    assert!(
        out.stderr_text()
            .contains("linerate: sums: 2: improperly formatted MD5 checksum line\n")
    );
    assert!(
        out.stderr_text()
            .ends_with("linerate: WARNING: 13 lines are improperly formatted\n")
    );
    assert_eq!(out.status, Some(0));
    let strict = Run::new(dir.path(), &[b"-c", b"--strict", b"sums"]).linerate();
    assert_eq!(strict.status, Some(1));

    write(dir.path(), b"nothing", b"garbage\n# comment\n");
    let out = Run::new(dir.path(), &[b"-c", b"nothing"]).assert_same();
    assert_eq!(
        out.stderr,
        b"linerate: nothing: no properly formatted checksum lines found\n"
    );
    assert_eq!(out.status, Some(1));
    write(
        dir.path(),
        b"one bad",
        format!("{ABC_HEX}  a\nbad\n").as_bytes(),
    );
    let out = Run::new(dir.path(), &[b"-c", b"one bad"]).assert_same();
    assert_eq!(
        out.stderr,
        b"linerate: WARNING: 1 line is improperly formatted\n"
    );
}

#[test]
fn mismatches_and_unreadable_entries() {
    let dir = awkward_tree();
    let wrong = "0".repeat(32);
    let single = format!("{wrong}  a\n{ABC_HEX}  nofile\n{ABC_HEX}  empty\n");
    write(dir.path(), b"single", single.as_bytes());
    let double = format!("{single}{wrong}  empty\n{ABC_HEX}  dir\n{ABC_HEX}  a\n");
    write(dir.path(), b"double", double.as_bytes());
    check_every_way(dir.path(), &[b"single"], b"");
    check_every_way(dir.path(), &[b"double"], b"");
    check_every_way(dir.path(), &[b"single", b"double"], b"");

    let out = Run::new(dir.path(), &[b"-c", b"double"]).linerate();
    assert_eq!(out.status, Some(1));
    assert_eq!(
        out.stdout_text(),
        "a: FAILED\nnofile: FAILED open or read\nempty: FAILED\nempty: FAILED\ndir: FAILED open or read\na: OK\n"
    );
    assert_eq!(
        out.stderr_text(),
        "linerate: nofile: No such file or directory\n\
         linerate: dir: Is a directory\n\
         linerate: WARNING: 2 listed files could not be read\n\
         linerate: WARNING: 3 computed checksums did NOT match\n"
    );
}

#[test]
fn ignore_missing() {
    let dir = awkward_tree();
    write(
        dir.path(),
        b"some",
        format!("{ABC_HEX}  nofile\n{ABC_HEX}  a\n").as_bytes(),
    );
    write(
        dir.path(),
        b"none",
        format!("{ABC_HEX}  nofile\n{ABC_HEX}  gone\n").as_bytes(),
    );
    check_every_way(dir.path(), &[b"some", b"none"], b"");
    let out = Run::new(dir.path(), &[b"-c", b"--ignore-missing", b"some"]).linerate();
    assert_eq!(
        (out.status, out.stdout_text()),
        (Some(0), "a: OK\n".to_owned())
    );
    let out = Run::new(dir.path(), &[b"-c", b"--ignore-missing", b"none"]).linerate();
    assert_eq!(out.status, Some(1));
    assert_eq!(out.stderr, b"linerate: none: no file was verified\n");
}

#[test]
fn odd_checksum_files() {
    let dir = awkward_tree();
    write(dir.path(), b"good", format!("{ABC_HEX}  a\n").as_bytes());
    let cases: &[&[&[u8]]] = &[
        &[b"-c", b"dir"],
        &[b"-c", b"nofile"],
        &[b"-c", b"nofile", b"good", b"dir"],
        &[b"-c", b"with space"],
        &[b"-c", b"empty"],
    ];
    for args in cases {
        Run::new(dir.path(), args).assert_same();
    }
    let out = Run::new(dir.path(), &[b"-c", b"nofile", b"good", b"dir"]).linerate();
    assert_eq!(out.stdout_text(), "a: OK\n");
    assert_eq!(
        out.stderr_text(),
        "linerate: nofile: No such file or directory\nlinerate: dir: read error\n"
    );
    assert_eq!(out.status, Some(1));
}

#[test]
fn checksums_from_standard_input() {
    let dir = awkward_tree();
    write(
        dir.path(),
        b"names dash",
        format!("{ABC_HEX}  -\n").as_bytes(),
    );
    let listing = format!("{ABC_HEX}  a\n{ABC_HEX}  -\n");
    check_every_way(dir.path(), &[], listing.as_bytes());
    check_every_way(dir.path(), &[b"-"], listing.as_bytes());
    check_every_way(dir.path(), &[b"-", b"-"], listing.as_bytes());
    // A checksum file may name standard input, which is then hashed.
    check_every_way(dir.path(), &[b"names dash"], b"abc");
    let out = Run::new(dir.path(), &[b"-c", b"-w"])
        .stdin(Input::Bytes(listing.as_bytes()))
        .linerate();
    assert_eq!(out.stdout_text(), "a: OK\n");
    assert_eq!(
        out.stderr_text(),
        "linerate: 'standard input': 2: improperly formatted MD5 checksum line\n\
         linerate: WARNING: 1 line is improperly formatted\n"
    );
    let sub = dir.path().join("dir");
    let out = Run::new(dir.path(), &[b"-c"])
        .stdin(Input::File(&sub))
        .assert_same();
    assert_eq!(out.stderr, b"linerate: 'standard input': read error\n");
}

#[test]
fn reversed_layout_sticks_across_checksum_files() {
    let dir = awkward_tree();
    write(
        dir.path(),
        b"reversed",
        format!("{ABC_HEX} a\n{ABC_HEX}  a\n").as_bytes(),
    );
    write(
        dir.path(),
        b"gnu",
        format!("{ABC_HEX}  a\n{ABC_HEX} a\n").as_bytes(),
    );
    for files in [&[&b"reversed"[..], b"gnu"][..], &[b"gnu", b"reversed"]] {
        check_every_way(dir.path(), files, b"");
    }
    let out = Run::new(dir.path(), &[b"-c", b"reversed", b"gnu"]).linerate();
    // After a reversed line, "HEX  a" names " a"; "HEX *..." would name "*...".
    assert_eq!(
        out.stdout_text(),
        "a: OK\n a: FAILED open or read\n a: FAILED open or read\na: OK\n"
    );
}

#[test]
fn escaped_names_in_reports() {
    let dir = awkward_tree();
    let lines = format!(
        "\\{}  all\\\\three\\n\\r\n{}  back\\slash\n\\{}  back\\\\slash\n\\{ABC_HEX}  x\\ny\n",
        digest_of(b"all\\three\n\r"),
        digest_of(b"back\\slash"),
        digest_of(b"back\\slash"),
    );
    write(dir.path(), b"sums", lines.as_bytes());
    check_every_way(dir.path(), &[b"sums"], b"");
    let out = Run::new(dir.path(), &[b"-c", b"sums"]).linerate();
    assert_eq!(
        out.stdout_text(),
        "\\all\\\\three\\n\\r: OK\nback\\slash: OK\nback\\slash: OK\n\\x\\ny: FAILED open or read\n"
    );
}

/// One random checksum line naming one of `names`.
fn random_line(rng: &mut Rng, names: &[&[u8]]) -> Vec<u8> {
    let name = *rng.pick(names);
    let mut digest = if rng.chance(80) {
        digest_for_fixture(name)
    } else {
        "0".repeat(32)
    };
    match rng.below(10) {
        0 => digest = digest.to_uppercase(),
        1 => {
            digest.pop();
        }
        2 => digest.push('a'),
        _ => {}
    }
    let escaped = rng.chance(30);
    let mut field = if escaped { escape(name) } else { name.to_vec() };
    if rng.chance(4) {
        field.extend_from_slice(rng.pick_bytes(&[&b"\\"[..], b"\\t", b"\\x"]));
    }
    let mut line: Vec<u8> = rng.pick_bytes(&[&b""[..], b"", b"", b" ", b"\t"]).to_vec();
    if escaped || rng.chance(4) {
        line.push(b'\\');
    }
    match rng.below(10) {
        0..=3 => {
            line.extend_from_slice(digest.as_bytes());
            line.extend_from_slice(rng.pick_bytes(&[
                &b"  "[..],
                b" *",
                b"\t ",
                b"\t*",
                b" ",
                b"\t",
                b"   ",
            ]));
            line.extend_from_slice(&field);
        }
        4..=6 => {
            line.extend_from_slice(rng.pick_bytes(&[&b"MD5 ("[..], b"MD5(", b"MD5  (", b"md5 ("]));
            line.extend_from_slice(&field);
            line.extend_from_slice(rng.pick_bytes(&[&b") = "[..], b")=", b")\t= ", b" ) = "]));
            line.extend_from_slice(digest.as_bytes());
            line.extend_from_slice(rng.pick_bytes(&[&b""[..], b"", b" ", b"\0x"]));
        }
        7 => {
            line.extend_from_slice(digest.as_bytes());
            line.push(b' ');
            line.extend_from_slice(&field);
        }
        8 => line.extend_from_slice(rng.pick_bytes(&[
            &b""[..],
            b"#",
            b"# note",
            b" ",
            b"\r",
            b"junk",
            b"\0",
        ])),
        _ => {
            let alphabet = b"0123456789abcdef \t*()MD5=\\#\r\0xn";
            let len = rng.below(44);
            line.extend((0..len).map(|_| *rng.pick(alphabet)));
        }
    }
    line.extend_from_slice(rng.pick_bytes(&[&b"\n"[..], b"\n", b"\n", b"\r\n", b"\r\r\n", b""]));
    line
}

fn escape(name: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for &b in name {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            _ => out.push(b),
        }
    }
    out
}

/// The digest of a fixture of [`awkward_tree`] (each holds its own name,
/// `a` holds `abc`); anything else gets the digest of nothing.
fn digest_for_fixture(name: &[u8]) -> String {
    match name {
        b"a" => ABC_HEX.to_owned(),
        b"empty" | b"nofile" | b"dir" | b"-" | b"" => EMPTY_HEX.to_owned(),
        _ => digest_of(name),
    }
}

#[test]
fn random_checksum_files_match_md5sum() {
    if crate::support::oracle().is_none() {
        eprintln!("note: skipped, it only compares with md5sum");
        return;
    }
    let dir = awkward_tree();
    let mut names: Vec<&[u8]> = crate::support::AWKWARD_NAMES.to_vec();
    names.extend_from_slice(&[b"a", b"empty", b"dir", b"nofile", b"-", b"", b"a\0b"]);
    let options: &[&[u8]] = &[
        b"-w",
        b"--strict",
        b"--status",
        b"--quiet",
        b"--ignore-missing",
    ];
    let mut rng = Rng::new(0x5eed_1321);
    let mut seen = Seen::default();
    for case in 0..160 {
        let mut args: Vec<Vec<u8>> = vec![b"-c".to_vec()];
        for file in 0..1 + rng.below(3) {
            match rng.below(10) {
                0 => args.push(b"-".to_vec()),
                1 => args.push(rng.pick_bytes(&[&b"dir"[..], b"nofile"]).to_vec()),
                _ => {
                    let name = format!("sums{file}");
                    let contents: Vec<u8> = (0..rng.below(7))
                        .flat_map(|_| random_line(&mut rng, &names))
                        .collect();
                    write(dir.path(), name.as_bytes(), &contents);
                    args.push(name.into_bytes());
                }
            }
        }
        args.extend(
            options
                .iter()
                .filter(|_| rng.chance(25))
                .map(|o| o.to_vec()),
        );
        // Options may come anywhere.
        for i in (1..args.len()).rev() {
            args.swap(i, rng.below(i + 1));
        }
        let stdin: Vec<u8> = (0..rng.below(4))
            .flat_map(|_| random_line(&mut rng, &names))
            .collect();
        let arg_refs: Vec<&[u8]> = args.iter().map(Vec::as_slice).collect();
        let outcome = Run::new(dir.path(), &arg_refs)
            .stdin(Input::Bytes(&stdin))
            .assert_same();
        assert!(outcome.status.is_some(), "case {case} died of a signal");
        seen.passed |= outcome.status == Some(0);
        seen.verified |= outcome.stdout_text().contains(": OK\n");
        seen.mismatched |= outcome.stdout_text().contains(": FAILED\n");
        seen.malformed |= outcome.stderr_text().contains("improperly formatted");
    }
    // The generator must reach every kind of outcome to be worth running.
    assert!(
        seen.passed && seen.verified && seen.mismatched && seen.malformed,
        "{seen:?}"
    );
}

#[derive(Debug, Default)]
struct Seen {
    passed: bool,
    verified: bool,
    mismatched: bool,
    malformed: bool,
}
