#include "tools/distributed_sweep.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <optional>
#include <stdexcept>

#include "common/files.hpp"
#include "tools/commands.hpp"

#ifdef DLRMSIM_WITH_MPI
#include <mpi.h>
#endif

namespace dlrmsim::tools {

using app::check_result_path;
using app::collect_sweep_csv;
using app::finished_points;
using app::PointRunner;
using app::points_to_run;
using app::run_points;
using app::Sweep;
using app::sweep_header;
using app::SweepOptions;

bool under_mpi() { return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMI_SIZE") != nullptr; }

#ifdef DLRMSIM_WITH_MPI
DistributedSweep run_sweep_distributed(const Sweep& sweep, const PointRunner& runner,
                                       const std::vector<std::string>& output_columns, const SweepOptions& options) {
  MPI_Init(nullptr, nullptr);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  DistributedSweep result;
  result.root = rank == 0;
  result.ranks = ranks;
  const std::string header = sweep_header(sweep, output_columns);
  auto part = [&](int r) { return options.output_path + ".part" + std::to_string(r); };
  std::vector<std::string> parts;
  for (int r = 0; r < ranks; ++r) parts.push_back(part(r));
  int ok = 1;
  std::optional<OutputLock> lock;  // rank 0 holds the result file's lock for the whole run
  if (rank == 0) {
    try {
      lock.emplace(options.output_path);
      // Rows a previous, interrupted run left in part files are kept when resuming.
      if (!options.resume) {
        for (const auto& p : parts) std::remove(p.c_str());
        std::remove(options.output_path.c_str());
      }
      check_result_path(options.output_path);
      collect_sweep_csv(options.output_path, options.resume ? parts : std::vector<std::string>{}, sweep,
                        output_columns);
    } catch (const OutputError& e) {
      std::cerr << "error: " << e.what() << "\n";
      ok = -1;
    } catch (const std::exception& e) {
      std::cerr << "error: " << e.what() << "\n";
      ok = 0;
    }
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (ok != 1) {
    MPI_Finalize();
    result.status = ok == -1 ? kExitOutputFailed : kExitBadInput;
    return result;
  }
  const auto finished = finished_points(options.output_path, sweep, output_columns);
  {
    std::FILE* f = std::fopen(part(rank).c_str(), "wb");
    if (f) {
      std::fprintf(f, "%s\n", header.c_str());
      std::fclose(f);
    }
  }
  SweepOptions local = options;
  if (rank != 0) local.on_point = nullptr;  // one progress line, rank 0's
  unsigned long long failed =
      run_points(sweep, points_to_run(sweep, finished, rank, ranks), runner, output_columns, part(rank), local);
  MPI_Reduce(&failed, &result.failed, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  // An error while collecting (an unwritable output) still ends MPI before it propagates.
  std::exception_ptr error;
  if (rank == 0) {
    try {
      result.summary = collect_sweep_csv(options.output_path, parts, sweep, output_columns);
    } catch (...) {
      error = std::current_exception();
    }
  }
  MPI_Finalize();
  if (error) std::rethrow_exception(error);
  return result;
}
#else
DistributedSweep run_sweep_distributed(const Sweep&, const PointRunner&, const std::vector<std::string>&,
                                       const SweepOptions&) {
  throw std::invalid_argument("this dlrmsim was built without MPI (install libopenmpi-dev and rebuild)");
}
#endif

}  // namespace dlrmsim::tools
