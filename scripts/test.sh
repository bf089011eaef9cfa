#!/usr/bin/env bash
# The whole test suite, as CI runs it: install what is missing, build with
# -Werror, run every test, then build and run everything again under
# AddressSanitizer + UndefinedBehaviorSanitizer.
# Usage: scripts/test.sh [--no-sanitize]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
jobs=$(nproc 2>/dev/null || echo 2)

scripts/deps.sh test

run_suite() { # name, build dir, extra cmake args...
  local name=$1 dir=$2
  shift 2
  echo "=== $name: configure + build ($dir)"
  cmake -S . -B "$dir" -DORNIC_WERROR=ON "$@" >"$dir.configure.log" 2>&1 ||
    { cat "$dir.configure.log"; return 1; }
  if ! cmake --build "$dir" -j"$jobs" >"$dir.build.log" 2>&1; then
    cat "$dir.build.log"
    return 1
  fi
  echo "=== $name: tests"
  ctest --test-dir "$dir" --output-on-failure -j"$jobs"
}

mkdir -p build
run_suite release build/ci-release -DCMAKE_BUILD_TYPE=Release
if [[ "${1:-}" != --no-sanitize ]]; then
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    run_suite asan+ubsan build/ci-asan -DCMAKE_BUILD_TYPE=Debug -DORNIC_SANITIZE=ON \
    -DCMAKE_C_COMPILER=clang
fi
echo "=== all suites passed"
