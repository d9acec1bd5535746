// The steady state of a run's measured steps (models/steady_state.hpp).
#include <doctest/doctest.h>

#include "approx.hpp"

#include <vector>

#include "models/steady_state.hpp"

using dlrmsim::models::find_steady_state;

// Equal steps: period 1, the mean over all of them, no spread.
TEST_CASE("equal steps are a steady state of period 1") {
  const std::vector<double> d{2e-3, 2e-3, 2e-3};
  const auto s = find_steady_state(d);
  CHECK(s.period == 1);
  CHECK(s.steps_used == 3);
  CHECK(s.spread == 0.0);
}

// Two step lengths alternating (a pipelined step that settles into a pattern of two): period
// 2; with 5 measured steps the mean is over the last 4 (two whole periods), so a 5th step does
// not tilt it towards one of the two lengths. Spread (1.3 - 0.8) / mean(0.8, 1.3, 0.8, 1.3, 0.8).
TEST_CASE("alternating steps are a periodic steady state of period 2") {
  const std::vector<double> d{0.8, 1.3, 0.8, 1.3, 0.8};
  const auto s = find_steady_state(d);
  CHECK(s.period == 2);
  CHECK(s.steps_used == 4);
  CHECK(s.spread == dlrmsim::rel(0.5 / 1.0));
}

// A pattern of three: periods 1 and 2 fail (1.0 vs 2.0, 1.0 vs 3.0), 3 holds over 6 steps.
TEST_CASE("a pattern of three steps has period 3") {
  const std::vector<double> d{1.0, 2.0, 3.0, 1.0, 2.0, 3.0, 1.0};
  const auto s = find_steady_state(d);
  CHECK(s.period == 3);
  CHECK(s.steps_used == 6);
}

// Differences below kSteadyTolerance x mean (1e-3 of 1.0 here) count as equal; above, not.
TEST_CASE("steps equal within the tolerance are steady; beyond it they are not") {
  const std::vector<double> within{1.0, 1.0 + 5e-4, 1.0, 1.0 + 5e-4};
  CHECK(find_steady_state(within).period == 1);
  const std::vector<double> beyond{1.0, 1.0 + 5e-3, 1.0 + 1e-2, 1.0 + 1.5e-2};
  CHECK(find_steady_state(beyond).period == 0);
}

// Steps still growing (a run that has not settled): no period up to M / 2 = 2, so not steady,
// and the step time is the mean of all measured steps. A single step cannot show a pattern.
TEST_CASE("growing steps are not steady, and one step cannot tell") {
  const std::vector<double> growing{1.0, 1.1, 1.2, 1.3};
  const auto s = find_steady_state(growing);
  CHECK(s.period == 0);
  CHECK(s.steps_used == 4);
  CHECK(s.spread == dlrmsim::rel(0.3 / 1.15));
  const std::vector<double> one{1.0};
  CHECK(find_steady_state(one).period == 0);
  CHECK(find_steady_state(one).steps_used == 1);
}
