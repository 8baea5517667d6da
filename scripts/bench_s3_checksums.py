#!/usr/bin/env python3
"""S3's checksums of one large page-cached file (issue 22's figures):
`linerate etag --checksum` for each algorithm alone and for all six in one
pass, against awscrt called from Python on the same file and against the
lab's single-core read row, in alternating rounds, medians.

    python3 scripts/bench_s3_checksums.py [--linerate target/release/linerate]
        [--file PATH] [--gib 4] [--rounds 7] [--python .venv-peers/bin/python]

The file (random bytes, made once if missing) is dropped from the page
cache (as root) and read back whole first, so that it is cached the way a
first read leaves it (how pages came into the cache changes the cost of
mapping them: a file partly evicted and read back costs up to 1.5x more). awscrt's CRCs run in the Python given (it
must have awscrt installed: scripts/setup.sh puts it in .venv-peers),
reading the file in 8 MiB `readinto` chunks, the way a Python program
would.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ALGORITHMS = ["crc64nvme", "crc32c", "crc32", "sha1", "sha256", "md5"]

AWSCRT = """
import sys
from awscrt import checksums as c
f = getattr(c, sys.argv[2])
buf = bytearray(8 << 20); mv = memoryview(buf); crc = 0
with open(sys.argv[1], "rb", buffering=0) as fh:
    while True:
        n = fh.readinto(buf)
        if not n:
            break
        crc = f(mv[:n], crc)
print(crc)
"""


def timed(argv):
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def read_row(linerate):
    """The lab's single-core read rate from memory (bytes/s)."""
    out = subprocess.run(
        [linerate, "speed", "--cold", "--json", "read", "--bytes", "1048576"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    for table in json.loads(out)["tables"]:
        for cell in table.get("cells", []):
            if cell.get("algorithm") == "read" and "bytes_per_second" in cell:
                return cell["bytes_per_second"]
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--linerate", default="target/release/linerate")
    parser.add_argument("--file", default="/tmp/linerate-s3-bench.bin")
    parser.add_argument("--gib", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--python", default=".venv-peers/bin/python")
    args = parser.parse_args()
    size = args.gib << 30
    if not os.path.exists(args.file) or os.path.getsize(args.file) != size:
        chunk = os.urandom(64 << 20)
        with open(args.file, "wb") as f:
            for i in range(size // len(chunk)):
                f.write(chunk[i % 256 :] + chunk[: i % 256])
    if os.geteuid() == 0:
        subprocess.run(["sync"], check=True)
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
    subprocess.run(["cat", args.file], check=True, stdout=subprocess.DEVNULL)

    commands = {}
    for algorithm in ALGORITHMS:
        for threads in (1, 2):
            commands[f"{algorithm} -j{threads}"] = [
                args.linerate, "etag", f"--checksum={algorithm}", f"-j{threads}", args.file
            ]
    commands["all six -j2"] = [
        args.linerate, "etag", "--checksum=" + ",".join(ALGORITHMS), "-j2", args.file
    ]
    for crc in ("crc64nvme", "crc32c", "crc32"):
        commands[f"awscrt {crc}"] = [args.python, "-c", AWSCRT, args.file, crc]
    times = {name: [] for name in commands}
    reads = []
    for _ in range(args.rounds):
        for name, argv in commands.items():
            times[name].append(timed(argv))
        rate = read_row(args.linerate)
        if rate:
            reads.append(rate)
    med = {name: statistics.median(t) for name, t in times.items()}
    gbs = lambda name: size / med[name] / 1e9
    print(f"file: {size >> 30} GiB, page cache; {args.rounds} rounds, medians")
    for name in commands:
        lo, hi = min(times[name]), max(times[name])
        print(f"  {name:22} {med[name] * 1000:8.1f} ms ({lo * 1000:.1f}-{hi * 1000:.1f})"
              f"  {gbs(name):6.2f} GB/s")
    read = statistics.median(reads) / 1e9 if reads else float("nan")
    print(f"  lab read row (--cold, 1 MiB, one thread): {read:.2f} GB/s")
    for crc in ("crc64nvme", "crc32c", "crc32"):
        print(f"  {crc} -j1: {gbs(crc + ' -j1') / read:.2f} of the read row, "
              f"{med['awscrt ' + crc] / med[crc + ' -j1']:.2f}x awscrt")
    alone = [med[f"{a} -j2"] for a in ALGORITHMS]
    print(f"  all six in one pass -j2: {med['all six -j2'] / max(alone):.2f}x the slowest alone "
          f"({ALGORITHMS[alone.index(max(alone))]}), "
          f"{med['all six -j2'] / sum(alone):.2f}x the six one after another")


if __name__ == "__main__":
    sys.exit(main())
