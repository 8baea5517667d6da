#!/usr/bin/env python3
"""Two builds of linerate against each other on the file paths, alternating.

A "before and after": the old commit built beside the new one, run in
alternating rounds (A B A B ...) in one sitting, medians and the ratio of
the medians (A's time over B's: above 1, B is faster). The cases:

- `sum -j1` and `sum -j2` of 64 files of 16 MiB (page cache);
- `sum -r` of the 10,000-file tree of scripts/tree_vs_md5sum.py
  (log-uniform 1 KiB to 4 MiB, about 5 GB), two threads;
- `etag` of one 4 GiB file, two threads;
- Python's `linerate.hash_files` of the 64 files (threads=2), each build's
  package in its own virtual environment.

Every case first checks that both builds print the same output.

    python3 scripts/compare_builds.py --a OLD/target/release/linerate \\
        --b target/release/linerate [--a-python OLD/.venv-python/bin/python \\
        --b-python .venv-python/bin/python] [--rounds N] [--dir DIR] [--markdown]
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tree_vs_md5sum  # noqa: E402  (the tree's layout, shared)

FILES = 64
FILE_SIZE = 16 << 20
BIG = 4 << 30

PY_HASH_FILES = """
import os, sys, time
try:
    import linerate_hash as linerate
except ImportError:  # a build from before the package was renamed
    import linerate
d = sys.argv[1]
paths = sorted(os.path.join(d, f) for f in os.listdir(d))
start = time.perf_counter()
digests = linerate.hash_files(paths, threads=2)
elapsed = time.perf_counter() - start
print(elapsed, ''.join(x.hex() for x in digests)[:64])
"""


def make_files(root):
    """64 files of 16 MiB and one of 4 GiB, reused when already there."""
    files = os.path.join(root, "files")
    os.makedirs(files, exist_ok=True)
    chunk = os.urandom(FILE_SIZE)
    for i in range(FILES):
        path = os.path.join(files, f"{i:02}.bin")
        if not os.path.exists(path) or os.path.getsize(path) != FILE_SIZE:
            with open(path, "wb") as f:
                f.write(chunk[i:] + chunk[:i])
    big = os.path.join(root, "big.bin")
    if not os.path.exists(big) or os.path.getsize(big) != BIG:
        with open(big, "wb") as f:
            for i in range(BIG // FILE_SIZE):
                f.write(chunk[i:] + chunk[:i])
    tree = os.path.join(root, "tree")
    tree_vs_md5sum.make_tree(tree, 10_000)
    return files, big, tree


def warm(*paths):
    """Reads everything once, so that it sits in the page cache."""
    subprocess.run(["cat", *paths], stdout=subprocess.DEVNULL, check=True)


def timed(cmd):
    start = time.perf_counter()
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE).stdout
    return time.perf_counter() - start, out


def python_timed(python, files):
    out = subprocess.run([python, "-c", PY_HASH_FILES, files], check=True,
                         stdout=subprocess.PIPE, text=True).stdout.split()
    return float(out[0]), out[1].encode()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--a", required=True, help="the old build's linerate")
    p.add_argument("--b", required=True, help="the new build's linerate")
    p.add_argument("--a-python", help="a python with the old build's package")
    p.add_argument("--b-python", help="a python with the new build's package")
    p.add_argument("--rounds", type=int, default=9)
    p.add_argument("--dir", default="/tmp/linerate-compare")
    p.add_argument("--markdown", action="store_true")
    args = p.parse_args()

    files, big, tree = make_files(args.dir)
    listing = sorted(os.path.join(files, f) for f in os.listdir(files))
    warm(*listing, big)
    subprocess.run(["find", tree, "-type", "f", "-exec", "cat", "{}", "+"],
                   stdout=subprocess.DEVNULL, check=True)
    cases = [
        ("sum -j1, 64 x 16 MiB", lambda l: timed([l, "sum", "-j1", *listing])),
        ("sum -j2, 64 x 16 MiB", lambda l: timed([l, "sum", "-j2", *listing])),
        ("sum -r -j2, 10,000 files", lambda l: timed([l, "sum", "-r", "-j2", tree])),
        ("etag -j2, 4 GiB", lambda l: timed([l, "etag", "-j2", big])),
    ]
    pythons = {}
    if args.a_python and args.b_python:
        pythons = {args.a: args.a_python, args.b: args.b_python}
        cases.append(("Python hash_files, 64 x 16 MiB",
                      lambda l: python_timed(pythons[l], files)))
    rows = []
    for name, run in cases:
        # The same output from both, first.
        _, out_a = run(args.a)
        _, out_b = run(args.b)
        if out_a != out_b:
            sys.exit(f"{name}: the builds disagree")
        times = {args.a: [], args.b: []}
        for _ in range(args.rounds):
            for build in (args.a, args.b):
                times[build].append(run(build)[0])
        a, b = statistics.median(times[args.a]), statistics.median(times[args.b])
        rows.append((name, a, b, a / b,
                     min(times[args.b]), max(times[args.b])))
        print(f"{name}: A {a:.3f} s, B {b:.3f} s, A/B {a / b:.3f}", file=sys.stderr)
    if args.markdown:
        print("| case | A (before) | B (after) | A/B |")
        print("|---|---|---|---|")
        for name, a, b, ratio, lo, hi in rows:
            print(f"| {name} | {a:.3f} s | {b:.3f} s ({lo:.3f}-{hi:.3f}) | {ratio:.3f} |")
    else:
        for name, a, b, ratio, lo, hi in rows:
            print(f"{name:32} A {a:7.3f} s  B {b:7.3f} s  A/B {ratio:.3f}")


if __name__ == "__main__":
    main()
