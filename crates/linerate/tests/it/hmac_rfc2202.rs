//! RFC 2202's test cases for HMAC-MD5 and HMAC-SHA1, verbatim, through every
//! HMAC entry point: the fast keys on every MD5 backend, the generic key on
//! linerate's and RustCrypto's hashers, streaming, and the multi-buffer
//! paths on every lanes backend. Test case 5 also gives the 96-bit
//! truncations of RFC 2403/2404.

use linerate::mac::hmac::{HmacKey, HmacMd5Key, HmacSha1Key, hmac_md5_many, hmac_md5_many_with};
use linerate::md5::Md5Backend;

struct Case {
    test_case: usize,
    key: Vec<u8>,
    data: Vec<u8>,
    digest: &'static str,
    /// Test case 5's `digest-96`.
    digest_96: Option<&'static str>,
}

fn case(
    test_case: usize,
    key: Vec<u8>,
    data: Vec<u8>,
    digest: &'static str,
    digest_96: Option<&'static str>,
) -> Case {
    Case {
        test_case,
        key,
        data,
        digest,
        digest_96,
    }
}

/// `0x0102030405060708090a0b0c0d0e0f10111213141516171819`, key_len 25.
fn key_25() -> Vec<u8> {
    (0x01..=0x19).collect()
}

/// RFC 2202 section 2, "Test Cases for HMAC-MD5".
fn md5_cases() -> Vec<Case> {
    vec![
        case(
            1,
            vec![0x0b; 16],
            b"Hi There".to_vec(),
            "9294727a3638bb1c13f48ef8158bfc9d",
            None,
        ),
        case(
            2,
            b"Jefe".to_vec(),
            b"what do ya want for nothing?".to_vec(),
            "750c783e6ab0b503eaa86e310a5db738",
            None,
        ),
        case(
            3,
            vec![0xaa; 16],
            vec![0xdd; 50],
            "56be34521d144c88dbb8c733f0e8b3f6",
            None,
        ),
        case(
            4,
            key_25(),
            vec![0xcd; 50],
            "697eaf0aca3a3aea3a75164746ffaa79",
            None,
        ),
        case(
            5,
            vec![0x0c; 16],
            b"Test With Truncation".to_vec(),
            "56461ef2342edc00f9bab995690efd4c",
            Some("56461ef2342edc00f9bab995"),
        ),
        case(
            6,
            vec![0xaa; 80],
            b"Test Using Larger Than Block-Size Key - Hash Key First".to_vec(),
            "6b1ab7fe4bd7bf8f0b62e6ce61b9d0cd",
            None,
        ),
        case(
            7,
            vec![0xaa; 80],
            b"Test Using Larger Than Block-Size Key and Larger Than One Block-Size Data".to_vec(),
            "6f630fad67cda0ee1fb1f562db3aa53e",
            None,
        ),
    ]
}

/// RFC 2202 section 3, "Test Cases for HMAC-SHA-1".
fn sha1_cases() -> Vec<Case> {
    vec![
        case(
            1,
            vec![0x0b; 20],
            b"Hi There".to_vec(),
            "b617318655057264e28bc0b6fb378c8ef146be00",
            None,
        ),
        case(
            2,
            b"Jefe".to_vec(),
            b"what do ya want for nothing?".to_vec(),
            "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79",
            None,
        ),
        case(
            3,
            vec![0xaa; 20],
            vec![0xdd; 50],
            "125d7342b9ac11cd91a39af48aa17b4f63f175d3",
            None,
        ),
        case(
            4,
            key_25(),
            vec![0xcd; 50],
            "4c9007f4026250c6bc8414f9bf50c86c2d7235da",
            None,
        ),
        case(
            5,
            vec![0x0c; 20],
            b"Test With Truncation".to_vec(),
            "4c1a03424b55e07fe7f27be1d58bb9324a9a5a04",
            Some("4c1a03424b55e07fe7f27be1"),
        ),
        case(
            6,
            vec![0xaa; 80],
            b"Test Using Larger Than Block-Size Key - Hash Key First".to_vec(),
            "aa4ae5e15272d00e95705637ce8a3b55ed402112",
            None,
        ),
        case(
            7,
            vec![0xaa; 80],
            b"Test Using Larger Than Block-Size Key and Larger Than One Block-Size Data".to_vec(),
            "e8e99d0f45237d786d6bbaa7965c7808bbff1a91",
            None,
        ),
    ]
}

#[test]
fn the_cases_are_the_rfcs() {
    let md5 = md5_cases();
    let sha1 = sha1_cases();
    assert_eq!(md5.len(), 7);
    assert_eq!(sha1.len(), 7);
    for (i, c) in md5.iter().chain(&sha1).enumerate() {
        assert_eq!(c.test_case, i % 7 + 1);
    }
    // key_len and data_len as the RFC lists them.
    let lens = |cs: &[Case]| -> Vec<(usize, usize)> {
        cs.iter().map(|c| (c.key.len(), c.data.len())).collect()
    };
    assert_eq!(
        lens(&md5),
        [
            (16, 8),
            (4, 28),
            (16, 50),
            (25, 50),
            (16, 20),
            (80, 54),
            (80, 73)
        ]
    );
    assert_eq!(
        lens(&sha1),
        [
            (20, 8),
            (4, 28),
            (20, 50),
            (25, 50),
            (20, 20),
            (80, 54),
            (80, 73)
        ]
    );
}

#[test]
fn hmac_md5_fast_key_on_every_md5_backend() {
    for backend in Md5Backend::supported() {
        for c in md5_cases() {
            let key = HmacMd5Key::with_backend(&c.key, backend).unwrap();
            let tag = key.tag(&c.data);
            assert_eq!(
                hex::encode(tag),
                c.digest,
                "{backend}: case {}",
                c.test_case
            );
            assert!(key.verify(&c.data, &tag));
            if let Some(d96) = c.digest_96 {
                let t96 = key.tag_96(&c.data);
                assert_eq!(hex::encode(t96), d96, "{backend}: case {}-96", c.test_case);
                assert!(key.verify_96(&c.data, &t96));
            }
        }
    }
}

#[test]
fn hmac_md5_generic_key_on_linerate_and_rustcrypto_md5() {
    for c in md5_cases() {
        let ours = HmacKey::<linerate::Md5>::new(&c.key);
        let theirs = HmacKey::<md5_crate::Md5>::new(&c.key);
        assert_eq!(
            hex::encode(ours.tag(&c.data)),
            c.digest,
            "case {}",
            c.test_case
        );
        assert_eq!(
            hex::encode(theirs.tag(&c.data)),
            c.digest,
            "case {}",
            c.test_case
        );
        // Streaming, one byte at a time.
        let mut s = ours.stream();
        for b in &c.data {
            s.update(std::slice::from_ref(b));
        }
        assert_eq!(hex::encode(s.finalize()), c.digest, "case {}", c.test_case);
        if let Some(d96) = c.digest_96 {
            assert_eq!(hex::encode(ours.tag_96(&c.data)), d96);
        }
    }
}

#[test]
fn hmac_sha1_fast_and_generic_keys() {
    for c in sha1_cases() {
        let fast = HmacSha1Key::new(&c.key);
        let generic = HmacKey::<sha1::Sha1>::new(&c.key);
        let tag = fast.tag(&c.data);
        assert_eq!(hex::encode(tag), c.digest, "case {}", c.test_case);
        assert_eq!(
            hex::encode(generic.tag(&c.data)),
            c.digest,
            "case {}",
            c.test_case
        );
        assert!(fast.verify(&c.data, &tag));
        assert!(generic.verify(&c.data, &tag));
        if let Some(d96) = c.digest_96 {
            assert_eq!(hex::encode(fast.tag_96(&c.data)), d96);
            assert_eq!(hex::encode(generic.tag_96(&c.data)), d96);
        }
    }
}

#[test]
fn hmac_md5_multi_buffer_on_every_lanes_backend() {
    let cases = md5_cases();
    let keys: Vec<HmacMd5Key> = cases.iter().map(|c| HmacMd5Key::new(&c.key)).collect();
    let packets: Vec<(&HmacMd5Key, &[u8])> = keys
        .iter()
        .zip(&cases)
        .map(|(k, c)| (k, &c.data[..]))
        .collect();
    let want: Vec<&str> = cases.iter().map(|c| c.digest).collect();
    let hexes = |out: &[[u8; 16]]| -> Vec<String> { out.iter().map(hex::encode).collect() };
    let mut out = vec![[0u8; 16]; cases.len()];
    hmac_md5_many(&packets, &mut out);
    assert_eq!(hexes(&out), want, "hmac_md5_many");
    for lanes in crate::support::lanes_backends() {
        out.fill([0; 16]);
        hmac_md5_many_with(&lanes, &packets, &mut out);
        assert_eq!(hexes(&out), want, "{}: hmac_md5_many_with", lanes.backend());
        // One key per case, the message repeated to fill several lanes.
        for (c, key) in cases.iter().zip(&keys) {
            let batch = vec![&c.data[..]; 5];
            let mut tags = vec![[0u8; 16]; 5];
            key.tag_many_with(&lanes, &batch, &mut tags);
            assert!(
                tags.iter().all(|t| hex::encode(t) == c.digest),
                "{}: tag_many_with, case {}",
                lanes.backend(),
                c.test_case
            );
            assert_eq!(key.tag_many(&batch), tags, "tag_many, case {}", c.test_case);
        }
    }
}
