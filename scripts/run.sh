#!/usr/bin/env bash
# The main job: builds linerate, checks it with RFC 1321's test suite, runs
# RFC 1321's time trial, then measures it against OpenSSL on this machine
# (alternating runs, medians, ratio).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh

ensure_commands openssl:openssl python3:python3
ensure_rust

cargo build --release --locked -p linerate-cli
bin=target/release/linerate
"$bin" md5 -x
echo
"$bin" md5 -t
echo
python3 scripts/md5_vs_openssl.py --linerate "$bin" "$@"
