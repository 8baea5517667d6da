#!/usr/bin/env python3
"""`linerate packets bench --alg tcp-md5` against the Linux kernel's own
TCP-MD5 cost (docs/performance.md, issue 20's anchor), alternating in one
sitting: each round runs the kernel's loopback transfer with and without
TCP_MD5SIG (scripts/tcp_md5_kernel_cost.py's), then linerate's bench on
one core over a synthetic capture of 1,000 connections of 1500-byte
segments (scripts/tcp_capture.py). Medians over the rounds, and the ratio
of linerate's rate to the rate at which the kernel's cost alone would
let one core sign (one MD5 pass per byte).

    tcp_md5_vs_kernel.py [--linerate target/release/linerate] [--rounds 5]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tcp_md5_kernel_cost import transfer  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--linerate", default="target/release/linerate")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--mbytes", type=int, default=256)
    p.add_argument("--mss", type=int, default=1448)
    a = p.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory() as tmp:
        capture = os.path.join(tmp, "c1500.pcap")
        subprocess.run([sys.executable, os.path.join(here, "tcp_capture.py"), capture,
                        "--connections", "1000", "--segments", "20"], check=True)
        total = a.mbytes << 20
        kernel_ns, ours_gbps = [], []
        for _ in range(a.rounds):
            plain = transfer(total, a.mss, False)[0]
            signed = transfer(total, a.mss, True)[0]
            # Two passes per byte (sign and verify): the cost of one.
            kernel_ns.append((signed - plain) / total / 2 * 1e9)
            out = subprocess.run([a.linerate, "packets", "bench", capture, "--alg", "tcp-md5", "-j", "1"],
                                 check=True, capture_output=True, text=True).stdout
            row = [l for l in out.splitlines() if l.startswith("tcp-md5")][0].split()
            ours_gbps.append(float(row[3]))
    k = statistics.median(kernel_ns)
    kernel_gbps = 8 / k
    ours = statistics.median(ours_gbps)
    print(f"{a.rounds} alternating rounds; 1500-byte segments (kernel: MSS {a.mss})")
    print(f"  kernel TCP-MD5: {k:.3f} ns per byte per MD5 pass (median), {kernel_gbps:.2f} Gb/s per core")
    print(f"  linerate packets bench --alg tcp-md5 -j1: {ours:.2f} Gb/s (median; rounds {', '.join(f'{g:.1f}' for g in ours_gbps)})")
    print(f"  ratio: {ours / kernel_gbps:.1f}x the kernel's rate per byte")


if __name__ == "__main__":
    main()
