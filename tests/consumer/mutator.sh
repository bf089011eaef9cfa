#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Consumer test 5: the structure-aware mutator (fuzz/mutator) installed and
# used from outside.
#   1. configure ornic-tools with the library and the plain fuzz build only
#      (tools, tests, dissector off), build the library and the mutator,
#      install them into a temporary prefix;
#   2. the prefix holds libornic_mutator.a, libornic_afl_mutator.so and the
#      headers in include/ornic/mutator/, which compile alone (C11, -pedantic);
#   3. tests/consumer/mutator, a project of its own, finds ornicproto::mutator
#      with find_package(ornicproto): mutate_frame (the C interface) mutates a
#      seed frame of fuzz/corpus/frame into consistent variants, a records
#      input and a repair;
#   4. with LIBFUZZER_CC: lf_mutator, a libFuzzer harness that includes
#      ornic_libfuzzer_mutator.h, runs 20,000 inputs from that seed (kept
#      whole: -reduce_inputs=0); libFuzzer reports the custom mutator found and
#      more than 1 in 10 inputs has a right iCRC (libFuzzer's own mutations
#      alone break nearly every one).
# Usage: mutator.sh SOURCE_DIR WORK_DIR C_COMPILER [LIBFUZZER_CC]
set -euo pipefail
. "$(dirname "$0")/common.sh"
lfcc=${4:-}
work=$(cd "$work" && pwd)
prefix=$work/prefix
seed=$src/fuzz/corpus/frame/op-0a-RC_RDMA_WRITE_ONLY

# 1. build and install
if run_logged "$work/configure.log" cmake -S "$src" -B "$work/build" -DCMAKE_C_COMPILER="$cc" \
     -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" -DORNIC_BUILD_TOOLS=OFF \
     -DORNIC_BUILD_TESTS=OFF -DORNIC_BUILD_DISSECTOR=OFF -DORNIC_BUILD_FUZZ=ON &&
   run_logged "$work/build.log" cmake --build "$work/build" -j2 --target ornicproto ornicproto_static \
     ornic_mutator ornic_afl_mutator &&
   run_logged "$work/install.log" cmake --install "$work/build"; then
  ok "library and mutator built and installed"
else
  fail "library and mutator build or install"; finish
fi

# 2. what was installed
for f in include/ornic/mutator/ornic_mutator.h include/ornic/mutator/ornic_libfuzzer_mutator.h; do
  if [[ -f $prefix/$f ]] &&
     printf '#include <%s>\nint ornic_header_test;\n' "${f#include/}" |
       "$cc" -std=c11 -Wall -Wextra -Werror -pedantic -I"$prefix/include" -fsyntax-only -x c - \
         2>"$work/h.log"; then
    ok "installed $f, compiles alone"
  else
    cat "$work/h.log" 2>/dev/null || true; fail "$f missing or does not compile alone"
  fi
done
for f in libornic_mutator.a libornic_afl_mutator.so; do
  [[ -n $(find "$prefix" -name "$f") ]] && ok "installed $f" || fail "no $f"
done

# 3. the C interface through find_package
cm=(-DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release)
if run_logged "$work/cm.log" cmake -S "$here/mutator" -B "$work/cm" -DCMAKE_C_COMPILER="$cc" "${cm[@]}" &&
   run_logged "$work/cm-build.log" cmake --build "$work/cm" -j2 --target mutate_frame; then
  ok "mutate_frame builds on ornicproto::mutator"
  if out=$("$work/cm/mutate_frame" "$seed" 1 2>&1); then ok "mutate_frame: $out"; else
    echo "$out"; fail "mutate_frame"; fi
else
  fail "mutate_frame does not build with find_package(ornicproto)"
fi

# 4. a libFuzzer harness on the header
if [[ -n $lfcc ]]; then
  if run_logged "$work/lf.log" cmake -S "$here/mutator" -B "$work/lf" -DCMAKE_C_COMPILER="$lfcc" "${cm[@]}" &&
     run_logged "$work/lf-build.log" cmake --build "$work/lf" -j2 --target lf_mutator; then
    ok "lf_mutator builds with $lfcc on ornic_libfuzzer_mutator.h"
    mkdir -p "$work/seeds" "$work/corpus"
    cp "$seed" "$work/seeds/"
    (cd "$work" && "$work/lf/lf_mutator" -runs=20000 -seed=1 -reduce_inputs=0 corpus seeds >"$work/lf-run.log" 2>&1) || true
    line=$(grep '^lf_mutator:' "$work/lf-run.log" || true)
    # libFuzzer stacks several mutations per input and hands 32/256 of them to
    # its own byte mutations (ORNIC_LF_HAVOC_RATE), so not all stay right;
    # without the custom mutator nearly none would (a byte change anywhere in
    # the iCRC's coverage breaks it).
    if grep -q 'INFO: found LLVMFuzzerCustomMutator' "$work/lf-run.log" &&
       [[ $line =~ ([0-9]+)\ of\ ([0-9]+) ]] && ((BASH_REMATCH[2] >= 20000 && BASH_REMATCH[1] * 10 > BASH_REMATCH[2])); then
      ok "$line"
    else
      tail -n 20 "$work/lf-run.log"; fail "lf_mutator: ${line:-no tally}"
    fi
  else
    fail "lf_mutator does not build"
  fi
fi
finish
