#!/usr/bin/env python3
"""Single-stream MD5: linerate's time trial against `openssl speed md5`.

The two run alternately (A B A B ...) in one sitting, as ../shared/MEASURING.md
asks on these shared machines, and the ratio of the medians is reported, with
cycles/byte from the core clock that linerate measures in each trial.

    python3 scripts/md5_vs_openssl.py [--linerate PATH] [--rounds N] [--bytes N]
                                      [--backends avx512,scalar] [--markdown]
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


def linerate_trial(binary, backend, block, count):
    env = dict(os.environ, LINERATE_MD5_BACKEND=backend)
    out = run([binary, "md5", "-t", "--block-size", str(block), "--count", str(count)], env)
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
    p.add_argument("--markdown", action="store_true", help="print a table row per backend")
    args = p.parse_args()

    backends = [b for b in args.backends.split(",") if b]
    # About one second per linerate trial at ~0.8 GB/s, like openssl's round.
    count = max(1, int(0.8e9 * args.seconds) // args.bytes)
    anchor, ours, clocks = [], {b: [] for b in backends}, []
    for r in range(args.rounds):
        anchor.append(openssl_speed(args.bytes, args.seconds))
        for b in backends:
            speed, hz = linerate_trial(args.linerate, b, args.bytes, count)
            ours[b].append(speed)
            if hz:
                clocks.append(hz)
        line = ", ".join(f"{b} {ours[b][-1] / 1e6:.0f}" for b in backends)
        print(f"round {r + 1}: openssl {anchor[-1] / 1e6:.0f} MB/s, {line} MB/s", file=sys.stderr)

    a = statistics.median(anchor)
    hz = statistics.median(clocks) if clocks else None
    cpb = (lambda v: f"{hz / v:.2f}") if hz else (lambda v: "n/a")
    print(f"block size {args.bytes} bytes, {args.rounds} alternating rounds, medians")
    if hz:
        print(f"core clock (median of linerate's readings): {hz / 1e9:.2f} GHz")
    print(f"openssl md5          {a / 1e6:8.1f} MB/s  {cpb(a)} cycles/byte")
    for b in backends:
        m = statistics.median(ours[b])
        print(f"linerate md5 {b:8}{m / 1e6:8.1f} MB/s  {cpb(m)} cycles/byte  ratio {m / a:.3f}")
    if args.markdown:
        for b in backends:
            m = statistics.median(ours[b])
            print(f"| md5 -t --block-size {args.bytes}, {b} | {m / 1e6:.0f} MB/s | "
                  f"{a / 1e6:.0f} MB/s | {m / a:.3f} | {cpb(m)} |")


if __name__ == "__main__":
    main()
