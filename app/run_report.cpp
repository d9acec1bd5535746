#include "app/run_report.hpp"
#include "app/plan_report.hpp"

#include "app/power_report.hpp"
#include "app/sweep.hpp"
#include "common/json.hpp"
#include "common/text.hpp"
#include "common/version.hpp"

namespace dlrmsim::app {
namespace {

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

}  // namespace

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
  doc["requested_steps"] = r.requested_steps;
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
  doc["placement"] = {{"policy", r.placement_policy},
                      {"tables", std::move(tables)},
                      {"statistics", plan_statistics_json(r.plan_statistics, 10)}};
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
  doc["dlrmsim_version"] = std::string(version());
  return json_text(doc);
}

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
  doc["dlrmsim_version"] = std::string(version());
  return json_text(doc);
}

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

std::string steps_csv(const models::StragglerReport& st) {
  std::string out = "step,step_time_ms,waited_for,slowest_factor_on_path\n";
  for (std::size_t k = 0; k < st.step_times.size(); ++k) {
    out += std::to_string(k) + "," + format_number(st.step_times[k].value() * 1e3, 6) + "," +
           (st.waited_for[k].empty() ? std::string("-") : csv_field(st.waited_for[k])) + "," +
           format_number(st.waited_factor[k], 6) +
           "\n";
  }
  return out;
}

}  // namespace dlrmsim::app
