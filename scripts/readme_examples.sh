#!/usr/bin/env bash
# Runs the README's examples with the linerate binary BIN on a fixed set of
# files and prints a transcript: each command, its standard output, its
# standard error and its exit status, and a digest of every file it wrote.
# The transcript is the same on every machine and run (the examples that
# time things, `md5 -t`, `speed`, `report`, `packets bench`, are run for
# their exit status and line count only), so two builds of linerate can be
# compared byte for byte:
#
#   scripts/readme_examples.sh target/release/linerate > after.txt
#   diff before.txt after.txt
#
# crates/linerate-cli/tests/it/readme.rs runs it against the golden
# transcript in crates/linerate-cli/tests/it/data/readme-examples.txt.
set -euo pipefail
bin=$(realpath "${1:?usage: readme_examples.sh BIN}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The commands show as `linerate ...` whatever BIN's path; they run in
# fixture/, the transcript's scratch files stay outside it.
mkdir "$work/bin" "$work/fixture"
ln -s "$bin" "$work/bin/linerate"
export PATH="$work/bin:$PATH"
cd "$work/fixture"
export LC_ALL=C
unset LINERATE_MD5_BACKEND LINERATE_LANES_BACKEND LINERATE_NH_BACKEND LINERATE_SHA1_LANES_BACKEND POSIXLY_CORRECT

# The fixture: deterministic files of several sizes, a tree, keys, and a
# capture of IPv4/UDP packets (pcap, Ethernet).
python3 - <<'EOF'
import os, struct
def pattern(n, seed):
    out = bytearray()
    x = seed
    while len(out) < n:
        x = (x * 6364136223846793005 + 1442695040888963407) % 2**64
        out += x.to_bytes(8, "little")
    return bytes(out[:n])
os.makedirs("photos/2024", exist_ok=True)
os.makedirs("src/.git", exist_ok=True)
os.makedirs("data", exist_ok=True)
files = {
    "a.iso": 3_000_000, "b.iso": 65, "notes.txt": 1000, "big.img": 9 * 2**20 + 7,
    "big.iso": 17 * 2**20 + 3, "file.bin": 100_000, "msg.txt": 28,
    "photos/x.jpg": 300_000, "photos/2024/y.jpg": 70_000, "photos/z.tmp": 10,
    "src/main.c": 500, "src/skip.tmp": 5, "src/.git/HEAD": 23, "data/d.bin": 4096,
}
for i, (name, size) in enumerate(sorted(files.items())):
    with open(name, "wb") as f:
        f.write(pattern(size, i + 1))
with open("msg.txt", "wb") as f:
    f.write(b"what do ya want for nothing?")
with open("k.bin", "wb") as f:
    f.write(b"0123456789abcdef0123")
with open("k16", "wb") as f:
    f.write(b"abcdefghijklmnop")
os.symlink("../photos", "data/link")
# One pcap (little-endian, microseconds, Ethernet) of UDP over IPv4.
def csum(b):
    s = sum((b[i] << 8) + (b[i + 1] if i + 1 < len(b) else 0) for i in range(0, len(b), 2))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF
recs = []
for i in range(20):
    payload = pattern(40 + 37 * i, 100 + i)
    udp = struct.pack("!HHHH", 1000 + i, 53, 8 + len(payload), 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), i, 0, 64, 17, 0,
                     bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    frame = bytes([2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 8, 0]) + ip + udp
    recs.append(struct.pack("<IIII", 1700000000 + i, i, len(frame), len(frame)) + frame)
with open("in.pcap", "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1) + b"".join(recs))
EOF

run() {
    # run 'SHELL COMMAND': the transcript of one example.
    echo "\$ $1"
    set +e
    bash -c "$1" >"$work/.out" 2>"$work/.err"
    local status=$?
    set -e
    sed 's/^/  out| /' "$work/.out"
    sed 's/^/  err| /' "$work/.err"
    echo "  exit $status"
}

timed() {
    # timed 'SHELL COMMAND': examples whose figures (and rows, with the
    # core count) vary: the exit status alone.
    echo "\$ $1"
    set +e
    bash -c "$1" >/dev/null 2>"$work/.err"
    local status=$?
    set -e
    echo "  exit $status"
}

wrote() {
    # wrote FILE...: the files an example wrote, by digest.
    for f in "$@"; do
        echo "  wrote $f $(md5sum <"$f" | cut -c1-32) $(wc -c <"$f") bytes"
    done
}

L=linerate
# linerate sum: md5sum's interface.
run "$L sum *.iso > SUMS"; wrote SUMS
run "$L sum --tag notes.txt"
run "$L sum -c SUMS"
run "$L sum -c --quiet --strict SUMS"
run "find . -type f -name '*.iso' -print0 | sort -z | xargs -0 $L sum -z > SUMS0"; wrote SUMS0
run "$L sum big.img | head -1"
run "$L sum -j 8 photos/*"
run "$L sum -a md5p16 big.img"
run "$L sum -a md5p16 --tag big.img"
# Trees, manifests and audits.
run "$L sum -r photos/ > photos.md5"; wrote photos.md5
run "$L sum -r --exclude '*.tmp' --exclude .git src/"
run "$L sum -r --follow data/"
run "find . -name '*.iso' -print0 | sort -z | $L sum --files-from - -0"
run "$L audit photos.md5"
run "cp -r photos backup && $L audit --json photos.md5 backup"
run "$L etag big.iso"
run "$L etag --part-size 16MiB big.iso"
run "$L etag --match \$($L etag --part-size 5MiB big.iso | cut -d' ' -f1) big.iso"
# RFC 1321's driver.
run "$L md5 -sabc"
run "$L md5 -x"
run "$L md5 file.bin"
run "$L md5 < file.bin"
timed "$L md5 -t --count 50"
timed "$L md5 -t --block-size 16384 --count 500"
run "$L md5p -k 16 -sabc"
timed "$L md5p -k 16 -t --block-size 1M --count 2"
# MACs.
run "$L mac -a hmac-md5 --key-file k.bin *.iso > MACS"; wrote MACS
run "$L mac -a hmac-sha1-96 --key-hex 4a656665 msg.txt"
run "$L mac -a umac-64 --key-file k16 --nonce-hex 0001020304050607 msg.txt"
run "$L mac -a hmac-md5 --key-file k.bin -c MACS"
# Packets.
run "$L packets sign in.pcap -o signed.pcap --spi 0x1000 --alg hmac-md5-96 --key-file k16"; wrote signed.pcap
run "$L packets verify signed.pcap --alg hmac-md5-96 --key-file k16 -v"
timed "$L packets bench in.pcap"
# The lab (figures vary: exit status and size only).
timed "$L speed --quick md5 md5-mb umac-64"
timed "$L speed --quick --json"
