//! linerate's UMAC against Nettle's (Debian `nettle-dev`), live: random
//! keys, nonces (1 to 16 bytes), tag lengths, messages and splits over
//! `update`; messages around 2^24 bytes, where POLY switches primes; and
//! chunks crafted so that an L1 output lands on POLY's marker range
//! (`>= 2^64 - 2^32`, and `>= 2^128 - 2^96` for the 128-bit prime), which
//! random messages reach with probability 2^-32.
//!
//! `tests/it/data/umac_nettle.c` is compiled with `cc ... -lnettle` at test
//! time; without a C compiler or Nettle the tests print a note and pass.

use crate::support::{Rng, nh_backends as backends};
use aes::Aes128;
use aes::cipher::{Array, BlockCipherEncrypt, KeyInit};
use linerate::mac::umac::{NhBackend, TagBits, Umac};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::OnceLock;

/// The compiled harness, built once per test process; `None` (with a note)
/// where it cannot be built.
fn harness() -> Option<PathBuf> {
    static BIN: OnceLock<Option<PathBuf>> = OnceLock::new();
    BIN.get_or_init(|| {
        let src = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/data/umac_nettle.c");
        let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("umac_nettle");
        let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
        let built = Command::new(&cc)
            .args(["-O2", "-o"])
            .arg(&out)
            .arg(src)
            .arg("-lnettle")
            .stderr(Stdio::null())
            .status();
        match built {
            Ok(status) if status.success() => Some(out),
            _ => {
                crate::support::peer_missing(&format!(
                    "cannot build {src} with `{cc} ... -lnettle` (no C compiler or no \
                     nettle-dev): the Nettle comparisons are skipped"
                ));
                None
            }
        }
    })
    .clone()
}

/// A running harness in `serve` mode.
struct Nettle {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Nettle {
    fn start() -> Option<Nettle> {
        let mut child = Command::new(harness()?)
            .arg("serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start the Nettle harness");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Some(Nettle {
            child,
            stdin,
            stdout,
        })
    }

    fn tag(&mut self, bits: TagBits, key: &[u8; 16], nonce: &[u8], msg: &Msg) -> Vec<u8> {
        writeln!(
            self.stdin,
            "{} {} {} {}",
            bits.bytes(),
            hex::encode(key),
            hex::encode(nonce),
            msg.spec()
        )
        .unwrap();
        self.stdin.flush().unwrap();
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        hex::decode(line.trim()).expect("a tag from the Nettle harness")
    }
}

impl Drop for Nettle {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A message as both sides build it: a pattern repeated to `len` bytes,
/// then `patches` written over it.
struct Msg {
    pattern: Vec<u8>,
    len: usize,
    patches: Vec<(usize, Vec<u8>)>,
}

impl Msg {
    fn bytes(bytes: Vec<u8>) -> Msg {
        Msg {
            len: bytes.len(),
            pattern: bytes,
            patches: Vec::new(),
        }
    }

    fn repeat(pattern: Vec<u8>, len: usize) -> Msg {
        Msg {
            pattern,
            len,
            patches: Vec::new(),
        }
    }

    fn spec(&self) -> String {
        let mut s = if self.len == self.pattern.len() {
            format!("hex:{}", hex::encode(&self.pattern))
        } else {
            format!("rep:{}:{}", hex::encode(&self.pattern), self.len)
        };
        for (at, bytes) in &self.patches {
            s += &format!(" @{at}:{}", hex::encode(bytes));
        }
        s
    }

    fn build(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(self.len + self.pattern.len());
        while v.len() < self.len {
            v.extend_from_slice(&self.pattern);
        }
        v.truncate(self.len);
        for (at, bytes) in &self.patches {
            v[*at..*at + bytes.len()].copy_from_slice(bytes);
        }
        v
    }
}

/// Our tag in one call and, streamed over random splits, on another
/// backend; both must agree before one is returned.
fn ours(rng: &mut Rng, bits: TagBits, key: &[u8; 16], nonce: &[u8], msg: &[u8]) -> Vec<u8> {
    let all = backends();
    let b1 = all[rng.below(all.len())];
    let b2 = all[rng.below(all.len())];
    let one = Umac::with_backend(key, bits, b1)
        .unwrap()
        .tag(msg, nonce)
        .unwrap();
    let mut umac = Umac::with_backend(key, bits, b2).unwrap();
    let mut state = umac.start();
    let mut rest = msg;
    while !rest.is_empty() {
        let n = match rng.below(4) {
            0 => rng.below(40),
            1 => 1024,
            2 => rng.below(3000),
            _ => rest.len(),
        }
        .min(rest.len());
        state.update(&rest[..n]);
        rest = &rest[n..];
    }
    let streamed = state.finalize(nonce).unwrap();
    assert_eq!(
        one,
        streamed,
        "one call on {b1} vs streamed on {b2}, {} bytes",
        msg.len()
    );
    one.into()
}

fn random_bits(rng: &mut Rng) -> TagBits {
    TagBits::ALL[rng.below(4)]
}

#[test]
fn random_keys_nonces_lengths_and_splits_match_nettle() {
    let Some(mut nettle) = Nettle::start() else {
        return;
    };
    let mut rng = Rng::new(0x4418);
    for case in 0..400 {
        let bits = random_bits(&mut rng);
        let key = rng.key();
        let nonce = rng.nonce();
        let len = match case % 10 {
            0..=3 => rng.below(300),
            4..=8 => 300 + rng.below(4700),
            _ => 5000 + rng.below(65000),
        };
        let msg = rng.bytes(len);
        let want = nettle.tag(bits, &key, &nonce, &Msg::bytes(msg.clone()));
        assert_eq!(
            ours(&mut rng, bits, &key, &nonce, &msg),
            want,
            "case {case}: {bits:?}, {len} bytes, nonce {nonce:02x?}"
        );
    }
}

/// OpenSSH's `umac-64@openssh.com` and `umac-128@openssh.com`: the nonce
/// is the sequence number as 8 big-endian bytes; the tags run through one
/// context, as on a connection.
#[test]
fn openssh_sequence_numbers_match_nettle() {
    let Some(mut nettle) = Nettle::start() else {
        return;
    };
    let mut rng = Rng::new(22);
    for bits in [TagBits::B64, TagBits::B128] {
        let key = rng.key();
        let mut umac = Umac::new(&key, bits);
        let start = [0u64, 1, 0xffff_fffe, 0x1234_5678_9abc_def0][rng.below(4)];
        for seqno in start..start + 40 {
            let n = 16 + rng.below(2000);
            let packet = rng.bytes(n);
            let got = umac.tag_openssh(seqno, &packet);
            let want = nettle.tag(bits, &key, &seqno.to_be_bytes(), &Msg::bytes(packet));
            assert_eq!(got.as_bytes(), want, "{bits:?} seqno {seqno}");
        }
    }
}

/// Lengths at the POLY switch: up to 2^24 bytes the 64-bit prime alone,
/// past it the 128-bit prime with an odd or even number of L1 outputs.
/// Random keys, nonces, patterns and splits; 16 MiB per tag.
#[test]
fn around_2_pow_24_match_nettle() {
    let Some(mut nettle) = Nettle::start() else {
        return;
    };
    let mut rng = Rng::new(24);
    let cases = [
        ((1 << 24) - 1, TagBits::B32),
        (1 << 24, TagBits::B64),
        ((1 << 24) + 1, TagBits::B96),
        ((1 << 24) + 1024, TagBits::B128),
        ((1 << 24) + 2048 + 1, TagBits::B64),
    ];
    for (len, bits) in cases {
        let key = rng.key();
        let nonce = rng.nonce();
        let pattern = rng.bytes(997);
        let msg = Msg::repeat(pattern, len);
        let want = nettle.tag(bits, &key, &nonce, &msg);
        assert_eq!(
            ours(&mut rng, bits, &key, &nonce, &msg.build()),
            want,
            "{bits:?}, {len} bytes"
        );
    }
}

/// Stream 0's NH key words (`KDF(K, 1, 1024)`, big-endian), for crafting.
fn nh_key_words(key: &[u8; 16]) -> [u32; 256] {
    let aes = Aes128::new(&Array::from(*key));
    let mut words = [0u32; 256];
    for (i, w) in words.chunks_exact_mut(4).enumerate() {
        let mut block = [0u8; 16];
        block[7] = 1;
        block[8..].copy_from_slice(&(i as u64 + 1).to_be_bytes());
        let mut b = Array::from(block);
        aes.encrypt_block(&mut b);
        for (j, word) in w.iter_mut().enumerate() {
            *word = u32::from_be_bytes(b[4 * j..4 * j + 4].try_into().unwrap());
        }
    }
    words
}

/// Factor pairs `(a, b)`, at most three, with `sum a * b = v` (mod 2^64).
fn factor_pairs(mut v: u64) -> Vec<(u32, u32)> {
    const M: u64 = u32::MAX as u64;
    let mut pairs = Vec::new();
    if v / M > M {
        pairs.push((M as u32, M as u32));
        v -= M * M;
    }
    pairs.push(((v / M) as u32, M as u32));
    pairs.push(((v % M) as u32, 1));
    pairs
}

/// A full 1024-byte chunk whose stream-0 L1 output (NH plus 8192) is `l1`:
/// every NH factor `m + k` is zero except three pairs in the first block.
fn crafted_chunk(k: &[u32; 256], l1: u64) -> Vec<u8> {
    let mut factors = [0u32; 256];
    for (i, (a, b)) in factor_pairs(l1.wrapping_sub(8192)).into_iter().enumerate() {
        factors[i] = a;
        factors[i + 4] = b;
    }
    factors
        .iter()
        .zip(k)
        .flat_map(|(f, k)| f.wrapping_sub(*k).to_le_bytes())
        .collect()
}

#[test]
fn crafting_reaches_the_intended_l1_output() {
    // The construction itself, checked by recomputing NH from its words.
    let key = [7u8; 16];
    let k = nh_key_words(&key);
    for l1 in [0u64, 8192, u64::MAX, 1 << 63, 0xffff_ffff_0000_0000] {
        let chunk = crafted_chunk(&k, l1);
        let mut nh = 0u64;
        for b in 0..32 {
            let m = |i: usize| {
                let w = 8 * b + i;
                u32::from_le_bytes(chunk[4 * w..4 * w + 4].try_into().unwrap()).wrapping_add(k[w])
            };
            for i in 0..4 {
                nh = nh.wrapping_add(m(i) as u64 * m(i + 4) as u64);
            }
        }
        assert_eq!(nh.wrapping_add(8192), l1);
    }
}

/// L1 outputs on, just under and past the marker threshold 2^64 - 2^32, at
/// and past p64 = 2^64 - 59, and several in a row; on one chunk (L2
/// skipped, the value goes straight to L3) and as the first of two.
#[test]
fn poly64_marker_range_matches_nettle() {
    let Some(mut nettle) = Nettle::start() else {
        return;
    };
    let mut rng = Rng::new(64);
    let values = [
        0xffff_ffff_0000_0000u64 - 1,
        0xffff_ffff_0000_0000,
        0xffff_ffff_0000_0001,
        0u64.wrapping_sub(60),
        0u64.wrapping_sub(59),
        0u64.wrapping_sub(58),
        u64::MAX,
    ];
    for bits in TagBits::ALL {
        let key = rng.key();
        let k = nh_key_words(&key);
        let nonce = rng.bytes(8);
        for v in values {
            for chunks in [1usize, 2, 3] {
                let short = rng.below(2) * 17;
                let mut msg = Msg::repeat(rng.bytes(61), 1024 * chunks - short);
                let crafted = crafted_chunk(&k, v);
                // The first chunk, and with three chunks the second too.
                msg.patches.push((0, crafted.clone()));
                if chunks == 3 {
                    msg.patches.push((1024, crafted));
                }
                if msg.len < 1024 * chunks && chunks == 1 {
                    // A short single chunk would be padded: keep it whole.
                    msg.len = 1024;
                }
                let want = nettle.tag(bits, &key, &nonce, &msg);
                let got = ours(&mut rng, bits, &key, &nonce, &msg.build());
                assert_eq!(got, want, "{bits:?}, L1 {v:#x}, {chunks} chunks");
            }
        }
    }
}

/// Under the 128-bit prime, a 128-bit word is two L1 outputs; with the
/// first at or above 2^64 - 2^32 the word reaches the marker range
/// 2^128 - 2^96. Crafted at the first word past the switch, both as a full
/// pair and as the lone last output padded with 0x80.
#[test]
fn poly128_marker_range_matches_nettle() {
    let Some(mut nettle) = Nettle::start() else {
        return;
    };
    let mut rng = Rng::new(128);
    let key = rng.key();
    let k = nh_key_words(&key);
    let nonce = rng.bytes(12);
    for (len, v) in [
        ((1 << 24) + 2048, u64::MAX),
        ((1 << 24) + 1024 + 7, 0xffff_ffff_0000_0000),
    ] {
        let mut msg = Msg::repeat(rng.bytes(251), len);
        msg.patches.push((1 << 24, crafted_chunk(&k, v)));
        let want = nettle.tag(TagBits::B64, &key, &nonce, &msg);
        let got = ours(&mut rng, TagBits::B64, &key, &nonce, &msg.build());
        assert_eq!(got, want, "{len} bytes, L1 {v:#x}");
    }
}

#[test]
fn every_backend_is_covered() {
    // The random comparisons pick backends at random; make sure each one
    // this CPU runs is exercised on a long message at least once here.
    let Some(mut nettle) = Nettle::start() else {
        return;
    };
    let mut rng = Rng::new(5);
    for backend in backends() {
        for bits in TagBits::ALL {
            let key = rng.key();
            let nonce = rng.nonce();
            let n = 3 * 1024 + rng.below(1024);
            let msg = rng.bytes(n);
            let got = Umac::with_backend(&key, bits, backend)
                .unwrap()
                .tag(&msg, &nonce)
                .unwrap();
            let want = nettle.tag(bits, &key, &nonce, &Msg::bytes(msg));
            assert_eq!(got.as_bytes(), want, "{backend} {bits:?}");
        }
    }
    assert!(NhBackend::supported().any(|b| b == NhBackend::Portable));
}
