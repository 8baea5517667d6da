//! Multi-buffer HMAC-MD5: a batch of packets' inner hashes side by side in
//! the lanes engine, then their outer hashes, one block each, the same way.
//!
//! Inner pass: packets are grouped by padded block count (sorted within
//! batches, as `md5_many` does) so that the lanes of one engine call finish
//! together; each lane starts from its packet's key's inner chaining value
//! ([`LaneState::set`]), reads the packet's whole blocks in place and its
//! last one or two blocks (tail bytes, 0x80, zeros, the bit length of
//! `64 + len` bytes) from a scratch buffer. The inner digests go to `out`.
//! Outer pass: every packet is then one block (its 16-byte inner digest,
//! 0x80, zeros, the length of 80 bytes), so the batch is cut into full
//! engine widths in order, each lane starting from its key's outer chaining
//! value; the tags overwrite the inner digests in `out`.
//!
//! Per packet that is exactly the scalar path's work (data blocks, padding
//! blocks, one outer block), with the engine's lanes doing it at once. All
//! through [`Lanes::compress`]: no `unsafe` here.
//!
//! The keyed chaining values set into a [`LaneState`] are overwritten in
//! place by the first compression of their lane (every lane absorbs at least
//! one block), so no keyed state is left in the engine's buffers.

use super::HmacMd5Key;
use crate::lanes::many::{
    compress_split, digest_bytes, for_each_group, padded_blocks, write_padding,
};
use crate::lanes::{LaneState, Lanes, LanesBackend, MAX_LANES};

/// Below this many packets, a group (inner pass) or the last chunk (outer
/// pass) runs on the single-stream backend: one engine call costs about as
/// much as a full register set of lanes. Measured on AVX-512 with 1500-byte
/// packets (`cargo bench -p linerate --bench hmac -- --alternate`, two
/// sittings): one packet through the engine takes 1.17-1.25 times a
/// single-stream `tag`, two packets 0.61-0.63 times two `tag`s. Only for
/// the automatic entry points; the `_with` variants always run the engine
/// they are given.
const SCALAR_BELOW: usize = 2;

/// A batch: packet `i`'s key and message.
trait Packets {
    fn count(&self) -> usize;
    fn get(&self, i: usize) -> (&HmacMd5Key, &[u8]);
}

struct OneKey<'a> {
    key: &'a HmacMd5Key,
    messages: &'a [&'a [u8]],
}

impl Packets for OneKey<'_> {
    fn count(&self) -> usize {
        self.messages.len()
    }

    fn get(&self, i: usize) -> (&HmacMd5Key, &[u8]) {
        (self.key, self.messages[i])
    }
}

impl Packets for [(&HmacMd5Key, &[u8])] {
    fn count(&self) -> usize {
        self.len()
    }

    fn get(&self, i: usize) -> (&HmacMd5Key, &[u8]) {
        self[i]
    }
}

impl HmacMd5Key {
    /// The tags of a batch of messages under this key, in order, computed
    /// side by side in the lanes engine ([`Lanes::active`]); one at a time
    /// where the engine has no SIMD backend.
    pub fn tag_many(&self, messages: &[&[u8]]) -> Vec<[u8; 16]> {
        let mut out = vec![[0u8; 16]; messages.len()];
        self.tag_many_into(messages, &mut out);
        out
    }

    /// [`tag_many`](Self::tag_many) into `out`.
    ///
    /// # Panics
    /// If `out.len() != messages.len()`.
    pub fn tag_many_into(&self, messages: &[&[u8]], out: &mut [[u8; 16]]) {
        let lanes = Lanes::active();
        let batch = OneKey {
            key: self,
            messages,
        };
        run(&lanes, auto_scalar_below(&lanes), &batch, out);
    }

    /// [`tag_many_into`](Self::tag_many_into) on a chosen lanes backend,
    /// every packet through it (no single-stream shortcut).
    ///
    /// # Panics
    /// If `out.len() != messages.len()`.
    pub fn tag_many_with(&self, lanes: &Lanes, messages: &[&[u8]], out: &mut [[u8; 16]]) {
        let batch = OneKey {
            key: self,
            messages,
        };
        run(lanes, 0, &batch, out);
    }
}

/// HMAC-MD5 of each `(key, message)` pair into `out`, in order, computed side
/// by side in the lanes engine ([`Lanes::active`]) with each lane starting
/// from its own key's states; one at a time where the engine has no SIMD
/// backend.
///
/// # Panics
/// If `out.len() != packets.len()`.
pub fn hmac_md5_many(packets: &[(&HmacMd5Key, &[u8])], out: &mut [[u8; 16]]) {
    let lanes = Lanes::active();
    run(&lanes, auto_scalar_below(&lanes), packets, out);
}

/// [`hmac_md5_many`] on a chosen lanes backend, every packet through it.
///
/// # Panics
/// If `out.len() != packets.len()`.
pub fn hmac_md5_many_with(lanes: &Lanes, packets: &[(&HmacMd5Key, &[u8])], out: &mut [[u8; 16]]) {
    run(lanes, 0, packets, out);
}

/// Groups smaller than this go single-stream: all of them where the engine
/// is the portable one (one lane at a time, slower than the single-stream
/// backends).
fn auto_scalar_below(lanes: &Lanes) -> usize {
    match lanes.backend() {
        LanesBackend::Portable => usize::MAX,
        _ => SCALAR_BELOW,
    }
}

fn run<P: Packets + ?Sized>(lanes: &Lanes, scalar_below: usize, packets: &P, out: &mut [[u8; 16]]) {
    let count = packets.count();
    assert_eq!(count, out.len(), "one output per packet");
    let width = lanes.width().min(MAX_LANES);
    // Per lane: the tail blocks of its packet, and its outer block. An
    // outer block is always 16 digest bytes, 0x80, zeros and the length of
    // 80 bytes: only the digest changes.
    let mut scratch = vec![[0u8; 128]; width];
    let mut outer_blocks = vec![[0u8; 64]; width];
    for block in &mut outer_blocks {
        block[16] = 0x80;
        block[56..].copy_from_slice(&((64u64 + 16) * 8).to_le_bytes());
    }
    for_each_group(
        count,
        width,
        |i| padded_blocks(packets.get(i).1.len()),
        |group| {
            if group.len() < scalar_below {
                for &(_, i) in group {
                    let (key, message) = packets.get(i);
                    out[i] = key.inner_digest(message);
                }
            } else {
                inner_group(lanes, packets, group, &mut scratch, out);
            }
        },
    );
    for start in (0..count).step_by(width) {
        let end = (start + width).min(count);
        if end - start < scalar_below {
            for (i, tag) in out.iter_mut().enumerate().take(end).skip(start) {
                *tag = packets.get(i).0.outer_tag(tag);
            }
        } else {
            outer_chunk(
                lanes,
                packets,
                start,
                &mut outer_blocks,
                &mut out[start..end],
            );
        }
    }
}

/// The inner hashes of up to one engine width of packets with the same
/// padded block count `n`, one per lane, into `out[i]`. Packet `i` has
/// `whole_i` whole blocks in place and `n - whole_i` (1 or 2) tail blocks in
/// its scratch buffer: the first `min(whole_i)` blocks go in one engine
/// call, then at most two calls of one block in which each lane reads from
/// its packet or its scratch.
fn inner_group<P: Packets + ?Sized>(
    lanes: &Lanes,
    packets: &P,
    group: &[(usize, usize)],
    scratch: &mut [[u8; 128]],
    out: &mut [[u8; 16]],
) {
    let n = group[0].0;
    debug_assert!(group.iter().all(|&(blocks, _)| blocks == n));
    let mut whole = [0usize; MAX_LANES];
    let mut messages: [&[u8]; MAX_LANES] = [&[]; MAX_LANES];
    let mut state = LaneState::new();
    for (lane, &(_, i)) in group.iter().enumerate() {
        let (key, message) = packets.get(i);
        messages[lane] = message;
        whole[lane] = message.len() / 64;
        write_padding(
            &message[whole[lane] * 64..],
            64 + message.len() as u64,
            &mut scratch[lane],
        );
        state.set(lane, *key.inner_state());
    }
    let g = group.len();
    let tail = |lane: usize| &scratch[lane][..];
    compress_split(lanes, &mut state, &messages[..g], &whole[..g], tail, n);
    for (lane, &(_, i)) in group.iter().enumerate() {
        out[i] = digest_bytes(state.get(lane));
    }
}

/// The outer hashes of packets `start..start + tags.len()` (at most one
/// engine width), whose inner digests are in `tags`: one block per lane,
/// `blocks` holding the padding and length already.
fn outer_chunk<P: Packets + ?Sized>(
    lanes: &Lanes,
    packets: &P,
    start: usize,
    blocks: &mut [[u8; 64]],
    tags: &mut [[u8; 16]],
) {
    let mut state = LaneState::new();
    for (lane, inner) in tags.iter().enumerate() {
        blocks[lane][..16].copy_from_slice(inner);
        state.set(lane, *packets.get(start + lane).0.outer_state());
    }
    let mut slices: [&[u8]; MAX_LANES] = [&[]; MAX_LANES];
    for (slice, block) in slices.iter_mut().zip(blocks.iter()).take(tags.len()) {
        *slice = block;
    }
    lanes.compress(&mut state, &slices[..tags.len()], 1, 64);
    for (lane, tag) in tags.iter_mut().enumerate() {
        *tag = digest_bytes(state.get(lane));
    }
}
