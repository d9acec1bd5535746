#!/usr/bin/env bash
# A plan made by `dlrmsim place --json` and fed back as `placement.policy: explicit` is the same
# plan (tables and devices of the JSON identical) and gives the same prediction; the plan file
# is an input no output may replace. The shipped TorchRec plan (configs/plans/torchrec_example_plan.json)
# places its scenario; an unknown compute kernel in it exits 2 naming the file and the kernels.
# A plan written by --torchrec-json reads back as the same plan.
# Usage: explicit_placement_cli.sh DLRMSIM SOURCE_DIR
set -uo pipefail
dlrmsim=$1
src=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failed=0
scenario=$src/configs/scenarios/default.yaml
explicit=(--set placement.policy=explicit --set "placement.plan=$dir/plan.json")
"$dlrmsim" place "$scenario" --json "$dir/plan.json" >/dev/null || { echo "FAIL place --json"; exit 1; }
"$dlrmsim" place "$scenario" "${explicit[@]}" --json "$dir/again.json" >/dev/null || { echo "FAIL place with the plan fed back"; exit 1; }
same=$(python3 - "$dir/plan.json" "$dir/again.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
print("same" if a["tables"] == b["tables"] and a["devices"] == b["devices"] else "different")
PY
)
[ "$same" = same ] || { echo "FAIL the plan fed back is not the same plan"; failed=1; }
want=$("$dlrmsim" run "$scenario" | grep -E '^(throughput|step time)')
got=$("$dlrmsim" run "$scenario" "${explicit[@]}" | grep -E '^(throughput|step time)')
[ "$want" = "$got" ] || { echo "FAIL run: '$got' with the plan, '$want' without"; failed=1; }
err=$("$dlrmsim" run "$scenario" "${explicit[@]}" --json "$dir/plan.json" 2>&1 >/dev/null)
[ $? -eq 2 ] && [[ "$err" == *"is the input file"* ]] || { echo "FAIL run --json over the plan file: $err"; failed=1; }
torchrec=(--set placement.policy=explicit --set "placement.plan=$dir/torchrec.json")
p4d=$src/configs/scenarios/torchrec_dlrm_p4d.yaml
cp "$src/configs/plans/torchrec_example_plan.json" "$dir/torchrec.json"
"$dlrmsim" place "$p4d" "${torchrec[@]}" >/dev/null || { echo "FAIL place with the TorchRec example plan"; failed=1; }
sed -i '0,/"fused"/s//"fused_ssd"/' "$dir/torchrec.json"
err=$("$dlrmsim" place "$p4d" "${torchrec[@]}" 2>&1 >/dev/null)
[ $? -eq 2 ] && [[ "$err" == *"torchrec.json:"*"unknown TorchRec compute_kernel 'fused_ssd'"*"fused_uvm_caching"* ]] ||
  { echo "FAIL an unknown TorchRec kernel: $err"; failed=1; }
# The plan exported as TorchRec's (--torchrec-json) and read back is the same plan; --json
# carries the planner statistics (per owner and per table); '-' sends the TorchRec JSON alone.
"$dlrmsim" place "$p4d" --torchrec-json "$dir/exported.json" --json "$dir/p4d.json" >/dev/null ||
  { echo "FAIL place --torchrec-json"; failed=1; }
exported=(--set placement.policy=explicit --set "placement.plan=$dir/exported.json")
"$dlrmsim" place "$p4d" "${exported[@]}" --json "$dir/p4d_again.json" >/dev/null ||
  { echo "FAIL place with the exported TorchRec plan"; failed=1; }
same=$(python3 - "$dir/p4d.json" "$dir/p4d_again.json" "$dir/exported.json" <<'PY'
import json, sys
a, b, t = (json.load(open(p)) for p in sys.argv[1:4])
ok = a["tables"] == b["tables"] and a["devices"] == b["devices"]
st = a["statistics"]
ok = ok and len(st["owners"]) == len(a["devices"]) and len(st["tables"]) == len(a["tables"])
ok = ok and all(k in st["owners"][1] for k in ("hbm_bytes", "dram_bytes", "forward_compute_s", "backward_comms_s", "sent_bytes", "received_bytes"))
ok = ok and st["imbalance"][0]["max_over_mean"]["hbm_bytes"] >= 1.0
ok = ok and list(t) == ["sparse_arch.embedding_bag_collection"] and len(t["sparse_arch.embedding_bag_collection"]) == len(a["tables"])
print("same" if ok else "different")
PY
)
[ "$same" = same ] || { echo "FAIL the exported TorchRec plan read back is not the same plan, or no statistics"; failed=1; }
"$dlrmsim" place "$p4d" --torchrec-json - | python3 -c 'import json, sys; json.load(sys.stdin)' ||
  { echo "FAIL --torchrec-json - is not JSON alone"; failed=1; }
# run --json carries the same statistics as place --json, under placement.statistics.
"$dlrmsim" run "$p4d" --json "$dir/run.json" >/dev/null || { echo "FAIL run --json"; failed=1; }
python3 - "$dir/run.json" "$dir/p4d.json" <<'PY' || { echo "FAIL run --json: placement.statistics differs from place --json's"; failed=1; }
import json, sys
run, place = (json.load(open(p)) for p in sys.argv[1:3])
a, b = run["placement"]["statistics"], place["statistics"]
assert [o["name"] for o in a["owners"]] == [o["name"] for o in b["owners"]]
assert all(abs(x["total_s"] - y["total_s"]) <= 1e-9 * max(1e-30, abs(y["total_s"])) for x, y in zip(a["owners"], b["owners"]))
assert [t["compute_kernel"] for t in a["tables"]] == [t["compute_kernel"] for t in b["tables"]]
PY
# A table in host DRAM has no TorchRec kernel: exit 2 naming it, and no file written.
err=$("$dlrmsim" place "$scenario" --set placement.policy=all_host --set 'placement.tiers=[host_dram]' \
      --torchrec-json "$dir/host.json" 2>&1 >/dev/null)
[ $? -eq 2 ] && [[ "$err" == *"is on tier host_dram, which TorchRec has no compute kernel for"* ]] && [ ! -e "$dir/host.json" ] ||
  { echo "FAIL --torchrec-json of a host_dram plan: $err"; failed=1; }
text=$("$dlrmsim" place "$p4d")
[[ "$text" == *"planner statistics"*"imbalance (max / mean)"*"pooling"*"kernel"* ]] ||
  { echo "FAIL place prints no planner statistics"; failed=1; }
[ "$failed" -eq 0 ] && echo "place --json fed back: the same plan, $got"
exit "$failed"
