#!/usr/bin/env python3
"""linerate's UMAC against Nettle's (Debian nettle-dev), alternately, in one
sitting: per-message time with a reused key and sequential nonces at 64 B,
1500 B and 16 KiB (by default), and key setup, as medians over rounds.

Each round runs, per size, linerate's trial loop (the `umac` bench binary
with LINERATE_UMAC_TRIAL set) and the Nettle harness
(crates/linerate/tests/support/umac_nettle.c, `bench` mode) back to back,
swapping which goes first every round, so both see the same machine
conditions. The ratio is Nettle's median time over linerate's: above 1,
linerate is faster.

    scripts/umac_vs_nettle.py [--rounds 9] [--bits 64] [--sizes 64,1500,16384]

Needs cargo, a C compiler and nettle-dev (`test -f /usr/include/nettle/umac.h`).
LINERATE_NH_BACKEND, if set, picks linerate's NH backend.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HARNESS = ROOT / "crates/linerate/tests/support/umac_nettle.c"


def build_nettle(tmp):
    exe = Path(tmp) / "umac_nettle"
    cc = os.environ.get("CC", "cc")
    subprocess.run([cc, "-O2", "-o", str(exe), str(HARNESS), "-lnettle"], check=True)
    return exe


def build_linerate():
    out = subprocess.run(
        ["cargo", "bench", "-p", "linerate", "--bench", "umac", "--no-run",
         "--message-format=json"],
        cwd=ROOT, check=True, stdout=subprocess.PIPE, text=True)
    for line in out.stdout.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg.get("executable") \
                and msg["target"]["name"] == "umac":
            return msg["executable"]
    sys.exit("umac_vs_nettle: no umac bench executable in cargo's output")


def messages_for(size):
    # About a quarter of a second per run at the speeds seen here.
    return max(20000, int(2.5e8 / (30 + 0.08 * size)))


def parse(output, kind):
    per_msg = setup = None
    for line in output.splitlines():
        f = line.split()
        if f and f[0] == kind:
            per_msg = float(f[3])
        if f and f[0] == kind + "-setup":
            setup = float(f[2])
    if per_msg is None:
        sys.exit(f"umac_vs_nettle: no '{kind}' line in:\n{output}")
    return per_msg, setup


def run_linerate(exe, tag_bytes, size):
    env = dict(os.environ, LINERATE_UMAC_TRIAL=f"{tag_bytes}:{size}:{messages_for(size)}")
    out = subprocess.run([exe], env=env, check=True, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    return parse(out.stdout, "linerate")


def run_nettle(exe, tag_bytes, size):
    out = subprocess.run([str(exe), "bench", str(tag_bytes), str(size),
                          str(messages_for(size))],
                         check=True, stdout=subprocess.PIPE, text=True)
    return parse(out.stdout, "nettle")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--bits", type=int, default=64, choices=[32, 64, 96, 128])
    ap.add_argument("--sizes", default="64,1500,16384")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    tag_bytes = args.bits // 8

    if not Path("/usr/include/nettle/umac.h").exists():
        sys.exit("umac_vs_nettle: nettle-dev is not installed (/usr/include/nettle/umac.h)")
    linerate = build_linerate()
    with tempfile.TemporaryDirectory() as tmp:
        nettle = build_nettle(tmp)
        ours = {s: [] for s in sizes}
        theirs = {s: [] for s in sizes}
        setup_ours, setup_theirs = [], []
        for r in range(args.rounds):
            for size in sizes:
                pair = [("ours", lambda: run_linerate(linerate, tag_bytes, size)),
                        ("theirs", lambda: run_nettle(nettle, tag_bytes, size))]
                if r % 2:
                    pair.reverse()
                for who, run in pair:
                    ns, setup = run()
                    (ours if who == "ours" else theirs)[size].append(ns)
                    if setup is not None:
                        (setup_ours if who == "ours" else setup_theirs).append(setup)
            print(f"round {r + 1}/{args.rounds}: " + ", ".join(
                f"{s} B {ours[s][-1]:.1f} vs {theirs[s][-1]:.1f} ns" for s in sizes),
                file=sys.stderr)

    backend = os.environ.get("LINERATE_NH_BACKEND", "auto")
    print(f"UMAC-{args.bits}, reused key, sequential nonces; medians of {args.rounds} "
          f"alternating rounds (linerate NH backend: {backend})")
    print(f"{'size':>7} {'linerate ns':>12} {'GB/s':>7} {'nettle ns':>10} {'GB/s':>7} "
          f"{'ratio':>6} {'best ratio':>10}")
    for s in sizes:
        a, b = statistics.median(ours[s]), statistics.median(theirs[s])
        best = min(theirs[s]) / min(ours[s])
        print(f"{s:>7} {a:>12.1f} {s / a:>7.2f} {b:>10.1f} {s / b:>7.2f} "
              f"{b / a:>6.2f} {best:>10.2f}")
    a, b = statistics.median(setup_ours), statistics.median(setup_theirs)
    print(f"{'setup':>7} {a:>12.1f} {'':>7} {b:>10.1f} {'':>7} {b / a:>6.2f}"
          "   (key setup, ns per key)")


if __name__ == "__main__":
    main()
