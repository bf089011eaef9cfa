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

# Where the SPDX line goes, given the file's first lines without SPDX lines:
# line 1, or after a #! line and then a Python coding line. One awk function
# shared by the check and the fix, so that they cannot disagree.
awk_pos='function spdx_pos(l, n,   pos) {
  pos = 1
  if (n >= 1 && l[1] ~ /^#!/) pos = 2
  if (pos == 2 && n >= 2 && l[2] ~ /^#.*coding[:=]/) pos = 3
  return pos
}'

# The SPDX line a file needs (by its path), or nothing if this script does
# not handle its kind. Sets $spdx; no subshell (this runs for every file).
spdx_for() { # file
  local id=MIT
  [[ $1 == dissector/* ]] && id=GPL-2.0-or-later
  case $1 in
    *.c | *.h | *.c.in | *.h.in) spdx="/* SPDX-License-Identifier: $id */" ;;
    *.sh | *.py | *.cmake | *.cmake.in | *.pc.in | CMakeLists.txt | */CMakeLists.txt)
      spdx="# SPDX-License-Identifier: $id" ;;
    *) spdx= ;;
  esac
}

# Prints the file with exactly one SPDX line, in its place. SPDX lines among
# the first five are dropped first (a wrong identifier, or one above a
# shebang).
fix() { # file spdx_line
  awk -v spdx="$2" "$awk_pos"'
    NR <= 5 && /SPDX-License-Identifier:/ { next }
    { line[++n] = $0 }
    END {
      pos = spdx_pos(line, n)
      for (i = 1; i < pos; i++) print line[i]
      print spdx
      for (i = pos; i <= n; i++) print line[i]
    }' "$1"
}

# Reads "file<TAB>spdx line" records on stdin and prints the files that fix()
# would change: not exactly one SPDX line among the first five, or not the
# right one, or not in its place. One awk for all files (a fork per file made
# the check take a minute on a loaded 2-core machine).
needs_fix() {
  awk -F '\t' "$awk_pos"'
    function check(f, want,   l, n, k, at, s, line) {
      n = 0; k = 0; at = 0
      while (n < 8 && (getline line < f) > 0) {
        n++
        if (n <= 5 && line ~ /SPDX-License-Identifier:/) {
          if (++k == 1) { at = n; s = line }
          continue
        }
        l[n - k] = line
      }
      close(f)
      if (k != 1 || s != want || at != spdx_pos(l, n - k)) print f
    }
    { check($1, $2) }'
}

if [[ $# -gt 0 ]]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files --cached --others --exclude-standard | sort -u)
fi

bad=0 changed=0
list=$(mktemp)
for f in "${files[@]}"; do
  [[ -f $f ]] || continue # deleted from the work tree
  spdx_for "$f"
  [[ -n $spdx ]] || continue
  printf '%s\t%s\n' "$f" "$spdx"
done | needs_fix >"$list" || { rm -f "$list"; exit 1; }
mapfile -t todo <"$list"
rm -f "$list"
for f in "${todo[@]}"; do
  spdx_for "$f"
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
