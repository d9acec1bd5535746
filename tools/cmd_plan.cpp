// `dlrmsim plan SPACE.yaml --throughput RATE | --samples N --deadline TIME
//      -o points.csv [--front front.csv] [--chart front.svg|png] [--objective cost|energy] [-j N] [--resume]`
//
// Searches a sweep file's space for the cheapest (or least-energy) configuration meeting a
// throughput target (app/plan.hpp). Every point goes to points.csv (the sweep's columns;
// points pruned by memory are status "infeasible" with an error starting "pruned"); the
// Pareto front of cost (or energy) per training run against time to train goes to --front
// and --chart. A target no point meets: exit 1 naming the fastest point and how far it
// falls short. Under mpirun the points are spread over the ranks as a sweep's are
// (tools/distributed_sweep.hpp); rank 0, holding every rank's rows, alone chooses and reports.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <thread>

#include <boost/program_options.hpp>

#include "common/config.hpp"
#include "common/energy.hpp"
#include "common/files.hpp"
#include "common/sample_rate.hpp"
#include "common/text.hpp"
#include "models/cost.hpp"
#include "tools/commands.hpp"
#include "tools/scenario_command.hpp"
#include "tools/distributed_sweep.hpp"
#include "app/plan.hpp"
#include "tools/progress.hpp"
#include "tools/plot.hpp"
#include "app/power_report.hpp"
#include "app/scenario_runner.hpp"
#include "app/sweep.hpp"

namespace dlrmsim::tools {

using app::csv_field;
using app::format_duration;
using app::kMaxSweepThreads;
using app::load_sweep;
using app::PlanObjective;
using app::PlanOptions;
using app::PlanPoint;
using app::PlanResult;
using app::read_result_rows;
using app::ResultRows;
using app::run_plan_point;
using app::run_sweep;
using app::scenario_output_columns;
using app::select_plan;
using app::Sweep;
using app::sweep_columns;
using app::SweepOptions;
namespace {

std::string rate_text(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, v >= 1e6 ? "%.4g M samples/s" : "%.4g samples/s", v >= 1e6 ? v / 1e6 : v);
  return buf;
}

std::string objective_text(const PlanPoint& p, PlanObjective o) {
  if (!p.objective) return "-";
  return o == PlanObjective::cost ? format_money(Money{*p.objective, p.currency}) : format_joules(Joules(*p.objective));
}

}  // namespace

int cmd_plan(const std::vector<std::string>& args) {
  namespace po = boost::program_options;
  po::options_description opts("dlrmsim plan SPACE.yaml (--throughput RATE | --samples N --deadline TIME) -o points.csv [options]");
  opts.add_options()("help,h", "show this help")("space", po::value<std::string>(), "the search space: a sweep file")(
      "throughput", po::value<std::string>(), "target throughput in samples/s: 40M, '40 M samples/s', 4e7")(
      "samples", po::value<double>(), "samples of the training run (default: cost.training_samples' default)")(
      "deadline", po::value<std::string>(), "train --samples within this time ('2 h'); the target is samples / deadline")(
      "objective", po::value<std::string>()->default_value("cost"), "cost (per training run) or energy")(
      "output,o", po::value<std::string>(), "the CSV file of every point (required)")(
      "front", po::value<std::string>(), "write the Pareto front as CSV")(
      "chart", po::value<std::string>(), "draw the Pareto front (FILE.svg or FILE.png)")(
      "jobs,j", po::value<long long>()->default_value(1), "points run at once")(
      "quiet,q", "no progress line on standard error (shown only when it is a terminal)")(
      "resume", "keep the points already in the output and run only the missing ones");
  po::positional_options_description pos;
  pos.add("space", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
  if (vm.count("help")) {
    std::cout << opts << "\nexit status: 0 a point meets the target, 1 none does, 2 bad input, 4 an output could not be written\n";
    return kExitOk;
  }
  if (!vm.count("space") || !vm.count("output")) throw po::error("expected a space file and -o POINTS.csv");
  PlanOptions options;
  options.training_samples = vm.count("samples") ? vm["samples"].as<double>() : models::kDefaultTrainingSamples;
  if (!(options.training_samples > 0.0) || !std::isfinite(options.training_samples)) {
    throw po::error("--samples: expected a positive number of samples");
  }
  if (vm.count("throughput") == vm.count("deadline")) {
    throw po::error("give the target as either --throughput RATE or --samples N --deadline TIME");
  }
  if (vm.count("throughput")) {
    try {
      options.target_samples_per_s = parse_sample_rate(vm["throughput"].as<std::string>());
    } catch (const UnitError& e) {
      throw po::error(std::string("--throughput: ") + e.what());
    }
  } else {
    Seconds deadline;
    try {
      deadline = parse<Seconds>(vm["deadline"].as<std::string>());
    } catch (const UnitError& e) {
      throw po::error(std::string("--deadline: ") + e.what());
    }
    if (!(deadline.value() > 0.0)) throw po::error("--deadline: expected a positive time such as '2 h'");
    options.target_samples_per_s = options.training_samples / deadline.value();
  }
  const std::string objective = vm["objective"].as<std::string>();
  if (objective != "cost" && objective != "energy") throw po::error("--objective: expected cost or energy");
  options.objective = objective == "cost" ? PlanObjective::cost : PlanObjective::energy;
  const long long jobs = vm["jobs"].as<long long>();
  if (jobs < 1 || jobs > static_cast<long long>(kMaxSweepThreads)) {
    throw po::error("-j: expected a number of threads from 1 to " + std::to_string(kMaxSweepThreads));
  }

  const Sweep space = load_sweep(vm["space"].as<std::string>());
  SweepOptions sweep;
  sweep.output_path = vm["output"].as<std::string>();
  std::vector<std::filesystem::path> inputs(space.input_files().begin(), space.input_files().end());
  check_outputs(given_outputs(vm, {{"the points file (-o)", "output"}, {"--front", "front"}, {"--chart", "chart"}}), inputs);
  sweep.threads = static_cast<unsigned>(jobs);
  sweep.resume = vm.count("resume") > 0;
  std::optional<ProgressLine> progress;
  progress.emplace(0, "points", progress_wanted(vm.count("quiet") > 0));
  sweep.on_point = progress_callback(progress);
  const auto& outputs = scenario_output_columns();
  if (under_mpi()) {
    const DistributedSweep d = run_sweep_distributed(space, run_plan_point, outputs, sweep);
    if (!d.root || d.status != kExitOk) return d.status;
    std::cerr << space.size() << " points over " << d.ranks << " MPI ranks; rows in " << sweep.output_path << "\n";
  } else {
    run_sweep(space, run_plan_point, outputs, sweep);
  }
  const auto columns = sweep_columns(space, outputs);
  const ResultRows rows = read_result_rows(sweep.output_path, space, outputs);
  const PlanResult r = select_plan(rows.rows, columns, options);

  const char* per = options.objective == PlanObjective::cost ? "cost per training run" : "energy per training run";
  char samples[32];
  std::snprintf(samples, sizeof samples, "%.4g", options.training_samples);
  std::cout << "space       " << r.points << " points: " << r.pruned << " pruned by memory (not simulated), "
            << r.simulated << " simulated, " << r.failed << " failed\n";
  std::cout << "target      " << rate_text(options.target_samples_per_s) << " (a run of " << samples << " samples)\n";
  if (r.without_objective > 0) {
    std::cout << "            " << r.without_objective << " simulated point(s) have no " << objective
              << (options.objective == PlanObjective::cost
                      ? " (node prices, and cost.energy_price for owned nodes, are needed)\n"
                      : " (no power figures)\n");
  }
  std::ostringstream front_csv;
  front_csv << "point,label,throughput_samples_per_s,time_to_train_s," << (options.objective == PlanObjective::cost ? "cost_per_run,currency" : "energy_per_run_j") << "\n";
  Series series{"Pareto front", {}, {}};
  // The chart's time unit: minutes for fronts under two hours, hours up to four days, else days.
  double longest = 0.0;
  for (const auto& p : r.front) longest = std::max(longest, p.time_to_train_s);
  const double unit_s = longest < 7200.0 ? 60.0 : longest < 4 * 86400.0 ? 3600.0 : 86400.0;
  const char* unit_name = unit_s == 60.0 ? "min" : unit_s == 3600.0 ? "h" : "days";
  std::cout << "Pareto front (" << per << " against time to train; " << r.front.size() << " points)\n";
  for (const auto& p : r.front) {
    std::cout << "  " << std::left << std::setw(12) << format_duration(Seconds(p.time_to_train_s)) << std::setw(18)
              << objective_text(p, options.objective) << std::setw(20) << rate_text(p.throughput) << p.label << "\n";
    front_csv << p.index << "," << csv_field(p.label) << "," << format_number(p.throughput, 6) << ","
              << format_number(p.time_to_train_s, 6) << "," << format_number(*p.objective, 6);
    if (options.objective == PlanObjective::cost) front_csv << "," << p.currency;
    front_csv << "\n";
    series.x.push_back(format_number(p.time_to_train_s / unit_s, 6));
    series.y.push_back(*p.objective);
  }
  if (vm.count("front")) write_output_file(vm["front"].as<std::string>(), front_csv.str());
  if (vm.count("chart")) {
    Chart chart;
    chart.title = std::string("Pareto front: ") + per + " against time to train";
    chart.x_label = std::string("time to train (") + unit_name + ")";
    chart.y_label = options.objective == PlanObjective::cost
                        ? std::string(per) + (r.front.empty() ? "" : " (" + r.front.front().currency + ")")
                        : std::string(per) + " (J)";
    chart.series.push_back(std::move(series));
    write_chart(chart, vm["chart"].as<std::string>());
  }
  if (r.winner) {
    std::cout << (options.objective == PlanObjective::cost ? "cheapest    " : "least energy ") << r.winner->label << ": " << objective_text(*r.winner, options.objective) << " per run, "
              << rate_text(r.winner->throughput) << ", " << format_duration(Seconds(r.winner->time_to_train_s))
              << " to train\n";
    return kExitOk;
  }
  if (!r.fastest) throw InfeasibleJob("no point of the space could be simulated (" + std::to_string(r.pruned) +
                                      " pruned by memory, " + std::to_string(r.failed) + " failed; see " +
                                      sweep.output_path + ")");
  if (r.fastest->throughput >= options.target_samples_per_s) {
    // Points meet the target but none has the objective's figure: the inputs lack prices or
    // power figures (bad input, not an infeasible job).
    throw ConfigError(vm["space"].as<std::string>() + ": " +
                      (options.objective == PlanObjective::cost
                          ? "no point that meets the target has a cost: the platform files need node prices "
                            "('price:' of each node template) and owned nodes the scenario's cost.energy_price; "
                            "or plan with --objective energy"
                          : "no point that meets the target has an energy figure: the platform files need device "
                            "power figures ('power:')"));
  }
  char miss[64];
  std::snprintf(miss, sizeof miss, "%.1f %%", 100.0 * (1.0 - r.fastest->throughput / options.target_samples_per_s));
  throw InfeasibleJob("no point reaches " + rate_text(options.target_samples_per_s) + ": the fastest, point " +
                      std::to_string(r.fastest->index) + " (" + r.fastest->label + "), reaches " +
                      rate_text(r.fastest->throughput) + ", " + miss + " short");
}

}  // namespace dlrmsim::tools
