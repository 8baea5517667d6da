#!/usr/bin/env python3
"""A TCP connection on loopback, signed by the Linux kernel's TCP-MD5
(RFC 2385, setsockopt TCP_MD5SIG on both ends) or not signed at all,
captured with an AF_PACKET socket and written as a pcap (Ethernet).

    tcp_md5_kernel.py OUT.pcap [--family 4|6] [--key HEX] [--bytes N]
                      [--segment N] [--connections N]

With --key the kernel signs every segment (SYN, data, ACKs, FINs) with
that key; without it the connection carries no TCP-MD5 option. --bytes is
sent each way per connection, in writes of --segment bytes (TCP_NODELAY, so
that most become segments of that size). Exit 77 where the capture socket
cannot be opened (no CAP_NET_RAW) or the kernel has no TCP_MD5SIG.

The independent peer of crates/linerate-cli/tests/it/packets_tcp.rs: the
kernel computes the digests, linerate only reads them.
"""

import argparse
import select
import socket
import struct
import sys
import threading
import time

TCP_MD5SIG = 14  # include/uapi/linux/tcp.h
ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4


def md5sig(family, address, key):
    """struct tcp_md5sig: the peer's sockaddr_storage (128 bytes), flags,
    prefix length, key length, ifindex, the key (80 bytes)."""
    if family == socket.AF_INET:
        addr = struct.pack("=H", socket.AF_INET) + b"\0\0" + socket.inet_aton(address)
    else:
        addr = (struct.pack("=H", socket.AF_INET6) + b"\0\0" + b"\0" * 4
                + socket.inet_pton(socket.AF_INET6, address) + b"\0" * 4)
    addr = addr.ljust(128, b"\0")
    return addr + struct.pack("=BBHI", 0, 0, len(key), 0) + key.ljust(80, b"\0")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--family", choices=["4", "6"], default="4")
    p.add_argument("--key")
    p.add_argument("--bytes", type=int, default=20000)
    p.add_argument("--segment", type=int, default=1000)
    p.add_argument("--connections", type=int, default=1)
    a = p.parse_args()
    family = socket.AF_INET if a.family == "4" else socket.AF_INET6
    host = "127.0.0.1" if a.family == "4" else "::1"
    key = bytes.fromhex(a.key) if a.key else None

    try:
        sniff = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        # Room for bursts while this thread waits for the interpreter.
        sniff.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 << 20)
        sniff.bind(("lo", 0))
    except PermissionError as e:
        print(f"tcp_md5_kernel: no capture socket: {e}", file=sys.stderr)
        return 77

    server = socket.socket(family, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind((host, 0))
    port = server.getsockname()[1]
    if key is not None:
        try:
            server.setsockopt(socket.IPPROTO_TCP, TCP_MD5SIG, md5sig(family, host, key))
        except OSError as e:
            print(f"tcp_md5_kernel: TCP_MD5SIG refused: {e}", file=sys.stderr)
            return 77
    server.listen(a.connections)
    payload = bytes((i * 7 + 3) % 251 for i in range(a.bytes))

    def serve():
        for _ in range(a.connections):
            conn, _ = server.accept()
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            got = b""
            while len(got) < len(payload):
                chunk = conn.recv(65536)
                if not chunk:
                    break
                got += chunk
            for i in range(0, len(payload), a.segment):
                conn.sendall(payload[i:i + a.segment])
            conn.close()

    frames = []
    done = threading.Event()

    def capture():
        while not done.is_set() or select.select([sniff], [], [], 0.3)[0]:
            if not select.select([sniff], [], [], 0.1)[0]:
                continue
            frame, addr = sniff.recvfrom(262144)
            # Loopback shows every frame twice: sent and received.
            if addr[2] == PACKET_OUTGOING:
                continue
            if is_ours(frame, port):
                frames.append((time.time(), frame))

    catcher = threading.Thread(target=capture)
    catcher.start()
    worker = threading.Thread(target=serve)
    worker.start()
    for _ in range(a.connections):
        client = socket.socket(family, socket.SOCK_STREAM)
        if key is not None:
            client.setsockopt(socket.IPPROTO_TCP, TCP_MD5SIG, md5sig(family, host, key))
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        client.connect((host, port))
        for i in range(0, len(payload), a.segment):
            client.sendall(payload[i:i + a.segment])
        got = b""
        while True:
            chunk = client.recv(65536)
            if not chunk:
                break
            got += chunk
        assert got == payload, "echo differs"
        client.close()
    worker.join()
    time.sleep(0.3)
    done.set()
    catcher.join()
    server.close()

    with open(a.out, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1))
        for t, frame in frames:
            f.write(struct.pack("<IIII", int(t), int((t % 1) * 1e6), len(frame), len(frame)))
            f.write(frame)
    print(f"{len(frames)} frames on port {port}", file=sys.stderr)
    return 0


def is_ours(frame, port):
    """A TCP segment to or from `port` on loopback (Ethernet framing)."""
    ethertype = struct.unpack("!H", frame[12:14])[0]
    if ethertype == 0x0800:
        ihl = (frame[14] & 0x0F) * 4
        if frame[23] != 6:
            return False
        tcp = 14 + ihl
    elif ethertype == 0x86DD:
        if frame[20] != 6:
            return False
        tcp = 14 + 40
    else:
        return False
    sport, dport = struct.unpack("!HH", frame[tcp:tcp + 4])
    return port in (sport, dport)


if __name__ == "__main__":
    sys.exit(main())
