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
    echo "setup: installing ${missing[*]}" >&2
    local sudo=
    [ "$(id -u)" -ne 0 ] && sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
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
