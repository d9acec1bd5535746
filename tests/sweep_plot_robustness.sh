#!/usr/bin/env bash
# Hostile and careless inputs of `sweep` and `plot` that the error-message suite cannot
# express (devices, directories, file names with shell syntax, outputs that already exist):
# each must end with its exit status and message, create nothing unasked and change no input.
# Usage: sweep_plot_robustness.sh DLRMSIM SOURCE_DIR
set -uo pipefail
dlrmsim=$1
src=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
failed=0

# expect STATUS MESSAGE-SUBSTRING COMMAND...: the command's exit status and stderr.
expect() {
  local status=$1 message=$2
  shift 2
  local err
  err=$(timeout 60 "$@" 2>&1 >/dev/null)
  local got=$?
  if [ "$got" -ne "$status" ] || [[ "$err" != *"$message"* ]]; then
    echo "FAIL: $*: exit $got (expected $status), stderr: $err (expected to contain: $message)"
    failed=1
  fi
}

printf 'x,y\n1,2\n2,4\n' > r.csv

# Unbounded or non-file inputs: refused at once (plot /dev/zero once grew to 11.5 GB).
expect 2 "error: /dev/zero: a device, not a regular file" "$dlrmsim" plot /dev/zero --x x --y y -o out.svg
expect 2 "error: $dir: a directory, not a regular file" "$dlrmsim" plot "$dir" --x x --y y -o out.svg
expect 2 "error: /dev/zero: a device, not a regular file" "$dlrmsim" sweep /dev/zero -o out.csv
[ -e out.svg ] || [ -e out.csv ] && { echo "FAIL: an output was written for a refused input"; failed=1; }

# A PNG named with shell syntax: written under exactly that name, nothing runs, and a file
# "<name>.svg" that was there (once overwritten and deleted) is untouched.
name="a'\$(touch X)'.png"
echo "keep me" > "$name.svg"
if "$dlrmsim" plot r.csv --x x --y y -o "$name" 2>err.txt; then
  [ -e X ] && { echo "FAIL: the shell command in the file name ran"; failed=1; }
  [ "$(head -c 4 "$name" | tail -c 3)" = PNG ] || { echo "FAIL: $name is not a PNG"; failed=1; }
elif ! grep -q "librsvg2-dev" err.txt; then
  echo "FAIL: plot to PNG failed: $(cat err.txt)"
  failed=1
fi
[ "$(cat "$name.svg")" = "keep me" ] || { echo "FAIL: $name.svg was changed"; failed=1; }

# y = +-1e308 (the span overflows a double): drawn without nan or inf; inf rows are counted.
printf 'x,y\n1,1e308\n2,-1e308\n3,inf\n' > huge.csv
expect 0 "warning: 1 rows of huge.csv have an x or y value that is not a finite number" \
  "$dlrmsim" plot huge.csv --x x --y y -o huge.svg
grep -qiE 'nan|inf' huge.svg && { echo "FAIL: huge.svg holds nan or inf"; failed=1; }

# A sweep whose every point fails (a misspelt key on its only axis) is bad input, not success.
cat > misspelt.yaml <<YAML
base: $src/configs/scenarios/default.yaml
axes:
  - key: model.global_batch_sise
    values: [27648, 55296]
YAML
expect 2 "error: every point of the sweep failed (2 errors, 0 infeasible); the first, point 0:" \
  "$dlrmsim" sweep misspelt.yaml -o misspelt.csv
[ "$(wc -l < misspelt.csv)" -eq 3 ] || { echo "FAIL: expected the 2 error rows in misspelt.csv"; failed=1; }

# Result files that are not regular files: exit 4 naming the path (--resume into a
# directory once ended in "internal error").
mkdir outdir
expect 4 "error: outdir: cannot write the output: it is a directory" "$dlrmsim" sweep misspelt.yaml -o outdir --resume
expect 4 "error: /dev/full: cannot write the output: it is not a regular file" "$dlrmsim" sweep misspelt.yaml -o /dev/full

# -o naming an input: refused; the input is unchanged.
cp "$src/configs/scenarios/default.yaml" base.yaml
sed "s|base: .*|base: base.yaml|" misspelt.yaml > own.yaml
before=$(md5sum base.yaml own.yaml)
expect 2 "the result file (-o) is the input file 'own.yaml'" "$dlrmsim" sweep own.yaml -o own.yaml
expect 2 "the result file (-o) is the input file 'base.yaml'" "$dlrmsim" sweep own.yaml -o ./base.yaml
[ "$(md5sum base.yaml own.yaml)" = "$before" ] || { echo "FAIL: an input file changed"; failed=1; }

[ "$failed" -eq 0 ] && echo "sweep and plot robustness: all as expected"
exit "$failed"
