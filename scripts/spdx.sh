#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# SPDX license lines, by directory (LICENSE says why):
#   dissector/   GPL-2.0-or-later (the Wireshark plugin links libwireshark)
#   the rest     MIT
# Every tracked (or new, not ignored) file of these kinds gets one line:
#   .c .h .h.in .c.in                      /* SPDX-License-Identifier: X */   first line
#   .sh .py .cmake .cmake.in .pc.in
#   CMakeLists.txt                         # SPDX-License-Identifier: X       first line, or after
#                                          the #! line (and a Python coding line)
# Idempotent: a file that has the right line is left alone; a wrong or
# misplaced SPDX line near the top is replaced. Generated tables (.inc) are
# not touched: their generators own their bytes.
# Usage: scripts/spdx.sh [--check] [FILE...]
#   --check  change nothing; list the files without the right line, exit 1 if any
set -euo pipefail
# All of it in one compound command, parsed before it runs: write mode may
# rewrite this very file, which bash would otherwise go on reading.
{
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

check=0
if [[ ${1:-} == --check ]]; then
  check=1
  shift
fi

license_of() {
  case $1 in
    dissector/*) echo GPL-2.0-or-later ;;
    *) echo MIT ;;
  esac
}

style_of() { # c, hash, or nothing for a file this script does not handle
  case $1 in
    *.c | *.h | *.c.in | *.h.in) echo c ;;
    *.sh | *.py | *.cmake | *.cmake.in | *.pc.in | CMakeLists.txt | */CMakeLists.txt) echo hash ;;
  esac
}

if [[ $# -gt 0 ]]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files --cached --others --exclude-standard | sort -u)
fi

# Prints the file with exactly one SPDX line, in its place: line 1, or after
# a #! line and then a Python coding line. SPDX lines among the first five
# are dropped first (a wrong identifier, or one above a shebang).
fix() { # file spdx_line
  awk -v spdx="$2" '
    NR <= 5 && /SPDX-License-Identifier:/ { next }
    { line[++n] = $0 }
    END {
      pos = 1
      if (n >= 1 && line[1] ~ /^#!/) pos = 2
      if (pos == 2 && n >= 2 && line[2] ~ /^#.*coding[:=]/) pos = 3
      for (i = 1; i < pos; i++) print line[i]
      print spdx
      for (i = pos; i <= n; i++) print line[i]
    }' "$1"
}

bad=0 changed=0
for f in "${files[@]}"; do
  [[ -f $f ]] || continue # deleted from the work tree
  style=$(style_of "$f")
  [[ -n $style ]] || continue
  id=$(license_of "$f")
  if [[ $style == c ]]; then
    spdx="/* SPDX-License-Identifier: $id */"
  else
    spdx="# SPDX-License-Identifier: $id"
  fi
  if fix "$f" "$spdx" | cmp -s - "$f"; then
    continue
  fi
  if [[ $check -eq 1 ]]; then
    echo "$f: needs '$spdx'"
    bad=$((bad + 1))
  else
    tmp=$(mktemp)
    fix "$f" "$spdx" >"$tmp"
    cat "$tmp" >"$f" # keeps the file's mode
    rm -f "$tmp"
    changed=$((changed + 1))
  fi
done

if [[ $check -eq 1 ]]; then
  if [[ $bad -gt 0 ]]; then
    echo "spdx: $bad file(s) without the right SPDX-License-Identifier line (scripts/spdx.sh adds them)"
    exit 1
  fi
  echo "spdx: every file has its SPDX-License-Identifier line"
else
  echo "spdx: $changed file(s) updated"
fi
exit 0
}
