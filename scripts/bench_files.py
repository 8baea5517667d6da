#!/usr/bin/env python3
"""The file engine's benchmark (issue 18): two builds of linerate and their
peers on the same files, in alternating rounds, medians, ratios, peak RSS.

    python3 scripts/bench_files.py --before OLD/target/release/linerate \\
        --after target/release/linerate [--rounds N] [--dir DIR] \\
        [--cases warm,md5p,etag,small,cold,engine] [--markdown]

Cases (each command of a case runs once per round, in turn):

- warm: 32 files of 16 MiB in the page cache: `sum -j1`, `sum -j2` of
  both builds, `b3sum --num-threads 1` and `b3sum` (if on PATH), and the
  lanes engine's in-cache rate in the same rounds (`linerate speed md5-mb
  --bytes 16384` of the after build), to which `sum`'s rate is compared;
- md5p: one 512 MiB file: `sum -a md5p16 -j1` and `-j2` of both builds,
  `openssl md5` on the same file;
- etag: one 4 GiB file: `etag` of both builds (two threads);
- small: 10,000 files of 0-64 KiB: `sum -r` of both builds;
- cold: the 32 files with the page cache dropped before every command
  (root: /proc/sys/vm/drop_caches): `sum -j1`, `-j2` of both builds, and
  the device's own rate (`dd iflag=direct`, 4 MiB requests, one file);
- engine: the lanes engine from DRAM against itself in cache, no files:
  `speed --cold md5-mb --bytes 1048576` and `speed md5-mb --bytes 16384`
  of both builds, alternating, medians of the rates `speed` reports.

Needs GNU time (/usr/bin/time, Debian package `time`) for the peak RSS.

Files in the page cache are dropped and read back once first, so every
case sees them as a first read from disk leaves them (the page cache's
folio sizes, and with them the cost of mapping a file, depend on how the
pages got there). Peak RSS is the largest of a command's runs (wait4).
"""

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time

MIB = 1 << 20


def make_files(root):
    """The case files, reused when already there."""
    files = os.path.join(root, "files32")
    os.makedirs(files, exist_ok=True)
    chunk = os.urandom(16 * MIB)
    for i in range(32):
        path = os.path.join(files, f"{i:02}.bin")
        if not os.path.exists(path) or os.path.getsize(path) != 16 * MIB:
            with open(path, "wb") as f:
                f.write(chunk[i:] + chunk[:i])
    one = os.path.join(root, "one512.bin")
    if not os.path.exists(one) or os.path.getsize(one) != 512 * MIB:
        with open(one, "wb") as f:
            for i in range(32):
                f.write(chunk[i:] + chunk[:i])
    big = os.path.join(root, "big4g.bin")
    if not os.path.exists(big) or os.path.getsize(big) != 4096 * MIB:
        with open(big, "wb") as f:
            for i in range(256):
                f.write(chunk[i:] + chunk[:i])
    small = os.path.join(root, "small")
    if not os.path.isdir(small) or len(os.listdir(small)) != 100:
        shutil.rmtree(small, ignore_errors=True)
        rng = random.Random(18)
        for d in range(100):
            sub = os.path.join(small, f"{d:02}")
            os.makedirs(sub)
            for i in range(100):
                with open(os.path.join(sub, f"{i:02}"), "wb") as f:
                    f.write(chunk[: rng.randrange(64 * 1024 + 1)])
    listing = sorted(os.path.join(files, f) for f in os.listdir(files))
    return listing, one, big, small


def drop_caches():
    subprocess.run(["sync"], check=True)
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def read_back(paths):
    """Drops the page cache and reads the files back: warm, as a first
    read leaves them."""
    drop_caches()
    subprocess.run(["cat", *paths], stdout=subprocess.DEVNULL, check=True)


def run(argv):
    """Seconds, peak RSS (MiB) and stdout of one command. The RSS comes from
    GNU time, whose own small image is what the command's peak starts from
    (a child of this Python would count Python's)."""
    with open(os.devnull, "w") as null:
        rss_pipe = os.pipe()
        start = time.perf_counter()
        proc = subprocess.Popen(
            ["/usr/bin/time", "-f", "%M", "-o", f"/dev/fd/{rss_pipe[1]}", *argv],
            stdout=subprocess.PIPE, stderr=null, pass_fds=(rss_pipe[1],),
        )
        os.close(rss_pipe[1])
        out = proc.stdout.read()
        status = proc.wait()
        elapsed = time.perf_counter() - start
        with os.fdopen(rss_pipe[0]) as f:
            kib = f.read().split()
    if status != 0:
        sys.exit(f"{' '.join(argv)}: exit status {status}")
    return elapsed, int(kib[-1]) / 1024, out


def lanes_rate(linerate, size=16384, cold=False):
    """The lanes engine's rate (bytes/s) by `speed md5-mb`: in cache at
    16 KiB, the anchor of `sum`, unless told otherwise."""
    argv = [linerate, "speed", *(["--cold"] if cold else []), "md5-mb",
            "--bytes", str(size), "--seconds", "0.3", "--json"]
    out = subprocess.run(argv, check=True, stdout=subprocess.PIPE).stdout
    cells = json.loads(out)["tables"][0]["cells"]
    return next(c["bytes_per_second"] for c in cells if c["row"] == "md5-mb")


def measure(name, commands, rounds, before=None, anchor_rate=None):
    """Runs `commands` ({label: argv}) in alternating rounds; `before` runs
    before each command (dropping the cache). Returns rows of (label,
    median s, min, max, peak RSS MiB)."""
    times = {label: [] for label in commands}
    rss = dict.fromkeys(commands, 0.0)
    rates = []
    for _ in range(rounds):
        for label, argv in commands.items():
            if before:
                before()
            elapsed, peak, _ = run(argv)
            times[label].append(elapsed)
            rss[label] = max(rss[label], peak)
        if anchor_rate:
            rates.append(anchor_rate())
    rows = [
        (label, statistics.median(t), min(t), max(t), rss[label]) for label, t in times.items()
    ]
    return rows, (statistics.median(rates) if rates else None)


def report(name, rows, nbytes, ratios, anchor=None, markdown=False, row_bytes=None):
    """Prints a case's table; `row_bytes` ({label: bytes}) for rows that
    read other than `nbytes`."""
    medians = {label: m for label, m, *_ in rows}
    print(f"\n{name}" if not markdown else f"\n**{name}**\n")
    if markdown:
        print("| command | median | range | rate | peak RSS |")
        print("|---|---|---|---|---|")
    for label, m, lo, hi, peak in rows:
        size = (row_bytes or {}).get(label, nbytes)
        rate = size / m / 1e9 if size else None
        rate_s = f"{rate:.2f} GB/s" if rate else ""
        if markdown:
            print(f"| {label} | {m * 1000:.1f} ms | {lo * 1000:.1f}-{hi * 1000:.1f} | {rate_s} | {peak:.0f} MiB |")
        else:
            print(f"  {label:34} {m * 1000:9.1f} ms ({lo * 1000:.1f}-{hi * 1000:.1f})  {rate_s:>11}  RSS {peak:6.0f} MiB")
    for num, den in ratios:
        if num in medians and den in medians:
            line = f"{den} / {num} (time): {medians[den] / medians[num]:.3f}"
            print(f"- {line}" if markdown else f"  {line}")
    if anchor:
        label, rate = anchor
        got = nbytes / medians[label]
        line = f"{label}: {got / 1e9:.2f} GB/s = {got / rate:.3f} of `speed md5-mb --bytes 16384` ({rate / 1e9:.2f} GB/s, same rounds)"
        print(f"- {line}" if markdown else f"  {line}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--before", required=True, help="the old build's linerate")
    p.add_argument("--after", required=True, help="the new build's linerate")
    p.add_argument("--rounds", type=int, default=9)
    p.add_argument("--dir", default="/tmp/linerate-bench-files")
    p.add_argument("--cases", default="warm,md5p,etag,small,cold,engine")
    p.add_argument("--markdown", action="store_true")
    args = p.parse_args()
    cases = args.cases.split(",")
    listing, one, big, small = make_files(args.dir)
    old, new = args.before, args.after
    b3sum = shutil.which("b3sum")
    total = 32 * 16 * MIB

    if "warm" in cases:
        read_back(listing)
        commands = {
            "before sum -j1": [old, "sum", "-j1", *listing],
            "after sum -j1": [new, "sum", "-j1", *listing],
            "before sum -j2": [old, "sum", "-j2", *listing],
            "after sum -j2": [new, "sum", "-j2", *listing],
        }
        if b3sum:
            commands["b3sum --num-threads 1"] = [b3sum, "--num-threads", "1", *listing]
            commands["b3sum"] = [b3sum, *listing]
        rows, rate = measure("warm", commands, args.rounds, anchor_rate=lambda: lanes_rate(new))
        report("32 x 16 MiB, page cache", rows, total,
               [("after sum -j1", "before sum -j1"), ("after sum -j2", "before sum -j2"),
                ("after sum -j1", "b3sum --num-threads 1"), ("after sum -j2", "b3sum")],
               ("after sum -j1", rate), args.markdown)
    if "md5p" in cases:
        read_back([one])
        commands = {
            "openssl md5": ["openssl", "md5", one],
            "before sum -a md5p16 -j1": [old, "sum", "-a", "md5p16", "-j1", one],
            "after sum -a md5p16 -j1": [new, "sum", "-a", "md5p16", "-j1", one],
            "before sum -a md5p16 -j2": [old, "sum", "-a", "md5p16", "-j2", one],
            "after sum -a md5p16 -j2": [new, "sum", "-a", "md5p16", "-j2", one],
        }
        rows, _ = measure("md5p", commands, args.rounds)
        report("one 512 MiB file, page cache", rows, 512 * MIB,
               [("before sum -a md5p16 -j1", "openssl md5"), ("after sum -a md5p16 -j1", "openssl md5"),
                ("before sum -a md5p16 -j2", "openssl md5"), ("after sum -a md5p16 -j2", "openssl md5"),
                ("after sum -a md5p16 -j1", "before sum -a md5p16 -j1"),
                ("after sum -a md5p16 -j2", "before sum -a md5p16 -j2")],
               markdown=args.markdown)
    if "etag" in cases:
        read_back([big])
        commands = {"before etag": [old, "etag", big], "after etag": [new, "etag", big]}
        rows, _ = measure("etag", commands, max(3, args.rounds // 2))
        report("etag of one 4 GiB file, page cache", rows, 4096 * MIB,
               [("after etag", "before etag")], markdown=args.markdown)
    if "small" in cases:
        subprocess.run(["find", small, "-type", "f", "-exec", "cat", "{}", "+"],
                       stdout=subprocess.DEVNULL, check=True)
        commands = {"before sum -r": [old, "sum", "-r", small], "after sum -r": [new, "sum", "-r", small]}
        rows, _ = measure("small", commands, args.rounds)
        report("10,000 files of 0-64 KiB, sum -r, page cache", rows, None,
               [("after sum -r", "before sum -r")], markdown=args.markdown)
    if "cold" in cases:
        dd = "dd iflag=direct bs=4M (one 16 MiB file)"
        commands = {
            "before sum -j1": [old, "sum", "-j1", *listing],
            "after sum -j1": [new, "sum", "-j1", *listing],
            "before sum -j2": [old, "sum", "-j2", *listing],
            "after sum -j2": [new, "sum", "-j2", *listing],
            dd: ["dd", f"if={listing[0]}", "of=/dev/null",
                                                 "bs=4M", "iflag=direct"],
        }
        rows, _ = measure("cold", commands, args.rounds, before=drop_caches)
        report("32 x 16 MiB, page cache dropped before each run", rows, total,
               [("after sum -j1", "before sum -j1"), ("after sum -j2", "before sum -j2")],
               markdown=args.markdown, row_bytes={dd: 16 * MIB})
    if "engine" in cases:
        runs = {
            f"{name} {label}": (build, size, cold)
            for name, build in (("before", old), ("after", new))
            for label, size, cold in (("--cold 1 MiB", MIB, True), ("16 KiB", 16384, False))
        }
        rates = {label: [] for label in runs}
        for _ in range(args.rounds):
            for label, (build, size, cold) in runs.items():
                rates[label].append(lanes_rate(build, size, cold))
        medians = {label: statistics.median(r) for label, r in rates.items()}
        print("\n**speed md5-mb: from DRAM (--cold, 32 x 1 MiB) and in cache (16 KiB)**\n")
        for label, got in medians.items():
            lo, hi = min(rates[label]), max(rates[label])
            print(f"- {label}: {got / 1e9:.2f} GB/s ({lo / 1e9:.2f}-{hi / 1e9:.2f})")
        for name in ("before", "after"):
            ratio = medians[f"{name} --cold 1 MiB"] / medians[f"{name} 16 KiB"]
            print(f"- {name}: --cold 1 MiB / 16 KiB in cache = {ratio:.3f}")


if __name__ == "__main__":
    main()
