#!/usr/bin/env sh
# SPDX-License-Identifier: MIT
# CTest fuzz_responder_frames_replay: fuzz_responder_frames, given the frame
# records fuzz_responder writes of a seed (FUZZ_RESPONDER_RECORD), drives the
# responder exactly as fuzz_responder did: the same frames in, the same
# frames out at the same simulated times, the same counters
# (FUZZ_RESPONDER_VERBOSE=2 traces, compared line by line). Except for the
# seed of mutated frames, whose flipped bytes break the iCRC: there the
# frames harness must drop them (its NIC checks the iCRC, the simulator's
# arrival does not) and so behave differently.
#
# Usage: responder_frames_replay.sh FUZZ_RESPONDER FUZZ_RESPONDER_FRAMES SEEDS_DIR WORK
set -eu
responder=$1 frames=$2 seeds=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
status=0 n=0
for seed in "$seeds"/*; do
  name=${seed##*/}
  # The counters line ends, after ';', with what only the model knows (WQEs done, taint).
  FUZZ_RESPONDER_VERBOSE=2 FUZZ_RESPONDER_RECORD="$work/$name" "$responder" "$seed" 2>&1 |
    grep -v '^fuzz replay' | sed 's/;.*//' >"$work/$name.actions"
  FUZZ_RESPONDER_VERBOSE=2 "$frames" "$work/$name" 2>&1 | grep -v '^fuzz replay' >"$work/$name.frames.full"
  sed 's/;.*//' "$work/$name.frames.full" >"$work/$name.frames"
  n=$((n + 1))
  case $name in
  mutated-*)
    if cmp -s "$work/$name.actions" "$work/$name.frames" ||
      grep -q '; 0 dropped' "$work/$name.frames.full"; then
      echo "FAIL $name: mutated frames (bad iCRC) were not dropped"
      status=1
    fi
    ;;
  *)
    if ! cmp -s "$work/$name.actions" "$work/$name.frames"; then
      echo "FAIL $name: the recorded frames drive the responder differently:"
      diff "$work/$name.actions" "$work/$name.frames" | head -10
      status=1
    fi
    ;;
  esac
done
[ "$n" -gt 0 ] || { echo "FAIL: no seeds in $seeds"; exit 1; }
[ $status = 0 ] && echo "fuzz_responder_frames: $n recorded seeds replayed as fuzz_responder ran them"
exit $status
