//! The algorithms `linerate speed` times by block size (the ALGO arguments),
//! and the job that processes one block of each: a one-shot digest or MAC
//! of the block with its key set up once, as `openssl speed` times them.

use crate::blocks::Blocks;
use crate::permac::hmac_job;
use crate::timing::Job;
use linerate::crc::CrcAlgorithm;
use linerate::mac::MacKey;
use linerate::mac::hmac::{Md5Compression, Sha1Compression};
use linerate::mac::keyed_md5::KeyedMd5Key;
use linerate::mac::umac::Umac;
use linerate::registry::UnknownAlgorithm;
use linerate::{HashAlgorithm, HmacMd5Key, MacAlgorithm, Md5p};
use std::hint::black_box;

/// A row of the throughput table: an algorithm of the registry (one
/// stream, or a batch path), or one the lab times for the seed documents'
/// tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algo {
    /// A hash of the registry, one stream: MD5 (RFC 1321), MD5-P/K.
    Hash(HashAlgorithm),
    /// MD5 of many blocks at once in SIMD lanes (`md5_many`).
    Md5Mb,
    /// A MAC of the registry with its key set up once, one block per call
    /// (UMAC with a fresh nonce per block).
    Mac(MacAlgorithm),
    /// A MAC's batch path, many blocks at once (HMAC-MD5 and RFC 1828's
    /// keyed MD5, the AH transform RFC 1810 measured, in SIMD lanes), as
    /// `packets` authenticates a batch.
    MacMb(MacAlgorithm),
    /// SHA-1 (RustCrypto `sha1`).
    Sha1,
    /// RIPEMD-160 (RustCrypto `ripemd`).
    Ripemd160,
    /// RC4 keystream (RustCrypto `rc4`), keyed once.
    Rc4,
    /// The Internet checksum (RFC 1071).
    Cksum,
    /// One of S3's CRCs (CRC-64/NVME, CRC-32C, CRC-32).
    Crc(CrcAlgorithm),
    /// The blocks only read (their 64-bit words summed): what this core
    /// gets from where the data lies, the ceiling of every row at that
    /// size (warm: the caches; `--cold`: memory).
    Read,
}

impl Algo {
    /// One MD5 stream.
    pub const MD5: Algo = Algo::Hash(HashAlgorithm::Md5);

    /// Every row, in the table's order.
    pub const ALL: [Algo; 22] = [
        Algo::MD5,
        Algo::Md5Mb,
        Algo::Hash(HashAlgorithm::Md5p(4)),
        Algo::Hash(HashAlgorithm::Md5p(8)),
        Algo::Hash(HashAlgorithm::Md5p(16)),
        Algo::Hash(HashAlgorithm::Md5p(32)),
        Algo::Mac(MacAlgorithm::HmacMd5),
        Algo::MacMb(MacAlgorithm::HmacMd5),
        Algo::MacMb(MacAlgorithm::KeyedMd5),
        Algo::Mac(MacAlgorithm::HmacSha1),
        Algo::Mac(MacAlgorithm::Umac32),
        Algo::Mac(MacAlgorithm::Umac64),
        Algo::Mac(MacAlgorithm::Umac96),
        Algo::Mac(MacAlgorithm::Umac128),
        Algo::Sha1,
        Algo::Ripemd160,
        Algo::Rc4,
        Algo::Cksum,
        Algo::Crc(CrcAlgorithm::Crc64Nvme),
        Algo::Crc(CrcAlgorithm::Crc32c),
        Algo::Crc(CrcAlgorithm::Crc32),
        Algo::Read,
    ];

    /// The command-line name: the registry's for its algorithms, with
    /// `-mb` for a batch path.
    pub fn name(self) -> String {
        match self {
            Algo::Hash(a) => a.name(),
            Algo::Md5Mb => "md5-mb".into(),
            Algo::Mac(a) => a.name().into(),
            Algo::MacMb(a) => format!("{}-mb", a.name()),
            Algo::Sha1 => "sha1".into(),
            Algo::Ripemd160 => "ripemd160".into(),
            Algo::Rc4 => "rc4".into(),
            Algo::Cksum => "cksum".into(),
            Algo::Crc(CrcAlgorithm::Crc64Nvme) => "crc64nvme".into(),
            Algo::Crc(CrcAlgorithm::Crc32c) => "crc32c".into(),
            Algo::Crc(CrcAlgorithm::Crc32) => "crc32".into(),
            Algo::Read => "read".into(),
        }
    }

    /// Parses a name (either case); the error names the valid ones.
    pub fn from_name(name: &str) -> Result<Algo, UnknownAlgorithm> {
        let lower = name.to_ascii_lowercase();
        Algo::ALL
            .into_iter()
            .find(|a| a.name() == lower)
            .ok_or_else(|| {
                let names: Vec<String> = Algo::ALL.iter().map(|a| a.name()).collect();
                UnknownAlgorithm(format!(
                    "unknown algorithm '{name}': give {}",
                    names.join(", ")
                ))
            })
    }

    /// Blocks one call of [`Algo::job`] processes: the multi-buffer engine
    /// needs many messages at once to fill its lanes; everything else one.
    pub fn blocks_per_call(self, bytes: usize) -> usize {
        match self {
            // About 4 MiB of messages, and never fewer than the widest
            // engine's lanes (32): with fewer, lanes idle and the figure is
            // of the engine part empty (1 MiB blocks were 4 a call, 4 of 32
            // lanes, until issue 18). So above 128 KiB a call is more than
            // 4 MiB, and warm blocks no longer fit in the caches.
            Algo::Md5Mb | Algo::MacMb(_) => ((4usize << 20) / bytes.max(1)).clamp(32, 4096),
            _ => 1,
        }
    }

    /// A job that processes [`Algo::blocks_per_call`] blocks of `bytes`
    /// bytes, or why there is none: the same blocks on every call, or with
    /// `cold = Some(n)` the next ones from a buffer of `n` bytes.
    pub fn job(self, bytes: usize, cold: Option<usize>) -> Result<Job, String> {
        let n = self.blocks_per_call(bytes);
        let mut blocks = Blocks::new(bytes, n, cold);
        // A fixed key: the figures do not depend on it.
        let key: [u8; 16] = *b"linerate-speed-k";
        Ok(match self {
            Algo::Hash(HashAlgorithm::Md5) => Box::new(move || {
                black_box(linerate::md5(black_box(blocks.next(1))));
            }),
            Algo::Md5Mb => batch_job(blocks, n, bytes, linerate::md5_many_into),
            Algo::Hash(HashAlgorithm::Md5p(k)) => {
                let mut hasher = Md5p::new(k).map_err(|e| e.to_string())?;
                Box::new(move || {
                    hasher.update(black_box(blocks.next(1)));
                    black_box(hasher.finalize_reset());
                })
            }
            Algo::Mac(MacAlgorithm::HmacMd5 | MacAlgorithm::HmacMd5_96) => {
                hmac_job::<Md5Compression>(key, blocks, false)
            }
            Algo::Mac(MacAlgorithm::HmacSha1 | MacAlgorithm::HmacSha1_96) => {
                hmac_job::<Sha1Compression>(key, blocks, false)
            }
            Algo::Mac(MacAlgorithm::KeyedMd5) => {
                let mac = KeyedMd5Key::new(&key);
                Box::new(move || {
                    black_box(mac.tag(black_box(blocks.next(1))));
                })
            }
            Algo::Mac(umac) => {
                let bits = umac.umac_bits().expect("the other MACs are above");
                let mut mac = Umac::new(&key, bits);
                let mut nonce: u64 = 0;
                Box::new(move || {
                    nonce = nonce.wrapping_add(1);
                    // An 8-byte nonce is always valid: the tag cannot fail.
                    if let Ok(tag) = mac.tag(black_box(blocks.next(1)), &nonce.to_be_bytes()) {
                        black_box(tag);
                    }
                })
            }
            Algo::MacMb(MacAlgorithm::HmacMd5 | MacAlgorithm::HmacMd5_96) => {
                let mac = HmacMd5Key::new(&key);
                batch_job(blocks, n, bytes, move |m, out| mac.tag_many_into(m, out))
            }
            Algo::MacMb(MacAlgorithm::KeyedMd5) => {
                let mac = KeyedMd5Key::new(&key);
                batch_job(blocks, n, bytes, move |m, out| mac.tag_many_into(m, out))
            }
            Algo::MacMb(other) => {
                let mut mac = MacKey::new(other, &key).map_err(|e| format!("{e:?}"))?;
                let nonces: Vec<[u8; 8]> = (0..n as u64).map(u64::to_be_bytes).collect();
                batch_job(blocks, n, bytes, move |m, out| {
                    let nonces: Vec<&[u8]> = nonces.iter().map(|n| &n[..]).collect();
                    // 8-byte nonces are valid: the batch cannot fail.
                    let _ = mac.tag_many_into(m, &nonces[..m.len()], out);
                })
            }
            Algo::Sha1 => {
                use sha1::Digest;
                Box::new(move || {
                    black_box(sha1::Sha1::digest(black_box(blocks.next(1))));
                })
            }
            Algo::Ripemd160 => {
                use ripemd::Digest;
                Box::new(move || {
                    black_box(ripemd::Ripemd160::digest(black_box(blocks.next(1))));
                })
            }
            Algo::Rc4 => {
                use rc4::{KeyInit, StreamCipher};
                let mut rc4 = rc4::Rc4::new_from_slice(&key).map_err(|e| e.to_string())?;
                let mut out = vec![0u8; bytes];
                Box::new(move || {
                    // In to out: the cold data is shared and read only.
                    rc4.apply_keystream_b2b(black_box(blocks.next(1)), &mut out);
                    black_box(&out);
                })
            }
            Algo::Cksum => Box::new(move || {
                black_box(linerate::checksum::internet_checksum(black_box(
                    blocks.next(1),
                )));
            }),
            Algo::Crc(crc) => Box::new(move || {
                black_box(linerate::crc::crc(crc, black_box(blocks.next(1))));
            }),
            Algo::Read => Box::new(move || {
                black_box(word_sum(black_box(blocks.next(1))));
            }),
        })
    }
}

/// The wrapping sum of `data`'s 64-bit words (a shorter tail as one word):
/// four independent sums, so the loads, not the adds, set the pace.
fn word_sum(data: &[u8]) -> u64 {
    let word = |b: &[u8]| {
        let mut w = [0u8; 8];
        w[..b.len()].copy_from_slice(b);
        u64::from_le_bytes(w)
    };
    let mut sums = [0u64; 4];
    let mut chunks = data.chunks_exact(32);
    for chunk in &mut chunks {
        for (sum, w) in sums.iter_mut().zip(chunk.chunks_exact(8)) {
            *sum = sum.wrapping_add(word(w));
        }
    }
    let tail = chunks
        .remainder()
        .chunks(8)
        .fold(0u64, |s, w| s.wrapping_add(word(w)));
    sums.iter().fold(tail, |s, &x| s.wrapping_add(x))
}

/// A job that hands `n` blocks of `bytes` bytes at a time to a batch
/// function (the multi-buffer paths) and keeps its 16-byte outputs.
fn batch_job(
    mut blocks: Blocks,
    n: usize,
    bytes: usize,
    mut batch: impl FnMut(&[&[u8]], &mut [[u8; 16]]) + Send + 'static,
) -> Job {
    let mut out = vec![[0u8; 16]; n];
    Box::new(move || {
        let data = blocks.next(n);
        let messages: Vec<&[u8]> = data.chunks(bytes.max(1)).take(n).collect();
        batch(black_box(&messages), &mut out);
        black_box(&out);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for a in Algo::ALL {
            assert_eq!(Algo::from_name(&a.name().to_uppercase()), Ok(a));
        }
        assert!(Algo::from_name("md5p12").is_err());
        assert!(
            Algo::from_name("crc16")
                .unwrap_err()
                .0
                .contains("give md5, md5-mb")
        );
    }

    #[test]
    fn word_sum_adds_every_byte_once() {
        // Bytes of value 1 at every length around the 8- and 32-byte steps:
        // each one counted once, in its byte of its word.
        for len in 0..100usize {
            let data = vec![1u8; len];
            let want: u64 = data
                .chunks(8)
                .map(|w| {
                    w.iter()
                        .enumerate()
                        .map(|(i, _)| 1u64 << (8 * i))
                        .sum::<u64>()
                })
                .sum();
            assert_eq!(word_sum(&data), want, "{len}");
        }
        assert_eq!(word_sum(&[0xff; 16]), u64::MAX.wrapping_mul(2));
    }

    #[test]
    fn every_job_runs() {
        for a in Algo::ALL {
            match a.job(64, None) {
                Ok(mut job) => job(),
                Err(why) => panic!("{}: {why}", a.name()),
            }
        }
    }
}
