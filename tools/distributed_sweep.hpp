// Sweeps spread over MPI ranks, for every command that runs a sweep's points (`dlrmsim
// sweep`, `dlrmsim plan`).
//
// Under mpirun (Open MPI sets OMPI_COMM_WORLD_SIZE, MPICH and Slurm's PMI set PMI_SIZE),
// each rank runs the points whose index modulo the number of ranks is its rank (a static,
// deterministic split: no communication while points run), appending rows to its own part
// file `OUTPUT.partR` next to the output; rank 0 then merges the parts into the one result
// file, sorted by point (collect_sweep_csv), so the file is byte-identical to a threaded
// run's. Ranks share the output's directory, so it must be on a file system they all see.
//
// MPI is linked into the dlrmsim program only (tools/CMakeLists.txt, DLRMSIM_WITH_MPI);
// without it, run_sweep_distributed refuses with a message saying how to build it.
#pragma once

#include <string>
#include <vector>

#include "app/sweep.hpp"

namespace dlrmsim::tools {

/// True when this process was started by mpirun (or another launcher setting PMI_SIZE).
bool under_mpi();

/// What a distributed sweep leaves to the command that ran it.
struct DistributedSweep {
  /// This process is rank 0, the one that collected the result file and alone reports.
  /// Every other rank has nothing left to do and exits with `status`.
  bool root = true;
  int ranks = 1;
  /// kExitOk, or the exit status when preparing the result file failed on rank 0 (its
  /// message is already on stderr; no point was run on any rank).
  int status = 0;
  /// Rank 0: the statuses of every row of the collected result file (all ranks' points).
  app::SweepSummary summary;
  /// Rank 0: the points that failed in this run, summed over the ranks.
  unsigned long long failed = 0;
};

/// Initialises MPI, runs this rank's share of `sweep` (see the top of this file; `options`
/// as for app::run_sweep, the progress line on rank 0 only), gathers the rows on rank 0 and
/// finalises MPI. Call once per process, when under_mpi() is true.
DistributedSweep run_sweep_distributed(const app::Sweep& sweep, const app::PointRunner& runner,
                                       const std::vector<std::string>& output_columns,
                                       const app::SweepOptions& options);

}  // namespace dlrmsim::tools
