// dlrmsim sweep SWEEP.yaml -o results.csv [-j N] [--resume]
// dlrmsim plot results.csv --x KEY --y KEY [--group KEY] -o FILE.svg|png
//
// Under mpirun (Open MPI sets OMPI_COMM_WORLD_SIZE), each rank runs the points whose index
// modulo the number of ranks is its rank, appending rows to its own part file next to the
// output; rank 0 then merges the parts into the one result file, sorted by point.
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <thread>

#include <boost/program_options.hpp>
#include <unistd.h>

#include "common/files.hpp"
#include "tools/commands.hpp"
#include "tools/plot.hpp"
#include "tools/progress.hpp"
#include "tools/scenario_runner.hpp"
#include "tools/sweep.hpp"

#ifdef DLRMSIM_WITH_MPI
#include <mpi.h>
#endif

namespace po = boost::program_options;

namespace dlrmsim::tools {
namespace {

/// The exit status of a finished sweep: a sweep in which not one point succeeded is not a
/// success. Every point failing with an error (a misspelt axis key, a base that cannot be
/// loaded) is bad input, status 2; every point infeasible is status 1. The message names
/// the first failure, which is usually the reason for all of them.
int sweep_status(const Sweep& sweep, const SweepSummary& summary) {
  if (summary.ok > 0 || summary.rows < sweep.size() || summary.rows == 0) return kExitOk;
  const bool infeasible = summary.errors == 0;
  std::cerr << (infeasible ? "infeasible: " : "error: ") << "every point of the sweep failed (" << summary.errors
            << " errors, " << summary.infeasible << " infeasible); the first, point " << summary.first_failed_point
            << ": " << summary.first_failure << "\n";
  return infeasible ? kExitInfeasible : kExitBadInput;
}

bool under_mpi() { return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMI_SIZE") != nullptr; }

#ifdef DLRMSIM_WITH_MPI
int run_distributed(const Sweep& sweep, const SweepOptions& options) {
  MPI_Init(nullptr, nullptr);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const auto& columns = scenario_output_columns();
  const std::string header = sweep_header(sweep, columns);
  SweepSummary summary;
  auto part = [&](int r) { return options.output_path + ".part" + std::to_string(r); };
  std::vector<std::string> parts;
  for (int r = 0; r < ranks; ++r) parts.push_back(part(r));
  int ok = 1;
  if (rank == 0) {
    try {
      // Rows a previous, interrupted run left in part files are kept when resuming.
      if (!options.resume) {
        for (const auto& p : parts) std::remove(p.c_str());
        std::remove(options.output_path.c_str());
      }
      check_result_path(options.output_path);
      collect_sweep_csv(options.output_path, options.resume ? parts : std::vector<std::string>{}, sweep, columns);
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
    return ok == -1 ? kExitOutputFailed : kExitBadInput;
  }
  const auto finished = finished_points(options.output_path, sweep, columns);
  {
    std::FILE* f = std::fopen(part(rank).c_str(), "wb");
    if (f) {
      std::fprintf(f, "%s\n", header.c_str());
      std::fclose(f);
    }
  }
  SweepOptions local = options;
  local.progress = options.progress && rank == 0;
  unsigned long long failed = run_points(sweep, points_to_run(sweep, finished, rank, ranks), run_scenario_point,
                                         columns, part(rank), local);
  unsigned long long total_failed = 0;
  MPI_Reduce(&failed, &total_failed, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  int status = kExitOk;
  if (rank == 0) {
    summary = collect_sweep_csv(options.output_path, parts, sweep, columns);
    std::cerr << sweep.size() << " points, " << total_failed << " failed; results in " << options.output_path
              << " (" << ranks << " ranks)\n";
    status = sweep_status(sweep, summary);
  }
  MPI_Finalize();
  return status;
}
#endif

}  // namespace

int cmd_sweep(const std::vector<std::string>& args) {
  po::options_description opts("dlrmsim sweep SWEEP.yaml -o results.csv [options]");
  opts.add_options()("help,h", "show this help")("sweep", po::value<std::string>(), "the sweep file")(
      "output,o", po::value<std::string>(), "the CSV result file (required)")(
      "jobs,j", po::value<long long>()->default_value(1),
      ("points run at once on this machine (1 to " + std::to_string(kMaxSweepThreads) + ")").c_str())(
      "resume", "keep the rows already in the output and run only the missing points")(
      "quiet,q", "no progress line on standard error (shown only when it is a terminal)")(
      "stop-after", po::value<std::size_t>(), "end abruptly after this many rows (to test --resume)");
  po::positional_options_description pos;
  pos.add("sweep", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
  if (vm.count("help")) {
    std::cout << opts;
    return kExitOk;
  }
  if (!vm.count("sweep") || !vm.count("output")) {
    std::cerr << "error: expected a sweep file and -o OUTPUT.csv\n" << opts;
    return kExitBadInput;
  }
  const long long jobs = vm["jobs"].as<long long>();
  if (jobs < 1 || jobs > static_cast<long long>(kMaxSweepThreads)) {
    throw std::invalid_argument("-j " + std::to_string(jobs) + ": expected a number of threads from 1 to " +
                                std::to_string(kMaxSweepThreads));
  }
  const Sweep sweep = load_sweep(vm["sweep"].as<std::string>());
  SweepOptions options;
  options.output_path = vm["output"].as<std::string>();
  std::vector<std::filesystem::path> inputs(sweep.input_files().begin(), sweep.input_files().end());
  refuse_output_over_inputs(options.output_path, inputs, "the result file (-o)");
  options.threads = static_cast<unsigned>(jobs);
  options.resume = vm.count("resume") > 0;
  options.progress = progress_wanted(vm.count("quiet") > 0);
  if (vm.count("stop-after")) options.stop_after = vm["stop-after"].as<std::size_t>();
  if (under_mpi()) {
#ifdef DLRMSIM_WITH_MPI
    return run_distributed(sweep, options);
#else
    throw std::invalid_argument("this dlrmsim was built without MPI (install libopenmpi-dev and rebuild)");
#endif
  }
  SweepSummary summary;
  const std::size_t failed = run_sweep(sweep, run_scenario_point, scenario_output_columns(), options, &summary);
  std::cerr << sweep.size() << " points, " << summary.rows - summary.ok << " failed";
  if (options.resume) std::cerr << " (" << failed << " of them in this run)";
  std::cerr << "; results in " << options.output_path << "\n";
  return sweep_status(sweep, summary);
}

int cmd_plot(const std::vector<std::string>& args) {
  po::options_description opts("dlrmsim plot RESULTS.csv --x KEY --y KEY [--group KEY] -o FILE.svg|png");
  opts.add_options()("help,h", "show this help")("csv", po::value<std::string>(), "a sweep result file")(
      "x", po::value<std::string>(), "column on the x axis")("y", po::value<std::string>(), "column on the y axis")(
      "group", po::value<std::string>()->default_value(""), "one line (or bar colour) per value of this column")(
      "title", po::value<std::string>(), "chart title")("output,o", po::value<std::string>(), "FILE.svg or FILE.png");
  po::positional_options_description pos;
  pos.add("csv", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
  if (vm.count("help")) {
    std::cout << opts;
    return kExitOk;
  }
  for (const char* required : {"csv", "x", "y", "output"}) {
    if (!vm.count(required)) {
      std::cerr << "error: missing " << required << "\n" << opts;
      return kExitBadInput;
    }
  }
  Chart chart = chart_from_csv(vm["csv"].as<std::string>(), vm["x"].as<std::string>(), vm["y"].as<std::string>(),
                               vm["group"].as<std::string>());
  if (vm.count("title")) chart.title = vm["title"].as<std::string>();
  if (chart.skipped_non_finite > 0) {
    std::cerr << "warning: " << chart.skipped_non_finite << " rows of " << vm["csv"].as<std::string>()
              << " have an x or y value that is not a finite number (inf, nan or beyond 1.8e308) and are not drawn\n";
  }
  write_chart(chart, vm["output"].as<std::string>());
  return kExitOk;
}

}  // namespace dlrmsim::tools
