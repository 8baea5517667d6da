//! UHASH (RFC 4418 section 5.1): L1 (NH plus the chunk's bit length) per
//! 1024-byte chunk, L2 over the L1 outputs when there is more than one
//! chunk, L3 per stream; one stream per 32 bits of tag, all computed in the
//! same pass over the message.

use super::kdf::Keys;
use super::l2::{L2State, POLY64_WORDS, poly64, reduce64};
use super::l3::{l3, l3_64};
use super::nh::{CHUNK, NhKernel};

/// Messages up to this length hash their L1 outputs under the 64-bit prime
/// alone.
const POLY64_BYTES: usize = POLY64_WORDS as usize * CHUNK;

/// L1 outputs of one chunk of a message of several (the last may be
/// shorter) for streams `0..S`.
#[inline(always)]
pub(super) fn l1<const S: usize>(kernel: NhKernel, keys: &Keys, chunk: &[u8]) -> [u64; S] {
    let bits = 8 * chunk.len() as u64;
    kernel
        .nh::<S>(&keys.nh, chunk)
        .map(|h| h.wrapping_add(bits))
}

/// L1 outputs of a message of one chunk (at most 1024 bytes, possibly
/// empty) for streams `0..S`.
#[inline(always)]
pub(super) fn l1_whole<const S: usize>(kernel: NhKernel, keys: &Keys, msg: &[u8]) -> [u64; S] {
    let bits = 8 * msg.len() as u64;
    kernel
        .nh_whole::<S>(&keys.nh, msg)
        .map(|h| h.wrapping_add(bits))
}

/// Feeds one chunk's L1 outputs to the streams' L2 states.
#[inline(always)]
pub(super) fn absorb<const S: usize>(keys: &Keys, l2: &mut [L2State], a: [u64; S]) {
    for (s, (state, a)) in l2.iter_mut().zip(a).enumerate() {
        state.absorb(&keys.l2[s], a);
    }
}

/// UHASH of a message of one chunk (at most 1024 bytes): L2 is skipped and
/// L3 takes `0^64 || L1`.
#[inline(always)]
pub(super) fn short<const S: usize>(keys: &Keys, a: [u64; S]) -> [u32; S] {
    std::array::from_fn(|s| l3_64(&keys.l3[s], keys.l3_xor[s], a[s]))
}

/// UHASH of a message of several chunks whose L1 outputs are all in `l2`.
#[inline]
pub(super) fn long<const S: usize>(keys: &Keys, l2: &[L2State]) -> [u32; S] {
    std::array::from_fn(|s| {
        let b = l2[s].finish(&keys.l2[s]);
        if l2[s].is_wide() {
            l3(&keys.l3[s], keys.l3_xor[s], b)
        } else {
            l3_64(&keys.l3[s], keys.l3_xor[s], b as u64)
        }
    })
}

/// UHASH of a whole message for streams `0..S`.
#[inline]
pub(super) fn uhash<const S: usize>(kernel: NhKernel, keys: &Keys, msg: &[u8]) -> [u32; S] {
    if msg.len() <= CHUNK {
        return short::<S>(keys, l1_whole::<S>(kernel, keys, msg));
    }
    // Every chunk but the last is full; the last has 1 to 1024 bytes.
    let (body, last) = msg.split_at((msg.len() - 1) / CHUNK * CHUNK);
    if msg.len() <= POLY64_BYTES {
        // The 64-bit prime only: POLY's accumulators stay in registers
        // across the kernel's run of chunks.
        let mut y = [1u64; S];
        kernel.nh_chunks::<S>(&keys.nh, body, |nh| {
            for (s, y) in y.iter_mut().enumerate() {
                *y = poly64(&keys.l2[s], *y, nh[s].wrapping_add(8 * CHUNK as u64));
            }
        });
        let a = l1::<S>(kernel, keys, last);
        std::array::from_fn(|s| {
            let b = reduce64(poly64(&keys.l2[s], y[s], a[s]));
            l3_64(&keys.l3[s], keys.l3_xor[s], b)
        })
    } else {
        let mut l2 = [L2State::new(); S];
        kernel.nh_chunks::<S>(&keys.nh, body, |nh| {
            absorb::<S>(keys, &mut l2, nh.map(|h| h.wrapping_add(8 * CHUNK as u64)));
        });
        absorb::<S>(keys, &mut l2, l1::<S>(kernel, keys, last));
        long::<S>(keys, &l2)
    }
}
