//! The multi-stream job manager: up to one engine width of MD5 streams
//! (files being read, connections, ...) advanced together on the lanes
//! engine, with updates of any size and 64-bit lengths.
//!
//! A caller opens streams, then repeatedly [`submit`](Md5Manager::submit)s a
//! batch holding the next piece of data of several streams; the batch is
//! absorbed in one pass of the engine, each stream in its own lane. Pieces of
//! similar size keep the lanes busy (a stream whose piece runs out idles until
//! the batch is done). [`finish`](Md5Manager::finish) pads a stream and
//! returns its digest, freeing its lane for the next stream.
//!
//! Every piece is absorbed before `submit` returns, so the caller can refill
//! its buffers at once; a stream keeps at most 63 bytes of its own between
//! submits.

use crate::lanes::many::{digest_bytes, write_padding};
use crate::lanes::schedule::{LaneRuns, absorb_runs};
use crate::lanes::{LaneState, Lanes, MAX_LANES};
use crate::md5::Md5Backend;
use crate::md5::reference::INIT;

/// An open stream of an [`Md5Manager`]. Not `Clone`: `finish` consumes it,
/// so a finished stream cannot be fed by mistake.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct StreamId(usize);

impl StreamId {
    /// The lane this stream runs in.
    pub fn lane(&self) -> usize {
        self.0
    }
}

#[derive(Clone)]
struct Slot {
    open: bool,
    /// Bytes absorbed so far, counted mod 2^64 as MD5's length field is.
    len: u64,
    /// Bytes waiting for a whole block.
    tail: [u8; 64],
    tail_len: usize,
    /// A block completed from `tail` in the current submit.
    full: [u8; 64],
}

impl Default for Slot {
    fn default() -> Self {
        Slot {
            open: false,
            len: 0,
            tail: [0; 64],
            tail_len: 0,
            full: [0; 64],
        }
    }
}

/// Many MD5 streams on one lanes engine (one thread).
pub struct Md5Manager {
    lanes: Lanes,
    state: LaneState,
    slots: Vec<Slot>,
}

impl Default for Md5Manager {
    fn default() -> Self {
        Md5Manager::new()
    }
}

impl Md5Manager {
    /// A manager on the active lanes backend.
    pub fn new() -> Md5Manager {
        Md5Manager::with_lanes(Lanes::active())
    }

    /// A manager on a chosen lanes backend.
    pub fn with_lanes(lanes: Lanes) -> Md5Manager {
        Md5Manager {
            state: LaneState::new(),
            slots: vec![Slot::default(); lanes.width().min(MAX_LANES)],
            lanes,
        }
    }

    /// How many streams can be open at once.
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// How many streams are open.
    pub fn open_streams(&self) -> usize {
        self.slots.iter().filter(|s| s.open).count()
    }

    /// Opens a stream in a free lane; `None` when every lane is busy.
    pub fn open(&mut self) -> Option<StreamId> {
        let lane = self.slots.iter().position(|s| !s.open)?;
        self.slots[lane] = Slot {
            open: true,
            ..Slot::default()
        };
        self.state.set(lane, INIT);
        Some(StreamId(lane))
    }

    /// Bytes absorbed by a stream so far (mod 2^64).
    pub fn len(&self, id: &StreamId) -> u64 {
        self.slots[id.0].len
    }

    /// Absorbs `data` into one stream.
    pub fn update(&mut self, id: &StreamId, data: &[u8]) {
        self.submit(&[(id, data)]);
    }

    /// Absorbs each piece into its stream, all streams in one pass of the
    /// engine. A stream may appear more than once; its pieces are absorbed
    /// in batch order.
    pub fn submit(&mut self, batch: &[(&StreamId, &[u8])]) {
        let mut rest = batch;
        while !rest.is_empty() {
            // The longest prefix naming each stream at most once.
            let mut seen = [false; MAX_LANES];
            let n = rest
                .iter()
                .position(|(id, _)| std::mem::replace(&mut seen[id.0], true))
                .unwrap_or(rest.len());
            self.submit_distinct(&rest[..n]);
            rest = &rest[n..];
        }
    }

    fn submit_distinct(&mut self, batch: &[(&StreamId, &[u8])]) {
        // First the bytes that complete each stream's pending block, then
        // its whole blocks in place; what is left waits in its tail.
        let mut whole: [&[u8]; MAX_LANES] = [&[]; MAX_LANES];
        let mut has_full = [false; MAX_LANES];
        let mut lanes_used = 0;
        for &(id, data) in batch {
            let lane = id.0;
            let slot = &mut self.slots[lane];
            debug_assert!(slot.open);
            slot.len = slot.len.wrapping_add(data.len() as u64);
            let mut data = data;
            if slot.tail_len > 0 {
                let take = (64 - slot.tail_len).min(data.len());
                slot.tail[slot.tail_len..slot.tail_len + take].copy_from_slice(&data[..take]);
                slot.tail_len += take;
                data = &data[take..];
                if slot.tail_len == 64 {
                    slot.full = slot.tail;
                    slot.tail_len = 0;
                    has_full[lane] = true;
                }
            }
            let split = data.len() / 64 * 64;
            whole[lane] = &data[..split];
            let left = &data[split..];
            slot.tail[slot.tail_len..slot.tail_len + left.len()].copy_from_slice(left);
            slot.tail_len += left.len();
            lanes_used = lanes_used.max(lane + 1);
        }
        let mut work = [LaneRuns::default(); MAX_LANES];
        for lane in 0..lanes_used {
            let full: &[u8] = if has_full[lane] {
                &self.slots[lane].full
            } else {
                &[]
            };
            work[lane] = LaneRuns::new(full, whole[lane]);
        }
        absorb_runs(&self.lanes, &mut self.state, &work[..lanes_used]);
    }

    /// Test hook: counts `blocks` more 64-byte blocks in the stream's length
    /// without hashing them, to check the 64-bit length encoding quickly
    /// (as [`Md5::__skip_blocks_for_test`](crate::Md5::__skip_blocks_for_test)).
    #[doc(hidden)]
    pub fn __skip_blocks_for_test(&mut self, id: &StreamId, blocks: u64) {
        let slot = &mut self.slots[id.0];
        slot.len = slot.len.wrapping_add(blocks.wrapping_mul(64));
    }

    /// Pads the stream, returns its digest and frees its lane.
    pub fn finish(&mut self, id: StreamId) -> [u8; 16] {
        let slot = &mut self.slots[id.0];
        slot.open = false;
        let mut padding = [0u8; 128];
        let blocks = write_padding(&slot.tail[..slot.tail_len], slot.len, &mut padding);
        let mut chain = self.state.get(id.0);
        let compress = Md5Backend::active()
            .compress_fn()
            .expect("the active backend is supported");
        let (full, _) = padding.as_chunks::<64>();
        compress(&mut chain, &full[..blocks]);
        digest_bytes(chain)
    }
}
