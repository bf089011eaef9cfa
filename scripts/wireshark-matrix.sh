#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Wireshark plugin on the Wireshark versions people run: builds (and
# caches) a Debian root filesystem per version with mmdebstrap from Debian's
# archive, builds the project inside it against that Wireshark with -Werror,
# and runs the dissector suite there with that tshark (CTest label dissector,
# GUI screenshots under Xvfb included). The host's own Wireshark (Debian 12:
# 4.0) is covered by scripts/test.sh's release suite.
#
#   debian 13 "trixie"    Wireshark 4.4
#   debian unstable "sid" Wireshark 4.6
#
# Usage: scripts/wireshark-matrix.sh [--roots-only] [--cache DIR] [VERSION...]
#   VERSION: trixie, sid (default: both)
#   --cache DIR: where the roots are kept between runs
#               (default $ORNIC_WS_MATRIX_CACHE or /var/cache/ornic-ws-matrix)
#   --roots-only: build the roots (or find them cached) and stop
#   --name NAME: the build folder inside each root, /build/NAME (default
#               matrix); runs with other names may share a root at once
#   --tests REGEX: the CTest tests to run (default: label dissector)
#   --shell: an interactive shell in the root instead of the suite
# Each root is a directory named after the suite and a hash of the package
# list, so a changed list builds a new one. Needs root (chroot, mounts).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

cache=${ORNIC_WS_MATRIX_CACHE:-/var/cache/ornic-ws-matrix}
roots_only=0
name=matrix
tests=""
shell=0
suites=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --cache) cache=$2; shift 2 ;;
    --roots-only) roots_only=1; shift ;;
    --name) name=$2; shift 2 ;;
    --tests) tests=$2; shift 2 ;;
    --shell) shell=1; shift ;;
    trixie|sid) suites+=("$1"); shift ;;
    *) echo "wireshark-matrix: unknown argument '$1' (see the header of $0)" >&2; exit 2 ;;
  esac
done
[[ ${#suites[@]} -gt 0 ]] || suites=(trixie sid)
[[ $(id -u) -eq 0 ]] || { echo "wireshark-matrix: needs root (mmdebstrap, chroot)" >&2; exit 1; }

# What the dissector suite needs inside: the build (library, tools, pcapgen,
# plugin), its oracles (tshark, Python's standard library) and the GUI test's
# X server, Wireshark and screenshot tools.
pkgs=(gcc make cmake pkg-config libpcap-dev zlib1g-dev libisal-dev wireshark-dev libwireshark-dev
      tshark python3 check valgrind xvfb xdotool imagemagick wireshark xauth fonts-dejavu-core)
mirror=${ORNIC_DEBIAN_MIRROR:-http://deb.debian.org/debian}

command -v mmdebstrap >/dev/null || "$root/scripts/deps.sh" test # installs mmdebstrap

root_dir() { # suite -> its cached root directory (built when missing)
  local suite=$1 key dir
  key=$(printf '%s\n' "$suite" "$mirror" "${pkgs[@]}" | sha256sum | cut -c1-12)
  dir="$cache/$suite-$key"
  mkdir -p "$cache"
  # One builder per root: a second run waits for the first one's root.
  exec {lock}>"$cache/$suite.lock"
  flock "$lock"
  if [[ ! -x $dir/usr/bin/tshark ]]; then
    mkdir -p "$cache"
    echo "=== $suite: building the root filesystem (mmdebstrap, about 4 minutes)" >&2
    # unstable's Release file can look expired against a machine's clock
    rm -rf --one-file-system "$dir.part"
    mmdebstrap --variant=apt --format=directory --include="$(IFS=,; echo "${pkgs[*]}")" \
      --aptopt='Acquire::Check-Valid-Until "false"' \
      --essential-hook='echo "wireshark-common wireshark-common/install-setuid boolean false" | chroot "$1" debconf-set-selections' \
      "$suite" "$dir.part" "$mirror" >"$cache/$suite.mmdebstrap.log" 2>&1 ||
      { tail -30 "$cache/$suite.mmdebstrap.log" >&2; rm -rf --one-file-system "$dir.part"; exec {lock}>&-; return 1; }
    mv "$dir.part" "$dir"
    # Roots of an older package list (about 1 GB each) go. A run still in
    # one has it bind-mounted in its own mount namespace only: deleting the
    # folder here cannot reach the source tree it mounted.
    for old in "$cache/$suite"-*; do
      [[ -d $old && $old != "$dir" && $old != *.part ]] && rm -rf --one-file-system "$old"
    done
  fi
  exec {lock}>&-
  echo "$dir"
}

if [[ $roots_only == 1 ]]; then
  for s in "${suites[@]}"; do root_dir "$s"; done
  exit 0
fi

# Inside the root: configure with -Werror, build, run the dissector suite
# (CTest skips fail the run under CI=true, as in scripts/test.sh).
inside='set -euo pipefail
b=/build/$NAME
echo "=== $SUITE: $(tshark --version | sed -n 1p), $(gcc --version | sed -n 1p)"
# ORNIC_BUILD_FUZZ explicitly: a build folder kept in a cached root may hold
# an older OFF in its CMake cache.
cmake -S /src -B "$b" -DCMAKE_BUILD_TYPE=Release -DORNIC_WERROR=ON -DORNIC_BUILD_FUZZ=ON \
  >"$b.configure.log" 2>&1 || { cat "$b.configure.log"; exit 1; }
grep "ORNIC Wireshark plugin: building" "$b.configure.log" ||
  { echo "=== $SUITE: the plugin is not built"; cat "$b.configure.log"; exit 1; }
# What the dissector suite runs: the plugin, the tools it compares with, the
# encoder bridge, and ornic-mutate for the stock-tshark differential test
# (diff_wireshark, tests/differential; ornic-mutate needs fuzz/ configured).
cmake --build "$b" -j"$(nproc)" --target ornic_wireshark ornic-decode ornic-pcapgen ornic-test-icrc ornic-mutate \
  >"$b.build.log" 2>&1 || { cat "$b.build.log"; exit 1; }
if grep -n "warning:" "$b.build.log"; then echo "=== $SUITE: compiler warnings"; exit 1; fi
if [[ -n $TESTS ]]; then sel=(-R "$TESTS"); else sel=(-L dissector); fi
ctest --test-dir "$b" --output-on-failure -j"$(nproc)" "${sel[@]}" 2>&1 | tee "$b.test.log"
if grep -E "\*\*\*Skipped|Not Run" "$b.test.log" && [[ ${CI:-} == true ]]; then
  echo "=== CI=true: skipped tests are failures"; exit 1
fi'

# One private mount namespace per run: the source tree read-only at /src, a
# private /tmp, /proc and /dev; all of it goes away with the process, on any
# signal, and runs in the same root do not see each other's mounts.
run_in_root() { # suite root
  local suite=$1 dir=$2 cmd=$inside
  [[ $shell == 1 ]] && cmd='cd /build && exec bash -i'
  mkdir -p "$dir/src" "$dir/build"
  unshare --mount --propagation private -- bash -c '
    set -e
    d=$1; mount --bind "$2" "$d/src"; mount -o remount,bind,ro "$d/src"
    mount -t proc proc "$d/proc"; mount --rbind /dev "$d/dev"; mount -t tmpfs tmpfs "$d/tmp"
    exec chroot "$d" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
      CI="${CI:-}" SUITE="$3" NAME="$4" TESTS="$5" bash -c "$6"' \
    _ "$dir" "$root" "$suite" "$name" "$tests" "$cmd"
}

rc=0
for s in "${suites[@]}"; do
  if ! dir=$(root_dir "$s"); then echo "=== $s: FAILED (no root filesystem)"; rc=1; continue; fi
  if run_in_root "$s" "$dir"; then echo "=== $s: passed"; else echo "=== $s: FAILED"; rc=1; fi
done
exit $rc
