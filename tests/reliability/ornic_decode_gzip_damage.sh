#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ornic-decode on damaged gzip captures (docs/RELIABILITY.md). The oracle is
# gzip itself: `gzip -dc FILE | ornic-decode -v -` writes every packet gzip
# could inflate; ornic-decode reading FILE must print exactly those lines,
# then exit 2 and name the damage with the right packet.
#   ornic_decode_gzip_damage.sh DECODER PCAPGEN [WORKDIR]
# Cases, on captures from a few KB to a few MB (the old code lost up to
# 256 KiB of inflated data on an error, so both sides of that size count):
#   * one bit of the trailer CRC-32 flipped: every packet, then "damaged
#     capture at packet N+1 (the gzip trailer after the last packet, ...):
#     gzip CRC mismatch after the last packet"; the same from stdin;
#   * one bit of the trailer length flipped: "gzip length mismatch";
#   * the .gz cut at many points: the complete records gzip inflated, then
#     "damaged capture at packet K+1" (the first record gzip -dc cannot give).
set -u
DEC=${1:?usage: ornic_decode_gzip_damage.sh DECODER PCAPGEN [WORKDIR]}
GEN=${2:?usage: ornic_decode_gzip_damage.sh DECODER PCAPGEN [WORKDIR]}
WORK=${3:-$(mktemp -d)}
DEC=$(realpath "$DEC") GEN=$(realpath "$GEN")
mkdir -p "$WORK" && cd "$WORK" || exit 1
fails=0 passes=0
ok() { passes=$((passes + 1)); }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# flip FILE FROM_END: XOR bit 0 of the byte FROM_END bytes before the end
flip() {
  local size; size=$(stat -c %s "$1")
  local off=$((size - $2))
  local b; b=$(od -An -tu1 -j "$off" -N1 "$1" | tr -d ' ')
  printf "$(printf '\\%03o' $((b ^ 1)))" | dd of="$1" bs=1 seek="$off" conv=notrunc status=none
}

# expect NAME GZFILE RC PATTERN [DECODER ARGS]: the decoder's stdout equals
# what it prints for `gzip -dc GZFILE`, its exit status is RC, stderr matches
expect() {
  local name=$1 gz=$2 want_rc=$3 pat=$4; shift 4
  gzip -dc "$gz" 2> /dev/null | "$DEC" -v "$@" - > ref.out 2> /dev/null
  "$DEC" -v "$@" "$gz" > got.out 2> got.err
  local rc=$?
  if ! cmp -s ref.out got.out; then
    fail "$name: printed $(wc -l < got.out) lines, gzip -dc gives $(wc -l < ref.out): $(cat got.err)"
  elif [[ $rc -ne $want_rc ]]; then
    fail "$name: exit $rc, want $want_rc: $(cat got.err)"
  elif ! grep -qE "$pat" got.err; then
    fail "$name: stderr '$(cat got.err)' does not match '$pat'"
  else
    ok
  fi
}

# Records a capture holds (its undamaged lines with -v: one per record).
records() { gzip -dc "$1" | "$DEC" -v - | wc -l; }

bad_trailer() { # bad_trailer NAME: CRC and length flips of NAME.pcap.gz
  local n; n=$(records "$1.pcap.gz")
  cp "$1.pcap.gz" crc.gz && flip crc.gz 8
  local after="damaged capture at packet $((n + 1)) \(the gzip trailer after the last packet, at byte offset [0-9]+ of the decompressed stream; $n good packets before it\)"
  expect "$1: CRC bit flipped" crc.gz 2 "$after: gzip CRC mismatch after the last packet"
  cat crc.gz | "$DEC" -v > pipe.out 2> pipe.err
  if [[ $? -eq 2 && $(wc -l < pipe.out) -eq $n ]] && grep -q "CRC mismatch after the last packet" pipe.err
  then ok; else fail "$1: CRC bit flipped, from stdin: $(wc -l < pipe.out) of $n: $(cat pipe.err)"; fi
  "$DEC" --stats --json crc.gz > stats.out 2> /dev/null
  if [[ $? -eq 2 ]] && grep -q '"damaged":true' stats.out && grep -q "\"total\":$n," stats.out
  then ok; else fail "$1: CRC bit flipped, --stats: $(head -c 300 stats.out)"; fi
  cp "$1.pcap.gz" len.gz && flip len.gz 4
  expect "$1: length bit flipped" len.gz 2 "$after: gzip length mismatch after the last packet"
}

# The right packet: stderr names the first record gzip -dc could not give
# whole, or says the damage is after the last whole one.
cut_at() { # cut_at NAME BYTES
  head -c "$2" "$1.pcap.gz" > cut.gz
  local k
  k=$(gzip -dc cut.gz 2> /dev/null | "$DEC" -v - 2> /dev/null | wc -l)
  if gzip -dc cut.gz 2> /dev/null | head -c 24 | wc -c | grep -qx 24; then
    expect "$1 cut at $2" cut.gz 2 "damaged capture at packet $((k + 1)) \(the record at byte offset [0-9]+ of the decompressed stream; $k good packets before it\): .*truncated .gz"
  else
    expect "$1 cut at $2 (inside the file header)" cut.gz 1 "cannot read the file header"
  fi
}

truncations() { # truncations NAME: 13 cut points, the header to the trailer
  local size; size=$(stat -c %s "$1.pcap.gz")
  for cut in 20 60 $((size / 7)) $((size / 3)) $((size / 2)) $((size * 2 / 3)) $((size - 4000)) \
             $((size - 100)) $((size - 12)) $((size - 9)) $((size - 8)) $((size - 4)) $((size - 1)); do
    [[ $cut -gt 0 && $cut -lt $size ]] && cut_at "$1" "$cut"
  done
}

# 4 KB, 67 KB, 200 KB (under the old 256 KiB loss), 2 MB (several of the
# reader's 256 KiB inflate calls)
"$GEN" -o small.pcap --wqes 1 --wqe-size 4K -q
"$GEN" -o mid.pcap --wqes 1 --wqe-size 64K -q
"$GEN" -o k200.pcap --wqes 3 --wqe-size 64K -q --seed 3
"$GEN" -o m2.pcap --wqes 2 -q --seed 2
for c in small mid k200 m2; do
  [[ -s $c.pcap ]] || { fail "ornic-pcapgen made no $c.pcap"; continue; }
  gzip -c "$c.pcap" > "$c.pcap.gz"
  bad_trailer "$c"
  truncations "$c"
done

# Two gzip members, the first with a bad CRC: its data is all delivered,
# then the damage (here inside a record: the members split one).
head -c 3000 mid.pcap | gzip > two.gz && flip two.gz 8
tail -c +3001 mid.pcap | gzip >> two.gz
expect "first of two members, bad CRC" two.gz 2 "damaged capture at packet [0-9]+ .*gzip CRC mismatch"

echo "ornic_decode_gzip_damage: $passes passed, $fails failed"
[[ $fails -eq 0 ]]
