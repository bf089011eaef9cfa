#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The ABI baseline of a release (docs/ABI.md "Cutting a release"): builds
# libornicproto of COMMIT with debug information in a temporary worktree and
# writes `abidw` of it, its source and build paths made relative, to OUT.
# Usage: scripts/abi-baseline.sh COMMIT OUT.abi
set -euo pipefail
[[ $# == 2 ]] || { echo "usage: scripts/abi-baseline.sh COMMIT OUT.abi" >&2; exit 2; }
commit=$1 out=$2
root=$(cd "$(dirname "$0")/.." && pwd)
command -v abidw >/dev/null || { echo "abi-baseline: abidw missing (apt-get install abigail-tools)" >&2; exit 1; }
work=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$work/src" 2>/dev/null || true; rm -rf "$work"' EXIT
git -C "$root" worktree add --detach "$work/src" "$commit" >/dev/null
cmake -S "$work/src" -B "$work/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DORNIC_BUILD_TESTS=OFF >/dev/null
cmake --build "$work/build" --target ornicproto -j"$(nproc)" >/dev/null
lib=$(ls "$work"/build/lib/libornicproto.so.*.*.*)
abidw --headers-dir "$work/src/libornicproto/include/ornic" \
  --headers-dir "$work/build/libornicproto/include/ornic" "$lib" |
  sed -e "s|$work/build|build|g" -e "s|$work/src/||g" >"$out.tmp"
mv "$out.tmp" "$out"
echo "abi-baseline: $(basename "$lib") of $(git -C "$root" rev-parse --short "$commit") -> $out"
