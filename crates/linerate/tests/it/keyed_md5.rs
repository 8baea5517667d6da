//! RFC 1828 keyed MD5, single and multi-buffer on every lanes backend,
//! against RustCrypto's `md-5` over the whole envelope
//! `key || zeros to a block boundary || message || key`; and RFC 2385's
//! TCP MD5 signature, the same without the front (`message || key`).

use crate::support::Rng;
use linerate::lanes::Lanes;
use linerate::mac::keyed_md5::KeyedMd5Key;
use md5_crate::{Digest, Md5 as Oracle};

/// RFC 1828 section 2, written out with an independent MD5.
fn oracle(key: &[u8], message: &[u8]) -> [u8; 16] {
    let mut h = Oracle::new();
    h.update(key);
    h.update(vec![0u8; key.len().div_ceil(64) * 64 - key.len()]);
    h.update(message);
    h.update(key);
    h.finalize().into()
}

const KEY_LENGTHS: [usize; 12] = [0, 1, 15, 16, 17, 55, 56, 63, 64, 65, 100, 130];

#[test]
fn single_messages_match_the_oracle() {
    let mut rng = Rng::new(1828);
    for klen in KEY_LENGTHS {
        let key = rng.bytes(klen);
        let k = KeyedMd5Key::new(&key);
        for len in (0..200).chain([1023, 1024, 1025, 1500, 4096]) {
            let m = rng.bytes(len);
            assert_eq!(k.tag(&m), oracle(&key, &m), "key {klen} message {len}");
        }
    }
}

#[test]
fn batches_on_every_lanes_backend() {
    let mut rng = Rng::new(2403);
    let backends: Vec<Lanes> = crate::support::lanes_backends();
    assert!(!backends.is_empty());
    for klen in KEY_LENGTHS {
        let key = rng.bytes(klen);
        let k = KeyedMd5Key::new(&key);
        // Lengths around every padding edge of message + key, and random
        // ones up to 3000 bytes, shuffled so that groups mix.
        let mut lens: Vec<usize> = (0..140).collect();
        lens.extend((0..300).map(|_| rng.below(3000)));
        let messages: Vec<Vec<u8>> = lens.iter().map(|&n| rng.bytes(n)).collect();
        let slices: Vec<&[u8]> = messages.iter().map(|m| &m[..]).collect();
        let want: Vec<[u8; 16]> = messages.iter().map(|m| oracle(&key, m)).collect();
        for lanes in &backends {
            let mut out = vec![[0u8; 16]; slices.len()];
            k.tag_many_with(lanes, &slices, &mut out);
            assert_eq!(out, want, "{} key {klen}", lanes.backend());
        }
        assert_eq!(k.tag_many(&slices), want, "auto, key {klen}");
    }
}

/// RFC 2385 section 2.0: MD5 over the segment's bytes, then the key.
fn tcp_oracle(key: &[u8], message: &[u8]) -> [u8; 16] {
    let mut h = Oracle::new();
    h.update(message);
    h.update(key);
    h.finalize().into()
}

#[test]
fn tcp_md5_single_and_batched_on_every_lanes_backend() {
    let mut rng = Rng::new(2385);
    let backends: Vec<Lanes> = crate::support::lanes_backends();
    // Linux takes keys of 1 to 80 bytes (TCP_MD5SIG_MAXKEYLEN).
    for klen in [1, 16, 55, 56, 63, 64, 65, 80] {
        let key = rng.bytes(klen);
        let k = KeyedMd5Key::suffix_only(&key);
        let mut lens: Vec<usize> = (0..140).collect();
        lens.extend((0..200).map(|_| rng.below(1600)));
        let messages: Vec<Vec<u8>> = lens.iter().map(|&n| rng.bytes(n)).collect();
        let slices: Vec<&[u8]> = messages.iter().map(|m| &m[..]).collect();
        let want: Vec<[u8; 16]> = messages.iter().map(|m| tcp_oracle(&key, m)).collect();
        for (m, w) in messages.iter().zip(&want) {
            assert_eq!(&k.tag(m), w, "key {klen} message {}", m.len());
        }
        for lanes in &backends {
            let mut out = vec![[0u8; 16]; slices.len()];
            k.tag_many_with(lanes, &slices, &mut out);
            assert_eq!(out, want, "{} key {klen}", lanes.backend());
        }
    }
}

#[test]
fn a_batch_longer_than_one_sort_window() {
    // 4096 messages are sorted per window; cross the window with uneven sizes.
    let mut rng = Rng::new(4302);
    let key = rng.bytes(16);
    let k = KeyedMd5Key::new(&key);
    let messages: Vec<Vec<u8>> = (0..5000)
        .map(|i| rng.bytes(if i % 7 == 0 { 1500 } else { i % 97 }))
        .collect();
    let slices: Vec<&[u8]> = messages.iter().map(|m| &m[..]).collect();
    let got = k.tag_many(&slices);
    for (i, m) in messages.iter().enumerate() {
        assert_eq!(got[i], oracle(&key, m), "message {i}");
    }
}

#[test]
fn debug_shows_no_key() {
    let k = KeyedMd5Key::new(b"secret key bytes");
    assert!(!format!("{k:?}").contains("secret"));
}
