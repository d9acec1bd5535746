#include "app/scenario_runner.hpp"
#include "common/text.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <cstdio>
#include <filesystem>
#include <map>

#include "models/scenario.hpp"
#include "models/categories.hpp"
#include "models/simulation.hpp"
#include "placement/placement.hpp"

namespace dlrmsim::app {
namespace {

// Memory owners by kind (MemoryEntry::kind).
constexpr const char* kMemoryKinds[] = {"gpu", "cpu_socket", "parameter_server"};

std::vector<std::string> make_columns() {
  std::vector<std::string> cols{"throughput_samples_per_s", "step_time_s", "idle_s", "critical_path_idle_s",
                                "fidelity", "steady_state.period_steps"};
  for (const std::string_view c : models::kSweepColumnCategories) {
    cols.push_back("breakdown." + std::string(c) + ".busy_s");
    cols.push_back("breakdown." + std::string(c) + ".exposed_s");
    cols.push_back("breakdown." + std::string(c) + ".critical_path_s");
  }
  for (const char* k : kMemoryKinds) {
    cols.push_back(std::string("memory.") + k + ".peak_used_bytes");
    cols.push_back(std::string("memory.") + k + ".peak_fraction");
  }
  cols.emplace_back("placement.policy");
  cols.emplace_back("placement.tables_per_tier");
  // Power, energy and cost (models/power.hpp, models/cost.hpp); empty where not modelled.
  for (const char* c : {"power.job_average_w", "power.job_peak_w", "energy.per_sample_j", "cost.per_sample",
                        "cost.currency"}) {
    cols.emplace_back(c);
  }
  return cols;
}

}  // namespace

const std::vector<std::string>& scenario_output_columns() {
  static const std::vector<std::string> kColumns = make_columns();
  return kColumns;
}

// Goodput (models/goodput.hpp) at the chosen checkpoint interval, the best interval and
// Young/Daly's; stragglers (models/stragglers.hpp): the measured steps' distribution and how
// many steps waited for a slowed member, and the member waited for most.
constexpr const char* kGoodputColumns[] = {"goodput.samples_per_s", "goodput.fraction", "goodput.time_to_train_s",
                                           "goodput.checkpoint_interval_s", "goodput.best_interval_s",
                                           "goodput.young_daly_interval_s", "goodput.job_mtbf_s"};
constexpr const char* kStragglerColumns[] = {"stragglers.p50_step_s", "stragglers.p99_step_s", "stragglers.max_step_s",
                                             "stragglers.mean_step_s", "stragglers.waited_steps",
                                             "stragglers.most_waited_for"};

std::vector<std::string> scenario_output_columns(const Sweep& sweep) {
  std::vector<std::string> cols = scenario_output_columns();
  if (sweep.uses_section("goodput")) cols.insert(cols.end(), std::begin(kGoodputColumns), std::end(kGoodputColumns));
  if (sweep.uses_section("stragglers")) {
    cols.insert(cols.end(), std::begin(kStragglerColumns), std::end(kStragglerColumns));
  }
  return cols;
}

std::map<std::string, std::string> report_columns(const models::RunReport& report) {
  std::map<std::string, std::string> out;
  out["throughput_samples_per_s"] = format_number(report.throughput_samples_per_s, 6);
  out["step_time_s"] = format_number(report.step_time.value(), 6);
  out["idle_s"] = format_number(report.idle.value(), 6);
  out["critical_path_idle_s"] = format_number(report.critical_idle.value(), 6);
  out["fidelity"] = report.fidelity;
  out["steady_state.period_steps"] = std::to_string(report.steady_state.period);
  for (const auto& b : report.breakdown) {
    out["breakdown." + b.category + ".busy_s"] = format_number(b.busy.value(), 6);
    out["breakdown." + b.category + ".exposed_s"] = format_number(b.exposed.value(), 6);
    out["breakdown." + b.category + ".critical_path_s"] = format_number(b.critical.value(), 6);
  }
  std::map<std::string, std::pair<double, double>> peak;  // kind -> (bytes, fraction)
  for (const auto& m : report.memory) {
    auto& [bytes, fraction] = peak[m.kind];
    bytes = std::max(bytes, m.used().value());
    if (m.capacity.value() > 0.0) fraction = std::max(fraction, m.used() / m.capacity);
  }
  for (const auto& [kind, p] : peak) {
    out["memory." + kind + ".peak_used_bytes"] = format_number(p.first, 6);
    out["memory." + kind + ".peak_fraction"] = format_number(p.second, 6);
  }
  out["placement.policy"] = report.placement_policy;
  std::map<std::string, int> tiers;
  for (const auto& t : report.placement) ++tiers[t.tier];
  std::string summary;
  for (const auto& [tier, n] : tiers) summary += (summary.empty() ? "" : ";") + tier + ":" + std::to_string(n);
  out["placement.tables_per_tier"] = summary;
  if (report.power.modelled) {
    out["power.job_average_w"] = format_number(report.power.job_average.value(), 6);
    out["power.job_peak_w"] = format_number(report.power.job_peak.value(), 6);
    out["energy.per_sample_j"] = format_number(report.power.energy_per_sample.value(), 6);
  }
  if (report.cost.available) {
    out["cost.per_sample"] = format_number(report.cost.per_sample.amount, 6);
    out["cost.currency"] = report.cost.currency;
  }
  if (const auto& g = report.goodput) {
    out["goodput.samples_per_s"] = format_number(g->chosen.goodput_samples_per_s, 6);
    out["goodput.fraction"] =
        format_number(g->throughput_samples_per_s > 0.0 ? g->chosen.goodput_samples_per_s / g->throughput_samples_per_s : 0.0, 6);
    out["goodput.time_to_train_s"] = format_number(g->chosen.expected_time.value(), 6);
    out["goodput.checkpoint_interval_s"] = format_number(g->chosen.interval.value(), 6);
    out["goodput.best_interval_s"] = format_number(g->best.interval.value(), 6);
    // +inf with no failures: left empty rather than written as a number no reader parses alike.
    if (std::isfinite(g->young_interval.value())) out["goodput.young_daly_interval_s"] = format_number(g->young_interval.value(), 6);
    if (std::isfinite(g->job_mtbf.value())) out["goodput.job_mtbf_s"] = format_number(g->job_mtbf.value(), 6);
  }
  if (const auto& st = report.stragglers) {
    out["stragglers.p50_step_s"] = format_number(st->p50.value(), 6);
    out["stragglers.p99_step_s"] = format_number(st->p99.value(), 6);
    out["stragglers.max_step_s"] = format_number(st->max.value(), 6);
    out["stragglers.mean_step_s"] = format_number(st->mean.value(), 6);
    int waited = 0;
    for (const auto& w : st->waited_for) waited += w.empty() ? 0 : 1;
    out["stragglers.waited_steps"] = std::to_string(waited);
    out["stragglers.most_waited_for"] = st->waited_counts.empty() ? "" : st->waited_counts.front().first;
  }
  return out;
}

PointOutcome run_scenario_point(const SweepPoint& point) {
  return run_scenario(point.scenario, point.scenario_source, point.overrides, point.profile_files);
}

PointOutcome run_scenario(const YAML::Node& scenario, const std::string& source,
                          const std::vector<std::string>& overrides, topo::DeviceProfileFiles* profile_files) {
  PointOutcome outcome;
  YAML::Emitter text;
  text << scenario;
  const std::string base_dir = std::filesystem::path(source).parent_path().string();
  try {
    const models::Scenario s = models::load_scenario_text(text.c_str(), source, base_dir, overrides, nullptr, profile_files);
    models::RunOptions options;
    options.profile_files = profile_files;
    outcome.outputs = report_columns(models::run_scenario(s, options));
  } catch (const placement::InfeasiblePlacement& e) {
    outcome.status = "infeasible";
    outcome.error = e.what();
  }
  return outcome;
}

}  // namespace dlrmsim::app
