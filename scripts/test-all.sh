#!/usr/bin/env bash
# Runs every check CI runs, on a fresh machine too: installs what the tests
# need, then formatting, lints and all tests (Rust unit, integration and doc
# tests; the CLI's differential tests against GNU md5sum).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh

ensure_commands md5sum:coreutils openssl:openssl python3:python3
ensure_rust

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy -D warnings"
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "== cargo test"
cargo test --workspace --locked
