#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# install-wireshark-plugin installs into the HOME of whoever runs the target,
# not of whoever configured the build: run it with a fresh HOME and look.
# Usage: install_home.sh BUILD_DIR
set -euo pipefail
build=$1
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
HOME=$home cmake --build "$build" --target install-wireshark-plugin >"$home.log" 2>&1 ||
  { cat "$home.log"; rm -f "$home.log"; echo "FAIL: the target failed"; exit 1; }
rm -f "$home.log"
got=$(find "$home/.local/lib/wireshark/plugins" -name ornic.so 2>/dev/null | head -n1)
if [[ -n $got ]]; then
  echo "ok: installed into the runner's HOME: ${got#"$home"/}"
else
  echo "FAIL: nothing under $home/.local/lib/wireshark/plugins (HOME read at configure time?)"
  exit 1
fi
