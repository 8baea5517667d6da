#!/usr/bin/env bash
# Runs every check CI runs, on a fresh machine too: installs what the tests
# need, then formatting, lints and all tests (Rust unit, integration and doc
# tests; the CLI's differential tests against GNU md5sum; the Verilog cores'
# lint and simulations against hashlib).
set -euo pipefail
cd "$(dirname "$0")/.."
# Each stage's header says when it began (seconds since the start), so
# that a slow CI run shows where its time went.
stage() { echo "== $* [${SECONDS} s]"; }
. scripts/setup.sh

# md5sum, openssl, Python's hashlib/hmac and nettle are the independent
# implementations the tests compare against (nettle through a small C
# program the UMAC tests compile with cc).
ensure_commands md5sum:coreutils openssl:openssl python3:python3 cc:gcc \
    /usr/include/nettle/umac.h:nettle-dev
# Chromium renders `linerate report`'s page to a screenshot that
# crates/linerate-cli/tests/it/report_browser.rs checks; tcpdump -M checks
# the TCP-MD5 digests `linerate packets sign` writes (tests/it/packets_tcp.rs).
ensure_commands chromium:chromium tcpdump:tcpdump
# hashdeep's md5deep and sha256deep read the dual manifests of sum --also
# (crates/linerate-cli/tests/it/cksum.rs).
ensure_commands md5deep:hashdeep
# OpenSSH's server: the lab's bulk-transfer section starts a private one
# (crates/linerate-cli/tests/it/speed_ssh.rs); the system's is not started.
ensure_commands /usr/sbin/sshd:openssh-server
# tshark and scapy (in .venv-peers) are the peers `linerate packets` is
# tested against (crates/linerate-cli/tests/packets_peer.rs); installed
# here, so that those tests fail rather than skip if one is missing.
ensure_peers
export LINERATE_PEERS=required
ensure_rust
ensure_uu_cksum
# The Python package: one manylinux2014 wheel (maturin --zig), installed
# into a fresh .venv-wheel-test that the Python suite runs in, and into
# .venv-python for development and benchmarks.
wheel=$(ensure_wheel | tail -1)
ensure_python_package "$wheel"

stage "cargo fmt --check"
cargo fmt --all -- --check
cargo fmt --manifest-path fuzz/Cargo.toml --all -- --check
# The lanes kernel's assembly is generated: the checked-in text must be
# what the generator writes now.
stage "generated assembly (crates/linerate/asm)"
python3 crates/linerate/asm/lanes_avx512.py --check
stage "cargo clippy -D warnings"
cargo clippy --workspace --all-targets --locked -- -D warnings
# The fuzz targets and their properties (their own workspace, fuzzed on
# nightly) must build and lint clean on stable too.
stage "cargo clippy -D warnings (fuzz targets)"
cargo clippy --manifest-path fuzz/Cargo.toml --workspace --all-targets --locked \
    --target-dir target -- -D warnings
stage "cargo test"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cargo test --workspace --locked 2>&1 | tee "$log"
# MD5-P/K groups its chains by register set when rayon has several threads
# and by the backend's full width on one: run its oracle both ways.
RAYON_NUM_THREADS=1 cargo test --locked -p linerate --test it md5p_oracle:: 2>&1 | tee -a "$log"
# Every committed fuzz seed replayed on stable (its tests count in the
# closing line), then every fuzz target for a fixed budget where a nightly
# toolchain is (scripts/fuzz.sh says in one line when there is none). 15
# targets at 4 s are a minute, after a sanitizer build of 81-84 s on a fresh
# clone (2 cores), seconds warm; the fuzz stage is 204 s of a 1907-s CI run
# (depth comes from the 30-minute campaigns, docs/fuzzing.md);
# LINERATE_FUZZ_SECONDS changes it.
stage "fuzzing (scripts/fuzz.sh)"
bash scripts/fuzz.sh "${LINERATE_FUZZ_SECONDS:-4}" 2>&1 | tee -a "$log"
# The GPU tests (crates/linerate/tests/it/gpu.rs, python/tests/test_cuda.py)
# ran above where a GPU is; without one they passed by skipping. Say which,
# in one visible line, with linerate's own reason.
stage "GPU"
if gpu_out=$(target/debug/linerate speed gpu --quick 2>&1); then
    echo "$gpu_out"
    echo "GPU tests: run on this machine's GPU"
else
    echo "GPU tests: skipped (${gpu_out#linerate: speed gpu: })"
fi
stage "python tests against the wheel (${wheel##*/}, a fresh venv)"
.venv-wheel-test/bin/python -m pytest -q -p no:cacheprovider python/tests 2>&1 | tee -a "$log"
stage "hardware simulations (hw/run-tests.sh)"
bash hw/run-tests.sh 2>&1 | tee -a "$log"
# One closing line for the whole run (cargo prints one per test binary,
# the hardware script one for all its simulations).
awk '/^test result:/ { p += $4; f += $6; i += $8 }
     /^hw tests:/ { p += $3; f += $5 }
     # pytest -q: "66 passed, 1 skipped in 8.75s"
     / in [0-9.]+s( \([0-9:]+\))?$/ && /(passed|failed|skipped)/ {
         for (j = 1; j < NF; j++) {
             w = $(j + 1); sub(/,$/, "", w)
             if (w == "passed") p += $j
             else if (w == "failed" || w == "errors" || w == "error") f += $j
             else if (w == "skipped") i += $j
         }
     }
     END { printf "tests: %d passed, %d failed, %d skipped\n", p, f, i }' "$log"
