//! [`UmacState`]: UMAC over a message that arrives in pieces.

use super::api::{Umac, check_nonce, seal, widen};
use super::l2::L2State;
use super::nh::CHUNK;
use super::tag::Tag;
use super::uhash::{absorb, l1, l1_whole, long, short};
use super::{TagBits, UmacError};
use zeroize::Zeroize;

/// A UMAC computation in progress, from [`Umac::start`]. Holds at most one
/// 1024-byte chunk: a full chunk is hashed once the next byte shows that it
/// is not the last, since a message of one chunk skips L2. Dropping the
/// state wipes the buffered bytes and the partial hashes.
pub struct UmacState<'a> {
    umac: &'a mut Umac,
    buf: [u8; CHUNK],
    len: usize,
    l2: [L2State; 4],
    /// Whether a chunk has gone through L1 already.
    long: bool,
}

impl<'a> UmacState<'a> {
    pub(super) fn new(umac: &'a mut Umac) -> UmacState<'a> {
        UmacState {
            umac,
            buf: [0; CHUNK],
            len: 0,
            l2: [L2State::new(); 4],
            long: false,
        }
    }

    /// Absorbs `data`.
    pub fn update(&mut self, mut data: &[u8]) {
        while !data.is_empty() {
            if self.len == CHUNK {
                hash_chunk(self.umac, &mut self.l2, &self.buf);
                self.long = true;
                self.len = 0;
            }
            if self.len == 0 && data.len() > CHUNK {
                let (chunk, rest) = data.split_at(CHUNK);
                hash_chunk(self.umac, &mut self.l2, chunk);
                self.long = true;
                data = rest;
                continue;
            }
            let n = (CHUNK - self.len).min(data.len());
            self.buf[self.len..self.len + n].copy_from_slice(&data[..n]);
            self.len += n;
            data = &data[n..];
        }
    }

    /// The tag of everything absorbed, under `nonce` (1 to 16 bytes).
    pub fn finalize(mut self, nonce: &[u8]) -> Result<Tag, UmacError> {
        check_nonce(nonce)?;
        let pad = self.umac.pdf.pad(nonce, self.umac.bits.bytes());
        let hash = match self.umac.bits {
            TagBits::B32 => widen(self.last::<1>()),
            TagBits::B64 => widen(self.last::<2>()),
            TagBits::B96 => widen(self.last::<3>()),
            TagBits::B128 => widen(self.last::<4>()),
        };
        Ok(seal(hash, pad, self.umac.bits.bytes()))
    }

    /// UHASH after the last chunk (`buf[..len]`).
    fn last<const S: usize>(&mut self) -> [u32; S] {
        let (b, k) = (self.umac.kernel, &*self.umac.keys);
        let last = &self.buf[..self.len];
        if self.long {
            absorb::<S>(k, &mut self.l2, l1::<S>(b, k, last));
            long::<S>(k, &self.l2)
        } else {
            short::<S>(k, l1_whole::<S>(b, k, last))
        }
    }
}

/// Hashes a full chunk that is not the message's last into `l2`.
fn hash_chunk(umac: &Umac, l2: &mut [L2State; 4], chunk: &[u8]) {
    let (b, k) = (umac.kernel, &*umac.keys);
    match umac.bits {
        TagBits::B32 => absorb::<1>(k, l2, l1::<1>(b, k, chunk)),
        TagBits::B64 => absorb::<2>(k, l2, l1::<2>(b, k, chunk)),
        TagBits::B96 => absorb::<3>(k, l2, l1::<3>(b, k, chunk)),
        TagBits::B128 => absorb::<4>(k, l2, l1::<4>(b, k, chunk)),
    }
}

impl Drop for UmacState<'_> {
    fn drop(&mut self) {
        self.buf.zeroize();
        for s in &mut self.l2 {
            s.zeroize();
        }
    }
}
