#!/usr/bin/env bash
# Runs every shipped validation case (validation/cases/). The command must evaluate each
# case (exit 0: all within tolerance, 5: some outside, reported in the table); a malformed
# case, a scenario that fails to load or a crash (any other exit status) fails this test. The
# table's figures are pinned by test_validation_cases.cpp (against validation/expected.json),
# not here.
# Usage: validate_cli.sh DLRMSIM CASES_DIR
set -uo pipefail
dlrmsim=$1
cases=$2
out=$(mktemp)
trap 'rm -f "$out" "$out.svg"' EXIT
"$dlrmsim" validate "$cases" --json "$out" --plot "$out.svg"
rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 5 ] || { echo "dlrmsim validate exited with $rc"; exit 1; }
expected=$(ls "$cases"/*.yaml | wc -l)
found=$(grep -c '"case":' "$out")
[ "$found" -eq "$expected" ] || { echo "expected $expected cases in the JSON, found $found"; exit 1; }
grep -q '"failure"' "$out" && { echo "a case could not be evaluated"; grep '"failure"' "$out"; exit 1; }
grep -q '<circle' "$out.svg" || { echo "the plot has no points"; exit 1; }
echo "validate: $found cases evaluated (exit $rc)"
