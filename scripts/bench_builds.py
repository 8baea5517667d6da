#!/usr/bin/env python3
"""Builds of linerate side by side on the same files, in alternating rounds,
medians, each build's time as a ratio to the first one's. Needs nothing but
Python and the builds, so it runs where bench_files.py's peers (b3sum,
openssl, GNU time) are missing: the GPU machine's host, through the device
tool (docs/gpu/host-cpu-ab.log).

    python3 scripts/bench_builds.py ROUNDS old=PATH NAME=PATH...

Writes its files under /tmp/ab (32 x 64 MiB, 600 files of 0-3 MiB, 4 GiB,
512 MiB: about 7 GB) and reads them once into the page cache first.
Cases: `sum` of the 32 files (all threads), of the 600, `sum -j1` of the
32, `etag` of the 4 GiB file, `sum -a md5p16` of the 512 MiB one.
"""

import os
import random
import statistics
import subprocess
import sys
import time

DIR = "/tmp/ab"
MIB = 1 << 20


def make_files():
    os.makedirs(DIR, exist_ok=True)
    rng = random.Random(18)
    block = rng.randbytes(64 * MIB)

    def make(name, size):
        path = os.path.join(DIR, name)
        with open(path, "wb") as f:
            left = size
            while left:
                n = min(left, len(block))
                f.write(block[:n])
                left -= n
        return path

    big = [make(f"b{i:02}", 64 * MIB) for i in range(32)]
    mixed = [make(f"m{i:04}", rng.randrange(3 * MIB)) for i in range(600)]
    four = make("one4g", 4096 * MIB)
    p512 = make("p512", 512 * MIB)
    subprocess.run(["cat", *big, *mixed, four, p512], stdout=subprocess.DEVNULL, check=True)
    return big, mixed, four, p512


def main():
    rounds = int(sys.argv[1])
    builds = dict(arg.split("=", 1) for arg in sys.argv[2:])
    big, mixed, four, p512 = make_files()
    cases = {
        "sum 32x64MiB": lambda b: [b, "sum", "--device", "cpu", *big],
        "sum 600 mixed": lambda b: [b, "sum", "--device", "cpu", *mixed],
        "sum -j1 32x64MiB": lambda b: [b, "sum", "-j1", "--device", "cpu", *big],
        "etag 4GiB": lambda b: [b, "etag", "--device", "cpu", four],
        "md5p16 512MiB": lambda b: [b, "sum", "-a", "md5p16", p512],
    }
    times = {}
    for _ in range(rounds):
        for case, argv in cases.items():
            for name, build in builds.items():
                start = time.perf_counter()
                subprocess.run(argv(build), stdout=subprocess.DEVNULL, check=True)
                times.setdefault((case, name), []).append(time.perf_counter() - start)
    first = next(iter(builds))
    for case in cases:
        anchor = statistics.median(times[(case, first)])
        cells = []
        for name in builds:
            median = statistics.median(times[(case, name)])
            cells.append(f"{name} {median * 1e3:.1f} ms ({anchor / median:.3f})")
        print(f"{case}: " + ", ".join(cells))


if __name__ == "__main__":
    main()
