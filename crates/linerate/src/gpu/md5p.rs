//! MD5-P/K (RFC 1810's K-way interleaved MD5, `docs/md5p.md`) on the GPU:
//! K chains are K threads. The message's whole stripes (K blocks each)
//! stream through two pinned buffers in rounds; one launch of the update
//! kernel absorbs a round into every chain (chain j starts at block j and
//! strides K * 64 bytes), the states staying on the device. The pending
//! bytes, each chain's padding and the final MD5 of the K chain digests
//! are done on the host.
//!
//! K is at most 256 (MD5-P/K's definition), so at most 256 threads run:
//! a GPU hashes one MD5-P/K message well under its width. The lab measures
//! it against the CPU; `auto` never picks it.

use rayon::prelude::*;

use super::driver::{Context, DeviceBuffer, Event, GpuError, PinnedBuffer, Stream};
use super::streams::Update;
use super::{finish, state_at};
use crate::md5p::{Md5pError, is_valid_k};

/// Bytes of whole stripes per round (rounded down to whole stripes).
const ROUND_BYTES: usize = 64 << 20;

impl Context {
    /// MD5-P/K of `data` on the GPU.
    pub fn md5p(&self, k: usize, data: &[u8]) -> Result<Result<[u8; 16], Md5pError>, GpuError> {
        if !is_valid_k(k) {
            return Ok(crate::md5p(k, data));
        }
        let stripe = k * 64;
        let stripes = data.len() / stripe;
        let per_round = (ROUND_BYTES / stripe).max(1);
        let states = DeviceBuffer::new(self, k * 16)?;
        let mut host_states = vec![0u8; k * 16];
        if stripes > 0 {
            let round = per_round.min(stripes) * stripe;
            let mut pinned = [
                PinnedBuffer::new(self, round)?,
                PinnedBuffer::new(self, round)?,
            ];
            let dev = [
                DeviceBuffer::new(self, round)?,
                DeviceBuffer::new(self, round)?,
            ];
            let events = [Event::new(self)?, Event::new(self)?];
            let mut busy = [false, false];
            let starts: Vec<u8> = (0..k as u64).flat_map(|j| (j * 64).to_le_bytes()).collect();
            let upload = |bytes: &[u8]| -> Result<DeviceBuffer, GpuError> {
                let mut d = DeviceBuffer::new(self, bytes.len())?;
                d.upload(bytes)?;
                Ok(d)
            };
            let counts =
                |n: usize| -> Vec<u8> { (0..k).flat_map(|_| (n as u64).to_le_bytes()).collect() };
            let dev_starts = upload(&starts)?;
            let full = upload(&counts(per_round))?;
            let last = upload(&counts(stripes % per_round))?;
            let fresh_first = upload(&vec![1u8; k])?;
            let fresh_later = upload(&vec![0u8; k])?;
            let copy = Stream::new(self)?;
            let hash = Stream::new(self)?;
            let copied = [Event::new(self)?, Event::new(self)?];
            let mut done = 0;
            let mut turn = 0;
            while done < stripes {
                let n = per_round.min(stripes - done);
                let side = turn % 2;
                if busy[side] {
                    events[side].synchronize()?;
                }
                let bytes = &data[done * stripe..(done + n) * stripe];
                pinned[side].as_mut_slice()[..bytes.len()]
                    .par_chunks_mut(1 << 20)
                    .zip(bytes.par_chunks(1 << 20))
                    .for_each(|(d, s)| d.copy_from_slice(s));
                self.bind()?;
                // SAFETY: the pinned buffer is rewritten only after
                // `events[side]` (recorded after the kernel that reads its
                // device twin, which follows this copy) has completed.
                unsafe {
                    copy.copy_in(
                        dev[side].ptr(),
                        pinned[side].as_slice().as_ptr(),
                        bytes.len(),
                    )?;
                }
                copied[side].record(&copy)?;
                hash.wait(&copied[side])?;
                let update = Update {
                    data: dev[side].ptr(),
                    starts: dev_starts.ptr(),
                    stride: stripe as u64,
                    blocks: if n == per_round {
                        full.ptr()
                    } else {
                        last.ptr()
                    },
                    fresh: if done == 0 {
                        fresh_first.ptr()
                    } else {
                        fresh_later.ptr()
                    },
                    n: k as u64,
                    states: states.ptr(),
                };
                // SAFETY: chain j reads blocks j + i K, i < n, all inside
                // this round's n stripes in `dev[side]`; the other buffers
                // hold k entries each and live until the end.
                unsafe { update.launch(self, &hash) }?;
                events[side].record(&hash)?;
                busy[side] = true;
                done += n;
                turn += 1;
            }
            hash.synchronize()?;
            states.download(&mut host_states)?;
        }
        let absorbed = (stripes * 64) as u64;
        let pending = &data[stripes * stripe..];
        let digests: Vec<[u8; 16]> = (0..k)
            .map(|j| {
                let mut state = if stripes == 0 {
                    crate::md5::reference::INIT
                } else {
                    state_at(&host_states, j)
                };
                let start = (j * 64).min(pending.len());
                let mine = &pending[start..(start + 64).min(pending.len())];
                if mine.len() == 64 {
                    crate::md5::reference::compress_block(&mut state, mine.try_into().expect("64"));
                    finish(state, absorbed + 64, &[])
                } else {
                    finish(state, absorbed, mine)
                }
            })
            .collect();
        Ok(Ok(crate::md5(digests.as_flattened())))
    }
}
