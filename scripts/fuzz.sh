#!/usr/bin/env bash
# Fuzzing that runs: replays every committed seed corpus on stable (the
# test `replay` of fuzz/props), then, where a nightly toolchain is
# installed, runs every fuzz target with cargo-fuzz (libFuzzer, address
# sanitizer) for SECONDS_PER_TARGET seconds (default 12), the committed
# seeds and the working corpus fuzz/corpus/TARGET as its start.
#
# A crash, a timeout (10 s an input) or memory past the limits (1 GiB
# resident, 256 MiB in one allocation) fails the run and leaves the input
# in fuzz/artifacts/TARGET/; every target still runs. One line per target
# says its executions, coverage and outcome. See docs/fuzzing.md.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET [TARGET...]]
#
# With TARGETs, only those are fuzzed (the seeds are still all replayed):
# `scripts/fuzz.sh 1800 listing pcapng` is two of the 30-minute campaigns
# of docs/fuzzing.md.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-12}
if ! [[ $seconds =~ ^[0-9]+$ ]]; then
    echo "usage: scripts/fuzz.sh [SECONDS_PER_TARGET [TARGET...]]" >&2
    exit 2
fi
shift $(($# > 0 ? 1 : 0))
# The cargo-fuzz this script was written against; installed if missing.
CARGO_FUZZ_VERSION=0.13.2

echo "== fuzz corpora replayed on stable (fuzz/seeds/TARGET/*)"
# The main workspace's target directory: the library crates' builds are
# shared with its tests (same profile).
cargo test --manifest-path fuzz/Cargo.toml --locked --target-dir target \
    -p linerate-fuzz-props

if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    echo "fuzzing: not run: no nightly toolchain on this machine (rustup toolchain install nightly); the seed corpora were replayed above"
    exit 0
fi
if ! cargo fuzz --version 2>/dev/null | grep -qF " $CARGO_FUZZ_VERSION"; then
    echo "== installing cargo-fuzz $CARGO_FUZZ_VERSION"
    cargo install cargo-fuzz --locked --version "$CARGO_FUZZ_VERSION"
fi

echo "== fuzz targets built (nightly, address sanitizer)"
start=$SECONDS
cargo +nightly fuzz build
echo "fuzz build: $((SECONDS - start)) s"

mapfile -t targets < <(cargo +nightly fuzz list)
if [ $# -gt 0 ]; then
    for target in "$@"; do
        if ! printf '%s\n' "${targets[@]}" | grep -qxF -- "$target"; then
            echo "scripts/fuzz.sh: no fuzz target '$target' (cargo +nightly fuzz list)" >&2
            exit 2
        fi
    done
    targets=("$@")
fi
echo "== fuzzing ${#targets[@]} targets, $seconds s each"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
failed=()
for target in "${targets[@]}"; do
    mkdir -p "fuzz/corpus/$target"
    status=ok
    # The first directory takes what libFuzzer finds; the seeds are read.
    if ! cargo +nightly fuzz run "$target" "fuzz/corpus/$target" "fuzz/seeds/$target" -- \
            -max_total_time="$seconds" -timeout=10 -rss_limit_mb=1024 \
            -malloc_limit_mb=256 -print_final_stats=1 >"$log" 2>&1; then
        status="FAILED (input in fuzz/artifacts/$target/)"
        failed+=("$target")
        grep -E 'ERROR|panicked|SUMMARY|Test unit written' "$log" | head -5 || true
    fi
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -oE '(DONE|pulse|NEW|REDUCE|INITED) +cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$log" \
        | tail -1 | sed -E 's/.*cov: ([0-9]+) ft: ([0-9]+) corp: ([0-9]+)/cov \1, ft \2, corpus \3/')
    echo "fuzz $target: ${execs:-0} runs, ${cov:-no coverage line}: $status"
done
if [ "${#failed[@]}" -gt 0 ]; then
    echo "fuzzing: ${#failed[@]} of ${#targets[@]} targets failed: ${failed[*]}"
    exit 1
fi
echo "fuzzing: ${#targets[@]} targets, $seconds s each: no crash, no timeout, no memory past the limits"
