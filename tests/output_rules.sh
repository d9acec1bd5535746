#!/usr/bin/env bash
# Outputs never destroy inputs: every output option of every command that names a file the
# command reads (by another spelling, through a symbolic link, as a hard link) or the same
# file as another output of the run is refused with exit status 2 before anything runs, and
# every input is left byte for byte as it was. An empty output path is refused too.
# Usage: output_rules.sh DLRMSIM SOURCE_DIR
set -uo pipefail
dlrmsim=$1
src=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
failed=0

# A scenario whose platform, model and software are files beside it, a sweep of it with a
# platform axis, a planning space on it, a validation case, a CSV to plot.
cp "$src/configs/platforms/dgx-h100.yaml" platform.yaml
cp "$src/configs/platforms/dgx-h100.yaml" platform2.yaml
cp "$src/configs/models/dlrm_dcnv2_criteo_4tb.yaml" model.yaml
cp "$src/configs/software/hugectr-ngc23.04.yaml" software.yaml
cat > s.yaml <<EOF
name: rules
platform: platform.yaml
model: model.yaml
software: software.yaml
training: {mode: hybrid_parallel_sync}
placement: {policy: cost_greedy, tiers: [gpu_hbm]}
run: {warmup_steps: 1, steps: 1, calibration: $src/configs/calibration}
EOF
cp s.yaml b.yaml
cat > sweep.yaml <<EOF
base: s.yaml
axes:
  - key: platform
    values: [platform.yaml, platform2.yaml]
EOF
cat > space.yaml <<EOF
base:
  name: space
  platform: platform.yaml
  model: model.yaml
  training: {mode: hybrid_parallel_sync}
  placement: {policy: cost_greedy, tiers: [gpu_hbm]}
  cost: {pue: 1.2, energy_price: 0.12 USD/kWh}
  run: {warmup_steps: 1, steps: 1, calibration: $src/configs/calibration}
axes:
  - key: model.global_batch_size
    values: [55296]
EOF
mkdir cases
cat > cases/one.yaml <<EOF
case: the scenario's throughput
source: "the output-rules test"
kind: value
scenario: $dir/s.yaml
published: 1.45e7
tolerance: 0.5
EOF
# A platform that takes its node template from another file, whose CPU sockets name a CPU
# profile, with its own copy of the calibration directory: files the run reads that the
# scenario does not name.
mkdir plat
cp "$src/configs/platforms/dgx-h100.yaml" "$src/configs/platforms/dgx-h200.yaml" plat/
cp -r "$src/configs/calibration" calibration
cat > h.yaml <<EOF
name: rules-h200
platform: plat/dgx-h200.yaml
model: model.yaml
software: software.yaml
training: {mode: hybrid_parallel_sync}
placement: {policy: cost_greedy, tiers: [gpu_hbm]}
run: {warmup_steps: 1, steps: 1, calibration: calibration}
EOF
printf 'x,y\n1,10\n2,20\n' > r.csv
ln -s r.csv r.svg
ln -s model.yaml model-link.json
ln platform.yaml platform-hard.json
sums=$(sha256sum ./*.yaml cases/*.yaml plat/*.yaml calibration/*.yaml r.csv)

# expect STATUS MESSAGE-SUBSTRING ARGS...: dlrmsim's exit status and standard error.
expect() {
  local status=$1 message=$2
  shift 2
  local err got
  err=$(timeout 120 "$dlrmsim" "$@" 2>&1 >/dev/null)
  got=$?
  if [ "$got" -ne "$status" ] || [[ "$err" != *"$message"* ]]; then
    echo "FAIL dlrmsim $*: exit $got (expected $status), stderr: $err (expected to contain: $message)"
    failed=1
  else
    echo "ok   dlrmsim $*"
  fi
}

input="is the input file"
# run: each output over the scenario or a file it names, by another spelling or a link.
expect 2 "--json $input 's.yaml'" run s.yaml --json s.yaml
expect 2 "--trace $input 'platform.yaml'" run s.yaml --trace ./platform.yaml
expect 2 "--json $input 'model.yaml'" run s.yaml --json model-link.json
expect 2 "--json $input 'platform.yaml'" run s.yaml --json platform-hard.json
expect 2 "--steps-csv $input 'software.yaml'" run s.yaml --steps-csv "$dir/software.yaml"
expect 2 "--goodput-csv $input 'model.yaml'" run s.yaml --goodput-csv model.yaml
# ... or over a file the platform's loading reads (a node template's file, a CPU profile) or
# the GPU's device profile in the calibration directory.
expect 2 "--json $input 'plat/dgx-h100.yaml'" run h.yaml --json plat/dgx-h100.yaml
expect 2 "--trace $input 'calibration/cpu-amd-epyc-zen5-2cpu.yaml'" run h.yaml --trace calibration/cpu-amd-epyc-zen5-2cpu.yaml
expect 2 "--json $input 'calibration/h200.yaml'" place h.yaml --json calibration/h200.yaml
expect 2 "the page (-o) $input 'calibration/h200.yaml'" report h.yaml -o calibration/h200.yaml
# Two outputs of one run on one file, or both on standard output; an empty path.
expect 2 "--trace and --json name the same file" run s.yaml --json out.json --trace ./out.json
expect 2 "--trace and --json both name standard output" run s.yaml --json - --trace -
expect 2 "--json: an empty file name" run s.yaml --json ''
expect 2 "--trace: an empty file name" run s.yaml --trace ''
# place, platform, compare, validate, plot, report, plan, sweep.
expect 2 "--json $input 's.yaml'" place s.yaml --json s.yaml
expect 2 "--json $input 'platform.yaml'" platform platform.yaml --json platform.yaml
expect 2 "--dot $input 'platform.yaml'" platform platform.yaml --dot platform-hard.json
expect 2 "--dot: an empty file name" platform platform.yaml --dot ''
expect 2 "--json $input 'model.yaml'" compare s.yaml b.yaml --json model.yaml
expect 2 "--json $input" validate cases --json cases/one.yaml
expect 2 "-o $input 'r.csv'" plot r.csv --x x --y y -o r.svg
expect 2 "the page (-o) $input 'platform.yaml'" report s.yaml -o platform.yaml
expect 2 "--front $input 'space.yaml'" plan space.yaml -o points.csv --front space.yaml --throughput 1
expect 2 "--front and the points file (-o) name the same file" plan space.yaml -o points.csv --front points.csv --throughput 1
expect 2 "the result file (-o) $input 'software.yaml'" sweep sweep.yaml -o software.yaml
expect 2 "the result file (-o) $input 'platform2.yaml'" sweep sweep.yaml -o platform2.yaml

if [ "$sums" != "$(sha256sum ./*.yaml cases/*.yaml plat/*.yaml calibration/*.yaml r.csv)" ]; then
  echo "FAIL an input changed"
  failed=1
fi
for f in out.json points.csv; do
  [ -e "$f" ] && { echo "FAIL $f was written by a refused command"; failed=1; }
done
[ "$failed" -eq 0 ] && echo "every output over an input was refused"
exit "$failed"
