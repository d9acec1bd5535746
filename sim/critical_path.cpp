#include "sim/critical_path.hpp"

namespace dlrmsim::sim {

WaitGraph::WaitGraph(const ActivityGraph& g) {
  const std::size_t n = g.activity_count();
  offset_.assign(n + 1, 0);
  for (std::size_t a = 0; a < n; ++a) {
    g.for_each_successor(ActivityId{static_cast<std::uint32_t>(a)}, [&](ActivityId s) { ++offset_[s.index + 1]; });
  }
  for (std::size_t a = 0; a < n; ++a) offset_[a + 1] += offset_[a];
  preds_.resize(offset_[n]);
  std::vector<std::uint32_t> fill(offset_.begin(), offset_.end() - 1);
  for (std::size_t a = 0; a < n; ++a) {
    g.for_each_successor(ActivityId{static_cast<std::uint32_t>(a)},
                         [&](ActivityId s) { preds_[fill[s.index]++] = static_cast<std::uint32_t>(a); });
  }
  stream_previous_.assign(n, kNone);
  std::vector<std::uint32_t> last(g.stream_count(), kNone);
  for (std::size_t a = 0; a < n; ++a) {
    const auto& act = g.activity(ActivityId{static_cast<std::uint32_t>(a)});
    if (act.stream == Stream::kNone) continue;
    stream_previous_[a] = last[act.stream];
    last[act.stream] = static_cast<std::uint32_t>(a);
  }
}

std::uint32_t WaitGraph::waited_for(std::uint32_t a, const SimResult& r) const {
  std::uint32_t best = stream_previous_[a];
  for (std::uint32_t k = offset_[a]; k < offset_[a + 1]; ++k) {
    const std::uint32_t p = preds_[k];
    if (best == kNone || r.end[p].ps() > r.end[best].ps()) best = p;
  }
  return best;
}

}  // namespace dlrmsim::sim
