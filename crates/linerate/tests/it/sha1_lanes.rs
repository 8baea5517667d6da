//! HMAC-SHA1 batches on every SHA-1 lanes backend against RustCrypto's
//! `hmac` over `sha1` (an independent implementation), one message at a
//! time: lengths across every block and padding boundary, shuffled so that
//! groups mix, keys short, block-sized and long, tags cut to 12 and 16.

use crate::support::{Rng, supported};
use hmac::{KeyInit, Mac};
use linerate::mac::hmac::HmacSha1Key;
use linerate::sha1_lanes::{Sha1LanesBackend, hmac_sha1_keyed_many_with, hmac_sha1_many_with};

fn oracle(key: &[u8], message: &[u8]) -> [u8; 20] {
    let mut mac = hmac::Hmac::<sha1::Sha1>::new_from_slice(key).unwrap();
    mac.update(message);
    mac.finalize().into_bytes().into()
}

#[test]
fn batches_match_hmac_over_sha1_on_every_backend() {
    let backends: Vec<Sha1LanesBackend> = supported();
    assert!(backends.contains(&Sha1LanesBackend::Single));
    let mut rng = Rng::new(2404);
    for klen in [0, 12, 20, 64, 65, 100] {
        let key = rng.bytes(klen);
        let k = HmacSha1Key::new(&key);
        let mut lens: Vec<usize> = (0..200).collect();
        lens.extend((0..150).map(|_| rng.below(3100)));
        lens.extend([1500; 40]);
        // Shuffle so that groups of one padded length form across the
        // batch and runs of unequal lengths sit side by side.
        for i in (1..lens.len()).rev() {
            lens.swap(i, rng.below(i + 1));
        }
        let messages: Vec<Vec<u8>> = lens.iter().map(|&n| rng.bytes(n)).collect();
        let views: Vec<&[u8]> = messages.iter().map(|m| &m[..]).collect();
        let want: Vec<[u8; 20]> = messages.iter().map(|m| oracle(&key, m)).collect();
        for &backend in &backends {
            for cut in [12, 16] {
                let mut out = vec![[0xa5u8; 16]; views.len()];
                hmac_sha1_many_with(backend, &k, &views, &mut out, cut);
                for (i, (got, w)) in out.iter().zip(&want).enumerate() {
                    assert_eq!(
                        got[..cut],
                        w[..cut],
                        "{backend} key {klen} message {i} ({} bytes)",
                        views[i].len()
                    );
                    assert!(
                        got[cut..].iter().all(|&b| b == 0xa5),
                        "{backend}: past the tag"
                    );
                }
            }
        }
    }
}

#[test]
fn unaligned_messages_and_a_batch_longer_than_a_sort_window() {
    let mut rng = Rng::new(5925);
    let key = rng.bytes(20);
    let k = HmacSha1Key::new(&key);
    let buf = rng.bytes(5000 * 40 + 400);
    // Messages at every offset of one buffer (so unaligned), 5000 of them.
    let views: Vec<&[u8]> = (0..5000)
        .map(|i| &buf[i * 40 + i % 7..i * 40 + i % 7 + (i % 97) * 3])
        .collect();
    for backend in supported::<Sha1LanesBackend>() {
        let mut out = vec![[0u8; 16]; views.len()];
        hmac_sha1_many_with(backend, &k, &views, &mut out, 16);
        for (i, m) in views.iter().enumerate() {
            assert_eq!(out[i], oracle(&key, m)[..16], "{backend} message {i}");
        }
    }
}

/// A key per message (TCP-AO's traffic keys): five keys in turn over
/// messages of mixed lengths, every backend, against the oracle.
#[test]
fn a_key_per_message() {
    let mut rng = Rng::new(5926);
    let raw: Vec<Vec<u8>> = (0..5).map(|i| rng.bytes(20 + i)).collect();
    let keys: Vec<HmacSha1Key> = raw.iter().map(|k| HmacSha1Key::new(k)).collect();
    let messages: Vec<Vec<u8>> = (0..300)
        .map(|i| {
            let n = if i % 3 == 0 { 1492 } else { rng.below(400) };
            rng.bytes(n)
        })
        .collect();
    let views: Vec<&[u8]> = messages.iter().map(|m| &m[..]).collect();
    for backend in supported::<Sha1LanesBackend>() {
        let mut out = vec![[0u8; 16]; views.len()];
        hmac_sha1_keyed_many_with(backend, |i| &keys[i % 5], &views, &mut out, 12);
        for (i, m) in views.iter().enumerate() {
            assert_eq!(
                out[i][..12],
                oracle(&raw[i % 5], m)[..12],
                "{backend} message {i}"
            );
        }
    }
}
