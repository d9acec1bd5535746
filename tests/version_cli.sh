#!/usr/bin/env bash
# One version, everywhere it is printed: `dlrmsim --version` prints CMakeLists.txt's
# project(VERSION), `run --json` carries it as dlrmsim_version, and CHANGELOG.md's newest
# heading is that version (so a release cannot forget its entry).
# Usage: version_cli.sh DLRMSIM SOURCE_DIR
set -uo pipefail
dlrmsim=$1
src=$2
failed=0
want=$(sed -n 's/^project(dlrmsim VERSION \([0-9.]*\) .*/\1/p' "$src/CMakeLists.txt")
[ -n "$want" ] || { echo "FAIL no project(dlrmsim VERSION ...) in CMakeLists.txt"; exit 1; }
got=$("$dlrmsim" --version)
[ "$got" = "dlrmsim $want" ] || { echo "FAIL --version printed '$got', expected 'dlrmsim $want'"; failed=1; }
json=$("$dlrmsim" run "$src/configs/scenarios/default.yaml" --set run.warmup_steps=1 --set run.steps=1 --json - 2>/dev/null |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["dlrmsim_version"])')
[ "$json" = "$want" ] || { echo "FAIL run --json's dlrmsim_version is '$json', expected '$want'"; failed=1; }
newest=$(sed -n 's/^## \([0-9][0-9.]*\) .*/\1/p' "$src/CHANGELOG.md" | head -1)
[ "$newest" = "$want" ] || { echo "FAIL CHANGELOG.md's newest version is '$newest', expected '$want'"; failed=1; }
[ "$failed" -eq 0 ] && echo "version $want everywhere"
exit "$failed"
