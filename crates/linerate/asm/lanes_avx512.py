"""Generates the AVX-512 lanes kernel's loop as assembly text: for 32
lanes (two sets of 16), crates/linerate/src/lanes/x86_64_avx512_x32.s, and
for 16 (one set), x86_64_avx512_x16.s, which `x86_64_avx512.rs` hands to
`asm!` (include_str!); and the one-set loop again with prefetches,
x86_64_avx512_x16_prefetch.s, for data that come from memory. The schedule
below is written for two sets; one set is the same with set 1's
instructions left out.

Why a generator: the loop keeps each of the 32 vector registers in a
planned job, and places every instruction where measurement put it; a
compiler does neither. Compiled from intrinsics, the same algorithm kept
the lane pointers and rows on the stack and ran 0.87x isa-l_crypto's
hand-written kernel on an AMD EPYC (docs/performance.md). Writing 1,400
instructions by hand is how bugs get in; the program that writes them
keeps the schedule readable, and `--check` keeps the two in step.

    python3 crates/linerate/asm/lanes_avx512.py          # rewrite the .s
    python3 crates/linerate/asm/lanes_avx512.py --check  # fail if stale

The schedule, per 64-byte block of all 32 lanes:

- the chaining values are saved (8 stores), then the 64 steps run for both
  sets, interleaved instruction by instruction so that each pair of
  independent instructions reaches the scheduler together. A step is
  `a += K[i]; a += M[x]; t = F(b, c, d); a += t; a = rotl(a, s); a += b`:
  the constant broadcast once for both sets, the message word a memory
  operand (the transposed block), F/G/H/I one `vpternlogd` on a copy of
  `b`. (With `b`, the newest value, as the ternlog's destination operand
  the loop measured 1.08x faster than with a copy of `d` there and `b` as
  a source, and 1.10x faster than renaming registers to drop the copy
  altogether, which saves two instructions a step.)
- the next block's rows of set 0 are loaded after round 1 and transposed
  during round 2, a few shuffles after each step, starting two steps in so
  the loads have arrived; set 1's are loaded after round 3 and transposed
  during round 4. Spread out, the shuffles fill the issue slots the step
  chains leave, instead of stalling them as one burst between rounds
  (1.02-1.03x). With one set, its rows are loaded after round 1 only.
  (The loop once loaded and transposed them again after round 3, into the
  same half: dropping the second transposition made 16 lanes in the
  caches 1.12x faster and from memory 1.2x; after round 1 rather than
  after round 3 measured the faster from memory.)
- the prefetching loop also asks, with each row load, for the line
  PREFETCH_BYTES further on in that lane (see there). Only the one-set
  loop has one: see OUTS.
- the transposition (16 rows of 16 dwords to 16 message-word vectors) is
  three passes of 16 shuffles (dword unpacks, qword unpacks, 128-bit lane
  shuffles) and 16 stores into the other half of a double buffer;
- every lane's pointer moves on by its own stride: four 8-lane vector adds.

On the last block the row loads are skipped (they would read past the
lanes' data); the shuffles then transpose stale registers into the unused
half, which costs less than branching around them.

Registers: zmm0-3 set 0's a, b, c, d; zmm4-7 set 1's; zmm8-23 the rows;
zmm24, zmm25 the steps' F; zmm26 the broadcast constant; zmm27-31 the
transposition's spare registers.
"""

import argparse
import pathlib
import sys

LANES = pathlib.Path(__file__).resolve().parent.parent / "src" / "lanes"
# One output per number of register sets (16 lanes: MD5-P/16, batches of up
# to 16; and 32), without prefetches (data in the caches) and, for one set,
# with them (data from memory). The one-set loop waits on its steps'
# latency, and its rows, loaded one block ahead, come too late from memory:
# prefetches made MD5-P/16 of a page-cached file 1.57x as fast on the
# 2-vCPU Xeon VM and 1.17x on a 16-vCPU Xeon (model 207, a noisy host).
# In the two-set loop prefetches gained 1.07-1.10x from memory on the
# first machine but cost 0.67-0.76x (`sum -j1` of 32 files) and
# 0.81-0.91x (`etag` on 16 threads) on the second, at every distance and
# hint tried (docs/performance.md, docs/gpu/host-cpu-ab.log).
OUTS = {
    (1, False): LANES / "x86_64_avx512_x16.s",
    (2, False): LANES / "x86_64_avx512_x32.s",
    (1, True): LANES / "x86_64_avx512_x16_prefetch.s",
}
# How far ahead of its pointer each lane's prefetch reaches, in bytes: 16
# blocks of a lane reading one message, one block of MD5-P/16's (whose
# lanes interleave in one stream). Chosen while both loops prefetched
# (32 x 16 MiB files, `sum -j1`): 512 and 1024 bytes 1.07x as fast as
# none, 2048 1.06x, 4096 0.93x; 8, 16 or 32 of each lane's strides instead
# (further for MD5-P) gained nothing more.
PREFETCH_BYTES = 1024

# Per step: the message word, the rotation; per round, F/G/H/I as a ternlog
# truth table over the operands (b, c, d).
X = (
    list(range(16))
    + [(1 + 5 * i) % 16 for i in range(16)]
    + [(5 + 3 * i) % 16 for i in range(16)]
    + [(7 * i) % 16 for i in range(16)]
)
S = [7, 12, 17, 22] * 4 + [5, 9, 14, 20] * 4 + [4, 11, 16, 23] * 4 + [6, 10, 15, 21] * 4
ROUND_FUNCTIONS = [
    lambda b, c, d: (b & c) | (~b & d),
    lambda b, c, d: (b & d) | (c & ~d),
    lambda b, c, d: b ^ c ^ d,
    lambda b, c, d: c ^ (b | ~d),
]


def truth_table(f):
    """`vpternlogd dest, src1, src2`: bit (dest << 2 | src1 << 1 | src2) of
    the immediate is the result; here dest = b, src1 = c, src2 = d."""
    return sum(((f(i >> 2, (i >> 1) & 1, i & 1) & 1) << i) for i in range(8))


TERNLOG = [truth_table(f) for f in ROUND_FUNCTIONS]
assert TERNLOG == [0xCA, 0xE4, 0x96, 0x39]

ROWS = [f"zmm{8 + i}" for i in range(16)]
SPARE = [f"zmm{27 + i}" for i in range(5)]
SET_BYTES = 1024  # one set's 16 transposed words
SAVED = 4096  # the saved chaining values, after both halves of the buffer
LAG = 2  # steps into a round before its transposition starts


def step(i, regs, sets):
    """Step `i` for each register set; `regs` = (a, b, c, d) as register
    numbers of set 0 (set 1's are 4 more), instruction by instruction
    interleaved across the sets."""
    x, s, imm = X[i] * 64, S[i], TERNLOG[i // 16]
    a, b, c, d = ([f"zmm{r + 4 * k}" for k in range(sets)] for r in regs)
    t = [f"zmm{24 + k}" for k in range(sets)]
    each = [
        lambda k: f"vpaddd {a[k]}, {a[k]}, zmm26",
        lambda k: f"vpaddd {a[k]}, {a[k]}, zmmword ptr [{{cur}} + {k * SET_BYTES + x}]",
        lambda k: f"vmovdqa64 {t[k]}, {b[k]}",
        lambda k: f"vpternlogd {t[k]}, {c[k]}, {d[k]}, {imm:#04x}",
        lambda k: f"vpaddd {a[k]}, {a[k]}, {t[k]}",
        lambda k: f"vprold {a[k]}, {a[k]}, {s}",
        lambda k: f"vpaddd {a[k]}, {a[k]}, {b[k]}",
    ]
    return [f"vpbroadcastd zmm26, dword ptr [{{t}} + {4 * i}]"] + [
        op(k) for op in each for k in range(sets)
    ]


def round_steps(r, sets):
    """The 16 steps of round `r`, each a list of instructions; (a, b, c, d)
    rotate by one register a step."""
    regs, steps = [0, 1, 2, 3], []
    for i in range(16 * r, 16 * r + 16):
        steps.append(step(i, regs, sets))
        regs = [regs[3], regs[0], regs[1], regs[2]]
    return steps


def load_rows(lane0, prefetch):
    """The 64-byte block at each of lanes lane0 .. lane0 + 16's pointers;
    with `prefetch`, also the line PREFETCH_BYTES further on asked for into
    L2 (`prefetcht1`: into L1 measured no better, and it would evict rows
    still to be transposed)."""
    out = []
    for i in range(16):
        gpr = "{row0}" if i % 2 == 0 else "{row1}"
        out += [
            f"mov {gpr}, qword ptr [{{ptrs}} + {8 * (lane0 + i)}]",
            f"vmovdqu64 {ROWS[i]}, zmmword ptr [{gpr}]",
        ]
        if prefetch:
            out.append(f"prefetcht1 byte ptr [{gpr} + {PREFETCH_BYTES}]")
    return out


def transpose(dest, base):
    """ROWS (row k = lane k's 16 words) to word vectors stored at
    `[dest + base + 64 j]` = word j of every lane. Registers come from the
    spare ones and are given back as their values die."""
    out, free = [], list(SPARE)
    reg = {("r", k): ROWS[k] for k in range(16)}

    def pair(lo_op, hi_op, x, y, imms=("", "")):
        """`lo_op` of x, y into a spare register, `hi_op` into y; x's
        register is spare afterwards. Returns the two results' registers."""
        t = free.pop(0)
        out.append(f"{lo_op} {t}, {x}, {y}{imms[0]}")
        out.append(f"{hi_op} {y}, {x}, {y}{imms[1]}")
        free.append(x)
        return t, y

    # Pass 1: interleave the dwords of row pairs. In each 128-bit chunk c,
    # t[2p] holds words 4c, 4c+1 of rows 2p, 2p+1; t[2p+1] words 4c+2, 4c+3.
    for p in range(8):
        lo, hi = reg.pop(("r", 2 * p)), reg.pop(("r", 2 * p + 1))
        reg[("t", 2 * p)], reg[("t", 2 * p + 1)] = pair("vpunpckldq", "vpunpckhdq", lo, hi)
    # Pass 2: interleave qwords: u[4q+m], chunk c = word 4c+m of rows
    # 4q .. 4q+3.
    for q in range(4):
        t0, t1, t2, t3 = (reg.pop(("t", 4 * q + k)) for k in range(4))
        reg[("u", 4 * q)], reg[("u", 4 * q + 1)] = pair("vpunpcklqdq", "vpunpckhqdq", t0, t2)
        reg[("u", 4 * q + 2)], reg[("u", 4 * q + 3)] = pair("vpunpcklqdq", "vpunpckhqdq", t1, t3)
    # Pass 3: gather chunk c of u[m], u[4+m], u[8+m], u[12+m]: word 4c+m.
    for m in range(4):
        u0, u4, u8, u12 = (reg.pop(("u", m + 4 * k)) for k in range(4))
        halves = (", 0x44", ", 0xee")
        v0, v1 = pair("vshufi32x4", "vshufi32x4", u0, u4, halves)
        v2, v3 = pair("vshufi32x4", "vshufi32x4", u8, u12, halves)
        for word, (x, y, imm) in zip(
            (m, 4 + m, 8 + m, 12 + m),
            ((v0, v2, "0x88"), (v0, v2, "0xdd"), (v1, v3, "0x88"), (v1, v3, "0xdd")),
        ):
            w = free.pop(0)
            out.append(f"vshufi32x4 {w}, {x}, {y}, {imm}")
            out.append(f"vmovdqa64 zmmword ptr [{dest} + {base + 64 * word}], {w}")
            free.append(w)
        free += [v0, v1, v2, v3]
    assert not reg and len(free) == len(SPARE) + len(ROWS)
    return out


def with_transpose(steps, shuffles):
    """A round's steps with a transposition spread over them, a few
    instructions after each step from step LAG on."""
    per = -(-len(shuffles) // (len(steps) - LAG))
    out = []
    for k, one in enumerate(steps):
        out += one
        if k >= LAG:
            out += shuffles[(k - LAG) * per : (k - LAG + 1) * per]
    return out


def advance(sets):
    """Every lane's pointer on by its stride: 8 lanes at a time."""
    out = []
    for g in range(2 * sets):
        out += [
            f"vmovdqa64 zmm27, zmmword ptr [{{ptrs}} + {64 * g}]",
            f"vpaddq zmm27, zmm27, zmmword ptr [{{strides}} + {64 * g}]",
            f"vmovdqa64 zmmword ptr [{{ptrs}} + {64 * g}], zmm27",
        ]
    return out


def unless_last(label, body):
    """`body`, skipped on the last block."""
    return ["cmp {n}, 1", f"je {label}f", *body, f"{label}:"]


def generate(sets, prefetch):
    """The loop for `sets` register sets of 16 lanes (1 or 2). With one set
    the same schedule runs with set 1's instructions left out. `prefetch`:
    see `load_rows`."""
    out = ["// Generated by crates/linerate/asm/lanes_avx512.py: do not edit."]
    out.append("// The chaining values in.")
    for w in range(4):
        for k in range(sets):
            out.append(f"vmovdqu64 zmm{w + 4 * k}, zmmword ptr [{{state}} + {128 * w + 64 * k}]")
    out.append("// The first block, transposed into the current half.")
    for k in range(sets):
        out += load_rows(16 * k, prefetch) + transpose("{cur}", SET_BYTES * k)
    out += advance(sets)
    out.append("2:")
    out.append("// The chaining values saved, for the feed-forward.")
    for w in range(4):
        for k in range(sets):
            r = w + 4 * k
            out.append(f"vmovdqa64 zmmword ptr [{{buf}} + {SAVED + 64 * r}], zmm{r}")
    out.append("// Round 1; then, unless this is the last block, the next block's rows of set 0.")
    for one in round_steps(0, sets):
        out += one
    out += unless_last(3, load_rows(0, prefetch))
    out.append("// Round 2, with set 0's rows transposed into the next half.")
    out += with_transpose(round_steps(1, sets), transpose("{next}", 0))
    out.append("// Round 3" + ("; then the rows of set 1." if sets == 2 else "."))
    for one in round_steps(2, sets):
        out += one
    if sets == 2:
        out += unless_last(4, load_rows(16, prefetch))
        out.append("// Round 4, with set 1's rows transposed; then the pointers move on.")
        out += with_transpose(round_steps(3, sets), transpose("{next}", SET_BYTES))
    else:
        out.append("// Round 4; then the pointers move on.")
        for one in round_steps(3, sets):
            out += one
    out += unless_last(5, advance(sets))
    out.append("// The feed-forward; the halves swap; the next block.")
    for w in range(4):
        for k in range(sets):
            r = w + 4 * k
            out.append(f"vpaddd zmm{r}, zmm{r}, zmmword ptr [{{buf}} + {SAVED + 64 * r}]")
    out.append("xchg {cur}, {next}")
    out.append("dec {n}")
    out.append("jnz 2b")
    out.append("// The chaining values out.")
    for w in range(4):
        for k in range(sets):
            out.append(f"vmovdqu64 zmmword ptr [{{state}} + {128 * w + 64 * k}], zmm{w + 4 * k}")
    out.append("vzeroupper")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if a .s is not what this writes")
    args = parser.parse_args()
    stale = False
    for (sets, prefetch), path in OUTS.items():
        text = generate(sets, prefetch)
        if not args.check:
            path.write_text(text)
        elif not path.exists() or path.read_text() != text:
            print(f"{path} is stale: run {sys.argv[0]}", file=sys.stderr)
            stale = True
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
