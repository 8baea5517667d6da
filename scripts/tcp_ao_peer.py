#!/usr/bin/env python3
"""scapy's TCP-AO (scapy.contrib.tcpao: RFC 5925's message and context,
RFC 5926's KDFs and MACs) as the peer of `linerate packets --alg tcp-ao-*`
(crates/linerate-cli/tests/it/packets_tcp_ao.rs). Run from .venv-peers.

    tcp_ao_peer.py make OUT.pcap --alg ALG --key HEX [--exclude-options]
                   [--ipv6] [--key-id N] [--unsigned]
    tcp_ao_peer.py check IN.pcap --alg ALG --key HEX [--exclude-options]

make: one connection (SYN, SYN-ACK, ACK, then data both ways, some
segments with a timestamps option, one retransmitted after the client's
sequence numbers wrap past 2^32, so that its SNE goes 0 -> 1 and back for
the retransmission), every segment signed with scapy's primitives; with
--unsigned, the same segments without the option. check: follows each
connection's ISNs from its SYNs and each direction's SNE, recomputes every
TCP-AO segment's MAC and prints 'VALID INVALID' (counts).

ALG is hmac-sha1-96 or aes128-cmac-96. scapy 2.6.1's sign_tcpao() MACs
the MAC a second time (it passes calc_tcpao_mac's result to alg.mac), so
the option is filled in here from calc_tcpao_mac directly.
"""

import argparse
import sys

from scapy.contrib import tcpao
from scapy.layers.inet import IP, TCP
from scapy.layers.inet6 import IPv6
from scapy.utils import PcapWriter, rdpcap

ALGS = {"hmac-sha1-96": "HMAC-SHA-1-96", "aes128-cmac-96": "AES-128-CMAC-96"}


def segments(ipv6):
    """The connection's segments, unsigned: (packet, sender is client)."""
    if ipv6:
        cli, srv = IPv6(src="fd00::1", dst="fd00::2"), IPv6(src="fd00::2", dst="fd00::1")
    else:
        cli, srv = IP(src="10.11.12.13", dst="172.27.28.29"), IP(src="172.27.28.29", dst="10.11.12.13")
    c_isn, s_isn = 0xFFFFF000, 0x11C14261
    ts = [("NOP", None), ("NOP", None), ("Timestamp", (1000, 2000))]
    out = []
    out.append((cli / TCP(sport=51000, dport=179, flags="S", seq=c_isn, options=[("MSS", 1460)]), True))
    out.append((srv / TCP(sport=179, dport=51000, flags="SA", seq=s_isn, ack=c_isn + 1), False))
    c, s = c_isn + 1, s_isn + 1
    out.append((cli / TCP(sport=51000, dport=179, flags="A", seq=c, ack=s), True))
    for i in range(6):
        data = bytes((i * 13 + j) % 256 for j in range(1400))
        opts = ts if i % 2 else []
        out.append((cli / TCP(sport=51000, dport=179, flags="PA", seq=c & 0xFFFFFFFF, ack=s, options=opts) / data, True))
        c += len(data)
        reply = b"BGP KEEPALIVE %d" % i
        out.append((srv / TCP(sport=179, dport=51000, flags="PA", seq=s, ack=c & 0xFFFFFFFF, options=opts) / reply, False))
        s += len(reply)
    # A retransmission of a segment sent before the wrap.
    first = out[3][0].copy()
    out.append((first, True))
    out.append((cli / TCP(sport=51000, dport=179, flags="FA", seq=c & 0xFFFFFFFF, ack=s), True))
    return out, c_isn, s_isn


class Direction:
    def __init__(self, isn):
        self.isn, self.high, self.sne = isn, isn, 0

    def sne_for(self, seq):
        if (seq - self.high) % 2**32 < 2**31:
            if seq < self.high:
                self.sne += 1
            self.high = seq
            return self.sne
        return self.sne - 1 if seq > self.high else self.sne


def context_key(alg, key, p, src_isn, dst_isn):
    return alg.kdf(key, tcpao.build_context_from_packet(p, src_isn, dst_isn))


def make(a):
    alg = tcpao.get_alg(ALGS[a.alg])
    key = bytes.fromhex(a.key)
    segs, c_isn, s_isn = segments(a.ipv6)
    dirs = {True: Direction(c_isn), False: Direction(s_isn)}
    writer = PcapWriter(a.out, sync=True)
    for p, from_client in segs:
        th = p[TCP]
        syn = "S" in th.flags and "A" not in th.flags
        own, peer = (c_isn, s_isn) if from_client else (s_isn, c_isn)
        sne = 0 if "S" in th.flags else dirs[from_client].sne_for(th.seq)
        if not a.unsigned:
            th.options = list(th.options) + [("AO", bytes([a.key_id, a.key_id]) + b"\0" * 12)]
            p = p.__class__(bytes(p))
            traffic = context_key(alg, key, p, own, 0 if syn else peer)
            mac = tcpao.calc_tcpao_mac(p, alg, traffic, include_options=not a.exclude_options, sne=sne)
            th = p[TCP]
            th.options = list(th.options)[:-1] + [("AO", bytes([a.key_id, a.key_id]) + mac)]
            del th.chksum
        writer.write(p.__class__(bytes(p)))
    writer.close()


def check(a):
    alg = tcpao.get_alg(ALGS[a.alg])
    key = bytes.fromhex(a.key)
    isns, dirs = {}, {}
    valid = invalid = 0
    for frame in rdpcap(a.input):
        p = IPv6(bytes(frame)) if bytes(frame)[0] >> 4 == 6 else IP(bytes(frame))
        if TCP not in p:
            continue
        th = p[TCP]
        ip = p[IPv6] if IPv6 in p else p[IP]
        flow, back = (ip.src, ip.dst, th.sport, th.dport), (ip.dst, ip.src, th.dport, th.sport)
        if "S" in th.flags:
            isns[flow] = th.seq
            dirs[flow] = Direction(th.seq)
            if "A" in th.flags:
                isns.setdefault(back, (th.ack - 1) % 2**32)
        ao = [o for o in th.options if o[0] == "AO"]
        if not ao:
            continue
        syn = "S" in th.flags and "A" not in th.flags
        sne = 0 if "S" in th.flags else dirs[flow].sne_for(th.seq)
        traffic = context_key(alg, key, p, isns[flow], 0 if syn else isns[back])
        mac = tcpao.calc_tcpao_mac(p, alg, traffic, include_options=not a.exclude_options, sne=sne)
        if mac == bytes(ao[0][1])[2:]:
            valid += 1
        else:
            invalid += 1
    print(valid, invalid)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("command", choices=["make", "check"])
    p.add_argument("path")
    p.add_argument("--alg", choices=sorted(ALGS), required=True)
    p.add_argument("--key", required=True)
    p.add_argument("--exclude-options", action="store_true")
    p.add_argument("--ipv6", action="store_true")
    p.add_argument("--key-id", type=int, default=0)
    p.add_argument("--unsigned", action="store_true")
    a = p.parse_args()
    if a.command == "make":
        a.out = a.path
        make(a)
    else:
        a.input = a.path
        check(a)


if __name__ == "__main__":
    sys.exit(main())
