#!/usr/bin/env python3
"""Writes a synthetic capture of many TCP connections, for timing
`linerate packets bench --alg tcp-md5` (docs/performance.md).

    tcp_capture.py OUT.pcap [--connections N] [--segments N]
                   [--payload BYTES | --bgp] [--ipv6] [--handshake]

Each connection is its own address and port pair (10.x.y.z:port to
10.255.0.1:179, or fd00:: addresses with --ipv6); their segments are
interleaved round-robin, as a router sees many peers. --payload gives
every segment that many payload bytes (1448 makes 1500-byte IPv4 packets
with the timestamps option); --bgp draws BGP-sized segments, 19 to 200
bytes: 40% KEEPALIVEs (19 bytes), 50% UPDATEs of 40 to 200 bytes, 10%
ROUTE-REFRESH and NOTIFICATION messages of 21 to 60 bytes. --handshake starts every connection with its SYN and SYN-ACK (as
TCP-AO needs, for the ISNs). Raw IP link type (101); TCP checksums are left
zero (bench does not read them). Deterministic: the same arguments give
the same file.
"""

import argparse
import random
import struct


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--connections", type=int, default=1000)
    p.add_argument("--segments", type=int, default=20)
    p.add_argument("--payload", type=int, default=1448)
    p.add_argument("--bgp", action="store_true")
    p.add_argument("--ipv6", action="store_true")
    p.add_argument("--handshake", action="store_true")
    a = p.parse_args()
    rng = random.Random(2385)
    with open(a.out, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 101))
        seq = [rng.getrandbits(32) for _ in range(a.connections)]
        def write(c, tcp, payload, s, server=False):
            if a.ipv6:
                src = bytes([0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, c >> 16 & 255, c >> 8 & 255, c & 255])
                dst = bytes([0xFD] + [0] * 14 + [1])
                if server:
                    src, dst = dst, src
                ip = struct.pack("!IHBB", 0x60000000, len(tcp) + len(payload), 6, 64) + src + dst
            else:
                src, dst = bytes([10, c >> 16 & 255, c >> 8 & 255, c & 255]), bytes([10, 255, 0, 1])
                if server:
                    src, dst = dst, src
                ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp) + len(payload), c & 0xFFFF, 0x4000,
                                 64, 6, 0, src, dst)
                ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
            frame = ip + tcp + payload
            f.write(struct.pack("<IIII", 1700000000 + s, c, len(frame), len(frame)))
            f.write(frame)
        if a.handshake:
            for c in range(a.connections):
                port = 40000 + c % 20000
                isn = (seq[c] - 1) & 0xFFFFFFFF
                server_isn = rng.getrandbits(32)
                write(c, struct.pack("!HHIIBBHHH", port, 179, isn, 0, 5 << 4, 0x02, 65535, 0, 0), b"", 0)
                write(c, struct.pack("!HHIIBBHHH", 179, port, server_isn, seq[c], 5 << 4, 0x12, 65535, 0, 0),
                      b"", 0, server=True)
        for s in range(a.segments):
            for c in range(a.connections):
                if a.bgp:
                    r = rng.random()
                    size = 19 if r < 0.40 else rng.randint(40, 200) if r < 0.90 else rng.randint(21, 60)
                else:
                    size = a.payload
                payload = bytes(rng.getrandbits(8) for _ in range(min(size, 64))) * (size // 64 + 1)
                payload = payload[:size]
                tcp = struct.pack("!HHIIBBHHH", 40000 + c % 20000, 179, seq[c], 1,
                                  (32 // 4) << 4, 0x18, 502, 0, 0)
                tcp += bytes([1, 1, 8, 10]) + struct.pack("!II", s, 0)
                seq[c] = (seq[c] + size) & 0xFFFFFFFF
                write(c, tcp, payload, s)


def checksum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s > 0xFFFF:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


if __name__ == "__main__":
    main()
