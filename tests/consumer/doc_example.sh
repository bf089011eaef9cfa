#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# docs/API.md quotes docs/examples/api_example.c verbatim: the ```c block that
# follows the line naming the file must equal the file, byte for byte, apart
# from the file's SPDX line (scripts/spdx.sh), which the document leaves out.
# Usage: doc_example.sh docs/API.md docs/examples/api_example.c
set -euo pipefail
doc=$1 file=$2
marker="<!-- verbatim: docs/examples/$(basename "$file") -->"
quoted=$(awk -v m="$marker" '
  $0 == m { armed = 1; next }
  armed && !inside && /^```c$/ { inside = 1; next }
  inside && /^```$/ { exit }
  inside { print }' "$doc")
if [[ -z $quoted ]]; then
  echo "FAIL: $doc has no \`\`\`c block after the line $marker"
  exit 1
fi
if diff -u --label "$file" --label "$doc (quoted)" <(sed '1{/SPDX-License-Identifier/d}' "$file") \
     <(printf '%s\n' "$quoted"); then
  echo "ok: $doc quotes $file verbatim"
else
  echo "FAIL: $doc's example differs from $file (copy the file into the document)"
  exit 1
fi
