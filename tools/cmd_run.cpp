// `dlrmsim run SCENARIO.yaml [--json PATH|-] [--trace PATH|-] [--goodput-csv PATH|-] [--steps-csv PATH|-]
//   [--set key.path=value]...`
//
// Simulates a scenario and prints the report (models/simulation.hpp defines every number):
// throughput, step time, breakdown (busy, exposed and critical-path time per category), utilisation per resource
// class, memory against capacity per device, and the placement. --json writes the same with
// the stable keys throughput_samples_per_s, step_time_s, breakdown, utilization, memory,
// placement, power and cost (tools/power_report.hpp), device_profiles (each GPU profile the costs
// came from and whether it was measured); --trace writes a Chrome / Perfetto trace (traceEvents) of the simulated steps.
// With a `goodput:` section in the scenario the report gains a goodput part (text and the
// JSON key `goodput`; models/goodput.hpp) and --goodput-csv writes goodput against
// checkpoint interval. With a `stragglers:` section it gains the step-time distribution and
// who was waited for (JSON key `stragglers`; models/stragglers.hpp), and --steps-csv writes
// every measured step. Each is written whole or not at all (common/files.hpp); '-' is standard output, which then
// carries that JSON document alone (no text summary).
// With `jobs:` (several jobs sharing the platform, models/jobs.hpp) the report is per job: its
// nodes, step time and throughput sharing the platform and alone, and the slowdown; --json
// writes it as {"scenario", "platform", "jobs": [{"name", "nodes", "step_time_s",
// "throughput_samples_per_s", "alone_step_time_s", "alone_throughput_samples_per_s",
// "slowdown", "contended_throughout", ...}]}; --trace and the CSV outputs are single-job only.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>

#include <boost/program_options.hpp>

#include "models/jobs.hpp"
#include "models/simulation.hpp"
#include "common/config.hpp"
#include "common/files.hpp"
#include "common/json.hpp"
#include "common/text.hpp"
#include "placement/placement.hpp"
#include "tools/commands.hpp"
#include "tools/progress.hpp"
#include "tools/run_report.hpp"
#include "tools/power_report.hpp"
#include "tools/scenario_command.hpp"

namespace dlrmsim::tools {
namespace {

namespace po = boost::program_options;
using models::RunReport;

/// Numbers in the report carry 10 significant digits (more than any input is known to).
Json num(double v) { return json_number(v, 10); }

Json goodput_point_json(const models::GoodputPoint& p) {
  return {{"checkpoint_interval_s", num(p.interval.value())},
          {"expected_time_s", num(p.expected_time.value())},
          {"goodput_samples_per_s", num(p.goodput_samples_per_s)}};
}

/// The goodput part of the report (models/goodput.hpp defines every number).
Json goodput_json(const models::GoodputReport& g) {
  Json doc;
  doc["samples"] = num(g.samples);
  doc["throughput_samples_per_s"] = num(g.throughput_samples_per_s);
  doc["failure_free_time_s"] = num(g.failure_free_time.value());
  Json& components = doc["components"] = Json::array();
  for (const auto& c : g.components) {
    components.push_back({{"component", c.name},
                          {"count", num(c.count)},
                          {"failures_per_hour_each", num(c.rate.value() * 3600.0)},
                          {"job_failures_per_hour", num(c.job_rate.value() * 3600.0)},
                          {"source", c.source}});
  }
  doc["job_failures_per_hour"] = num(g.job_failure_rate.value() * 3600.0);
  doc["job_mtbf_s"] = num(g.job_mtbf.value());
  doc["checkpoint"] = {{"full_bytes", num(g.checkpoint_full_bytes.value())},
                       {"written_bytes", num(g.checkpoint_written_bytes.value())},
                       {"storage_bandwidth_bytes_per_s", num(g.storage_bandwidth.value())},
                       {"checkpoint_time_s", num(g.checkpoint_time.value())},
                       {"restart_time_s", num(g.restart_time.value())}};
  doc["interval_given"] = g.interval_given;
  doc["chosen"] = goodput_point_json(g.chosen);
  doc["best"] = goodput_point_json(g.best);
  doc["young_interval_s"] = num(g.young_interval.value());
  doc["goodput_samples_per_s"] = num(g.chosen.goodput_samples_per_s);
  doc["goodput_fraction"] = num(g.chosen.goodput_samples_per_s / g.throughput_samples_per_s);
  doc["expected_time_s"] = num(g.chosen.expected_time.value());
  doc["expected_failures"] = num(g.expected_failures);
  Json& curve = doc["curve"] = Json::array();
  for (const auto& p : g.curve) curve.push_back(goodput_point_json(p));
  return doc;
}

/// Goodput against checkpoint interval as CSV (for `dlrmsim plot`).
std::string goodput_csv(const models::GoodputReport& g) {
  // lost_fraction = 1 - goodput / throughput: the share of the run spent on checkpoints,
  // restarts and redone work.
  std::string out =
      "storage_bandwidth,checkpoint_interval_h,expected_time_h,goodput_samples_per_s,goodput_fraction,lost_fraction\n";
  for (const auto& p : g.curve) {
    const double fraction = p.goodput_samples_per_s / g.throughput_samples_per_s;
    out += format_rate(g.storage_bandwidth) + "," + format_number(p.interval.value() / 3600.0, 6) + "," +
           format_number(p.expected_time.value() / 3600.0, 6) + "," + format_number(p.goodput_samples_per_s, 6) + "," +
           format_number(fraction, 6) + "," + format_number(1.0 - fraction, 6) + "\n";
  }
  return out;
}

/// The measured steps with stragglers as CSV (for `dlrmsim plot`).
std::string steps_csv(const models::StragglerReport& st) {
  std::string out = "step,step_time_ms,waited_for,slowest_factor_on_path\n";
  for (std::size_t k = 0; k < st.step_times.size(); ++k) {
    out += std::to_string(k) + "," + format_number(st.step_times[k].value() * 1e3, 6) + "," +
           (st.waited_for[k].empty() ? std::string("-") : st.waited_for[k]) + "," + format_number(st.waited_factor[k], 6) +
           "\n";
  }
  return out;
}

}  // namespace

/// The report as JSON, keys in the documented order (the header of this file).
std::string run_json(const RunReport& r) {
  Json doc;
  doc["scenario"] = r.scenario;
  doc["model"] = r.model;
  doc["platform"] = r.platform;
  doc["training_mode"] = r.mode;
  doc["software"] = r.software;
  Json& profiles = doc["device_profiles"] = Json::array();
  for (const auto& p : r.device_profiles) {
    profiles.push_back({{"name", p.name}, {"measured", p.measured}, {"provenance", p.provenance}});
  }
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
  doc["steady_state"] = {{"period_steps", r.steady_state.period}, {"steps_used", r.steady_state.steps_used}};
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
    Json entry = {{"kind", u.compute ? "compute" : u.cores ? "cores" : "bandwidth"},
                  {"count", u.count},
                  {"utilization", num(u.utilization)}};
    if (!u.compute && !u.cores) entry["bytes_per_step"] = num(u.bytes.value());
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
  if (r.stragglers) {
    const auto& st = *r.stragglers;
    Json steps = Json::array();
    for (std::size_t k = 0; k < st.step_times.size(); ++k) {
      Json e = {{"step_time_s", num(st.step_times[k].value())}, {"slowest_factor_on_path", num(st.waited_factor[k])}};
      e["waited_for"] = st.waited_for[k].empty() ? Json() : Json(st.waited_for[k]);
      steps.push_back(std::move(e));
    }
    Json counts = Json::object();
    for (const auto& [who, c] : st.waited_counts) counts[who] = c;
    doc["stragglers"] = {{"step_time_p50_s", num(st.p50.value())},
                         {"step_time_p99_s", num(st.p99.value())},
                         {"step_time_max_s", num(st.max.value())},
                         {"step_time_mean_s", num(st.mean.value())},
                         {"waited_for_steps", std::move(counts)},
                         {"steps", std::move(steps)}};
  }
  if (r.goodput) doc["goodput"] = goodput_json(*r.goodput);
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
/// (thread), transfers under the first resource of their route. Each event's args hold the
/// step it belongs to (`step`, 0 = the first warm-up step) and, where the mode names it, its
/// `role`; transfers' args also their `bytes` and `hops`. Written on one line: the file is for
/// trace viewers, and it is the largest output (about 120 bytes per activity).
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
    Json args = Json::object();
    if (const int step = r.step_of(id); step >= 0) args["step"] = step;
    if (const auto role = r.activity_roles.find(id.index); role != r.activity_roles.end()) args["role"] = role->second;
    if (act.stream != sim::Stream::kNone) {  // compute tasks and kernels, on their stream's row
      if (act.kind == sim::ActivityKind::transfer) {
        args[act.on_cores ? "core_seconds" : "bytes"] = num(act.on_cores ? act.amount / sim::kWorkUnitsPerCoreSecond : act.amount);
      }
      const auto& st = g.stream(sim::StreamId{act.stream});
      events.push_back({{"ph", "X"},
                        {"name", cat},
                        {"cat", cat},
                        {"pid", st.engine.index},
                        {"tid", act.stream},
                        {"ts", num(ts)},
                        {"dur", num(dur)},
                        {"args", std::move(args)}});
    } else {
      const auto route = g.route(id);
      const std::uint32_t r0 = route.empty() ? 0 : route.front().index;
      if (!route.empty() && !named[r0]) {
        named[r0] = true;
        metadata("process_name", link_pid_base + r0, std::nullopt, "link " + g.resource(route.front()).name);
      }
      if (act.on_cores) {
        args["cpu_time_s"] = num(act.cpu_time().value());
      } else {
        args["bytes"] = num(act.bytes().value());
      }
      args["hops"] = route.size();
      events.push_back({{"ph", "X"},
                        {"name", cat},
                        {"cat", cat},
                        {"pid", link_pid_base + r0},
                        {"tid", 0},
                        {"ts", num(ts)},
                        {"dur", num(dur)},
                        {"args", std::move(args)}});
    }
  }
  return json_text(doc, -1);
}

namespace {

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
      << r.measured_steps << " measured steps\n";
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

std::string jobs_json(const models::JobsReport& r) {
  Json doc = Json::object();
  doc["scenario"] = r.scenario;
  doc["platform"] = r.platform;
  doc["backend"] = r.backend;
  doc["warmup_steps"] = r.warmup_steps;
  doc["measured_steps"] = r.measured_steps;
  Json jobs = Json::array();
  for (const auto& j : r.jobs) {
    Json e = Json::object();
    e["name"] = j.name;
    e["model"] = j.model;
    e["mode"] = j.mode;
    e["software"] = j.software;
    e["nodes"] = j.nodes;
    e["trainers"] = j.trainers;
    e["global_batch"] = j.global_batch;
    e["built_steps"] = j.built_steps;
    e["step_time_s"] = num(j.step_time.value());
    e["throughput_samples_per_s"] = num(j.throughput_samples_per_s);
    e["alone_step_time_s"] = num(j.alone_step_time.value());
    e["alone_throughput_samples_per_s"] = num(j.alone_throughput_samples_per_s);
    e["slowdown"] = num(j.slowdown);
    e["contended_throughout"] = j.contended_throughout;
    jobs.push_back(e);
  }
  doc["jobs"] = jobs;
  doc["activities"] = r.activities;
  doc["events"] = r.events;
  doc["simulated_time_s"] = num(r.simulated_time.value());
  return json_text(doc);
}

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
  if (json_path == "-" && trace_path == "-") {
    throw ConfigError("--json - and --trace - both name standard output; write one of them to a file");
  }
  if (!json_path.empty() && json_path != "-" && json_path == trace_path) {
    throw ConfigError(json_path + ": --json and --trace name the same file; give each its own");
  }

  {
    int to_stdout = 0;
    for (const std::string* p : {&json_path, &trace_path, &goodput_path, &steps_path}) to_stdout += *p == "-" ? 1 : 0;
    if (to_stdout > 1) {
      throw ConfigError("more than one of --json, --trace, --goodput-csv and --steps-csv name standard output ('-')");
    }
    if (!goodput_path.empty() && goodput_path != "-" &&
        (goodput_path == json_path || goodput_path == trace_path || goodput_path == steps_path)) {
      throw ConfigError(goodput_path + ": --goodput-csv names the same file as another output; give each its own");
    }
    if (!steps_path.empty() && steps_path != "-" && (steps_path == json_path || steps_path == trace_path)) {
      throw ConfigError(steps_path + ": --steps-csv names the same file as another output; give each its own");
    }
  }

  const auto sc = models::load_scenario(cli.scenario, cli.overrides);
  if (!sc.jobs.empty()) {
    if (!trace_path.empty() || !goodput_path.empty() || !steps_path.empty()) {
      throw ConfigError(cli.scenario + ": --trace, --goodput-csv and --steps-csv are for single-job scenarios; this "
                        "one lists jobs");
    }
    models::JobsReport jobs;
    try {
      jobs = models::run_jobs(sc);
    } catch (const placement::InfeasiblePlacement& e) {
      throw InfeasibleJob(infeasible_placement_message(e, "a job does not fit on its nodes"));
    }
    if (json_path != "-") print_jobs(std::cout, jobs);
    if (!json_path.empty()) write_output_file(json_path, jobs_json(jobs));
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
  // Long runs (every node of a large cluster) show the simulated steps as they end.
  std::optional<ProgressLine> progress;
  progress.emplace(0, "steps", progress_wanted(cli.vm.count("quiet") > 0));
  options.on_step = [&](std::size_t done, std::size_t total) {
    if (done == 1) progress->set_total(total);
    progress->advance();
    if (done == total) progress.reset();  // erased before the report is printed
  };
  RunReport report;
  try {
    report = models::run_scenario(sc, options);
  } catch (const placement::InfeasiblePlacement& e) {
    throw InfeasibleJob(infeasible_placement_message(e, "the job does not fit"));
  }
  // Standard output carries the text summary, unless a JSON output goes there instead.
  if (json_path != "-" && trace_path != "-" && goodput_path != "-" && steps_path != "-") print_text(std::cout, report);
  if (!json_path.empty()) write_output_file(json_path, run_json(report));
  if (!goodput_path.empty()) write_output_file(goodput_path, goodput_csv(*report.goodput));
  if (!steps_path.empty()) write_output_file(steps_path, steps_csv(*report.stragglers));
  if (!trace_path.empty()) write_output_file(trace_path, trace_json(report));
  return kExitOk;
}

}  // namespace dlrmsim::tools
