// `dlrmsim plan`: the cheapest (or least-energy) configuration that meets a throughput
// target, searched over a sweep file's space, and the Pareto front of cost against time to
// train.
//
// The search space is a sweep file (app/sweep.hpp: a base scenario and axes such as node
// templates, node counts, fabric oversubscription, placement policies, software stacks).
// Every point is run by run_plan_point:
//   1. pruning: the scenario is loaded and its embedding placement planned without
//      simulation (models::place_scenario with the scenario's policy); a point whose tables
//      do not fit in memory becomes status "infeasible" with an error starting "pruned" and
//      is never simulated. (The `search` policy needs simulations to plan, so its points are not
//      pruned; they are simulated and may still come out infeasible.)
//   2. simulation: the scenario is run as `dlrmsim run` does, and its sweep columns recorded.
// The points' rows go to a result CSV through the sweep machinery (threads, resume), then
// select_plan picks:
//   - feasible: rows with status ok and throughput >= the target;
//   - winner: the feasible row with the smallest objective per training run (cost: cost per
//     sample x samples; energy: energy per sample x samples), ties broken by the higher
//     throughput, then the lower point number;
//   - front: the rows (status ok, target or not) not dominated in (objective per run, time
//     to train = samples / throughput): no other row is at most as large in both and
//     smaller in one. Sorted by time to train.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/sweep.hpp"

namespace dlrmsim::app {

enum class PlanObjective { cost, energy };

struct PlanOptions {
  double target_samples_per_s = 0.0;
  double training_samples = 0.0;  // samples of the training run (time to train, per-run figures)
  PlanObjective objective = PlanObjective::cost;
};

struct PlanPoint {
  std::size_t index = 0;
  std::string label;
  double throughput = 0.0;          // samples/s
  double time_to_train_s = 0.0;     // training_samples / throughput
  std::optional<double> objective;  // per training run: money (currency) or joules
  std::string currency;             // cost objective
};

struct PlanResult {
  std::size_t points = 0;     // rows of the space
  std::size_t pruned = 0;     // infeasible by memory, never simulated
  std::size_t simulated = 0;  // rows that ran a simulation (ok, or infeasible/error after simulating)
  std::size_t failed = 0;     // status error, or infeasible other than pruned
  std::size_t without_objective = 0;  // ok rows with no cost (or energy) figure
  std::vector<PlanPoint> ok;          // every simulated point with status ok
  std::optional<PlanPoint> winner;    // cheapest meeting the target
  std::optional<PlanPoint> fastest;   // highest throughput (the best when the target is unmet)
  std::vector<PlanPoint> front;
};

/// Prunes by memory, then simulates (see the top of this file).
PointOutcome run_plan_point(const SweepPoint& point);

/// The plan's choice from the rows of a finished result file (`rows`: CSV lines as
/// read_result_rows returns them, `columns`: sweep_columns of the sweep).
PlanResult select_plan(const std::map<std::size_t, std::string>& rows, const std::vector<std::string>& columns,
                       const PlanOptions& options);

/// The points of `points` that no other point dominates in (objective, time to train); points
/// without an objective are left out. Sorted by time to train, then objective.
std::vector<PlanPoint> pareto_front(const std::vector<PlanPoint>& points);

}  // namespace dlrmsim::app
