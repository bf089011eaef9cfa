#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# AFL++ persistent-mode speed of each harness on one core, against a baseline
# measured in the same run (a benchmark, not a pass/fail test).
#
# The baseline is fuzz_baseline, a harness that ignores its input: what it
# reaches is the ceiling that AFL++'s per-input hand-over (afl-fuzz, the fork
# server, the SIGSTOP/SIGCONT of __AFL_LOOP) leaves on this core right now.
# Rounds interleave the baseline and the targets, each a fresh
# `scripts/fuzz.sh TARGET SECONDS --cores 1` without CmpLog or sanitizers;
# the table gives medians over the rounds of execs/s and of each target's
# share of the baseline of its own round (the figure that other load on the
# machine disturbs least). Each run binds afl-fuzz and the harness to one free
# core; fuzz.sh's CPU time is only a lower bound, so it is not used here.
#
# Usage: scripts/fuzz-speed.sh [--seconds S] [--rounds R] [TARGET ...]
#   defaults: 30 s, 3 rounds, targets frame ext roundtrip capture responder
# Environment: as scripts/fuzz.sh (AFL_NO_AFFINITY=1 if every core is taken).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seconds=30 rounds=3 targets=()
while (($#)); do
  case $1 in
  --seconds) seconds=$2; shift 2 ;;
  --rounds) rounds=$2; shift 2 ;;
  -h | --help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  -*) echo "fuzz-speed: unknown option $1" >&2; exit 2 ;;
  *) targets+=("$1"); shift ;;
  esac
done
((${#targets[@]})) || targets=(frame ext roundtrip capture responder)
[[ $seconds =~ ^[1-9][0-9]*$ && $rounds =~ ^[1-9][0-9]*$ ]] ||
  { echo "fuzz-speed: --seconds and --rounds take positive integers" >&2; exit 2; }

export ORNIC_FUZZ_CMPLOG=0 ORNIC_FUZZ_ASAN=0
source scripts/lib/median.sh
work=build/fuzz-speed
mkdir -p "$work"
rate() { # target: execs/s of one fresh run, from AFL++'s own fuzzer_stats
  local t=$1 stats=$work/$1/default/fuzzer_stats execs run_s
  scripts/fuzz.sh "$t" "$seconds" --cores 1 --out "$work/$t" >/dev/null ||
    { echo "fuzz-speed: the $t run failed" >&2; exit 1; }
  execs=$(sed -n 's/^execs_done *: *//p' "$stats")
  run_s=$(sed -n 's/^run_time *: *//p' "$stats")
  [[ $execs =~ ^[0-9]+$ && $run_s =~ ^[1-9][0-9]*$ ]] ||
    { echo "fuzz-speed: $stats lacks execs_done or run_time" >&2; exit 1; }
  echo $((execs / run_s))
}
declare -A wall share
for ((r = 1; r <= rounds; r++)); do
  base=$(rate baseline)
  wall[baseline]+="$base "
  echo "round $r: fuzz_baseline $base execs/s" >&2
  for t in "${targets[@]}"; do
    x=$(rate "$t")
    wall[$t]+="$x "
    share[$t]+="$(awk -v a="$x" -v b="$base" 'BEGIN { printf "%.3f", a / b }') "
    echo "round $r: fuzz_$t $x execs/s" >&2
  done
done

echo "AFL++ persistent mode, one core, no sanitizers or CmpLog; $rounds interleaved rounds of $seconds s, medians"
printf '%-16s %10s %18s\n' harness "execs/s" "share of baseline"
printf '%-16s %10s %18s\n' fuzz_baseline "$(median "${wall[baseline]}")" 1
for t in "${targets[@]}"; do
  printf '%-16s %10s %18s\n' "fuzz_$t" "$(median "${wall[$t]}")" "$(median "${share[$t]}")"
done
