// `dlrmsim run SCENARIO.yaml [--json PATH|-] [--trace PATH|-] [--goodput-csv PATH|-] [--steps-csv PATH|-]
//   [--set key.path=value]...`
//
// Simulates a scenario and prints the report (models/simulation.hpp defines every number):
// throughput, step time, breakdown (busy, exposed and critical-path time per category), utilisation per resource
// class, memory against capacity per device, and the placement. --json writes the same with
// the stable keys of app/run_report.hpp (throughput_samples_per_s, step_time_s, breakdown,
// utilization, memory, placement, power and cost, device_profiles, ...); --trace writes a
// Chrome / Perfetto trace (traceEvents, app/trace.hpp) of the simulated steps.
// With a `goodput:` section in the scenario the report gains a goodput part (text and the
// JSON key `goodput`; models/goodput.hpp) and --goodput-csv writes goodput against
// checkpoint interval. With a `stragglers:` section it gains the step-time distribution and
// who was waited for (JSON key `stragglers`; models/stragglers.hpp), and --steps-csv writes
// every measured step. Each is written whole or not at all (common/files.hpp); '-' is standard output, which then
// carries that JSON document alone (no text summary).
// With `jobs:` (several jobs sharing the platform, models/jobs.hpp) the report is per job: its
// nodes, step time and throughput sharing the platform and alone, and the slowdown; --json
// writes it (app/run_report.hpp, jobs_json); --trace and the CSV outputs are single-job only.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>

#include <boost/program_options.hpp>

#include "app/power_report.hpp"
#include "app/run_report.hpp"
#include "app/scenario_run.hpp"
#include "app/trace.hpp"
#include "common/config.hpp"
#include "common/files.hpp"
#include "common/text.hpp"
#include "models/jobs.hpp"
#include "models/simulation.hpp"
#include "tools/commands.hpp"
#include "tools/progress.hpp"
#include "tools/scenario_command.hpp"

namespace dlrmsim::tools {
namespace {

namespace po = boost::program_options;
using app::print_power_and_cost;
using models::RunReport;

std::string pct(double v) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(1) << v * 100.0 << " %";
  return s.str();
}

std::string fmt_rate(double samples_per_s) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(3);
  if (samples_per_s >= 1e6) {
    s << samples_per_s / 1e6 << " M samples/s";
  } else if (samples_per_s >= 1e3) {
    s << samples_per_s / 1e3 << " k samples/s";
  } else {
    s << samples_per_s << " samples/s";
  }
  return s.str();
}

/// A duration for people: seconds, minutes, hours or days, 3 significant digits.
std::string fmt_duration(Seconds t) {
  const double v = t.value();
  if (!std::isfinite(v)) return "never";
  char buf[64];
  if (v < 120.0) {
    std::snprintf(buf, sizeof buf, "%.3g s", v);
  } else if (v < 7200.0) {
    std::snprintf(buf, sizeof buf, "%.3g min", v / 60.0);
  } else if (v < 172800.0) {
    std::snprintf(buf, sizeof buf, "%.3g h", v / 3600.0);
  } else {
    std::snprintf(buf, sizeof buf, "%.4g days", v / 86400.0);
  }
  return buf;
}

std::string fmt_general(double v, int digits = 3) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

void print_goodput(std::ostream& out, const models::GoodputReport& g) {
  out << "\ngoodput over " << fmt_general(g.samples) << " samples (failures, checkpoints, restarts)\n";
  out << "  failure-free time   " << fmt_duration(g.failure_free_time) << " at " << fmt_rate(g.throughput_samples_per_s)
      << "\n";
  out << "  failures            component  count     per unit and hour  job per hour  source\n";
  for (const auto& c : g.components) {
    out << "                      " << std::left << std::setw(11) << c.name << std::setw(10) << fmt_general(c.count, 6)
        << std::setw(19) << fmt_general(c.rate.value() * 3600.0) << std::setw(14)
        << fmt_general(c.job_rate.value() * 3600.0) << c.source << "\n";
  }
  out << "  job MTBF            " << fmt_duration(g.job_mtbf) << " (" << fmt_general(g.job_failure_rate.value() * 3600.0)
      << " failures per hour)\n";
  out << "  checkpoint          " << format_bytes(g.checkpoint_written_bytes) << " written (full state "
      << format_bytes(g.checkpoint_full_bytes) << ") at " << format_rate(g.storage_bandwidth) << ": "
      << fmt_duration(g.checkpoint_time) << "; restart " << fmt_duration(g.restart_time) << " (relaunch + read back)\n";
  out << "  best interval       ";
  if (g.job_failure_rate.value() <= 0.0) {
    out << "none: no failures to recover from";
  } else if (g.best.interval >= g.failure_free_time) {
    out << "none: checkpoints cost more than they save in a run this short";
  } else {
    out << fmt_duration(g.best.interval);
  }
  out << " (Young/Daly sqrt(2 C MTBF): "
      << (std::isfinite(g.young_interval.value()) ? fmt_duration(g.young_interval) : std::string("none, no failures"))
      << ")\n";
  if (g.interval_given) out << "  scenario interval   " << fmt_duration(g.chosen.interval) << "\n";
  out << "  expected time       " << fmt_duration(g.chosen.expected_time) << ", " << fmt_general(g.expected_failures)
      << " failures expected\n";
  out << "  goodput             " << fmt_rate(g.chosen.goodput_samples_per_s) << " ("
      << pct(g.chosen.goodput_samples_per_s / g.throughput_samples_per_s) << " of throughput)";
  if (g.interval_given) {
    out << "; at the best interval " << fmt_rate(g.best.goodput_samples_per_s) << " ("
        << pct(g.best.goodput_samples_per_s / g.throughput_samples_per_s) << ")";
  }
  if (g.restart_time > g.job_mtbf) {
    out << "\n  warning: a restart (" << fmt_duration(g.restart_time) << ") takes longer than the job's MTBF ("
        << fmt_duration(g.job_mtbf) << "): the run barely progresses";
  }
  out << "\n  against checkpoint interval:";
  for (const auto& p : g.curve) {
    out << " " << fmt_duration(p.interval) << " " << pct(p.goodput_samples_per_s / g.throughput_samples_per_s) << ";";
  }
  out << "\n";
}

void print_text(std::ostream& out, const RunReport& r) {
  out << "scenario    " << r.scenario << "\n";
  out << "model       " << r.model << " (global batch " << r.global_batch << ")\n";
  out << "platform    " << r.platform << "\n";
  out << "software    " << r.software << "\n";
  out << "mode        " << r.mode << ", backend " << r.backend << ", " << r.warmup_steps << " warm-up + "
      << r.measured_steps << " measured steps";
  if (r.requested_steps > r.measured_steps) {
    out << " (of " << r.requested_steps << ": steady, so the run stopped; run.stop_when_steady=false simulates all)";
  }
  out << "\n";
  out << "trainers    " << r.trainers << " (" << r.simulated_trainers << " simulated: " << r.fidelity << ")\n";
  for (const auto& p : r.device_profiles) {
    out << "profile     " << p.name << ": " << (p.measured ? "measured" : "not measured (datasheet, published figures)")
        << "\n";
  }
  out << "\n";
  out << "throughput  " << fmt_rate(r.throughput_samples_per_s) << "\n";
  out << "step time   " << format_seconds(r.step_time);
  if (!r.stragglers) {  // with stragglers, steps differ by design
    const auto& st = r.steady_state;
    if (st.period > 1) {
      // One period of the pattern: the last `period` measured steps.
      const auto last = static_cast<std::size_t>(r.warmup_steps + r.measured_steps);
      out << "  (periodic steady state: a pattern of " << st.period << " steps repeats, ";
      for (std::size_t k = last - static_cast<std::size_t>(st.period); k < last; ++k) {
        out << (k > last - static_cast<std::size_t>(st.period) ? " / " : "")
            << format_seconds(r.step_ends[k] - (k > 0 ? r.step_ends[k - 1] : Seconds(0.0)));
      }
      out << "; mean of the last " << st.steps_used << " measured steps)";
    } else if (st.period == 0 && r.measured_steps > 1) {
      out << "  (not steady: the " << r.measured_steps << " measured steps differ by up to " << pct(st.spread)
          << "; no pattern of up to " << r.measured_steps / 2 << " step" << (r.measured_steps / 2 > 1 ? "s" : "")
          << " repeats in them)";
    }
  }
  out << "\n\n";
  out << "breakdown per step          busy        exposed     overlapped  critical path\n";
  for (const auto& b : r.breakdown) {
    if (b.busy.value() <= 0.0) continue;
    out << "  " << std::left << std::setw(26) << b.category << std::setw(12) << format_seconds(b.busy) << std::setw(12)
        << format_seconds(b.exposed) << std::setw(12) << format_seconds(b.busy - b.exposed)
        << format_seconds(b.critical) << "\n";
  }
  out << "  " << std::left << std::setw(26) << "idle (waiting)" << std::setw(12) << "" << std::setw(24)
      << format_seconds(r.idle) << format_seconds(r.critical_idle) << "\n\n";
  out << "utilisation (resources that carried work)\n";
  for (const auto& u : r.utilization) {
    out << "  " << std::left << std::setw(18) << u.resource_class << std::setw(10) << pct(u.utilization) << u.count
        << (u.compute ? " engines" : u.cores ? " core pools" : " resources");
    if (!u.compute && !u.cores) out << ", " << format_bytes(u.bytes) << " per step";
    out << "\n";
  }
  out << "\nmemory (used / capacity; weights + optimiser state + cache + activations and dense replica)\n";
  std::vector<const models::MemoryEntry*> mem;
  for (const auto& m : r.memory) mem.push_back(&m);
  std::stable_sort(mem.begin(), mem.end(), [](const auto* a, const auto* b) {
    return a->used() / a->capacity > b->used() / b->capacity;
  });
  const std::size_t shown = std::min<std::size_t>(mem.size(), 12);
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& m = *mem[i];
    out << "  " << std::left << std::setw(24) << m.device << std::setw(11) << format_bytes(m.used()) << "/ "
        << std::setw(11) << format_bytes(m.capacity) << std::setw(9) << pct(m.used() / m.capacity) << "(w "
        << format_bytes(m.weights) << ", opt " << format_bytes(m.optimizer_state) << ", cache " << format_bytes(m.cache)
        << ", act " << format_bytes(m.activations) << ")\n";
  }
  if (mem.size() > shown) out << "  ... " << mem.size() - shown << " more devices (fullest shown first)\n";
  out << "\nplacement (policy " << r.placement_policy << ")\n";
  const std::size_t tables = std::min<std::size_t>(r.placement.size(), 30);
  for (std::size_t i = 0; i < tables; ++i) {
    const auto& t = r.placement[i];
    out << "  " << std::left << std::setw(16) << t.table << std::setw(11) << t.tier << std::setw(15) << t.sharding
        << t.shards << " shard(s) on " << t.owner_count << " device(s):";
    for (const auto& o : t.owners) out << " " << o;
    if (t.owner_count > t.owners.size()) out << " ...";
    if (t.tier == "uvm") out << "  hit rate " << pct(t.hit_rate);
    out << "\n";
  }
  if (r.placement.size() > tables) out << "  ... " << r.placement.size() - tables << " more tables\n";
  if (r.stragglers) {
    const auto& st = *r.stragglers;
    out << "\nstragglers over " << st.step_times.size() << " measured steps: step time p50 " << format_seconds(st.p50)
        << ", p99 " << format_seconds(st.p99) << ", max " << format_seconds(st.max) << ", mean "
        << format_seconds(st.mean) << "\n";
    std::size_t nobody = 0;
    for (const auto& w : st.waited_for) nobody += w.empty() ? 1 : 0;
    out << "  waited for (steps whose critical path ran through a slowed member):";
    const std::size_t shown = std::min<std::size_t>(st.waited_counts.size(), 8);
    for (std::size_t i = 0; i < shown; ++i) {
      out << " " << st.waited_counts[i].first << " " << st.waited_counts[i].second << ";";
    }
    if (st.waited_counts.size() > shown) out << " ... " << st.waited_counts.size() - shown << " more;";
    out << " nobody slow " << nobody << "\n";
  }
  if (r.goodput) print_goodput(out, *r.goodput);
  print_power_and_cost(out, r);
  out << "\nengine: " << r.activities << " activities, " << r.events << " events, " << std::fixed
      << std::setprecision(3) << r.wall_seconds << " s wall\n";
}

void print_jobs(std::ostream& out, const models::JobsReport& r) {
  out << "scenario: " << r.scenario << "\nplatform: " << r.platform << "\n" << r.jobs.size()
      << " jobs sharing the platform (every node simulated; " << r.warmup_steps << " warm-up + " << r.measured_steps
      << " measured steps each)\n\n";
  out << std::left << std::setw(14) << "job" << std::setw(10) << "nodes" << std::setw(10) << "trainers"
      << std::right << std::setw(14) << "step (ms)" << std::setw(16) << "samples/s" << std::setw(16)
      << "alone (ms)" << std::setw(16) << "alone samples/s" << std::setw(10) << "slowdown" << "\n";
  for (const auto& j : r.jobs) {
    out << std::left << std::setw(14) << j.name << std::setw(10) << j.nodes.size() << std::setw(10) << j.trainers
        << std::right << std::fixed << std::setprecision(3) << std::setw(14) << j.step_time.value() * 1e3
        << std::setprecision(0) << std::setw(16) << j.throughput_samples_per_s << std::setprecision(3)
        << std::setw(16) << j.alone_step_time.value() * 1e3 << std::setprecision(0) << std::setw(16)
        << j.alone_throughput_samples_per_s << std::setprecision(3) << std::setw(10) << j.slowdown << "\n";
  }
  for (const auto& j : r.jobs) {
    out << "  " << j.name << ": " << j.model << ", " << j.mode << ", " << j.software << "; nodes";
    const std::size_t shown = std::min<std::size_t>(j.nodes.size(), 4);
    for (std::size_t k = 0; k < shown; ++k) out << " " << j.nodes[k];
    if (j.nodes.size() > shown) out << " ... " << j.nodes.back();
    out << "\n";
    if (!j.contended_throughout) {
      out << "    note: another job finished before this job's measured window ended; the end of the window ran "
             "without it\n";
    }
  }
  out << "\nengine (shared run): " << r.activities << " activities, " << r.events << " events; " << std::fixed
      << std::setprecision(3) << r.wall_seconds << " s wall (alone runs included)\n";
}


}  // namespace
int cmd_run(const std::vector<std::string>& args) {
  po::options_description desc("dlrmsim run SCENARIO.yaml [options]");
  std::string json_path, trace_path, goodput_path, steps_path;
  desc.add_options()("json", po::value(&json_path), "write the report as JSON to PATH ('-' for standard output)")(
      "trace", po::value(&trace_path), "write a Chrome/Perfetto trace of the simulated steps to PATH ('-' for standard output)")(
      "goodput-csv", po::value(&goodput_path),
      "write goodput against checkpoint interval as CSV to PATH ('-' for standard output; needs the scenario's goodput section)")(
      "steps-csv", po::value(&steps_path),
      "write each measured step's time and who it waited for as CSV to PATH ('-' for standard output; needs the scenario's stragglers section)")(
      "quiet,q", "no progress line on standard error (shown only when it is a terminal, for runs over a second)");
  const ScenarioArguments cli = parse_scenario_arguments(args, desc, "dlrmsim run SCENARIO.yaml");
  if (cli.help()) {
    std::cout << desc
              << "\nexit status: 0 success, 1 the job does not fit, 2 bad input, 4 an output could not be written\n";
    return kExitOk;
  }
  const auto sc = models::load_scenario(cli.scenario, cli.overrides);
  check_outputs(given_outputs(cli.vm, {{"--json", "json"}, {"--trace", "trace"}, {"--goodput-csv", "goodput-csv"},
                                       {"--steps-csv", "steps-csv"}}),
                {sc.files.begin(), sc.files.end()});
  if (!sc.jobs.empty()) {
    if (!trace_path.empty() || !goodput_path.empty() || !steps_path.empty()) {
      throw ConfigError(cli.scenario + ": --trace, --goodput-csv and --steps-csv are for single-job scenarios; this "
                        "one lists jobs");
    }
    const models::JobsReport jobs = app::run_job_mix(sc);
    if (json_path != "-") print_jobs(std::cout, jobs);
    if (!json_path.empty()) write_output_file(json_path, app::jobs_json(jobs));
    return kExitOk;
  }
  if (!goodput_path.empty() && !sc.goodput) {
    throw ConfigError(cli.scenario + ": --goodput-csv needs the scenario's goodput section (models/goodput.hpp)");
  }
  if (!steps_path.empty() && !sc.stragglers) {
    throw ConfigError(cli.scenario + ": --steps-csv needs the scenario's stragglers section (models/stragglers.hpp)");
  }
  models::RunOptions options;
  options.keep_graph = !trace_path.empty();
  // Long runs (every node of a large cluster) show the line from their first second and the
  // simulated steps as they end, named: warm-up, measured (the steady-state probe's first, when
  // the run checks for one: models/simulation.hpp kSteadyProbeSteps), and cool-down.
  std::optional<ProgressLine> progress;
  progress.emplace(0, "steps", progress_wanted(cli.vm.count("quiet") > 0));
  const bool probes = sc.stop_when_steady && !sc.stragglers && sc.steps > models::kSteadyProbeSteps;
  options.on_step = [&progress, &sc, probes, pass = 0](std::size_t done, std::size_t total) mutable {
    if (done == 1) ++pass;
    const bool probing = probes && pass == 1;
    const long long measured = probing ? models::kSteadyProbeSteps : sc.steps;
    const long long cooldown = static_cast<long long>(total) - sc.warmup_steps - measured;
    const std::string detail = std::to_string(sc.warmup_steps) + " warm-up, " + std::to_string(measured) +
                               (probing ? " of " + std::to_string(sc.steps) + " measured, to find a steady state"
                                        : " measured") +
                               ", " + std::to_string(cooldown) + " cool-down";
    if (progress) progress->update(done, total, detail);
  };
  const RunReport report = app::run_job(sc, options);
  progress.reset();  // erased before the report is printed
  // Standard output carries the text summary, unless a JSON output goes there instead.
  if (json_path != "-" && trace_path != "-" && goodput_path != "-" && steps_path != "-") print_text(std::cout, report);
  if (!json_path.empty()) write_output_file(json_path, app::run_json(report));
  if (!goodput_path.empty()) write_output_file(goodput_path, app::goodput_csv(*report.goodput));
  if (!steps_path.empty()) write_output_file(steps_path, app::steps_csv(*report.stragglers));
  if (!trace_path.empty()) write_output_file(trace_path, app::trace_json(report));
  return kExitOk;
}

}  // namespace dlrmsim::tools
