//! SHA-1 for many messages at once: HMAC-SHA1 batches (AH's HMAC-SHA1-96,
//! TCP-AO's HMAC-SHA-1-96) with sixteen messages side by side in the
//! AVX-512 lanes ([`x86_64_avx512`]), or one after another on SHA-NI
//! ([`Sha1LanesBackend::Single`]). As in the MD5 lanes engine, messages
//! are grouped by padded block count; each lane reads its message's whole
//! blocks in place and its padded tail from a scratch buffer.

pub mod backend;
#[cfg(target_arch = "x86_64")]
mod x86_64_avx512;

pub use backend::Sha1LanesBackend;

use crate::lanes::many::{for_each_group, padded_blocks};
use crate::mac::hmac::{Compression, HmacSha1Key, Sha1Compression};

/// Messages side by side in the AVX-512 path.
pub const WIDTH: usize = 16;

/// The HMAC-SHA1 tags of `messages` under `key`, the first `len` bytes of
/// each into the slots of `out`, on `backend`.
///
/// # Panics
/// If `out` is shorter than `messages`, `len` is over 16, or `backend` is
/// not supported here.
pub fn hmac_sha1_many_with(
    backend: Sha1LanesBackend,
    key: &HmacSha1Key,
    messages: &[&[u8]],
    out: &mut [[u8; 16]],
    len: usize,
) {
    hmac_sha1_keyed_many_with(backend, |_| key, messages, out, len);
}

/// [`hmac_sha1_many_with`] with a key per message (`key(i)` for message
/// `i`): TCP-AO's segments, each under its connection's traffic key, share
/// the lanes.
///
/// # Panics
/// As [`hmac_sha1_many_with`].
pub fn hmac_sha1_keyed_many_with<'k>(
    backend: Sha1LanesBackend,
    key: impl Fn(usize) -> &'k HmacSha1Key,
    messages: &[&[u8]],
    out: &mut [[u8; 16]],
    len: usize,
) {
    assert!(out.len() >= messages.len() && len <= 16);
    assert!(backend.is_supported(), "{backend} is not supported here");
    match backend {
        #[cfg(target_arch = "x86_64")]
        Sha1LanesBackend::Avx512 => {
            for_each_group(
                messages.len(),
                WIDTH,
                |i| padded_blocks(messages[i].len()),
                |group| hmac_group(&key, messages, group, out, len),
            );
        }
        _ => {
            for (i, (m, slot)) in messages.iter().zip(out.iter_mut()).enumerate() {
                slot[..len].copy_from_slice(&key(i).tag(m)[..len]);
            }
        }
    }
}

/// [`hmac_sha1_many_with`] on the active backend.
pub fn hmac_sha1_many_into(
    key: &HmacSha1Key,
    messages: &[&[u8]],
    out: &mut [[u8; 16]],
    len: usize,
) {
    hmac_sha1_many_with(Sha1LanesBackend::active(), key, messages, out, len);
}

/// Up to sixteen messages of the same padded block count `n`: the inner
/// hash from the key's inner state over their blocks, then the outer one
/// over their inner digests.
#[cfg(target_arch = "x86_64")]
fn hmac_group<'k>(
    key: &impl Fn(usize) -> &'k HmacSha1Key,
    messages: &[&[u8]],
    group: &[(usize, usize)],
    out: &mut [[u8; 16]],
    len: usize,
) {
    let n = group[0].0;
    let zero = [0u8; 64];
    let mut whole = [0usize; WIDTH];
    let mut blocks: [&[[u8; 64]]; WIDTH] = [&[]; WIDTH];
    let mut tails = [[[0u8; 64]; 2]; WIDTH];
    for (lane, &(_, i)) in group.iter().enumerate() {
        let m = messages[i];
        let (full, rest) = m.as_chunks::<64>();
        whole[lane] = full.len();
        blocks[lane] = full;
        // The tail: the last bytes, 0x80, zeros and the bit length of the
        // ipad block and the message.
        let tail = tails[lane].as_flattened_mut();
        tail[..rest.len()].copy_from_slice(rest);
        tail[rest.len()] = 0x80;
        let end = 64 * (n - full.len());
        tail[end - 8..end].copy_from_slice(&(((64 + m.len()) as u64) * 8).to_be_bytes());
    }
    let g = group.len();
    let mut states = [[0u32; 5]; WIDTH];
    let mut outer = [[0u32; 5]; WIDTH];
    for (lane, &(_, i)) in group.iter().enumerate() {
        states[lane] = *key(i).inner_state();
        outer[lane] = *key(i).outer_state();
    }
    let block = |lane: usize, b: usize| -> &[u8; 64] {
        if lane >= g {
            &zero
        } else if b < whole[lane] {
            &blocks[lane][b]
        } else {
            &tails[lane][b - whole[lane]]
        }
    };
    // SAFETY: this path runs only where Avx512 is supported (asserted by
    // the caller), which the kernel needs.
    unsafe { x86_64_avx512::compress(&mut states, n, block) };
    let mut outer_blocks = [[0u8; 64]; WIDTH];
    for (ob, state) in outer_blocks.iter_mut().zip(&states).take(g) {
        ob[..20].copy_from_slice(&Sha1Compression::output(state));
        ob[20] = 0x80;
        ob[56..].copy_from_slice(&((64u64 + 20) * 8).to_be_bytes());
    }
    // SAFETY: as above.
    unsafe { x86_64_avx512::compress(&mut outer, 1, |lane, _| &outer_blocks[lane]) };
    for (lane, &(_, i)) in group.iter().enumerate() {
        out[i][..len].copy_from_slice(&Sha1Compression::output(&outer[lane])[..len]);
    }
}
