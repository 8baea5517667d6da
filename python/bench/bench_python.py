#!/usr/bin/env python3
"""linerate's Python package against hashlib, alternating rounds in one
process, medians and the ratio of the medians (see docs/performance.md).

    python python/bench/bench_python.py [--rounds N] [--quick]

Cases (the issue's): md5_many over 1,000,000 rows of 64 bytes against a
hashlib.md5 loop (also md5_many_offsets over the same rows as one column);
md5 of 1 GiB in memory against hashlib.md5; hash_files over 64 files of
16 MiB against a hashlib loop reading them (page cache warm).
"""

import argparse
import hashlib
import operator
import os
import statistics
import sys
import tempfile
import time

import linerate_hash as linerate


def timed(f):
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


def alternate(name, ours, anchor, rounds, unit, per):
    """Runs ours and anchor alternately; prints medians and the ratio."""
    a, b = [], []
    ours()
    anchor()  # warm-up
    for _ in range(rounds):
        a.append(timed(ours))
        b.append(timed(anchor))
    ma, mb = statistics.median(a), statistics.median(b)
    spread = (max(a) - min(a)) / ma
    print(
        f"{name:<44} linerate {per / ma:>12,.1f} {unit}  hashlib {per / mb:>12,.1f} {unit}"
        f"  ratio {mb / ma:5.2f}x  (median of {rounds}, linerate spread {spread:.0%})"
    )
    return mb / ma


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--quick", action="store_true", help="small sizes, to check the script runs")
    args = p.parse_args()
    rows_n = 20_000 if args.quick else 1_000_000
    big_n = (16 << 20) if args.quick else (1 << 30)
    files_n, file_size = (8, 1 << 20) if args.quick else (64, 16 << 20)
    print(f"python {sys.version.split()[0]}, linerate {linerate.__version__}, cores {os.cpu_count()}")

    rows = [os.urandom(64) for _ in range(rows_n)]
    assert linerate.md5_many(rows) == [hashlib.md5(r).digest() for r in rows]
    alternate(
        f"md5_many, {rows_n:,} x 64 B rows",
        lambda: linerate.md5_many(rows),
        lambda: [hashlib.md5(r).digest() for r in rows],
        args.rounds,
        "rows/s",
        rows_n,
    )
    # The floor of any list -> list[bytes] call: CPython making one 16-byte
    # bytes object per row from C (no hashing at all), timed alternating
    # with md5_many (issue 21 asks md5_many for 85% of it).
    first16 = operator.itemgetter(slice(0, 16))
    ours_t, floor_t = [], []
    for _ in range(args.rounds):
        ours_t.append(timed(lambda: linerate.md5_many(rows)))
        floor_t.append(timed(lambda: list(map(first16, rows))))
    floor, ours = statistics.median(floor_t), statistics.median(ours_t)
    print(
        f"{'  floor: list(map(itemgetter(slice(0, 16)), rows))':<44} {rows_n / floor:>21,.1f} rows/s (no hashing);"
        f" md5_many alternating with it {rows_n / ours:,.1f} rows/s = {floor / ours:.0%} of the floor"
    )
    values = b"".join(rows)
    offsets = memoryview(bytearray(8 * (rows_n + 1))).cast("q")
    for i in range(rows_n + 1):
        offsets[i] = 64 * i
    alternate(
        f"md5_many_offsets, {rows_n:,} x 64 B (one column)",
        lambda: linerate.md5_many_offsets(values, offsets),
        lambda: [hashlib.md5(r).digest() for r in rows],
        args.rounds,
        "rows/s",
        rows_n,
    )
    del rows, values

    big = os.urandom(big_n)
    assert linerate.md5(big).digest() == hashlib.md5(big).digest()
    alternate(
        f"md5, one {big_n >> 20} MiB buffer",
        lambda: linerate.md5(big).digest(),
        lambda: hashlib.md5(big).digest(),
        args.rounds,
        "MB/s",
        big_n / 1e6,
    )
    del big

    with tempfile.TemporaryDirectory() as d:
        paths = []
        for i in range(files_n):
            path = os.path.join(d, f"{i:03}")
            with open(path, "wb") as f:
                f.write(os.urandom(file_size))
            paths.append(path)

        def hashlib_loop():
            out = []
            buf = bytearray(1 << 18)
            view = memoryview(buf)
            for path in paths:
                h = hashlib.md5()
                with open(path, "rb", buffering=0) as f:
                    while n := f.readinto(buf):
                        h.update(view[:n])
                out.append(h.digest())
            return out

        assert linerate.hash_files(paths) == hashlib_loop()
        total = files_n * file_size / 1e6
        for threads in (1, None):
            alternate(
                f"hash_files, {files_n} x {file_size >> 20} MiB, threads={threads or os.cpu_count()}",
                lambda: linerate.hash_files(paths, threads=threads),
                hashlib_loop,
                args.rounds,
                "MB/s",
                total,
            )


if __name__ == "__main__":
    main()
