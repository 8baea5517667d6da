"""linerate_hash.arrow.md5 on one thread against a hashlib loop over the
same rows: random lowercase strings of 8-64 bytes, binary and hex forms,
medians of 5 (the loop: 3). docs/performance.md records the figures.

    .venv-python/bin/python python/bench/bench_arrow.py [--rows N]
"""

import argparse
import hashlib
import statistics
import time

import numpy as np
import pyarrow as pa

import linerate_hash.arrow as la


def median_seconds(f, rounds):
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rows", type=int, default=2_000_000)
    n = p.parse_args().rows
    rng = np.random.default_rng(1)
    lengths = rng.integers(8, 65, n)
    offsets = np.zeros(n + 1, np.int32)
    np.cumsum(lengths, out=offsets[1:])
    data = rng.integers(97, 123, int(offsets[-1]), dtype=np.uint8)
    column = pa.Array.from_buffers(pa.binary(), n, [None, pa.py_buffer(offsets), pa.py_buffer(data)])
    rows = column.to_pylist()
    binary = median_seconds(lambda: la.md5(column, threads=1), 5)
    hexed = median_seconds(lambda: la.md5(column, hex=True, threads=1), 5)
    loop = median_seconds(lambda: [hashlib.md5(r).hexdigest() for r in rows], 3)
    print(f"{n} rows of 8-64 bytes, one thread")
    print(f"  binary (FixedSizeBinary(16)): {n / binary / 1e6:.1f} M rows/s")
    print(f"  hex (string):                 {n / hexed / 1e6:.1f} M rows/s, {loop / hexed:.1f}x the hashlib loop")
    print(f"  hashlib loop (hexdigest):     {n / loop / 1e6:.2f} M rows/s")


if __name__ == "__main__":
    main()
