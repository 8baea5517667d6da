//! The spec's 18 MD5-P/K test vectors (specs/md5p.md), verbatim, on every
//! lanes backend and through every API; and which K are accepted.

mod md5p_common;

use linerate::md5p::{self, Md5p, Md5pError, Md5pK};
use md5p_common::{lanes_backends, md5p_on, oracle};

/// The spec's messages, by the names its table uses.
fn message(name: &str) -> Vec<u8> {
    match name {
        "\"\"" => Vec::new(),
        "\"abc\"" => b"abc".to_vec(),
        "\"a\" * 64" => vec![b'a'; 64],
        "\"a\" * 65" => vec![b'a'; 65],
        "bytes(0..255) * 4" => (0..1024).map(|i| i as u8).collect(),
        "\"a\" * 1000000" => vec![b'a'; 1_000_000],
        _ => unreachable!("{name}"),
    }
}

/// The spec's table: K, message, MD5-P/K.
const VECTORS: [(usize, &str, &str); 18] = [
    (4, "\"\"", "90b83c0fe892d7b4c2bdc38deba7a3cb"),
    (4, "\"abc\"", "148ae4e6d92bdddaaf1c1d44cb112e53"),
    (4, "\"a\" * 64", "1cd4d19f391f872372be9de3997e1a22"),
    (4, "\"a\" * 65", "eacb3022f9e16b685f32d9821ab3c2ac"),
    (4, "bytes(0..255) * 4", "fe64925ed82fdfa9a546a34522ea3a5c"),
    (4, "\"a\" * 1000000", "b5f77859e9903739d22a551c22180815"),
    (8, "\"\"", "e7dd4330655dc61ec7f53e526532adfa"),
    (8, "\"abc\"", "900092a79d6aa7b87fbc1193b9ae7be5"),
    (8, "\"a\" * 64", "519f4809b525160700055883a146e6f3"),
    (8, "\"a\" * 65", "53eb84bc44b4b4eef9fd3eda65e6d1b5"),
    (8, "bytes(0..255) * 4", "3c6d322a68f4d28869efc1e09b5be13e"),
    (8, "\"a\" * 1000000", "46b7d6e5cd24d98217d03d18b015df35"),
    (16, "\"\"", "6452dea751220e2d7b7af19575fe8d81"),
    (16, "\"abc\"", "8a814c93bae856e7e8001a63e313ee31"),
    (16, "\"a\" * 64", "fd29efb584dec3dfb282a26e6b297475"),
    (16, "\"a\" * 65", "bd6a8831350dcb1f465ef63b450203f3"),
    (16, "bytes(0..255) * 4", "33094636830764a6d2b4f7bfba70b1ba"),
    (16, "\"a\" * 1000000", "34423f521d3731eb91d73798eb44c5df"),
];

#[test]
fn the_oracle_passes_the_spec_vectors() {
    for (k, name, want) in VECTORS {
        assert_eq!(hex::encode(oracle(k, &message(name))), want, "K={k} {name}");
    }
}

#[test]
fn spec_vectors_on_every_lanes_backend() {
    for lanes in lanes_backends() {
        for (k, name, want) in VECTORS {
            let got = md5p_on(lanes, k, &message(name));
            assert_eq!(hex::encode(got), want, "{}: K={k} {name}", lanes.backend());
        }
    }
}

#[test]
fn spec_vectors_through_the_one_shot_and_typed_apis() {
    for (k, name, want) in VECTORS {
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
    for (k, name, want) in VECTORS {
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
