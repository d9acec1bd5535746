#!/usr/bin/env bash
# `dlrmsim report` in a real browser (Debian's chromium, headless): the pages of the default
# scenario, of a saved run's JSON and of a sweep's CSV file load with no console message (no script error,
# no blocked resource: the page is self-contained), the page's script ran (it marks <body
# data-rendered="yes">), and a screenshot is not blank (tests/png_not_blank.py). The checks
# are shown to fail: a copy of the page with a script error, and a blank page, are refused.
# Exit 77 (skipped) when chromium is not installed (.ci/run installs it).
# Usage: report_browser.sh DLRMSIM SOURCE_DIR PYTHON
set -uo pipefail
dlrmsim=$1
src=$2
python=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
browser=$(command -v chromium || command -v chromium-browser) || { echo "chromium is not installed: skipped"; exit 77; }

# check_page PAGE: 0 when the page loads cleanly, runs its script and draws something.
check_page() {
  local page=$1 name
  name=$(basename "$page" .html)
  # Chromium prints the page's console messages on stderr with --enable-logging=stderr.
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$tmp/profile-$name" \
    --enable-logging=stderr --v=0 --dump-dom "file://$page" >"$tmp/$name.dom" 2>"$tmp/$name.log" ||
    { echo "chromium failed on $page"; cat "$tmp/$name.log"; return 1; }
  if grep -E 'CONSOLE|Uncaught|Refused to|ERR_FILE_NOT_FOUND|net::ERR' "$tmp/$name.log"; then
    echo "$page: the browser reported the lines above"
    return 1
  fi
  grep -q 'data-rendered="yes"' "$tmp/$name.dom" || { echo "$page: the page's script did not run to its end"; return 1; }
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$tmp/profile-$name" \
    --window-size=1100,1400 --screenshot="$tmp/$name.png" "file://$page" >/dev/null 2>&1 ||
    { echo "chromium could not take a screenshot of $page"; return 1; }
  "$python" "$src/tests/png_not_blank.py" "$tmp/$name.png" 0.02
}

"$dlrmsim" report "$src/configs/scenarios/default.yaml" -o "$tmp/scenario.html" || fail "report of a scenario"
"$dlrmsim" run "$src/configs/scenarios/persia_criteo_8v100.yaml" --json "$tmp/run.json" >/dev/null || fail "run --json"
"$dlrmsim" report "$tmp/run.json" -o "$tmp/saved_run.html" || fail "report of a saved run"
"$dlrmsim" sweep "$src/tests/data/sweep_nine_points.yaml" -o "$tmp/sweep.csv" 2>/dev/null || fail "sweep"
"$dlrmsim" report "$tmp/sweep.csv" --x model.global_batch_size --y throughput_samples_per_s --y step_time_s \
  --group platform.node_templates.dgx-h100.devices.0.hbm_bandwidth -o "$tmp/sweep.html" || fail "report of a sweep"
grep -q '<svg' "$tmp/scenario.html" || fail "no inline SVG chart in the page"
grep -Eq '(src|href)="(https?:)?//' "$tmp/scenario.html" && fail "the page refers to the network"
check_page "$tmp/scenario.html" || fail "the scenario's page"
check_page "$tmp/saved_run.html" || fail "the saved run's page"
check_page "$tmp/sweep.html" || fail "the sweep's page"

# The checks can fail: a script error, and a page that draws nothing.
sed 's|document.body.setAttribute|undefinedFunction(); document.body.setAttribute|' "$tmp/scenario.html" >"$tmp/broken.html"
check_page "$tmp/broken.html" >/dev/null 2>&1 && fail "a page with a script error passed"
printf '<!DOCTYPE html><html><body data-rendered="yes"></body></html>\n' >"$tmp/blank.html"
check_page "$tmp/blank.html" >/dev/null 2>&1 && fail "a blank page passed"
echo "report: the three pages load without console messages, run their script and are not blank"
