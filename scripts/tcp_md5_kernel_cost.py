#!/usr/bin/env python3
"""The Linux kernel's own cost of TCP-MD5 (RFC 2385), the anchor that
`linerate packets bench --alg tcp-md5` is compared with in
docs/performance.md.

    tcp_md5_kernel_cost.py [--mbytes N] [--mss N] [--rounds N]

A loopback bulk transfer of N MB in segments of MSS bytes of payload, run
with and without TCP_MD5SIG on both ends (same program, same sizes),
alternating, ROUNDS times each. The kernel signs every segment on send and
checks it on receive: two MD5 passes over each byte. The process's CPU time
(user + system, both ends and the loopback's softirq work run in it) is
taken for each run; the medians' difference, over the bytes, is the
kernel's cost of TCP-MD5 per byte sent, and half of it per MD5 pass.
Prints both, and the Gb/s that one core would reach at that cost alone.
Needs a kernel with CONFIG_TCP_MD5SIG.
"""

import argparse
import resource
import socket
import statistics
import sys
import threading
import time

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from tcp_md5_kernel import TCP_MD5SIG, md5sig  # noqa: E402

KEY = b"bgp-peer secret"


def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def transfer(total, mss, signed):
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    port = server.getsockname()[1]
    if signed:
        server.setsockopt(socket.IPPROTO_TCP, TCP_MD5SIG, md5sig(socket.AF_INET, "127.0.0.1", KEY))
    server.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, mss)
    server.listen(1)
    received = [0]

    def sink():
        conn, _ = server.accept()
        buf = bytearray(1 << 20)
        while True:
            n = conn.recv_into(buf)
            if n == 0:
                break
            received[0] += n
        conn.close()

    t = threading.Thread(target=sink)
    t.start()
    client = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if signed:
        client.setsockopt(socket.IPPROTO_TCP, TCP_MD5SIG, md5sig(socket.AF_INET, "127.0.0.1", KEY))
    client.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, mss)
    client.connect(("127.0.0.1", port))
    block = bytes(1 << 20)
    start_cpu, start = cpu(), time.perf_counter()
    sent = 0
    while sent < total:
        client.sendall(block)
        sent += len(block)
    client.shutdown(socket.SHUT_WR)
    t.join()
    spent_cpu, wall = cpu() - start_cpu, time.perf_counter() - start
    client.close()
    server.close()
    assert received[0] == sent
    return spent_cpu, wall, sent


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mbytes", type=int, default=512)
    p.add_argument("--mss", type=int, default=1448)
    p.add_argument("--rounds", type=int, default=7)
    a = p.parse_args()
    total = a.mbytes << 20
    runs = {False: [], True: []}
    for _ in range(a.rounds):
        for signed in (False, True):
            runs[signed].append(transfer(total, a.mss, signed))
    plain = statistics.median(r[0] for r in runs[False])
    md5 = statistics.median(r[0] for r in runs[True])
    per_byte = (md5 - plain) / total
    print(f"loopback, {a.mbytes} MB in {a.mss}-byte segments, {a.rounds} alternating rounds, median CPU seconds")
    print(f"  without TCP_MD5SIG: {plain:.3f} s   with: {md5:.3f} s")
    print(f"  TCP-MD5 cost: {per_byte * 1e9:.3f} ns per byte sent (sign + verify), "
          f"{per_byte * 1e9 / 2:.3f} ns per byte per MD5 pass")
    if per_byte > 0:
        print(f"  one core at that cost alone: {8 / (per_byte / 2) / 1e9:.2f} Gb/s per pass")


if __name__ == "__main__":
    main()
