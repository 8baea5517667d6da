# Sourced by the scripts in this folder: installs what linerate's build,
# tests and benchmarks need on a fresh Debian machine, and nothing twice.

# Debian packages, each named by a command or a file it provides
# (`cmd:package`, or `/path:package`); apt runs only if one is missing.
ensure_commands() {
    local missing=()
    local pair what pkg
    for pair in "$@"; do
        what=${pair%%:*}
        pkg=${pair#*:}
        case "$what" in
            /*) [ -e "$what" ] || missing+=("$pkg") ;;
            *) command -v "$what" >/dev/null 2>&1 || missing+=("$pkg") ;;
        esac
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    apt_install "${missing[@]}"
}

# Installs Debian packages, without questions.
apt_install() {
    echo "setup: installing $*" >&2
    local sudo=
    [ "$(id -u)" -ne 0 ] && sudo=sudo
    $sudo apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# Rust comes from rustup (Debian's rustc is older than edition 2024 needs).
ensure_rust() {
    if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
        export PATH="$HOME/.cargo/bin:$PATH"
    fi
    if ! command -v cargo >/dev/null 2>&1; then
        echo "setup: cargo not found; install Rust >= 1.89 with rustup (https://rustup.rs)" >&2
        exit 1
    fi
    if command -v rustup >/dev/null 2>&1; then
        rustup component add rustfmt clippy >/dev/null 2>&1 || true
    fi
}

# The independent peers of `linerate packets`: Wireshark's dissector
# (tshark, from Debian) reads linerate's AH headers, and scapy's IPsec
# (pinned, from PyPI, with the `cryptography` it computes HMACs with) signs
# and verifies AH against it through scripts/ah_peer.py, from `.venv-peers`
# at the repository root.
# `linerate etag --checksum` is tested against a real S3-compatible server,
# the Versity S3 Gateway (Apache-2.0; MinIO's server is AGPL), built from its
# Go module into `.peers/bin`, with uploads made by boto3, and its CRCs
# against the AWS Common Runtime's (awscrt), both pinned in `.venv-peers`.
PEERS_SCAPY=scapy==2.6.1
PEERS_CRYPTOGRAPHY=cryptography==44.0.2
PEERS_BOTO3=boto3==1.44.8
PEERS_AWSCRT=awscrt==0.38.1
PEERS_VERSITYGW=github.com/versity/versitygw/cmd/versitygw@v1.8.0
# uutils' cksum (crates.io, about 40 s to build) is `linerate cksum`'s second
# opinion beside GNU's, where the two agree.
PEERS_UU_CKSUM=0.12.0
ensure_peers() {
    local root venv sudo=
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    venv="$root/.venv-peers"
    [ "$(id -u)" -ne 0 ] && sudo=sudo
    if ! command -v tshark >/dev/null 2>&1; then
        # wireshark-common asks whether non-root users may capture; answer
        # (no) before apt runs so that it never waits for a terminal.
        echo "wireshark-common wireshark-common/install-setuid boolean false" \
            | $sudo debconf-set-selections
    fi
    ensure_commands tshark:tshark
    tshark -v >/dev/null 2>&1 || { echo "setup: tshark does not run" >&2; exit 1; }
    # Debian's python3 makes virtual environments only with python3-venv.
    python3 -c 'import ensurepip' >/dev/null 2>&1 || apt_install python3-venv
    if ! "$venv/bin/python" -c "
import sys, scapy, cryptography, boto3, awscrt
sys.exit('scapy==' + scapy.VERSION != '$PEERS_SCAPY'
         or 'cryptography==' + cryptography.__version__ != '$PEERS_CRYPTOGRAPHY'
         or 'boto3==' + boto3.__version__ != '$PEERS_BOTO3'
         or 'awscrt==' + awscrt.__version__ != '$PEERS_AWSCRT')" \
            >/dev/null 2>&1; then
        echo "setup: installing $PEERS_SCAPY $PEERS_CRYPTOGRAPHY $PEERS_BOTO3" \
            "$PEERS_AWSCRT into $venv" >&2
        python3 -m venv "$venv" \
            && "$venv/bin/pip" install -q --disable-pip-version-check \
                "$PEERS_SCAPY" "$PEERS_CRYPTOGRAPHY" "$PEERS_BOTO3" "$PEERS_AWSCRT" \
            || { echo "setup: could not install the peers into $venv" >&2; exit 1; }
    fi
    ensure_versitygw "$root"
}

# uutils' cksum into `.peers/uutils/bin/cksum` (see PEERS_UU_CKSUM); needs
# cargo (after ensure_rust).
ensure_uu_cksum() {
    local root dir
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    dir="$root/.peers/uutils"
    if [ -x "$dir/bin/cksum" ] && "$dir/bin/cksum" --version 2>/dev/null \
            | grep -q "uutils coreutils) $PEERS_UU_CKSUM\$"; then
        return
    fi
    echo "setup: building uutils' cksum $PEERS_UU_CKSUM into $dir (about 40 s)" >&2
    cargo install -q --locked uu_cksum --version "$PEERS_UU_CKSUM" --root "$dir" \
        || { echo "setup: could not build uutils' cksum" >&2; exit 1; }
}

# The S3 server the etag tests upload to (see ensure_peers): about a minute
# to download and build the first time, 80 MB.
ensure_versitygw() {
    local root=$1 go bin
    bin="$root/.peers/bin"
    if [ -x "$bin/versitygw" ] && [ -f "$bin/versitygw.version" ] \
            && [ "$(cat "$bin/versitygw.version")" = "$PEERS_VERSITYGW" ]; then
        return
    fi
    go=$(command -v go || true)
    [ -z "$go" ] && [ -x /usr/local/go/bin/go ] && go=/usr/local/go/bin/go
    [ -n "$go" ] || { echo "setup: Go is needed to build versitygw (the S3 test server)" >&2; exit 1; }
    echo "setup: building $PEERS_VERSITYGW into $bin (about a minute the first time)" >&2
    mkdir -p "$bin"
    GOBIN="$bin" GOFLAGS=-mod=mod "$go" install "$PEERS_VERSITYGW" \
        || { echo "setup: could not build versitygw" >&2; exit 1; }
    echo "$PEERS_VERSITYGW" > "$bin/versitygw.version"
}

# The Python package (python/) for development and benchmarks: the wheel
# `ensure_wheel` built (one release build of the native module, Polars
# plugin included, serves both venvs), installed into `.venv-python` at the
# repository root with its test, dask and bench extras, pinned by
# python/constraints.txt. Reinstalled every time: the package is what the
# tests test.
ensure_python_package() {
    local root venv wheel=$1
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    venv="$root/.venv-python"
    python3 -c 'import ensurepip' >/dev/null 2>&1 || apt_install python3-venv
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv" \
        || { echo "setup: could not make $venv" >&2; exit 1; }
    echo "setup: installing ${wheel##*/} into $venv" >&2
    "$venv/bin/pip" uninstall -q -y linerate-hash >/dev/null 2>&1 || true
    "$venv/bin/pip" install -q --disable-pip-version-check \
        -c "$root/python/constraints.txt" "$wheel[test,dask,bench]" \
        || { echo "setup: could not install $wheel into $venv" >&2; exit 1; }
}

# The wheel users install: `maturin build --zig` for manylinux2014 (glibc
# 2.17, x86-64, abi3 for CPython 3.9 and later) into target/wheels/,
# checked by auditwheel, then installed into a fresh `.venv-wheel-test`
# (not the source tree) with the test extras. The build tools, pinned, live
# in `.venv-wheel` (about 470 MB, zig most of it).
WHEEL_TOOLS="maturin==1.16.0 ziglang==0.17.1 auditwheel==6.8.2"
ensure_wheel() {
    local root tools venv wheel
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    tools="$root/.venv-wheel"
    venv="$root/.venv-wheel-test"
    if ! "$tools/bin/maturin" --version >/dev/null 2>&1; then
        echo "setup: installing $WHEEL_TOOLS into $tools" >&2
        python3 -m venv "$tools" \
            && "$tools/bin/pip" install -q --disable-pip-version-check $WHEEL_TOOLS \
            || { echo "setup: could not install the wheel tools" >&2; exit 1; }
    fi
    echo "setup: building the manylinux2014 wheel (maturin --zig)" >&2
    rm -rf "$root/target/wheels"
    # The `python` profile: release, unwinding (a panic raises
    # PanicException); `--release` would abort Python on a panic.
    PATH="$tools/bin:$PATH" "$tools/bin/maturin" build --profile python --zig \
        --compatibility manylinux2014 -m "$root/python/Cargo.toml" \
        -o "$root/target/wheels" >/dev/null 2>&1 \
        || { echo "setup: maturin build --zig failed" >&2; exit 1; }
    wheel=$(ls "$root"/target/wheels/linerate_hash-*-cp39-abi3-manylinux*.whl)
    "$tools/bin/auditwheel" show "$wheel" | tr '\n' ' ' \
        | grep -q 'consistent with the following platform tag: "manylinux_2_17_x86_64"' \
        || { echo "setup: auditwheel does not call $wheel manylinux_2_17" >&2; exit 1; }
    rm -rf "$venv"
    python3 -m venv "$venv" \
        && "$venv/bin/pip" install -q --disable-pip-version-check \
            -c "$root/python/constraints.txt" "$wheel[test,dask]" \
        || { echo "setup: could not install $wheel into $venv" >&2; exit 1; }
    echo "$wheel"
}
