#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Live capture (ornic-decode -i, issue 17), end to end. Two network namespaces
# made here, joined by a veth pair (vtx in one, vrx in the other); nothing
# touches the host's own namespace or any real network. An ornic-pcapgen trace
# is replayed into vtx with tcpreplay while ornic-decode captures on vrx:
#   A  -i vrx -f 'udp port 4791' -l, stopped by SIGTERM: the text of the file
#      decoded (timestamps aside), every iCRC ok
#   B  -i any --stats, stopped by SIGINT: SLL2, and the statistics of the file
#      (time and durations aside)
#   C  -i vrx --json -c N: stops by itself after N packets
# and the errors: a missing interface, a user without CAP_NET_RAW.
# Needs root (ip netns); exits 77 (skipped) when it cannot make a namespace.
# Usage: test_live.sh DECODER PCAPGEN WORKDIR
set -euo pipefail
DEC=${1:?usage: test_live.sh DECODER PCAPGEN WORKDIR}
GEN=${2:?usage: test_live.sh DECODER PCAPGEN WORKDIR}
WORK=${3:?usage: test_live.sh DECODER PCAPGEN WORKDIR}
DEC=$(readlink -f "$DEC") # the test changes into WORK
GEN=$(readlink -f "$GEN")
NS_TX=ornic-live-$$-tx
NS_RX=ornic-live-$$-rx
WAIT_S=10 # bound on every wait; the whole test takes about a second
pids=()
fails=0

cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  # Whatever else still runs in the namespaces was started here.
  for ns in "$NS_TX" "$NS_RX"; do
    for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null || true; done
  done
  ip netns del "$NS_TX" 2>/dev/null || true
  ip netns del "$NS_RX" 2>/dev/null || true
  [[ -n ${NOBODY_DIR:-} ]] && rm -rf "$NOBODY_DIR"
  return 0
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ok() { echo "ok   $1"; }
fail() {
  echo "FAIL $1" >&2
  fails=$((fails + 1))
}
check() { # NAME COMMAND...: passes when COMMAND succeeds
  local name=$1
  shift
  if "$@"; then ok "$name"; else fail "$name"; fi
}

for tool in ip tcpreplay runuser timeout; do
  command -v "$tool" >/dev/null || {
    echo "test_live: $tool not found (apt-get install iproute2 tcpreplay util-linux coreutils)" >&2
    exit 1
  }
done
if ! ip netns add "$NS_TX" 2>/dev/null || ! ip netns add "$NS_RX" 2>/dev/null; then
  echo "test_live: SKIPPED: cannot create a network namespace (needs root: CAP_SYS_ADMIN," \
    "CAP_NET_ADMIN)" >&2
  exit 77
fi

# IPv6 off: no router solicitations or MLD reports beside the trace.
for ns in "$NS_TX" "$NS_RX"; do
  ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
    net.ipv6.conf.default.disable_ipv6=1
done
# MTU 9000: the trace's 4 KiB-payload frames exceed the default 1500.
ip -n "$NS_TX" link add vtx mtu 9000 type veth peer name vrx netns "$NS_RX" mtu 9000
ip -n "$NS_TX" link set vtx up
ip -n "$NS_RX" link set vrx up

rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK"
"$GEN" -o x.pcap --wqes 2 --wqe-size 64K -q
"$DEC" x.pcap >file.txt
"$DEC" --stats x.pcap >file.stats
N=$(wc -l <file.txt)
echo "trace: $N RoCE packets"

# Waits (bounded) until the command succeeds.
wait_for() {
  local deadline=$((SECONDS + WAIT_S))
  until "$@"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.02
  done
}
listening() { grep -q "listening on" "$1"; }
has_lines() { [[ $(wc -l <"$1") -ge $2 ]]; }
gone() { ! kill -0 "$1" 2>/dev/null; }

# Waits (bounded) for capture $1 to exit and sets status to its exit status
# (124: it did not exit, and was killed). bash reaps its children as they exit
# and keeps their status for wait, so kill -0 tells when one is gone.
reap() {
  status=0
  if ! wait_for gone "$1"; then
    kill -KILL "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
    status=124
    return
  fi
  wait "$1" || status=$?
}

# Started without a shell function between: ip netns exec execs the program,
# so $! is the capture itself and the signals reach it.
ip netns exec "$NS_RX" "$DEC" -i vrx -f 'udp port 4791' -l >a.txt 2>a.err &
pa=$!
ip netns exec "$NS_RX" "$DEC" -i any --stats >b.txt 2>b.err &
pb=$!
ip netns exec "$NS_RX" "$DEC" -i vrx --json -c "$N" >c.json 2>c.err &
pc=$!
pids=("$pa" "$pb" "$pc")
for f in a.err b.err c.err; do
  wait_for listening "$f" || {
    cat ./*.err >&2
    fail "capture $f ready"
    exit 1
  }
done
timeout "$WAIT_S" ip netns exec "$NS_TX" tcpreplay -q -i vtx x.pcap >replay.log 2>&1 ||
  { cat replay.log >&2; fail "tcpreplay"; }
# Every socket on vrx gets each packet in the same pass of the kernel, so when
# A has printed all of them, B's buffer holds them all too.
check "A: $N lines while capturing (-l flushes each)" wait_for has_lines a.txt "$N"
kill -TERM "$pa"
kill -INT "$pb"
reap "$pa"
ra=$status
reap "$pb"
rb=$status
reap "$pc"
rc=$status

no_time() { cut -d' ' -f1,3- "$1"; }
check "A: exit 0 after SIGTERM (got $ra)" test "$ra" = 0
check "A: text equals the file's, timestamps aside" diff <(no_time file.txt) <(no_time a.txt)
check "A: every iCRC ok" test "$(grep -c ' icrc=ok ' a.txt)" = "$N"
check "A: libpcap counts on stderr" grep -q "^ornic-decode: vrx: $N packets captured, .* 0 dropped by kernel" a.err

# The statistics without what depends on when packets arrived.
# The traffic and latency sections are times too (Gb/s, messages/s, round trips): left out.
timeless() {
  grep -v -e '^capture ' -e '^time ' "$1" | sed -E 's/ [0-9]+\.[0-9]{9} / T /' |
    awk '/^(traffic|latency) /{skip=1} /^capture quality/{skip=0} !skip'
}
check "B: exit 0 after SIGINT (got $rb)" test "$rb" = 0
check "B: -i any is LINUX_SLL2" grep -q "listening on any, link-type LINUX_SLL2" b.err
check "B: --stats printed on SIGINT" grep -q "^packets   $N total: $N RoCE" b.txt
check "B: --stats carries libpcap's counts" grep -qE "^capture   any \(live: [0-9]+ received by filter, 0 dropped by kernel, 0 by interface\)" b.txt
check "B: iCRC all ok" grep -q "^icrc      ok=$N bad=0 n/a=0 unchecked=0" b.txt
check "B: statistics equal the file's" diff <(timeless file.stats) <(timeless b.txt)

check "C: -c $N exits 0 by itself (got $rc)" test "$rc" = 0
check "C: $N JSON lines, every iCRC ok" test "$(grep -c '"icrc":{"value":"0x[0-9a-f]*","ok":true}' c.json)" = "$N"

rx() { ip netns exec "$NS_RX" "$@"; }

# A missing interface: exit 1 and the message.
rc=0
rx timeout "$WAIT_S" "$DEC" -i eth9 >/dev/null 2>missing.err || rc=$?
check "missing interface: exit 1 (got $rc)" test "$rc" = 1
check "missing interface: message" grep -q "^ornic-decode: no such interface: eth9" missing.err

# Without CAP_NET_RAW. A copy of the program where nobody can run it (the
# build tree may sit below a directory only root can enter).
NOBODY_DIR=$(mktemp -d)
chmod 755 "$NOBODY_DIR"
cp "$DEC" "$NOBODY_DIR/ornic-decode"
chmod 755 "$NOBODY_DIR/ornic-decode"
rc=0
rx timeout "$WAIT_S" runuser -u nobody -- "$NOBODY_DIR/ornic-decode" -i vrx >/dev/null \
  2>perm.err || rc=$?
check "unprivileged: exit 1 (got $rc)" test "$rc" = 1
check "unprivileged: names CAP_NET_RAW" grep -q "^ornic-decode: vrx: permission denied .*CAP_NET_RAW" perm.err

if ((fails)); then
  for f in a.err b.err c.err missing.err perm.err; do
    echo "--- $f" >&2
    cat "$f" >&2
  done
  echo "test_live: $fails failed" >&2
  exit 1
fi
echo "test_live: all passed"
