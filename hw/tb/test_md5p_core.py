"""cocotb tests for hw/rtl/md5p_core.v (MD5-P/K, as defined in docs/md5p.md).

Every digest is compared with the spec's Python reference (hashlib MD5 for the
chains and the final step, as the spec's definition is plain MD5 throughout):
the spec's test vectors verbatim, the MD5-P/K boundary lengths, several
stripes, back-to-back messages, random tvalid gaps and m_ready back-pressure,
and the exact input-port timing of the data phase.
K is the DUT's parameter (-Pmd5p_core.K=...)."""
import hashlib
import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge


def md5p(data: bytes, k: int) -> bytes:
    """The spec's normative reference, verbatim."""
    chains = [hashlib.md5() for _ in range(k)]
    for i in range(0, len(data), 64):
        chains[(i // 64) % k].update(data[i:i + 64])
    return hashlib.md5(b"".join(c.digest() for c in chains)).digest()


B256 = bytes(range(256)) * 4
# The spec's table: (K, message, MD5-P/K).
SPEC_VECTORS = [
    (4, b"", "90b83c0fe892d7b4c2bdc38deba7a3cb"),
    (4, b"abc", "148ae4e6d92bdddaaf1c1d44cb112e53"),
    (4, b"a" * 64, "1cd4d19f391f872372be9de3997e1a22"),
    (4, b"a" * 65, "eacb3022f9e16b685f32d9821ab3c2ac"),
    (4, B256, "fe64925ed82fdfa9a546a34522ea3a5c"),
    (4, b"a" * 1000000, "b5f77859e9903739d22a551c22180815"),
    (8, b"", "e7dd4330655dc61ec7f53e526532adfa"),
    (8, b"abc", "900092a79d6aa7b87fbc1193b9ae7be5"),
    (8, b"a" * 64, "519f4809b525160700055883a146e6f3"),
    (8, b"a" * 65, "53eb84bc44b4b4eef9fd3eda65e6d1b5"),
    (8, B256, "3c6d322a68f4d28869efc1e09b5be13e"),
    (8, b"a" * 1000000, "46b7d6e5cd24d98217d03d18b015df35"),
    (16, b"", "6452dea751220e2d7b7af19575fe8d81"),
    (16, b"abc", "8a814c93bae856e7e8001a63e313ee31"),
    (16, b"a" * 64, "fd29efb584dec3dfb282a26e6b297475"),
    (16, b"a" * 65, "bd6a8831350dcb1f465ef63b450203f3"),
    (16, B256, "33094636830764a6d2b4f7bfba70b1ba"),
    (16, b"a" * 1000000, "34423f521d3731eb91d73798eb44c5df"),
]
BIG = 1000000  # the spec's long vector
# "a" * 1000000 takes about 2 minutes per K under Icarus + cocotb; hw/tests.d/md5p.sh
# checks it (with all the other vectors, K = 4, 8, 16) in a Verilator simulation
# instead.  MD5P_LONG=1 runs it here as well.
LONG = os.environ.get("MD5P_LONG", "0") == "1"


def kval(dut):
    return int(dut.K.value)


def edges(k):
    """Lengths at every boundary that matters for MD5-P/K."""
    s = 64 * k
    base = [0, 1, 2, 3, 4, 5, 55, 56, 57, 59, 60, 63, 64, 65, 119, 120, 127, 128,
            s - 64, s - 9, s - 8, s - 1, s, s + 1, s + 56, s + 64,
            2 * s + 1, 3 * s + 60]
    return sorted(set(base))


def beats(msg):
    """AXI4-Stream beats (data, keep, last) for one message; random data in
    the bytes outside tkeep.  A message that is a multiple of 4 bytes long
    sometimes ends with an extra empty tlast beat (tkeep = 0000)."""
    out = []
    n = len(msg)
    if n == 0:
        return [(0, 0, 1)]
    empty_last = n % 4 == 0 and random.random() < 0.3
    for off in range(0, n, 4):
        chunk = msg[off:off + 4]
        last = off + 4 >= n and not empty_last
        data = int.from_bytes(chunk.ljust(4, b"\0"), "little")
        data |= random.getrandbits(32) & ~((1 << (8 * len(chunk))) - 1) & 0xFFFFFFFF
        out.append((data, (1 << len(chunk)) - 1, int(last)))
    if empty_last:
        out.append((random.getrandbits(32), 0, 1))
    return out


async def reset(dut):
    cocotb.start_soon(Clock(dut.clk, 10, units="ns").start())
    dut.rst.value = 1
    dut.s_tvalid.value = 0
    dut.s_tdata.value = 0
    dut.s_tkeep.value = 0
    dut.s_tlast.value = 0
    dut.m_ready.value = 0
    for _ in range(3):
        await FallingEdge(dut.clk)
    dut.rst.value = 0


async def run_messages(dut, msgs, p_valid=1.0, p_ready=1.0, plain=False):
    """Drive msgs back to back (inputs change on falling edges, handshakes on
    rising edges), check every digest against md5p().  Returns
    (cycles, accept) where accept[i] lists the cycle numbers at which message
    i's beats were taken.  plain=True: no empty tlast beats."""
    k = kval(dut)
    if plain:
        streams = [[(int.from_bytes(m[o:o + 4].ljust(4, b"\0"), "little"), (1 << len(m[o:o + 4])) - 1,
                     int(o + 4 >= len(m))) for o in range(0, len(m), 4)] or [(0, 0, 1)] for m in msgs]
    else:
        streams = [beats(m) for m in msgs]
    stream = [(b, i) for i, s in enumerate(streams) for b in s]
    blocks = sum(len(m) // 64 + 1 for m in msgs)
    limit = (17 * blocks + (k // 4 + 3) * 70 * len(msgs)) / max(p_valid, 0.05) / max(p_ready, 0.05) + 200
    accept = [[] for _ in msgs]
    idx, holding = 0, False
    digests = []
    held = None
    cycle = 0
    while len(digests) < len(msgs):
        await FallingEdge(dut.clk)
        cycle += 1
        assert cycle < limit, f"timeout after {cycle} cycles, {len(digests)}/{len(msgs)} digests"
        tready = dut.s_tready.value == 1
        if not holding:
            if idx < len(stream) and random.random() < p_valid:
                (data, keep, last), _ = stream[idx]
                dut.s_tdata.value = data
                dut.s_tkeep.value = keep
                dut.s_tlast.value = last
                dut.s_tvalid.value = 1
                holding = True
            else:
                dut.s_tvalid.value = 0
                if random.random() < 0.5:
                    dut.s_tdata.value = random.getrandbits(32)
                    dut.s_tlast.value = random.getrandbits(1)
        if holding and tready:  # taken at the next rising edge
            accept[stream[idx][1]].append(cycle)
            idx += 1
            holding = False
        mvalid = dut.m_valid.value == 1
        if mvalid:
            d = int(dut.m_digest.value)
            if held is not None:
                assert d == held, "m_digest changed while stalled"
        r = random.random() < p_ready
        dut.m_ready.value = int(r)
        if mvalid and r:
            digests.append(d.to_bytes(16, "little"))
            held = None
        elif mvalid:
            held = d
    # Drop tvalid so a following call starts clean (m_ready stays: the last
    # digest's handshake happens at the coming rising edge).
    dut.s_tvalid.value = 0
    for i, (m, d) in enumerate(zip(msgs, digests)):
        want = md5p(m, k)
        assert d == want, f"message {i} (len {len(m)}, K={k}): got {d.hex()} want {want.hex()}"
    return cycle, accept


@cocotb.test()
async def test_reference_vectors(dut):
    """The reference md5p() reproduces every vector of the spec's table (all
    K), and agrees with a direct restatement of the definition's steps 1-4."""
    for k, msg, want in SPEC_VECTORS:
        assert md5p(msg, k).hex() == want, (k, len(msg))
    # Independent restatement of the definition (steps 1-4), random messages.
    for _ in range(20):
        k = random.choice([4, 8, 16])
        m = random.randbytes(random.randrange(20 * 64 * k // 4))
        blocks = [m[i:i + 64] for i in range(0, len(m), 64)]
        subs = [b"".join(blocks[j::k]) for j in range(k)]
        ref = hashlib.md5(b"".join(hashlib.md5(s).digest() for s in subs)).digest()
        assert md5p(m, k) == ref


@cocotb.test()
async def test_spec_vectors(dut):
    """The spec's vectors for this K, verbatim, through the DUT at full rate
    ("a" * 1000000 only with MD5P_LONG=1; see LONG)."""
    await reset(dut)
    k = kval(dut)
    vecs = [(m, w) for kk, m, w in SPEC_VECTORS if kk == k]
    assert len(vecs) == 6
    small = [m for m, _ in vecs if len(m) < BIG]
    await run_messages(dut, small, plain=True)
    if LONG:  # the long one alone, with no idle input cycles
        big = [m for m, _ in vecs if len(m) == BIG]
        cycles, _ = await run_messages(dut, big, plain=True)
        dut._log.info("K=%d: 'a'*1000000 in %d cycles (%.2f cycles/block)", k, cycles, cycles / (BIG / 64))
    # The table's digests are what run_messages compared against (md5p()
    # reproduces them, see test_reference_vectors); restate for the record.
    for m, w in vecs:
        assert md5p(m, k).hex() == w


@cocotb.test()
async def test_boundaries_back_to_back(dut):
    """Every boundary length (0, 1, 55, 56, 63, 64, K*64-1, K*64, K*64+1,
    several stripes, ...) in random order, back to back at full rate."""
    await reset(dut)
    k = kval(dut)
    msgs = [random.randbytes(n) for n in edges(k)]
    random.shuffle(msgs)
    cycles, _ = await run_messages(dut, msgs)
    dut._log.info("K=%d: %d boundary messages back to back in %d cycles", k, len(msgs), cycles)


@cocotb.test()
async def test_random_stalls(dut):
    """Random lengths (boundaries and up to 2 stripes), random tvalid gaps and
    m_ready back-pressure."""
    await reset(dut)
    k = kval(dut)
    for p_valid, p_ready in [(0.5, 0.5), (0.9, 0.05), (0.2, 0.9), (1.0, 0.3)]:
        msgs = [random.randbytes(random.choice(edges(k) + [random.randrange(2 * 64 * k + 64)]))
                for _ in range(5)]
        await run_messages(dut, msgs, p_valid, p_ready)


def predicted_accepts(nbeats, k, t0):
    """Cycles at which the beats of one message are taken, with input on every
    clock, when the lanes are idle at the start and the first beat is taken at
    cycle t0.  Block i is handed to its lane at D_i = max(D_{i-1} + 16,
    D_{i-K} + 65) (a lane takes a block 65 clocks after its previous one; the
    buffer refills from the hand-off clock on)."""
    out = []
    disp = []
    t = t0
    for i in range(0, nbeats, 16):
        n = min(16, nbeats - i)
        blk = len(disp)
        start = t
        out.extend(range(start, start + n))
        if n < 16:
            break
        full_at = start + 15  # word 15 written at the edge ending this cycle
        d = full_at + 1
        if blk >= k:
            d = max(d, disp[blk - k] + 65)
        disp.append(d)
        t = d  # the next block's word 0 is taken in the hand-off cycle
    return out


@cocotb.test()
async def test_data_rate_exact(dut):
    """One long message (6 stripes + 40 bytes), input on every clock: every
    beat is taken exactly when the dispatch model says.  K = 4: 4 blocks per
    65 cycles; K >= 8: one block per 16 cycles (s_tready never drops)."""
    await reset(dut)
    k = kval(dut)
    msg = random.randbytes(6 * 64 * k + 40)
    _, accept = await run_messages(dut, [msg], plain=True)
    got = accept[0]
    want = predicted_accepts(len(got), k, got[0])
    assert got == want, f"first mismatch at beat {next(i for i, (a, b) in enumerate(zip(got, want)) if a != b)}"
    nblocks = len(msg) // 64
    span = got[16 * nblocks] - got[0]  # first beat of block 0 .. first beat after the full blocks
    if k == 4:  # after the first 4 blocks, one stall cycle per 4 blocks
        assert span == 16 * nblocks + (nblocks - 4) // 4, span
    if k >= 8:
        assert span == 16 * nblocks, span
    dut._log.info("K=%d: %d full blocks taken in %d cycles (%.3f cycles/block)", k, nblocks, span, span / nblocks)
