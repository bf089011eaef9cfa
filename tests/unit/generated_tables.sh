#!/bin/sh
# SPDX-License-Identifier: MIT
# The generated tables in libornicproto/src must be exactly what their
# generator scripts write today: regenerate each into a temporary file and
# diff it against the committed one (never hand-edit a .inc; rerun the
# script). Usage: generated_tables.sh SOURCE_DIR [PYTHON]
# Prints the diff of a stale table and 'N passed, N failed'.
src=${1:?usage: generated_tables.sh SOURCE_DIR [PYTHON]}
py=${2:-python3}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
check() { # generator script, generated file (both relative to SOURCE_DIR)
  out="$tmp/$(basename "$2")"
  if ! "$py" "$src/$1" >"$out" 2>"$tmp/err"; then
    echo "FAIL: $1 failed:"
    cat "$tmp/err"
    failed=$((failed + 1))
  elif diff -u "$src/$2" "$out" >"$tmp/diff"; then
    echo "ok: $2 is what $1 writes"
    passed=$((passed + 1))
  else
    echo "FAIL: $2 is not what $1 writes (regenerate: $1 > $2):"
    cat "$tmp/diff"
    failed=$((failed + 1))
  fi
}
check scripts/gen_opcode_table.py libornicproto/src/ornic_opcode_table.inc
check scripts/gen_icrc_tables.py libornicproto/src/ornic_icrc_tables.inc
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
