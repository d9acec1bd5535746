// The `search` placement policy against plans found by brute-force enumeration, with
// synthetic evaluators standing in for the simulator.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <functional>
#include <limits>
#include <vector>

#include "placement/placement.hpp"
#include "placement_fixtures.hpp"

using namespace dlrmsim;
using namespace dlrmsim::placement;
using namespace dlrmsim::placement::testing;

namespace {

constexpr double kSplitPenalty = 1e9;

// A synthetic system: table t on tier k costs cost[t][k] on its owner; the step time is the
// busiest device's total. Split or replicated tables cost kSplitPenalty (so the optimum is a
// table-wise plan, which the test can enumerate independently).
StepTimeEvaluator makespan_evaluator(const std::vector<std::array<double, 4>>& cost, std::size_t devices) {
  return [cost, devices](const PlacementPlan& plan) {
    std::vector<double> load(devices, 0.0);
    for (const auto& tp : plan.tables) {
      if (tp.sharding != Sharding::table_wise) return Seconds(kSplitPenalty);
      load[tp.shards[0].owners[0]] += cost[tp.table][static_cast<std::size_t>(tp.tier)];
    }
    return Seconds(*std::max_element(load.begin(), load.end()));
  };
}

}  // namespace

// 3 tables of 1.5 GiB (weights + state) on 2 GPUs of 3.2 GiB, one 2 GiB socket and one
// parameter server: at most 2 tables per GPU in HBM, and the socket holds one table (or
// the UVM homes). The test enumerates all 6^3 table-wise assignments (gpu0, gpu1 in HBM;
// gpu0, gpu1 through UVM; socket; server), drops those over capacity, and takes the best
// makespan; search (exhaustive: 9^3 = 729 candidates) must reach the same value.
TEST_CASE("search finds the best plan found by enumeration") {
  PlacementProblem p = one_node(2, 3.2, 2.0, 1, 100);
  const std::int64_t rows = static_cast<std::int64_t>(1.5 * kGiB / 516.0);
  for (int i = 0; i < 3; ++i) p.tables.push_back(table("t" + std::to_string(i), rows, 128, 1));
  // Tiers: gpu_hbm, host_dram, uvm, remote_ps.
  const std::vector<std::array<double, 4>> cost{{1.0, 1.6, 1.3, 2.5}, {2.0, 2.1, 2.4, 2.2}, {1.5, 1.7, 1.9, 3.0}};
  const auto evaluator = makespan_evaluator(cost, p.devices.size());

  struct Option {
    Tier tier;
    std::uint32_t owner;
  };
  // devices: 0 socket, 1 gpu0, 2 gpu1, 3 server
  const std::vector<Option> options{{Tier::gpu_hbm, 1}, {Tier::gpu_hbm, 2}, {Tier::uvm, 1},
                                    {Tier::uvm, 2},     {Tier::host_dram, 0}, {Tier::remote_ps, 3}};
  const double footprint = p.tables[0].footprint().value();
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t a = 0; a < 6; ++a) {
    for (std::size_t b = 0; b < 6; ++b) {
      for (std::size_t c = 0; c < 6; ++c) {
        const std::array<std::size_t, 3> pick{a, b, c};
        std::vector<double> used(p.devices.size(), 0.0);
        std::vector<double> load(p.devices.size(), 0.0);
        for (std::size_t t = 0; t < 3; ++t) {
          const Option& o = options[pick[t]];
          if (o.tier == Tier::uvm) {
            used[o.owner] += std::round(0.2 * rows) * 512.0;
            used[0] += footprint;
          } else {
            used[o.owner] += footprint;
          }
          load[o.owner] += cost[t][static_cast<std::size_t>(o.tier)];
        }
        bool fits = true;
        for (std::size_t d = 0; d < p.devices.size(); ++d) fits = fits && used[d] <= p.devices[d].memory_capacity.value();
        if (fits) best = std::min(best, *std::max_element(load.begin(), load.end()));
      }
    }
  }
  REQUIRE(best < kSplitPenalty);
  PlacementOptions o;
  o.policy = "search";
  const auto plan = place(p, o, evaluator);
  REQUIRE(plan.predicted_step_time.has_value());
  CHECK(plan.predicted_step_time->value() == best);
  CHECK(evaluator(plan).value() == best);
  CHECK(plan.evaluations > 0);
  CHECK(plan.evaluations <= 729);
  // Never worse than the cost-based plan under the same evaluator.
  CHECK(best <= evaluator(place(p, PlacementOptions{})).value());
}

// Local search (exhaustive search disabled): 3 equal tables on 2 GPUs cost 1 each in HBM,
// so any all-HBM plan has makespan 2; the synthetic system makes table 0 nearly free on the
// host socket (0.1), which the placement layer's own estimates do not know. Moving table 0
// there gives makespan 1, the optimum; search must find it from the greedy starting plans.
TEST_CASE("local search improves on the greedy plans with the evaluator") {
  PlacementProblem p = one_node(2, 80, 512);
  for (int i = 0; i < 3; ++i) p.tables.push_back(table("t" + std::to_string(i), 100'000, 64, 1));
  const std::vector<std::array<double, 4>> cost{{1.0, 0.1, 10.0, 10.0}, {1.0, 10.0, 10.0, 10.0},
                                                {1.0, 10.0, 10.0, 10.0}};
  const auto evaluator = makespan_evaluator(cost, p.devices.size());
  PlacementOptions o;
  o.policy = "search";
  o.search_exhaustive_limit = 1;
  o.search_max_evaluations = 200;
  const auto greedy = place(p, PlacementOptions{}, evaluator);
  CHECK(evaluator(greedy).value() == 2.0);
  const auto plan = place(p, o, evaluator);
  CHECK(plan.predicted_step_time->value() == 1.0);
  CHECK(plan.tables[0].tier == Tier::host_dram);
  CHECK(plan.evaluations <= 200);
}

// Without an evaluator, search minimises the placement layer's own estimate (the busiest
// device's load), so it is never worse than cost_greedy by that measure.
TEST_CASE("search without an evaluator minimises the estimated load") {
  PlacementProblem p = one_node(2, 80, 512);
  for (int i = 0; i < 3; ++i) p.tables.push_back(table("t" + std::to_string(i), 100'000, 64, 1 + i));
  PlacementOptions o;
  o.policy = "search";
  const auto plan = place(p, o);
  const auto greedy = place(p, PlacementOptions{});
  CHECK(plan.max_estimated_load() <= greedy.max_estimated_load());
  CHECK(!plan.predicted_step_time.has_value());
}
