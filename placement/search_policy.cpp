// The `search` policy: evaluate candidate plans with the caller's step-time evaluator (the
// simulator, passed in by the models layer) and keep the fastest.
//
// Candidates for one table: table-wise on any owner of any usable tier, row-wise over all
// owners of a tier, and a data-parallel replica on every GPU. When the product of the
// per-table choice counts is at most `search_exhaustive_limit`, every combination is built
// and evaluated (so small cases are solved exactly; infeasible ones are skipped). Otherwise
// a first-improvement local search starts from the best of the other policies' plans and
// moves one table at a time (per tier: to the least-loaded other owner, row-wise, or
// replicated) while that lowers the evaluated step time, until no move helps or
// `search_max_evaluations` is spent.
// Ties keep the earlier candidate, so the result is deterministic.
// Without an evaluator the objective is the plan's largest estimated device load.
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "placement/plan_builder.hpp"
#include "placement/placement.hpp"

namespace dlrmsim::placement {
namespace {

// One way to place a whole table.
struct Choice {
  Tier tier = Tier::gpu_hbm;
  Sharding sharding = Sharding::table_wise;
  std::uint32_t owner = 0;  // table_wise only
};

std::vector<Choice> choices_for(const PlanBuilder& b) {
  std::vector<Choice> out;
  for (Tier tier : b.usable_tiers()) {
    const auto& owners = b.owners_of(tier);
    for (std::uint32_t o : owners) out.push_back({tier, Sharding::table_wise, o});
    if (owners.size() > 1) out.push_back({tier, Sharding::row_wise, 0});
    if (tier_of(tier).properties().replicable && owners.size() > 1) out.push_back({tier, Sharding::data_parallel, 0});
  }
  return out;
}

// The moves local search tries for one table: per tier, table-wise on the least-loaded
// owner that does not own it now (by the placement layer's estimated load), row-wise over
// the tier's owners, and a data-parallel replica. A handful of moves per table instead of
// one per device keeps the evaluator budget spread over many tables on large platforms.
std::vector<Choice> local_moves(const PlanBuilder& b, std::size_t table) {
  std::vector<Choice> out;
  const auto& current = b.table(table);
  for (Tier tier : b.usable_tiers()) {
    const auto& owners = b.owners_of(tier);
    std::optional<std::uint32_t> least;
    for (std::uint32_t o : owners) {
      const bool owns = current && current->tier == tier && current->shards.size() == 1 &&
                        current->shards[0].owners == std::vector<std::uint32_t>{o};
      if (owns) continue;
      if (!least || b.load(o) < b.load(*least)) least = o;
    }
    if (least) out.push_back({tier, Sharding::table_wise, *least});
    if (owners.size() > 1) out.push_back({tier, Sharding::row_wise, 0});
    if (tier_of(tier).properties().replicable && owners.size() > 1) out.push_back({tier, Sharding::data_parallel, 0});
  }
  return out;
}

void apply(PlanBuilder& b, std::size_t table, const Choice& c) {
  const TableDemand& t = b.problem().tables[table];
  b.remove_table(table);
  switch (c.sharding) {
    case Sharding::data_parallel: b.add_data_parallel(table); return;
    case Sharding::row_wise: {
      const auto& owners = b.owners_of(c.tier);
      const auto parts = static_cast<std::int64_t>(owners.size());
      Sharding label = Sharding::row_wise;
      if (!tier_of(c.tier).properties().remote && b.problem().trainer_node_count() > 1) {
        const auto node = b.problem().devices[owners.front()].node;
        bool one_node = true;
        for (auto o : owners) one_node = one_node && b.problem().devices[o].node == node;
        if (one_node) label = Sharding::table_row_wise;
      }
      for (std::int64_t p = 0; p < parts; ++p) {
        b.add_shard(table, c.tier, label, owners[static_cast<std::size_t>(p)], t.rows * p / parts,
                    t.rows * (p + 1) / parts, 0, t.dim);
      }
      return;
    }
    default: b.add_shard(table, c.tier, Sharding::table_wise, c.owner, 0, t.rows, 0, t.dim); return;
  }
}

class Evaluation {
 public:
  Evaluation(const PlacementProblem& problem, const PlacementOptions& options, const StepTimeEvaluator& evaluator)
      : problem_(problem), options_(options), evaluator_(evaluator) {}

  /// The step time of a plan, or nullopt when it does not fit.
  std::optional<double> operator()(PlacementPlan& plan) {
    plan.policy = "search";
    account(problem_, options_, plan);
    try {
      check_capacity(plan, options_);
    } catch (const InfeasiblePlacement&) {
      return std::nullopt;
    }
    ++count;
    return evaluator_ ? evaluator_(plan).value() : plan.max_estimated_load().value();
  }
  std::size_t count = 0;

 private:
  const PlacementProblem& problem_;
  const PlacementOptions& options_;
  const StepTimeEvaluator& evaluator_;
};

}  // namespace

PlacementPlan plan_search(const PlacementProblem& problem, const PlacementOptions& options,
                          const StepTimeEvaluator& evaluator) {
  Evaluation evaluate(problem, options, evaluator);
  PlanBuilder b(problem, options);
  const auto choices = choices_for(b);
  if (choices.empty()) {
    throw InfeasiblePlacement("no placement tier is usable: the platform has no device for any of the allowed tiers",
                              "", Bytes(0.0));
  }
  const std::size_t n = problem.tables.size();
  const double space = std::pow(static_cast<double>(choices.size()), static_cast<double>(n));
  std::optional<PlacementPlan> best;
  double best_time = std::numeric_limits<double>::infinity();
  auto consider = [&](PlacementPlan plan) {
    const auto time = evaluate(plan);
    if (time && *time < best_time) {
      best_time = *time;
      best = std::move(plan);
      return true;
    }
    return false;
  };

  if (space <= static_cast<double>(options.search_exhaustive_limit)) {
    // Odometer over choice indices; table n-1 varies fastest.
    std::vector<std::size_t> index(n, 0);
    for (std::size_t t = 0; t < n; ++t) apply(b, t, choices[0]);
    while (true) {
      consider(b.plan());
      bool done = true;
      for (std::size_t t = n; t-- > 0;) {
        if (++index[t] < choices.size()) {
          apply(b, t, choices[index[t]]);
          done = false;
          break;
        }
        index[t] = 0;
        apply(b, t, choices[0]);
      }
      if (done) break;
    }
    if (!best) {
      // Nothing fits: report the overflow of the cost-based plan.
      PlacementOptions greedy = options;
      greedy.policy = "cost_greedy";
      return placement_policy("cost_greedy").plan(problem, greedy, evaluator);
    }
    best->evaluations = evaluate.count;
    best->notes.push_back("search: exhaustive over " + std::to_string(static_cast<long long>(space)) +
                          " candidate plans" + (evaluator ? "" : " (objective: largest estimated device load)"));
    if (evaluator) best->predicted_step_time = Seconds(best_time);
    return *best;
  }

  // Local search from the best starting plan of the other policies.
  std::optional<PlacementPlan> start;
  double start_time = std::numeric_limits<double>::infinity();
  for (const auto& policy : placement_policies()) {
    if (policy.name == "search" || (policy.needs_plan && !options.explicit_plan)) continue;
    PlacementPlan plan;
    try {
      plan = policy.plan(problem, options, evaluator);
    } catch (const InfeasiblePlacement&) {
      continue;
    }
    const auto time = evaluate(plan);
    if (time && *time < start_time) {
      start_time = *time;
      start = std::move(plan);
    }
  }
  if (!start) return placement_policy("cost_greedy").plan(problem, options, evaluator);
  for (auto& tp : start->tables) b.set_table(tp.table, tp);
  best_time = start_time;
  best = start;
  bool improved = true;
  while (improved && evaluate.count < options.search_max_evaluations) {
    improved = false;
    for (std::size_t t = 0; t < n && evaluate.count < options.search_max_evaluations; ++t) {
      const TablePlacement current = *b.table(t);
      for (const Choice& c : local_moves(b, t)) {
        if (evaluate.count >= options.search_max_evaluations) break;
        apply(b, t, c);
        if (consider(b.plan())) {
          improved = true;
          break;  // keep the move, go to the next table
        }
        b.set_table(t, current);
      }
    }
  }
  best->evaluations = evaluate.count;
  best->notes.push_back("search: local search, " + std::to_string(evaluate.count) + " plans evaluated" +
                        (evaluator ? "" : " (objective: largest estimated device load)"));
  if (evaluator) best->predicted_step_time = Seconds(best_time);
  return *best;
}

}  // namespace dlrmsim::placement
