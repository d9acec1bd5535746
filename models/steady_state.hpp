// Whether a run's measured steps reached a steady state, and which.
//
// A pipelined training step need not repeat every step: with prefetch and two input buffers,
// consecutive steps can settle into a pattern that repeats every p steps (the 4096-GPU DCNv2
// scenario in representative fidelity alternates two step lengths forever). The steady state
// is then periodic, and the step time is the mean over whole periods. A pattern counts as
// found when every measured step lasts as long as the one p steps earlier, within
// kSteadyTolerance of the mean step; the smallest such p is the period. Two whole periods
// are needed to see one, so with M measured steps periods up to M / 2 can be found.
#pragma once

#include <span>

namespace dlrmsim::models {

/// Relative tolerance (of the mean measured step) for two steps to count as equally long.
/// Steady runs repeat to about 1e-9 (the engine's picosecond clock); 1e-3 leaves room for
/// floating-point drift over long runs without accepting real variation.
inline constexpr double kSteadyTolerance = 1e-3;

struct SteadyState {
  /// Steps per repeating pattern: 1 when every measured step is alike, 0 when the measured
  /// steps show no repeating pattern (not steady) or are too few to tell (a single step).
  int period = 0;
  /// Measured steps the step time averages over: the last whole periods (all of them when no
  /// period was found).
  int steps_used = 0;
  /// (longest - shortest) / mean of the measured steps.
  double spread = 0.0;
};

/// The steady state of the measured steps' durations (seconds, in order).
SteadyState find_steady_state(std::span<const double> durations);

}  // namespace dlrmsim::models
