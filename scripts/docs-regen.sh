#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Regenerates every figure of the documentation that a command makes, in
# place, and exits 1 when a document changed (as `git diff --exit-code` would
# after it): the slow examples that CI does not run (minutes of ornic-bitmap-sim,
# scripts/fig11.sh, files of a gigabyte) and the fast ones CTest docs_examples
# checks (tests/docs/README.md). Also:
#   - the plots and summaries of docs/profiles/ (scripts/compare-profiles.sh,
#     scripts/fig11.sh, scripts/left-two-links.sh) and of docs/bitmap/ (ornic-bitmap-sim --plot: each
#     PNG and the gnuplot script beside it, FILE.png.gp) and README.md's
#     docs/images/ornic-decode-plot.svg (ornic-decode --plot, "Plot a capture")
#     and docs/images/incast-*.png (scripts/incast-plots.sh: docs/SCENARIOS.md, "Incast");
#   - the ORNIC paper's Tables 2 and 3 as tests/docs/bitmap_table.py quotes
#     them, against the paper's stored text when ../shared/seeds has it.
# A figure no command here regenerates (a speed measured on a shared machine)
# names in its document the command and the commit it was measured on.
# About 8 minutes on 2 cores (3 with --no-figures).
# Usage: scripts/docs-regen.sh [--build DIR] [--no-figures] [--fast-only]
#   --build DIR    a configured, built tree (default: build)
#   --no-figures   leave the PNG plots and docs/profiles/*.json alone
#   --fast-only    only what CTest docs_examples runs (with --write)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=build figures=1 which=--all
while (($#)); do
  case $1 in
    --build) build=$2; shift 2 ;;
    --no-figures) figures=0; shift ;;
    --fast-only) which=""; shift ;;
    *) echo "usage: scripts/docs-regen.sh [--build DIR] [--no-figures] [--fast-only]" >&2; exit 2 ;;
  esac
done
build=$(cd "$build" && pwd)
for p in ornic-decode ornic-pcapgen ornic-bitmap-sim ornic-examples; do
  [[ -x $build/bin/$p ]] || { echo "docs-regen: $build/bin/$p not found (build first)" >&2; exit 1; }
done
py=/usr/bin/python3
version=$(sed -nE 's/^project\(ornic-tools VERSION ([0-9.]+).*/\1/p' CMakeLists.txt)
tools=()
testgen=$build/tests/ornic-decode/ornic-decode-testgen
[[ -x $testgen ]] && tools+=(--tool "gen_test_capture=$testgen")

# The documents doc_check.py reads, and the generated files beside them.
mapfile -t docs < <(ls README.md pcapgen/README.md tools/*/README.md python/README.md docs/*.md)
generated=(docs/profiles/summary.md docs/profiles/pmtu1024/summary.md docs/profiles/additions.md
           docs/profiles/fig11.md docs/profiles/fig11.csv docs/profiles/fig11-ablation.csv
           docs/profiles/left-two-links.md)
if [[ $figures == 1 ]]; then
  mapfile -t more < <(ls docs/profiles/*.json docs/profiles/pmtu1024/*.json docs/profiles/*.png \
                        docs/profiles/fig11/*.json docs/bitmap/*.png docs/bitmap/*.png.gp \
                        docs/images/ornic-decode-plot.svg docs/images/incast-*.png 2>/dev/null)
  generated+=("${more[@]}")
fi
snap=$(mktemp -d)
trap 'rm -rf "$snap"' EXIT
for f in "${docs[@]}" "${generated[@]}"; do
  [[ -f $f ]] && mkdir -p "$snap/$(dirname "$f")" && cp -p "$f" "$snap/$f"
done

rc=0
if [[ -f ../shared/seeds/ornic-paper-electronics-2025.txt ]]; then
  PATH=$build/bin:$PATH $py tests/docs/bitmap_table.py check-paper \
    ../shared/seeds/ornic-paper-electronics-2025.txt || rc=1
else
  echo "docs-regen: ../shared/seeds/ornic-paper-electronics-2025.txt not here: the paper's Tables 2 and 3" \
    "in tests/docs/bitmap_table.py are not checked" >&2
fi

if [[ -n $which ]]; then
  echo "=== docs/profiles: scripts/compare-profiles.sh, scripts/fig11.sh, scripts/left-two-links.sh" >&2
  scripts/compare-profiles.sh "$build" 2>/dev/null # with --no-figures its plots and JSON are put back below
  scripts/fig11.sh "$build" docs/profiles 2>/dev/null
  scripts/left-two-links.sh "$build"
  if [[ $figures == 1 ]]; then
    echo "=== docs/bitmap: ornic-bitmap-sim --plot (and --paper --plot)" >&2
    "$build/bin/ornic-bitmap-sim" --reorder 64 --plot docs/bitmap/bitmap-models.png >/dev/null
    "$build/bin/ornic-bitmap-sim" --paper --plot docs/bitmap/bitmap-models-paper.png >/dev/null
    echo "=== docs/images: ornic-decode --plot (README.md \"Plot a capture\", its commands)" >&2
    (cd "$snap" && "$build/bin/ornic-pcapgen" -q -o plot.pcap --qps 2 --wqes 4 --wqe-size 64K \
       --pmtu 1024 --loss 0.01 --seed 3 &&
       "$build/bin/ornic-decode" -q --plot "$root/docs/images/ornic-decode-plot.svg" plot.pcap >/dev/null)
    echo "=== docs/images: scripts/incast-plots.sh (docs/SCENARIOS.md \"Incast: ECN, DCQCN and PFC\")" >&2
    scripts/incast-plots.sh "$build" docs/images 2>/dev/null
  fi
fi
if [[ $figures == 0 ]]; then # put back what --no-figures leaves alone
  for f in docs/profiles/*.json docs/profiles/pmtu1024/*.json docs/profiles/*.png docs/profiles/fig11/*.json \
           docs/bitmap/*.png docs/bitmap/*.png.gp docs/images/ornic-decode-plot.svg docs/images/incast-*.png; do
    [[ -f $snap/$f ]] && cp -p "$snap/$f" "$f"
  done
fi

echo "=== the documents' examples: tests/docs/doc_check.py --write $which" >&2
ORNIC_FIG11_DIR=$root/docs/profiles $py tests/docs/doc_check.py --write $which --bin "$build/bin" \
  --python "$py" --version "$version" "${tools[@]}" || rc=1

changed=()
for f in "${docs[@]}" "${generated[@]}"; do
  if [[ ! -f $snap/$f ]] || ! cmp -s "$snap/$f" "$f"; then changed+=("$f"); fi
done
if ((${#changed[@]})); then
  for f in "${changed[@]}"; do
    case $f in
      *.png | *.svg) echo "docs-regen: $f changed (a plot)" ;;
      *) diff -u --label "$f (before)" --label "$f (regenerated)" "$snap/$f" "$f" || true ;;
    esac
  done
  echo "docs-regen: ${#changed[@]} file(s) regenerated differ from what they held: ${changed[*]}" >&2
  echo "docs-regen: read the diff above, then commit the files (the documents now say what the code does)" >&2
  rc=1
else
  echo "docs-regen: every regenerated figure and example is what the documents say" >&2
fi
exit "$rc"
