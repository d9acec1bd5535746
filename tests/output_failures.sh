#!/usr/bin/env bash
# Write failures are never ignored: every command, with its output on a full disk (/dev/full,
# where every write fails with ENOSPC) or in a directory that does not exist, must end with
# exit status 4 ("an output could not be written", app/failure.hpp) and a message on
# standard error that names the output (the path given, or "standard output"). Both kinds
# of output are tried: a file option pointing at the full disk, and standard output
# redirected to it. A command that exits 0 here has silently lost its result.
# Usage: output_failures.sh DLRMSIM SOURCE_DIR
set -uo pipefail
dlrmsim=$1
cd "$2" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

# expect_write_failure NAME STDOUT ARGS...: runs `dlrmsim ARGS...` with standard output sent
# to STDOUT and expects exit status 4 and a message naming NAME.
expect_write_failure() {
  local name=$1 stdout=$2
  shift 2
  local message status
  message=$("$dlrmsim" "$@" 2>&1 >"$stdout")
  status=$?
  if [ "$status" -ne 4 ] || [[ "$message" != *"$name"* ]]; then
    echo "FAIL dlrmsim $* >$stdout: exit status $status, expected 4 and a message naming '$name'"
    echo "  message: $message"
    failed=1
  else
    echo "ok   dlrmsim $* >$stdout"
  fi
}

# Inputs: the default scenario (simulates in well under a second), a one-case validation
# directory on it, a small CSV to plot, public GEMM timings to fit.
scenario=configs/scenarios/default.yaml
platform=configs/platforms/dgx-h100.yaml
mkdir "$tmp/cases"
cat > "$tmp/cases/one.yaml" <<EOF
case: the default scenario's throughput
source: "the output-failure test (any figure: only the writing is checked)"
kind: value
scenario: $PWD/$scenario
published: 1.45e7
tolerance: 0.5
EOF
printf 'x,y\n1,10\n2,20\n' > "$tmp/r.csv"
raw=configs/calibration/public/h100-xla-matmul.yaml
# A chart must be named .svg or .png: these names lead to the full disk.
ln -s /dev/full "$tmp/full.svg"
ln -s /dev/full "$tmp/full.png"
missing=$tmp/no-such-directory
stdout=standard\ output

# Programs that only print: their text on a full standard output.
expect_write_failure "$stdout" /dev/full list
expect_write_failure "$stdout" /dev/full --help
expect_write_failure "$stdout" /dev/full run --help

# run: the text summary, the JSON report and the trace, to the full disk, to standard output
# on it, and into a missing directory.
expect_write_failure "$stdout" /dev/full run $scenario
expect_write_failure /dev/full /dev/null run $scenario --json /dev/full
expect_write_failure "$stdout" /dev/full run $scenario --json -
expect_write_failure "$missing/r.json" /dev/null run $scenario --json "$missing/r.json"
expect_write_failure /dev/full /dev/null run $scenario --trace /dev/full
expect_write_failure "$stdout" /dev/full run $scenario --trace -
expect_write_failure "$missing/t.json" /dev/null run $scenario --trace "$missing/t.json"

# place: the plan as text and as JSON.
expect_write_failure "$stdout" /dev/full place $scenario
expect_write_failure /dev/full /dev/null place $scenario --json /dev/full
expect_write_failure "$stdout" /dev/full place $scenario --json -

# platform: the description and the Graphviz graph.
expect_write_failure "$stdout" /dev/full platform $platform
expect_write_failure /dev/full /dev/null platform $platform --dot /dev/full
expect_write_failure "$stdout" /dev/full platform $platform --dot -

# validate: the table, the JSON (to the full disk, to standard output, to a directory, into a
# missing directory) and the chart.
expect_write_failure "$stdout" /dev/full validate "$tmp/cases"
expect_write_failure /dev/full /dev/null validate "$tmp/cases" --json /dev/full
expect_write_failure "$stdout" /dev/full validate "$tmp/cases" --json -
expect_write_failure "$tmp/cases" /dev/null validate "$tmp/cases" --json "$tmp/cases"
expect_write_failure "$missing/v.json" /dev/null validate "$tmp/cases" --json "$missing/v.json"
expect_write_failure "$tmp/full.svg" /dev/null validate "$tmp/cases" --plot "$tmp/full.svg"
expect_write_failure "$missing/v.svg" /dev/null validate "$tmp/cases" --plot "$missing/v.svg"

# sweep: the CSV result (its summary goes to standard error; only --help prints).
expect_write_failure /dev/full /dev/null sweep tests/data/sweep_nine_points.yaml -o /dev/full
expect_write_failure "$missing/s.csv" /dev/null sweep tests/data/sweep_nine_points.yaml -o "$missing/s.csv"
expect_write_failure "$stdout" /dev/full sweep --help

# plot: the chart as SVG and as PNG.
expect_write_failure "$tmp/full.svg" /dev/null plot "$tmp/r.csv" --x x --y y -o "$tmp/full.svg"
expect_write_failure "$tmp/full.png" /dev/null plot "$tmp/r.csv" --x x --y y -o "$tmp/full.png"
expect_write_failure "$missing/p.svg" /dev/null plot "$tmp/r.csv" --x x --y y -o "$missing/p.svg"
expect_write_failure "$stdout" /dev/full plot --help

# fit-profile: the profile (to the full disk, into a missing directory, to standard output)
# and the fit report on standard output.
expect_write_failure /dev/full /dev/null fit-profile $raw -o /dev/full
expect_write_failure "$missing/p.yaml" /dev/null fit-profile $raw -o "$missing/p.yaml"
expect_write_failure "$stdout" /dev/full fit-profile $raw -o -
expect_write_failure "$stdout" /dev/full fit-profile $raw -o "$tmp/p.yaml"
expect_write_failure "$stdout" /dev/full fit-profile --help

# report: the page (to the full disk, into a missing directory, to standard output), its help,
# and the completion script.
expect_write_failure /dev/full /dev/null report $scenario -o /dev/full
expect_write_failure "$missing/page.html" /dev/null report $scenario -o "$missing/page.html"
expect_write_failure "$stdout" /dev/full report $scenario -o -
expect_write_failure "$stdout" /dev/full report --help
expect_write_failure "$stdout" /dev/full completion bash
expect_write_failure "$stdout" /dev/full list --paths

# A failed write leaves nothing behind: no temporary file beside the target.
leftovers=$(find "$tmp" -name '*.tmp*')
if [ -n "$leftovers" ]; then
  echo "FAIL temporary files left behind: $leftovers"
  failed=1
fi
[ "$failed" -eq 0 ] && echo "every write failure was reported"
exit "$failed"
