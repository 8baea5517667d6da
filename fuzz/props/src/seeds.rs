//! The generated part of the seed corpora (`fuzz/seeds/TARGET/gen-*`):
//! lines, listings, packets and runs built from the repository's test data
//! (RFC 9235's TCP-AO vectors, the lab's saved-run format) and RFC vectors
//! (RFC 1321's test suite, RFC 2104's HMAC vectors, RFC 1071's example),
//! small and a few dozen per target. `tests/replay.rs` writes them with
//! `LINERATE_FUZZ_WRITE_SEEDS=1`; inputs the fuzzer found are kept beside
//! them under other names.

use linerate::MacAlgorithm;
use linerate::md5;
use linerate_lab::json;
use linerate_lab::machine::Machine;
use linerate_lab::table::{Cell, Lab, Table, Unit, Value};
use linerate_lab::timing::Measurement;
use linerate_packets::tcp_ao;

/// A seed: its target, its file name (without the `gen-` prefix) and bytes.
pub type Seed = (&'static str, String, Vec<u8>);

/// RFC 1321's test suite (appendix A.5).
pub const RFC1321_SUITE: [&str; 7] = [
    "",
    "a",
    "abc",
    "message digest",
    "abcdefghijklmnopqrstuvwxyz",
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
    "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
];

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex"))
        .collect()
}

/// The IP packets of RFC 9235's vectors, by vector name.
pub fn rfc9235_packets(vectors: &str) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut name = String::new();
    for line in vectors.lines() {
        if let Some(v) = line.strip_prefix("vector ") {
            name = v.trim().to_string();
        } else if let Some(p) = line.strip_prefix("packet ") {
            out.push((name.clone(), unhex(p.trim())));
        }
    }
    out
}

/// Every generated seed; `vectors`: the text of
/// `crates/linerate-packets/tests/data/rfc9235-vectors.txt`.
pub fn all(vectors: &str) -> Vec<Seed> {
    let mut seeds = Vec::new();
    check_lines(&mut seeds);
    etag_lines(&mut seeds);
    quote_names(&mut seeds);
    listings(&mut seeds);
    let packets = rfc9235_packets(vectors);
    tcp_segments(&mut seeds, &packets);
    captures(&mut seeds, &packets);
    key_tables(&mut seeds);
    lab_runs(&mut seeds);
    for (i, text) in RFC1321_SUITE.iter().enumerate() {
        seeds.push((
            "md5_reference",
            format!("rfc1321-{i}"),
            text.as_bytes().to_vec(),
        ));
    }
    // RFC 2104's vectors: the first byte is the key's length.
    let hmac_vectors: [(&str, Vec<u8>, &[u8]); 3] = [
        ("rfc2104-1", vec![0x0b; 16], b"Hi There"),
        (
            "rfc2104-2",
            b"Jefe".to_vec(),
            b"what do ya want for nothing?",
        ),
        ("rfc2104-3", vec![0xaa; 16], &[0xdd; 50]),
    ];
    for (name, key, message) in hmac_vectors {
        let data = [&[key.len() as u8][..], &key, message].concat();
        seeds.push(("md5_reference", name.to_string(), data));
    }
    for len in [55, 56, 63, 64, 65, 119, 120, 127, 128, 129, 1000] {
        let data: Vec<u8> = (0..len).map(|i| (i * 7 + len) as u8).collect();
        seeds.push(("md5_reference", format!("len-{len}"), data));
    }
    seeds
}

fn check_lines(seeds: &mut Vec<Seed>) {
    let abc = hex(&md5(b"abc"));
    let empty = hex(&md5(b""));
    let md5_lines = [
        ("gnu-text", format!("{abc}  abc.txt")),
        ("gnu-binary", format!("{abc} *abc.bin")),
        ("gnu-tab", format!("{abc}\t abc")),
        ("gnu-crlf", format!("{abc}  name\r\n")),
        ("tagged", format!("MD5 (abc) = {abc}")),
        ("tagged-nospace", format!("MD5(a b) = {empty}")),
        ("tagged-paren", format!("MD5 (a) b) = {abc}")),
        ("tagged-md5p16", format!("MD5P16 (f) = {abc}")),
        ("tagged-nul", format!("MD5 (f) = {abc}\0trailing")),
        ("reversed", format!("{abc} name")),
        ("reversed-space", format!("{abc}  lead")),
        ("escaped", format!("\\{abc}  a\\nb\\\\c\\r")),
        ("escaped-tagged", format!("\\MD5 (a\\nb) = {abc}")),
        ("escaped-bad", format!("\\{abc}  a\\tb")),
        ("nul-name", format!("{abc}  a\0b")),
        ("upper", format!("{}  X", abc.to_uppercase())),
        ("short", format!("{}  x", &abc[1..])),
        ("comment", format!("# {abc}  x")),
        ("blank-lead", format!("  \t{abc}  x")),
        ("star-only", format!("{abc} *")),
    ];
    for (i, (name, line)) in md5_lines.iter().enumerate() {
        let selector = (i % 3) as u8;
        let mut data = vec![selector];
        data.extend_from_slice(line.as_bytes());
        seeds.push(("check_line", name.to_string(), data.clone()));
        seeds.push(("check_sum", name.to_string(), data));
    }
    let sha256 = "ab".repeat(32);
    let sha1 = "cd".repeat(20);
    let b2_256 = "ef".repeat(32);
    let b2 = "01".repeat(64);
    let cksum_lines: [(&str, u8, String); 18] = [
        ("sha256", 0xf0, format!("SHA256 (f) = {sha256}")),
        ("sha1", 0xf0, format!("SHA1 (f) = {sha1}")),
        ("blake2b-256", 0xf0, format!("BLAKE2b-256 (f) = {b2_256}")),
        ("blake2b", 0xf0, format!("BLAKE2b (f) = {b2}")),
        ("sm3", 0xf0, format!("SM3 (f) = {sha256}")),
        ("md5", 0xf0, format!("MD5 (f) = {abc}")),
        ("crc-tag", 0xf0, format!("CRC (f) = {abc}")),
        ("untagged-sha1", 3 * 2, format!("{sha1}  f")),
        ("untagged-sha256", 3 * 4, format!("{sha256} *f")),
        ("untagged-blake2b", 3 * 7, format!("{b2_256}  f")),
        ("untagged-blake2b-8", 3 * 7, "ab  f".to_string()),
        // GNU cksum 9.1 reads these (issue 32, point 16).
        ("gnu-two-spaces", 0xf0, format!("MD5  (a) = {abc}")),
        ("gnu-tab-paren", 0xf0, format!("MD5\t(a) = {abc}")),
        ("gnu-md5-128", 0xf0, format!("MD5-128 (a) = {abc}")),
        ("gnu-sha256-256", 0xf0, format!("SHA256-256 (a) = {sha256}")),
        (
            "gnu-blake2b-base0",
            0xf0,
            format!("BLAKE2b-0x100 (a) = {b2_256}"),
        ),
        ("gnu-blake2b-008", 0xf0, "BLAKE2b-008 (a) = ab".to_string()),
        ("escaped", 0xf1, format!("\\SHA256 (a\\nb) = {sha256}")),
    ];
    // Manifests, as `sum -r` writes them and as hands edit them.
    let manifests = [
        (
            "sum-r",
            0,
            format!(
                "{abc}  ./a\n{abc} *b//c\n\nMD5P16 (d) = {abc}\r\n\\{abc}  e\\nf\nMD5 (/abs) = {abc}\n"
            ),
        ),
        (
            "duplicates",
            0,
            format!("{abc}  a\n{abc}  ./a\nSHA256 (a) = {sha256}\n{abc}  a/\n"),
        ),
        (
            "dots",
            0,
            format!("{abc}  .\n{abc}  ..\n{abc}  /\n{abc}  a/../b\n{abc}  //x\n"),
        ),
        (
            "malformed",
            0,
            format!("# comment\n{abc}\n{abc} x\nMD5 (x) = zz\n{abc}  ok\n"),
        ),
        (
            "sha1",
            6,
            format!("{sha1}  f\n{sha1} *g\nSHA1 (h) = {sha1}\n"),
        ),
        ("no-newline", 0, format!("{abc}  last")),
    ];
    for (name, selector, text) in manifests {
        let mut data = vec![selector];
        data.extend_from_slice(text.as_bytes());
        seeds.push(("manifest", name.to_string(), data));
    }
    for (name, selector, line) in &cksum_lines {
        let mut data = vec![*selector];
        data.extend_from_slice(line.as_bytes());
        seeds.push(("check_cksum", name.to_string(), data.clone()));
        seeds.push(("check_sum", format!("cksum-{name}"), data));
    }
    for (i, algorithm) in MacAlgorithm::ALL.into_iter().enumerate() {
        let tag = hex(&(0..algorithm.tag_len() as u8).collect::<Vec<u8>>());
        let selector = (3 * i) as u8;
        for (form, line) in [
            ("gnu", format!("{tag}  f")),
            ("tagged", format!("{} (f) = {tag}", algorithm.tag())),
            ("reversed", format!("{tag} f")),
        ] {
            let mut data = vec![selector + u8::from(form == "reversed")];
            data.extend_from_slice(line.as_bytes());
            seeds.push(("check_mac", format!("{}-{form}", algorithm.name()), data));
        }
    }
}

fn etag_lines(seeds: &mut Vec<Seed>) {
    let abc = hex(&md5(b"abc"));
    let lines = [
        ("plain", format!("{abc}  a")),
        ("multipart", format!("{abc}-2 *b")),
        ("tab", format!("{abc}\t f")),
        ("upper", format!("{}-7  F", abc.to_uppercase())),
        ("escaped", format!("\\{abc}-3  a\\nb")),
        ("zero-parts", format!("{abc}-0  f")),
        ("leading-zero", format!("{abc}-01  f")),
        ("quoted", format!("\"{abc}-12\"")),
        ("huge-parts", format!("{abc}-99999999999999999999999  f")),
        ("crc32", "AAAAAQ==-2".to_string()),
        (
            "sha256",
            "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=".to_string(),
        ),
        ("crc64nvme", "\"AAAAAAAAAAA=\"".to_string()),
        ("bare-etag", abc.clone()),
    ];
    for (name, line) in lines {
        seeds.push(("check_etag", name.to_string(), line.into_bytes()));
    }
}

fn quote_names(seeds: &mut Vec<Seed>) {
    let names: [(&str, &[u8]); 10] = [
        ("plain", b"nofile"),
        ("space", b"a b"),
        ("apostrophe", b"it's"),
        ("newline", b"a\nb"),
        ("latin1", b"caf\xe9"),
        ("utf8", "café ☃".as_bytes()),
        ("colon", b"a:b"),
        ("both-quotes", b"it's \"x\""),
        ("control", b"\x01\x7f"),
        ("dollar", b"$HOME"),
    ];
    for (name, bytes) in names {
        seeds.push(("quote_name", name.to_string(), bytes.to_vec()));
    }
}

fn listings(seeds: &mut Vec<Seed>) {
    let etag = "\\\"d41d8cd98f00b204e9800998ecf8427e-2\\\"";
    let texts = [
        (
            "list-objects-v2",
            0,
            format!(
                r#"{{"Contents": [{{"Key": "a/b.txt", "Size": 12, "ETag": "{etag}",
                "ChecksumAlgorithm": ["CRC64NVME"], "ChecksumType": "FULL_OBJECT"}}],
                "KeyCount": 1}}
                {{"Contents": [{{"Key": "c", "Size": 0}}]}}
                {{"KeyCount": 0, "Name": "bucket"}}"#
            ),
        ),
        (
            "head-object",
            0,
            format!(
                r#"[{{"Key": "x", "ContentLength": 3, "ETag": "{etag}",
                "ChecksumCRC32": "AAAAAQ==-2", "ChecksumType": "COMPOSITE"}},
                {{"Key": "y", "Checksum": {{"ChecksumSHA256": "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="}}}},
                {{"Key": "bad", "ChecksumCRC32": "AAAA"}},
                {{"Key": "odd", "ChecksumXXH3": "AAAA"}},
                {{"Size": 4}}]"#
            ),
        ),
        ("one-object", 0, r#"{"Key": "k", "Size": 1}"#.to_string()),
        ("duplicate-key", 0, r#"[{"Key": "a", "Key": "b", "Size": 1}]"#.to_string()),
        ("nul-key", 0, r#"[{"Key": "a\u0000b", "Size": 1}]"#.to_string()),
        ("dot-keys", 0, r#"[{"Key": "./x"}, {"Key": "sub//y"}, {"Key": "../z"}, {"Key": "/abs"}]"#.to_string()),
        (
            "nested-and-top",
            0,
            r#"[{"Key": "n", "ChecksumCRC32": "AAAAAQ==", "Checksum": {"ChecksumCRC32": "AAAAAg==", "ChecksumType": "FULL_OBJECT"}}]"#.to_string(),
        ),
        ("big-size", 0, r#"[{"Key": "s", "Size": 18446744073709551615}]"#.to_string()),
        ("bad-size", 0, r#"[{"Key": "s", "Size": -1}, {"Key": "t", "Size": 1.5}]"#.to_string()),
        ("not-json", 0, "[1, 2".to_string()),
        ("contents-not-list", 0, r#"{"Contents": 3}"#.to_string()),
        (
            "inventory",
            0,
            "\"bucket\",\"dir/a+b%2Bc.txt\",\"5\",\"2026-01-01T00:00:00.000Z\",\"d41d8cd98f00b204e9800998ecf8427e\"\n\
             \"bucket\",\"n\",\"x\",\"\",\"\"\n\
             \"bucket\",\"e\",\"\",\"\",\"nothex\"\n"
                .to_string(),
        ),
        ("inventory-schema", 2, "k1,\"7\"\nk2,\"\"\n".to_string()),
        ("inventory-header", 0, "Key,ETag\nk,\"\"\n".to_string()),
        ("inventory-short-row", 0, "\"bucket\",\"k\"\n".to_string()),
        ("inventory-quotes", 0, "\"b\",\"a\"\"b\",\"1\",\"\",\"\"\n".to_string()),
        ("inventory-percent", 0, "b,%,1\nb,%4,2\nb,%zz,3\nb,%e2%98%83,4\n".to_string()),
        ("inventory-no-key", 1, "Bucket,Size\nb,1\n".to_string()),
        ("inventory-versions", 3, "b,k,v1,true,false,3,d41d8cd98f00b204e9800998ecf8427e\n".to_string()),
    ];
    for (name, selector, text) in texts {
        let mut data = vec![selector];
        data.extend_from_slice(text.as_bytes());
        seeds.push(("listing", name.to_string(), data));
    }
}

/// An IPv4 packet carrying a TCP segment with `options`.
fn v4_tcp(options: &[u8], payload: &[u8]) -> Vec<u8> {
    let mut seg = vec![0x30, 0x39, 0x00, 0xb3, 0, 0, 0, 1, 0, 0, 0, 0];
    seg.push((((20 + options.len()) / 4) as u8) << 4);
    seg.extend_from_slice(&[0x18, 0xff, 0xff, 0, 0, 0, 0]);
    seg.extend_from_slice(options);
    seg.extend_from_slice(payload);
    seg
}

fn tcp_segments(seeds: &mut Vec<Seed>, packets: &[(String, Vec<u8>)]) {
    for (name, packet) in packets {
        let mut data = vec![0];
        data.extend_from_slice(packet);
        seeds.push(("tcp_options", format!("rfc9235-{name}"), data.clone()));
        seeds.push(("packets_ah", format!("rfc9235-{name}"), packet.clone()));
    }
    let ao = {
        let mut o = vec![tcp::OPT_AO, tcp_ao::OPTION_LEN as u8, 61, 84];
        o.extend_from_slice(&[0x11; tcp_ao::MAC_LEN]);
        o
    };
    let md5_option = {
        let mut o = vec![tcp::OPT_MD5, 18];
        o.extend_from_slice(&[0x22; 16]);
        o
    };
    let option_sets: Vec<(&str, Vec<u8>)> = vec![
        ("none", vec![]),
        (
            "mss-ws-sack-ts",
            vec![
                2, 4, 5, 0xb4, 1, 3, 3, 8, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1,
            ],
        ),
        ("eol", vec![0, 0, 0, 0]),
        ("nops", vec![1, 1, 1, 1]),
        ("ao", ao.clone()),
        ("md5", [md5_option.clone(), vec![1, 1]].concat()),
        (
            "ao-and-md5",
            [ao.clone(), md5_option.clone(), vec![1, 1, 1, 1]].concat(),
        ),
        ("two-ao", [ao.clone(), ao.clone()].concat()),
        ("ao-short", vec![tcp::OPT_AO, 4, 1, 2]),
        ("len-0", vec![8, 0, 1, 1]),
        ("len-1", vec![8, 1, 1, 1]),
        ("overflow", vec![8, 40, 1, 1]),
        ("cut", vec![1, 1, 1, 8]),
        ("full-40", vec![1; 40]),
    ];
    for (name, options) in &option_sets {
        for (mode, family) in [(1u8, "v4"), (2, "v6")] {
            let mut data = vec![mode];
            data.extend_from_slice(&v4_tcp(options, b"payload"));
            seeds.push(("tcp_options", format!("{family}-{name}"), data));
        }
    }
    // RFC 1071 section 3's example, for the checksum's reference.
    seeds.push((
        "tcp_options",
        "rfc1071".into(),
        vec![1, 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7],
    ));
    seeds.push((
        "tcp_options",
        "odd-ffff".into(),
        vec![7, 0xff, 0xff, 0xff, 0xff, 0xff],
    ));
    // An IPv4 packet with an AH (protocol 51) before TCP, and a truncated one.
    let mut ah = vec![
        0x45, 0, 0, 0, 0, 1, 0, 0, 64, 51, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
    ];
    ah.extend_from_slice(&[6, 4, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
    ah.extend_from_slice(&[0x33; 12]);
    ah.extend_from_slice(&v4_tcp(&[], b"x"));
    let total = ah.len() as u16;
    ah[2..4].copy_from_slice(&total.to_be_bytes());
    seeds.push(("packets_ah", "v4-ah-tcp".into(), ah.clone()));
    seeds.push(("packets_ah", "v4-ah-cut".into(), ah[..30].to_vec()));
}

use linerate_packets::tcp;

/// pcap (either byte order) and pcapng (SHB, IDB, EPB, SPB) around `packets`.
fn captures(seeds: &mut Vec<Seed>, packets: &[(String, Vec<u8>)]) {
    let frames: Vec<&[u8]> = packets.iter().take(6).map(|(_, p)| p.as_slice()).collect();
    for (name, capture) in [
        ("pcap-le-raw", pcap(&frames, false, 101)),
        ("pcap-be-raw", pcap(&frames, true, 101)),
        ("pcap-le-ipv4", pcap(&frames, false, 228)),
        ("pcapng-le", pcapng(&frames, false)),
        ("pcapng-be", pcapng(&frames, true)),
    ] {
        seeds.push(("pcapng", name.to_string(), capture.clone()));
        seeds.push(("packets_parse", name.to_string(), capture.clone()));
        let cut = capture.len() - 5;
        seeds.push(("pcapng", format!("{name}-cut"), capture[..cut].to_vec()));
    }
    // One packet per vector, each in its own small capture.
    for (name, packet) in packets.iter().skip(6).take(12) {
        seeds.push((
            "packets_parse",
            format!("rfc9235-{name}"),
            pcapng(&[packet], false),
        ));
    }
    let mut bad_lengths = pcapng(&frames[..1], false);
    let last = bad_lengths.len() - 4;
    bad_lengths[last] ^= 4;
    seeds.push(("pcapng", "lengths-differ".into(), bad_lengths));
    seeds.push(("pcapng", "magic-only".into(), vec![0x0a, 0x0d, 0x0d, 0x0a]));
    seeds.push((
        "pcapng",
        "kuznetzov".into(),
        0xa1b2_cd34u32.to_le_bytes().to_vec(),
    ));
}

fn u32_bytes(v: u32, be: bool) -> [u8; 4] {
    if be { v.to_be_bytes() } else { v.to_le_bytes() }
}

fn pcap(frames: &[&[u8]], be: bool, link: u32) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&u32_bytes(0xa1b2_c3d4, be));
    out.extend_from_slice(&if be {
        2u16.to_be_bytes()
    } else {
        2u16.to_le_bytes()
    });
    out.extend_from_slice(&if be {
        4u16.to_be_bytes()
    } else {
        4u16.to_le_bytes()
    });
    for v in [0, 0, 65535, link] {
        out.extend_from_slice(&u32_bytes(v, be));
    }
    for (i, f) in frames.iter().enumerate() {
        for v in [1_700_000_000 + i as u32, 0, f.len() as u32, f.len() as u32] {
            out.extend_from_slice(&u32_bytes(v, be));
        }
        out.extend_from_slice(f);
    }
    out
}

fn block(out: &mut Vec<u8>, kind: u32, body: &[u8], be: bool) {
    let total = 12 + body.len().div_ceil(4) * 4;
    out.extend_from_slice(&u32_bytes(kind, be));
    out.extend_from_slice(&u32_bytes(total as u32, be));
    out.extend_from_slice(body);
    out.resize(out.len() + (4 - body.len() % 4) % 4, 0);
    out.extend_from_slice(&u32_bytes(total as u32, be));
}

fn pcapng(frames: &[&[u8]], be: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let mut shb = u32_bytes(0x1a2b_3c4d, be).to_vec();
    shb.extend_from_slice(&if be { [0, 1, 0, 0] } else { [1, 0, 0, 0] });
    shb.extend_from_slice(&[0xff; 8]);
    block(&mut out, 0x0a0d_0d0a, &shb, be);
    // An interface of link type 101 (raw IP), snap length 65535, no options.
    let mut idb = if be {
        101u16.to_be_bytes()
    } else {
        101u16.to_le_bytes()
    }
    .to_vec();
    idb.extend_from_slice(&[0, 0]);
    idb.extend_from_slice(&u32_bytes(65535, be));
    block(&mut out, 1, &idb, be);
    for (i, f) in frames.iter().enumerate() {
        if i % 3 == 2 {
            // A simple packet block.
            let mut spb = u32_bytes(f.len() as u32, be).to_vec();
            spb.extend_from_slice(f);
            block(&mut out, 3, &spb, be);
            continue;
        }
        let mut epb = Vec::new();
        for v in [0, 0x0005_f000, i as u32, f.len() as u32, f.len() as u32] {
            epb.extend_from_slice(&u32_bytes(v, be));
        }
        epb.extend_from_slice(f);
        epb.resize(epb.len().div_ceil(4) * 4, 0);
        if i % 3 == 1 {
            // An opt_comment and the end of options.
            epb.extend_from_slice(&if be { [0, 1, 0, 4] } else { [1, 0, 4, 0] });
            epb.extend_from_slice(b"seed");
            epb.extend_from_slice(&[0; 4]);
        }
        block(&mut out, 6, &epb, be);
    }
    out
}

fn key_tables(seeds: &mut Vec<Seed>) {
    let tables = [
        (
            "doc-example",
            "# LOCAL-PREFIX   PEER-PREFIX      [PORT]  KEY\n\
             10.0.0.1         10.0.0.2                 hex:6b657931\n\
             192.0.2.0/24     198.51.100.7     179     env:K\n\
             fd00::/64        fd00::2                  hex:00ff\n",
        ),
        ("any", "0.0.0.0/0 0.0.0.0/0 hex:01\n::/0 ::/0 hex:02\n"),
        (
            "ports",
            "10.0.0.0/8 10.0.0.0/8 179 hex:aa\n10.0.0.0/8 10.0.0.0/8 hex:bb\n",
        ),
        (
            "odd-prefix",
            "10.1.2.3/31 10.1.2.200/25 hex:cc\nfd00::1/127 fd00::ff/121 hex:dd\n",
        ),
        ("no-kind", "10.0.0.1 10.0.0.2 s3cretkey\n"),
        ("odd-hex", "10.0.0.1 10.0.0.2 hex:abc\n"),
        ("env-unset", "10.0.0.1 10.0.0.2 env:NOPE\n"),
        ("file-missing", "10.0.0.1 10.0.0.2 file:peer.key\n"),
        ("families", "10.0.0.1 fd00::2 hex:01\n"),
        (
            "bad-port",
            "10.0.0.1 10.0.0.2 0 hex:01\n10.0.0.1 10.0.0.2 65536 hex:01\n",
        ),
        ("bad-prefix", "10.0.0.1/33 10.0.0.2 hex:01\n"),
        ("empty", "# nothing\n\n"),
        ("five-fields", "a b c d e\n"),
        ("comment-after", "10.0.0.1 10.0.0.2 hex:0102 # peer 2\n"),
    ];
    for (name, text) in tables {
        seeds.push(("key_table", name.to_string(), text.as_bytes().to_vec()));
    }
}

/// A saved run like `linerate speed --json` writes, on a made-up machine.
pub fn sample_lab(figure: f64) -> Lab {
    let machine = Machine {
        cpu: "Seed CPU".into(),
        features: vec!["avx2".into(), "bmi1".into()],
        backends: vec![("md5".into(), "portable".into())],
        threads: 2,
        core_hz: Some(3.0e9),
        tsc_hz: None,
        commit: "0000000".into(),
        version: "0.1.0".into(),
        date: "2026-01-01 00:00 UTC".into(),
    };
    let mut t = Table::new("throughput", "Throughput", &["algorithm", "8", "64"]);
    let m = Measurement {
        seconds: 1.0 / 3.0,
        spread: 0.2,
        trials: 5,
        calls: 1 << 20,
    };
    t.row(
        "md5",
        vec![
            Cell::new(
                "md5",
                "bytes_per_second",
                Unit::BytesPerSecond,
                Value::Measured(figure, m),
            )
            .bytes(8)
            .threads(2),
            Cell::new("md5", "x", Unit::Ratio, Value::Derived(f64::MIN_POSITIVE)),
        ],
    );
    t.row(
        "text",
        vec![Cell::new(
            "a",
            "t",
            Unit::Number,
            Value::Text("words".into()),
        )],
    );
    t.row(
        "other",
        vec![
            Cell::new("c", "m", Unit::Mbps, Value::Model(155.0)),
            Cell::new("c", "q", Unit::Percent, Value::Quoted(-2.5)),
            Cell::new("c", "s", Unit::Mhz, Value::Synthesised(55.1)),
            Cell::new("c", "n", Unit::Mhz, Value::NotAvailable("why".into())),
        ],
    );
    t.note("a note");
    t.seeds.push(&linerate_lab::seeds::FPGA2015);
    Lab {
        machine,
        tables: vec![t, Table::new("empty_table", "Nothing", &[])],
        quick: true,
    }
}

fn lab_runs(seeds: &mut Vec<Seed>) {
    let run = |lab: &Lab| serde_json::to_string_pretty(&json::render(lab)).expect("JSON");
    seeds.push((
        "lab_run",
        "sample".into(),
        run(&sample_lab(1.5e9)).into_bytes(),
    ));
    seeds.push((
        "lab_run",
        "small-figure".into(),
        run(&sample_lab(1e-300)).into_bytes(),
    ));
    // Issue 32, point 9: a figure of 1e308 made the reports spin; refused
    // on load now.
    seeds.push((
        "lab_run",
        "huge-figure".into(),
        run(&sample_lab(1e308)).into_bytes(),
    ));
    let mut wrong = serde_json::to_value(json::render(&sample_lab(1.0))).expect("JSON");
    wrong["format"] = "linerate-lab/0".into();
    seeds.push((
        "lab_run",
        "other-format".into(),
        wrong.to_string().into_bytes(),
    ));
    let mut bad_unit = json::render(&sample_lab(1.0));
    bad_unit["tables"][0]["cells"][1]["unit"] = "furlongs".into();
    seeds.push((
        "lab_run",
        "bad-unit".into(),
        bad_unit.to_string().into_bytes(),
    ));
    seeds.push(("lab_run", "not-json".into(), b"{".to_vec()));
}

/// Inputs that show bugs outside the fuzz workspace, not yet fixed: kept
/// under `fuzz/known_failures/TARGET/` and replayed only by the ignored
/// test `known_failures_still_fail`. Each moves to the seeds once fixed.
pub fn known_failures() -> Vec<Seed> {
    Vec::new()
}
