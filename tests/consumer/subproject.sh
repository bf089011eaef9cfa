#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Consumer test 2: ornic-tools as a subproject. A parent project
# (tests/consumer/subproject/) add_subdirectory()s the source tree and links
# ornicproto::ornicproto; its configure fails if ornic-tools changed its build
# type, flags or directory options. Then, from the compile commands: the
# parent's own target gets none of ornic-tools' flags while the library gets
# its own (proof that the check sees flags); no test and no install rule of
# ornic-tools reach the parent; the example builds and runs.
# Usage: subproject.sh SOURCE_DIR WORK_DIR [C_COMPILER]
set -euo pipefail
. "$(dirname "$0")/common.sh"

# No CMAKE_BUILD_TYPE: the parent's choice is "none", and must stay so.
if cmake -S "$here/subproject" -B "$work/build" -DCMAKE_C_COMPILER="$cc" -DORNIC_SOURCE_DIR="$src" \
     -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >"$work/configure.log" 2>&1; then
  ok "parent configures (build type, flags and directory options unchanged)"
else
  cat "$work/configure.log"; fail "parent configure"; finish
fi
cache=$(cmake -N -L "$work/build" 2>/dev/null)
if grep -qx 'CMAKE_BUILD_TYPE:STRING=' <<<"$cache"; then
  ok "CMAKE_BUILD_TYPE still empty in the cache"
else
  grep CMAKE_BUILD_TYPE <<<"$cache" || true; fail "CMAKE_BUILD_TYPE was set"
fi
for o in ORNIC_BUILD_TOOLS ORNIC_BUILD_TESTS ORNIC_BUILD_DISSECTOR ORNIC_BUILD_FUZZ ORNIC_INSTALL; do
  grep -qx "$o:BOOL=OFF" <<<"$cache" && ok "$o defaults to OFF" || fail "$o is not OFF: $(grep "^$o:" <<<"$cache")"
done

# Flags, per target, as the compiler sees them.
cc_json=$work/build/compile_commands.json
parent_cmd=$(grep -o '"command": "[^"]*api_example.c[^"]*"' "$cc_json" | head -n1)
lib_cmd=$(grep -o '"command": "[^"]*ornic_version.c[^"]*"' "$cc_json" | head -n1)
if [[ -n $parent_cmd && -n $lib_cmd ]]; then
  leaked=""
  for flag in -Wall -Wextra -Wshadow -Wconversion -Wsign-conversion -Werror -fvisibility=hidden -fsanitize -std=c11; do
    [[ $parent_cmd == *" $flag"* ]] && leaked+=" $flag"
  done
  [[ -z $leaked ]] && ok "the parent's target has none of ornic-tools' flags" ||
    fail "ornic-tools' flags reached the parent's target:$leaked"
  for flag in -Wall -Wconversion -fvisibility=hidden; do
    [[ $lib_cmd == *" $flag"* ]] && ok "the library is compiled with $flag" || fail "the library lacks $flag: $lib_cmd"
  done
else
  fail "compile_commands.json lacks the example or the library"
fi

listed=$(ctest --test-dir "$work/build" -N 2>/dev/null || true)
if ! grep -q 'Total Tests: 0' <<<"$listed"; then
  fail "ornic-tools registered tests in the parent: $(ctest --test-dir "$work/build" -N | tail -n1)"
else
  ok "no test of ornic-tools in the parent"
fi
if grep -rqE 'ornicprotoTargets|libornicproto\.(so|a)|ornicproto\.pc' --include=cmake_install.cmake "$work/build"; then
  fail "ornic-tools' install rules reached the parent (ORNIC_INSTALL should default to OFF)"
else
  ok "no install rule of ornic-tools in the parent"
fi

if cmake --build "$work/build" -j2 >"$work/build.log" 2>&1; then
  ok "parent builds"
else
  cat "$work/build.log"; fail "parent build"; finish
fi
for t in api_example api_example_static; do
  if "$work/build/$t" >"$work/$t.out" 2>&1 && grep -q '^roundtrip ok' "$work/$t.out"; then
    ok "$t runs"
  else
    cat "$work/$t.out"; fail "$t"
  fi
done
finish
