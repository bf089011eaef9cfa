#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ornic-decode's two capture readers give the same output (issue 18): its
# own (core/reader.c) and libpcap, which ORNIC_DECODE_READER=libpcap forces.
#   run_identity.sh DECODER PCAPGEN TESTGEN WORKDIR SRCDIR [REF_DECODER]
# Every capture of the tree (tests/**/*.pcap*, fuzz/corpus/capture/*,
# tests/fuzz-regressions/capture/*), fresh ones from ornic-pcapgen (--snaplen,
# --format pcapng, .gz output, --profile rc and roce) and ornic-decode-testgen
# (cases --link eth|raw|sll|sll2, with and without --ns; pair; unseen), and
# their variants.py forms (byte orders, microseconds, Kuznetzov, pcapng with
# options, several interfaces and resolutions, SPB/PB, two sections, gzip)
# and damaged copies, each decoded as text (-v), --json (-v), --stats and
# text from a pipe: stdout, stderr and the exit status must be
# byte-identical (ORNIC_IDENTITY_FULL=1: variants of eight sources and all
# three formats; else three sources, and --json -v alone from files: it
# prints every field text -v does, and text still runs from the pipe; see
# below). Then the files where the readers differ by design
# (variants.py --mixed): the tool's reader decodes each packet by its own
# interface, libpcap stops at the second interface.
# REF_DECODER (optional, e.g. a build of the previous commit): its output
# (libpcap only, then) must equal the default reader's on the same files.
set -u
DEC=${1:?usage: run_identity.sh DECODER PCAPGEN TESTGEN WORKDIR SRCDIR [REF_DECODER]}
GEN=${2:?} TGEN=${3:?} WORK=${4:?} SRC=${5:?} REF=${6:-}
DEC=$(realpath "$DEC") GEN=$(realpath "$GEN") TGEN=$(realpath "$TGEN") SRC=$(realpath "$SRC")
[[ -n $REF ]] && REF=$(realpath "$REF")
HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$WORK" && mkdir -p "$WORK/gen" && cd "$WORK" || exit 1
fails=0 compared=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# ---- captures -------------------------------------------------------------
g=gen
for l in eth raw sll sll2; do
  "$TGEN" cases --link "$l" "$g/cases-$l.pcap" 2> /dev/null
  "$TGEN" cases --link "$l" --ns "$g/cases-$l-ns.pcap" 2> /dev/null
done
"$TGEN" pair "$g/pair.pcap" && "$TGEN" unseen "$g/unseen.pcap" || fail "testgen"
small=(--wqes 2 --wqe-size 16K -q)
"$GEN" -o "$g/pg-ornic.pcap" "${small[@]}" &&
  "$GEN" -o "$g/pg-snap96.pcap" --snaplen 96 "${small[@]}" &&
  "$GEN" -o "$g/pg-ornic.pcapng" "${small[@]}" --seed 2 &&
  "$GEN" -o "$g/pg-snap64.pcapng" --format pcapng --snaplen 64 "${small[@]}" &&
  "$GEN" -o "$g/pg-ornic.pcap.gz" "${small[@]}" --seed 3 &&
  "$GEN" -o "$g/pg-rc.pcapng.gz" --profile rc "${small[@]}" &&
  "$GEN" -o "$g/pg-rc.pcap" --profile rc --loss 0.01 "${small[@]}" &&
  "$GEN" -o "$g/pg-roce.pcap" --profile roce --loss 0.01 "${small[@]}" &&
  "$GEN" -o "$g/pg-read.pcap" --op read "${small[@]}" || fail "ornic-pcapgen"
# Every form of variants.py is made from each source below. The forms are
# what differs between the readers, so CTest's run takes three sources, and
# one for the damaged forms (most of the time is the programs' start-up).
# ORNIC_IDENTITY_FULL=1 takes all eight, and two for the damaged forms.
if [[ ${ORNIC_IDENTITY_FULL:-0} == 1 ]]; then
  vsrc=("$g"/{cases-eth,cases-raw-ns,cases-sll,cases-sll2-ns,pair}.pcap "$g"/{pg-ornic,pg-snap96,pg-rc}.pcap)
else
  vsrc=("$g"/{cases-eth,cases-sll2-ns,pg-snap96}.pcap)
fi
python3 "$HERE/variants.py" v "${vsrc[@]}" > /dev/null || fail "variants.py"
dsrc=("$g/cases-eth.pcap")
[[ ${ORNIC_IDENTITY_FULL:-0} == 1 ]] && dsrc+=("$g/pg-ornic.pcap")
python3 "$HERE/variants.py" v --damage "${dsrc[@]}" > /dev/null ||
  fail "variants.py --damage"
files=()
while IFS= read -r f; do files+=("$f"); done < <(
  find "$SRC/tests" -name '*.pcap*' -type f
  find "$SRC/fuzz/corpus/capture" "$SRC/tests/fuzz-regressions/capture" -type f
  find gen v -type f | sort)

# ---- the same output ------------------------------------------------------
# run OUT DECODER [ENV...] -- ARGS: stdout to OUT.out, stderr to OUT.err,
# the exit status appended to OUT.err
run() {
  local out=$1 dec=$2; shift 2
  local envs=()
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  # a subshell, not env(1): one exec fewer per run, in a test that is
  # mostly start-up
  (export "${envs[@]}" && exec "$dec" "$@") > "$out.out" 2> "$out.err"
  echo "exit $?" >> "$out.err"
}
same() { # same WHAT A B: A.out/err equal B.out/err
  compared=$((compared + 1))
  if ! cmp -s "$2.out" "$3.out" || ! cmp -s "$2.err" "$3.err"; then
    fail "$1: $(diff "$2.err" "$3.err" | head -4 | tr '\n' ' ') $(cmp "$2.out" "$3.out" 2>&1 | head -1)"
  fi
}
# The readers' output differs, if at all, in what --json -v prints (each
# record's time and lengths, every field decoded from its bytes, the
# errors): CTest's run takes that format alone from files, and text from the
# pipe below.
modes=("-v --json")
[[ ${ORNIC_IDENTITY_FULL:-0} == 1 ]] && modes=("-v" "-v --json" "--stats")
for f in "${files[@]}"; do
  for m in "${modes[@]}"; do
    # the two at once: most of the time is the programs' start-up
    # shellcheck disable=SC2086 # the mode is split into options on purpose
    run own "$DEC" ORNIC_DECODE_READER=own -- $m "$f" &
    # shellcheck disable=SC2086
    run lib "$DEC" ORNIC_DECODE_READER=libpcap -- $m "$f"
    wait
    same "$f [$m]" own lib
    if [[ -n $REF ]]; then
      # shellcheck disable=SC2086
      run ref "$REF" ORNIC_DECODE_READER=own -- $m "$f"
      same "$f [$m] against $REF" own ref
    fi
  done
  ORNIC_DECODE_READER=own "$DEC" -v - < "$f" > own.out 2> own.err
  echo "exit $?" >> own.err
  ORNIC_DECODE_READER=libpcap "$DEC" -v - < "$f" > lib.out 2> lib.err
  echo "exit $?" >> lib.err
  same "$f [-v, from a pipe]" own lib
done
# From a pipe in pieces of random sizes (reads that end anywhere): the
# generated captures and the large-block forms.
while IFS= read -r line; do
  case $line in
    "FAIL: "*) fail "${line#FAIL: }" ;;
    "compared "*) compared=$((compared + ${line#compared })) ;;
  esac
done < <(python3 "$HERE/pieces.py" "$DEC" gen/* v/*big* || echo "FAIL: pieces.py exited $?")
echo "reader identity: ${#files[@]} captures x ${#modes[@]} formats + a pipe, $compared comparisons"

# ---- where the readers differ by design -------------------------------------
python3 "$HERE/variants.py" m --mixed "$g/cases-eth.pcap" "$g/cases-raw.pcap" || fail "variants.py --mixed"
body() { "$DEC" -v --no-analysis "$@" | cut -d' ' -f2-; }
body "$g/cases-eth.pcap" > a.txt
body "$g/cases-raw.pcap" > b.txt
python3 -c '
import sys
a, b = open("a.txt").read().splitlines(), open("b.txt").read().splitlines()
for i in range(max(len(a), len(b))):
    for x in (a, b):
        if i < len(x): print(x[i])' > want.txt
ORNIC_DECODE_READER=own "$DEC" -v --no-analysis m/mixed-link.pcapng > got.out 2> got.err
rc=$?
cut -d' ' -f2- got.out > got.txt
if [[ $rc -ne 0 ]] || ! cmp -s want.txt got.txt; then
  fail "mixed link types: exit $rc, $(diff want.txt got.txt | head -3 | tr '\n' ' ')"
fi
ORNIC_DECODE_READER=libpcap "$DEC" m/mixed-link.pcapng > /dev/null 2> got.err
rc=$?
grep -q "an interface has a type 101 different from the type of the first interface" got.err && [[ $rc -eq 2 ]] ||
  fail "mixed link types, libpcap: exit $rc, $(cat got.err)"
ORNIC_DECODE_READER=own "$DEC" -v --no-analysis m/mixed-snaplen.pcapng | cut -d' ' -f2- > got.txt
rc=${PIPESTATUS[0]}
[[ $rc -eq 0 ]] && cmp -s a.txt got.txt || fail "mixed snaplens: exit $rc, $(diff a.txt got.txt | head -3 | tr '\n' ' ')"
ORNIC_DECODE_READER=libpcap "$DEC" m/mixed-snaplen.pcapng > /dev/null 2> got.err
rc=$?
grep -q "an interface has a snapshot length 0 different from" got.err && [[ $rc -eq 2 ]] ||
  fail "mixed snaplens, libpcap: exit $rc, $(cat got.err)"

echo "reader identity: $fails failed"
[[ $fails -eq 0 ]]
