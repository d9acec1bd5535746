#include "sim/dominated_resources.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace dlrmsim::sim {

std::vector<std::uint8_t> dominated_resources(const ActivityGraph& g) {
  const std::size_t n = g.resource_count();
  std::vector<double> capacity(n);
  for (std::size_t r = 0; r < n; ++r) capacity[r] = g.resource(ResourceId{static_cast<std::uint32_t>(r)}).capacity.value();
  // Per resource: the resources of lower capacity every route seen so far through it crosses
  // (its candidates, in a pool: [begin, begin + count)), or none left.
  constexpr std::uint8_t unseen = 0, candidates = 1, none = 2;
  std::vector<std::uint8_t> state(n, unseen);
  std::vector<std::uint32_t> begin(n, 0);
  std::vector<std::uint8_t> count(n, 0);
  std::vector<std::uint32_t> pool;
  const std::size_t activities = g.activity_count();
  for (std::size_t i = 0; i < activities; ++i) {
    const ActivityId a{static_cast<std::uint32_t>(i)};
    if (g.activity(a).kind != ActivityKind::transfer) continue;
    const std::span<const ResourceId> route = g.route(a);
    auto crosses = [&](std::uint32_t r) {
      return std::any_of(route.begin(), route.end(), [&](ResourceId x) { return x.index == r; });
    };
    for (const ResourceId hop : route) {
      const std::uint32_t r = hop.index;
      if (state[r] == none) continue;
      if (state[r] == unseen) {
        begin[r] = static_cast<std::uint32_t>(pool.size());
        const double below = capacity[r] * (1.0 - kDominanceMargin);
        for (const ResourceId other : route) {
          if (capacity[other.index] < below) pool.push_back(other.index);
        }
        count[r] = static_cast<std::uint8_t>(pool.size() - begin[r]);
        state[r] = count[r] > 0 ? candidates : none;
        continue;
      }
      std::uint32_t* c = pool.data() + begin[r];
      std::uint8_t kept = 0;
      for (std::uint8_t k = 0; k < count[r]; ++k) {
        if (crosses(c[k])) c[kept++] = c[k];
      }
      count[r] = kept;
      if (kept == 0) state[r] = none;
    }
  }
  std::vector<std::uint8_t> dominated(n, 0);
  for (std::size_t r = 0; r < n; ++r) dominated[r] = state[r] == candidates ? 1 : 0;
  return dominated;
}

}  // namespace dlrmsim::sim
