#!/usr/bin/env bash
# Two sweeps writing one result file: the second is refused (exit status 4, "another process
# is writing it") while the first runs, and the first ends with every row. A result file
# removed while a sweep appends to it is an error (exit status 4), not a header-only file
# and exit status 0. Once two sweeps on one file both printed "200 points, 0 failed" and
# left 112 to 197 rows.
# Usage: sweep_lock.sh DLRMSIM SOURCE_DIR
set -uo pipefail
dlrmsim=$1
src=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
failed=0

# 600 points of the default scenario (about 15 ms each on one thread: several seconds).
cat > sweep.yaml <<YAML
base: $src/configs/scenarios/default.yaml
axes:
  - key: model.global_batch_size
    range: {from: 8192, to: 46528, step: 64}
YAML

# wait_for_rows FILE: until the sweep writing FILE has appended a row (at most 60 s).
wait_for_rows() {
  for _ in $(seq 600); do
    [ -f "$1" ] && [ "$(wc -l < "$1")" -ge 2 ] && return 0
    sleep 0.1
  done
  return 1
}

"$dlrmsim" sweep sweep.yaml -o out.csv -q 2>first.err &
first=$!
wait_for_rows out.csv || { echo "FAIL the first sweep wrote no row"; failed=1; }
"$dlrmsim" sweep sweep.yaml -o out.csv -q 2>second.err
status=$?
if [ "$status" -ne 4 ] || ! grep -q "another process is writing it" second.err; then
  echo "FAIL a second sweep on the same file: exit $status, expected 4; stderr: $(cat second.err)"
  failed=1
fi
"$dlrmsim" sweep sweep.yaml -o ./out.csv --resume -q 2>third.err
status=$?
if [ "$status" -ne 4 ] || ! grep -q "another process is writing it" third.err; then
  echo "FAIL a resumed sweep on the same file: exit $status, expected 4; stderr: $(cat third.err)"
  failed=1
fi
wait "$first"
status=$?
rows=$(($(wc -l < out.csv) - 1))
if [ "$status" -ne 0 ] || [ "$rows" -ne 600 ]; then
  echo "FAIL the first sweep: exit $status and $rows rows, expected 0 and 600; stderr: $(cat first.err)"
  failed=1
fi
[ -e .out.csv.lock ] && { echo "FAIL the lock file is left behind"; failed=1; }

# The same under mpirun (rank 0 holds the lock), when MPI is installed.
if command -v mpirun >/dev/null; then
  "$dlrmsim" sweep sweep.yaml -o mpi.csv -q 2>mpi-first.err &
  first=$!
  wait_for_rows mpi.csv || { echo "FAIL the sweep wrote no row"; failed=1; }
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    mpirun --oversubscribe -n 2 --mca btl self,vader "$dlrmsim" sweep sweep.yaml -o mpi.csv -q >mpi.out 2>mpi.err
  status=$?
  if [ "$status" -ne 4 ] || ! grep -q "another process is writing it" mpi.err; then
    echo "FAIL an MPI sweep on a file being written: exit $status, expected 4; stderr: $(cat mpi.err)"
    failed=1
  fi
  wait "$first" || { echo "FAIL the first sweep: $(cat mpi-first.err)"; failed=1; }
fi

"$dlrmsim" sweep sweep.yaml -o gone.csv -q 2>gone.err &
gone=$!
wait_for_rows gone.csv || { echo "FAIL the sweep wrote no row"; failed=1; }
rm -f gone.csv
wait "$gone"
status=$?
if [ "$status" -ne 4 ] || ! grep -q "removed or replaced while the sweep appended" gone.err; then
  echo "FAIL a result file removed during the sweep: exit $status, expected 4; stderr: $(cat gone.err)"
  failed=1
fi
[ "$failed" -eq 0 ] && echo "one writer per result file; a removed result file is reported"
exit "$failed"
