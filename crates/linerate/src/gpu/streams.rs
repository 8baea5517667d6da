//! Many long messages (files, S3 parts) on the GPU, read in slices.
//!
//! A window of up to `window` messages is in flight, each holding a slot
//! on the device where its running MD5 state lives. Every round reads the
//! next slice of each message in the window into a pinned buffer (on
//! every CPU thread), copies it over and launches one kernel that absorbs
//! every slot's whole blocks; a message whose last slice was read leaves
//! its slot, which the next message takes, and its padding is done on the
//! host from the state the round sends back. Two buffers alternate, so the
//! reads of round r + 1 overlap the copy and hashing of round r.

use std::ffi::c_void;
use std::io;

use rayon::prelude::*;

use super::driver::{Context, DeviceBuffer, Event, GpuError, PinnedBuffer, Stream, arg};
use super::{finish, state_at};

/// A message read by offset: a file, a part of one, bytes in memory.
pub trait Source: Sync {
    /// Its length in bytes, fixed when the hashing starts. (Not `len`: a
    /// slice's own `len` would be shadowed where this trait is in scope.)
    fn size(&self) -> u64;
    /// Fills `buf` with the bytes at `offset`; an error if they are not
    /// all there (the file shrank, say).
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()>;
    /// Called once the last byte was read: a file closes itself here.
    fn done(&self) {}
}

impl Source for &[u8] {
    fn size(&self) -> u64 {
        self.len() as u64
    }
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let at = offset as usize;
        buf.copy_from_slice(&self[at..at + buf.len()]);
        Ok(())
    }
}

/// How the streams engine runs.
#[derive(Clone, Copy, Debug)]
pub struct StreamOptions {
    /// Messages in flight at once (slots on the device).
    pub window: usize,
    /// Bytes read per round, all messages together (per buffer; two).
    pub round_bytes: usize,
    /// Once no message is waiting and fewer than this many are in flight,
    /// the CPU takes them over from their GPU states: one GPU thread hashes
    /// a single message some ten times slower than one CPU core.
    pub cpu_below: usize,
}

impl Default for StreamOptions {
    fn default() -> Self {
        StreamOptions {
            window: 8192,
            round_bytes: 256 << 20,
            cpu_below: 64,
        }
    }
}

/// One launch of `md5_update` (kernels.cu): `n` running states at
/// `states`, stream s absorbing `blocks[s]` blocks from `data + starts[s]`,
/// `stride` bytes apart, from MD5's initial value where `fresh[s]`; all
/// device addresses.
pub(crate) struct Update {
    pub data: u64,
    pub starts: u64,
    pub stride: u64,
    pub blocks: u64,
    pub fresh: u64,
    pub n: u64,
    pub states: u64,
}

impl Update {
    /// Queues it on `stream`.
    ///
    /// # Safety
    /// Every address must be device memory of `ctx` holding what the kernel
    /// reads or writes (16 bytes of state per stream; each stream's blocks
    /// within `data`), live until the launch completes.
    pub(crate) unsafe fn launch(&self, ctx: &Context, stream: &Stream) -> Result<(), GpuError> {
        let mut params: [*mut c_void; 7] = [
            arg(&self.data),
            arg(&self.starts),
            arg(&self.stride),
            arg(&self.blocks),
            arg(&self.fresh),
            arg(&self.n),
            arg(&self.states),
        ];
        // SAFETY: md5_update(const u8*, const u64*, u64, const u64*,
        // const u8*, u64, u32*) with the caller's addresses.
        unsafe { stream.launch(ctx.kernels.update, self.n, &mut params) }
    }
}

/// A message longer than this many times its share of the window's bytes
/// is hashed by a CPU thread from the start.
const LONG_SHARES: u64 = 8;

/// What a slot holds.
struct Active {
    source: usize,
    /// Bytes of it read so far (whole blocks absorbed, except the tail).
    read: u64,
    fresh: bool,
}

/// A message that left the window in a round, to be finished from that
/// round's states.
struct Leaving {
    source: usize,
    slot: usize,
    absorbed: u64,
    tail: Vec<u8>,
    /// Whether the GPU absorbed anything of it (else its state is MD5's
    /// initial value).
    on_gpu: bool,
}

/// One side of the double buffer: the round's bytes and its plan.
struct Side {
    data: PinnedBuffer,
    starts: PinnedBuffer,
    blocks: PinnedBuffer,
    fresh: PinnedBuffer,
    states: PinnedBuffer,
    dev_data: DeviceBuffer,
    dev_starts: DeviceBuffer,
    dev_blocks: DeviceBuffer,
    dev_fresh: DeviceBuffer,
    copied: Event,
    hashed: Event,
    leaving: Vec<Leaving>,
    /// Bytes of `data` this round copies: up to the last slot with blocks.
    used: usize,
    busy: bool,
}

impl Side {
    fn new(ctx: &Context, window: usize, bytes: usize) -> Result<Side, GpuError> {
        Ok(Side {
            data: PinnedBuffer::new(ctx, bytes + 16)?,
            starts: PinnedBuffer::new(ctx, window * 8)?,
            blocks: PinnedBuffer::new(ctx, window * 8)?,
            fresh: PinnedBuffer::new(ctx, window)?,
            states: PinnedBuffer::new(ctx, window * 16)?,
            dev_data: DeviceBuffer::new(ctx, bytes + 16)?,
            dev_starts: DeviceBuffer::new(ctx, window * 8)?,
            dev_blocks: DeviceBuffer::new(ctx, window * 8)?,
            dev_fresh: DeviceBuffer::new(ctx, window)?,
            copied: Event::new(ctx)?,
            hashed: Event::new(ctx)?,
            leaving: Vec::new(),
            used: 0,
            busy: false,
        })
    }
}

impl Context {
    /// MD5 of every source, on the GPU; a source that cannot be read gets
    /// its error and the others are still hashed.
    pub fn md5_streams<S: Source>(
        &self,
        sources: &[S],
        options: StreamOptions,
    ) -> Result<Vec<io::Result<[u8; 16]>>, GpuError> {
        let mut out: Vec<Option<io::Result<[u8; 16]>>> = (0..sources.len()).map(|_| None).collect();
        // Messages shorter than a block never reach the GPU.
        let mut queue = Vec::new();
        for (i, s) in sources.iter().enumerate() {
            if s.size() < 64 {
                out[i] = Some(read_whole(s).map(|t| crate::md5(&t)));
            } else {
                queue.push(i);
            }
        }
        // Longest first: a long message is a chain no thread can share, so
        // it should start early, not hold the last rounds alone.
        queue.sort_by_key(|&i| std::cmp::Reverse(sources[i].size()));
        let (long, rest) = split_long(sources, &queue, options);
        // The buffers need not exceed a quarter of the bytes left.
        let rest_bytes: u64 = rest.iter().map(|&i| sources[i].size()).sum();
        let options = StreamOptions {
            round_bytes: options.round_bytes.min(
                (rest_bytes / 4).max(64 * options.window.min(rest.len().max(1)) as u64) as usize,
            ),
            ..options
        };
        let (on_cpu, on_gpu) = rayon::join(
            || {
                long.par_iter()
                    .map(|&i| (i, hash_on_cpu(&sources[i], crate::md5::reference::INIT, 0)))
                    .collect::<Vec<_>>()
            },
            || -> Result<(), GpuError> {
                if !rest.is_empty() {
                    self.run_window(sources, rest, options, &mut out)?;
                }
                Ok(())
            },
        );
        on_gpu?;
        for (i, r) in on_cpu {
            out[i] = Some(r);
        }
        Ok(out
            .into_iter()
            .map(|r| r.expect("every source gets a result"))
            .collect())
    }

    fn run_window<S: Source>(
        &self,
        sources: &[S],
        queue: &[usize],
        options: StreamOptions,
        out: &mut [Option<io::Result<[u8; 16]>>],
    ) -> Result<(), GpuError> {
        let window = options.window.clamp(1, queue.len());
        let slice = ((options.round_bytes / window) & !63).clamp(64, 64 << 20);
        let bytes = slice * window;
        let mut sides = [
            Side::new(self, window, bytes)?,
            Side::new(self, window, bytes)?,
        ];
        let dev_states = DeviceBuffer::new(self, window * 16)?;
        let copy = Stream::new(self)?;
        let hash = Stream::new(self)?;
        let mut slots: Vec<Option<Active>> = (0..window).map(|_| None).collect();
        let mut next = 0;
        let mut turn = 0usize;
        loop {
            for a in slots.iter_mut().filter(|a| a.is_none()) {
                if next < queue.len() {
                    *a = Some(Active {
                        source: queue[next],
                        read: 0,
                        fresh: true,
                    });
                    next += 1;
                }
            }
            let active = slots.iter().filter(|a| a.is_some()).count();
            if active == 0 {
                break;
            }
            if next == queue.len() && active < options.cpu_below {
                for side in &mut sides {
                    finish_side(self, side, out)?;
                }
                let last = &sides[(turn + 1) % 2];
                finish_on_cpu(sources, &mut slots, last.states.as_slice(), out);
                break;
            }
            let side = &mut sides[turn % 2];
            finish_side(self, side, out)?;
            plan_and_read(sources, &mut slots, side, slice, out);
            send(self, side, &copy, &hash, &dev_states, window)?;
            turn += 1;
        }
        for side in &mut sides {
            finish_side(self, side, out)?;
        }
        Ok(())
    }
}

/// Hashes the rest of every message still in a slot on the CPU threads,
/// from its state in `states` (the last round's).
fn finish_on_cpu<S: Source>(
    sources: &[S],
    slots: &mut [Option<Active>],
    states: &[u8],
    out: &mut [Option<io::Result<[u8; 16]>>],
) {
    let results: Vec<(usize, io::Result<[u8; 16]>)> = slots
        .par_iter_mut()
        .enumerate()
        .filter_map(|(slot, a)| a.take().map(|a| (slot, a)))
        .map(|(slot, a)| {
            let state = if a.fresh {
                crate::md5::reference::INIT
            } else {
                state_at(states, slot)
            };
            (a.source, hash_on_cpu(&sources[a.source], state, a.read))
        })
        .collect();
    for (source, r) in results {
        out[source] = Some(r);
    }
}

/// The rest of `s` from byte `at` (a multiple of 64), whose first `at`
/// bytes left chaining value `state`, on this thread; then `done`.
fn hash_on_cpu<S: Source>(s: &S, mut state: [u32; 4], mut at: u64) -> io::Result<[u8; 16]> {
    let compress = crate::md5::Md5Backend::active()
        .compress_fn()
        .unwrap_or(crate::md5::portable::compress);
    let mut buf = vec![0u8; 1 << 20];
    let result = loop {
        let n = (s.size() - at).min(buf.len() as u64) as usize;
        if let Err(e) = s.read_at(at, &mut buf[..n]) {
            break Err(e);
        }
        let last = at + n as u64 == s.size();
        let whole = if last { n / 64 * 64 } else { n };
        let (blocks, _) = buf[..whole].as_chunks::<64>();
        compress(&mut state, blocks);
        at += n as u64;
        if last {
            break Ok(finish(state, at - (n - whole) as u64, &buf[whole..n]));
        }
    };
    s.done();
    result
}

/// The messages (from the front of `queue`, longest first) that CPU
/// threads hash from the start, and the rest, for the GPU. A message far
/// longer than the window's share of the work would keep one GPU thread
/// busy long after the others (one GPU thread hashes some 128 MB/s, a CPU
/// core 700); at most half the threads take such messages, the others
/// read the GPU's slices; none where the GPU would have too few left.
fn split_long<'q, S: Source>(
    sources: &[S],
    queue: &'q [usize],
    options: StreamOptions,
) -> (Vec<usize>, &'q [usize]) {
    let total: u64 = queue.iter().map(|&i| sources[i].size()).sum();
    let share = total / options.window.clamp(1, queue.len().max(1)) as u64;
    let long = queue
        .iter()
        .position(|&i| sources[i].size() <= LONG_SHARES * share.max(1))
        .unwrap_or(queue.len())
        .min(rayon::current_num_threads() / 2);
    if queue.len() - long < options.cpu_below {
        return (Vec::new(), queue);
    }
    (queue[..long].to_vec(), &queue[long..])
}

/// A short source, whole.
fn read_whole<S: Source>(s: &S) -> io::Result<Vec<u8>> {
    let mut t = vec![0u8; s.size() as usize];
    let r = s.read_at(0, &mut t);
    s.done();
    r.map(|()| t)
}

/// Waits for the side's last round and finishes the messages that left in
/// it.
fn finish_side(
    ctx: &Context,
    side: &mut Side,
    out: &mut [Option<io::Result<[u8; 16]>>],
) -> Result<(), GpuError> {
    if !side.busy {
        return Ok(());
    }
    ctx.bind()?;
    side.hashed.synchronize()?;
    side.busy = false;
    let states = side.states.as_slice();
    for l in side.leaving.drain(..) {
        let state = if l.on_gpu {
            state_at(states, l.slot)
        } else {
            crate::md5::reference::INIT
        };
        out[l.source] = Some(Ok(finish(state, l.absorbed, &l.tail)));
    }
    Ok(())
}

/// Reads every active slot's next slice into the side and writes the
/// kernel's plan (starts, blocks, fresh); messages whose end was read
/// leave their slot.
fn plan_and_read<S: Source>(
    sources: &[S],
    slots: &mut [Option<Active>],
    side: &mut Side,
    slice: usize,
    out: &mut [Option<io::Result<[u8; 16]>>],
) {
    let data = &mut side.data.as_mut_slice()[..slice * slots.len()];
    // Read in parallel: one slice of the buffer per slot.
    let results: Vec<io::Result<usize>> = data
        .par_chunks_mut(slice)
        .zip(slots.par_iter())
        .map(|(buf, a)| {
            let Some(a) = a else { return Ok(0) };
            let s = &sources[a.source];
            let n = (s.size() - a.read).min(slice as u64) as usize;
            s.read_at(a.read, &mut buf[..n]).map(|()| n)
        })
        .collect();
    let starts = side.starts.as_mut_slice();
    let blocks = side.blocks.as_mut_slice();
    let fresh = side.fresh.as_mut_slice();
    side.used = 0;
    for (slot, (a, r)) in slots.iter_mut().zip(results).enumerate() {
        let start = (slot * slice) as u64;
        starts[slot * 8..slot * 8 + 8].copy_from_slice(&start.to_le_bytes());
        let mut nblocks = 0u64;
        let mut is_fresh = false;
        if let Some(act) = a {
            let s = &sources[act.source];
            match r {
                Err(e) => {
                    s.done();
                    out[act.source] = Some(Err(e));
                    *a = None;
                }
                Ok(n) => {
                    let last = act.read + n as u64 == s.size();
                    let whole = if last { n / 64 * 64 } else { n };
                    nblocks = (whole / 64) as u64;
                    is_fresh = act.fresh && nblocks > 0;
                    let on_gpu = !act.fresh || nblocks > 0;
                    if nblocks > 0 {
                        act.fresh = false;
                    }
                    act.read += n as u64;
                    if last {
                        s.done();
                        let buf = &side.data.as_slice()[slot * slice..slot * slice + n];
                        side.leaving.push(Leaving {
                            source: act.source,
                            slot,
                            absorbed: act.read - (n - whole) as u64,
                            tail: buf[whole..].to_vec(),
                            on_gpu,
                        });
                        *a = None;
                    }
                }
            }
        }
        blocks[slot * 8..slot * 8 + 8].copy_from_slice(&nblocks.to_le_bytes());
        if nblocks > 0 {
            side.used = slot * slice + nblocks as usize * 64;
        }
        fresh[slot] = u8::from(is_fresh);
    }
}

/// Queues the side's copy and its kernel.
fn send(
    ctx: &Context,
    side: &mut Side,
    copy: &Stream,
    hash: &Stream,
    dev_states: &DeviceBuffer,
    window: usize,
) -> Result<(), GpuError> {
    ctx.bind()?;
    let bytes = side.used;
    // SAFETY: the side's pinned buffers stay untouched until `finish_side`
    // has waited for `hashed`, which follows the copies in stream order
    // (`hash` waits for `copied`); the device buffers are the side's own,
    // and the previous kernel that read them finished before `finish_side`
    // let this side be reused.
    unsafe {
        copy.copy_in(
            side.dev_starts.ptr(),
            side.starts.as_slice().as_ptr(),
            window * 8,
        )?;
        copy.copy_in(
            side.dev_blocks.ptr(),
            side.blocks.as_slice().as_ptr(),
            window * 8,
        )?;
        copy.copy_in(side.dev_fresh.ptr(), side.fresh.as_slice().as_ptr(), window)?;
        copy.copy_in(side.dev_data.ptr(), side.data.as_slice().as_ptr(), bytes)?;
    }
    side.copied.record(copy)?;
    hash.wait(&side.copied)?;
    let update = Update {
        data: side.dev_data.ptr(),
        starts: side.dev_starts.ptr(),
        stride: 64,
        blocks: side.dev_blocks.ptr(),
        fresh: side.dev_fresh.ptr(),
        n: window as u64,
        states: dev_states.ptr(),
    };
    // SAFETY: every slot's start + blocks * 64 lies in its slice of
    // `dev_data`; `states` holds 16 bytes per slot.
    unsafe { update.launch(ctx, hash) }?;
    // SAFETY: the pinned states are read after `hashed` completes.
    unsafe {
        hash.copy_out(
            side.states.as_mut_slice().as_mut_ptr(),
            update.states,
            window * 16,
        )
    }?;
    side.hashed.record(hash)?;
    side.busy = true;
    Ok(())
}
