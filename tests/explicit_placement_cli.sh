#!/usr/bin/env bash
# A plan made by `dlrmsim place --json` and fed back as `placement.policy: explicit` is the same
# plan (tables and devices of the JSON identical) and gives the same prediction; the plan file
# is an input no output may replace. The shipped TorchRec plan (configs/plans/torchrec_example_plan.json)
# places its scenario; an unknown compute kernel in it exits 2 naming the file and the kernels.
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
[ "$failed" -eq 0 ] && echo "place --json fed back: the same plan, $got"
exit "$failed"
