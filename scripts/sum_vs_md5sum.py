#!/usr/bin/env python3
"""`linerate sum` against GNU `md5sum` on files in the page cache.

Makes 64 files of 16 MiB and one file of 1 GiB (random bytes) in a temporary
folder, reads them once so they sit in the page cache, then times, in
alternating rounds: md5sum and linerate sum over the 64 files, and md5sum,
linerate sum and linerate sum -a md5p16 over the 1 GiB file. Medians and
ratios against md5sum measured in the same rounds.

    python3 scripts/sum_vs_md5sum.py [--linerate PATH] [--rounds N] [--dir DIR]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


def timed(cmd):
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def make_file(path, size):
    chunk = os.urandom(16 << 20)
    with open(path, "wb") as f:
        for _ in range(size // len(chunk)):
            f.write(chunk)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--linerate", default="target/release/linerate")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--dir", default=None, help="where to put the 2 GiB of test files")
    args = p.parse_args()
    lr = os.path.abspath(args.linerate)

    with tempfile.TemporaryDirectory(dir=args.dir) as d:
        small = [os.path.join(d, f"f{i:02}") for i in range(64)]
        for path in small:
            with open(path, "wb") as f:
                f.write(os.urandom(16 << 20))
        big = os.path.join(d, "big")
        make_file(big, 1 << 30)
        subprocess.run(["cat", *small, big], check=True, stdout=subprocess.DEVNULL)
        # The outputs must agree before anything is timed.
        want = subprocess.run(["md5sum", *small, big], check=True, capture_output=True).stdout
        got = subprocess.run([lr, "sum", *small, big], check=True, capture_output=True).stdout
        if want != got:
            sys.exit("linerate sum and md5sum disagree")

        cases = {
            "md5sum, 64 x 16 MiB": ["md5sum", *small],
            "linerate sum, 64 x 16 MiB": [lr, "sum", *small],
            "md5sum, 1 GiB": ["md5sum", big],
            "linerate sum, 1 GiB": [lr, "sum", big],
            "linerate sum -a md5p16, 1 GiB": [lr, "sum", "-a", "md5p16", big],
        }
        times = {name: [] for name in cases}
        for r in range(args.rounds):
            for name, cmd in cases.items():
                times[name].append(timed(cmd))
            print(f"round {r + 1} done", file=sys.stderr)

    med = {name: statistics.median(t) for name, t in times.items()}
    print(f"{args.rounds} alternating rounds, medians, files in the page cache, {os.cpu_count()} cores")
    for name, t in med.items():
        size = 1 << 30
        anchor = med["md5sum, 64 x 16 MiB"] if "64 x" in name else med["md5sum, 1 GiB"]
        print(f"{name:32} {t:7.3f} s  {size / t / 1e9:6.2f} GB/s  {anchor / t:6.2f} x md5sum")


if __name__ == "__main__":
    main()
