//! Lane batches of short rows: each row padded whole (RFC 1321: the bytes,
//! 0x80, zeros, the bit length) into its lane's scratch as it arrives, the
//! batch hashed in one engine call once every lane has a row.
//!
//! Padding is most of the cost of a short row, so on AVX-512BW it is two
//! masked loads and two stores (no call to memcpy, nothing read past the
//! row: masked-off bytes are neither loaded nor faulted on); elsewhere a
//! fixed-size clear and a copy.

use crate::lanes::many::digest_bytes;
use crate::lanes::{LaneState, Lanes, LanesBackend, MAX_LANES};

/// How rows are padded into scratch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Padder {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Avx512bw,
}

impl Padder {
    /// The masked-load padder goes with the AVX-512 lanes backend (so that
    /// forcing a backend forces the padder too, and the tests run both).
    fn for_lanes(lanes: &Lanes) -> Padder {
        #[cfg(target_arch = "x86_64")]
        if lanes.backend() == LanesBackend::Avx512 && std::is_x86_feature_detected!("avx512bw") {
            return Padder::Avx512bw;
        }
        let _ = lanes;
        Padder::Portable
    }

    /// Pads `row` into `buf` as `blocks` (1 or 2, what the row needs).
    #[inline]
    fn pad(self, blocks: usize, row: &[u8], buf: &mut [u8; 128]) {
        match (self, blocks) {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: Avx512bw is chosen only where the CPU has AVX-512BW.
            (Padder::Avx512bw, 1) => unsafe { pad_avx512bw::<1>(row, buf) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            (Padder::Avx512bw, _) => unsafe { pad_avx512bw::<2>(row, buf) },
            (Padder::Portable, 1) => pad_portable::<1>(row, buf),
            (Padder::Portable, _) => pad_portable::<2>(row, buf),
        }
    }
}

/// Up to one engine width of rows of `blocks` (1 or 2) padded blocks each.
pub(crate) struct ShortBatch<'l> {
    lanes: &'l Lanes,
    padder: Padder,
    blocks: usize,
    width: usize,
    n: usize,
    index: [usize; MAX_LANES],
    buf: Box<[[u8; 128]; MAX_LANES]>,
}

impl<'l> ShortBatch<'l> {
    pub(crate) fn new(lanes: &'l Lanes, blocks: usize) -> Self {
        debug_assert!(blocks == 1 || blocks == 2);
        ShortBatch {
            lanes,
            padder: Padder::for_lanes(lanes),
            blocks,
            width: lanes.width().min(MAX_LANES),
            n: 0,
            index: [0; MAX_LANES],
            buf: Box::new([[0; 128]; MAX_LANES]),
        }
    }

    /// Adds `row` (whose padding fills exactly this batch's block count),
    /// its digest to go to `out[index]`; hashes the batch when full.
    #[inline]
    pub(crate) fn push(&mut self, row: &[u8], index: usize, out: &mut [[u8; 16]]) {
        debug_assert_eq!(crate::lanes::many::padded_blocks(row.len()), self.blocks);
        self.padder.pad(self.blocks, row, &mut self.buf[self.n]);
        self.index[self.n] = index;
        self.n += 1;
        if self.n == self.width {
            self.flush(out);
        }
    }

    /// Hashes the rows added since the last flush.
    pub(crate) fn flush(&mut self, out: &mut [[u8; 16]]) {
        if self.n == 0 {
            return;
        }
        let mut data: [&[u8]; MAX_LANES] = [&[]; MAX_LANES];
        for (slot, buf) in data.iter_mut().zip(self.buf.iter()).take(self.n) {
            *slot = &buf[..64 * self.blocks];
        }
        let mut state = LaneState::new();
        self.lanes
            .compress(&mut state, &data[..self.n], self.blocks, 64);
        for (lane, &index) in self.index[..self.n].iter().enumerate() {
            out[index] = digest_bytes(state.get(lane));
        }
        self.n = 0;
    }
}

fn pad_portable<const BLOCKS: usize>(row: &[u8], buf: &mut [u8; 128]) {
    let end = 64 * BLOCKS;
    // A fixed-size clear compiles to a few vector stores.
    buf[..end].fill(0);
    buf[..row.len()].copy_from_slice(row);
    buf[row.len()] = 0x80;
    buf[end - 8..end].copy_from_slice(&(row.len() as u64 * 8).to_le_bytes());
}

/// # Safety
/// The CPU must have AVX-512F and AVX-512BW.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn pad_avx512bw<const BLOCKS: usize>(row: &[u8], buf: &mut [u8; 128]) {
    use std::arch::x86_64::*;
    let len = row.len();
    debug_assert!(len < 64 * BLOCKS - 8);
    // Byte masks of the row's bytes in each 64-byte half.
    let first = if len >= 64 { !0u64 } else { (1u64 << len) - 1 };
    let second = if len > 64 {
        (1u64 << (len - 64)) - 1
    } else {
        0
    };
    let bits = (len as u64 * 8) as i64;
    let p = row.as_ptr().cast::<i8>();
    let out = buf.as_mut_ptr().cast::<__m512i>();
    // SAFETY: a masked load reads (and can fault on) only the bytes its
    // mask selects, which are the row's own; the pointer past the first 64
    // bytes is formed with wrapping_add and read only under `second`, whose
    // bits are the row's bytes there. `buf` holds 128 bytes, two stores.
    unsafe {
        let mut lo = _mm512_maskz_loadu_epi8(first, p);
        if BLOCKS == 1 {
            lo = _mm512_mask_set1_epi8(lo, 1u64 << len, 0x80u8 as i8);
            lo = _mm512_mask_set1_epi64(lo, 1 << 7, bits);
            _mm512_storeu_si512(out, lo);
        } else {
            let mut hi = _mm512_maskz_loadu_epi8(second, p.wrapping_add(64));
            if len < 64 {
                lo = _mm512_mask_set1_epi8(lo, 1u64 << len, 0x80u8 as i8);
            } else {
                hi = _mm512_mask_set1_epi8(hi, 1u64 << (len - 64), 0x80u8 as i8);
            }
            hi = _mm512_mask_set1_epi64(hi, 1 << 7, bits);
            _mm512_storeu_si512(out, lo);
            _mm512_storeu_si512(out.add(1), hi);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every padder this CPU runs writes the same blocks as RFC 1321's
    /// padding for every short length, from rows at every alignment.
    #[test]
    fn padders_agree_with_the_definition() {
        let mut padders = vec![Padder::Portable];
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx512bw") {
            padders.push(Padder::Avx512bw);
        }
        let data: Vec<u8> = (0..300u32).map(|i| (i * 7 + 3) as u8).collect();
        for len in 0..120usize {
            let blocks = crate::lanes::many::padded_blocks(len);
            for start in 0..8 {
                let row = &data[start..start + len];
                let mut want = [0u8; 128];
                want[..len].copy_from_slice(row);
                want[len] = 0x80;
                want[64 * blocks - 8..64 * blocks].copy_from_slice(&(len as u64 * 8).to_le_bytes());
                for &padder in &padders {
                    let mut got = [0xAAu8; 128];
                    padder.pad(blocks, row, &mut got);
                    assert_eq!(
                        got[..64 * blocks],
                        want[..64 * blocks],
                        "{padder:?}, len {len}"
                    );
                }
            }
        }
    }
}
