// dlrmsim sweep SWEEP.yaml -o results.csv [-j N] [--resume]
// dlrmsim plot results.csv --x KEY --y KEY [--group KEY] [--points PUBLISHED.csv] -o FILE.svg|png
//
// Under mpirun the points are spread over the ranks (tools/distributed_sweep.hpp).
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <thread>

#include <boost/program_options.hpp>
#include <unistd.h>

#include "common/files.hpp"
#include "tools/commands.hpp"
#include "tools/scenario_command.hpp"
#include "tools/distributed_sweep.hpp"
#include "tools/plot.hpp"
#include "tools/progress.hpp"
#include "app/scenario_runner.hpp"
#include "app/sweep.hpp"

namespace po = boost::program_options;

namespace dlrmsim::tools {

using app::kMaxSweepThreads;
using app::load_sweep;
using app::run_scenario_point;
using app::run_sweep;
using app::scenario_output_columns;
using app::Sweep;
using app::SweepOptions;
using app::SweepSummary;
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
  check_outputs(given_outputs(vm, {{"the result file (-o)", "output"}}), inputs);
  options.threads = static_cast<unsigned>(jobs);
  options.resume = vm.count("resume") > 0;
  std::optional<ProgressLine> progress;
  progress.emplace(0, "points", progress_wanted(vm.count("quiet") > 0));
  options.on_point = progress_callback(progress);
  if (vm.count("stop-after")) options.stop_after = vm["stop-after"].as<std::size_t>();
  if (under_mpi()) {
    const DistributedSweep d = run_sweep_distributed(sweep, run_scenario_point, scenario_output_columns(sweep), options);
    if (!d.root || d.status != kExitOk) return d.status;
    std::cerr << sweep.size() << " points, " << d.failed << " failed; results in " << options.output_path << " ("
              << d.ranks << " ranks)\n";
    return sweep_status(sweep, d.summary);
  }
  SweepSummary summary;
  const std::size_t failed = run_sweep(sweep, run_scenario_point, scenario_output_columns(sweep), options, &summary);
  std::cerr << sweep.size() << " points, " << summary.rows - summary.ok << " failed";
  if (options.resume) std::cerr << " (" << failed << " of them in this run)";
  std::cerr << "; results in " << options.output_path << "\n";
  return sweep_status(sweep, summary);
}

int cmd_plot(const std::vector<std::string>& args) {
  po::options_description opts("dlrmsim plot RESULTS.csv --x KEY --y KEY [--group KEY] [--points CSV] [--log] [--x-label TEXT] [--y-label TEXT] [--legend-title TEXT] -o FILE.svg|png");
  opts.add_options()("help,h", "show this help")("csv", po::value<std::string>(), "a sweep result file")(
      "x", po::value<std::string>(), "column on the x axis")("y", po::value<std::string>(), "column on the y axis")(
      "group", po::value<std::string>()->default_value(""), "one line (or bar colour) per value of this column")(
      "title", po::value<std::string>(), "chart title")("log", "logarithmic x and y axes")(
      "x-label", po::value<std::string>(), "x axis label with its unit (default: the x column's name)")(
      "y-label", po::value<std::string>(), "y axis label with its unit (default: the y column's name)")(
      "legend-title", po::value<std::string>(), "title above the legend (default: the --group columns)")(
      "points", po::value<std::string>(),
      "a second CSV with the same x, y and group columns, drawn as open markers without lines (published points)")(
      "output,o", po::value<std::string>(), "FILE.svg or FILE.png");
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
  {
    std::vector<std::filesystem::path> inputs{vm["csv"].as<std::string>()};
    if (vm.count("points")) inputs.emplace_back(vm["points"].as<std::string>());
    check_outputs(given_outputs(vm, {{"-o", "output"}}), inputs);
  }
  Chart chart = chart_from_csv(vm["csv"].as<std::string>(), vm["x"].as<std::string>(), vm["y"].as<std::string>(),
                               vm["group"].as<std::string>());
  if (vm.count("points")) {
    Chart points = chart_from_csv(vm["points"].as<std::string>(), vm["x"].as<std::string>(), vm["y"].as<std::string>(),
                                  vm["group"].as<std::string>());
    for (Series& s : points.series) {
      s.points_only = true;
      chart.series.push_back(std::move(s));
    }
    chart.skipped_non_finite += points.skipped_non_finite;
  }
  if (vm.count("title")) chart.title = vm["title"].as<std::string>();
  if (vm.count("x-label")) chart.x_label = vm["x-label"].as<std::string>();
  if (vm.count("y-label")) chart.y_label = vm["y-label"].as<std::string>();
  chart.legend_title = vm.count("legend-title") ? vm["legend-title"].as<std::string>() : vm["group"].as<std::string>();
  chart.log_axes = vm.count("log") > 0;
  if (chart.skipped_non_finite > 0) {
    std::cerr << "warning: " << chart.skipped_non_finite << " rows of " << vm["csv"].as<std::string>()
              << " have an x or y value that is not a finite number (inf, nan or beyond 1.8e308) and are not drawn\n";
  }
  write_chart(chart, vm["output"].as<std::string>());
  return kExitOk;
}

}  // namespace dlrmsim::tools
