#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CTest docs_demo: README.md's quick start, as written, on the build under
# test. The first command of the quick start's ```sh block (`bash
# scripts/demo.sh`) is taken from README.md and run from the source tree with
# ORNIC_DEMO_BUILD=BUILD_DIR, which makes scripts/demo.sh use the programs
# already built there instead of installing packages and building (what it
# does on a fresh machine). Checks: exit status 0 (the demo used to exit 141
# most of the time: SIGPIPE under pipefail), and that each of its four steps
# printed what it promises.
# Usage: run_demo.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1 build=$2
readme=$src/README.md
# The quick start's first command line, comment stripped.
cmd=$(awk '/^## Quick start/ { q = 1; next }
           q && /^## / { exit }
           q && /^```sh$/ { b = 1; next }
           b && /^```$/ { exit }
           b { sub(/[ \t]*#.*/, ""); if ($0 != "") { print; exit } }' "$readme")
[[ $cmd == "bash scripts/demo.sh" ]] ||
  { echo "FAIL: README.md's quick start starts with '$cmd', not 'bash scripts/demo.sh': update this test"; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
rc=0
(cd "$src" && ORNIC_DEMO_BUILD=$build $cmd) >"$out" 2>&1 || rc=$?
fail() { cat "$out"; echo "FAIL: $*"; exit 1; }
[[ $rc == 0 ]] || fail "'$cmd' exited $rc"
for want in "== 1. ornic-decode" "== 2. ornic-pcapgen" "== 3. ornic-decode --stats" \
            "== 4. the NAK and the retransmission it asked for" "== built programs are in"; do
  grep -qF -- "$want" "$out" || fail "no line '$want'"
done
# Step 1: every frame of PROTOCOL.md section 6, each iCRC good.
n1=$(sed -n '/^== 1\./,/^== 2\./p' "$out" | grep -c ' icrc=ok' || true)
((n1 >= 10)) || fail "step 1 decoded $n1 frames with a good iCRC"
# Step 2: every WQE verified.
grep -qE 'WQEs completed +4 of 4 \(4 verified' "$out" || fail "step 2: not 4 of 4 WQEs verified"
# Step 4: the NAK, then the retransmission of the PSN it names.
step4=$(sed -n '/^== 4\./,$p' "$out")
lost=$(sed -nE '/ORNIC_NAK/{s/.* missing=([0-9]+).*/\1/p;q;}' <<<"$step4")
[[ -n $lost ]] || fail "step 4: no NAK with missing="
grep -E "ORNIC_OOO_WRITE.* psn=$lost .*\[Retransmission\]" <<<"$step4" >/dev/null ||
  fail "step 4: no retransmission of PSN $lost"
echo "ok: '$cmd' (ORNIC_DEMO_BUILD=$build) exited 0; NAK for PSN $lost, then its retransmission"
