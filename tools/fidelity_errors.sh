#!/bin/bash
# The representative node's error against every node: DLRM-DCNv2 (the shipped scenarios, as
# shipped: NCCL's latencies on) cut to N trainer nodes, 6 warm-up and 4 measured steps, run
# with training.nodes=representative and =all. Prints one row per (fabric, nodes):
#   fabric oversubscription nodes representative_step_s every_node_step_s error_percent
# The rows are models/representative_error.cpp's table; tests/test_representative_error.cpp
# re-measures the rows of 64 nodes and fewer.
# usage: tools/fidelity_errors.sh DLRMSIM [MAX_NODES]
set -euo pipefail
dlrmsim=$1
max=${2:-512}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
step() {  # scenario nodes fidelity -> step time in seconds
  "$dlrmsim" run "$root/configs/scenarios/$1.yaml" --quiet --set "platform.cluster.groups.0.count=$2" \
    --set run.warmup_steps=6 --set run.steps=4 --set "training.nodes=$3" --json "$tmp/r.json" >/dev/null
  python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['step_time_s'])" "$tmp/r.json"
}
row() {  # label oversubscription scenario nodes
  [ "$4" -le "$max" ] || return 0
  local rep all
  rep=$(step "$3" "$4" representative)
  all=$(step "$3" "$4" all)
  python3 -c "import sys; r,a=float(sys.argv[3]),float(sys.argv[4]); print(f'{sys.argv[1]} {sys.argv[2]} {sys.argv[5]} {r:.7g} {a:.7g} {100*(r/a-1):+.2f}')" \
    "$1" "$2" "$rep" "$all" "$4"
}
for n in 8 16 64 128 256 512; do row rail_optimized 1 dcnv2_superpod_4096gpu "$n"; done
for n in 16 64 128; do row fat_tree 2 goodput_dcnv2_512gpu "$n"; done
