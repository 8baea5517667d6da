//! `Md5` in the RustCrypto ecosystem: the `digest` traits, and
//! `hmac::Hmac<linerate::Md5>` against RFC 2202's HMAC-MD5 test cases.

use digest::Digest;
use hmac::{KeyInit, Mac};
use linerate::Md5;

type HmacMd5 = hmac::Hmac<Md5>;

use crate::support::unhex;

/// RFC 2202 section 2: (key, data, HMAC-MD5).
fn rfc2202_cases() -> Vec<(Vec<u8>, Vec<u8>, &'static str)> {
    vec![
        (
            vec![0x0b; 16],
            b"Hi There".to_vec(),
            "9294727a3638bb1c13f48ef8158bfc9d",
        ),
        (
            b"Jefe".to_vec(),
            b"what do ya want for nothing?".to_vec(),
            "750c783e6ab0b503eaa86e310a5db738",
        ),
        (
            vec![0xaa; 16],
            vec![0xdd; 50],
            "56be34521d144c88dbb8c733f0e8b3f6",
        ),
        (
            unhex("0102030405060708090a0b0c0d0e0f10111213141516171819"),
            vec![0xcd; 50],
            "697eaf0aca3a3aea3a75164746ffaa79",
        ),
        (
            vec![0x0c; 16],
            b"Test With Truncation".to_vec(),
            "56461ef2342edc00f9bab995690efd4c",
        ),
        (
            vec![0xaa; 80],
            b"Test Using Larger Than Block-Size Key - Hash Key First".to_vec(),
            "6b1ab7fe4bd7bf8f0b62e6ce61b9d0cd",
        ),
        (
            vec![0xaa; 80],
            b"Test Using Larger Than Block-Size Key and Larger Than One Block-Size Data".to_vec(),
            "6f630fad67cda0ee1fb1f562db3aa53e",
        ),
    ]
}

#[test]
fn hmac_over_linerate_md5_passes_rfc2202() {
    for (i, (key, data, want)) in rfc2202_cases().into_iter().enumerate() {
        let mut mac = HmacMd5::new_from_slice(&key).unwrap();
        mac.update(&data);
        assert_eq!(
            hex::encode(mac.finalize().into_bytes()),
            want,
            "case {}",
            i + 1
        );
    }
}

#[test]
fn hmac_verify_rejects_a_wrong_tag() {
    let mut mac = HmacMd5::new_from_slice(b"Jefe").unwrap();
    mac.update(b"what do ya want for nothing?");
    let mut tag = unhex("750c783e6ab0b503eaa86e310a5db738");
    assert!(mac.clone().verify_slice(&tag).is_ok());
    tag[15] ^= 1;
    assert!(mac.verify_slice(&tag).is_err());
}

fn generic_digest<D: Digest>(parts: &[&[u8]]) -> Vec<u8> {
    let mut d = D::new();
    for p in parts {
        d.update(p);
    }
    d.finalize().to_vec()
}

#[test]
fn usable_through_the_generic_digest_api() {
    assert_eq!(
        hex::encode(generic_digest::<Md5>(&[b"message ", b"digest"])),
        "f96b697d7cb7938d525a2f31aaf161d0"
    );
    assert_eq!(<Md5 as Digest>::output_size(), 16);
    let d = <Md5 as Digest>::digest(b"abc");
    assert_eq!(hex::encode(d), "900150983cd24fb0d6963f7d28e17f72");
    let mut h = <Md5 as Digest>::new_with_prefix(b"a");
    Digest::update(&mut h, b"bc");
    assert_eq!(
        hex::encode(Digest::finalize_reset(&mut h)),
        "900150983cd24fb0d6963f7d28e17f72"
    );
    assert_eq!(
        hex::encode(Digest::finalize(h)),
        "d41d8cd98f00b204e9800998ecf8427e"
    );
}
