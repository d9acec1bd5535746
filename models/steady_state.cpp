#include "models/steady_state.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace dlrmsim::models {

SteadyState find_steady_state(std::span<const double> d) {
  SteadyState s;
  const auto m = static_cast<int>(d.size());
  s.steps_used = m;
  if (m == 0) return s;
  const double mean = std::accumulate(d.begin(), d.end(), 0.0) / m;
  const auto [lo, hi] = std::minmax_element(d.begin(), d.end());
  s.spread = mean > 0.0 ? (*hi - *lo) / mean : 0.0;
  if (m < 2) return s;
  for (int p = 1; 2 * p <= m; ++p) {
    bool repeats = true;
    for (int k = p; k < m && repeats; ++k) repeats = std::abs(d[k] - d[k - p]) <= kSteadyTolerance * mean;
    if (repeats) {
      s.period = p;
      s.steps_used = m - m % p;
      return s;
    }
  }
  return s;
}

}  // namespace dlrmsim::models
