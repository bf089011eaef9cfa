#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Edge coverage of AFL++ with the structure-aware mutator (fuzz/mutator) against
# AFL++'s own mutators, same target, seeds, dictionary and exec budget (issue 32;
# docs/FUZZING.md, "Structure-aware mutator against AFL++'s own and libFuzzer's"). A benchmark,
# not a pass/fail test.
#
# For each target and config, RUNS runs with -s 1..RUNS, each stopped by
# `afl-fuzz -E EXECS` (same execs for every config), seeded from fuzz/corpus/<t>
# with fuzz/ornic.dict, one run at a time on core CORE. Configs: `default`
# (AFL++'s mutators), `mixed` (the library loaded with AFL_CUSTOM_MUTATOR_LIBRARY,
# run as AFL++'s custom stage beside its own: AFL++'s default way of loading
# one), and for fuzz_baseline (the empty harness, the exec-rate yardstick) also
# `only` (AFL_CUSTOM_MUTATOR_ONLY=1: every input from the mutator, its full cost).
# Output in OUTDIR: runs.csv (one row per run, from fuzzer_stats), summary.csv
# (medians per target and config, ratios to `default`), curves/*.dat (edges vs
# execs from plot_data, which AFL++ 4.04c writes only every few seconds and not
# before its first queue cycle: few points), curves/*.queue (queue entries vs
# execs, from the execs:N of every queue file name: every find) and
# fuzz-compare.png (gnuplot, both).
#
# ENGINE=libfuzzer does the same with libFuzzer (LF_BUILD: a -DORNIC_FUZZ=LIBFUZZER
# build, ASan + UBSan as every libFuzzer harness here is built): `default` is
# fuzz_<t> with libFuzzer's own mutators, `mixed` fuzz_<t>_mut, the same harness
# with fuzz/mutator/ornic_libfuzzer_mutator.h (which hands 32 of 256 calls to
# libFuzzer's own mutators); `-seed=S -runs=EXECS`, edges = libFuzzer's final
# `cov:`, curves from its status lines. Targets with a _mut harness only: frame,
# responder_frames, responder_pcapgen.
#
# Usage: scripts/fuzz-compare.sh [OUTDIR]   (default build/fuzz-compare)
# Environment: AFL_BUILD (build/fuzz-afl), MUT_BUILD (build), CORE (0), RUNS (3),
#   TARGETS (targets to run, space-separated: default all, baseline frame
#   responder responder_frames responder_pcapgen), EXECS_FRAME, EXECS_RESPONDER,
#   EXECS_RESPONDER_FRAMES, EXECS_BASELINE (execs per run; as set when the
#   runs were made), REPORT_ONLY=1 (no runs: the summary and plot again from
#   OUTDIR/runs), ENGINE (afl or libfuzzer), LF_BUILD (build/fuzz-lf).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
outdir=${1:-build/fuzz-compare}
afl_build=${AFL_BUILD:-build/fuzz-afl}
engine=${ENGINE:-afl}
lf_build=${LF_BUILD:-build/fuzz-lf}
mut_lib=$(realpath -m "${MUT_BUILD:-build}/lib/libornic_afl_mutator.so")
core=${CORE:-0}
runs=${RUNS:-3}
declare -A execs=([frame]=${EXECS_FRAME:-1200000} [responder]=${EXECS_RESPONDER:-400000}
  [responder_frames]=${EXECS_RESPONDER_FRAMES:-600000} [baseline]=${EXECS_BASELINE:-1200000})
execs[responder_pcapgen]=${execs[responder_frames]}
declare -A corpus=([frame]=fuzz/corpus/frame [responder]=fuzz/corpus/responder
  [responder_frames]=fuzz/corpus/responder_frames [baseline]=fuzz/corpus/frame)
# responder_pcapgen: fuzz_responder_frames seeded only with what a user has at
# hand, captures (its corpus's pcapgen-* seeds: ornic-pcapgen traffic tapped at
# the responder), not the hand-written scenarios of the other seeds.
declare -A bin=([frame]=fuzz_frame [responder]=fuzz_responder [responder_frames]=fuzz_responder_frames
  [responder_pcapgen]=fuzz_responder_frames [baseline]=fuzz_baseline)
# Leading bytes the mutator keeps: fuzz_frame's mode byte. fuzz_responder's
# input is 4 configuration bytes and then actions, not an Ethernet frame: the
# mutator decodes none of it and falls back to plain byte mutations.
# fuzz_responder_frames's is its 4 configuration bytes, then frame records
# (fuzz/fuzz_responder_frames.c): the mutator takes them as such with
# ORNIC_MUT_RECORDS=1.
declare -A skip=([frame]=1 [responder]=0 [responder_frames]=4 [responder_pcapgen]=4 [baseline]=1)
declare -A records=([frame]=0 [responder]=0 [responder_frames]=1 [responder_pcapgen]=1 [baseline]=0)
declare -A timeout=([frame]=1000 [responder]=5000 [responder_frames]=5000 [responder_pcapgen]=5000
  [baseline]=1000)
read -r -a targets <<<"${TARGETS:-baseline frame responder responder_frames responder_pcapgen}"
for t in "${targets[@]}"; do
  [[ -v "skip[$t]" ]] || { echo "fuzz-compare: unknown target $t" >&2; exit 2; }
done

for t in "${targets[@]}"; do
  if [[ $engine = libfuzzer ]]; then
    for b in "${bin[$t]}" "${bin[$t]}_mut"; do
      [[ -x $lf_build/bin/$b ]] || { echo "fuzz-compare: no $lf_build/bin/$b" >&2; exit 1; }
    done
  else
    [[ -x $afl_build/bin/${bin[$t]} ]] || { echo "fuzz-compare: no $afl_build/bin/${bin[$t]}" >&2; exit 1; }
  fi
done
[[ $engine = libfuzzer || -f $mut_lib ]] || { echo "fuzz-compare: no $mut_lib" >&2; exit 1; }
mkdir -p "$outdir/curves" "$outdir/runs"
outdir=$(realpath "$outdir")
rm -rf "$outdir/seeds-responder_pcapgen" && mkdir "$outdir/seeds-responder_pcapgen"
cp fuzz/corpus/responder_frames/pcapgen-* "$outdir/seeds-responder_pcapgen/"
corpus[responder_pcapgen]=$outdir/seeds-responder_pcapgen
export AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_AFFINITY=1

configs() { if [[ $1 = baseline && $engine = afl ]]; then echo default mixed only; else echo default mixed; fi; }

curves() { # target config seed: the curves of one run
  local out=$outdir/runs/$1-$2-$3
  awk -F', *' '!/^#/ { print $12, $13 }' "$out/default/plot_data" | sort -n >"$outdir/curves/$1-$2-$3.dat"
  ls "$out/default/queue" | sed -n 's/.*,execs:\([0-9]*\).*/\1/p' | sort -n |
    awk -v n="$(ls "$out/default/queue" | grep -vc ',execs:')" '{ print $1, n + NR }' >"$outdir/curves/$1-$2-$3.queue"
}

one() { # target config seed: one afl-fuzz run, a row of runs.csv
  local t=$1 c=$2 s=$3 out=$outdir/runs/$1-$2-$3 env=()
  rm -rf "$out"
  [[ $c != default ]] && env=(AFL_CUSTOM_MUTATOR_LIBRARY="$mut_lib" ORNIC_MUT_SKIP="${skip[$t]}")
  [[ $c != default && ${records[$t]} = 1 ]] && env+=(ORNIC_MUT_RECORDS=1)
  [[ $c = only ]] && env+=(AFL_CUSTOM_MUTATOR_ONLY=1)
  env "${env[@]}" taskset -c "$core" afl-fuzz -s "$s" -E "${execs[$t]}" -i "${corpus[$t]}" \
    -o "$out" -x fuzz/ornic.dict -t "${timeout[$t]}" -- "$afl_build/bin/${bin[$t]}" \
    >"$out.log" 2>&1 || { echo "fuzz-compare: $t $c $s failed:" >&2; tail -20 "$out.log" >&2; exit 1; }
  # AFL++ 4.04c can leave its persistent child behind, stopped, holding $out.
  for pid in $(find /proc/[0-9]*/fd -maxdepth 1 -lname "$out/*" 2>/dev/null | cut -d/ -f3 | sort -u); do
    kill -KILL "$pid" 2>/dev/null || true
  done
  local st=$out/default/fuzzer_stats
  get() { sed -n "s/^$1 *: *//p" "$st" | tr -d '%'; }
  echo "$t,$c,$s,$(get execs_done),$(get edges_found),$(get bitmap_cvg),$(get execs_per_sec),$(get run_time)" \
    >>"$outdir/runs.csv"
  # plot_data: total_execs (column 12) and edges_found (13) of AFL++ 4.04c.
  curves "$t" "$c" "$s"
  echo "$t $c -s $s: $(get execs_done) execs, $(get edges_found) edges, $(get execs_per_sec) execs/s" >&2
}

lf_one() { # target config seed: one libFuzzer run, a row of runs.csv
  local t=$1 c=$2 s=$3 out=$outdir/runs/$1-$2-$3 b=${bin[$1]}
  [[ $c = mixed ]] && b=${b}_mut
  rm -rf "$out" && mkdir -p "$out/corpus"
  cp "${corpus[$t]}"/* "$out/corpus/"
  taskset -c "$core" "$lf_build/bin/$b" -seed="$s" -runs="${execs[$t]}" -dict=fuzz/ornic.dict \
    -timeout=$((timeout[$t] / 1000 + 1)) -print_final_stats=1 -close_fd_mask=1 "$out/corpus" \
    >"$out.log" 2>&1 || { echo "fuzz-compare: $t $c $s failed:" >&2; tail -20 "$out.log" >&2; exit 1; }
  # Status lines: "#EXECS <event> cov: EDGES ft: F corp: N/..." ; the last is DONE.
  awk '/^#[0-9]+\t/ || /^#[0-9]+ / { for (i = 1; i <= NF; i++) if ($i == "cov:") print substr($1, 2), $(i + 1) }' \
    "$out.log" >"$outdir/curves/$t-$c-$s.dat"
  awk '/^#[0-9]+/ { for (i = 1; i <= NF; i++) if ($i == "corp:") { split($(i + 1), n, "/"); print substr($1, 2), n[1] } }' \
    "$out.log" >"$outdir/curves/$t-$c-$s.queue"
  local ex edges secs
  ex=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out.log")
  secs=$(sed -n 's/^stat::.*//; s/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$out.log")
  edges=$(tail -1 "$outdir/curves/$t-$c-$s.dat" | cut -d' ' -f2)
  echo "$t,$c,$s,$ex,$edges,,$(awk -v e="$ex" -v s="$secs" 'BEGIN { printf "%.0f", (s > 0 ? e / s : 0) }'),$secs" \
    >>"$outdir/runs.csv"
  echo "$t $c -seed=$s: $ex execs, $edges edges (cov), ${secs}s" >&2
}
[[ $engine = libfuzzer ]] && one() { lf_one "$@"; }

if [[ ${REPORT_ONLY:-0} = 1 ]]; then
  for ((s = 1; s <= runs; s++)); do
    for t in "${targets[@]}"; do
      [[ $engine = libfuzzer ]] || for c in $(configs "$t"); do curves "$t" "$c" "$s"; done
    done
  done
else
  echo "target,config,seed,execs_done,edges_found,bitmap_cvg_pct,execs_per_sec,run_time_s" >"$outdir/runs.csv"
  # Rounds by seed, so that slow drifts of the shared machine spread over every config.
  for ((s = 1; s <= runs; s++)); do
    for t in "${targets[@]}"; do
      for c in $(configs "$t"); do one "$t" "$c" "$s"; done
    done
  done
fi

source scripts/lib/median.sh
col() { awk -F, -v t="$1" -v c="$2" -v k="$3" '$1 == t && $2 == c { printf "%s ", $k }' "$outdir/runs.csv"; }
echo "target,config,runs,execs_per_run,median_edges,min_edges,max_edges,median_execs_per_sec,edges_ratio,execs_per_sec_ratio" \
  >"$outdir/summary.csv"
for t in "${targets[@]}"; do
  e0=$(median "$(col "$t" default 5)") r0=$(median "$(col "$t" default 7)")
  for c in $(configs "$t"); do
    e=$(col "$t" "$c" 5) r=$(median "$(col "$t" "$c" 7)")
    me=$(median "$e")
    echo "$t,$c,$runs,${execs[$t]},$me,$(tr ' ' '\n' <<<"$e" | grep . | sort -g | head -1)," \
      "$(tr ' ' '\n' <<<"$e" | grep . | sort -g | tail -1),$r,$(awk -v a="$me" -v b="$e0" \
      'BEGIN { printf "%.3f", a / b }'),$(awk -v a="$r" -v b="$r0" 'BEGIN { printf "%.3f", a / b }')" |
      tr -d ' ' >>"$outdir/summary.csv"
  done
done
column -s, -t "$outdir/summary.csv"

plots() { # target ext: gnuplot plot clauses, one line per run, a colour per config
  local t=$1 x=$2 sep="" c s lc
  for c in default mixed; do
    lc=$([[ $c = default ]] && echo '#1f77b4' || echo '#d62728')
    for ((s = 1; s <= runs; s++)); do
      printf '%s"%s" using ($1/1e3):2 with linespoints pt 7 ps 0.4 lc rgb "%s" title "%s"' "$sep" \
        "$outdir/curves/$t-$c-$s.$x" "$lc" "$([[ $s = 1 ]] && echo "$c" || echo "")"
      sep=", "
    done
  done
}
# One column per target run but the empty harness: edges above, queue growth below.
plotted=()
for t in "${targets[@]}"; do [[ $t != baseline ]] && plotted+=("$t"); done
if [[ $engine = libfuzzer ]]; then
  eng=libFuzzer edges_label="edges (libFuzzer's cov:)" queue_label="corpus entries"
else
  eng=AFL++ edges_label="edges found (plot_data)" queue_label="queue entries"
fi
if ((${#plotted[@]})); then
  {
    echo 'set terminal pngcairo size '$((600 * ${#plotted[@]})),860' font "sans,10" noenhanced'
    echo "set output \"$outdir/fuzz-compare.png\""
    echo "set multiplot layout 2,${#plotted[@]}"
    echo 'set xlabel "execs (thousands)"; set key bottom right; set grid'
    echo "set ylabel \"$edges_label\""
    for t in "${plotted[@]}"; do
      echo "set title \"fuzz_$t: $eng default vs + ornic mutator (mixed), $runs seeds\""
      echo "plot $(plots "$t" dat)"
    done
    echo "set ylabel \"$queue_label\""
    for t in "${plotted[@]}"; do
      echo "set title \"fuzz_$t: $queue_label\""
      echo "plot $(plots "$t" queue)"
    done
    echo 'unset multiplot'
  } | gnuplot
fi
echo "fuzz-compare: $outdir/runs.csv, $outdir/summary.csv, $outdir/fuzz-compare.png" >&2
