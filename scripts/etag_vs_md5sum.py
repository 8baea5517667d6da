#!/usr/bin/env python3
"""`linerate etag` against GNU `md5sum` on one large file in the page cache.

Makes the file once (random bytes from a fixed seed; reused when it is
there with the right size), reads it so it sits in the page cache, checks
`linerate etag FILE` against scripts/etag_reference.py (hashlib), then
times `md5sum FILE` and `linerate etag FILE` in alternating rounds.
Prints the medians, GB/s and the ratio measured in the same run.

    python3 scripts/etag_vs_md5sum.py [--linerate PATH] [--file PATH]
                                      [--size BYTES] [--rounds N] [--args ...]
"""

import argparse
import os
import random
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def make_file(path, size, seed):
    """Random content from `seed`, written once; reused if already there."""
    if os.path.exists(path) and os.path.getsize(path) == size:
        return
    rng = random.Random(seed)
    chunk = 16 << 20
    tmp = path + ".part"
    with open(tmp, "wb") as f:
        left = size
        while left:
            n = min(chunk, left)
            f.write(rng.randbytes(n))
            left -= n
    os.replace(tmp, path)


def timed(cmd):
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--linerate", default="target/release/linerate")
    p.add_argument("--file", default="/tmp/linerate-etag-4g")
    p.add_argument("--size", type=int, default=4 << 30)
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--args", nargs="*", default=[], help="extra arguments for linerate etag")
    a = p.parse_args()
    lr = os.path.abspath(a.linerate)

    make_file(a.file, a.size, a.seed)
    subprocess.run(["cat", a.file], check=True, stdout=subprocess.DEVNULL)
    ours = [lr, "etag", *a.args, a.file]
    got = subprocess.run(ours, check=True, capture_output=True).stdout
    reference = [sys.executable, os.path.join(HERE, "etag_reference.py"), a.file]
    want = subprocess.run(reference, check=True, capture_output=True).stdout
    if got != want:
        sys.exit(f"linerate etag and the reference disagree:\n{got!r}\n{want!r}")
    print(f"output checked against etag_reference.py: {got.decode().strip()}")

    cases = {"md5sum": ["md5sum", a.file], "linerate etag": ours}
    times = {name: [] for name in cases}
    print(f"load average before: {os.getloadavg()}", file=sys.stderr)
    for r in range(a.rounds):
        for name, cmd in cases.items():
            times[name].append(timed(cmd))
        print(f"round {r + 1}: " + ", ".join(f"{n} {t[-1]:.3f} s" for n, t in times.items()),
              file=sys.stderr)
    print(f"load average after: {os.getloadavg()}", file=sys.stderr)

    med = {name: statistics.median(t) for name, t in times.items()}
    print(f"{a.rounds} alternating rounds, medians, {a.size} bytes in the page cache, "
          f"{os.cpu_count()} cores")
    for name, t in med.items():
        print(f"{name:16} {t:7.3f} s  {a.size / t / 1e9:6.2f} GB/s  "
              f"{med['md5sum'] / t:6.2f} x md5sum")


if __name__ == "__main__":
    main()
