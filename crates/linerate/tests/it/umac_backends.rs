//! Every NH backend this CPU runs against the portable one, through the
//! whole of UMAC: every message length to 2100 bytes (every NH tail and
//! padding case, one and two chunks), lengths around chunk and vector-step
//! boundaries up to 9 KiB, messages of all-ones and all-zero bytes (the
//! `m + k` wrap and the empty factors), random keys and tag lengths.

use crate::support::{Rng, nh_backends as backends};
use linerate::mac::umac::{NhBackend, TagBits, Umac};

fn contexts(key: &[u8; 16], bits: TagBits) -> Vec<Umac> {
    backends()
        .into_iter()
        .map(|b| Umac::with_backend(key, bits, b).unwrap())
        .collect()
}

/// Tags `msg` on every backend and checks they agree with the portable one.
fn agree(umacs: &mut [Umac], msg: &[u8], nonce: &[u8], what: &str) {
    let mut portable = None;
    let mut tags = Vec::new();
    for u in umacs.iter_mut() {
        let t = u.tag(msg, nonce).unwrap();
        if u.backend() == NhBackend::Portable {
            portable = Some(t);
        }
        tags.push((u.backend(), t));
    }
    let want = portable.expect("the portable backend always runs");
    for (b, t) in tags {
        assert_eq!(t, want, "{b} vs portable: {what}, {} bytes", msg.len());
    }
}

#[test]
fn every_length_to_2100_bytes() {
    let mut rng = Rng::new(1);
    for bits in TagBits::ALL {
        let key = rng.key();
        let mut umacs = contexts(&key, bits);
        let data = rng.bytes(2100);
        for len in 0..=2100 {
            let nonce = (len as u64).to_be_bytes();
            agree(&mut umacs, &data[..len], &nonce, &format!("{bits:?}"));
        }
    }
}

#[test]
fn lengths_around_step_and_chunk_boundaries() {
    let mut rng = Rng::new(2);
    let data = rng.bytes(9 * 1024 + 200);
    for bits in TagBits::ALL {
        let mut umacs = contexts(&rng.key(), bits);
        for base in (0usize..=9 * 1024).step_by(64) {
            for delta in [-33isize, -32, -31, -1, 0, 1, 31, 32, 33] {
                let Some(len) = base.checked_add_signed(delta) else {
                    continue;
                };
                let nonce = rng.nonce();
                agree(&mut umacs, &data[..len], &nonce, &format!("{bits:?}"));
            }
        }
    }
}

#[test]
fn all_ones_and_all_zero_messages() {
    let mut rng = Rng::new(3);
    for bits in TagBits::ALL {
        let mut umacs = contexts(&rng.key(), bits);
        for byte in [0x00u8, 0xff, 0x80, 0x7f] {
            for len in [1usize, 32, 100, 128, 1000, 1024, 1025, 4096, 5000] {
                let msg = vec![byte; len];
                agree(
                    &mut umacs,
                    &msg,
                    b"n",
                    &format!("{bits:?}, bytes {byte:#04x}"),
                );
            }
        }
    }
}

#[test]
fn unaligned_slices() {
    let mut rng = Rng::new(4);
    let data = rng.bytes(3000 + 64);
    for bits in [TagBits::B64, TagBits::B128] {
        let mut umacs = contexts(&rng.key(), bits);
        for offset in 0..64 {
            for len in [0usize, 5, 64, 127, 128, 129, 1024, 1500, 3000] {
                agree(
                    &mut umacs,
                    &data[offset..offset + len],
                    b"nonce",
                    &format!("offset {offset}"),
                );
            }
        }
    }
}

#[test]
fn backend_names_round_trip_and_unsupported_ones_are_refused() {
    for &b in NhBackend::ALL {
        assert_eq!(
            NhBackend::from_name(b.name()).ok(),
            b.is_supported().then_some(b)
        );
        assert_eq!(b.to_string(), b.name());
        let made = Umac::with_backend(&[0; 16], TagBits::B64, b);
        assert_eq!(made.is_ok(), b.is_supported(), "{b}");
    }
    assert!(NhBackend::from_name("sse9").is_err());
    assert!(NhBackend::best().is_supported());
    assert!(NhBackend::Portable.is_supported());
}
