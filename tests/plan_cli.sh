#!/usr/bin/env bash
# The plan command spread over MPI ranks: `mpirun -n 2 dlrmsim plan` must give the same points
# file, Pareto front CSV and report (winner, front, pruned count) as the threaded run of the
# same space, and leave no part files behind. Skipped (with a message) when mpirun is absent.
# The MPI run writes its target as "15 M samples/s", the threaded one as 15e6: the same rate.
# Usage: plan_cli.sh DLRMSIM SPACE_FILE
set -euo pipefail
dlrmsim=$1
space=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

if ! command -v mpirun >/dev/null; then
  echo "mpirun not found: the MPI path of plan not checked"
  exit 0
fi
"$dlrmsim" plan "$space" --throughput 15e6 --samples 1e9 -o "$dir/threads.csv" --front "$dir/threads_front.csv" \
  -j 2 --quiet > "$dir/threads.txt"
grep -q "cheapest" "$dir/threads.txt" || { echo "the threaded plan found no winner"; cat "$dir/threads.txt"; exit 1; }
# As tests/sweep_cli.sh: leak checking off for the ranks only (Open MPI's plugins leak at
# MPI_Finalize), and root allowed (CI containers run as root).
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
  mpirun --oversubscribe -n 2 --mca btl self,vader "$dlrmsim" plan "$space" --throughput "15 M samples/s" --samples 1e9 \
  -o "$dir/mpi.csv" --front "$dir/mpi_front.csv" --quiet > "$dir/mpi.txt" 2> "$dir/mpi.err"
grep -q "over 2 MPI ranks" "$dir/mpi.err" || { echo "the points were not spread over 2 ranks"; cat "$dir/mpi.err"; exit 1; }
cmp "$dir/threads.csv" "$dir/mpi.csv"
cmp "$dir/threads_front.csv" "$dir/mpi_front.csv"
# Rank 0 alone reports: one report, identical to the threaded one (winner, front, pruned count).
diff "$dir/threads.txt" "$dir/mpi.txt"
if ls "$dir" | grep -q part; then echo "part files left behind"; exit 1; fi
echo "plan CLI: mpirun -n 2 and -j 2 give identical points, front and report"
