#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ornic-decode --threads (issue 33, "Both cores"): --threads 2 and 4 give
# the output of --threads 1, the one-thread loop, byte for byte.
#   run_threads_identity.sh DECODER PCAPGEN TESTGEN WORKDIR SRCDIR
# The captures are run_identity.sh's (the fuzz corpus' and regression
# captures, fresh ornic-pcapgen and ornic-decode-testgen ones, variants.py's
# forms of one and its damaged copies: the damage reports must come at the
# same place) and one of 5000 frames, past the reader thread's ring of
# 4 x 256 packets, whole, cut mid-record and gzipped.
# Each is decoded as --json -v, text (-v) and --stats (the variants as
# --json -v only), the generated ones also --stats --json and -c 3;
# stdout, stderr and the exit status must be identical. Then: two files
# read as one, stdin from a regular file, the libpcap reader, -w's file,
# --no-analysis and --qp; and strace shows that --threads 2 does start a
# thread where it applies and none where it falls back (a pipe, -l, -f), so
# the comparisons above compare the two paths, not one path with itself.
set -u
DEC=${1:?usage: run_threads_identity.sh DECODER PCAPGEN TESTGEN WORKDIR SRCDIR}
GEN=${2:?} TGEN=${3:?} WORK=${4:?} SRC=${5:?}
DEC=$(realpath "$DEC") GEN=$(realpath "$GEN") TGEN=$(realpath "$TGEN") SRC=$(realpath "$SRC")
HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$WORK" && mkdir -p "$WORK/gen" && cd "$WORK" || exit 1
fails=0 compared=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# ---- captures -------------------------------------------------------------
g=gen
for l in eth sll2; do "$TGEN" cases --link "$l" "$g/cases-$l.pcap" 2> /dev/null; done
"$TGEN" pair "$g/pair.pcap" && "$TGEN" unseen "$g/unseen.pcap" || fail "testgen"
small=(--wqes 2 --wqe-size 16K -q)
"$GEN" -o "$g/pg-ornic.pcap" "${small[@]}" &&
  "$GEN" -o "$g/pg-snap64.pcapng" --format pcapng --snaplen 64 "${small[@]}" &&
  "$GEN" -o "$g/pg-ornic.pcap.gz" "${small[@]}" --seed 3 &&
  "$GEN" -o "$g/pg-rc.pcap" --profile rc --loss 0.01 "${small[@]}" &&
  "$GEN" -o "$g/pg-roce.pcap" --profile roce --loss 0.01 "${small[@]}" &&
  "$GEN" -o "$g/pg-read.pcap" --op read "${small[@]}" &&
  "$GEN" -o "$g/pg-big.pcap" --bench 5000 -q > /dev/null || fail "ornic-pcapgen"
# A large capture cut mid-record and its gzip: damage after the ring wrapped.
head -c 2000000 "$g/pg-big.pcap" > "$g/pg-big-cut.pcap" && gzip -c "$g/pg-big-cut.pcap" > "$g/pg-big-cut.pcap.gz"
python3 "$HERE/variants.py" v "$g/cases-eth.pcap" > /dev/null || fail "variants.py"
python3 "$HERE/variants.py" v --damage "$g/cases-eth.pcap" > /dev/null || fail "variants.py --damage"
files=()
while IFS= read -r f; do files+=("$f"); done < <(
  find "$SRC/tests" -name '*.pcap*' -type f
  find "$SRC/fuzz/corpus/capture" "$SRC/tests/fuzz-regressions/capture" -type f
  find gen v -type f | sort)

# ---- the same output ------------------------------------------------------
# run OUT ARGS...: stdout to OUT.out, stderr and the exit status to OUT.err
run() {
  local out=$1; shift
  "$DEC" "$@" > "$out.out" 2> "$out.err"
  echo "exit $?" >> "$out.err"
}
same() { # same WHAT A B: A.out/err equal B.out/err
  compared=$((compared + 1))
  if ! cmp -s "$2.out" "$3.out" || ! cmp -s "$2.err" "$3.err"; then
    fail "$1: $(diff "$2.err" "$3.err" | head -4 | tr '\n' ' ') $(cmp "$2.out" "$3.out" 2>&1 | head -1)"
  fi
}
three() { # three WHAT ARGS...: --threads 1, 2 and 4 give the same
  local what=$1; shift
  run t1 --threads 1 "$@" &
  run t2 --threads 2 "$@"
  wait
  run t4 --threads 4 "$@"
  same "$what [threads 2]" t1 t2
  same "$what [threads 4]" t1 t4
}
# The generated captures (a cut and a gzipped cut one among them) in all
# five formats; the tree's in three; variants.py's forms (what differs is
# how records are stored, not what they hold) as --json -v, which prints
# every field -v does.
modes=("-v --json" "-v" "--stats" "--stats --json" "-c 3 -v")
for f in "${files[@]}"; do
  n=3
  [[ $f == gen/* ]] && n=5
  [[ $f == v/* ]] && n=1
  for m in "${modes[@]:0:n}"; do
    # shellcheck disable=SC2086 # the mode is split into options on purpose
    three "$f [$m]" $m "$f"
  done
done
three "two files as one" --json "$g/pg-rc.pcap" "$g/pg-roce.pcap"
three "two files as one, --stats" --stats "$g/pg-big.pcap" "$g/pg-ornic.pcap"
three "a damaged file of two" -v "$g/pg-ornic.pcap" "$g/pg-big-cut.pcap"
three "--no-analysis" --no-analysis -v "$g/pg-big.pcap"
three "--qp" --qp 0x12 --json "$g/pg-big.pcap"
three "--no-icrc --strict" --no-icrc --strict --json "$g/pg-rc.pcap"
for f in "$g/pg-big.pcap" "$g/pg-big-cut.pcap.gz"; do
  for t in 1 2; do
    "$DEC" --threads $t --json - < "$f" > "s$t.out" 2> "s$t.err"
    echo "exit $?" >> "s$t.err"
  done
  same "$f [stdin from the file]" s1 s2
  ORNIC_DECODE_READER=libpcap three "$f [libpcap's reader]" --json "$f"
done
for t in 1 2; do
  ORNIC_DECODE_READER=libpcap "$DEC" --threads $t --stats "$g/pg-big-cut.pcap" > "l$t.out" 2> "l$t.err"
  echo "exit $?" >> "l$t.err"
done
same "libpcap's reader, damaged" l1 l2
for t in 1 2; do
  "$DEC" -q --threads $t -w "w$t.pcap" --qp 0x12 "$g/pg-big-cut.pcap" > /dev/null 2>&1
  echo "exit $?" > "w$t.err"
  cp "w$t.pcap" "w$t.out" 2> /dev/null
done
same "-w" w1 w2
echo "threads identity: ${#files[@]} captures x 1 to ${#modes[@]} formats x 3 thread counts, $compared comparisons"

# ---- the threaded path is taken where it applies --------------------------
# clones ARGS... [< input]: how many threads the run created (clone calls)
if command -v strace > /dev/null; then
  clones() { strace -f -qq -e trace=clone,clone3 -o st.txt "$DEC" "$@" > /dev/null 2>&1; grep -c 'clone' st.txt; }
  big=$g/pg-big.pcap
  # The one-thread run is the baseline: a sanitizer's runtime starts threads of its own
  # (TSan one more with the first pthread_create).
  base=$(clones --threads 1 --stats "$big")
  started() { [[ $(clones "$@") -gt $base ]]; }
  fellback() { [[ $(clones "$@") -eq $base ]]; }
  started --threads 2 --stats "$big" || fail "--threads 2 on a file started no thread"
  fellback --stats "$big" || fail "the default (one thread) started a thread"
  started --threads 2 --stats - < "$big" || fail "stdin from a file started no thread"
  started --threads 2 --stats -r "$big" || fail "-r FILE started no thread"
  started --threads 2 --stats "$g/pg-big-cut.pcap.gz" || fail "a .gz file started no thread"
  fellback --threads 2 -l "$big" || fail "-l started a thread"
  fellback --threads 2 -f udp "$big" || fail "-f started a thread"
  n=$(cat "$big" | strace -f -qq -e trace=clone,clone3 -o st.txt "$DEC" --threads 2 --stats - > /dev/null 2>&1; grep -c clone st.txt)
  [[ $n -eq $base ]] || fail "a pipe started a thread"
else
  echo "strace missing: which path ran is not checked"
  [[ ${CI:-} == true ]] && fail "strace missing under CI=true (scripts/deps.sh test installs it)"
fi
echo "threads identity: $fails failed"
[[ $fails -eq 0 ]]
