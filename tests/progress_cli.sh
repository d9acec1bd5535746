#!/usr/bin/env bash
# The progress line of `dlrmsim sweep`, `dlrmsim validate` and a long `dlrmsim run`
# (tools/progress.hpp):
#  - standard error redirected to a file receives no progress text at all (logs and scripts
#    see only the final summary);
#  - on a terminal (a pseudo-terminal made by util-linux `script`), a sweep that runs for
#    more than a second shows "N/6 points ... points/s";
#  - on the same terminal, --quiet silences it.
# Usage: progress_cli.sh DLRMSIM SOURCE_DIR
set -euo pipefail
dlrmsim=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# 6 points of the default scenario with 1000 measured steps each (all simulated:
# run.stop_when_steady false), one at a time: about half a second a point on this project's
# machines, so over kProgressDelay (1 s) anywhere.
cat >"$tmp/sweep.yaml" <<YAML
base: $src/configs/scenarios/default.yaml
axes:
  - key: model.global_batch_size
    values: [6912, 13824, 27648, 41472, 55296, 69120]
  - key: run.steps
    values: [1000]
  - key: run.stop_when_steady
    values: [false]
YAML

# Not a terminal: nothing but the summary line.
"$dlrmsim" sweep "$tmp/sweep.yaml" -j 1 -o "$tmp/a.csv" 2>"$tmp/err"
[ "$(cat "$tmp/err")" = "6 points, 0 failed; results in $tmp/a.csv" ] || fail "redirected stderr got: $(cat -A "$tmp/err")"
"$dlrmsim" validate "$src/validation/cases" >/dev/null 2>"$tmp/err" || [ $? -eq 5 ]
grep -q 'cases/s' "$tmp/err" && fail "validate wrote progress to a file: $(cat -A "$tmp/err")"

# A terminal: the progress line shows, and --quiet removes it.
command -v script >/dev/null || fail "util-linux 'script' is needed for the terminal case"
script -qec "'$dlrmsim' sweep '$tmp/sweep.yaml' -j 1 -o '$tmp/b.csv'" "$tmp/tty.log" >/dev/null
grep -qE '[0-9]+/6 points  [0-9.]+ points/s' "$tmp/tty.log" || fail "no progress on a terminal: $(cat -A "$tmp/tty.log")"
script -qec "'$dlrmsim' sweep '$tmp/sweep.yaml' -j 1 -o '$tmp/c.csv' --quiet" "$tmp/quiet.log" >/dev/null
grep -q 'points/s' "$tmp/quiet.log" && fail "--quiet still shows progress: $(cat -A "$tmp/quiet.log")"
grep -q '6 points, 0 failed' "$tmp/quiet.log" || fail "--quiet lost the summary: $(cat -A "$tmp/quiet.log")"
cmp -s "$tmp/a.csv" "$tmp/b.csv" || fail "the result differs with progress shown"

# One long run (60 warm-up and 60 measured steps of the 4096-GPU DCNv2 scenario, about
# 4 s of CPU here; each step of the representative node has one flow per remote node): its simulated steps
# on a terminal, counted as 122 = 60 warm-up + 60 measured + 2 cool-down (models/simulation.cpp
# kCooldownSteps), nothing on redirected standard error, nothing with --quiet; same report.
"$dlrmsim" run "$src/configs/scenarios/dcnv2_superpod_4096gpu.yaml" --set run.steps=60 --set run.warmup_steps=60 --set run.stop_when_steady=false >"$tmp/run_a.txt" 2>"$tmp/err"
[ -s "$tmp/err" ] && fail "run wrote to redirected stderr: $(cat -A "$tmp/err")"
script -qec "'$dlrmsim' run '$src/configs/scenarios/dcnv2_superpod_4096gpu.yaml' --set run.steps=60 --set run.warmup_steps=60 --set run.stop_when_steady=false" "$tmp/run_tty.log" >/dev/null
grep -qE '[0-9]+/122 steps \(60 warm-up, 60 measured, 2 cool-down\)  [0-9.]+ steps/s' "$tmp/run_tty.log" ||
  fail "run shows no progress naming its 122 steps on a terminal: $(cat -A "$tmp/run_tty.log" | tail -3)"
grep -q "$(grep '^throughput' "$tmp/run_a.txt")" "$tmp/run_tty.log" || fail "run's report differs with progress shown"
script -qec "'$dlrmsim' run '$src/configs/scenarios/dcnv2_superpod_4096gpu.yaml' --set run.steps=60 --set run.warmup_steps=60 --set run.stop_when_steady=false --quiet" "$tmp/run_quiet.log" >/dev/null
grep -q 'steps/s' "$tmp/run_quiet.log" && fail "run --quiet still shows progress"
echo "progress: silent when redirected and with --quiet, shown on a terminal"
