//! Verification (right tags accepted, every single-bit flip and every wrong
//! length rejected), truncation lengths, `Debug` without key material, and
//! the work per message: HMAC-MD5 with a precomputed key on a 64-byte packet
//! is three MD5 compressions, counted through the compression function.

use crate::support::Rng;
use linerate::mac::hmac::{
    HmacKey, HmacMd5Key, HmacSha1Key, Md5Compression, RawHmacKey, Sha1Compression,
    min_truncated_len,
};

/// Every single-bit flip of `tag` is rejected by `accepts`.
fn flips_rejected(tag: &[u8], accepts: impl Fn(&[u8]) -> bool, what: &str) {
    assert!(accepts(tag), "{what}: the right tag");
    for bit in 0..tag.len() * 8 {
        let mut bad = tag.to_vec();
        bad[bit / 8] ^= 1 << (bit % 8);
        assert!(!accepts(&bad), "{what}: bit {bit} flipped");
    }
}

#[test]
fn verify_accepts_the_tag_and_rejects_every_bit_flip() {
    let mut rng = Rng::new(6000);
    for key_len in [0, 16, 64, 100] {
        let k = rng.bytes(key_len);
        for msg_len in [0, 64, 1500] {
            let m = rng.bytes(msg_len);
            let what = format!("key {key_len} bytes, message {msg_len} bytes");

            let md5 = HmacMd5Key::new(&k);
            flips_rejected(&md5.tag(&m), |t| md5.verify(&m, t), &what);
            flips_rejected(
                &md5.tag_96(&m),
                |t| md5.verify_96(&m, t.try_into().unwrap()),
                &what,
            );
            let generic = HmacKey::<linerate::Md5>::new(&k);
            flips_rejected(&generic.tag(&m), |t| generic.verify(&m, t), &what);
            flips_rejected(
                &generic.tag_96(&m),
                |t| generic.verify_96(&m, t.try_into().unwrap()),
                &what,
            );

            let sha1 = HmacSha1Key::new(&k);
            flips_rejected(&sha1.tag(&m), |t| sha1.verify(&m, t), &what);
            flips_rejected(
                &sha1.tag_96(&m),
                |t| sha1.verify_96(&m, t.try_into().unwrap()),
                &what,
            );
            let generic = HmacKey::<sha1::Sha1>::new(&k);
            flips_rejected(&generic.tag(&m), |t| generic.verify(&m, t), &what);
            flips_rejected(
                &generic.tag_96(&m),
                |t| generic.verify_96(&m, t.try_into().unwrap()),
                &what,
            );
        }
    }
}

#[test]
fn verify_rejects_wrong_lengths_messages_and_keys() {
    let md5 = HmacMd5Key::new(b"key");
    let sha1 = HmacSha1Key::new(b"key");
    let m = b"message";
    let t = md5.tag(m);
    let s = sha1.tag(m);
    // `verify` takes the full tag only: not a prefix, not a longer one.
    for n in 0..t.len() {
        assert!(!md5.verify(m, &t[..n]), "MD5 tag cut to {n} bytes");
    }
    for n in 0..s.len() {
        assert!(!sha1.verify(m, &s[..n]), "SHA-1 tag cut to {n} bytes");
    }
    let mut longer = t.to_vec();
    longer.push(0);
    assert!(!md5.verify(m, &longer));
    assert!(!md5.verify(m, &s[..16]), "a SHA-1 tag's prefix");
    assert!(!md5.verify(b"messagf", &t), "another message");
    assert!(!md5.verify(b"message\0", &t), "a longer message");
    assert!(!HmacMd5Key::new(b"kez").verify(m, &t), "another key");
    // RFC 2104 pads a short key with zeros, so trailing zero bytes do not
    // change it: a property of HMAC, which every implementation shares.
    assert!(HmacMd5Key::new(b"key\0").verify(m, &t));
    assert!(HmacSha1Key::new(b"key\0\0").verify(m, &s));
}

/// `tag_truncated::<N>` is the full tag's prefix and `verify_truncated::<N>`
/// accepts it, for every `N` RFC 2104 allows.
macro_rules! check_truncations {
    ($key:expr, $m:expr, $full:expr, $($n:literal)*) => {$(
        let t: [u8; $n] = $key.tag_truncated($m);
        assert_eq!(t[..], $full[..$n], "{} bytes", $n);
        assert!($key.verify_truncated::<$n>($m, &t));
        let mut bad = t;
        bad[$n - 1] ^= 0x80;
        assert!(!$key.verify_truncated::<$n>($m, &bad));
    )*};
}

#[test]
fn truncation_lengths() {
    assert_eq!(min_truncated_len(16), 10, "MD5: 80 bits");
    assert_eq!(min_truncated_len(20), 10, "SHA-1: half the output, 80 bits");
    assert_eq!(min_truncated_len(32), 16, "SHA-256: half the output");
    let m = b"Test With Truncation";
    let md5 = HmacMd5Key::new(&[0x0c; 16]);
    let full = md5.tag(m);
    check_truncations!(md5, m, full, 10 11 12 13 14 15 16);
    let generic = HmacKey::<linerate::Md5>::new(&[0x0c; 16]);
    check_truncations!(generic, m, full, 10 11 12 13 14 15 16);
    let sha1 = HmacSha1Key::new(&[0x0c; 20]);
    let full = sha1.tag(m);
    check_truncations!(sha1, m, full, 10 11 12 13 14 15 16 17 18 19 20);
    let generic = HmacKey::<sha1::Sha1>::new(&[0x0c; 20]);
    check_truncations!(generic, m, full, 10 11 12 13 14 15 16 17 18 19 20);
    // The -96 tags are the 12-byte truncation.
    assert_eq!(md5.tag_96(m), md5.tag_truncated::<12>(m));
    assert_eq!(sha1.tag_96(m)[..], sha1.tag(m)[..12]);
}

#[test]
fn debug_never_prints_key_material() {
    let key = [0x5a; 16];
    let md5 = HmacMd5Key::new(&key);
    let sha1 = HmacSha1Key::new(&key);
    let generic = HmacKey::<sha1::Sha1>::new(&key);
    // Exactly these: the algorithm and backend, no bytes of any kind.
    assert_eq!(
        format!("{md5:?}"),
        format!("HmacMd5Key {{ hash: md5/{}, .. }}", md5.backend())
    );
    assert_eq!(format!("{sha1:?}"), "HmacSha1Key { hash: sha1, .. }");
    let name = std::any::type_name::<sha1::Sha1>();
    assert_eq!(format!("{generic:?}"), format!("HmacKey<{name}> {{ .. }}"));
    assert_eq!(
        format!("{:?}", generic.stream()),
        format!("HmacStream<{name}> {{ .. }}")
    );
    assert!(!format!("{md5:#?}").contains("5a"));
}

#[test]
fn keys_zeroize_on_drop() {
    fn zeroize_on_drop<T: zeroize::ZeroizeOnDrop>() {}
    zeroize_on_drop::<HmacMd5Key>();
    zeroize_on_drop::<HmacSha1Key>();
    zeroize_on_drop::<RawHmacKey<Md5Compression>>();
    zeroize_on_drop::<RawHmacKey<Sha1Compression>>();
    zeroize_on_drop::<HmacKey<linerate::Md5>>();
    zeroize_on_drop::<HmacKey<sha1::Sha1>>();
}

mod counting {
    //! MD5 compressions counted per thread: a compression function for the
    //! fast key's hook, and a hasher for the generic key.

    use digest::block_api::{
        AlgorithmName, Block, BlockSizeUser, Buffer, BufferKindUser, Eager, FixedOutputCore,
        OutputSizeUser, Reset, UpdateCore,
    };
    use digest::typenum::{U16, U64};
    use digest::{HashMarker, Output};
    use std::cell::Cell;
    use std::fmt;

    thread_local! {
        static BLOCKS: Cell<usize> = const { Cell::new(0) };
    }

    /// MD5 blocks compressed on this thread since the last call.
    pub fn take() -> usize {
        BLOCKS.with(|c| c.replace(0))
    }

    pub fn compress(state: &mut [u32; 4], blocks: &[[u8; 64]]) {
        BLOCKS.with(|c| c.set(c.get() + blocks.len()));
        linerate::md5::portable::compress(state, blocks);
    }

    #[derive(Clone)]
    pub struct CountingCore {
        state: [u32; 4],
        blocks: u64,
    }

    impl Default for CountingCore {
        fn default() -> Self {
            CountingCore {
                state: linerate::md5::reference::INIT,
                blocks: 0,
            }
        }
    }

    impl HashMarker for CountingCore {}
    impl BlockSizeUser for CountingCore {
        type BlockSize = U64;
    }
    impl BufferKindUser for CountingCore {
        type BufferKind = Eager;
    }
    impl OutputSizeUser for CountingCore {
        type OutputSize = U16;
    }
    impl UpdateCore for CountingCore {
        fn update_blocks(&mut self, blocks: &[Block<Self>]) {
            self.blocks += blocks.len() as u64;
            compress(&mut self.state, Block::<Self>::cast_slice_to_core(blocks));
        }
    }
    impl FixedOutputCore for CountingCore {
        fn finalize_fixed_core(&mut self, buffer: &mut Buffer<Self>, out: &mut Output<Self>) {
            let bits = (self.blocks * 64 + buffer.get_pos() as u64) * 8;
            let mut state = self.state;
            buffer.len64_padding_le(bits, |block| compress(&mut state, &[block.0]));
            for (chunk, word) in out.chunks_exact_mut(4).zip(state) {
                chunk.copy_from_slice(&word.to_le_bytes());
            }
        }
    }
    impl Reset for CountingCore {
        fn reset(&mut self) {
            *self = CountingCore::default();
        }
    }
    impl AlgorithmName for CountingCore {
        fn write_alg_name(f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("CountingMd5")
        }
    }
    impl fmt::Debug for CountingCore {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("CountingCore")
        }
    }

    digest::buffer_fixed!(
        /// MD5 that counts its compressions.
        pub struct CountingMd5(CountingCore);
        impl: BaseFixedTraits AlgorithmName Default Clone HashMarker Reset FixedOutputReset;
    );
}

/// MD5 blocks in `len` bytes after padding.
fn padded_blocks(len: usize) -> usize {
    (len + 8) / 64 + 1
}

#[test]
fn a_precomputed_key_costs_the_message_blocks_and_one_outer_block() {
    // Key setup: one block each for K ^ ipad and K ^ opad, after hashing a
    // key longer than the block (80 bytes: two blocks).
    let key = HmacMd5Key::__with_compress_fn_for_test(b"key", counting::compress);
    assert_eq!(counting::take(), 2, "key setup, short key");
    let long = HmacMd5Key::__with_compress_fn_for_test(&[0xaa; 80], counting::compress);
    assert_eq!(counting::take(), 2 + 2, "key setup, 80-byte key");
    let generic = linerate::mac::hmac::HmacKey::<counting::CountingMd5>::new(b"key");
    assert_eq!(counting::take(), 2, "generic key setup");

    let mut rng = Rng::new(6001);
    for len in [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 1500] {
        let m = rng.bytes(len);
        let want = HmacMd5Key::new(b"key").tag(&m);
        counting::take();
        assert_eq!(key.tag(&m), want);
        let per_message = counting::take();
        assert_eq!(per_message, padded_blocks(64 + len) - 1 + 1, "{len} bytes");
        assert_eq!(generic.tag(&m)[..], want, "{len} bytes");
        assert_eq!(counting::take(), per_message, "generic, {len} bytes");
        let _ = long.tag(&m);
        assert_eq!(counting::take(), per_message, "80-byte key, {len} bytes");
    }
    // The bound: a 64-byte packet is three compressions (data block,
    // padding block, outer block), against five when re-keying per packet.
    let packet = [0x42; 64];
    let _ = key.tag(&packet);
    assert_eq!(counting::take(), 3);
    let _ = HmacMd5Key::__with_compress_fn_for_test(b"key", counting::compress).tag(&packet);
    assert_eq!(counting::take(), 5);
}
