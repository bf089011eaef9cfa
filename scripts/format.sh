#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Formats the tree's C sources with clang-format (.clang-format), or checks
# that they are formatted. Generated tables (*.inc, checked against their
# generators by the generated_tables test) are left as their scripts write them.
#   scripts/format.sh           rewrite every tracked .c/.h file in place
#   scripts/format.sh --check   list the files clang-format would change; exit 1 if any
# CTest runs the check as format_check; scripts/test.sh runs CTest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cf=${CLANG_FORMAT:-clang-format}
command -v "$cf" >/dev/null || { echo "format: $cf not found (apt-get install clang-format)" >&2; exit 2; }

mapfile -t files < <(git ls-files --cached --others --exclude-standard -- '*.c' '*.h' |
                     while read -r f; do [[ -f $f ]] && echo "$f"; done)
if [[ ${1:-} == --check ]]; then
  # One process for every file; --dry-run names each line it would change.
  if ! out=$("$cf" --style=file --dry-run --Werror "${files[@]}" 2>&1); then
    grep -o '^[^:]*\.[ch]' <<<"$out" | sort -u | sed 's/^/format: not formatted: /'
    echo "format: run scripts/format.sh" >&2
    exit 1
  fi
  echo "format: ${#files[@]} files formatted"
else
  "$cf" --style=file -i "${files[@]}"
  echo "format: ${#files[@]} files"
fi
