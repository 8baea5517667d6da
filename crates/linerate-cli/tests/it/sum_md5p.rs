//! `linerate sum -a md5pK`: digests against the Python reference of
//! `docs/md5p.md`, `--tag` names, `--check` with mixed tags, and the usage
//! errors of `-a`.

use crate::support::{
    ABC_HEX, Rng, Run, awkward_tree, hex, python_md5p, random_bytes, scratch, write,
};

const TRY: &str = "Try 'linerate sum --help' for more information.\n";

/// MD5-P/K of `data` by the library, the second reference.
fn md5p_hex(k: usize, data: &[u8]) -> String {
    hex(linerate::md5p(k, data).expect("valid K"))
}

#[test]
fn md5p_sums_match_the_python_reference() {
    let dir = scratch();
    let mut rng = Rng::new(0x5eed_0001);
    let mut sizes = vec![0usize, 1, 64, 65, 1_000_003];
    for k in [4, 8, 16, 32] {
        sizes.push(1024 * k + 1);
    }
    for _ in 0..4 {
        sizes.push(rng.below(300_000));
    }
    let files: Vec<(String, Vec<u8>)> = sizes
        .iter()
        .enumerate()
        .map(|(i, &size)| (format!("f{i}-{size}"), random_bytes(&mut rng, size)))
        .collect();
    let paths: Vec<_> = files
        .iter()
        .map(|(name, data)| write(dir.path(), name.as_bytes(), data))
        .collect();
    let names: Vec<&[u8]> = files.iter().map(|(name, _)| name.as_bytes()).collect();
    for k in [4usize, 8, 16, 32] {
        let algorithm = format!("md5p{k}");
        let mut args: Vec<&[u8]> = vec![b"-a", algorithm.as_bytes()];
        args.extend(&names);
        let out = Run::new(dir.path(), &args).linerate();
        assert_eq!(out.status, Some(0), "{}", out.stderr_text());
        assert!(out.stderr.is_empty());
        let expected: String = files
            .iter()
            .map(|(name, data)| format!("{}  {name}\n", md5p_hex(k, data)))
            .collect();
        assert_eq!(out.stdout_text(), expected, "K = {k}");
        if let Some(python) = python_md5p(k, &paths) {
            let digests: Vec<String> = out
                .stdout_text()
                .lines()
                .map(|line| line[..32].to_string())
                .collect();
            assert_eq!(digests, python, "K = {k} against the Python reference");
        }
    }
}

#[test]
fn tags_name_the_function() {
    let dir = awkward_tree();
    for (algorithm, tag, k) in [
        ("md5p4", "MD5P4", 4),
        ("md5p16", "MD5P16", 16),
        ("MD5P256", "MD5P256", 256),
    ] {
        let out = Run::new(
            dir.path(),
            &[b"--tag", b"-a", algorithm.as_bytes(), b"a", b"empty"],
        )
        .linerate();
        assert_eq!(
            out.stdout_text(),
            format!(
                "{tag} (a) = {}\n{tag} (empty) = {}\n",
                md5p_hex(k, b"abc"),
                md5p_hex(k, b"")
            )
        );
    }
    // Escaped names keep md5sum's leading backslash.
    let out = Run::new(dir.path(), &[b"--tag", b"--algorithm=md5p8", b"new\nline"]).linerate();
    assert_eq!(
        out.stdout_text(),
        format!("\\MD5P8 (new\\nline) = {}\n", md5p_hex(8, b"new\nline"))
    );
    // -a md5 is the default, byte for byte.
    for mode in [&[][..], &[&b"--tag"[..]], &[b"-z"], &[b"-b"]] {
        let mut plain: Vec<&[u8]> = mode.to_vec();
        plain.extend([&b"a"[..], b"new\nline"]);
        let mut explicit: Vec<&[u8]> = vec![b"-a", b"md5"];
        explicit.extend(&plain);
        let default = Run::new(dir.path(), &plain).assert_same();
        assert_eq!(Run::new(dir.path(), &explicit).linerate(), default);
    }
    let out = Run::new(dir.path(), &[b"--tag", b"-a", b"md5", b"a"]).linerate();
    assert_eq!(out.stdout_text(), format!("MD5 (a) = {ABC_HEX}\n"));
}

#[test]
fn check_reads_the_function_from_each_tag() {
    let dir = awkward_tree();
    write(dir.path(), b"b", b"changed");
    let p16 = |data: &[u8]| md5p_hex(16, data);
    let mixed = format!(
        "MD5 (a) = {ABC_HEX}\n\
         MD5P16 (a) = {}\n\
         MD5P4 (empty) = {}\n\
         MD5P16 (b) = {}\n\
         MD5 (b) = {ABC_HEX}\n",
        p16(b"abc"),
        md5p_hex(4, b""),
        p16(b"abc"),
    );
    write(dir.path(), b"mixed", mixed.as_bytes());
    // Tags decide, whatever -a says.
    for algorithm in [&b"md5"[..], b"md5p16", b"md5p8"] {
        let out = Run::new(dir.path(), &[b"-c", b"-a", algorithm, b"mixed"]).linerate();
        assert_eq!(out.status, Some(1));
        assert_eq!(
            out.stdout_text(),
            "a: OK\na: OK\nempty: OK\nb: FAILED\nb: FAILED\n"
        );
        assert_eq!(
            out.stderr_text(),
            "linerate: WARNING: 2 computed checksums did NOT match\n"
        );
    }
    let good = format!("MD5 (a) = {ABC_HEX}\nMD5P16 (a) = {}\n", p16(b"abc"));
    write(dir.path(), b"good", good.as_bytes());
    let out = Run::new(dir.path(), &[b"-c", b"good"]).linerate();
    assert_eq!(
        (out.status, out.stdout_text()),
        (Some(0), "a: OK\na: OK\n".into())
    );

    // Untagged lines follow -a.
    let untagged = format!("{}  a\n{}  empty\n", p16(b"abc"), p16(b""));
    write(dir.path(), b"untagged", untagged.as_bytes());
    let out = Run::new(dir.path(), &[b"-a", b"md5p16", b"-c", b"untagged"]).linerate();
    assert_eq!(
        (out.status, out.stdout_text()),
        (Some(0), "a: OK\nempty: OK\n".into())
    );
    assert!(out.stderr.is_empty());
    let out = Run::new(dir.path(), &[b"-c", b"untagged"]).linerate();
    assert_eq!(out.status, Some(1));
    assert_eq!(out.stdout_text(), "a: FAILED\nempty: FAILED\n");
    let out = Run::new(
        dir.path(),
        &[b"-c", b"--quiet", b"-a", b"md5p4", b"untagged"],
    )
    .linerate();
    assert_eq!(out.stdout_text(), "a: FAILED\nempty: FAILED\n");

    // A whole round trip: sums printed by -a md5p16 check under -a md5p16.
    let printed = Run::new(
        dir.path(),
        &[b"-a", b"md5p16", b"a", b"empty", b"new\nline"],
    )
    .linerate();
    write(dir.path(), b"printed", &printed.stdout);
    let out = Run::new(dir.path(), &[b"-c", b"-a", b"md5p16", b"printed"]).linerate();
    assert_eq!(out.status, Some(0), "{}", out.stderr_text());
}

#[test]
fn malformed_lines_are_named_after_the_algorithm() {
    let dir = awkward_tree();
    let sums = format!(
        "MD5P16 (a) = {}\nMD5P6 (a) = {ABC_HEX}\nMD5P016 (a) = {ABC_HEX}\ngarbage\n",
        md5p_hex(16, b"abc")
    );
    write(dir.path(), b"sums", sums.as_bytes());
    let out = Run::new(dir.path(), &[b"-c", b"-w", b"sums"]).linerate();
    assert_eq!(out.stdout_text(), "a: OK\n");
    assert_eq!(
        out.stderr_text(),
        "linerate: sums: 2: improperly formatted MD5 checksum line\n\
         linerate: sums: 3: improperly formatted MD5 checksum line\n\
         linerate: sums: 4: improperly formatted MD5 checksum line\n\
         linerate: WARNING: 3 lines are improperly formatted\n"
    );
    let out = Run::new(
        dir.path(),
        &[b"-c", b"-w", b"-a", b"md5p16", b"--strict", b"sums"],
    )
    .linerate();
    assert_eq!(out.status, Some(1));
    assert!(
        out.stderr_text()
            .starts_with("linerate: sums: 2: improperly formatted MD5P16 checksum line\n"),
        "{}",
        out.stderr_text()
    );
}

#[test]
fn invalid_algorithms_are_usage_errors() {
    let dir = awkward_tree();
    let cases: &[(&[&[u8]], &str)] = &[
        (
            &[b"-a", b"md5p6", b"a"],
            "invalid algorithm 'md5p6': MD5-P/K's K must be a multiple of 4 from 4 to 256",
        ),
        (
            &[b"-amd5p0", b"a"],
            "invalid algorithm 'md5p0': MD5-P/K's K must be a multiple of 4 from 4 to 256",
        ),
        (
            &[b"--algorithm=md5p260", b"a"],
            "invalid algorithm 'md5p260': MD5-P/K's K must be a multiple of 4 from 4 to 256",
        ),
        (
            &[b"--algorithm", b"md5p016"],
            "invalid algorithm 'md5p016': MD5-P/K's K must be a multiple of 4 from 4 to 256",
        ),
        (
            &[b"-a", b"sha3", b"a"],
            "invalid algorithm 'sha3': give md5, md5pK (K must be a multiple of 4 from 4 to 256, e.g. md5p16), sha1, sha224, sha256, sha384, sha512, blake2b or sm3",
        ),
        (
            &[b"-a", b"md5p", b"-c"],
            "invalid algorithm 'md5p': give md5, md5pK (K must be a multiple of 4 from 4 to 256, e.g. md5p16), sha1, sha224, sha256, sha384, sha512, blake2b or sm3",
        ),
        (&[b"a", b"-a"], "option requires an argument -- 'a'"),
        (
            &[b"--algorithm"],
            "option '--algorithm' requires an argument",
        ),
        (&[b"--algo=md5", b"a"], "unrecognized option '--algo=md5'"),
        (
            &[b"-j", b"0", b"a"],
            "invalid number of threads '0': give 1 to 1024",
        ),
        (
            &[b"--threads=many", b"a"],
            "invalid number of threads 'many': give 1 to 1024",
        ),
    ];
    for (args, message) in cases {
        let out = Run::new(dir.path(), args).linerate();
        assert_eq!(out.status, Some(1), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert_eq!(
            out.stderr_text(),
            format!("linerate: {message}\n{TRY}"),
            "{args:?}"
        );
    }
    // md5sum's own abbreviations are untouched by the new options.
    let out = Run::new(dir.path(), &[b"--t", b"a"]).assert_same();
    assert_eq!(
        out.stderr_text(),
        format!("linerate: option '--t' is ambiguous; possibilities: '--tag' '--text'\n{TRY}")
    );
}

#[test]
fn help_lists_the_new_options() {
    let dir = scratch();
    let out = Run::new(dir.path(), &[b"--help"]).linerate();
    let text = out.stdout_text();
    for needle in [
        "-a, --algorithm=ALGO",
        "md5p16",
        "-j, --threads=N",
        "MD5P16 (FILE) = HEX",
    ] {
        assert!(text.contains(needle), "{needle} missing from help:\n{text}");
    }
}
