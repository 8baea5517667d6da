#!/usr/bin/env python3
"""`linerate cksum` and `sum --also` on 64 page-cached files of 16 MiB
(issue 23's figures): against GNU cksum and sha256sum, `openssl speed` in
the same rounds, and `linerate sum`; alternating rounds, medians.

    python3 scripts/bench_cksum.py [--linerate target/release/linerate]
        [--dir /tmp/linerate-cksum-bench] [--rounds 7]
"""

import argparse
import glob
import os
import re
import statistics
import subprocess
import time

MIB = 1 << 20


def timed(argv):
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def openssl_sha256():
    """`openssl speed -bytes 16384 sha256`: bytes per second."""
    out = subprocess.run(
        ["openssl", "speed", "-bytes", "16384", "-seconds", "1", "sha256"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    last = [l for l in out.splitlines() if l.startswith("sha256")][-1]
    return float(re.findall(r"([0-9.]+)k", last)[-1]) * 1000


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--linerate", default="target/release/linerate")
    parser.add_argument("--dir", default="/tmp/linerate-cksum-bench")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    chunk = os.urandom(16 * MIB)
    for i in range(64):
        path = os.path.join(args.dir, f"{i:02}.bin")
        if not os.path.exists(path) or os.path.getsize(path) != 16 * MIB:
            with open(path, "wb") as f:
                f.write(chunk[i:] + chunk[:i])
    files = sorted(glob.glob(os.path.join(args.dir, "*.bin")))
    total = 64 * 16 * MIB
    subprocess.run(["cat", *files], check=True, stdout=subprocess.DEVNULL)
    L = args.linerate
    commands = {
        "linerate cksum -a sha256 -j1": [L, "cksum", "-a", "sha256", "-j1", *files],
        "GNU cksum -a sha256": ["cksum", "-a", "sha256", *files],
        "sha256sum": ["sha256sum", *files],
        "linerate cksum -a md5 -j1": [L, "cksum", "-a", "md5", "-j1", *files],
        "linerate sum -j1": [L, "sum", "-j1", *files],
        "linerate sum --also sha256 -j1": [L, "sum", "--also", "sha256", "-j1", *files],
        "linerate sum -a sha256 -j1": [L, "sum", "-a", "sha256", "-j1", *files],
        "linerate sum --also sha256 -j2": [L, "sum", "--also", "sha256", "-j2", *files],
        "linerate sum -a sha256 -j2": [L, "sum", "-a", "sha256", "-j2", *files],
    }
    times = {name: [] for name in commands}
    openssl = []
    for _ in range(args.rounds):
        for name, argv in commands.items():
            times[name].append(timed(argv))
        openssl.append(openssl_sha256())
    med = {name: statistics.median(t) for name, t in times.items()}
    print(f"64 x 16 MiB, page cache; {args.rounds} rounds alternating, medians")
    for name in commands:
        print(f"  {name:34} {med[name] * 1000:8.1f} ms  {total / med[name] / 1e9:6.2f} GB/s")
    ssl = statistics.median(openssl)
    print(f"  openssl speed -bytes 16384 sha256     {ssl / 1e9:6.2f} GB/s")
    ours = total / med["linerate cksum -a sha256 -j1"]
    print(f"  cksum -a sha256 -j1: {med['GNU cksum -a sha256'] / med['linerate cksum -a sha256 -j1']:.2f}x GNU cksum, "
          f"{med['sha256sum'] / med['linerate cksum -a sha256 -j1']:.2f}x sha256sum, {ours / ssl:.2f} of openssl speed")
    print(f"  cksum -a md5 -j1 / sum -j1 (time): {med['linerate cksum -a md5 -j1'] / med['linerate sum -j1']:.3f}")
    for j in ("1", "2"):
        print(f"  sum --also sha256 -j{j} / sum -a sha256 -j{j} (time): "
              f"{med[f'linerate sum --also sha256 -j{j}'] / med[f'linerate sum -a sha256 -j{j}']:.3f}")


if __name__ == "__main__":
    main()
