#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Consumer test 1: the library alone, installed, used from outside.
#   1. configure ornic-tools with tools, tests, dissector and fuzz off, with
#      pkg-config's search path emptied (no libpcap, no Check: only zlib or
#      ISA-L), build it and install it into a temporary prefix;
#   2. the prefix holds the library, headers and package files, no program;
#   3. docs/examples/api_example.c builds against the installed copy with
#      find_package(ornicproto) (shared and static) and with pkg-config, and
#      runs.
# Usage: installed.sh SOURCE_DIR WORK_DIR [C_COMPILER]
set -euo pipefail
. "$(dirname "$0")/common.sh"

prefix=$work/prefix
if PKG_CONFIG_PATH=/nonexistent PKG_CONFIG_LIBDIR=/nonexistent \
   run_logged "$work/configure.log" cmake -S "$src" -B "$work/build" -DCMAKE_C_COMPILER="$cc" \
     -DCMAKE_BUILD_TYPE=Debug -DCMAKE_INSTALL_PREFIX="$prefix" -DORNIC_BUILD_TOOLS=OFF \
     -DORNIC_BUILD_TESTS=OFF -DORNIC_BUILD_DISSECTOR=OFF -DORNIC_BUILD_FUZZ=OFF; then
  ok "library-only configure without pkg-config's packages"
else
  fail "library-only configure"; finish
fi
if run_logged "$work/build.log" cmake --build "$work/build" -j2 &&
   run_logged "$work/install.log" cmake --install "$work/build"; then
  ok "library-only build and install"
else
  fail "library-only build or install"; finish
fi

# 2. what was installed
for f in include/ornic/ornic.h include/ornic/version.h include/ornic/export.h; do
  [[ -f $prefix/$f ]] && ok "installed $f" || fail "missing $f"
done
pc=$(find "$prefix" -name ornicproto.pc | head -n1)
cfg=$(find "$prefix" -name ornicprotoConfig.cmake | head -n1)
so=$(find "$prefix" -name 'libornicproto.so.*.*.*' | head -n1)
[[ -n $pc ]] && ok "installed ${pc#"$prefix"/}" || fail "no ornicproto.pc"
[[ -n $cfg ]] && ok "installed ${cfg#"$prefix"/}" || fail "no ornicprotoConfig.cmake"
[[ -n $so ]] && ok "installed ${so#"$prefix"/}" || fail "no versioned libornicproto.so"
[[ -n $(find "$prefix" -name libornicproto.a) ]] && ok "installed libornicproto.a" || fail "no libornicproto.a"
if [[ -d $prefix/bin ]] && [[ -n $(ls -A "$prefix/bin") ]]; then
  fail "programs installed by a library-only build: $(ls "$prefix/bin" | tr '\n' ' ')"
else
  ok "no program installed"
fi
[[ -n $pc && -n $cfg && -n $so ]] || finish
libdir=$(dirname "$so")

check_run() { # name program [env...]
  local name=$1 prog=$2
  shift 2
  if env "$@" "$prog" >"$work/$name.out" 2>&1 && grep -q '^roundtrip ok' "$work/$name.out"; then
    ok "$name runs"
  else
    cat "$work/$name.out"; fail "$name"
  fi
}

# 3a. find_package
if run_logged "$work/cm.log" cmake -S "$here/installed" -B "$work/cm" -DCMAKE_C_COMPILER="$cc" \
     -DCMAKE_PREFIX_PATH="$prefix" -DORNIC_EXAMPLE="$src/docs/examples/api_example.c" &&
   run_logged "$work/cm-build.log" cmake --build "$work/cm" -j2; then
  ok "api_example builds with find_package(ornicproto)"
  # The shared one finds the library through its RUNPATH.
  check_run find_package_shared "$work/cm/api_example_shared"
  check_run find_package_static "$work/cm/api_example_static"
  # ldd's output first, then grep: `ldd | grep -q` under pipefail fails when grep's early
  # exit makes ldd die of SIGPIPE (seen under ASan, whose runtime lengthens the list).
  deps=$(ldd "$work/cm/api_example_shared" || true)
  if grep -q "libornicproto\.so\.1 => $libdir/" <<<"$deps"; then
    ok "find_package consumer uses the installed libornicproto.so.1"
  else
    ldd "$work/cm/api_example_shared"; fail "find_package consumer is not linked to $libdir/libornicproto.so.1"
  fi
  deps=$(ldd "$work/cm/api_example_static" || true)
  if grep -q libornicproto <<<"$deps"; then
    fail "the static consumer links libornicproto dynamically"
  else
    ok "the static consumer is statically linked"
  fi
else
  fail "api_example does not build with find_package(ornicproto)"
fi

# 3b. pkg-config
if flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs ornicproto) &&
   run_logged "$work/pc.log" "$cc" -std=c11 -Wall -Wextra -Werror -pedantic \
     "$src/docs/examples/api_example.c" -o "$work/api_example_pc" $flags; then
  ok "api_example builds with pkg-config ($flags)"
  check_run pkg_config "$work/api_example_pc" LD_LIBRARY_PATH="$libdir"
else
  fail "api_example does not build with pkg-config"
fi
finish
