#!/usr/bin/env python3
"""`linerate sum -r DIR` against `find DIR -type f -print0 | xargs -0 md5sum`.

Makes a tree of 10,000 files (by default) whose sizes spread log-uniformly
from 1 KiB to 4 MiB (about 5 GB), 100 files to a directory in two levels of
directories, from a fixed random seed, under --dir (default
/tmp/linerate-tree; reused when it is already there and complete). Reads it
once so it sits in the page cache, checks that both commands give the same
digest for every file, then times them in alternating rounds and prints the
medians, the rates and the ratio measured in the same rounds.

    python3 scripts/tree_vs_md5sum.py [--linerate PATH] [--rounds N] [--dir DIR]
                                      [--files N] [--threads N]
"""

import argparse
import math
import os
import random
import shlex
import statistics
import subprocess
import sys
import time

SEED = 0x7EE5
MIN_SIZE = 1 << 10
MAX_SIZE = 4 << 20
PER_DIR = 100


def sizes(count):
    """Log-uniform sizes from MIN_SIZE to MAX_SIZE, the same every run."""
    rng = random.Random(SEED)
    lo, hi = math.log(MIN_SIZE), math.log(MAX_SIZE)
    return [int(math.exp(rng.uniform(lo, hi))) for _ in range(count)]


def relative_path(i):
    """File i's place: 100 files a directory, 10 directories a parent."""
    d = i // PER_DIR
    return os.path.join(f"d{d // 10:03}", f"e{d % 10}", f"f{i:05}.bin")


def make_tree(root, count):
    """Creates the tree unless a complete one (marked by .complete) is there."""
    marker = os.path.join(root, ".complete")
    want = f"{SEED} {count}\n"
    if os.path.exists(marker) and open(marker).read() == want:
        return
    print(f"creating {count} files under {root} ...", file=sys.stderr)
    rng = random.Random(SEED + 1)
    pool = rng.randbytes(MAX_SIZE * 16)
    for i, size in enumerate(sizes(count)):
        path = os.path.join(root, relative_path(i))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        start = rng.randrange(len(pool) - size)
        with open(path, "wb") as f:
            f.write(pool[start:start + size])
    with open(marker, "w") as f:
        f.write(want)


def tree_bytes(root):
    total = files = 0
    for dirpath, _, names in os.walk(root):
        for name in names:
            if name != ".complete":
                total += os.path.getsize(os.path.join(dirpath, name))
                files += 1
    return total, files


def digests(output, root):
    """path -> digest from md5sum-style lines (plain names only)."""
    found = {}
    for line in output.decode().splitlines():
        digest, name = line[:32], line[34:]
        found[os.path.relpath(name, root)] = digest
    found.pop(".complete", None)
    return found


def warm(root, count):
    """Reads every file once, so that both commands find them in the page cache."""
    for i in range(count):
        with open(os.path.join(root, relative_path(i)), "rb") as f:
            while f.read(1 << 20):
                pass


def timed(cmd, shell=False):
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, shell=shell)
    return time.perf_counter() - start


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--linerate", default="target/release/linerate")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--dir", default="/tmp/linerate-tree")
    p.add_argument("--files", type=int, default=10_000)
    p.add_argument("--threads", type=int, default=None, help="-j for linerate (default: its own)")
    args = p.parse_args()
    lr = os.path.abspath(args.linerate)
    root = os.path.abspath(args.dir)
    make_tree(root, args.files)
    total, files = tree_bytes(root)

    ours = [lr, "sum", "-r", root]
    if args.threads:
        ours[2:2] = ["-j", str(args.threads)]
    anchor = f"find {shlex.quote(root)} -type f -print0 | xargs -0 md5sum"
    # Warm the page cache, and check the outputs agree before timing.
    warm(root, args.files)
    got = subprocess.run(ours, check=True, capture_output=True).stdout
    want = subprocess.run(anchor, shell=True, check=True, capture_output=True).stdout
    if digests(got, root) != digests(want, root):
        sys.exit("linerate sum -r and md5sum disagree")
    names = [line[34:] for line in got.decode().splitlines()]
    if names != sorted(names):
        sys.exit("linerate sum -r did not print the paths in sorted order")

    times = {"anchor": [], "ours": []}
    for r in range(args.rounds):
        times["anchor"].append(timed(anchor, shell=True))
        times["ours"].append(timed(ours))
        print(f"round {r + 1}: anchor {times['anchor'][-1]:.3f} s, ours {times['ours'][-1]:.3f} s",
              file=sys.stderr, flush=True)

    med = {name: statistics.median(t) for name, t in times.items()}
    print(f"{files} files, {total / 1e9:.2f} GB in the page cache, {os.cpu_count()} cores, "
          f"{args.rounds} alternating rounds, medians")
    print(f"find | xargs md5sum   {med['anchor']:7.3f} s  {total / med['anchor'] / 1e9:6.2f} GB/s")
    print(f"{' '.join(['linerate', *ours[1:-1]]):20} {med['ours']:7.3f} s  "
          f"{total / med['ours'] / 1e9:6.2f} GB/s")
    print(f"ratio {med['anchor'] / med['ours']:.2f} x")


if __name__ == "__main__":
    main()
