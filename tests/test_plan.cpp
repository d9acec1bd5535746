// Tests of `dlrmsim plan`'s search (app/plan.hpp): the optimum against exhaustive
// enumeration, pruning by memory, and the Pareto front.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <filesystem>
#include <unistd.h>
#include <string>
#include <vector>

#include "models/scenario.hpp"
#include "models/simulation.hpp"
#include "app/plan.hpp"
#include "app/scenario_runner.hpp"
#include "app/sweep.hpp"
#include "paths.hpp"

using namespace dlrmsim;
using namespace dlrmsim::app;

namespace {

using dlrmsim::testing::kRoot;

PlanPoint point(std::size_t index, double time, double objective) {
  PlanPoint p;
  p.index = index;
  p.label = "p" + std::to_string(index);
  p.time_to_train_s = time;
  p.throughput = 1.0 / time;
  p.objective = objective;
  return p;
}

bool dominates(const PlanPoint& a, const PlanPoint& b) {
  return a.time_to_train_s <= b.time_to_train_s && *a.objective <= *b.objective &&
         (a.time_to_train_s < b.time_to_train_s || *a.objective < *b.objective);
}

}  // namespace

TEST_CASE("plan finds the same optimum as exhaustive enumeration and prunes without simulating") {
  // Space: tests/data/plan_small.yaml, 12 points: one DGX H100 with 80 GB or 4 GB GPUs x 3
  // global batch sizes x serial or concurrent embedding kernels. The 6 points with 4 GB GPUs
  // cannot hold DCNv2's tables: plan prunes them by the placement alone (status infeasible,
  // error "pruned ..."). Target 15 M samples/s. Expected: the winner is the point an
  // independent enumeration picks - simulate every point with run_scenario, keep those that
  // fit and reach the target, take the least cost per sample (x the run's samples).
  const std::string space_path = kRoot + "/tests/data/plan_small.yaml";
  const Sweep space = load_sweep(space_path);
  REQUIRE(space.size() == 12);
  const std::string csv = (std::filesystem::temp_directory_path() / ("dlrmsim_test_plan_points_" + std::to_string(::getpid()) + ".csv")).string();
  std::filesystem::remove(csv);
  SweepOptions so;
  so.output_path = csv;
  so.threads = 2;
  run_sweep(space, run_plan_point, scenario_output_columns(), so);
  PlanOptions po;
  po.target_samples_per_s = 15e6;
  po.training_samples = 1e9;
  const auto rows = read_result_rows(csv, space, scenario_output_columns());
  const PlanResult r = select_plan(rows.rows, sweep_columns(space, scenario_output_columns()), po);
  std::filesystem::remove(csv);
  CHECK(r.points == 12);
  CHECK(r.pruned == 6);
  CHECK(r.simulated == 6);
  CHECK(r.failed == 0);

  // Exhaustive enumeration.
  std::optional<std::size_t> best;
  double best_cost = 0.0, best_thr = 0.0;
  std::size_t infeasible = 0;
  for (std::size_t i = 0; i < space.size(); ++i) {
    const SweepPoint p = space.point(i);
    YAML::Emitter text;
    text << p.scenario;
    const auto sc = models::load_scenario_text(text.c_str(), p.scenario_source,
                                               std::filesystem::path(p.scenario_source).parent_path().string(), p.overrides);
    models::RunReport rep;
    try {
      rep = models::run_scenario(sc);
    } catch (const placement::InfeasiblePlacement&) {
      ++infeasible;
      continue;
    }
    REQUIRE(rep.cost.available);
    if (rep.throughput_samples_per_s < po.target_samples_per_s) continue;
    const double cost = rep.cost.per_sample.amount * po.training_samples;
    if (!best || cost < best_cost || (cost == best_cost && rep.throughput_samples_per_s > best_thr)) {
      best = i;
      best_cost = cost;
      best_thr = rep.throughput_samples_per_s;
    }
  }
  CHECK(infeasible == 6);  // the pruned points are exactly the infeasible ones
  REQUIRE(best.has_value());
  REQUIRE(r.winner.has_value());
  CHECK(r.winner->index == *best);
  CHECK(*r.winner->objective == dlrmsim::rel(best_cost).epsilon(1e-5));  // CSV keeps 6 digits
  // No point on the front is dominated by a simulated point.
  for (const auto& f : r.front) {
    for (const auto& p : r.ok) CHECK_FALSE(dominates(p, f));
  }
}

TEST_CASE("the Pareto front keeps exactly the non-dominated points") {
  // Points (time to train, cost): p0 (1, 10), p1 (2, 5), p2 (2, 7) dominated by p1, p3 (3, 6)
  // dominated by p1, p4 (4, 1), p5 (1, 12) dominated by p0. Expected front: p0, p1, p4, in
  // order of time; every other point is dominated by one of them.
  const std::vector<PlanPoint> pts{point(0, 1, 10), point(1, 2, 5), point(2, 2, 7),
                                   point(3, 3, 6),  point(4, 4, 1), point(5, 1, 12)};
  const auto front = pareto_front(pts);
  REQUIRE(front.size() == 3);
  CHECK(front[0].index == 0);
  CHECK(front[1].index == 1);
  CHECK(front[2].index == 4);
  for (const auto& f : front) {
    for (const auto& p : pts) CHECK_FALSE(dominates(p, f));
  }
  for (const auto& p : pts) {
    bool on_front = false, dominated = false;
    for (const auto& f : front) {
      on_front = on_front || f.index == p.index;
      dominated = dominated || dominates(f, p);
    }
    CHECK((on_front || dominated));
  }
}
