# SPDX-License-Identifier: MIT
# Shared by the consumer tests (installed.sh, subproject.sh): argument
# parsing, a clean work directory and the ok/fail tally. Source it after
# `set -euo pipefail`; it sets src, work, cc and here.
#   Usage of the sourcing script: NAME.sh SOURCE_DIR WORK_DIR [C_COMPILER]
src=$1 work=$2 cc=${3:-cc}
here=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
rm -rf "$work"
mkdir -p "$work"
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok: $*"; }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
finish() { echo "$passed passed, $failed failed"; [[ $failed -eq 0 ]]; exit $?; }
run_logged() { # log command...: runs it, prints the log on failure
  local log=$1
  shift
  if "$@" >"$log" 2>&1; then return 0; fi
  cat "$log"
  return 1
}
