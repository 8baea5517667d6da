#!/usr/bin/env python3
"""linerate's time trials against `openssl speed md5` (single-stream MD5).

The trials run alternately (A B C A B C ...) in one sitting, as
docs/performance.md asks on these shared machines, and the ratio of the
medians is reported, with cycles/byte from the core clock that linerate
measures in each trial.

    python3 scripts/md5_vs_openssl.py [--linerate PATH] [--rounds N] [--bytes N]
                                      [--backends avx512,scalar]
                                      [--md5p 16,32 --md5p-bytes 268435456 --md5p-count 2]
                                      [--markdown]

`--md5p` adds `linerate md5p -k K -t` trials of one message of
`--md5p-count` blocks of `--md5p-bytes` bytes (default: 2 x 256 MiB, far
beyond the last-level cache, so the data comes from memory; K >= 32 uses
rayon's threads).
"""

import argparse
import os
import re
import statistics
import subprocess
import sys


def run(cmd, env=None):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
    return out.stdout + out.stderr


def openssl_speed(block, seconds):
    out = run(["openssl", "speed", "-bytes", str(block), "-seconds", str(seconds), "md5"])
    # The last line is "md5   <rate>k" in thousands of bytes per second.
    for line in reversed(out.splitlines()):
        m = re.match(r"^md5\s+([\d.]+)k\s*$", line.strip())
        if m:
            return float(m.group(1)) * 1000.0
    sys.exit(f"cannot parse openssl speed output:\n{out}")


def linerate_trial(binary, backend, block, count, md5p_k=None):
    env = dict(os.environ)
    if backend:
        env["LINERATE_MD5_BACKEND"] = backend
    cmd = [binary, "md5", "-t"] if md5p_k is None else [binary, "md5p", "-k", str(md5p_k), "-t"]
    out = run(cmd + ["--block-size", str(block), "--count", str(count)], env)
    speed = re.search(r"^Speed = (\d+) bytes/second", out, re.M)
    clock = re.search(r"Clock = ([\d.]+) GHz", out)
    if not speed:
        sys.exit(f"cannot parse linerate's time trial:\n{out}")
    return float(speed.group(1)), float(clock.group(1)) * 1e9 if clock else None


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--linerate", default="target/release/linerate")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--bytes", type=int, default=16384, help="block size")
    p.add_argument("--seconds", type=int, default=1, help="openssl seconds per round")
    p.add_argument("--backends", default="avx512,scalar")
    p.add_argument("--md5p", default="", help="comma-separated K values for md5p trials")
    p.add_argument("--md5p-bytes", type=int, default=256 << 20)
    p.add_argument("--md5p-count", type=int, default=2)
    p.add_argument("--markdown", action="store_true", help="print a table row per trial")
    args = p.parse_args()

    backends = [b for b in args.backends.split(",") if b]
    md5p_ks = [int(k) for k in args.md5p.split(",") if k]
    # About one second per linerate trial at ~0.8 GB/s, like openssl's round.
    count = max(1, int(0.8e9 * args.seconds) // args.bytes)
    trials = [(b, None) for b in backends] + [(f"md5p{k}", k) for k in md5p_ks]
    anchor, ours, clocks = [], {name: [] for name, _ in trials}, []
    for r in range(args.rounds):
        anchor.append(openssl_speed(args.bytes, args.seconds))
        for name, k in trials:
            if k is None:
                speed, hz = linerate_trial(args.linerate, name, args.bytes, count)
            else:
                speed, hz = linerate_trial(
                    args.linerate, "", args.md5p_bytes, args.md5p_count, md5p_k=k
                )
            ours[name].append(speed)
            if hz:
                clocks.append(hz)
        line = ", ".join(f"{name} {ours[name][-1] / 1e6:.0f}" for name, _ in trials)
        print(f"round {r + 1}: openssl {anchor[-1] / 1e6:.0f} MB/s, {line} MB/s", file=sys.stderr)

    a = statistics.median(anchor)
    hz = statistics.median(clocks) if clocks else None
    cpb = (lambda v: f"{hz / v:.2f}") if hz else (lambda v: "n/a")
    print(f"block size {args.bytes} bytes, {args.rounds} alternating rounds, medians")
    if hz:
        print(f"core clock (median of linerate's readings): {hz / 1e9:.2f} GHz")
    print(f"openssl md5          {a / 1e6:8.1f} MB/s  {cpb(a)} cycles/byte")
    for name, _ in trials:
        m = statistics.median(ours[name])
        print(f"linerate {name:12}{m / 1e6:8.1f} MB/s  {cpb(m)} cycles/byte  ratio {m / a:.3f}")
    if args.markdown:
        for name, k in trials:
            m = statistics.median(ours[name])
            what = (f"md5 -t --block-size {args.bytes}, {name}" if k is None else
                    f"md5p -k {k} -t --block-size {args.md5p_bytes} --count {args.md5p_count}")
            print(f"| {what} | {m / 1e6:.0f} MB/s | {a / 1e6:.0f} MB/s | {m / a:.3f} | {cpb(m)} |")


if __name__ == "__main__":
    main()
