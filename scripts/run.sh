#!/usr/bin/env bash
# The main job: builds linerate, checks it with RFC 1321's test suite, runs
# the performance lab once (`linerate speed`: every table of the seed
# documents, measured on this machine, the 1995/1998/2007 figures beside;
# saved as lab.json), prints it and writes the same run as one HTML page
# (report.html), then measures MD5 against OpenSSL here (alternating runs,
# medians, ratio).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh

ensure_commands openssl:openssl python3:python3
# The lab's OpenSSH section starts a private sshd of its own.
ensure_commands /usr/sbin/sshd:openssh-server
ensure_rust

cargo build --release --locked -p linerate-cli
bin=target/release/linerate
"$bin" md5 -x
echo
"$bin" speed --json > lab.json.tmp
mv lab.json.tmp lab.json
"$bin" speed --from lab.json
echo
"$bin" report --from lab.json -o report.html
echo "report.html: the tables above (the run saved in lab.json) as one page, with plots"
echo
python3 scripts/md5_vs_openssl.py --linerate "$bin" "$@"
