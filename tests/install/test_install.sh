#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Install test: `cmake --install` the build into a temporary prefix, then build
# tests/install/consumer.c against the installed tree only
#   1. with pkg-config (shared library, run with LD_LIBRARY_PATH),
#   2. with a CMake project using find_package(ornicproto) and the exported
#      ornicproto::ornicproto and ornicproto::ornicproto_static targets,
# run them and check their output; and compile every installed header alone
# with -std=c11 -Wall -Wextra -Werror -pedantic, and ornic.h from C++.
# Usage: test_install.sh BUILD_DIR C_COMPILER SANITIZE(ON|OFF) [PROJECT_VERSION]
set -euo pipefail
build=$1 cc=${2:-cc} sanitize=${3:-OFF} version=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok: $*"; }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
finish() { echo "$passed passed, $failed failed"; [[ $failed -eq 0 ]]; exit $?; }

# A sanitizer build installs an instrumented library: consumers need the same flags.
san=()
[[ "$sanitize" == ON || "$sanitize" == 1 || "$sanitize" == TRUE ]] && san=(-fsanitize=address,undefined)

prefix=$tmp/prefix
if cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1; then
  ok "cmake --install"
else
  cat "$tmp/install.log"; fail "cmake --install"; finish
fi
for f in include/ornic/ornic.h include/ornic/version.h include/ornic/frame.h; do
  [[ -f $prefix/$f ]] && ok "installed $f" || fail "missing $f"
done
pc=$(find "$prefix" -name ornicproto.pc | head -n1)
cfg=$(find "$prefix" -name ornicprotoConfig.cmake | head -n1)
[[ -n $pc ]] && ok "installed ${pc#$prefix/}" || fail "no ornicproto.pc installed"
[[ -n $cfg ]] && ok "installed ${cfg#$prefix/}" || fail "no ornicprotoConfig.cmake installed"
[[ -n $(find "$prefix" -name libornicproto.a) ]] && ok "static library installed" || fail "no libornicproto.a installed"
# The Python package (python/): installed where python3 imports it from. The
# system's python3 has Scapy (scripts/deps.sh); a PATH python may not.
py=/usr/bin/python3
[[ -x $py ]] || py=python3
pyinit=$(find "$prefix" -path '*/ornicproto/scapy/__init__.py' | head -n1)
if [[ -z $pyinit ]]; then
  fail "no ornicproto Python package installed"
elif out=$(cd "$tmp" && PYTHONPATH=$(dirname "$(dirname "$(dirname "$pyinit")")") "$py" -c \
             'import ornicproto.scapy as o; print(o.__file__)' 2>&1) && [[ $out == "$prefix"/* ]]; then
  ok "ornicproto.scapy imports from the prefix"
else
  fail "ornicproto.scapy does not import from the prefix: $out"
fi
[[ -n $pc && -n $cfg ]] || finish
libdir=$(dirname "$(dirname "$pc")")

check_output() { # name file
  local out=$2
  if grep -qx "roundtrip ok" "$out" && grep -qx "icrc ORNIC_OK" "$out" &&
     grep -q "RC RDMA WRITE Only, psn 0xffffff, destqp 0x123456" "$out" &&
     { [[ -z $version ]] || grep -qx "version $version" "$out"; }; then
    ok "$1 output"
  else
    cat "$out"; fail "$1 output"
  fi
}

# 1. pkg-config
export PKG_CONFIG_PATH=$(dirname "$pc")
flags=$(pkg-config --cflags --libs ornicproto)
if [[ $flags == *"-I$prefix"* || $flags == *"-I${prefix}/"* || $flags == *"$prefix"* ]]; then
  ok "pkg-config points into the prefix ($flags)"
else
  fail "pkg-config flags do not point into $prefix: $flags"
fi
# shellcheck disable=SC2086
if "$cc" -std=c11 -Wall -Wextra -Werror "${san[@]}" "$here/consumer.c" -o "$tmp/consumer_pc" $flags 2>"$tmp/pc.log"; then
  ok "consumer builds with pkg-config"
  if LD_LIBRARY_PATH=$libdir "$tmp/consumer_pc" >"$tmp/pc.out" 2>&1; then ok "pkg-config consumer runs"; else
    cat "$tmp/pc.out"; fail "pkg-config consumer exits non-zero"; fi
  check_output "pkg-config consumer" "$tmp/pc.out"
  deps=$(LD_LIBRARY_PATH=$libdir ldd "$tmp/consumer_pc")
  if grep -q "libornicproto\.so.* => $libdir/" <<<"$deps"; then
    ok "pkg-config consumer uses the installed shared library"
  else
    echo "$deps"; fail "pkg-config consumer is not linked to $libdir/libornicproto.so"
  fi
else
  cat "$tmp/pc.log"; fail "consumer does not build with pkg-config"
fi

# 2. find_package
cm=(-DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Release)
if [[ ${#san[@]} -gt 0 ]]; then
  cm+=(-DCMAKE_C_FLAGS="${san[*]}" -DCMAKE_EXE_LINKER_FLAGS="${san[*]}")
fi
if cmake -S "$here" -B "$tmp/cmake-consumer" "${cm[@]}" >"$tmp/cm.log" 2>&1 &&
   cmake --build "$tmp/cmake-consumer" >>"$tmp/cm.log" 2>&1; then
  ok "consumer builds with find_package(ornicproto)"
  for t in consumer_shared consumer_static; do
    if LD_LIBRARY_PATH=$libdir "$tmp/cmake-consumer/$t" >"$tmp/$t.out" 2>&1; then ok "$t runs"; else
      cat "$tmp/$t.out"; fail "$t exits non-zero"; fi
    check_output "$t" "$tmp/$t.out"
  done
  # the CMake shared consumer finds the library through its RUNPATH, without LD_LIBRARY_PATH
  if "$tmp/cmake-consumer/consumer_shared" >/dev/null 2>&1; then ok "consumer_shared runs without LD_LIBRARY_PATH"; else
    fail "consumer_shared needs LD_LIBRARY_PATH"; fi
  if grep -q libornicproto <<<"$(ldd "$tmp/cmake-consumer/consumer_static")"; then
    fail "consumer_static links libornicproto dynamically"; else ok "consumer_static is statically linked"; fi
  if [[ -f $tmp/pc.out ]] && cmp -s "$tmp/pc.out" "$tmp/consumer_shared.out"; then
    ok "pkg-config and find_package consumers print the same"
  else
    fail "pkg-config and find_package consumers differ"
  fi
else
  cat "$tmp/cm.log"; fail "consumer does not build with find_package(ornicproto)"
fi

# 3. every installed header on its own, strict C11; ornic.h from C++
for h in "$prefix"/include/ornic/*.h; do
  name=ornic/$(basename "$h")
  if printf '#include <%s>\nint ornic_header_test;\n' "$name" |
     "$cc" -std=c11 -Wall -Wextra -Werror -pedantic -I"$prefix/include" -fsyntax-only -x c - 2>"$tmp/h.log"; then
    ok "$name compiles alone (C11, -pedantic)"
  else
    cat "$tmp/h.log"; fail "$name does not compile alone"
  fi
done
if command -v g++ >/dev/null; then
  cat >"$tmp/cxx.cc" <<'CXX'
#include <ornic/ornic.h>
#include <cstdio>
int main() {
  ornic_frame f;
  ornic_frame_init(&f, ORNIC_LINK_ETHERNET, 4);
  std::printf("%s %d\n", ornic_errname(ORNIC_ERR_TRUNCATED), ornic_psn_cmp(0, 0xffffff));
  return 0;
}
CXX
  if g++ -std=c++11 -Wall -Wextra -Werror -pedantic -I"$prefix/include" -fsyntax-only "$tmp/cxx.cc" 2>"$tmp/cxx.log"; then
    ok "ornic.h compiles as C++11"
  else
    cat "$tmp/cxx.log"; fail "ornic.h does not compile as C++11"
  fi
  # Linking from C++ checks the extern "C" wrappers (skipped for sanitizer builds,
  # whose library needs the C compiler's sanitizer runtime).
  if [[ ${#san[@]} -eq 0 ]]; then
    if g++ -std=c++11 -I"$prefix/include" "$tmp/cxx.cc" -o "$tmp/cxx" -L"$libdir" -lornicproto 2>"$tmp/cxx.log" &&
       [[ $(LD_LIBRARY_PATH=$libdir "$tmp/cxx") == "ORNIC_ERR_TRUNCATED 1" ]]; then
      ok "C++ program links and runs (extern \"C\")"
    else
      cat "$tmp/cxx.log"; fail "C++ program does not link or run"
    fi
  fi
fi
finish
