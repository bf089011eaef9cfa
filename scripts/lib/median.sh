# SPDX-License-Identifier: MIT
# Sourced by the benchmark scripts (analysis-speed.sh, bench-pcapgen-io.sh, bench-scale.sh,
# dissector-memory.sh, dissector-speed.sh, fuzz-compare.sh, fuzz-speed.sh).
# median "V1 V2 ...": the median of space-separated numbers (the upper one of
# the middle two when their count is even).
median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
