#!/usr/bin/env bash
# linerate's AVX-512 lanes engine against isa-l_crypto's md5_mb_x16x2_avx512
# kernel, in one process, alternating (issue 3's anchor for the lanes target).
#
#   ISAL_CRYPTO_SRC=/path/to/isa-l_crypto scripts/lanes_vs_isal.sh [BYTES_PER_LANE [ROUNDS]]
#
# Needs nasm and a checkout of isa-l_crypto's source (it is not packaged in
# Debian). Prints both rates, cycles/byte and the ratio of the medians.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
src="${ISAL_CRYPTO_SRC:?set ISAL_CRYPTO_SRC to an isa-l_crypto checkout}"
out="${TMPDIR:-/tmp}/linerate-lanes-vs-isal"
mkdir -p "$out"
nasm -f elf64 -DHAVE_AS_KNOWS_AVX512 -I"$src/include/" -I"$src/md5_mb/" \
    "$src/md5_mb/md5_mb_x16x2_avx512.asm" -o "$out/kernel.o"
nasm -f elf64 "$root/scripts/lanes_vs_isal/wrapper.asm" -o "$out/wrapper.o"
RUSTFLAGS="-C link-arg=$out/wrapper.o -C link-arg=$out/kernel.o" \
    CARGO_TARGET_DIR="$out/target" \
    cargo build --release --quiet --manifest-path "$root/scripts/lanes_vs_isal/Cargo.toml"
"$out/target/release/lanes-vs-isal" "$@"
