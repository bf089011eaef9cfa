#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The shared library exports exactly its public API (README.md, "ABI policy"):
#   1. every symbol it defines in its dynamic symbol table (nm -D
#      --defined-only) is in the ornic_ namespace and is not an internal: the
#      known ones (the iCRC kernel, the checksum helpers, the header size
#      table, the byte-order helpers, the analysis engine's an_* helpers) and
#      every function the library's internal headers (src/*.h) declare;
#   2. every exported symbol is declared ORNIC_API in a public header, and
#      every ORNIC_API declaration is exported;
#   3. every function a public header declares (a prototype, not a static
#      inline) is exported: one missing its ORNIC_API would be hidden;
#   4. the SONAME is libornicproto.so.<major>.
# Usage: exported_symbols.sh LIBRARY SOVERSION INTERNAL_HEADER_DIR INCLUDE_DIR...
set -euo pipefail
lib=$1 soversion=$2 srcdir=$3
shift 3
incdirs=("$@")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
each() { # message file: one failure per line of file
  local line
  while IFS= read -r line; do fail "$1: $line"; done <"$2"
}

# Prototypes at file scope: a line that starts with a type (not static,
# typedef, a preprocessor line, a comment, a brace or indentation) and names
# a function; the names that are followed by "(".
prototypes() { # headers...
  { grep -hP '^(?!static\b|typedef\b|#|\s|/|\*|}|extern "C")[A-Za-z_][^;(=]*\b[A-Za-z_]\w*\s*\(' "$@" |
    grep -oP '\b[A-Za-z_]\w*(?=\s*\()' || true; } | sort -u
}

# Linker-defined symbols that some toolchains put in .dynsym are not ours.
nm -D --defined-only "$lib" | awk 'NF >= 3 { sub(/@.*/, "", $3); print $3 }' |
  { grep -Ev '^(_init|_fini|_edata|_end|__bss_start)$' || true; } | sort -u >"$tmp/exported"

headers=()
for d in "${incdirs[@]}"; do
  for h in "$d"/ornic/*.h; do if [[ -f $h ]]; then headers+=("$h"); fi; done
done
[[ ${#headers[@]} -gt 0 ]] || { echo "FAIL: no headers under ${incdirs[*]}"; exit 1; }
# Names declared ORNIC_API: declarations that start with it (the name is the
# first identifier followed by "(", "[" or ";").
{ grep -hoP '^\s*(extern\s+)?ORNIC_API\b[^;(]*?\b\K[A-Za-z_]\w*(?=\s*[(\[;])' "${headers[@]}" || true; } |
  sort -u >"$tmp/declared_api"
prototypes "${headers[@]}" | { grep '^ornic_' || true; } >"$tmp/public"
# Internals: the known ones, and what the internal headers declare.
{
  grep -E '^(ornic_icrc_calc|ornic_csum_.*|ornic_hdr_sizes|ornic_get_u[0-9]+|ornic_put_u[0-9]+|an_.*)$' \
    "$tmp/exported" || true
  shopt -s nullglob
  internal_headers=("$srcdir"/*.h)
  [[ ${#internal_headers[@]} -eq 0 ]] || prototypes "${internal_headers[@]}"
  grep -ohP '^extern\s[^;(]*\b\K\w+(?=\s*(\[[^]]*\]\s*)*;)' "${internal_headers[@]}" /dev/null || true
} | sort -u >"$tmp/internal"

echo "$(wc -l <"$tmp/exported") exported, $(wc -l <"$tmp/declared_api") declared ORNIC_API," \
     "$(wc -l <"$tmp/public") public prototypes"

comm -12 "$tmp/exported" "$tmp/internal" >"$tmp/leaks"
each "internal symbol exported" "$tmp/leaks"
comm -23 "$tmp/exported" "$tmp/internal" | { grep -v '^ornic_' || true; } >"$tmp/outside"
each "exported symbol outside the ornic_ namespace" "$tmp/outside"
comm -23 "$tmp/exported" "$tmp/declared_api" | comm -23 - "$tmp/internal" | { grep '^ornic_' || true; } \
  >"$tmp/undeclared"
each "exported but not declared ORNIC_API in a public header" "$tmp/undeclared"
comm -23 "$tmp/declared_api" "$tmp/exported" >"$tmp/missing_api"
each "declared ORNIC_API but not exported (not defined in the library?)" "$tmp/missing_api"
comm -23 "$tmp/public" "$tmp/exported" | comm -23 - "$tmp/missing_api" >"$tmp/hidden"
each "public function not exported (missing ORNIC_API?)" "$tmp/hidden"

soname=$(objdump -p "$lib" | awk '$1 == "SONAME" { print $2 }')
if [[ $soname == "libornicproto.so.$soversion" ]]; then
  echo "ok: SONAME $soname"
else
  fail "SONAME is '$soname', expected libornicproto.so.$soversion"
fi

echo "$failed failure(s)"
[[ $failed -eq 0 ]]
