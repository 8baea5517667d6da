#!/usr/bin/env bash
# Builds, on the development machine, what scripts/gpu_check.sh runs on the
# GPU machine (which has no Rust toolchain): the CLI and the linerate
# crate's integration-test binary with the `cuda` feature, into .gpu/ (kept
# out of git by .git/info/exclude), and the Python module in place. Then:
#   device run, carry [".gpu", "python/linerate_hash/_linerate.abi3.so"],
#   command "scripts/gpu_check.sh"
set -euo pipefail
cd "$(dirname "$0")/.."
grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >>.git/info/exclude
mkdir -p .gpu
cargo build --release -p linerate-cli
cp target/release/linerate .gpu/linerate
test_bin=$(cargo test --release -p linerate --features cuda --test it --no-run --message-format=json 2>/dev/null |
    python3 -c 'import json,sys
for l in sys.stdin:
    m=json.loads(l)
    if m.get("reason")=="compiler-artifact" and m.get("executable") and m["target"]["name"]=="it": print(m["executable"])' | tail -1)
cp "$test_bin" .gpu/linerate-it
VIRTUAL_ENV=$PWD/.venv-python PATH=$PWD/.venv-python/bin:$PATH .venv-wheel/bin/maturin develop --profile python -m python/Cargo.toml
ls -la .gpu python/linerate_hash/_linerate.abi3.so
