// dlrmsim sweep SWEEP.yaml -o results.csv [-j N] [--resume]
// dlrmsim plot results.csv --x KEY --y KEY [--group KEY] -o FILE.svg|png
//
// Under mpirun (Open MPI sets OMPI_COMM_WORLD_SIZE), each rank runs the points whose index
// modulo the number of ranks is its rank, appending rows to its own part file next to the
// output; rank 0 then merges the parts into the one result file, sorted by point.
#include <cstdlib>
#include <iostream>
#include <thread>

#include <boost/program_options.hpp>
#include <unistd.h>

#include "tools/commands.hpp"
#include "tools/plot.hpp"
#include "tools/scenario_runner.hpp"
#include "tools/sweep.hpp"

#ifdef DLRMSIM_WITH_MPI
#include <mpi.h>
#endif

namespace po = boost::program_options;

namespace dlrmsim::tools {
namespace {

bool under_mpi() { return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMI_SIZE") != nullptr; }

#ifdef DLRMSIM_WITH_MPI
int run_distributed(const Sweep& sweep, const SweepOptions& options) {
  MPI_Init(nullptr, nullptr);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const auto& columns = scenario_output_columns();
  const std::string header = sweep_header(sweep, columns);
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
      collect_sweep_csv(options.output_path, options.resume ? parts : std::vector<std::string>{}, header);
    } catch (const std::exception& e) {
      std::cerr << "error: " << e.what() << "\n";
      ok = 0;
    }
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!ok) {
    MPI_Finalize();
    return kExitBadInput;
  }
  const auto finished = finished_points(options.output_path, header);
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
  if (rank == 0) {
    collect_sweep_csv(options.output_path, parts, header);
    std::cerr << sweep.size() << " points, " << total_failed << " failed; results in " << options.output_path
              << " (" << ranks << " ranks)\n";
  }
  MPI_Finalize();
  return kExitOk;
}
#endif

}  // namespace

int cmd_sweep(const std::vector<std::string>& args) {
  po::options_description opts("dlrmsim sweep SWEEP.yaml -o results.csv [options]");
  opts.add_options()("help,h", "show this help")("sweep", po::value<std::string>(), "the sweep file")(
      "output,o", po::value<std::string>(), "the CSV result file (required)")(
      "jobs,j", po::value<unsigned>()->default_value(1), "points run at once on this machine")(
      "resume", "keep the rows already in the output and run only the missing points")(
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
  if (vm["jobs"].as<unsigned>() == 0) throw std::invalid_argument("-j must be at least 1");
  const Sweep sweep = load_sweep(vm["sweep"].as<std::string>());
  SweepOptions options;
  options.output_path = vm["output"].as<std::string>();
  options.threads = vm["jobs"].as<unsigned>();
  options.resume = vm.count("resume") > 0;
  options.progress = ::isatty(STDERR_FILENO) != 0;
  if (vm.count("stop-after")) options.stop_after = vm["stop-after"].as<std::size_t>();
  if (under_mpi()) {
#ifdef DLRMSIM_WITH_MPI
    return run_distributed(sweep, options);
#else
    throw std::invalid_argument("this dlrmsim was built without MPI (install libopenmpi-dev and rebuild)");
#endif
  }
  const std::size_t failed = run_sweep(sweep, run_scenario_point, scenario_output_columns(), options);
  std::cerr << sweep.size() << " points, " << failed << " failed; results in " << options.output_path << "\n";
  return kExitOk;
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
