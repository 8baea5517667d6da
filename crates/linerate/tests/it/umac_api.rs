//! The UMAC API: streaming (the tag does not depend on the split), nonce
//! lengths, constant-time verification, OpenSSH's sequence-number nonces,
//! rekeying and cloning, the pad cache under out-of-order nonces, and
//! `LINERATE_NH_BACKEND`.

use linerate::backend::{Backend, Problem};
use linerate::mac::umac::{NhBackend, TagBits, Umac, UmacError};

const NH_BACKEND_ENV: &str = NhBackend::ENV;
use crate::support::{Rng, nh_backends as backends};

#[test]
fn every_split_into_three_pieces_gives_the_same_tag() {
    let mut rng = Rng::new(1);
    for bits in TagBits::ALL {
        let mut umac = Umac::new(&rng.key(), bits);
        for len in [0usize, 1, 31, 32, 33, 100] {
            let msg = rng.bytes(len);
            let want = umac.tag(&msg, b"nonce").unwrap();
            for i in 0..=len {
                for j in i..=len {
                    let mut s = umac.start();
                    s.update(&msg[..i]);
                    s.update(&msg[i..j]);
                    s.update(&msg[j..]);
                    assert_eq!(
                        s.finalize(b"nonce").unwrap(),
                        want,
                        "{bits:?} {len} {i} {j}"
                    );
                }
            }
        }
    }
}

#[test]
fn splits_around_chunk_boundaries_give_the_same_tag() {
    let mut rng = Rng::new(2);
    for backend in backends() {
        for bits in TagBits::ALL {
            let mut umac = Umac::with_backend(&rng.key(), bits, backend).unwrap();
            for len in [1023usize, 1024, 1025, 2047, 2048, 2049, 3072, 5000] {
                let msg = rng.bytes(len);
                let want = umac.tag(&msg, b"n").unwrap();
                let cuts = [0usize, 1, 31, 32, 512, 1000, 1023, 1024, 1025, 2048, 2049];
                for &i in cuts.iter().filter(|&&i| i <= len) {
                    for &j in cuts.iter().filter(|&&j| j >= i && j <= len) {
                        let mut s = umac.start();
                        s.update(&msg[..i]);
                        s.update(&msg[i..j]);
                        s.update(&msg[j..]);
                        let got = s.finalize(b"n").unwrap();
                        assert_eq!(got, want, "{backend} {bits:?} {len} {i} {j}");
                    }
                }
                // Byte by byte, and with empty updates in between.
                let mut s = umac.start();
                for b in &msg {
                    s.update(&[]);
                    s.update(std::slice::from_ref(b));
                }
                assert_eq!(s.finalize(b"n").unwrap(), want);
            }
        }
    }
}

#[test]
fn nonces_of_1_to_16_bytes_only() {
    let mut umac = Umac::new(&[1; 16], TagBits::B64);
    assert_eq!(umac.tag(b"m", b""), Err(UmacError::NonceLength(0)));
    assert_eq!(umac.tag(b"m", &[0; 17]), Err(UmacError::NonceLength(17)));
    for n in 1..=16 {
        assert!(umac.tag(b"m", &vec![9; n]).is_ok());
    }
    assert_eq!(umac.start().finalize(&[]), Err(UmacError::NonceLength(0)));
    let msg = UmacError::NonceLength(17).to_string();
    assert!(msg.contains("1 to 16") && msg.contains("17"), "{msg}");
    assert!(!umac.verify(b"m", b"", &[0; 8]));
}

#[test]
fn verify_accepts_the_tag_and_nothing_else() {
    let mut rng = Rng::new(3);
    for bits in TagBits::ALL {
        let mut umac = Umac::new(&rng.key(), bits);
        let msg = rng.bytes(1500);
        let nonce = rng.nonce();
        let tag = umac.tag(&msg, &nonce).unwrap();
        assert_eq!(tag.len(), bits.bytes());
        assert!(umac.verify(&msg, &nonce, &tag));
        for i in 0..tag.len() {
            for bit in 0..8 {
                let mut bad = tag.to_vec();
                bad[i] ^= 1 << bit;
                assert!(!umac.verify(&msg, &nonce, &bad));
            }
        }
        assert!(!umac.verify(&msg, &nonce, &tag[..tag.len() - 1]));
        let mut longer = tag.to_vec();
        longer.push(0);
        assert!(!umac.verify(&msg, &nonce, &longer));
        assert!(!umac.verify(&msg[1..], &nonce, &tag));
        let mut other = nonce.clone();
        other[0] ^= 0x80;
        assert!(!umac.verify(&msg, &other, &tag));
        // Tag's own == is the constant-time comparison.
        assert_eq!(tag, umac.tag(&msg, &nonce).unwrap());
        assert!(tag == *tag.as_bytes());
    }
}

#[test]
fn openssh_tags_use_the_big_endian_sequence_number() {
    let mut rng = Rng::new(4);
    for bits in [TagBits::B64, TagBits::B128] {
        let key = rng.key();
        let mut a = Umac::new(&key, bits);
        let mut b = Umac::new(&key, bits);
        for seqno in [0u64, 1, 2, 3, 0xffff_ffff, 0x0102_0304_0506_0708] {
            let packet = rng.bytes(100);
            let t = a.tag_openssh(seqno, &packet);
            assert_eq!(t, b.tag(&packet, &seqno.to_be_bytes()).unwrap());
            assert!(a.verify_openssh(seqno, &packet, &t));
            assert!(!a.verify_openssh(seqno ^ 1, &packet, &t));
        }
    }
}

#[test]
fn the_pad_cache_never_changes_a_tag() {
    // Sequential, repeated, backwards and scattered nonces through one
    // context give the tags fresh contexts give.
    let mut rng = Rng::new(5);
    for bits in TagBits::ALL {
        let key = rng.key();
        let mut umac = Umac::new(&key, bits);
        let nonces: Vec<Vec<u8>> = [
            0u64,
            1,
            2,
            3,
            4,
            5,
            3,
            2,
            1,
            0,
            7,
            6,
            6,
            8,
            1 << 40,
            (1 << 40) + 1,
            0,
        ]
        .iter()
        .map(|n| n.to_be_bytes().to_vec())
        .chain([
            vec![1],
            vec![1, 0],
            vec![0],
            vec![3],
            vec![2],
            vec![0; 16],
            vec![0xff; 16],
        ])
        .collect();
        for nonce in &nonces {
            let n = rng.below(3000);
            let msg = rng.bytes(n);
            let got = umac.tag(&msg, nonce).unwrap();
            let fresh = Umac::new(&key, bits).tag(&msg, nonce).unwrap();
            assert_eq!(got, fresh, "{bits:?} nonce {nonce:02x?}");
        }
    }
}

#[test]
fn sequential_nonces_share_aes_calls() {
    // One AES call per four tags for UMAC-32, per two for UMAC-64, per tag
    // for UMAC-96 and UMAC-128, on OpenSSH's sequence numbers and on
    // 16-byte nonces alike.
    for (bits, per_call) in [
        (TagBits::B32, 4),
        (TagBits::B64, 2),
        (TagBits::B96, 1),
        (TagBits::B128, 1),
    ] {
        let mut umac = Umac::new(&[3; 16], bits);
        assert_eq!(umac.__pdf_aes_calls(), 0);
        for seqno in 0..400u64 {
            umac.tag_openssh(seqno, b"packet");
        }
        assert_eq!(umac.__pdf_aes_calls(), 400 / per_call, "{bits:?}");
        let mut umac = Umac::new(&[3; 16], bits);
        for n in 1000..1400u128 {
            umac.tag(b"m", &n.to_be_bytes()).unwrap();
        }
        assert_eq!(umac.__pdf_aes_calls(), 400 / per_call, "{bits:?}");
        // The streaming path shares the cache.
        let mut umac = Umac::new(&[3; 16], bits);
        for n in 0..8u64 {
            let mut s = umac.start();
            s.update(b"m");
            s.finalize(&n.to_be_bytes()).unwrap();
        }
        assert_eq!(umac.__pdf_aes_calls(), 8 / per_call, "{bits:?}");
    }
}

#[test]
fn rekey_and_clone() {
    let mut rng = Rng::new(6);
    let (k1, k2) = (rng.key(), rng.key());
    let msg = rng.bytes(2000);
    for bits in TagBits::ALL {
        let mut umac = Umac::new(&k1, bits);
        let t1 = umac.tag(&msg, b"12345678").unwrap();
        let mut copy = umac.clone();
        umac.rekey(&k2);
        // Same nonce block as before: the cached pad of k1 must not be used.
        let t2 = umac.tag(&msg, b"12345679").unwrap();
        assert_eq!(t2, Umac::new(&k2, bits).tag(&msg, b"12345679").unwrap());
        assert_eq!(copy.tag(&msg, b"12345678").unwrap(), t1);
        assert_eq!(umac.bits(), bits);
    }
}

#[test]
fn tag_bits_and_tag_formatting() {
    assert_eq!(TagBits::from_bits(64), Some(TagBits::B64));
    assert_eq!(TagBits::from_bits(48), None);
    for t in TagBits::ALL {
        assert_eq!(TagBits::from_bits(t.bits()), Some(t));
        assert_eq!(t.bits(), 8 * t.bytes());
    }
    let mut umac = Umac::new(b"abcdefghijklmnop", TagBits::B32);
    let tag = umac.tag(b"", b"bcdefghi").unwrap();
    assert_eq!(tag.to_hex(), "113145fb");
    assert_eq!(format!("{tag}"), "113145fb");
    assert_eq!(format!("{tag:?}"), "Tag(113145fb)");
    assert_eq!(Vec::from(tag), vec![0x11, 0x31, 0x45, 0xfb]);
    let debug = format!("{umac:?}");
    assert!(
        debug.contains("B32") && !debug.contains("abcdefghijklmnop"),
        "{debug}"
    );
}

/// Run as a child of `linerate_nh_backend_env_forces_the_backend` with the
/// variable set; does nothing in an ordinary run.
#[test]
fn env_probe() {
    let Ok(expect) = std::env::var("UMAC_ENV_PROBE_EXPECT") else {
        return;
    };
    let got = Umac::new(&[0; 16], TagBits::B64).backend();
    assert_eq!(got.name(), expect);
    assert_eq!(NhBackend::active(), got);
    let forced = std::env::var(NH_BACKEND_ENV).unwrap();
    match NhBackend::from_name(&forced) {
        Ok(b) => assert_eq!(NhBackend::from_env(), Ok(Some(b))),
        Err(e) => {
            assert_eq!(e.problem, Problem::Unknown);
            assert_eq!(NhBackend::from_env(), Err(e));
        }
    }
}

#[test]
fn linerate_nh_backend_env_forces_the_backend() {
    let exe = std::env::current_exe().unwrap();
    let mut cases: Vec<(String, String)> = backends()
        .into_iter()
        .map(|b| (b.name().to_string(), b.name().to_string()))
        .collect();
    // An unknown name falls back to the fastest backend.
    cases.push(("bogus".to_string(), NhBackend::best().name().to_string()));
    for (value, expect) in cases {
        let out = std::process::Command::new(&exe)
            .args(["umac_api::env_probe", "--exact", "--test-threads=1"])
            .env(NH_BACKEND_ENV, &value)
            .env("UMAC_ENV_PROBE_EXPECT", &expect)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{NH_BACKEND_ENV}={value}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("1 passed"));
    }
    let err = NhBackend::from_name("x").unwrap_err().to_string();
    assert!(
        err.contains(NH_BACKEND_ENV) && err.contains("avx2"),
        "{err}"
    );
}

#[test]
fn tag_many_equals_one_tag_at_a_time() {
    let mut rng = Rng::new(9);
    for bits in TagBits::ALL {
        let key = rng.key();
        let msgs: Vec<Vec<u8>> = (0..40).map(|i| rng.bytes(i * 97 % 3000)).collect();
        let nonces: Vec<[u8; 8]> = (0..40u64).map(|i| (1000 + i * 3).to_be_bytes()).collect();
        let msg_refs: Vec<&[u8]> = msgs.iter().map(|m| &m[..]).collect();
        let nonce_refs: Vec<&[u8]> = nonces.iter().map(|n| &n[..]).collect();
        let mut batch = Umac::new(&key, bits);
        let mut tags = Vec::new();
        batch.tag_many(&msg_refs, &nonce_refs, &mut tags).unwrap();
        let mut single = Umac::new(&key, bits);
        assert_eq!(tags.len(), msgs.len());
        for ((msg, nonce), tag) in msgs.iter().zip(&nonces).zip(&tags) {
            assert_eq!(*tag, single.tag(msg, nonce).unwrap(), "{bits:?}");
        }
        // A bad nonce stops the batch with the tags before it kept.
        let mut bad = nonce_refs.clone();
        bad[5] = &[];
        assert_eq!(
            batch.tag_many(&msg_refs, &bad, &mut tags),
            Err(UmacError::NonceLength(0))
        );
        assert_eq!(tags.len(), 5);
    }
}
