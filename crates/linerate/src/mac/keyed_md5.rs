//! Keyed MD5 (RFC 1828): `MD5(key || fill || data || key)`, the fill being
//! zeros to the next 64-byte boundary after the key. IPv6's original AH
//! transform, the one RFC 1810 measures; superseded by HMAC-MD5 (RFC 2403)
//! because this envelope is weaker. Kept for the speed lab and for captures
//! of the time.
//!
//! The TCP MD5 signature (RFC 2385) is the same envelope without the
//! front: `MD5(data || key)` ([`KeyedMd5Key::suffix_only`]).
//!
//! The key and its fill are whole blocks, so a key object absorbs them
//! once and keeps the chaining value; each message then costs its own
//! blocks plus the key's at the end. Batches run side by side in the lanes
//! engine like multi-buffer HMAC's inner pass: packets grouped by padded
//! block count, each lane starting from the keyed chaining value, reading
//! the packet's whole blocks in place and its tail (last bytes, the key,
//! MD5's padding) from a scratch buffer.
//!
//! ```
//! use linerate::mac::keyed_md5::KeyedMd5Key;
//!
//! let key = KeyedMd5Key::new(b"0123456789abcdef");
//! let tag = key.tag(b"packet");
//! let mut whole = b"0123456789abcdef".to_vec();
//! whole.resize(64, 0);
//! whole.extend_from_slice(b"packet0123456789abcdef");
//! assert_eq!(tag, linerate::md5(&whole));
//! assert_eq!(key.tag_many(&[b"packet"]), vec![tag]);
//! ```

use core::fmt;

use zeroize::{Zeroize, Zeroizing};

use crate::lanes::many::{compress_split, digest_bytes, for_each_group, padded_blocks};
use crate::lanes::{LaneState, Lanes, LanesBackend, MAX_LANES};
use crate::mac::hmac::{Compression, Md5Compression};
use crate::md5::Md5;

/// A keyed-MD5 key: the chaining value after the key and its fill, and
/// the key for the end of each message. Zeroized when dropped.
#[derive(Clone)]
pub struct KeyedMd5Key {
    /// MD5 after absorbing `key || fill`: whole blocks, nothing buffered.
    prefix: Md5,
    /// The chaining value of `prefix`, for lanes.
    state: [u32; 4],
    /// Bytes in `key || fill`.
    prefix_len: u64,
    key: Zeroizing<Vec<u8>>,
}

impl KeyedMd5Key {
    /// Sets up `key` (any length; RFC 1828 asks for at least 128 bits).
    pub fn new(key: &[u8]) -> KeyedMd5Key {
        let fill = key.len().div_ceil(64) * 64 - key.len();
        let mut block = Zeroizing::new(key.to_vec());
        block.resize(key.len() + fill, 0);
        let mut prefix = Md5::new();
        prefix.update(&block[..]);
        // The same chaining value as plain words, for the lanes.
        let hash = Md5Compression::default();
        let mut state = Md5Compression::IV;
        hash.compress(&mut state, block.as_chunks::<64>().0);
        KeyedMd5Key {
            prefix,
            state,
            prefix_len: block.len() as u64,
            key: Zeroizing::new(key.to_vec()),
        }
    }

    /// Sets up `key` for RFC 2385's TCP MD5 signature, `MD5(data || key)`:
    /// nothing before the message, the key after it.
    pub fn suffix_only(key: &[u8]) -> KeyedMd5Key {
        KeyedMd5Key {
            prefix: Md5::new(),
            state: Md5Compression::IV,
            prefix_len: 0,
            key: Zeroizing::new(key.to_vec()),
        }
    }

    /// The 16-byte tag of `message`.
    pub fn tag(&self, message: &[u8]) -> [u8; 16] {
        let mut h = self.prefix();
        h.update(message);
        self.finish(h)
    }

    /// The state after the key and its fill, for a message fed in pieces:
    /// update it with the message, then [`finish`](Self::finish) it.
    pub fn prefix(&self) -> Md5 {
        self.prefix.clone()
    }

    /// The tag of a message fed into `state` (from [`prefix`](Self::prefix)).
    pub fn finish(&self, mut state: Md5) -> [u8; 16] {
        state.update(&self.key[..]);
        state.finalize()
    }

    /// The tags of many messages, in order, side by side in the lanes
    /// engine ([`Lanes::active`]); one at a time without a SIMD backend.
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
        if lanes.backend() == LanesBackend::Portable {
            assert_eq!(messages.len(), out.len(), "one output per message");
            for (m, tag) in messages.iter().zip(out.iter_mut()) {
                *tag = self.tag(m);
            }
            return;
        }
        self.tag_many_with(&lanes, messages, out);
    }

    /// [`tag_many_into`](Self::tag_many_into) on a chosen lanes backend.
    ///
    /// # Panics
    /// If `out.len() != messages.len()`.
    pub fn tag_many_with(&self, lanes: &Lanes, messages: &[&[u8]], out: &mut [[u8; 16]]) {
        assert_eq!(messages.len(), out.len(), "one output per message");
        let width = lanes.width().min(MAX_LANES);
        // A tail: under 64 message bytes, the key, 0x80 and the length.
        let tail_len = 64 * padded_blocks(63 + self.key.len());
        let mut scratch = Zeroizing::new(vec![0u8; width * tail_len]);
        for_each_group(
            messages.len(),
            width,
            |i| padded_blocks(messages[i].len() + self.key.len()),
            |group| self.group(lanes, messages, group, &mut scratch, tail_len, out),
        );
    }

    /// Up to one engine width of messages with the same padded block count.
    fn group(
        &self,
        lanes: &Lanes,
        messages: &[&[u8]],
        group: &[(usize, usize)],
        scratch: &mut [u8],
        tail_len: usize,
        out: &mut [[u8; 16]],
    ) {
        let n = group[0].0;
        let g = group.len();
        let mut whole = [0usize; MAX_LANES];
        let mut lane_data: [&[u8]; MAX_LANES] = [&[]; MAX_LANES];
        let mut state = LaneState::new();
        for (lane, (&(_, i), buf)) in group
            .iter()
            .zip(scratch.chunks_exact_mut(tail_len))
            .enumerate()
        {
            let m = messages[i];
            whole[lane] = m.len() / 64;
            lane_data[lane] = m;
            let total = self.prefix_len + m.len() as u64 + self.key.len() as u64;
            write_tail(&m[whole[lane] * 64..], &self.key, total, buf);
            state.set(lane, self.state);
        }
        let tail = |lane: usize| &scratch[lane * tail_len..(lane + 1) * tail_len];
        compress_split(lanes, &mut state, &lane_data[..g], &whole[..g], tail, n);
        for (lane, &(_, i)) in group.iter().enumerate() {
            out[i] = digest_bytes(state.get(lane));
        }
    }
}

/// `rest || key`, 0x80, zeros and the bit length of `total` bytes, into the
/// start of `buf` (which is long enough).
fn write_tail(rest: &[u8], key: &[u8], total: u64, buf: &mut [u8]) {
    let data = rest.len() + key.len();
    let end = 64 * padded_blocks(data);
    buf[..rest.len()].copy_from_slice(rest);
    buf[rest.len()..data].copy_from_slice(key);
    buf[data] = 0x80;
    buf[data + 1..end - 8].fill(0);
    buf[end - 8..end].copy_from_slice(&total.wrapping_mul(8).to_le_bytes());
}

impl Drop for KeyedMd5Key {
    fn drop(&mut self) {
        self.state.zeroize();
        self.prefix.reset();
    }
}

impl fmt::Debug for KeyedMd5Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeyedMd5Key").finish_non_exhaustive()
    }
}
