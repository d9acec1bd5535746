#include "app/plan.hpp"

#include <algorithm>
#include <filesystem>

#include "common/text.hpp"
#include "models/scenario.hpp"
#include "models/simulation.hpp"
#include "placement/placement.hpp"
#include "app/scenario_runner.hpp"

namespace dlrmsim::app {

PointOutcome run_plan_point(const SweepPoint& point) {
  YAML::Emitter text;
  text << point.scenario;
  const std::string base_dir = std::filesystem::path(point.scenario_source).parent_path().string();
  const models::Scenario sc = models::load_scenario_text(text.c_str(), point.scenario_source, base_dir, point.overrides);
  PointOutcome outcome;
  // Pruning: the placement alone, no simulation.
  if (sc.placement.policy != "search") {
    try {
      const topo::DeviceProfileSet profiles(sc.calibration_dir, point.profile_files);
      (void)models::place_scenario(sc, profiles);
    } catch (const placement::InfeasiblePlacement& e) {
      outcome.status = "infeasible";
      outcome.error = std::string("pruned by memory before simulating: ") + e.what();
      return outcome;
    }
  }
  try {
    models::RunOptions run;
    run.profile_files = point.profile_files;
    outcome.outputs = report_columns(models::run_scenario(sc, run));
  } catch (const placement::InfeasiblePlacement& e) {
    outcome.status = "infeasible";
    outcome.error = e.what();
  }
  return outcome;
}

std::vector<PlanPoint> pareto_front(const std::vector<PlanPoint>& points) {
  std::vector<PlanPoint> with;
  for (const auto& p : points) {
    if (p.objective) with.push_back(p);
  }
  // Sorted by time, then objective: a point is on the front when its objective is below every
  // objective seen before it (those are at most as slow).
  std::sort(with.begin(), with.end(), [](const PlanPoint& a, const PlanPoint& b) {
    if (a.time_to_train_s != b.time_to_train_s) return a.time_to_train_s < b.time_to_train_s;
    if (*a.objective != *b.objective) return *a.objective < *b.objective;
    return a.index < b.index;
  });
  std::vector<PlanPoint> front;
  for (const auto& p : with) {
    if (front.empty() || *p.objective < *front.back().objective) {
      // A point as fast as the previous front point and cheaper cannot come later (sorted by
      // objective within equal times), so the front stays free of dominated points.
      if (!front.empty() && front.back().time_to_train_s == p.time_to_train_s) continue;
      front.push_back(p);
    }
  }
  return front;
}

PlanResult select_plan(const std::map<std::size_t, std::string>& rows, const std::vector<std::string>& columns,
                       const PlanOptions& options) {
  auto column = [&](const std::string& name) {
    const auto it = std::find(columns.begin(), columns.end(), name);
    return it == columns.end() ? columns.size() : static_cast<std::size_t>(it - columns.begin());
  };
  const std::size_t c_label = column("label"), c_status = column("status"), c_error = column("error"),
                    c_thr = column("throughput_samples_per_s"), c_cost = column("cost.per_sample"),
                    c_cur = column("cost.currency"), c_energy = column("energy.per_sample_j");
  PlanResult r;
  for (const auto& [index, line] : rows) {
    const auto f = csv_split(line);
    auto at = [&](std::size_t c) { return c < f.size() ? f[c] : std::string(); };
    ++r.points;
    const std::string status = at(c_status);
    if (status == "infeasible" && at(c_error).rfind("pruned", 0) == 0) {
      ++r.pruned;
      continue;
    }
    ++r.simulated;
    if (status != "ok") {
      ++r.failed;
      continue;
    }
    PlanPoint p;
    p.index = index;
    p.label = at(c_label);
    p.throughput = std::stod(at(c_thr));
    p.time_to_train_s = p.throughput > 0.0 ? options.training_samples / p.throughput : 0.0;
    const std::string per_sample = options.objective == PlanObjective::cost ? at(c_cost) : at(c_energy);
    if (!per_sample.empty()) {
      p.objective = std::stod(per_sample) * options.training_samples;
      if (options.objective == PlanObjective::cost) p.currency = at(c_cur);
    } else {
      ++r.without_objective;
    }
    if (!r.fastest || p.throughput > r.fastest->throughput) r.fastest = p;
    if (p.objective && p.throughput >= options.target_samples_per_s) {
      const bool better = !r.winner || *p.objective < *r.winner->objective ||
                          (*p.objective == *r.winner->objective && p.throughput > r.winner->throughput);
      if (better) r.winner = p;
    }
    r.ok.push_back(std::move(p));
  }
  r.front = pareto_front(r.ok);
  return r;
}

}  // namespace dlrmsim::app
