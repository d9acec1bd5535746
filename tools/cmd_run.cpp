// `dlrmsim run SCENARIO.yaml [--json PATH|-] [--trace PATH|-] [--set key.path=value]...`
//
// Simulates a scenario and prints the report (models/simulation.hpp defines every number):
// throughput, step time, breakdown (busy, exposed and critical-path time per category), utilisation per resource
// class, memory against capacity per device, and the placement. --json writes the same with
// the stable keys throughput_samples_per_s, step_time_s, breakdown, utilization, memory,
// placement, power and cost (tools/power_report.hpp); --trace writes a Chrome / Perfetto trace (traceEvents) of the simulated steps.
// Each is written whole or not at all (common/files.hpp); '-' is standard output, which then
// carries that JSON document alone (no text summary).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>

#include <boost/program_options.hpp>

#include "models/simulation.hpp"
#include "common/config.hpp"
#include "common/files.hpp"
#include "common/json.hpp"
#include "common/text.hpp"
#include "placement/placement.hpp"
#include "tools/commands.hpp"
#include "tools/power_report.hpp"
#include "tools/scenario_command.hpp"

namespace dlrmsim::tools {
namespace {

namespace po = boost::program_options;
using models::RunReport;

/// Numbers in the report carry 10 significant digits (more than any input is known to).
Json num(double v) { return json_number(v, 10); }

/// The report as JSON, keys in the documented order (the header of this file).
std::string run_json(const RunReport& r) {
  Json doc;
  doc["scenario"] = r.scenario;
  doc["model"] = r.model;
  doc["platform"] = r.platform;
  doc["training_mode"] = r.mode;
  doc["software"] = r.software;
  doc["backend"] = r.backend;
  doc["fidelity"] = r.fidelity;
  doc["global_batch_size"] = r.global_batch;
  doc["trainers"] = r.trainers;
  doc["simulated_trainers"] = r.simulated_trainers;
  doc["warmup_steps"] = r.warmup_steps;
  doc["measured_steps"] = r.measured_steps;
  doc["throughput_samples_per_s"] = num(r.throughput_samples_per_s);
  doc["step_time_s"] = num(r.step_time.value());
  doc["step_time_spread"] = num(r.step_time_spread);
  Json& ends = doc["step_end_times_s"] = Json::array();
  for (const Seconds& t : r.step_ends) ends.push_back(num(t.value()));
  Json& breakdown = doc["breakdown"] = Json::object();
  for (const auto& b : r.breakdown) {
    breakdown[b.category] = {{"busy_s", num(b.busy.value())},
                             {"exposed_s", num(b.exposed.value())},
                             {"overlapped_s", num((b.busy - b.exposed).value())},
                             {"critical_path_s", num(b.critical.value())}};
  }
  breakdown["idle"] = {{"exposed_s", num(r.idle.value())}, {"critical_path_s", num(r.critical_idle.value())}};
  Json& utilization = doc["utilization"] = Json::object();
  for (const auto& u : r.utilization) {
    Json entry = {{"kind", u.compute ? "compute" : "bandwidth"}, {"count", u.count}, {"utilization", num(u.utilization)}};
    if (!u.compute) entry["bytes_per_step"] = num(u.bytes.value());
    utilization[u.resource_class] = std::move(entry);
  }
  Json& memory = doc["memory"] = Json::array();
  for (const auto& m : r.memory) {
    memory.push_back({{"device", m.device},
                      {"kind", m.kind},
                      {"capacity_bytes", num(m.capacity.value())},
                      {"used_bytes", num(m.used().value())},
                      {"weights_bytes", num(m.weights.value())},
                      {"optimizer_state_bytes", num(m.optimizer_state.value())},
                      {"cache_bytes", num(m.cache.value())},
                      {"activations_bytes", num(m.activations.value())}});
  }
  Json tables = Json::array();
  for (const auto& t : r.placement) {
    Json entry = {{"table", t.table},
                  {"tier", t.tier},
                  {"sharding", t.sharding},
                  {"shards", t.shards},
                  {"owner_count", t.owner_count},
                  {"owners", t.owners}};
    if (t.tier == "uvm") entry["expected_hit_rate"] = num(t.hit_rate);
    tables.push_back(std::move(entry));
  }
  doc["placement"] = {{"policy", r.placement_policy}, {"tables", std::move(tables)}};
  doc["power"] = power_json(r.power);
  doc["cost"] = cost_json(r.cost);
  doc["engine"] = {{"activities", r.activities},
                   {"events", r.events},
                   {"simulated_time_s", num(r.simulated_time.value())},
                   {"wall_s", num(r.wall_seconds)}};
  return json_text(doc);
}

/// Chrome trace-event format (chrome://tracing, ui.perfetto.dev): one complete event ("X")
/// per compute task and transfer; compute tasks under their engine (process) and stream
/// (thread), transfers under the first resource of their route. Written on one line: the
/// file is for trace viewers, and it is the largest output (about 100 bytes per activity).
std::string trace_json(const RunReport& r) {
  const auto& g = *r.graph;
  const auto& res = *r.result;
  const auto& cats = g.categories();
  const std::uint32_t link_pid_base = static_cast<std::uint32_t>(g.engine_count()) + 1;
  Json doc;
  doc["displayTimeUnit"] = "ns";
  Json& events = doc["traceEvents"] = Json::array();
  auto metadata = [&](const char* what, std::uint32_t pid, std::optional<std::size_t> tid, const std::string& name) {
    Json e = {{"ph", "M"}, {"name", what}, {"pid", pid}};
    if (tid) e["tid"] = *tid;
    e["args"] = {{"name", name}};
    events.push_back(std::move(e));
  };
  for (std::size_t e = 0; e < g.engine_count(); ++e) {
    metadata("process_name", static_cast<std::uint32_t>(e), std::nullopt,
             g.engine(sim::EngineId{static_cast<std::uint32_t>(e)}).name);
  }
  for (std::size_t s = 0; s < g.stream_count(); ++s) {
    const auto& st = g.stream(sim::StreamId{static_cast<std::uint32_t>(s)});
    metadata("thread_name", st.engine.index, s, st.name);
  }
  std::vector<bool> named(g.resource_count(), false);
  for (std::size_t a = 0; a < g.activity_count(); ++a) {
    const sim::ActivityId id{static_cast<std::uint32_t>(a)};
    const auto& act = g.activity(id);
    if (act.kind == sim::ActivityKind::marker) continue;
    const double ts = res.start[a].seconds().value() * 1e6;
    const double dur = (res.end[a] - res.start[a]).seconds().value() * 1e6;
    const std::string& cat = cats[act.category];
    if (act.kind == sim::ActivityKind::compute) {
      const auto& st = g.stream(sim::StreamId{act.stream});
      events.push_back({{"ph", "X"},
                        {"name", cat},
                        {"cat", cat},
                        {"pid", st.engine.index},
                        {"tid", act.stream},
                        {"ts", num(ts)},
                        {"dur", num(dur)}});
    } else {
      const auto route = g.route(id);
      const std::uint32_t r0 = route.empty() ? 0 : route.front().index;
      if (!route.empty() && !named[r0]) {
        named[r0] = true;
        metadata("process_name", link_pid_base + r0, std::nullopt, "link " + g.resource(route.front()).name);
      }
      events.push_back({{"ph", "X"},
                        {"name", cat},
                        {"cat", cat},
                        {"pid", link_pid_base + r0},
                        {"tid", 0},
                        {"ts", num(ts)},
                        {"dur", num(dur)},
                        {"args", {{"bytes", num(act.amount)}, {"hops", route.size()}}}});
    }
  }
  return json_text(doc, -1);
}

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

void print_text(std::ostream& out, const RunReport& r) {
  out << "scenario    " << r.scenario << "\n";
  out << "model       " << r.model << " (global batch " << r.global_batch << ")\n";
  out << "platform    " << r.platform << "\n";
  out << "mode        " << r.mode << ", backend " << r.backend << ", " << r.warmup_steps << " warm-up + "
      << r.measured_steps << " measured steps\n";
  out << "trainers    " << r.trainers << " (" << r.simulated_trainers << " simulated: " << r.fidelity << ")\n\n";
  out << "throughput  " << fmt_rate(r.throughput_samples_per_s) << "\n";
  out << "step time   " << format_seconds(r.step_time);
  if (r.step_time_spread > 0.02) {
    out << "  (measured steps differ by " << pct(r.step_time_spread) << ": not yet steady, raise run.warmup_steps)";
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
    out << "  " << std::left << std::setw(10) << u.resource_class << std::setw(10) << pct(u.utilization) << u.count
        << (u.compute ? " engines" : " resources");
    if (!u.compute) out << ", " << format_bytes(u.bytes) << " per step";
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
  print_power_and_cost(out, r);
  out << "\nengine: " << r.activities << " activities, " << r.events << " events, " << std::fixed
      << std::setprecision(3) << r.wall_seconds << " s wall\n";
}

}  // namespace

int cmd_run(const std::vector<std::string>& args) {
  po::options_description desc("dlrmsim run SCENARIO.yaml [options]");
  std::string json_path, trace_path;
  desc.add_options()("json", po::value(&json_path), "write the report as JSON to PATH ('-' for standard output)")(
      "trace", po::value(&trace_path), "write a Chrome/Perfetto trace of the simulated steps to PATH ('-' for standard output)");
  const ScenarioArguments cli = parse_scenario_arguments(args, desc, "dlrmsim run SCENARIO.yaml");
  if (cli.help()) {
    std::cout << desc
              << "\nexit status: 0 success, 1 the job does not fit, 2 bad input, 4 an output could not be written\n";
    return kExitOk;
  }
  if (json_path == "-" && trace_path == "-") {
    throw ConfigError("--json - and --trace - both name standard output; write one of them to a file");
  }
  if (!json_path.empty() && json_path != "-" && json_path == trace_path) {
    throw ConfigError(json_path + ": --json and --trace name the same file; give each its own");
  }

  const auto sc = models::load_scenario(cli.scenario, cli.overrides);
  models::RunOptions options;
  options.keep_graph = !trace_path.empty();
  RunReport report;
  try {
    report = models::run_scenario(sc, options);
  } catch (const placement::InfeasiblePlacement& e) {
    throw InfeasibleJob(infeasible_placement_message(e, "the job does not fit"));
  }
  // Standard output carries the text summary, unless a JSON output goes there instead.
  if (json_path != "-" && trace_path != "-") print_text(std::cout, report);
  if (!json_path.empty()) write_output_file(json_path, run_json(report));
  if (!trace_path.empty()) write_output_file(trace_path, trace_json(report));
  return kExitOk;
}

}  // namespace dlrmsim::tools
