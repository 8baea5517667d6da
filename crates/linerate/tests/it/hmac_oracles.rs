//! HMAC-MD5 and HMAC-SHA1 on random keys (0..200 bytes, so shorter than,
//! equal to and longer than the 64-byte block) and messages (0..3000 bytes)
//! against two independent implementations: Python's `hmac` module (one
//! `python3` process for all cases; skipped, with a note, where python3 is
//! missing) and RustCrypto's `hmac` crate.

use crate::support::Rng;
use hmac::{KeyInit, Mac};
use linerate::mac::hmac::{HmacKey, HmacMd5Key, HmacSha1Key};
use linerate::md5::Md5Backend;
use std::io::Write;
use std::process::{Command, Stdio};

/// Reads `key_hex message_hex` lines; prints `md5_tag sha1_tag` per line.
const PYTHON: &str = r#"
import hashlib, hmac, sys
for line in sys.stdin:
    k, m = (bytes.fromhex(x) for x in line.split(" "))
    print(hmac.new(k, m, hashlib.md5).hexdigest(), hmac.new(k, m, hashlib.sha1).hexdigest())
"#;

/// Key and message lengths: the padding and block edges, then random ones.
fn cases(seed: u64, random: usize) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut rng = Rng::new(seed);
    let edge_keys = [0, 1, 16, 20, 55, 63, 64, 65, 80, 128, 129, 199];
    let edge_msgs = [0, 1, 55, 56, 63, 64, 65, 119, 120, 127, 128, 1500, 2999];
    let mut out = Vec::new();
    for (i, &k) in edge_keys.iter().enumerate() {
        for (j, &m) in edge_msgs.iter().enumerate() {
            if (i + j) % 3 == 0 || k == 0 || m == 0 {
                out.push((rng.bytes(k), rng.bytes(m)));
            }
        }
    }
    for _ in 0..random {
        let k = rng.below(200);
        let m = rng.below(3000);
        out.push((rng.bytes(k), rng.bytes(m)));
    }
    out
}

#[test]
fn matches_python_hmac_on_random_keys_and_messages() {
    if Command::new("python3").arg("--version").output().is_err() {
        crate::support::peer_missing(
            "python3 not found: the comparison against Python's hmac is skipped",
        );
        return;
    }
    let cases = cases(4000, 400);
    let mut child = Command::new("python3")
        .args(["-c", PYTHON])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 starts");
    let mut input = String::new();
    for (k, m) in &cases {
        input.push_str(&format!("{} {}\n", hex::encode(k), hex::encode(m)));
    }
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("python3 runs");
    writer.join().unwrap().unwrap();
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
    assert_eq!(lines.len(), cases.len(), "one line per case");
    let messages: Vec<&[u8]> = cases.iter().map(|(_, m)| &m[..]).collect();
    let keys: Vec<HmacMd5Key> = cases.iter().map(|(k, _)| HmacMd5Key::new(k)).collect();
    let packets: Vec<(&HmacMd5Key, &[u8])> = keys.iter().zip(messages.iter().copied()).collect();
    let mut batch = vec![[0u8; 16]; cases.len()];
    linerate::mac::hmac::hmac_md5_many(&packets, &mut batch);
    for (i, ((k, m), line)) in cases.iter().zip(&lines).enumerate() {
        let (md5_want, sha1_want) = line.split_once(' ').expect("two tags");
        let what = format!("case {i}: key {} bytes, message {} bytes", k.len(), m.len());
        assert_eq!(hex::encode(keys[i].tag(m)), md5_want, "HmacMd5Key, {what}");
        assert_eq!(hex::encode(batch[i]), md5_want, "hmac_md5_many, {what}");
        assert_eq!(
            hex::encode(HmacKey::<linerate::Md5>::new(k).tag(m)),
            md5_want,
            "HmacKey<Md5>, {what}"
        );
        assert_eq!(
            hex::encode(HmacSha1Key::new(k).tag(m)),
            sha1_want,
            "HmacSha1Key, {what}"
        );
        assert_eq!(
            hex::encode(HmacKey::<sha1::Sha1>::new(k).tag(m)),
            sha1_want,
            "HmacKey<Sha1>, {what}"
        );
    }
}

fn rustcrypto_md5(key: &[u8], message: &[u8]) -> [u8; 16] {
    let mut mac = hmac::Hmac::<linerate::Md5>::new_from_slice(key).unwrap();
    mac.update(message);
    mac.finalize().into_bytes().into()
}

fn rustcrypto_sha1(key: &[u8], message: &[u8]) -> [u8; 20] {
    let mut mac = hmac::Hmac::<sha1::Sha1>::new_from_slice(key).unwrap();
    mac.update(message);
    mac.finalize().into_bytes().into()
}

#[test]
fn matches_the_hmac_crate_on_random_keys_and_messages() {
    let backends: Vec<Md5Backend> = Md5Backend::supported().collect();
    for (i, (k, m)) in cases(4001, 300).iter().enumerate() {
        let what = format!("case {i}: key {} bytes, message {} bytes", k.len(), m.len());
        let md5_want = rustcrypto_md5(k, m);
        let sha1_want = rustcrypto_sha1(k, m);
        // Every MD5 backend in turn (the reference one is slow: every 8th).
        let backend = backends[i % backends.len()];
        if backend != Md5Backend::Reference || i % 8 == 0 {
            let key = HmacMd5Key::with_backend(k, backend).unwrap();
            assert_eq!(key.tag(m), md5_want, "HmacMd5Key on {backend}, {what}");
        }
        assert_eq!(HmacMd5Key::new(k).tag(m), md5_want, "HmacMd5Key, {what}");
        assert_eq!(
            HmacKey::<linerate::Md5>::new(k).tag(m)[..],
            md5_want,
            "HmacKey<Md5>, {what}"
        );
        assert_eq!(HmacSha1Key::new(k).tag(m), sha1_want, "HmacSha1Key, {what}");
        assert_eq!(
            HmacKey::<sha1::Sha1>::new(k).tag(m)[..],
            sha1_want,
            "HmacKey<Sha1>, {what}"
        );
    }
}

#[test]
fn one_key_many_messages_and_streaming_splits() {
    let mut rng = Rng::new(4002);
    for key_len in [0, 7, 64, 65, 150] {
        let k = rng.bytes(key_len);
        let md5 = HmacMd5Key::new(&k);
        let sha1 = HmacSha1Key::new(&k);
        let generic = HmacKey::<sha1::Sha1>::new(&k);
        for _ in 0..40 {
            let len = rng.below(3000);
            let m = rng.bytes(len);
            assert_eq!(md5.tag(&m), rustcrypto_md5(&k, &m));
            assert_eq!(sha1.tag(&m), rustcrypto_sha1(&k, &m));
            // A reused key streams the message in random pieces.
            let mut s = generic.stream();
            let mut rest = &m[..];
            while !rest.is_empty() {
                let n = rng.below(rest.len() + 1).min(200);
                s.update(&rest[..n]);
                rest = &rest[n..];
            }
            assert_eq!(s.finalize()[..], rustcrypto_sha1(&k, &m));
        }
    }
}
