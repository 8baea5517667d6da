//! MD5-P/K in the RustCrypto ecosystem: `Md5pK<K>` (and `Md5p16` ...) as a
//! `digest::Digest`, HMAC through `hmac::SimpleHmac`, and the run-time
//! `Md5p` as a `digest::DynDigest`.

use crate::support::Rng;
use crate::support::oracle;
use digest::{Digest, DynDigest};
use hmac::{KeyInit, Mac, SimpleHmac};
use linerate::md5p::{Md5p, Md5p4, Md5p8, Md5p16, Md5p32, Md5p64, Md5pK};

/// Any `Digest`, fed `parts` one by one.
fn generic<D: Digest>(parts: &[&[u8]]) -> Vec<u8> {
    let mut d = D::new();
    for p in parts {
        Digest::update(&mut d, p);
    }
    d.finalize().to_vec()
}

#[test]
fn md5pk_is_a_digest_for_every_alias() {
    let mut rng = Rng::new(8000);
    let a = rng.bytes(1000);
    let b = rng.bytes(3000);
    let whole = [&a[..], &b[..]].concat();
    let parts: [&[u8]; 2] = [&a, &b];
    assert_eq!(generic::<Md5p4>(&parts), oracle(4, &whole));
    assert_eq!(generic::<Md5p8>(&parts), oracle(8, &whole));
    assert_eq!(generic::<Md5p16>(&parts), oracle(16, &whole));
    assert_eq!(generic::<Md5p32>(&parts), oracle(32, &whole));
    assert_eq!(generic::<Md5p64>(&parts), oracle(64, &whole));
    assert_eq!(generic::<Md5pK<12>>(&parts), oracle(12, &whole));
    assert_eq!(generic::<Md5pK<256>>(&parts), oracle(256, &whole));
    assert_eq!(<Md5p16 as Digest>::output_size(), 16);
    assert_eq!(Md5p16::k(), 16);
}

#[test]
fn digest_one_shot_reset_and_finalize_reset() {
    assert_eq!(
        hex::encode(Md5p16::digest(b"abc")),
        "8a814c93bae856e7e8001a63e313ee31"
    );
    let mut h = <Md5p8 as Digest>::new_with_prefix(b"a");
    Digest::update(&mut h, b"bc");
    assert_eq!(
        hex::encode(Digest::finalize_reset(&mut h)),
        "900092a79d6aa7b87fbc1193b9ae7be5"
    );
    assert_eq!(
        hex::encode(Digest::finalize(h.clone())),
        "e7dd4330655dc61ec7f53e526532adfa"
    );
    Digest::update(&mut h, b"junk");
    Digest::reset(&mut h);
    assert_eq!(
        hex::encode(Digest::finalize(h)),
        "e7dd4330655dc61ec7f53e526532adfa"
    );
}

/// HMAC (RFC 2104) over MD5-P/16 by its definition: B = 64, the key hashed
/// first when longer than B.
fn hmac_by_definition(key: &[u8], msg: &[u8]) -> [u8; 16] {
    let key = if key.len() > 64 {
        oracle(16, key).to_vec()
    } else {
        key.to_vec()
    };
    let mut k0 = [0u8; 64];
    k0[..key.len()].copy_from_slice(&key);
    let inner = oracle(16, &[&k0.map(|b| b ^ 0x36)[..], msg].concat());
    oracle(16, &[&k0.map(|b| b ^ 0x5c)[..], &inner[..]].concat())
}

#[test]
fn simple_hmac_over_md5p16_matches_rfc2104() {
    let mut rng = Rng::new(8100);
    for (key_len, msg_len) in [(0, 0), (16, 3), (64, 100), (65, 1024), (200, 5000)] {
        let key = rng.bytes(key_len);
        let msg = rng.bytes(msg_len);
        let mut mac = SimpleHmac::<Md5p16>::new_from_slice(&key).unwrap();
        mac.update(&msg);
        let tag = mac.clone().finalize().into_bytes();
        assert_eq!(
            tag[..],
            hmac_by_definition(&key, &msg),
            "key {key_len}, msg {msg_len}"
        );
        assert!(mac.clone().verify_slice(&tag).is_ok());
        let mut bad = tag;
        bad[0] ^= 1;
        assert!(mac.verify_slice(&bad).is_err());
    }
}

#[test]
fn md5p_with_run_time_k_is_a_dyn_digest() {
    let mut rng = Rng::new(8200);
    let data = rng.bytes(5000);
    for k in [4, 20, 128] {
        let mut h: Box<dyn DynDigest> = Box::new(Md5p::new(k).unwrap());
        assert_eq!(h.output_size(), 16);
        h.update(&data[..1234]);
        h.update(&data[1234..]);
        assert_eq!(h.finalize_reset()[..], oracle(k, &data), "K={k}");
        h.update(b"abc");
        assert_eq!(h.finalize()[..], oracle(k, b"abc"), "K={k}");
    }
}

#[test]
fn debug_names_k_and_backend_but_no_data() {
    let mut h = Md5p::new(16).unwrap();
    h.update(b"secret");
    let s = format!("{h:?}");
    assert!(s.contains("k: 16"), "{s}");
    assert!(s.contains(&format!("{:?}", h.backend())), "{s}");
    assert!(!s.contains("secret") && !s.contains("115"), "{s}");
}
