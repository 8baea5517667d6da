//! `linerate sum FILE...` against GNU md5sum: output lines, escaping,
//! unreadable files, standard input.

use std::fs;
use std::os::unix::fs::PermissionsExt;

use crate::support::{
    ABC_HEX, AWKWARD_NAMES, EMPTY_HEX, Input, Run, awkward_tree, hex, scratch, write,
};

const MODES: &[&[&[u8]]] = &[
    &[],
    &[b"-b"],
    &[b"-t"],
    &[b"--tag"],
    &[b"-z"],
    &[b"--tag", b"-z"],
    &[b"--binary", b"--zero"],
    &[b"-t", b"--tag"],
];

fn with_mode<'a>(mode: &[&'a [u8]], files: &[&'a [u8]]) -> Vec<&'a [u8]> {
    mode.iter().chain(files).copied().collect()
}

#[test]
fn plain_lines_in_every_mode() {
    let dir = awkward_tree();
    for mode in MODES {
        Run::new(dir.path(), &with_mode(mode, &[b"a", b"empty"])).assert_same();
    }
    let text = Run::new(dir.path(), &[b"a", b"empty"]).linerate();
    assert_eq!(
        text.stdout_text(),
        format!("{ABC_HEX}  a\n{EMPTY_HEX}  empty\n")
    );
    let binary = Run::new(dir.path(), &[b"-b", b"a"]).linerate();
    assert_eq!(binary.stdout_text(), format!("{ABC_HEX} *a\n"));
    let tagged = Run::new(dir.path(), &[b"--tag", b"a"]).linerate();
    assert_eq!(tagged.stdout_text(), format!("MD5 (a) = {ABC_HEX}\n"));
    let zero = Run::new(dir.path(), &[b"-z", b"a"]).linerate();
    assert_eq!(zero.stdout_text(), format!("{ABC_HEX}  a\0"));
}

#[test]
fn awkward_names_are_escaped_like_md5sum() {
    let dir = awkward_tree();
    for mode in MODES {
        Run::new(dir.path(), &with_mode(mode, AWKWARD_NAMES)).assert_same();
    }
    let out = Run::new(
        dir.path(),
        &[b"new\nline", b"back\\slash", b"carriage\rreturn"],
    )
    .linerate();
    let digest = |name: &[u8]| hex(linerate::md5(name));
    let expected = format!(
        "\\{}  new\\nline\n\\{}  back\\\\slash\n\\{}  carriage\\rreturn\n",
        digest(b"new\nline"),
        digest(b"back\\slash"),
        digest(b"carriage\rreturn")
    );
    assert_eq!(out.stdout_text(), expected);
    let tagged = Run::new(dir.path(), &[b"--tag", b"new\nline"]).linerate();
    assert_eq!(
        tagged.stdout_text(),
        format!("\\MD5 (new\\nline) = {}\n", digest(b"new\nline"))
    );
    let zero = Run::new(dir.path(), &[b"-z", b"new\nline"]).linerate();
    assert_eq!(
        zero.stdout,
        format!("{}  new\nline\0", digest(b"new\nline")).into_bytes()
    );
}

#[test]
fn sizes_around_block_and_chunk_edges() {
    let dir = scratch();
    let sizes = [
        1, 55, 56, 57, 63, 64, 65, 119, 120, 121, 127, 128, 129, 1000, 262_143, 262_144, 262_145,
        600_000,
    ];
    let mut names = Vec::new();
    for size in sizes {
        let contents: Vec<u8> = (0..size).map(|i| (i * 7 % 251) as u8).collect();
        let name = format!("size{size}");
        write(dir.path(), name.as_bytes(), &contents);
        names.push((name, contents));
    }
    let args: Vec<&[u8]> = names.iter().map(|(name, _)| name.as_bytes()).collect();
    let out = Run::new(dir.path(), &args).assert_same();
    let expected: String = names
        .iter()
        .map(|(name, contents)| format!("{}  {name}\n", hex(linerate::md5(contents))))
        .collect();
    assert_eq!(out.stdout_text(), expected);
}

#[test]
fn unreadable_inputs_are_reported_and_the_rest_still_hashed() {
    let dir = awkward_tree();
    let out = Run::new(
        dir.path(),
        &[
            b"a",
            b"dir",
            b"nofile",
            b"empty",
            b"no such",
            b"bad\xff:name",
        ],
    )
    .assert_same();
    assert_eq!(out.status, Some(1));
    assert_eq!(
        out.stdout_text(),
        format!("{ABC_HEX}  a\n{EMPTY_HEX}  empty\n")
    );
    assert_eq!(
        out.stderr,
        b"linerate: dir: Is a directory\n\
          linerate: nofile: No such file or directory\n\
          linerate: 'no such': No such file or directory\n\
          linerate: 'bad'$'\\377'':name': No such file or directory\n"
    );
    // The same names in the C locale, where every non-ASCII byte is escaped.
    Run::new(dir.path(), &[b"caf\xc3\xa9x", b"it's gone", b"x\ny"])
        .env("LC_ALL", "C")
        .assert_same();
    Run::new(dir.path(), &[b"caf\xc3\xa9x", b"it's gone", b"x\ny"]).assert_same();
}

#[test]
fn permission_denied() {
    let dir = awkward_tree();
    let locked = write(dir.path(), b"locked", b"secret");
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).expect("chmod");
    let out = Run::new(dir.path(), &[b"locked", b"a"]).assert_same();
    // Root reads the file anyway; the comparison above still holds.
    if fs::File::open(&locked).is_err() {
        assert_eq!(out.stderr, b"linerate: locked: Permission denied\n");
        assert_eq!(out.status, Some(1));
    } else {
        eprintln!("note: running as root, so 'locked' is readable");
        assert_eq!(out.status, Some(0));
    }
}

#[test]
fn standard_input() {
    let dir = awkward_tree();
    let out = Run::new(dir.path(), &[])
        .stdin(Input::Bytes(b"abc"))
        .assert_same();
    assert_eq!(out.stdout_text(), format!("{ABC_HEX}  -\n"));
    // Read twice: the second time it is already at its end.
    let out = Run::new(dir.path(), &[b"-", b"a", b"-"])
        .stdin(Input::Bytes(b"abc"))
        .assert_same();
    assert_eq!(
        out.stdout_text(),
        format!("{ABC_HEX}  -\n{ABC_HEX}  a\n{EMPTY_HEX}  -\n")
    );
    Run::new(dir.path(), &[b"--tag", b"-"])
        .stdin(Input::Bytes(b""))
        .assert_same();
    // Standard input that is a directory.
    let sub = dir.path().join("dir");
    let out = Run::new(dir.path(), &[b"-", b"a"])
        .stdin(Input::File(&sub))
        .assert_same();
    assert_eq!(out.stderr, b"linerate: -: Is a directory\n");
}

#[test]
fn special_files() {
    let dir = scratch();
    let out = Run::new(dir.path(), &[b"/dev/null"]).assert_same();
    assert_eq!(out.stdout_text(), format!("{EMPTY_HEX}  /dev/null\n"));
}

#[test]
fn options_and_files_mix() {
    let dir = awkward_tree();
    let cases: &[&[&[u8]]] = &[
        &[b"a", b"-b", b"empty"],
        &[b"a", b"--", b"-b"],
        &[b"--", b"-b", b"a"],
        &[b"-b", b"--", b"--tag"],
        &[b"a", b"--tag", b"--", b"-"],
        &[b"--ta", b"a", b"--bin"],
    ];
    for args in cases {
        Run::new(dir.path(), args)
            .stdin(Input::Bytes(b"x"))
            .assert_same();
    }
    let out = Run::new(dir.path(), &[b"a", b"--", b"-b"]).linerate();
    assert_eq!(out.stderr, b"linerate: -b: No such file or directory\n");
    // POSIXLY_CORRECT: the first operand ends the options.
    let out = Run::new(dir.path(), &[b"a", b"-b"])
        .env("POSIXLY_CORRECT", "1")
        .assert_same();
    assert_eq!(out.stderr, b"linerate: -b: No such file or directory\n");
}

#[test]
fn random_missing_names_are_quoted_like_md5sum() {
    if crate::support::oracle().is_none() {
        eprintln!("note: skipped, it only compares with md5sum");
        return;
    }
    let dir = scratch();
    // Bytes that matter to the quoting, then any byte a name can hold.
    let special = b" '\"\\:#~{}?@!$&()*;<=>[]^`|%+,-._\n\r\t\x07\x08\x0b\x0c\x7f\
                    \xc3\xa9\xe2\x80\x8b\xc2\x85\xf0\x9f\x98\x80\xed\xa0\xef\xbf\xbe\xd6\x8b";
    let any: Vec<u8> = (1..=255u8).filter(|&b| b != b'/').collect();
    let mut rng = crate::support::Rng::new(0x9e37_79b9);
    for _ in 0..150 {
        let names: Vec<Vec<u8>> = (0..1 + rng.below(4))
            .map(|_| {
                let mut name = b"x".to_vec();
                for _ in 0..rng.below(7) {
                    let pool: &[u8] = if rng.chance(60) { special } else { &any };
                    name.push(*rng.pick(pool));
                }
                name
            })
            .collect();
        let mut args: Vec<&[u8]> = vec![b"--"];
        args.extend(names.iter().map(Vec::as_slice));
        let locale = if rng.chance(40) { "C" } else { "C.UTF-8" };
        let out = Run::new(dir.path(), &args)
            .env("LC_ALL", locale)
            .assert_same();
        assert_eq!(out.status, Some(1));
    }
}
