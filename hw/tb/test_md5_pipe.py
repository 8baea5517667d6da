"""cocotb tests for hw/rtl/md5_pipe.v, the 64-stage MD5 compression pipeline.

Every result is checked against hashlib (padding done here) or, for
random chaining values, against md5model.compress.  Exact latency: a block
accepted on an edge comes out 65 enabled clocks later (65 clocks when the
output is never stalled); blocks accepted on consecutive clocks come out on
consecutive clocks (1 block per clock).  Multi-block messages run as
independent streams, each stream's next block fed in the clock its previous
result is on the output, so one stream runs at 1 block per 65 clocks and 65
streams fill the pipe."""
import hashlib
import random
import struct

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly

import md5model

LATENCY = 65


def blocks_of(msg):
    """The padded message as a list of 16-word blocks."""
    p = md5model.pad(msg)
    return [list(struct.unpack("<16I", p[o:o + 64])) for o in range(0, len(p), 64)]


def digest(cv):
    return struct.pack("<4I", *cv)


async def reset(dut):
    cocotb.start_soon(Clock(dut.clk, 10, units="ns").start())
    dut.rst.value = 1
    dut.in_valid.value = 0
    dut.in_cv.value = 0
    dut.in_blk.value = 0
    dut.in_tag.value = 0
    dut.out_ready.value = 1
    for _ in range(3):
        await FallingEdge(dut.clk)
    dut.rst.value = 0


class Pipe:
    """Cycle driver.  Each clock, at the falling edge: read the (registered)
    outputs, choose out_ready, hand a taken result to `on_result` (which may
    make a stream's next block available in this same clock), choose the
    input (a block once offered is held until accepted), then check in_ready
    after the combinational settle.  Handshakes happen at the next rising
    edge.  `adv` counts enabled edges; every block must appear on out_valid
    exactly LATENCY enabled edges after the edge that accepted it."""

    def __init__(self, dut, tag_w):
        self.dut = dut
        self.tag_mask = (1 << tag_w) - 1
        self.cycle = 0
        self.adv = 0
        self.inflight = []      # [accept_adv, accept_cycle, tag, expected_cv or None, key, seen]
        self.accept_cycles = []
        self.out_cycles = []
        self.held = None        # (cv, tag) shown while out_ready was low
        self.offer = None

    async def run(self, next_block, on_result, done, p_gap=0.0, p_stall=0.0, limit=100000):
        dut = self.dut
        while not done():
            await FallingEdge(dut.clk)
            self.cycle += 1
            assert self.cycle < limit, f"timeout at cycle {self.cycle}"
            ov = dut.out_valid.value == 1
            # ---- output side: exact latency, order, stability under stall
            if ov:
                assert self.inflight, "out_valid with nothing in flight"
                head = self.inflight[0]
                assert self.adv == head[0] + LATENCY, \
                    f"block {head[4]} visible after {self.adv - head[0]} enabled edges, want {LATENCY}"
                cv = md5model.unpack_cv(int(dut.out_cv.value))
                tag = int(dut.out_tag.value)
                if self.held is not None:
                    assert (cv, tag) == self.held, "output changed while stalled"
            else:
                assert self.held is None, "out_valid dropped while stalled"
                assert not self.inflight or self.adv < self.inflight[0][0] + LATENCY, \
                    f"block {self.inflight[0][4]} missing after {LATENCY} enabled edges"
            ordy = random.random() >= p_stall
            dut.out_ready.value = int(ordy)
            if ov and ordy:
                head = self.inflight.pop(0)
                assert tag == head[2], f"block {head[4]}: tag {tag:#x}, want {head[2]:#x}"
                if head[3] is not None:
                    assert cv == head[3], f"block {head[4]}: got {cv}, want {head[3]}"
                self.out_cycles.append(self.cycle)
                on_result(head[4], cv)
                self.held = None
            elif ov:
                self.held = (cv, tag)
            # ---- input side
            if self.offer is None and random.random() >= p_gap:
                self.offer = next_block()
            if self.offer is not None:
                cv_in, words, tag, expect, key = self.offer
                dut.in_valid.value = 1
                dut.in_cv.value = md5model.pack_cv(cv_in)
                dut.in_blk.value = md5model.pack_words(words)
                dut.in_tag.value = tag & self.tag_mask
            else:  # garbage on the data lines of a bubble
                dut.in_valid.value = 0
                dut.in_cv.value = random.getrandbits(128)
                dut.in_blk.value = random.getrandbits(512)
                dut.in_tag.value = random.getrandbits(16) & self.tag_mask
            await ReadOnly()
            en = (not ov) or ordy
            assert (dut.in_ready.value == 1) == en, f"in_ready {dut.in_ready.value}, want {int(en)}"
            if self.offer is not None and en:
                cv_in, words, tag, expect, key = self.offer
                self.inflight.append([self.adv, self.cycle, tag & self.tag_mask, expect, key, False])
                self.accept_cycles.append(self.cycle)
                self.offer = None
            if en:
                self.adv += 1


@cocotb.test()
async def test_latency_single(dut):
    """Single one-block messages into an empty pipe: out_valid rises exactly
    65 clocks after the block is presented, for one clock, with the hashlib
    digest and the tag."""
    await reset(dut)
    tag_mask = (1 << len(dut.in_tag)) - 1
    for n in [0, 1, 55] + [random.randrange(56) for _ in range(3)]:
        msg = random.randbytes(n)
        (words,) = blocks_of(msg)
        tag = random.getrandbits(len(dut.in_tag))
        dut.in_cv.value = md5model.pack_cv(md5model.IV)
        dut.in_blk.value = md5model.pack_words(words)
        dut.in_tag.value = tag
        dut.in_valid.value = 1
        await ReadOnly()
        assert dut.in_ready.value == 1
        await FallingEdge(dut.clk)      # accepted at the rising edge just passed
        dut.in_valid.value = 0
        dut.in_blk.value = random.getrandbits(512)
        seen = None
        for k in range(1, LATENCY + 5):
            if dut.out_valid.value == 1:
                assert seen is None, "out_valid longer than one clock"
                seen = k
                assert digest(md5model.unpack_cv(int(dut.out_cv.value))) == hashlib.md5(msg).digest(), n
                assert int(dut.out_tag.value) == tag & tag_mask
            await FallingEdge(dut.clk)
        # presented in clock 0, visible in clock `seen`
        assert seen == LATENCY, f"latency {seen}, want {LATENCY}"
        for _ in range(random.randrange(3)):
            await FallingEdge(dut.clk)


@cocotb.test()
async def test_blocks_back_to_back_and_bubbles(dut):
    """Random one-block messages and random (cv, block) jobs: first 150 with
    a block every clock (accepted on 150 consecutive clocks, out on 150
    consecutive clocks, 65 clocks later), then 150 with random input bubbles
    and out_ready back-pressure.  hashlib / model checked, in order, tags."""
    await reset(dut)
    tag_w = len(dut.in_tag)

    def make_jobs(count, base):
        jobs = []
        for k in range(count):
            tag = random.getrandbits(tag_w)
            if random.random() < 0.7:
                msg = random.randbytes(random.randrange(56))
                (words,) = blocks_of(msg)
                jobs.append((md5model.IV, words, tag, None, ("msg", base + k, msg)))
            else:
                cv = tuple(random.getrandbits(32) for _ in range(4))
                words = [random.getrandbits(32) for _ in range(16)]
                jobs.append((cv, words, tag, md5model.compress(cv, words), ("job", base + k, None)))
        return jobs

    checked = []

    def on_result(key, cv):
        kind, idx, msg = key
        if kind == "msg":
            assert digest(cv) == hashlib.md5(msg).digest(), f"message {idx} ({len(msg)} bytes)"
        checked.append(idx)

    pipe = Pipe(dut, tag_w)
    for phase, (count, p_gap, p_stall) in enumerate([(150, 0.0, 0.0), (150, 0.3, 0.25)]):
        jobs = make_jobs(count, 1000 * phase)
        it = iter(jobs)
        n_acc, n_out = len(pipe.accept_cycles), len(pipe.out_cycles)
        await pipe.run(lambda: next(it, None), on_result,
                       lambda: len(pipe.out_cycles) == n_out + count and not pipe.inflight,
                       p_gap=p_gap, p_stall=p_stall)
        acc = pipe.accept_cycles[n_acc:]
        out = pipe.out_cycles[n_out:]
        assert len(acc) == len(out) == count
        if p_gap == 0 and p_stall == 0:
            assert acc == list(range(acc[0], acc[0] + count)), "not one block per clock in"
            assert out == [a + LATENCY for a in acc], "not one block per clock out / latency"
            dut._log.info(f"back to back: {count} blocks accepted in {acc[-1] - acc[0] + 1} clocks, "
                          f"first result {out[0] - acc[0]} clocks after its block, "
                          f"{count} results in {out[-1] - out[0] + 1} clocks")
        else:
            dut._log.info(f"bubbles/stalls: {count} blocks in {out[-1] - acc[0] + 1} clocks")
    assert sorted(checked) == sorted(list(range(150)) + list(range(1000, 1150)))


async def run_streams(dut, msgs, p_gap, p_stall, pick_random):
    """Hash msgs as independent streams through the pipe: tag = stream id
    (low 8 bits) and block number; a stream's next block becomes available
    in the clock its previous result is on the output.  Returns the Pipe."""
    tag_w = len(dut.in_tag)
    assert tag_w >= 12 or len(msgs) <= (1 << tag_w)
    blocks = [blocks_of(m) for m in msgs]
    pos = [0] * len(msgs)            # next block index
    cvs = [md5model.IV] * len(msgs)
    ready = list(range(len(msgs)))   # streams whose next block can go in
    finished = []
    stream_accepts = {s: [] for s in range(len(msgs))}

    def next_block():
        if not ready:
            return None
        s = ready.pop(random.randrange(len(ready)) if pick_random else 0)
        b = pos[s]
        tag = s | (b << 8) if tag_w >= 12 else s
        stream_accepts[s].append(pipe.cycle)  # offered now; accepted now if no stall
        return (cvs[s], blocks[s][b], tag, md5model.compress(cvs[s], blocks[s][b]), (s, b))

    def on_result(key, cv):
        s, b = key
        assert b == pos[s]
        cvs[s] = cv
        pos[s] += 1
        if pos[s] == len(blocks[s]):
            assert digest(cv) == hashlib.md5(msgs[s]).digest(), f"stream {s} ({len(msgs[s])} bytes)"
            finished.append(s)
        else:
            ready.append(s)

    pipe = Pipe(dut, tag_w)
    await pipe.run(next_block, on_result, lambda: len(finished) == len(msgs),
                   p_gap=p_gap, p_stall=p_stall)
    assert sorted(finished) == list(range(len(msgs)))
    pipe.stream_accepts = stream_accepts
    return pipe


@cocotb.test()
async def test_streams_fill_the_pipe(dut):
    """65 independent 4-block messages, no bubbles, no stalls: all 260
    blocks go in on 260 consecutive clocks (1 block per clock), while each
    stream gets exactly one block per 65 clocks (its next block waits for
    its previous result: the iterative rate).  Digests against hashlib."""
    await reset(dut)
    nstreams, nblk = LATENCY, 4
    msgs = [random.randbytes(random.randrange(184, 248)) for _ in range(nstreams)]
    assert all(len(blocks_of(m)) == nblk for m in msgs)
    pipe = await run_streams(dut, msgs, 0.0, 0.0, pick_random=False)
    acc = pipe.accept_cycles
    total = nstreams * nblk
    assert acc == list(range(acc[0], acc[0] + total)), "a bubble with 65 streams in flight"
    for s, cyc in pipe.stream_accepts.items():
        assert [b - a for a, b in zip(cyc, cyc[1:])] == [LATENCY] * (nblk - 1), (s, cyc)
    span = pipe.out_cycles[-1] - acc[0] + 1
    assert span == total + LATENCY
    dut._log.info(f"{nstreams} streams x {nblk} blocks: {total} blocks accepted on {total} consecutive "
                  f"clocks (1.000 block/clock), {span} clocks first-in to last-out; "
                  f"per stream 1 block / {LATENCY} clocks")


@cocotb.test()
async def test_streams_random(dut):
    """80 independent random-length messages (0..1000 bytes, 1..16 blocks)
    interleaved in random order, with input bubbles and output back-pressure.
    Digests against hashlib."""
    await reset(dut)
    msgs = [random.randbytes(random.choice([0, 55, 56, 64, 119, 120] + [random.randrange(1001)] * 6))
            for _ in range(80)]
    pipe = await run_streams(dut, msgs, 0.15, 0.15, pick_random=True)
    nblocks = sum(len(blocks_of(m)) for m in msgs)
    span = pipe.out_cycles[-1] - pipe.accept_cycles[0] + 1
    dut._log.info(f"80 streams, {nblocks} blocks, 15% bubbles, 15% stalls: {span} clocks, "
                  f"{nblocks / span:.3f} blocks/clock")
