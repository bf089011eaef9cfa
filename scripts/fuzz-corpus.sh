#!/usr/bin/env sh
# SPDX-License-Identifier: MIT
# Rebuilds the committed seed corpus fuzz/corpus/<target>/ from the library's
# encoder (ornic-fuzz-seeds), from fuzz_responder's honest traffic and from
# ornic-pcapgen captures, or checks it.
#
#   scripts/fuzz-corpus.sh [BUILD_DIR]          regenerate (default BUILD_DIR: build)
#   scripts/fuzz-corpus.sh --check SEEDS WORK [FUZZ_RESPONDER]   CTest
#       fuzz_corpus_current: the encoder-made seeds in fuzz/corpus are what
#       SEEDS (ornic-fuzz-seeds) writes today, and with FUZZ_RESPONDER the
#       seeds of fuzz_responder_frames what it records (without it they are
#       not compared); files named pcapgen-* come from ornic-pcapgen and are
#       not compared: its own tests pin its output
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=$root/fuzz/corpus

# fuzz_responder_frames's seeds: every fuzz_responder seed's scenario, the
# frames it injected and its pauses, as frame records (FUZZ_RESPONDER_RECORD,
# fuzz/responder_sim.h). Arguments: the fuzz_responder program, the corpus.
record_frames() {
  mkdir -p "$2/responder_frames"
  for seed in "$2"/responder/*; do
    FUZZ_RESPONDER_RECORD="$2/responder_frames/${seed##*/}" "$1" "$seed" 2>/dev/null ||
      { echo "fuzz-corpus: $1 $seed failed" >&2; exit 1; }
  done
}

if [ "${1:-}" = --check ]; then
  seeds=$2 work=$3 frames_x=responder_frames
  rm -rf "$work" && mkdir -p "$work"
  "$seeds" "$work"
  if [ -n "${4:-}" ]; then
    record_frames "$4" "$work"
    frames_x=''
  fi
  # Same names, same bytes, in both directions (one diff: forks are slow).
  if diff -rq -x 'pcapgen-*' ${frames_x:+-x "$frames_x"} "$work" "$corpus"; then
    echo "fuzz corpus: $(find "$work" -type f | wc -l) generated seeds match fuzz/corpus"
    status=0
  else
    echo "fuzz/corpus differs from what ornic-fuzz-seeds writes: run scripts/fuzz-corpus.sh"
    status=1
  fi
  exit $status
fi

build=${1:-$root/build}
seeds=$build/bin/ornic-fuzz-seeds
pcapgen=$build/bin/ornic-pcapgen
responder=$build/bin/fuzz_responder
for b in "$seeds" "$pcapgen" "$responder"; do
  [ -x "$b" ] || { echo "fuzz-corpus: $b not built (cmake --build $build)" >&2; exit 1; }
done
rm -rf "$corpus"
"$seeds" "$corpus"
record_frames "$responder" "$corpus"

# Whole simulated conversations (small: a few WQEs), for fuzz_capture, in
# each format pcapgen writes; and one frame of each opcode they contain, for
# fuzz_frame and fuzz_roundtrip.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
common="-q --qps 2 --wqes 2 --wqe-size 12K --pmtu 1024 --paths 4 --loss 0.05"
"$pcapgen" $common -s 1 -o "$corpus/capture/pcapgen-write-loss.pcap"
"$pcapgen" $common -s 2 --op read -o "$corpus/capture/pcapgen-read-loss.pcapng"
"$pcapgen" $common -s 3 --ack-per-packet --snaplen 96 -o "$corpus/capture/pcapgen-write-snaplen96.pcap.gz"
"$pcapgen" -q --qps 1 --wqes 2 --wqe-size 40K --pmtu 256 --otd 4 --drop 0:0:3 --drop 0:0:30 \
  --start-psn 0xfffff0 -s 4 -o "$tmp/nak.pcap"
cp "$tmp/nak.pcap" "$corpus/capture/pcapgen-write-drops-psn-wrap.pcap"
"$pcapgen" -q --profile roce --qps 1 --wqes 2 --wqe-size 8K --pmtu 1024 --loss 0.1 -s 5 \
  -o "$corpus/capture/pcapgen-roce-gbn.pcap"
# Two-way RC with READs outstanding, lossy, starting mid-stream and missing
# frames: every branch of the conversation analysis (pairing, READ retries,
# not captured, go-back-N).
"$pcapgen" -q --profile rc --qps 2 --wqes 4 --wqe-size 3K --pmtu 1024 --rc-outstanding 4 --loss 0.05 \
  --capture-start 5 --capture-drop 0.05 -s 6 -o "$corpus/capture/pcapgen-rc-two-way.pcap"
for cap in "$corpus/capture/pcapgen-write-loss.pcap" "$tmp/nak.pcap" \
           "$corpus/capture/pcapgen-roce-gbn.pcap"; do
  /usr/bin/python3 - "$cap" "$corpus" "$(basename "$cap" .pcap)" <<'PY'
import struct, sys
path, corpus, tag = sys.argv[1:4]
data = open(path, 'rb').read()
endian = '<' if data[:4] in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1') else '>'
off, seen = 24, set()
while off + 16 <= len(data):
    _, _, caplen, _ = struct.unpack(endian + 'IIII', data[off:off + 16])
    frame = data[off + 16:off + 16 + caplen]
    off += 16 + caplen
    if len(frame) < 43 or frame[12:14] != b'\x08\x00':
        continue
    op = frame[42]
    if op in seen:
        continue
    seen.add(op)
    for target in ('frame', 'roundtrip'):
        with open(f'{corpus}/{target}/pcapgen-{tag}-op-{op:02x}', 'wb') as f:
            f.write(b'\x00' + frame)
PY
done
# fuzz_responder_frames: what pcapgen's requester sent to the responder, tapped
# there (seed 1, whose PSNs and memory bytes the harness's responder shares),
# as frame records after the configuration bytes of the same options
# (responder_sim.c, configure(): PMTU and QPs, ACK every 16, window 4080, the
# OTD; the PSN wrap), a pause record (15, 15) where the requester was silent
# for over 3 us (a timer's wait).
pg_frames() { # name config pcapgen-options...
  name=$1 cfg=$2
  shift 2
  "$pcapgen" -q --capture responder "$@" -o "$tmp/frames.pcap" 2>/dev/null
  /usr/bin/python3 - "$tmp/frames.pcap" "$corpus/responder_frames/pcapgen-$name" "$cfg" <<'PY'
import struct, sys
path, out, cfg = sys.argv[1], sys.argv[2], bytes(int(x, 0) for x in sys.argv[3].split(','))
data = open(path, 'rb').read()
endian = '<' if data[:4] in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1') else '>'
nano = data[:4] in (b'\x4d\x3c\xb2\xa1', b'\xa1\xb2\x3c\x4d')
off, recs, last = 24, [cfg], None
while off + 16 <= len(data):
    sec, frac, caplen, _ = struct.unpack(endian + 'IIII', data[off:off + 16])
    frame = data[off + 16:off + 16 + caplen]
    off += 16 + caplen
    if frame[12:14] != b'\x08\x00' or frame[30:34] != bytes([10, 0, 0, 2]):
        continue  # IPv4 to the responder (10.0.0.2) only
    t = sec * 10**9 + (frac if nano else frac * 1000)
    if last is not None and t - last > 3000:
        recs.append(b'\x00\x02\x0f\x0f')
    last = t
    recs.append(struct.pack('>H', len(frame)) + frame)
open(out, 'wb').write(b''.join(recs))
PY
}
pg_frames write-2qps-loss 7,0x0f,63,0 --qps 2 --wqes 2 --wqe-size 12K --pmtu 1024 --paths 4 --loss 0.05
pg_frames read-loss 2,0x0f,63,0 --qps 1 --wqes 2 --wqe-size 12K --pmtu 1024 --paths 4 --loss 0.05 --op read
pg_frames write-drops-psn-wrap 0,0x1f,3,0 --qps 1 --wqes 2 --wqe-size 40K --pmtu 256 --otd 4 \
  --drop 0:0:3 --drop 0:0:30 --start-psn 0xfffff0
echo "fuzz corpus: $(find "$corpus" -type f | wc -l) seeds in $corpus"
