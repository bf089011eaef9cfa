#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# End-to-end tests of ornic-decode.
#   run_tests.sh DECODER GENERATOR [WORKDIR]
# DECODER is the ornic-decode binary, GENERATOR is ornic-decode-testgen (built
# from gen_test_capture.c). Needs python3 (JSON checks), gzip; uses tshark and
# editcap when present (the checks that need them are reported as skipped).
set -u
DEC=${1:?usage: run_tests.sh DECODER GENERATOR [WORKDIR]}
GEN=${2:?usage: run_tests.sh DECODER GENERATOR [WORKDIR]}
WORK=${3:-$(mktemp -d)}
PY=${PYTHON:-python3}
DEC=$(realpath "$DEC") GEN=$(realpath "$GEN")
mkdir -p "$WORK" && cd "$WORK" || exit 1
fails=0 passes=0

ok() { passes=$((passes + 1)); }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
check() { # check NAME COMMAND...: passes when the command succeeds
  local name=$1; shift
  if "$@"; then ok; else fail "$name"; fi
}
# the text line of frame N; DEC_ARGS (word-split) adds options
line() { "$DEC" -v ${DEC_ARGS:-} "$1" | awk -v n="$2" '$1 == n'; }
has() { # has FILE FRAME TEXT: frame FRAME's text line contains TEXT
  local l; l=$(line "$1" "$2")
  if [[ $l == *"$3"* ]]; then ok; else fail "frame $2: expected '$3' in: $l"; fi
}

"$GEN" cases cases.pcap 2>/dev/null || { echo "generator failed"; exit 1; }
"$GEN" cases --ns cases_ns.pcap 2>/dev/null
for l in raw sll sll2; do "$GEN" cases --link "$l" "c_$l.pcap" 2>/dev/null; done

# ---- text format: one check per edge case of gen_test_capture.c ----
has cases.pcap 2 "RC_RDMA_WRITE_FIRST qp=0x000011 psn=2 [A] va=0x123456789abcdef0 rkey=0xdeadbeef dmalen=4096 len=1024 icrc=ok"
has cases.pcap 4 "imm=0xcafebabe len=3 icrc=ok"
has cases.pcap 5 "fd00::1 > fd00::2 RC_RDMA_READ_REQUEST"
has cases.pcap 7 "vlan=100 RC_ACKNOWLEDGE"
has cases.pcap 8 "aeth=0x60(NAK PSN sequence error) msn=3"
has cases.pcap 9 "ORNIC_OOO_WRITE_FSPOT qp=0x000021 psn=1000 va=0xffffffffffff0000 rkey=0x00000077 dmalen=1048576 offset=4096"
has cases.pcap 12 "oack=0x02(wqe_done) count=16"
# Reason 1, trigger 1010, Base 1000, 1005-1007 clear, Limit 1007: the lost set
# is Base and the clear bits before the Limit the NAK carries (PROTOCOL.md 3.5,
# 4.4), the same whatever --otd says (before spec 0.2 it was the trigger minus
# --otd: Base alone with the default 64, 1005-1007 too with 0).
for otd in 0 3 64 4080; do
  DEC_ARGS="--otd $otd" has cases.pcap 13 "trigger=1010 base=1000 limit=1007 nblocks=2 missing=1000,1005-1006 nmissing=3"
done
has cases.pcap 13 "trigger=1010 base=1000 limit=1007 nblocks=2 missing=1000,1005-1006 nmissing=3"
# Without the analysis (the only user of --otd) the output does not depend on it at all.
check "--otd changes nothing but the analysis" cmp -s \
  <("$DEC" -v --json --no-analysis --otd 0 cases.pcap) <("$DEC" -v --json --no-analysis --otd 4080 cases.pcap)
has cases.pcap 14 "qkey=0x80010000 srcqp=0x000abc"
has cases.pcap 15 "swap_add=0x1111222233334444 compare=0x9999"
has cases.pcap 16 "orig=0xffffffffffffffff"
has cases.pcap 17 "CNP qp=0x000016 psn=0 [BECN]"
has cases.pcap 18 "icrc=BAD(got 0x7104e4a7 want 0xba583702)"
has cases.pcap 19 "skipped: not RoCE"
has cases.pcap 20 "skipped: not RoCE"
has cases.pcap 21 "fd00::1 > fd00::2 RoCEv1 RC_SEND_ONLY"
has cases.pcap 22 "len=1024 captured=10 snap=80/1098 icrc=n/a"
has cases.pcap 23 "skipped: cut by snaplen before the BTH"
has cases.pcap 24 "error: truncated: the frame has 982 bytes but its IP/UDP lengths end at byte 1082"
has cases.pcap 25 "UNKNOWN_0x1e qp=0x000019 psn=1 icrc=ok error: unknown BTH opcode 0x1e"
has cases.pcap 26 "xrcsrq=0x0000aa"
has cases.pcap 34 "skipped: IPv4 fragment"
has cases.pcap 36 "missing=1000 nmissing=1"
has cases.pcap 37 "missing=16777208-16777211,0-1 nmissing=6"
has cases.pcap 38 "warn=pad_not_aligned"
has cases.pcap 39 "warn=pad_not_zero"
has cases.pcap 40 "warn=nak_psn_not_base"
has cases.pcap 41 "warn=ack_flags_both_set"
has cases.pcap 42 "(D7)"
has cases.pcap 43 "error: malformed: RC Acknowledge carries no payload but 4 bytes follow its headers (D5)"
has cases.pcap 44 "error: malformed: PadCnt 3 exceeds the 0 bytes after the headers (D5)"
has cases.pcap 45 "error: malformed: NAKETH nblocks is 0 (D6)"
# a malformed layout under a good iCRC (the generator recomputes it): both shown
has cases.pcap 44 "msn=1 icrc=ok conv=15 error: malformed: PadCnt 3"
has cases.pcap 1 "1700000001.000001000 10.0.0.1 > 10.0.0.2"
has cases_ns.pcap 1 "1700000001.000001001 10.0.0.1 > 10.0.0.2"
check "skipped lines only with -v" test -z "$("$DEC" cases.pcap | grep skipped)"
check "--port 4792 decodes frame 35" grep -q '^35 .*RC_SEND_ONLY' <("$DEC" --port 4792 cases.pcap)
check "--qp 0x33 keeps 5 frames" test "$("$DEC" --qp 0x33 cases.pcap | wc -l)" -eq 5
check "-c 3 stops after 3" test "$("$DEC" -c 3 cases.pcap | wc -l)" -eq 3
check "--no-icrc" grep -q '^18 .*icrc=unchecked' <("$DEC" --no-icrc cases.pcap)

# ---- JSON ----
"$DEC" --json -v cases.pcap > cases.json
check "JSON lines" "$PY" - cases.json <<'PYEOF'
import json, sys
rows = {}
for l in open(sys.argv[1]):
    o = json.loads(l)
    rows[o["frame"]] = o
def eq(a, b, what):
    if a != b: sys.exit(f"{what}: {a!r} != {b!r}")
r = rows[2]
eq(r["reth"], {"va": "0x123456789abcdef0", "r_key": 0xdeadbeef, "dmalen": 4096}, "reth")
eq(r["bth"]["a"], 1, "AckReq")
eq(r["time"], "1700000002.000002000", "time")
eq(r["icrc"]["ok"], True, "icrc ok")
eq(r["error"], None, "error")
eq(rows[13]["naketh"]["missing_psns"], [1000, 1005, 1006], "lost set, Limit 1007")
eq(rows[13]["naketh"]["limit_psn"], 1007, "limit_psn")
eq(rows[13]["naketh"]["blocks"], [0xff1f, 0x00ff], "blocks")
eq(rows[12]["oacketh"], {"flags": 2, "addr_cached": False, "wqe_done": True, "count": 16}, "oacketh")
eq(rows[15]["atomiceth"]["swap_add"], "0x1111222233334444", "atomic 64-bit as hex")
eq(rows[18]["icrc"], {"value": "0x7104e4a7", "ok": False, "expected": "0xba583702"}, "bad icrc")
eq(rows[19], {"frame": 19, "time": "1700000019.000019000", "skipped": "not RoCE"}, "skipped")
eq(rows[21]["l3"], "grh", "RoCEv1")
eq("udp_sport" in rows[21], False, "no UDP in RoCEv1")
eq(rows[22]["icrc"], {"value": None, "ok": None}, "snaplen icrc")
eq(rows[22]["payload_caplen"], 10, "payload_caplen")
eq(rows[22]["error"], None, "snaplen is no error")
eq(rows[24]["error"] is not None, True, "truncated whole frame is an error")
eq(rows[7]["vlan"], 100, "vlan")
eq(rows[14]["deth"], {"q_key": 0x80010000, "srcqp": 0xabc}, "deth")
eq(rows[4]["immdt"], 0xcafebabe, "immdt")
eq(rows[38]["warnings"], ["pad_not_aligned"], "warnings")
eq("payload_len" in rows[43], False, "no payload after malformed")
PYEOF

# ---- tshark differential: BTH, RETH, AETH, DETH, ImmDt and iCRC bytes ----
if command -v tshark > /dev/null; then
  tshark -r cases.pcap -T fields -E separator='|' -e frame.number -e infiniband.bth.opcode \
    -e infiniband.bth.psn -e infiniband.bth.destqp -e infiniband.reth.va -e infiniband.reth.r_key \
    -e infiniband.reth.dmalen -e infiniband.aeth.syndrome -e infiniband.aeth.msn \
    -e infiniband.invariant.crc -e infiniband.deth.q_key -e infiniband.deth.srcqp \
    2> /dev/null > tshark.txt
  check "tshark agrees" "$PY" - cases.json tshark.txt <<'PYEOF'
import json, sys
ours = {}
for l in open(sys.argv[1]):
    o = json.loads(l)
    if "bth" in o: ours[o["frame"]] = o
compared = 0
for l in open(sys.argv[2]):
    f = l.rstrip("\n").split("|")
    n = int(f[0])
    if not f[1] or n not in ours: continue
    o, b = ours[n], ours[n]["bth"]
    def eq(a, x, what):
        if a != x: sys.exit(f"frame {n} {what}: tshark {x!r}, ornic-decode {a!r}")
    eq(b["opcode"], int(f[1]), "opcode"); eq(b["psn"], int(f[2]), "psn"); eq(b["destqp"], int(f[3], 16), "destqp")
    if f[4] and "reth" in o:
        eq(int(o["reth"]["va"], 16), int(f[4], 16), "va"); eq(o["reth"]["r_key"], int(f[5], 16), "r_key")
        eq(o["reth"]["dmalen"], int(f[6]), "dmalen")
    if f[7] and "aeth" in o:
        eq(o["aeth"]["syndrome"], int(f[7]), "syndrome"); eq(o["aeth"]["msn"], int(f[8]), "msn")
    if f[9] and o["icrc"]["value"]:  # tshark reads the wire bytes big-endian
        eq(int.from_bytes(int(o["icrc"]["value"], 16).to_bytes(4, "little"), "big"), int(f[9], 16), "icrc")
    if f[10] and "deth" in o:
        eq(o["deth"]["q_key"], int(f[10], 16), "q_key"); eq(o["deth"]["srcqp"], int(f[11], 16), "srcqp")
    compared += 1
if compared < 25: sys.exit(f"only {compared} frames compared")
PYEOF
else
  echo "SKIP: tshark not installed"
fi

# ---- link types: raw IP, SLL, SLL2 decode the same transport fields ----
fields() { "$DEC" -v "$1" | awk '{printf "%s", $1; for (i = 2; i <= NF; i++) if ($i ~ /^(qp|psn|icrc|missing)=/) printf " %s", $i; print ""}'; }
fields cases.pcap > f_eth.txt
for l in raw sll sll2; do
  fields "c_$l.pcap" > "f_$l.txt"
  # raw IP cannot carry RoCEv1 (frame 21), and its frame 24 is 4 bytes shorter
  skip='^21( |$)'
  check "link $l matches Ethernet" diff <(grep -Ev "$skip" f_eth.txt) <(grep -Ev "$skip" "f_$l.txt")
done
check "SLL carries RoCEv1" grep -q '^21 .*RoCEv1 RC_SEND_ONLY' <("$DEC" c_sll.pcap)
check "SLL2 carries RoCEv1" grep -q '^21 .*RoCEv1 RC_SEND_ONLY' <("$DEC" c_sll2.pcap)

# ---- input: gzip, stdin, pcapng ----
"$DEC" cases.pcap > ref.txt
gzip -c cases.pcap > cases.pcap.gz
check "gzip file" cmp -s ref.txt <("$DEC" cases.pcap.gz)
check "gzip on stdin" cmp -s ref.txt <(cat cases.pcap.gz | "$DEC")
check "stdin '-'" cmp -s ref.txt <("$DEC" - < cases.pcap)
check "stdin pipe" cmp -s ref.txt <(cat cases.pcap | "$DEC")
head -c 3000 cases.pcap | gzip > multi.gz
tail -c +3001 cases.pcap | gzip >> multi.gz
check "concatenated gzip members" cmp -s ref.txt <("$DEC" multi.gz)
# Kuznetzov's modified pcap: 24-byte record headers (offsets must follow)
"$PY" -c 'import struct,sys
d=open(sys.argv[1],"rb").read(); o=24
out=bytearray(struct.pack("<IHHiIII",0xa1b2cd34,2,4,0,0,262144,1)); offs=[]
while o < len(d):
    h=d[o:o+16]; cl=struct.unpack("<I",h[8:12])[0]; offs.append(len(out))
    out+=h+bytes(8)+d[o+16:o+16+cl]; o+=16+cl
open("kuz.pcap","wb").write(out); open("kuz_cut.pcap","wb").write(out[:offs[9]+50])
open("kuz_off.txt","w").write(str(offs[9]))' cases.pcap
check "modified (Kuznetzov) pcap" cmp -s ref.txt <("$DEC" kuz.pcap)
if command -v editcap > /dev/null; then
  editcap -F pcapng cases.pcap cases.pcapng
  check "pcapng" cmp -s ref.txt <("$DEC" cases.pcapng)
else
  echo "SKIP: editcap not installed"
fi

# ---- damaged captures: exit 2, packet number and byte offset on stderr ----
rec_off() { # offset of record N (1-based) of a classic pcap
  "$PY" -c 'import struct,sys
d=open(sys.argv[1],"rb").read(); o=24
for _ in range(int(sys.argv[2])-1): o+=16+struct.unpack("<I",d[o+8:o+12])[0]
print(o)' "$1" "$2"
}
damaged() { # damaged NAME FILE PACKET OFFSET [DECODER ARGS...]
  local name=$1 file=$2 pkt=$3 off=$4; shift 4
  "$DEC" "$@" "$file" > dmg.out 2> dmg.err
  local rc=$?
  [[ $rc -eq 2 ]] || { fail "$name: exit $rc, want 2"; return; }
  grep -q "damaged capture at packet $pkt (.*byte offset $off" dmg.err || { fail "$name: $(cat dmg.err)"; return; }
  ok
}
off10=$(rec_off cases.pcap 10)
head -c $((off10 + 100)) cases.pcap > cut.pcap
damaged "cut mid-record" cut.pcap 10 "$off10"
check "good packets before the damage are printed" test "$("$DEC" cut.pcap 2> /dev/null | tail -1 | cut -d' ' -f1)" = 9
head -c $((off10 + 7)) cases.pcap > cut_hdr.pcap
damaged "cut mid-record-header" cut_hdr.pcap 10 "$off10"
cat cut.pcap | "$DEC" > /dev/null 2> dmg.err
check "cut file on stdin" grep -q "packet 10 (the record at byte offset $off10" dmg.err
gzip -c cut.pcap > cut.pcap.gz
damaged "cut file, gzipped" cut.pcap.gz 10 "$off10"
"$PY" -c 'import struct,sys
d=bytearray(open(sys.argv[1],"rb").read()); o=int(sys.argv[2])
d[o+8:o+12]=struct.pack("<I",0xfffffff0); open("badlen.pcap","wb").write(d)' cases.pcap "$(rec_off cases.pcap 5)"
damaged "modified pcap cut mid-record" kuz_cut.pcap 10 "$(cat kuz_off.txt)"
damaged "bad record length" badlen.pcap 5 "$(rec_off cases.pcap 5)"
damaged "damage with --stats" cut.pcap 10 "$off10" --stats
check "--stats marks the damage" grep -q '"damaged":true' <("$DEC" --stats --json cut.pcap 2> /dev/null)
head -c 700 cases.pcap.gz > cut.gz
"$DEC" cut.gz > /dev/null 2> dmg.err
check "truncated .gz: exit 2" test $? -eq 2
check "truncated .gz: message" grep -q "truncated .gz" dmg.err
if [[ -f cases.pcapng ]]; then
  "$PY" -c 'import struct,sys
d=open(sys.argv[1],"rb").read(); o=0; n=0
while True:
    t,l=struct.unpack("<II",d[o:o+8])
    if t==6:
        n+=1
        if n==10: break
    o+=l
print(o)' cases.pcapng > ng_off.txt
  head -c $(($(cat ng_off.txt) + 50)) cases.pcapng > cut.pcapng
  damaged "pcapng cut mid-block" cut.pcapng 10 "$(cat ng_off.txt)"
fi

# ---- statistics ----
"$DEC" --stats --json cases.pcap > stats.json
check "stats JSON" "$PY" - stats.json <<'PYEOF'
import json, sys
s = json.load(open(sys.argv[1]))
def eq(a, b, what):
    if a != b: sys.exit(f"{what}: {a!r} != {b!r}")
eq(s["packets"]["total"], 45, "total")
eq(s["packets"]["skipped"], 5, "skipped")
eq(s["skipped"]["ipv4_fragment"], 1, "fragments")
eq(s["icrc"]["bad"], 1, "bad icrc")
eq(s["analysis"]["untracked_packets"], 0, "untracked")
def conv(qp):  # the one conversation QP qp is an end of
    c = [c for c in s["conversations"] if qp in (c["qp_a"], c["qp_b"])]
    eq(len(c), 1, f"conversations of QP {qp:#x}")
    return c[0]
c = conv(0x33)
eq((c["a"], c["b"], c["qp_b"]), ("10.0.0.1", "10.0.0.2", 0x33), "QP 0x33 ends")
d = c["directions"]["a_to_b"]
eq((d["requests"], d["request_bytes"], d["psn_first"], d["psn_high"], d["ooo"], d["ooo_max_distance"],
    d["ooo_histogram"]["1"], d["duplicates"], d["retransmissions"]),
   (5, 320, 10, 13, 1, 1, 1, 0, 1), "QP 0x33 A->B")  # RC is in order: a repeat is a go-back (timeout)
eq(c["directions"]["b_to_a"]["requests"], 0, "QP 0x33 B->A")
d = conv(0x22)["directions"]["a_to_b"]
eq((d["psn_first"], d["psn_high"], d["ooo"]), (0xffffff, 0, 0), "PSN wrap")
eq(sorted(s["conversations"], key=lambda c: c["id"]), s["conversations"], "sorted by id")
eq(len({c["id"] for c in s["conversations"]}), len(s["conversations"]), "ids unique")
PYEOF
check "stats text" grep -q '^packets   45 total' <("$DEC" --stats cases.pcap)
has cases.pcap 32 "psn=12 len=64 icrc=ok conv="
has cases.pcap 32 " [OOO 1]"
has cases.pcap 33 " [Retransmission]"

# ---- conversation analysis (libornicproto's engine) ----
"$GEN" pair pair.pcap && "$GEN" unseen unseen.pcap || fail "generator pair/unseen"
for c in pair unseen; do
  "$DEC" --json "$c.pcap" > "$c.json"
  "$DEC" --stats --json "$c.pcap" > "${c}_stats.json"
  "$DEC" --stats "$c.pcap" > "${c}_stats.txt"
done
check "analysis JSON: clean QP pair" "$PY" - pair.json pair_stats.json <<'PYEOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
s = json.load(open(sys.argv[2]))
def eq(a, b, what):
    if a != b: sys.exit(f"{what}: {a!r} != {b!r}")
PROBLEMS = {"retransmission", "duplicate", "loss", "nak", "ack_stale", "not_captured", "ooo", "probe",
            "otd_exceeded", "untracked", "before_capture"}
eq(len(rows), 11, "packets")
for r in rows:
    a = r["analysis"]
    eq(sorted(set(a["flags"]) & PROBLEMS), [], f"frame {r['frame']} flags {a['flags']}")
    eq(a["role"], "response" if "aeth" in r else "request", f"frame {r['frame']} role")
# A's SENDs and B's ACKs of them are one PSN space, B's SENDs and A's ACKs the other
dirs = {r["frame"]: r["analysis"]["dir"] for r in rows}
eq({dirs[f] for f in (1, 2, 3, 4, 8, 11)}, {"a_to_b"}, "A->B space")
eq({dirs[f] for f in (5, 6, 7, 9, 10)}, {"b_to_a"}, "B->A space")
eq(rows[3]["analysis"]["ack"]["newly"], 3, "ACK 102 acknowledges 100-102")
eq(rows[10]["analysis"]["ack"], {"prev": 102, "newly": 1, "frame_of": 8}, "ACK 103")
eq(len(s["conversations"]), 1, "one conversation")
c = s["conversations"][0]
eq((c["a"], c["qp_a"], c["b"], c["qp_b"]), ("10.0.0.1", 0x100, "10.0.0.2", 0x200), "the QP pair")
for k, (req, resp, wqes) in {"a_to_b": (4, 2, 4), "b_to_a": (3, 2, 3)}.items():
    d = c["directions"][k]
    eq((d["requests"], d["request_bytes"], d["responses"], d["wqes"], d["acks"]),
       (req, 64 * req, resp, wqes, resp), k)
    eq((d["ooo"], d["retransmissions"], d["duplicates"], d["losses"], d["not_captured"], d["naks"],
        d["acks_stale"]), (0,) * 7, k + " problems")
PYEOF
check "analysis JSON: ACK of PSNs not captured" "$PY" - unseen.json unseen_stats.json <<'PYEOF'
import json, sys
rows = {o["frame"]: o for o in map(json.loads, open(sys.argv[1]))}
s = json.load(open(sys.argv[2]))
def eq(a, b, what):
    if a != b: sys.exit(f"{what}: {a!r} != {b!r}")
a = rows[5]["analysis"]
eq("not_captured" in a["flags"], True, f"frame 5 flags {a['flags']}")
eq(a["not_captured"], {"first": 12, "count": 2}, "not_captured")
eq([f for f in a["flags"] if f in ("loss", "retransmission", "duplicate")], [], "no network problem")
for f in (1, 2, 3, 4):
    eq("not_captured" in rows[f]["analysis"]["flags"], False, f"frame {f}")
d = s["conversations"][0]["directions"]["a_to_b"]
eq((d["requests"], d["responses"], d["not_captured"], d["losses"]), (3, 2, 2, 0), "A->B counts")
PYEOF
has unseen.pcap 5 "RC_ACKNOWLEDGE qp=0x000100 psn=14 aeth=0x1f(ACK) msn=5 len=0 icrc=ok conv=1 [ACKed unseen: 2 PSNs from 12]"
tags=' \[(Retransmission|Duplicate|Loss|NAK|Stale ACK|ACKed unseen|OOO|Probe|READ retry|OTD exceeded|Untracked)'
check "clean QP pair: no tags" test -z "$("$DEC" pair.pcap | grep -E "$tags")"
check "clean QP pair: conv=1 on every line" test "$("$DEC" pair.pcap | grep -c ' conv=1\( \|$\)')" -eq 11
check "stats table: A->B row" grep -qE '^  1 +A->B +4 +256 +2 ' pair_stats.txt
check "stats table: B->A row" grep -qE '^  1 +B->A +3 +192 +2 ' pair_stats.txt
check "stats table: the pair" grep -q '^  1: A 10.0.0.1 QP 0x000100 <-> B 10.0.0.2 QP 0x000200' pair_stats.txt
check "stats table: not captured" test "$(awk '/^traffic / {exit} $2 == "A->B" {print $13}' unseen_stats.txt)" = 2
# --qp prints one QP's packets, but the engine still sees both directions
check "--qp: analysed with the other direction" \
  test "$("$DEC" --qp 0x100 pair.pcap | grep -c ' conv=1')" -eq 5
check "--qp --stats: the QP's conversation" grep -q '"qp_a":256,"qp_b":512' <("$DEC" --qp 0x100 --stats --json pair.pcap)
check "--qp --stats: other QPs' conversations left out" \
  grep -q '"conversations":\[\]' <("$DEC" --qp 0x999 --stats --json pair.pcap)
check "--no-analysis: no tokens" test -z "$("$DEC" --no-analysis pair.pcap | grep conv=)"
check "--no-analysis: no JSON analysis" test -z "$("$DEC" --no-analysis --json pair.pcap | grep analysis)"
check "--no-analysis: no conversations" grep -q '"analysis":null,"conversations":null' \
  <("$DEC" --no-analysis --stats --json pair.pcap)
check "--pmtu 1024 accepted" "$DEC" --pmtu 1024 pair.pcap > /dev/null
"$DEC" --pmtu 1000 pair.pcap > /dev/null 2>&1; check "--pmtu 1000 refused" test $? -eq 2

# ---- malformed frames shown as far as their bytes go (PROTOCOL.md D3) ----
# 1: IP total length 108, UDP length 28 (a packet generator's frame), good iCRC;
# 2: opcode 0xC0 with 16 bytes after the BTH (RETH + OFFETH need 20), good iCRC;
# 3: frame 2 with one byte flipped: bad iCRC; 4: UDP length 8 more than IP says.
"$PY" - lenient.pcap <<'PYEOF'
import struct, sys, zlib
def ip4(tlen):
    h = bytearray(struct.pack(">BBHHHBBH4s4s", 0x45, 0, tlen, 1, 0x4000, 64, 17, 0,
                              bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])))
    s = sum(struct.unpack(">10H", h)); s = (s & 0xffff) + (s >> 16); s = (s & 0xffff) + (s >> 16)
    h[10:12] = struct.pack(">H", ~s & 0xffff)
    return bytes(h)
def frame(tlen, ulen, bth_body, icrc_len=None):
    """Ethernet + IPv4 (total length tlen) + UDP (length ulen) + bth_body; the
    iCRC, over the first icrc_len bytes from the IP header, ends them."""
    f = bytearray(bytes(6) + bytes(5) + b"\x01" + b"\x08\x00" + ip4(tlen) +
                  struct.pack(">HHHH", 0xc000, 4791, ulen, 0) + bth_body)
    if icrc_len:
        m = bytearray(f[14:14 + icrc_len - 4])
        m[1] = m[8] = m[10] = m[11] = m[26] = m[27] = m[32] = 0xff   # PROTOCOL.md 2.6 masks
        crc = zlib.crc32(bytes(m), zlib.crc32(b"\xff" * 8))
        f[14 + icrc_len - 4:14 + icrc_len] = crc.to_bytes(4, "little")
    return bytes(f)
send = bytes.fromhex("0400ffff0000123400000007") + bytes.fromhex("deadbeef") + bytes(4)
c0 = bytes.fromhex("c000ffff0000010000000001") + bytes.fromhex("00000000cafe0000 00000042 00000000") + bytes(4)
frames = [frame(108, 28, send + b"\xaa" * 60, 48), frame(60, 40, c0, 60)]
bad = bytearray(frames[1]); bad[14 + 20 + 8 + 12 + 9] ^= 0x80; frames.append(bytes(bad))
frames.append(frame(60, 48, bytes.fromhex("0a00ffff0000001180123456") +
                    bytes.fromhex("0000000000001000 0000abcd 00000008") + bytes(12)))
with open(sys.argv[1], "wb") as out:
    out.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i, f in enumerate(frames, 1):
        out.write(struct.pack("<IIII", 1700000000 + i, 0, len(f), len(f)) + f)
PYEOF
has lenient.pcap 1 "RC_SEND_ONLY qp=0x001234 psn=7 len=4 icrc=ok conv=1 wqe=1 error: malformed: UDP length 28 is shorter than the 88-byte IP payload: 60 bytes after the UDP datagram (D3)"
has lenient.pcap 2 "ORNIC_OOO_WRITE_FSPOT qp=0x000100 psn=1 va=0x00000000cafe0000 rkey=0x00000042 dmalen=0 icrc=ok conv=2 wqe=1 addr=0x00000000cafe0000 error: malformed: the 16 bytes between BTH and iCRC cannot hold the extension headers of ORNIC OOO WRITE FSpot (D5)"
has lenient.pcap 3 "rkey=0x00800042 dmalen=0 icrc=BAD("
has lenient.pcap 3 "cannot hold the extension headers of ORNIC OOO WRITE FSpot (D5)"
has lenient.pcap 4 "RC_RDMA_WRITE_ONLY qp=0x000011 psn=1193046 [A] va=0x0000000000001000 rkey=0x0000abcd dmalen=8 icrc=n/a conv=3 wqe=1 addr=0x0000000000001000 error: malformed: UDP length 48 exceeds the 40-byte IP payload: iCRC not located (D3)"
"$DEC" --json lenient.pcap > lenient.json
check "JSON of malformed frames" "$PY" - lenient.json <<'PYEOF'
import json, sys
rows = {o["frame"]: o for o in map(json.loads, open(sys.argv[1]))}
def eq(a, b, what):
    if a != b: sys.exit(f"{what}: {a!r} != {b!r}")
eq((rows[1]["bth"]["psn"], rows[1]["payload_len"], rows[1]["icrc"]["ok"]), (7, 4, True), "IP 108 / UDP 28")
eq("(D3)" in rows[1]["error"], True, "IP 108 / UDP 28 error")
eq((rows[2]["bth"]["opcode"], rows[2]["icrc"]["ok"], "payload_len" in rows[2]), (0xC0, True, False), "0xC0 good")
eq(rows[3]["icrc"]["ok"], False, "0xC0 bad")
eq((rows[4]["reth"]["dmalen"], rows[4]["icrc"]["ok"]), (8, None), "UDP longer than IP")
PYEOF
s=$("$DEC" --stats --json lenient.pcap)
check "stats count malformed frames with a BTH as RoCE" "$PY" -c '
import json, sys; s = json.loads(sys.argv[1])
i, p = s["icrc"], s["packets"]
sys.exit(0 if (i["ok"], i["bad"], i["unverifiable"], p["roce"], p["broken"]) == (2, 1, 1, 4, 0) else str(s))' "$s"

# ---- exit codes ----
"$DEC" --strict cases.pcap > /dev/null; check "--strict: exit 3" test $? -eq 3
"$DEC" --strict --qp 0x33 cases.pcap > /dev/null; check "--strict clean: exit 0" test $? -eq 0
"$DEC" cases.pcap > /dev/null; check "bad iCRC alone: exit 0" test $? -eq 0
"$DEC" /nonexistent.pcap 2> /dev/null; check "missing file: exit 1" test $? -eq 1
"$DEC" --bogus 2> /dev/null; check "bad option: exit 2 (README.md, command-line conventions)" test $? -eq 2
"$DEC" run_tests_not_a_capture 2> /dev/null < /dev/null; check "not a capture: exit 1" test $? -eq 1
: > empty.pcap; "$DEC" empty.pcap 2> /dev/null; check "empty file: exit 1" test $? -eq 1
check "--help" grep -q "Exit status" <("$DEC" --help)
check "--version" grep -q '^ornic-decode [0-9]' <("$DEC" --version)

echo "ornic-decode tests: $passes passed, $fails failed (work dir $WORK)"
[[ $fails -eq 0 ]]
