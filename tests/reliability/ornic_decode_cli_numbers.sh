#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ornic-decode's option numbers go through the tree's one parser
# (libs/ornic-cli/include/cli_num.h; docs/RELIABILITY.md): decimal or 0x hex, never octal
# (strtoull's base 0 read "--otd 010" as 8), no sign, no spaces, overflow
# checked; a bad value names the option and says what was expected and got.
#   ornic_decode_cli_numbers.sh DECODER TESTGEN [WORKDIR]
set -u
DEC=${1:?usage: ornic_decode_cli_numbers.sh DECODER TESTGEN [WORKDIR]}
GEN=${2:?usage: ornic_decode_cli_numbers.sh DECODER TESTGEN [WORKDIR]}
WORK=${3:-$(mktemp -d)}
DEC=$(realpath "$DEC") GEN=$(realpath "$GEN")
mkdir -p "$WORK" && cd "$WORK" || exit 1
fails=0 passes=0
ok() { passes=$((passes + 1)); }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
"$GEN" cases cases.pcap 2> /dev/null || { echo "generator failed"; exit 1; }

# same_as NAME ARGS... -- ARGS...: both command lines print the same
same_as() {
  local name=$1; shift
  local a=() b=()
  while [[ $1 != -- ]]; do a+=("$1"); shift; done
  shift
  b=("$@")
  if cmp -s <("$DEC" "${a[@]}" cases.pcap 2>&1) <("$DEC" "${b[@]}" cases.pcap 2>&1); then ok
  else fail "$name: '${a[*]}' and '${b[*]}' differ"; fi
}
# the analysis reports the OTD it ran with
otd_is() {
  local got; got=$("$DEC" --stats --json --otd "$1" cases.pcap | grep -o '"otd":[0-9]*')
  if [[ $got == "\"otd\":$2" ]]; then ok; else fail "--otd $1: analysis ran with $got, want $2"; fi
}
# rejected OPTION VALUE WANT: exit 2 (a usage error, README.md "Command-line
# conventions"), and stderr names the option, says what it expected (WANT)
# and repeats the value
rejected() {
  "$DEC" "$1" "$2" cases.pcap > /dev/null 2> err.txt
  local rc=$?
  if [[ $rc -eq 2 ]] && grep -qF -- "ornic-decode: $1: expected $3, got '$2'" err.txt; then ok
  else fail "$1 '$2': exit $rc, stderr '$(cat err.txt)'"; fi
}

otd_is 010 10   # decimal, not octal 8
otd_is 0x10 16
otd_is 0 64     # the engine reads OTD 0 as its default 64 (--help)
otd_is 4080 4080
otd_is 007 7
same_as "--qp 010 is QP 10" --qp 010 -- --qp 0xa
same_as "--qp 0X33 is 0x33" --qp 0X33 -- --qp 51
same_as "--count 010 is ten" --count 010 -- -c 10
same_as "--pmtu 01024 is 1024" --pmtu 01024 -- --pmtu 0x400
same_as "--port 04791 is 4791" --port 04791 -- --port 4791

rejected --otd 4081 "a number from 0 to 4080"
rejected --otd -1 "a number from 0 to 4080"
rejected --otd " 5" "a number from 0 to 4080"
rejected --otd 5x "a number from 0 to 4080"
rejected --otd 0x "a number from 0 to 4080"
rejected --otd "" "a number from 0 to 4080"
rejected --qp 0x1000000 "a number from 0 to 16777215"
rejected --qp 99999999999999999999999 "a number from 0 to 16777215"
rejected --count 0 "a number from 1 to 18446744073709551615"
rejected --count 18446744073709551616 "a number from 1 to 18446744073709551615"
rejected --port 0 "a number from 1 to 65535"
rejected --port 65536 "a number from 1 to 65535"
rejected --pmtu 300 "0, 256, 512, 1024, 2048 or 4096"
rejected --pmtu 128 "0, 256, 512, 1024, 2048 or 4096"
rejected --pmtu 8192 "a number from 0 to 4096"
rejected --qp +5 "a number from 0 to 16777215"

echo "ornic_decode_cli_numbers: $passes passed, $fails failed"
[[ $fails -eq 0 ]]
