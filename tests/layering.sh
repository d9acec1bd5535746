#!/usr/bin/env bash
# The include graph against the project's layer table (below): every
# `#include "FOLDER/..."` in a library folder must name the folder itself, common/ (which
# every layer sits on) or a folder that the table's "may use" column lists for it. A
# violation is printed as FILE:LINE: the include and the rule it breaks; exit 1.
# validation/, tools/ and tests/ may use everything and are not scanned.
# Usage: layering.sh SOURCE_DIR
set -uo pipefail
root=${1:?usage: layering.sh SOURCE_DIR}

# The layer rule, as "folder | may use" columns: data flows one way (YAML -> specs -> platform
# and placement -> step graph -> engine -> statistics -> report), and no library folder
# includes from a folder above it. app/ may use everything below tools/; the Python module
# reaches the simulator through app/ (and models/ for scenarios) only, and neither app/ nor
# python/ may include tools/. The folder names in backquotes are what counts.
table='
| `common/` | nothing |
| `sim/` | `common/` |
| `topologies/` | `sim/` types only for ids |
| `models/` | `sim/`, `topologies/`, `placement/` |
| `placement/` | `topologies/` |
| `app/` | `sim/`, `topologies/`, `models/`, `placement/`, `validation/` |
| `python/` | `app/`, `models/` |
'

declare -A allowed
folders=()
while IFS='|' read -r _ folder uses _; do
  folder=$(grep -o '`[a-z_]*/`' <<<"$folder" | tr -d '`/')
  [ -n "$folder" ] || continue
  folders+=("$folder")
  list=" $folder "
  [ "$folder" = common ] || list+="common "
  for f in $(grep -o '`[a-z_]*/`' <<<"$uses" | tr -d '`/'); do
    [[ "$list" == *" $f "* ]] || list+="$f "
  done
  allowed[$folder]=$list
done <<<"$table"
[ "${#folders[@]}" -eq 7 ] || { echo "layering.sh: the table has ${#folders[@]} rows, expected 7"; exit 1; }

status=0
scanned=0
for folder in "${folders[@]}"; do
  [ -d "$root/$folder" ] || { echo "layering.sh: no folder $root/$folder"; exit 1; }
  while IFS= read -r -d '' file; do
    scanned=$((scanned + 1))
    while IFS=: read -r line text; do
      target=$(sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([A-Za-z0-9_]+)\/.*/\1/' <<<"$text")
      [ -d "$root/$target" ] || continue  # not a project folder (a system or library header)
      if [[ "${allowed[$folder]}" != *" $target "* ]]; then
        echo "${file#"$root"/}:$line: includes \"$target/...\"; $folder/ may use only${allowed[$folder]% }"
        status=1
      fi
    done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[A-Za-z0-9_]+/' "$file")
  done < <(find "$root/$folder" -type f \( -name '*.hpp' -o -name '*.cpp' -o -name '*.h' -o -name '*.cu' \) -print0)
done
[ "$scanned" -gt 0 ] || { echo "layering.sh: no source files found under $root"; exit 1; }
[ "$status" -eq 0 ] && echo "layering: $scanned files, every include follows the layer table"
exit $status
