#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The adversarial run behind docs/RELIABILITY.md: damaged captures through
# ornic-decode, bad command lines and scenario files through every program,
# signals and a full disk through ornic-pcapgen. Best with an ASan+UBSan
# build (any sanitizer report is a failure). Prints one line per kind: how
# many runs, how many behaved, and the first few that did not.
#   damaged    captures cut at random points, bytes flipped, gzip trailers
#              damaged: exit 0, 1 or 2 within 20 s, no sanitizer report, a
#              message naming the packet for exit 2, and (gzip trailer) every
#              packet of the undamaged file delivered
#   badargs    bad arguments: a non-zero exit, a message on stderr, no output
#              file left behind
#   scenario   bad scenario files: exit 2 naming the file and line, nothing written
#   signals    ornic-pcapgen interrupted by SIGINT, SIGTERM, SIGHUP at random
#              times: exit 128+signal, a capture ornic-decode reads whole, no
#              temporary file left
#   fulldisk   ornic-pcapgen writing to a 1 MiB tmpfs (root only): an error,
#              no partial capture or summary left
# Usage: scripts/reliability.sh [--build DIR] [--seed N] [--damaged N] [--signals N]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build/ci-asan seed=1 ndamaged=300 nsignals=30
while (($#)); do
  case $1 in
    --build) build=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --damaged) ndamaged=$2; shift 2 ;;
    --signals) nsignals=$2; shift 2 ;;
    -h | --help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "reliability: unknown argument $1" >&2; exit 2 ;;
  esac
done
bin=$(cd "$build" && pwd)/bin
for p in ornic-decode ornic-pcapgen ornic-examples ornic-bitmap-sim; do
  [[ -x $bin/$p ]] || { echo "reliability: $bin/$p not built" >&2; exit 1; }
done
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=99
tmp=$(mktemp -d /tmp/ornic-reliability.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
RANDOM=$seed
total=0 bad=0
declare -A runs=() oks=() firsts=()
note() { # note KIND OK|FAIL WHAT
  runs[$1]=$((${runs[$1]:-0} + 1))
  if [[ $2 == OK ]]; then
    oks[$1]=$((${oks[$1]:-0} + 1))
  elif [[ $(grep -o ';' <<<"${firsts[$1]:-}" | wc -l) -lt 3 ]]; then
    firsts[$1]+="$3; "
  fi
}
sanitizer() { grep -q -E 'ERROR: AddressSanitizer|runtime error:|LeakSanitizer' "$1"; }
putbyte() { # putbyte FILE OFFSET VALUE
  printf '%b' "\\x$(printf %02x "$3")" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
# The names in DIR other than those matching the regex KEEP, one line.
others() { find "$1" -mindepth 1 -maxdepth 1 -printf '%f\n' | grep -v -E "$2" | tr '\n' ' ' || true; }

# ---- damaged captures ---------------------------------------------------------
gen() { "$bin/ornic-pcapgen" -q "$@"; }
gen -o c1.pcap --wqes 2 --wqe-size 64K --pmtu 1024
gen -o c2.pcapng --profile rc --wqes 4 --wqe-size 16K --loss 0.01
gen -o c3.pcap --op read --qps 2 --wqes 2 --wqe-size 32K --snaplen 128
"$bin/ornic-examples" --pcap c4.pcap
gzip -k c1.pcap && mv c1.pcap.gz c5.pcap.gz
gzip -k c2.pcapng && mv c2.pcapng.gz c6.pcapng.gz
caps=(c1.pcap c2.pcapng c3.pcap c4.pcap c5.pcap.gz c6.pcapng.gz)
for ((i = 0; i < ndamaged; i++)); do
  src=${caps[$((RANDOM % ${#caps[@]}))]}
  size=$(stat -c %s "$src")
  cp "$src" d.cap
  case $((RANDOM % 3)) in
    0) what="$src cut at"; n=$(((RANDOM * 32768 + RANDOM) % size)); truncate -s "$n" d.cap; what+=" $n" ;;
    1)
      what="$src flipped at"
      for ((k = 0; k < 1 + RANDOM % 8; k++)); do
        off=$(((RANDOM * 32768 + RANDOM) % size))
        putbyte d.cap "$off" $((RANDOM % 256))
        what+=" $off"
      done ;;
    2) what="$src zeroed from"; off=$(((RANDOM * 32768 + RANDOM) % size))
       dd if=/dev/zero of=d.cap bs=1 seek="$off" count=$((1 + RANDOM % 64)) conv=notrunc status=none
       what+=" $off" ;;
  esac
  rc=0
  timeout 20 "$bin/ornic-decode" -v d.cap >d.out 2>d.err || rc=$?
  if sanitizer d.err || [[ $rc != 0 && $rc != 1 && $rc != 2 ]]; then
    note damaged FAIL "$what: exit $rc $(head -c 200 d.err)"
  elif [[ $rc == 2 ]] && ! grep -q -E 'packet [0-9]+' d.err; then
    note damaged FAIL "$what: exit 2 without naming a packet: $(head -c 200 d.err)"
  else
    note damaged OK
  fi
done
# every gzip trailer byte flipped, one at a time: every packet still delivered
for src in c5.pcap.gz c6.pcapng.gz; do
  want=$(gzip -dc "$src" | "$bin/ornic-decode" -v - | wc -l)
  size=$(stat -c %s "$src")
  for ((off = size - 8; off < size; off++)); do
    cp "$src" d.gz
    byte=$(od -An -tu1 -j "$off" -N1 d.gz | tr -d ' ')
    putbyte d.gz "$off" $((byte ^ 1))
    rc=0
    "$bin/ornic-decode" -v d.gz >d.out 2>d.err || rc=$?
    got=$(wc -l <d.out)
    if [[ $rc == 2 && $got == "$want" ]] && ! sanitizer d.err; then note gzip-trailer OK
    else note gzip-trailer FAIL "$src trailer byte $off: exit $rc, $got of $want lines"; fi
  done
done

# ---- bad command lines ----------------------------------------------------------
badargs=(
  "ornic-decode --bogus" "ornic-decode --otd" "ornic-decode --otd 4081" "ornic-decode --otd -1"
  "ornic-decode --pmtu 1000" "ornic-decode --qp 0x1000000" "ornic-decode -c 0" "ornic-decode --port 0"
  "ornic-decode --port 65536" "ornic-decode --otd 1e3" "ornic-decode nonexistent.pcap" "ornic-decode a b"
  "ornic-decode -s capture.pcap" "ornic-decode -w" "ornic-decode -r a -w /nonexistent/dir/w.pcap"
  "ornic-pcapgen" "ornic-pcapgen -o out.pcap --bogus" "ornic-pcapgen -o out.pcap --pmtu 1000"
  "ornic-pcapgen -o out.pcap --qps 0" "ornic-pcapgen -o out.pcap --qps 100000"
  "ornic-pcapgen -o out.pcap --wqe-size 2G" "ornic-pcapgen -o out.pcap --wqe-size 12Q"
  "ornic-pcapgen -o out.pcap --loss 2" "ornic-pcapgen -o out.pcap --loss nan" "ornic-pcapgen -o out.pcap --paths 0"
  "ornic-pcapgen -o out.pcap --profile nope" "ornic-pcapgen -o out.pcap --op write2"
  "ornic-pcapgen -o out.pcap --drop x" "ornic-pcapgen -o out.pcap --drop 1:2:3:4" "ornic-pcapgen -o out.pcap --seed -1"
  "ornic-pcapgen -o out.pcap --otd 99999999999999999999" "ornic-pcapgen -o out.pcap --format pcapx"
  "ornic-pcapgen -o out.pcap --snaplen -1" "ornic-pcapgen -o out.pcap --gz-level 10"
  "ornic-pcapgen -o out.pcap --capture nowhere" "ornic-pcapgen -o out.pcap --scenario missing.scn"
  "ornic-pcapgen -o out.pcap --summary-json /nonexistent/dir/s.json" "ornic-pcapgen -o /nonexistent/dir/out.pcap"
  "ornic-pcapgen -o out.pcap --plot /nonexistent/dir/p.svg" "ornic-pcapgen -o out.pcap --qps 4096 --wqe-size 1G"
  "ornic-pcapgen -o out.pcap --profile rc --rc-ops fly" "ornic-pcapgen -o out.pcap --capture-drop 1.5"
  "ornic-examples --bogus" "ornic-examples no-such-example" "ornic-examples --pcap"
  "ornic-examples --pcap out.pcap --pcap out2.pcap"
  "ornic-bitmap-sim --models ornic,ornic" "ornic-bitmap-sim --sweep 1,,2" "ornic-bitmap-sim --sweep 64,"
  "ornic-bitmap-sim --models nope" "ornic-bitmap-sim --qps +5" "ornic-bitmap-sim --seeds 0"
)
for a in "${badargs[@]}"; do
  rm -f out.pcap out2.pcap .out.pcap.tmp.* ./-
  read -r -a words <<<"$a"
  rc=0
  timeout 60 "$bin/${words[0]}" "${words[@]:1}" >b.out 2>b.err </dev/null || rc=$?
  left=$(find . -maxdepth 1 -regextype egrep -regex '\./(out\.pcap|out2\.pcap|\.out\.pcap\.tmp\..*|-)' -printf '%f ')
  if [[ $rc == 0 || $rc -ge 124 ]] || [[ ! -s b.err ]] || [[ -n $left ]] || sanitizer b.err; then
    note badargs FAIL "$a: exit $rc, left '$left', $(head -c 120 b.err)"
  else
    note badargs OK
  fi
done

# ---- bad scenario files ---------------------------------------------------------
scenarios=(
  "wqe" "wqe 12Q" "wqe 1G x0" "wqe 1K x99999999999999999999" "wqe 1K qp=5" "wqe 1K qp=2-1"
  "qps 2
wqe 1K qp=all
wqes 5" "wqe 1K x18446744073709551615
wqe 1K x18446744073709551615" "pmtu 1000" "help" "scenario other.scn" "qps" "qps 1 2"
  "bogus-option 1" "wqe 1K qp=" "drop 1:2:3:4" "$(printf 'wqe 1K\n%.0s' {1..3})
wqe -1" "otd 010
wqe 1K zz"
)
for sc in "${scenarios[@]}"; do
  printf '%s\n' "$sc" >bad.scn
  rm -f out.pcap .out.pcap.tmp.*
  rc=0
  timeout 60 "$bin/ornic-pcapgen" --scenario bad.scn -o out.pcap -q >b.out 2>b.err </dev/null || rc=$?
  if [[ $rc == 2 ]] && grep -q 'bad.scn:[0-9]' b.err && [[ ! -e out.pcap ]] && ! sanitizer b.err; then
    note scenario OK
  else
    note scenario FAIL "$(tr '\n' '|' <<<"$sc"): exit $rc, $(head -c 120 b.err)"
  fi
done

# ---- signals --------------------------------------------------------------------
sigs=(INT TERM HUP)
for ((i = 0; i < nsignals; i++)); do
  sig=${sigs[$((i % 3))]}
  rm -rf sigdir && mkdir sigdir
  # A run of ~107 GB, killed long before it ends: --space-check off, or it
  # would be refused for the disk it will never fill.
  # A background job of a non-interactive shell starts with SIGINT ignored,
  # which pcapgen keeps (as nohup expects): restore the default first.
  env --default-signal=INT,TERM,HUP timeout -s KILL 120 "$bin/ornic-pcapgen" -q -o sigdir/run.pcap \
    --wqes 100000 --wqe-size 1M --space-check off -s "$i" </dev/null 2>s.err &
  pid=$!
  sleep "0.$((2 + RANDOM % 8))"
  kill -"$sig" "$pid" 2>/dev/null || true
  rc=0
  wait "$pid" || rc=$?
  want=$((128 + $(kill -l "$sig")))
  left=$(others sigdir '^run\.pcap$')
  drc=0
  [[ -e sigdir/run.pcap ]] && { "$bin/ornic-decode" --stats sigdir/run.pcap >/dev/null 2>d.err || drc=$?; }
  if [[ $rc == "$want" && -z $left && $drc == 0 ]] && ! sanitizer s.err; then
    note signals OK
  else
    note signals FAIL "SIG$sig: exit $rc (want $want), left '$left', decode exit $drc"
  fi
done

# ---- full disk ------------------------------------------------------------------
if [[ $(id -u) == 0 ]] && mkdir full && mount -t tmpfs -o size=1m tmpfs full 2>/dev/null; then
  for opts in "-o full/run.pcap" "-o full/run.pcap.gz" "-o out.pcap --summary-json full/s.json" \
              "-o full/run.pcapng --format pcapng"; do
    dd if=/dev/zero of=full/filler bs=4k status=none 2>/dev/null || true # until ENOSPC
    read -r -a words <<<"$opts"
    rc=0
    timeout 60 "$bin/ornic-pcapgen" -q --wqes 4 "${words[@]}" >/dev/null 2>f.err || rc=$?
    left=$(others full '^filler$')
    if [[ $rc != 0 && -z $left && -s f.err ]] && ! sanitizer f.err; then note fulldisk OK
    else note fulldisk FAIL "$opts: exit $rc, left '$left'"; fi
    rm -f full/* out.pcap
  done
  umount full
else
  echo "fulldisk: skipped (needs root to mount a tmpfs)"
fi

for k in damaged gzip-trailer badargs scenario signals fulldisk; do
  [[ -n ${runs[$k]:-} ]] || continue
  total=$((total + runs[$k]))
  failed=$((runs[$k] - ${oks[$k]:-0}))
  bad=$((bad + failed))
  printf '%-13s %5d runs, %5d behaved%s\n' "$k" "${runs[$k]}" "${oks[$k]:-0}" \
    "${firsts[$k]:+; first failures: ${firsts[$k]}}"
done
echo "reliability: $((total - bad)) passed, $bad failed"
((bad == 0))
