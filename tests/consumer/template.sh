#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Consumer test 4: fuzz/template, the differential harness users copy, built
# as a project of its own against the library that consumer_installed
# installed (its CTest fixture, consumer_prefix), with find_package(ornicproto):
#   1. diff_replay builds (-Werror) with example_dut.c as shipped (its planted
#      bug) and with -DEXAMPLE_DUT_FIXED=ON;
#   2. crafted frames (template_frames.py, zlib's CRC-32): a valid RC ACK is
#      accepted by both sides; the ACK with 4 bytes of payload makes the buggy
#      DUT's replay abort with the disagreement, and the fixed one agree;
#   3. the fixed DUT on the Ethernet seeds of fuzz/corpus/frame (mode byte 0,
#      the byte dropped): no disagreement, and fields compared on >= 40 frames;
#   4. with LIBFUZZER_CC (a clang whose -fsanitize=fuzzer links): diff_fuzz with
#      the structure-aware mutator finds the planted bug from those seeds
#      within 10 s (-seed=1).
# Usage: template.sh SOURCE_DIR WORK_DIR C_COMPILER PREFIX [LIBFUZZER_CC]
set -euo pipefail
. "$(dirname "$0")/common.sh"
prefix=$4 lfcc=${5:-}
work=$(cd "$work" && pwd) # the fuzzer runs from inside it
tmpl=$src/fuzz/template
[[ -f $prefix/include/ornic/ornic.h ]] || { fail "no installed library in $prefix (consumer_installed)"; finish; }

build_template() { # dir compiler cmake-args...: configure and build, or fail
  local dir=$1 c=$2
  shift 2
  run_logged "$work/$dir-configure.log" cmake -S "$tmpl" -B "$work/$dir" -DCMAKE_C_COMPILER="$c" \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_FLAGS=-Werror "$@" &&
    run_logged "$work/$dir-build.log" cmake --build "$work/$dir" -j2
}

# 3's inputs: the Ethernet seeds, without fuzz_frame's mode byte.
mkdir -p "$work/seeds"
for f in "$src"/fuzz/corpus/frame/*; do
  b=$(od -An -tu1 -N1 "$f" | tr -d ' ')
  [[ -n $b ]] && ((b % 6 == 0)) && tail -c +2 "$f" >"$work/seeds/$(basename "$f")"
done
python3 "$here/template_frames.py" "$work/crafted"

if [[ -z $lfcc ]]; then
  # 1. the replay programs
  build_template buggy "$cc" && ok "diff_replay builds with find_package(ornicproto)" ||
    { fail "diff_replay (example_dut.c) does not build"; finish; }
  build_template fixed "$cc" -DEXAMPLE_DUT_FIXED=ON && ok "diff_replay builds with EXAMPLE_DUT_FIXED" ||
    { fail "diff_replay (EXAMPLE_DUT_FIXED) does not build"; finish; }
  # 2. crafted frames
  if out=$("$work/buggy/diff_replay" "$work/crafted/rc-ack" 2>&1) &&
     grep -q '1 accepted by both' <<<"$out"; then
    ok "a valid RC ACK: accepted by both"
  else
    echo "$out"; fail "a valid RC ACK"
  fi
  rc=0
  out=$("$work/buggy/diff_replay" "$work/crafted/rc-ack-payload-4" 2>&1) || rc=$?
  if ((rc != 0)) && grep -q '^DIFF: the DUT accepts a frame libornicproto rejects' <<<"$out" &&
     grep -q 'RC Acknowledge carries no payload but 4 bytes follow its headers (D5)' <<<"$out"; then
    ok "the planted bug: exit status $rc and the disagreement printed"
  else
    echo "$out"; fail "the planted bug not reported (exit status $rc)"
  fi
  if out=$("$work/fixed/diff_replay" "$work/crafted/rc-ack-payload-4" 2>&1) &&
     grep -q '1 rejected by both' <<<"$out"; then
    ok "the fixed DUT rejects the ACK with a payload too"
  else
    echo "$out"; fail "the fixed DUT on the ACK with a payload"
  fi
  # 3. the seeds
  if out=$("$work/fixed/diff_replay" "$work/seeds"/* 2>&1) &&
     line=$(grep '^diff replay: [0-9]* inputs' <<<"$out") &&
     (($(sed -E 's/.*inputs: ([0-9]+) accepted.*/\1/' <<<"$line") >= 40)); then
    ok "fixed DUT on the seeds: ${line#diff replay: }"
  else
    tail -n 20 <<<"$out"; fail "fixed DUT on the seeds"
  fi
  finish
fi

# 4. libFuzzer with the mutator, from the seeds
build_template lf "$lfcc" -DORNIC_MUTATOR_DIR="$src/fuzz/mutator" &&
  ok "diff_fuzz builds with $lfcc and the mutator" || { fail "diff_fuzz does not build"; finish; }
mkdir -p "$work/corpus"
rc=0
(cd "$work" && "$work/lf/diff_fuzz" -max_total_time=10 -seed=1 corpus seeds >"$work/fuzz.log" 2>&1) || rc=$?
if ((rc != 0)) && grep -q '^DIFF: the DUT accepts a frame libornicproto rejects' "$work/fuzz.log" &&
   grep -q 'carries no payload' "$work/fuzz.log"; then
  ok "libFuzzer found the planted bug: $(grep -o '^#[0-9]*' "$work/fuzz.log" | tail -n1 | tr -d '#') execs"
else
  tail -n 30 "$work/fuzz.log"; fail "libFuzzer did not find the planted bug in 10 s (exit status $rc)"
fi
finish
