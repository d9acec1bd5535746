// `dlrmsim run SCENARIO.yaml [--json PATH|-] [--trace PATH] [--set key.path=value]...`
//
// Simulates a scenario and prints the report (models/simulation.hpp defines every number):
// throughput, step time, breakdown (busy, exposed and critical-path time per category), utilisation per resource
// class, memory against capacity per device, and the placement. --json writes the same with
// the stable keys throughput_samples_per_s, step_time_s, breakdown, utilization, memory,
// placement; --trace writes a Chrome / Perfetto trace (traceEvents) of the simulated steps.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <boost/program_options.hpp>

#include "models/simulation.hpp"
#include "common/text.hpp"
#include "placement/placement.hpp"
#include "tools/commands.hpp"
#include "tools/scenario_command.hpp"

namespace dlrmsim::tools {
namespace {

namespace po = boost::program_options;
using models::RunReport;

std::string q(const std::string& s) { return json_string(s); }

std::string num(double v) {
  if (!std::isfinite(v)) return "null";
  std::ostringstream s;
  s << std::setprecision(10) << v;
  return s.str();
}

void write_json(std::ostream& out, const RunReport& r) {
  out << "{\n";
  out << "  \"scenario\": " << q(r.scenario) << ",\n";
  out << "  \"model\": " << q(r.model) << ",\n";
  out << "  \"platform\": " << q(r.platform) << ",\n";
  out << "  \"training_mode\": " << q(r.mode) << ",\n";
  out << "  \"backend\": " << q(r.backend) << ",\n";
  out << "  \"fidelity\": " << q(r.fidelity) << ",\n";
  out << "  \"global_batch_size\": " << r.global_batch << ",\n";
  out << "  \"trainers\": " << r.trainers << ",\n";
  out << "  \"simulated_trainers\": " << r.simulated_trainers << ",\n";
  out << "  \"warmup_steps\": " << r.warmup_steps << ",\n";
  out << "  \"measured_steps\": " << r.measured_steps << ",\n";
  out << "  \"throughput_samples_per_s\": " << num(r.throughput_samples_per_s) << ",\n";
  out << "  \"step_time_s\": " << num(r.step_time.value()) << ",\n";
  out << "  \"step_time_spread\": " << num(r.step_time_spread) << ",\n";
  out << "  \"step_end_times_s\": [";
  for (std::size_t i = 0; i < r.step_ends.size(); ++i) out << (i ? ", " : "") << num(r.step_ends[i].value());
  out << "],\n";
  out << "  \"breakdown\": {\n";
  for (const auto& b : r.breakdown) {
    out << "    " << q(b.category) << ": {\"busy_s\": " << num(b.busy.value()) << ", \"exposed_s\": "
        << num(b.exposed.value()) << ", \"overlapped_s\": " << num((b.busy - b.exposed).value())
        << ", \"critical_path_s\": " << num(b.critical.value()) << "},\n";
  }
  out << "    \"idle\": {\"exposed_s\": " << num(r.idle.value()) << ", \"critical_path_s\": " << num(r.critical_idle.value())
      << "}\n  },\n";
  out << "  \"utilization\": {\n";
  for (std::size_t i = 0; i < r.utilization.size(); ++i) {
    const auto& u = r.utilization[i];
    out << "    " << q(u.resource_class) << ": {\"kind\": " << q(u.compute ? "compute" : "bandwidth")
        << ", \"count\": " << u.count << ", \"utilization\": " << num(u.utilization);
    if (!u.compute) out << ", \"bytes_per_step\": " << num(u.bytes.value());
    out << "}" << (i + 1 < r.utilization.size() ? "," : "") << "\n";
  }
  out << "  },\n";
  out << "  \"memory\": [\n";
  for (std::size_t i = 0; i < r.memory.size(); ++i) {
    const auto& m = r.memory[i];
    out << "    {\"device\": " << q(m.device) << ", \"kind\": " << q(m.kind) << ", \"capacity_bytes\": "
        << num(m.capacity.value()) << ", \"used_bytes\": " << num(m.used().value()) << ", \"weights_bytes\": "
        << num(m.weights.value()) << ", \"optimizer_state_bytes\": " << num(m.optimizer_state.value())
        << ", \"cache_bytes\": " << num(m.cache.value()) << ", \"activations_bytes\": " << num(m.activations.value())
        << "}" << (i + 1 < r.memory.size() ? "," : "") << "\n";
  }
  out << "  ],\n";
  out << "  \"placement\": {\n    \"policy\": " << q(r.placement_policy) << ",\n    \"tables\": [\n";
  for (std::size_t i = 0; i < r.placement.size(); ++i) {
    const auto& t = r.placement[i];
    out << "      {\"table\": " << q(t.table) << ", \"tier\": " << q(t.tier) << ", \"sharding\": " << q(t.sharding)
        << ", \"shards\": " << t.shards << ", \"owner_count\": " << t.owner_count << ", \"owners\": [";
    for (std::size_t k = 0; k < t.owners.size(); ++k) out << (k ? ", " : "") << q(t.owners[k]);
    out << "]";
    if (t.tier == "uvm") out << ", \"expected_hit_rate\": " << num(t.hit_rate);
    out << "}" << (i + 1 < r.placement.size() ? "," : "") << "\n";
  }
  out << "    ]\n  },\n";
  out << "  \"engine\": {\"activities\": " << r.activities << ", \"events\": " << r.events
      << ", \"simulated_time_s\": " << num(r.simulated_time.value()) << ", \"wall_s\": " << num(r.wall_seconds)
      << "}\n";
  out << "}\n";
}

/// Chrome trace-event format (chrome://tracing, ui.perfetto.dev): one complete event ("X")
/// per compute task and transfer; compute tasks under their engine (process) and stream
/// (thread), transfers under the first resource of their route.
void write_trace(std::ostream& out, const RunReport& r) {
  const auto& g = *r.graph;
  const auto& res = *r.result;
  const auto& cats = g.categories();
  const std::uint32_t link_pid_base = static_cast<std::uint32_t>(g.engine_count()) + 1;
  out << "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
  bool first = true;
  auto sep = [&] {
    if (!first) out << ",\n";
    first = false;
  };
  for (std::size_t e = 0; e < g.engine_count(); ++e) {
    sep();
    out << "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": " << e << ", \"args\": {\"name\": "
        << q(g.engine(sim::EngineId{static_cast<std::uint32_t>(e)}).name) << "}}";
  }
  for (std::size_t s = 0; s < g.stream_count(); ++s) {
    const auto& st = g.stream(sim::StreamId{static_cast<std::uint32_t>(s)});
    sep();
    out << "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": " << st.engine.index << ", \"tid\": " << s
        << ", \"args\": {\"name\": " << q(st.name) << "}}";
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
      sep();
      out << "{\"ph\": \"X\", \"name\": " << q(cat) << ", \"cat\": " << q(cat) << ", \"pid\": " << st.engine.index
          << ", \"tid\": " << act.stream << ", \"ts\": " << num(ts) << ", \"dur\": " << num(dur) << "}";
    } else {
      const auto route = g.route(id);
      const std::uint32_t r0 = route.empty() ? 0 : route.front().index;
      if (!route.empty() && !named[r0]) {
        named[r0] = true;
        sep();
        out << "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": " << link_pid_base + r0
            << ", \"args\": {\"name\": " << q("link " + g.resource(route.front()).name) << "}}";
      }
      sep();
      out << "{\"ph\": \"X\", \"name\": " << q(cat) << ", \"cat\": " << q(cat) << ", \"pid\": " << link_pid_base + r0
          << ", \"tid\": 0, \"ts\": " << num(ts) << ", \"dur\": " << num(dur) << ", \"args\": {\"bytes\": "
          << num(act.amount) << ", \"hops\": " << route.size() << "}}";
    }
  }
  out << "\n]}\n";
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
  out << "\nengine: " << r.activities << " activities, " << r.events << " events, " << std::fixed
      << std::setprecision(3) << r.wall_seconds << " s wall\n";
}

}  // namespace

int cmd_run(const std::vector<std::string>& args) {
  po::options_description desc("dlrmsim run SCENARIO.yaml [options]");
  std::string json_path, trace_path;
  desc.add_options()("json", po::value(&json_path), "write the report as JSON to PATH ('-' for standard output)")(
      "trace", po::value(&trace_path), "write a Chrome/Perfetto trace of the simulated steps to PATH");
  const ScenarioArguments cli = parse_scenario_arguments(args, desc, "dlrmsim run SCENARIO.yaml");
  if (cli.help()) {
    std::cout << desc << "\nexit status: 0 success, 1 the job does not fit, 2 bad input\n";
    return kExitOk;
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
  if (json_path == "-") {
    write_json(std::cout, report);
  } else {
    print_text(std::cout, report);
    if (!json_path.empty()) {
      std::ofstream f(json_path);
      if (!f) throw std::invalid_argument("cannot write '" + json_path + "'");
      write_json(f, report);
    }
  }
  if (!trace_path.empty()) {
    std::ofstream f(trace_path);
    if (!f) throw std::invalid_argument("cannot write '" + trace_path + "'");
    write_trace(f, report);
  }
  return kExitOk;
}

}  // namespace dlrmsim::tools
