#!/usr/bin/env python3
"""ah_peer.py -- an independent AH peer for `linerate packets`: scapy's IPsec.

    ah_peer.py sign IN OUT --spi N --alg ALG (--key-hex HEX | --key-file F) [--seq-start N]
    ah_peer.py verify IN --alg ALG (--key-hex HEX | --key-file F) [--spi N]

ALG is hmac-md5-96 (RFC 2403) or hmac-sha1-96 (RFC 2404).  `sign` adds an
Authentication Header (RFC 4302, transport mode) to every IPv4 and IPv6
packet of the capture IN with `scapy.layers.ipsec.SecurityAssociation.
encrypt`, sequence numbers from --seq-start (default 1) in capture order,
and writes OUT; other frames are copied unchanged.  `verify` checks every
packet that carries an AH with `SecurityAssociation.decrypt` (the SPI is the
packet's own unless --spi is given) and prints linerate's summary line

    N packets: A verified, B bad ICV, C not AH, D malformed

with one line on stderr per failing packet; exit 0 only if at least one
packet carried an AH, every one verified and none was malformed, 1
otherwise, 2 on a usage error or an unreadable file.

Only the AH is scapy's: the pcap records (classic pcap, microsecond or
nanosecond, either byte order; not pcapng) and the link layers (Ethernet
with VLAN tags, raw IP 101/228/229, Linux cooked SLL and SLL2) are read
here, so that scapy sees exactly the IP packet.  A packet that scapy cannot
rebuild byte for byte from its own dissection is reported as malformed and
never signed or judged: its ICV would be computed over other bytes.
Bytes after the IP packet (Ethernet padding) stay after it and are outside
the ICV.

Where scapy 2.6.1 differs from RFC 4302 (read in scapy/layers/ipsec.py,
`split_for_transport` and `zero_mutable_fields`), and so where this peer
must not be used as a reference:
- IPv4 fragment offset: RFC 4302 3.3.3.1.1.1 zeroes it; scapy zeroes the
  flags but not the offset.  The same for whole packets (offset 0), which
  are the only ones AH is applied to; differs for fragments.
- IPv4 loose/strict source route: scapy zeroes the options (right, Appendix
  A) but keeps the destination address as it is in the packet instead of
  predicting the final one (3.3.3.1.1.1).
- IPv6 placement: scapy (like Linux) puts the AH after every Hop-by-Hop,
  Routing and Destination Options header up to a Destination Options header
  that follows a Routing header, and before a Fragment header.  RFC 4302
  3.1.1 / RFC 8200 put it after a Fragment header and before a Destination
  Options header that has no Routing header before it.  Same placement for
  Hop-by-Hop alone (no Fragment or Destination Options header).
- IPv6 headers after the AH: scapy zeroes mutable option data (type bit
  0x20) only in the extension headers before the AH, not in a Destination
  Options header after it (3.3.3.1.2.2 covers every option in the packet).
- IPv6 Routing header: on signing scapy rewrites a type 0 header to its
  form at the receiver (right); on verifying it takes the header as it is
  (right only for a capture taken at the receiver) and stops zeroing
  mutable options after it.  A Segment Routing header (type 4, scapy's
  IPv6ExtHdrSegmentRouting) ends scapy's walk: the AH goes before it.
No difference in the AH's size: scapy pads it with zeros to a multiple of
8 bytes for IPv6 and 4 for IPv4 (RFC 4302 2.6), sets Payload Len to its
length in words minus 2 (2.2) and Reserved to 0; with the 12-byte ICVs
here the AH is 24 bytes and never padded.  On verifying, scapy takes the
ICV as the first 12 bytes of the ICV field and ignores the padding.
"""

import argparse
import os
import struct
import sys

try:
    from scapy.layers.inet import IP
    from scapy.layers.inet6 import IPv6
    from scapy.layers.ipsec import AH, IPSecIntegrityError, SecurityAssociation
except ImportError as err:  # the peer is missing: say how to install it
    sys.exit(f"ah_peer: scapy is not installed ({err}): run scripts/setup.sh")

PROG = "ah_peer"
ALGS = {"hmac-md5-96": "HMAC-MD5-96", "hmac-sha1-96": "HMAC-SHA1-96"}
ETHERTYPE_IPV4, ETHERTYPE_IPV6 = 0x0800, 0x86DD
VLAN_TAGS = (0x8100, 0x88A8, 0x9100)


class Malformed(Exception):
    """A record this peer cannot take an IP packet out of, or scapy cannot rebuild."""


# ------------------------------------------------------------------ pcap
def read_pcap(path):
    """Returns (header fields, records); a record is [ts_sec, ts_frac, orig_len, data]."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        raise OSError("not a pcap file (too short)")
    magic = data[:4]
    if magic == b"\x0a\x0d\x0d\x0a":
        raise OSError("pcapng is not supported here: convert it with `editcap -F pcap`")
    for endian in "<>":
        (m,) = struct.unpack(endian + "I", magic)
        if m in (0xA1B2C3D4, 0xA1B23C4D):
            break
    else:
        raise OSError("not a pcap file (bad magic)")
    _, _, _, _, snaplen, linktype = struct.unpack(endian + "HHiIII", data[4:24])
    records = []
    pos = 24
    while pos < len(data):
        if pos + 16 > len(data):
            raise OSError(f"truncated record header after packet {len(records)}")
        ts_sec, ts_frac, incl, orig = struct.unpack(endian + "IIII", data[pos : pos + 16])
        pos += 16
        if pos + incl > len(data):
            raise OSError(f"packet {len(records) + 1}: truncated record")
        records.append([ts_sec, ts_frac, orig, data[pos : pos + incl]])
        pos += incl
    return (m, snaplen, linktype), records


def write_pcap(path, header, records):
    magic, snaplen, linktype = header
    # The snap length grows only if a signed packet outgrew it.
    snaplen = max([snaplen] + [len(record[3]) for record in records])
    out = [struct.pack("<IHHiIII", magic, 2, 4, 0, 0, snaplen, linktype)]
    for ts_sec, ts_frac, orig, data in records:
        out.append(struct.pack("<IIII", ts_sec, ts_frac, len(data), orig) + data)
    # Written whole to a temporary name, then renamed: never half an OUT.
    temporary = f"{path}.ah_peer-{os.getpid()}"
    with open(temporary, "wb") as f:
        f.write(b"".join(out))
    os.replace(temporary, path)


# ------------------------------------------------------------------ link layers
def split_frame(linktype, frame):
    """(link header, IP packet, trailing bytes), or None for a frame that is not IP."""
    if linktype == 1:  # Ethernet, VLAN tags skipped
        pos = 12
        while True:
            if len(frame) < pos + 2:
                raise Malformed("truncated Ethernet header")
            (etype,) = struct.unpack("!H", frame[pos : pos + 2])
            if etype not in VLAN_TAGS:
                break
            pos += 4
        if etype not in (ETHERTYPE_IPV4, ETHERTYPE_IPV6):
            return None
        head = pos + 2
    elif linktype in (12, 14, 101, 228, 229):  # raw IP
        head = 0
    elif linktype == 113:  # Linux cooked SLL: protocol at 14
        if len(frame) < 16:
            raise Malformed("truncated SLL header")
        if struct.unpack("!H", frame[14:16])[0] not in (ETHERTYPE_IPV4, ETHERTYPE_IPV6):
            return None
        head = 16
    elif linktype == 276:  # SLL2: protocol at 0
        if len(frame) < 20:
            raise Malformed("truncated SLL2 header")
        if struct.unpack("!H", frame[0:2])[0] not in (ETHERTYPE_IPV4, ETHERTYPE_IPV6):
            return None
        head = 20
    else:
        raise Malformed(f"unsupported link type {linktype}")
    ip = frame[head:]
    if not ip:
        raise Malformed("no IP header")
    version = ip[0] >> 4
    if version == 4:
        if len(ip) < 20:
            raise Malformed("truncated IPv4 header")
        (length,) = struct.unpack("!H", ip[2:4])
        if length < (ip[0] & 15) * 4 or (ip[0] & 15) < 5:
            raise Malformed("bad IPv4 header or total length")
    elif version == 6:
        if len(ip) < 40:
            raise Malformed("truncated IPv6 header")
        length = 40 + struct.unpack("!H", ip[4:6])[0]
    else:
        raise Malformed(f"IP version {version}")
    if len(ip) < length:
        raise Malformed("truncated IP packet")
    return frame[:head], ip[:length], ip[length:]


def dissect(ip):
    """scapy's dissection of an IP packet, which must rebuild the same bytes."""
    pkt = (IP if ip[0] >> 4 == 4 else IPv6)(ip)
    if bytes(pkt) != ip:
        raise Malformed("scapy does not rebuild this packet byte for byte")
    return pkt


# ------------------------------------------------------------------ commands
def sign(args, key):
    header, records = read_pcap(args.input)
    sa = SecurityAssociation(
        AH, spi=args.spi, seq_num=args.seq_start, auth_algo=ALGS[args.alg], auth_key=key
    )
    problems = 0
    for index, record in enumerate(records, 1):
        try:
            parts = split_frame(header[2], record[3])
            if parts is None:
                continue
            link, ip, trailer = parts
            signed = bytes(sa.encrypt(dissect(ip)))
        except Malformed as err:
            print(f"{PROG}: {args.input}: packet {index}: {err}", file=sys.stderr)
            problems += 1
            continue
        record[2] += len(signed) - len(ip)
        record[3] = link + signed + trailer
    write_pcap(args.output, header, records)
    return 1 if problems else 0


def verify(args, key):
    header, records = read_pcap(args.input)
    verified = bad = not_ah = malformed = 0
    for index, record in enumerate(records, 1):
        try:
            parts = split_frame(header[2], record[3])
            if parts is None:
                not_ah += 1
                continue
            pkt = dissect(parts[1])
        except Malformed as err:
            print(f"{PROG}: {args.input}: packet {index}: {err}", file=sys.stderr)
            malformed += 1
            continue
        if not pkt.haslayer(AH):
            not_ah += 1
            continue
        spi = pkt[AH].spi if args.spi is None else args.spi
        sa = SecurityAssociation(AH, spi=spi, auth_algo=ALGS[args.alg], auth_key=key)
        try:
            sa.decrypt(pkt)
            verified += 1
        except IPSecIntegrityError:
            print(f"{PROG}: {args.input}: packet {index}: bad ICV", file=sys.stderr)
            bad += 1
        except TypeError as err:  # scapy's SPI mismatch
            print(f"{PROG}: {args.input}: packet {index}: {err}", file=sys.stderr)
            bad += 1
    print(
        f"{len(records)} packets: {verified} verified, {bad} bad ICV, "
        f"{not_ah} not AH, {malformed} malformed"
    )
    return 0 if verified and not bad and not malformed else 1


def number(text):
    value = int(text, 0)
    if not 0 <= value <= 0xFFFFFFFF:
        raise ValueError(text)
    return value


def main():
    parser = argparse.ArgumentParser(prog="ah_peer.py", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("sign", "verify"):
        p = sub.add_parser(name)
        p.add_argument("input")
        if name == "sign":
            p.add_argument("output")
        p.add_argument("--alg", required=True, choices=sorted(ALGS))
        keys = p.add_mutually_exclusive_group(required=True)
        keys.add_argument("--key-hex")
        keys.add_argument("--key-file")
        p.add_argument("--spi", type=number, required=name == "sign")
        if name == "sign":
            p.add_argument("--seq-start", type=number, default=1)
    args = parser.parse_args()
    try:
        if args.key_hex is not None:
            key = bytes.fromhex(args.key_hex)
        else:
            with open(args.key_file, "rb") as f:
                key = f.read()
    except (ValueError, OSError) as err:
        print(f"{PROG}: bad key: {err}", file=sys.stderr)
        return 2
    try:
        return sign(args, key) if args.command == "sign" else verify(args, key)
    except OSError as err:
        print(f"{PROG}: {getattr(err, 'filename', None) or args.input}: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
