#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One of the two tables of scripts/fig11.sh's fig11.md (docs/PROFILES.md,
# "Fig. 11"): `main` (goodput and resends against the OOO distance) or
# `ablation` (roce commodity with one behaviour put back to ideal).
# fig11.sh runs once (about 40 s on 2 cores) into $ORNIC_FIG11_DIR (default
# ./fig11), and the next call reuses its fig11.md; scripts/docs-regen.sh sets
# ORNIC_FIG11_DIR=docs/profiles, where the figure itself is kept.
# Usage (from tests/docs/doc_check.py, which sets ORNIC_ROOT and ORNIC_BIN): fig11_table.sh main|ablation
set -euo pipefail
dir=${ORNIC_FIG11_DIR:-fig11}
mkdir -p "$dir"
exec 9>>.fig11_table.lock # (in the scratch directory) the two tables may be asked for at once: one fig11.sh run
flock 9
if [[ ! -f $dir/fig11.md ]]; then
  "$ORNIC_ROOT/scripts/fig11.sh" "$(dirname "$ORNIC_BIN")" "$dir" >&2
fi
flock -u 9
case ${1:-} in
  main) awk '/^$/ { exit } { print }' "$dir/fig11.md" ;;
  ablation) awk 'seen && /^\|/ { print } /^$/ { seen = 1 }' "$dir/fig11.md" ;;
  *) echo "usage: fig11_table.sh main|ablation" >&2; exit 2 ;;
esac
