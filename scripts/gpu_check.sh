#!/usr/bin/env bash
# The GPU checks and figures of issue 25, in one run on a machine with an
# NVIDIA GPU (the `device` tool's H100/H200 here). Builds nothing: it runs
# what scripts/gpu_prepare.sh built on the development machine and left in
# .gpu/ (the CLI, the linerate crate's test binary) and the Python module.
#
#   scripts/gpu_check.sh [--quick | --tests-only]
#
# --quick runs the lab on small batches; --tests-only leaves it out (and
# makes the CLI's file set small): the correctness checks alone.
# Each step has its own time limit and log (under $OUT, else /tmp/gpu-out);
# a failing step does not stop the others. The last lines are a summary.
set -u
OUT=${OUT:-/tmp/gpu-out}
mkdir -p "$OUT"
QUICK=${1:-}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
BIN=.gpu/linerate
SUMMARY=()

step() { # NAME LIMIT COMMAND...
    local name=$1 limit=$2
    shift 2
    local t0=$SECONDS
    echo "=== $name ($(date +%T))"
    timeout "$limit" bash -c '"$@"' _ "$@" >"$OUT/$name.log" 2>&1
    local rc=$?
    tail -n 25 "$OUT/$name.log"
    SUMMARY+=("$name: rc=$rc in $((SECONDS - t0)) s")
}

machine() {
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,power.limit --format=csv
    nproc
    grep -m1 "model name" /proc/cpuinfo
    free -g | head -2
    ldconfig -p | grep -E "libcuda.so|libnvrtc" | head -5
    command -v ptxas nvcc md5sum python3
    # Registers and spills of each kernel as the driver's compiler sees
    # them (same PTX, sm_90).
    ptxas -arch=sm_90 -v crates/linerate/src/gpu/kernels.ptx -o /tmp/k.cubin 2>&1 | grep -E "Compiling|registers|spill"
}

rust_tests() {
    .gpu/linerate-it gpu:: --test-threads 4
}

cli_checks() {
    set -e
    local d=/tmp/lr-files
    rm -rf "$d" && mkdir -p "$d"
    python3 - "$d" <<'PY'
import os, random, sys
d = sys.argv[1]
rng = random.Random(25)
block = rng.randbytes(1 << 22)
sizes = [0, 1, 63, 64, 65, 4095, 4096, 100000] + [rng.randrange(3 << 20) for _ in range(int(os.environ.get("LR_FILES", "3000")))]
for i, n in enumerate(sizes):
    with open(f"{d}/f{i:05d}", "wb") as f:
        off = rng.randrange(len(block) // 2)
        while n > 0:
            k = min(n, len(block) - off)
            f.write(block[off:off + k]); n -= k; off = 0
with open(f"{d}/big", "wb") as f:
    for i in range(40):
        f.write(bytes([i]) + block[1:])
PY
    ls "$d" | head -3
    (cd "$d" && md5sum f* big) >/tmp/want.txt
    (cd "$d" && "$ROOT/$BIN" sum --device cuda f* big) >/tmp/got.txt
    cmp /tmp/want.txt /tmp/got.txt && echo "sum --device cuda: $(wc -l </tmp/got.txt) lines identical to md5sum"
    for ps in "" "--part-size 5MiB" "--part-size 16MiB" "--single"; do
        # shellcheck disable=SC2086
        (cd "$d" && "$ROOT/$BIN" etag $ps big f00007 f00020 f00000) >/tmp/etag-cpu.txt
        # shellcheck disable=SC2086
        (cd "$d" && "$ROOT/$BIN" etag --device cuda $ps big f00007 f00020 f00000) >/tmp/etag-gpu.txt
        cmp /tmp/etag-cpu.txt /tmp/etag-gpu.txt && echo "etag --device cuda $ps: identical to the CPU's"
    done
    cat /tmp/etag-gpu.txt
    # A missing file among them: an error naming it, the rest hashed.
    (cd "$d" && "$ROOT/$BIN" sum --device cuda f00001 missing f00002; echo "rc=$?") 2>&1 | tail -4
    (cd "$d" && "$ROOT/$BIN" sum --device auto f* big) >/tmp/auto.txt
    cmp /tmp/want.txt /tmp/auto.txt && echo "sum --device auto: identical to md5sum"
    # The GPU's fixed cost in a process: one small file, each way.
    for i in 1 2 3; do
        for dev in cpu cuda; do
            local t0 t1
            t0=$(date +%s.%N)
            (cd "$d" && "$ROOT/$BIN" sum --device $dev f00001 >/dev/null)
            t1=$(date +%s.%N)
            echo "one small file, --device $dev: $(python3 -c "print(f'{($t1-$t0)*1e3:.0f} ms')")"
        done
    done
    # Timing: the whole set, CPU (all cores) and GPU, alternating.
    local total
    total=$(du -sb "$d" | cut -f1)
    echo "files: $(ls "$d" | wc -l), $total bytes"
    for i in 1 2 3; do
        for dev in cpu cuda; do
            local t0 t1
            t0=$(date +%s.%N)
            (cd "$d" && "$ROOT/$BIN" sum --device $dev f* big >/dev/null)
            t1=$(date +%s.%N)
            echo "sum --device $dev: $(python3 -c "print(f'{$total/($t1-$t0)/1e9:.2f} GB/s')")"
        done
    done
}

python_checks() {
    rm -rf /tmp/py && cp -r python /tmp/py && cd /tmp/py && PYTHONPATH=/tmp/py python3 -m pytest -q -rs tests/test_cuda.py -p no:cacheprovider
}

lab() {
    "$BIN" speed gpu "$@" --json 2>&1 >"$OUT/gpu.json"
}
export -f machine rust_tests cli_checks python_checks lab
export ROOT BIN OUT
step machine 30 machine
step rust-tests 150 rust_tests
case "$QUICK" in
--quick) step lab 120 lab --quick ;;
--tests-only) export LR_FILES=${LR_FILES:-300} ;;
*) step lab 280 lab ;;
esac
step python 60 python_checks
step cli 150 cli_checks
echo "=== summary"
printf '%s\n' "${SUMMARY[@]}"
