#!/usr/bin/env bash
# hw/run-tests.sh -- lint and simulate the MD5 RTL.
#
# Installs what is missing (iverilog and verilator from Debian's packages,
# cocotb==1.9.2 into hw/.venv), runs `verilator --lint-only -Wall` on every
# core and variant, then the cocotb testbenches under Icarus Verilog for every
# COUNTER x GATING variant.  Idempotent; exits non-zero on any failure and ends
# with "hw tests: N passed, M failed".  Every tool gets hw/rtl as its include
# path (-I), where md5_k.vh (the K table) lives.
#
# Environment: RANDOM_SEED=<n> reproduces a cocotb run (the seed is logged).
set -uo pipefail

HW="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
COCOTB_VERSION=1.9.2
VENV="$HW/.venv"
LOG="$HW/tb/sim_build/logs"

# ---------------------------------------------------------------- tools
need_apt=()
command -v iverilog >/dev/null 2>&1 || need_apt+=(iverilog)
command -v verilator >/dev/null 2>&1 || need_apt+=(verilator)
if [ ${#need_apt[@]} -gt 0 ]; then
    echo "hw: installing ${need_apt[*]} (apt-get)"
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq && $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null \
        || { echo "hw: could not install ${need_apt[*]}" >&2; exit 1; }
fi

if ! "$VENV/bin/python" -c "import cocotb, sys; sys.exit(cocotb.__version__ != '$COCOTB_VERSION')" >/dev/null 2>&1; then
    echo "hw: installing cocotb==$COCOTB_VERSION into $VENV"
    python3 -m venv "$VENV" \
        && "$VENV/bin/pip" install -q --disable-pip-version-check "cocotb==$COCOTB_VERSION" \
        || { echo "hw: could not install cocotb" >&2; exit 1; }
fi
export PATH="$VENV/bin:$PATH"

mkdir -p "$LOG"
passed=0
failed=0

# ---------------------------------------------------------------- lint
lint() {  # top counter gating
    local top=$1 counter=$2 gating=$3 name="lint $1 COUNTER=$2 GATING=$3"
    if verilator --lint-only -Wall -I"$HW/rtl" --top-module "$top" \
            -GCOUNTER="\"$counter\"" -GGATING="$gating" \
            "$HW/rtl/md5_iter.v" "$HW/rtl/md5_words.v" "$HW/rtl/md5_stream.v" \
            >"$LOG/lint_${top}_${counter}_${gating}.log" 2>&1; then
        passed=$((passed + 1)); echo "PASS $name"
    else
        failed=$((failed + 1)); echo "FAIL $name"; cat "$LOG/lint_${top}_${counter}_${gating}.log"
    fi
}

for top in md5_iter md5_stream; do
    for counter in binary gray; do
        for gating in 0 1; do
            lint "$top" "$counter" "$gating"
        done
    done
done

# ---------------------------------------------------------------- simulation
sim_params() {  # top module tag params -- a cocotb run with explicit parameters
    local top=$1 module=$2 tag=$3 params=$4
    local results="$HW/tb/sim_build/${top}_$tag/results.xml"
    rm -f "$results"
    make -s -C "$HW/tb" TOPLEVEL="$top" MODULE="$module" TAG="$tag" PARAMS="$params" \
        COCOTB_RESULTS_FILE="$results" >"$LOG/sim_${top}_$tag.log" 2>&1
    local rc=$?
    local counts
    counts=$(python3 - "$results" <<'PY'
import sys, xml.etree.ElementTree as ET
try:
    root = ET.parse(sys.argv[1]).getroot()
except Exception:
    print("0 0"); sys.exit()
cases = list(root.iter("testcase"))
bad = sum(1 for c in cases if c.find("failure") is not None or c.find("error") is not None)
print(len(cases) - bad, bad)
PY
)
    local p=${counts% *} f=${counts#* }
    if [ "$rc" -ne 0 ] || [ "$p" -eq 0 ]; then
        f=$((f > 0 ? f : 1))
    fi
    passed=$((passed + p)); failed=$((failed + f))
    if [ "$f" -eq 0 ]; then
        echo "PASS sim $top ($module) $tag: $p tests"
    else
        echo "FAIL sim $top ($module) $tag: $p passed, $f failed (log: $LOG/sim_${top}_$tag.log)"
        grep -E "FAIL|Error|error|assert" "$LOG/sim_${top}_$tag.log" | head -40
    fi
}

sim() {  # top module counter gating
    local top=$1 module=$2 counter=$3 gating=$4
    COUNTER="$counter" GATING="$gating" sim_params "$top" "$module" "${counter}_${gating}" \
        "-P$top.COUNTER=\\\"$counter\\\" -P$top.GATING=$gating"
}

for counter in binary gray; do
    for gating in 0 1; do
        sim md5_iter test_md5_iter "$counter" "$gating"
        sim md5_stream test_md5_stream "$counter" "$gating"
    done
done

# ---------------------------------------------------------------- more suites
# Each core beyond md5_iter/md5_stream adds its lint, simulations and formal
# checks in a file of its own under hw/tests.d/, sourced here; they count
# into $passed/$failed (helpers: lint_files, sim_params, count_result).
lint_files() {  # name top file... -- lint `top` built from the given files (include path hw/rtl)
    local name=$1 top=$2; shift 2
    local log="$LOG/lint_${name// /_}.log"
    if verilator --lint-only -Wall -I"$HW/rtl" --top-module "$top" "$@" >"$log" 2>&1; then
        passed=$((passed + 1)); echo "PASS lint $name"
    else
        failed=$((failed + 1)); echo "FAIL lint $name"; cat "$log"
    fi
}

count_result() {  # name status -- record one check run by a suite itself
    if [ "$2" -eq 0 ]; then
        passed=$((passed + 1)); echo "PASS $1"
    else
        failed=$((failed + 1)); echo "FAIL $1"
    fi
}

for suite in "$HW"/tests.d/*.sh; do
    [ -e "$suite" ] || continue
    # shellcheck source=/dev/null
    . "$suite"
done

echo "hw tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
