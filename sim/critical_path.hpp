// What each activity of a simulated graph waited for: the walk behind critical paths.
//
// An activity's predecessor on the critical path is whichever of its dependencies and its
// stream predecessor (the task added to the same stream before it) finished last; markers
// carry no time of their own but are walked through. Walking predecessors back from a step's
// end gives that step's critical path (sim/statistics.hpp charges it per category;
// models/stragglers.hpp finds the slowest member on it).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/activity_graph.hpp"

namespace dlrmsim::sim {

class WaitGraph {
 public:
  static constexpr std::uint32_t kNone = 0xffffffffu;

  /// Indexes the graph's predecessors (compressed lists) and stream predecessors.
  explicit WaitGraph(const ActivityGraph& g);

  /// The activity `a` waited for last in run `r` (kNone when it waited for nothing).
  [[nodiscard]] std::uint32_t waited_for(std::uint32_t a, const SimResult& r) const;

  /// Visits the critical path back from `end` while activities end after `from` (ps).
  template <class F>
  void walk_back(ActivityId end, std::int64_t from, const SimResult& r, F&& visit) const {
    for (std::uint32_t a = end.index; a != kNone && r.end[a].ps() > from; a = waited_for(a, r)) visit(a);
  }

 private:
  std::vector<std::uint32_t> offset_;           // preds_ of a: [offset_[a], offset_[a+1])
  std::vector<std::uint32_t> preds_;
  std::vector<std::uint32_t> stream_previous_;  // kNone when not a compute task or first on its stream
};

}  // namespace dlrmsim::sim
