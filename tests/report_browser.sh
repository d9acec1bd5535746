#!/usr/bin/env bash
# `dlrmsim report` in a real browser (Debian's chromium, headless): the pages of the default
# scenario, of scenarios with goodput, stragglers (512 GPUs) and two jobs, of a saved run's JSON and of a
# sweep's CSV file load with no console message (no script error,
# no blocked resource: the page is self-contained), the page's script ran (it marks <body
# data-rendered="yes">), a screenshot is not blank (tests/png_not_blank.py), and the page's
# sections (step time, utilisation, memory, power, cost, placement, planner statistics; goodput, stragglers, one per job) are
# there and none is empty. The checks
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

# check_sections PAGE ID...: after check_page, the page's script found each section ID on
# the page, and no section without a table cell or a drawn bar (data-empty-sections).
check_sections() {
  local page=$1 name id sections
  name=$(basename "$page" .html)
  shift
  sections=$(sed -n 's/.*data-sections="\([^"]*\)".*/\1/p' "$tmp/$name.dom" | head -1)
  for id in "$@"; do
    [[ " $sections " == *" $id "* ]] || { echo "$page: no section '$id' (sections: $sections)"; return 1; }
  done
  grep -q 'data-empty-sections=""' "$tmp/$name.dom" ||
    { echo "$page: empty sections: $(grep -o 'data-empty-sections="[^"]*"' "$tmp/$name.dom")"; return 1; }
}

"$dlrmsim" report "$src/configs/scenarios/default.yaml" -o "$tmp/scenario.html" || fail "report of a scenario"
"$dlrmsim" report "$src/configs/scenarios/goodput_dcnv2_512gpu.yaml" -o "$tmp/goodput.html" || fail "report with goodput"
"$dlrmsim" report "$src/configs/scenarios/stragglers_dcnv2_64node.yaml" -o "$tmp/stragglers.html" ||
  fail "report with stragglers"
"$dlrmsim" report "$src/configs/scenarios/two_jobs_fat_tree.yaml" -o "$tmp/jobs.html" || fail "report of two jobs"
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
run_sections=(step-time utilisation memory power cost placement-section planner-statistics)
check_sections "$tmp/scenario.html" "${run_sections[@]}" || fail "the scenario's sections"
check_sections "$tmp/saved_run.html" "${run_sections[@]}" || fail "the saved run's sections"
check_page "$tmp/goodput.html" || fail "the goodput page"
check_sections "$tmp/goodput.html" "${run_sections[@]}" goodput || fail "the goodput page's sections"
grep -q 'id="memory-extremes"' "$tmp/goodput.html" || fail "512 GPUs are not summarised per kind"
check_page "$tmp/stragglers.html" || fail "the stragglers page"
check_sections "$tmp/stragglers.html" "${run_sections[@]}" stragglers || fail "the stragglers page's sections"
check_page "$tmp/jobs.html" || fail "the two jobs' page"
check_sections "$tmp/jobs.html" jobs-step-time job-0 job-1 || fail "the two jobs' sections"

# The checks can fail: a script error, and a page that draws nothing.
sed 's|document.body.setAttribute|undefinedFunction(); document.body.setAttribute|' "$tmp/scenario.html" >"$tmp/broken.html"
check_page "$tmp/broken.html" >/dev/null 2>&1 && fail "a page with a script error passed"
printf '<!DOCTYPE html><html><body data-rendered="yes"></body></html>\n' >"$tmp/blank.html"
check_page "$tmp/blank.html" >/dev/null 2>&1 && fail "a blank page passed"
# A page with a section left empty is refused.
sed 's|<section id="cost">|<section id="cost"></section><section id="hollow">|' "$tmp/scenario.html" >"$tmp/hollow.html"
check_page "$tmp/hollow.html" >/dev/null 2>&1 || fail "the page with an empty section did not load"
check_sections "$tmp/hollow.html" "${run_sections[@]}" >/dev/null 2>&1 && fail "a page with an empty section passed"
echo "report: the pages load without console messages, run their script, are not blank and have their sections"
