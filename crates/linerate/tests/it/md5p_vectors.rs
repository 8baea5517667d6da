//! The 18 MD5-P/K test vectors of docs/md5p.md (as data:
//! docs/md5p-vectors.txt), on every
//! lanes backend and through every API; and which K are accepted.

use crate::support::{lanes_backends, md5p_on, oracle};
use linerate::md5p::{self, Md5p, Md5pError, Md5pK};

/// The messages of docs/md5p.md's table, by the names it gives them.
fn message(name: &str) -> Vec<u8> {
    match name {
        "\"\"" => Vec::new(),
        "\"abc\"" => b"abc".to_vec(),
        "bytes(0..255) * 4" => (0..1024).map(|i| i as u8).collect(),
        _ => {
            let n = name
                .strip_prefix("\"a\" * ")
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("unknown message {name}"));
            vec![b'a'; n]
        }
    }
}

/// docs/md5p-vectors.txt: K, message, MD5-P/K; all 18 of them.
fn vectors() -> Vec<(usize, &'static str, &'static str)> {
    let table: Vec<_> = include_str!("../../../../docs/md5p-vectors.txt")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let fields: Vec<&str> = l.split('\t').collect();
            assert_eq!(fields.len(), 3, "{l}");
            (fields[0].parse().unwrap(), fields[1], fields[2])
        })
        .collect();
    assert_eq!(table.len(), 18);
    table
}

#[test]
fn the_oracle_passes_the_spec_vectors() {
    for (k, name, want) in vectors() {
        assert_eq!(hex::encode(oracle(k, &message(name))), want, "K={k} {name}");
    }
}

#[test]
fn spec_vectors_on_every_lanes_backend() {
    for lanes in lanes_backends() {
        for (k, name, want) in vectors() {
            let got = md5p_on(lanes, k, &message(name));
            assert_eq!(hex::encode(got), want, "{}: K={k} {name}", lanes.backend());
        }
    }
}

#[test]
fn spec_vectors_through_the_one_shot_and_typed_apis() {
    for (k, name, want) in vectors() {
        let msg = message(name);
        assert_eq!(
            hex::encode(md5p::md5p(k, &msg).unwrap()),
            want,
            "md5p({k}, {name})"
        );
        assert_eq!(
            hex::encode(linerate::md5p(k, &msg).unwrap()),
            want,
            "{name}"
        );
        let typed = match k {
            4 => typed::<4>(&msg),
            8 => typed::<8>(&msg),
            16 => typed::<16>(&msg),
            _ => unreachable!(),
        };
        assert_eq!(hex::encode(typed), want, "Md5pK<{k}> {name}");
    }
}

fn typed<const K: usize>(data: &[u8]) -> [u8; 16] {
    let mut h = Md5pK::<K>::new();
    h.update(data);
    h.finalize()
}

#[test]
fn spec_vectors_byte_by_byte() {
    for (k, name, want) in vectors() {
        let msg = message(name);
        if msg.len() > 4096 {
            continue;
        }
        let mut h = Md5p::new(k).unwrap();
        for b in &msg {
            h.update([*b]);
        }
        assert_eq!(hex::encode(h.finalize()), want, "K={k} {name}, bytewise");
    }
}

#[test]
fn invalid_k_is_an_error_that_names_k() {
    for k in [
        0usize,
        1,
        2,
        3,
        5,
        6,
        7,
        10,
        254,
        257,
        258,
        260,
        512,
        usize::MAX,
    ] {
        let err = Md5p::new(k).expect_err("invalid K accepted");
        assert_eq!(err, Md5pError::InvalidK(k));
        assert!(err.to_string().contains(&format!("K = {k}")), "{err}");
        assert_eq!(md5p::md5p(k, b"abc"), Err(Md5pError::InvalidK(k)));
        assert!(!md5p::is_valid_k(k));
    }
}

#[test]
fn every_multiple_of_4_up_to_256_is_accepted() {
    let valid: Vec<usize> = (0..=300).filter(|&k| md5p::is_valid_k(k)).collect();
    assert_eq!(valid, (1..=64).map(|i| 4 * i).collect::<Vec<_>>());
    for k in valid {
        let h = Md5p::new(k).unwrap();
        assert_eq!(h.k(), k);
    }
    assert_eq!((md5p::MIN_K, md5p::MAX_K), (4, 256));
}
