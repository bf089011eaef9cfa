#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the Debian 12 packages ornic-tools needs, only those missing.
# Usage: scripts/deps.sh [build|test]
#   build: the library, tools, pcapgen (with --plot through gnuplot), the
#          programs' man pages (help2man) and the Wireshark plugin's
#          development files
#   test:  adds the oracles (tshark, whose wireshark-common brings mergecap and editcap: CTest
#          decode_io_merge; Scapy), Check, clang-format, clang's sanitizers and
#          libFuzzer, AFL++, valgrind, llvm-14 (llvm-cov for
#          scripts/fuzz-coverage.sh), setuptools/pip/venv (python/'s offline
#          install test), tcpreplay and iproute2 (live capture in network
#          namespaces), Xvfb, xdotool, ImageMagick and the Wireshark GUI
#          (tests/dissector/gui), mmdebstrap (the Wireshark 4.4 / 4.6 roots of
#          scripts/wireshark-matrix.sh), jq (the documents' examples that
#          pipe ornic-decode --json into it: CTest docs_examples), abigail-tools
#          (abidiff: CTest abi_baseline, docs/ABI.md), strace (which path
#          ornic-decode --threads took: CTest decode_io_threads_identity)
set -euo pipefail

build_pkgs=(gcc make cmake pkg-config libpcap-dev zlib1g-dev libisal-dev gnuplot-nox help2man
            wireshark-dev libwireshark-dev)
test_pkgs=(check python3 python3-scapy python3-setuptools python3-pip python3-venv tshark clang clang-format
           libclang-rt-14-dev g++ afl++ valgrind llvm-14 tcpreplay iproute2 xvfb xdotool imagemagick
           wireshark-qt mmdebstrap jq abigail-tools strace)

want=("${build_pkgs[@]}")
[[ "${1:-build}" == test ]] && want+=("${test_pkgs[@]}")

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

sudo=""
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; the answer does not matter here.
echo "wireshark-common wireshark-common/install-setuid boolean false" | $sudo debconf-set-selections
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
