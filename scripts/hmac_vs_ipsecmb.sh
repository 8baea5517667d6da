#!/usr/bin/env bash
# Multi-buffer HMAC-MD5 on 1500-byte packets: linerate (HmacMd5Key::tag_many
# on the lanes engine) against Intel's libipsec-mb, run alternately in one
# sitting (ours, anchor, ours, anchor, ...), medians per side and their
# ratio. Also reports linerate's single-packet HMAC-MD5 from the same rounds.
#
#   scripts/hmac_vs_ipsecmb.sh [ROUNDS] [SECONDS_PER_TRIAL]   (default 7, 1)
#
# Needs gcc, libipsec-mb-dev (installed with apt-get if missing and we are
# root) and python3 (to check both sides' first tag against Python's hmac).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-7}
seconds=${2:-1}

if [ ! -e /usr/include/intel-ipsec-mb.h ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get install -y libipsec-mb-dev >/dev/null
    else
        echo "libipsec-mb-dev is not installed (apt-get install libipsec-mb-dev)" >&2
        exit 1
    fi
fi

target=${CARGO_TARGET_DIR:-target}
mkdir -p "$target/anchors"
anchor="$target/anchors/hmac_vs_ipsecmb"
gcc -O2 -Wall -Wextra -o "$anchor" scripts/hmac_vs_ipsecmb.c -lIPSec_MB

bench=$(cargo bench -p linerate --bench hmac --no-run --message-format=json 2>/dev/null |
    python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "hmac" and m.get("executable"):
        print(m["executable"])')
[ -x "$bench" ] || { echo "could not build the hmac bench" >&2; exit 1; }

# The first packet's tag, as both sides compute it: key 16 x 0x0b, packet
# byte i = (i * 31 + 7) mod 256.
want=$(python3 -c '
import hashlib, hmac
print(hmac.new(b"\x0b" * 16, bytes((i * 31 + 7) % 256 for i in range(1500)), hashlib.md5).hexdigest())')

ours=() theirs=() single=()
for round in $(seq "$rounds"); do
    out=$("$bench" --mb-trial --seconds "$seconds")
    mb=$(awk '/^linerate-mb/ { print $3 }' <<<"$out")
    tag=$(awk '/^linerate-mb/ { print $5 }' <<<"$out")
    one=$(awk '/^linerate-single/ { print $3 }' <<<"$out")
    [ "$tag" = "$want" ] || { echo "linerate's tag $tag, Python's $want" >&2; exit 1; }
    line=$("$anchor" "$seconds")
    imb=$(awk '{ print $3 }' <<<"$line")
    itag=$(awk '{ print $5 }' <<<"$line")
    [ "$itag" = "$want" ] || { echo "libipsec-mb's tag $itag, Python's $want" >&2; exit 1; }
    ours+=("$mb") theirs+=("$imb") single+=("$one")
    echo "round $round: linerate multi-buffer $mb packets/s, libipsec-mb $imb packets/s" \
        "($(awk '{ print $7, $8, $9 }' <<<"$line")), linerate single-packet $one packets/s"
done

python3 - "${ours[*]}" "${theirs[*]}" "${single[*]}" <<'EOF'
import statistics, sys
ours, theirs, single = ([float(x) for x in a.split()] for a in sys.argv[1:4])
m, t, s = (statistics.median(v) for v in (ours, theirs, single))
gb = lambda p: p * 1500 / 1e9
print(f"medians of {len(ours)} rounds, 1500-byte packets, batches of 1024:")
print(f"  linerate multi-buffer  {m:12.0f} packets/s  {gb(m):.2f} GB/s")
print(f"  libipsec-mb            {t:12.0f} packets/s  {gb(t):.2f} GB/s")
print(f"  linerate single-packet {s:12.0f} packets/s  {gb(s):.2f} GB/s")
print(f"  linerate / libipsec-mb = {m / t:.3f}; multi-buffer / single-packet = {m / s:.2f}")
EOF
