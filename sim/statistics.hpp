// Statistics of a simulated run: where the time went per category of activity, and how busy
// each class of resources and compute engines was.
//
//   sim::Window w{begin_ps, end_ps, measured_steps};
//   auto b = sim::breakdown(graph, result, {"dense_compute", "embedding_lookup", ...}, w, last_step_end);
//   auto u = sim::utilization(graph, result);
//
// Definitions (per category, over the window [begin, end), divided by the window's steps):
//   busy      the length of the union of the intervals during which some activity of the
//             category runs (anywhere in the graph);
//   exposed   the part of busy not covered by a category earlier in the given order: the time
//             this category alone adds;
//   critical  the part of the critical path (sim/critical_path.hpp: walking back from the
//             window's last activity, each activity's predecessor is the dependency or stream
//             predecessor that finished last) spent in the category; the gaps between the
//             path's activities are the critical idle time.
// Markers carry no time and count nowhere. Utilisation per resource kind (Resource::kind):
// bytes moved / (capacity x makespan) over the resources that carried traffic (core pools:
// work units); per compute engine kind (ComputeEngine::kind): busy time / makespan over the
// engines that ran work.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/units.hpp"
#include "sim/activity_graph.hpp"

namespace dlrmsim::sim {

class WaitGraph;  // sim/critical_path.hpp

/// The measured part of a run: picoseconds [begin_ps, end_ps), holding `steps` steps; the
/// breakdown's times are per step.
struct Window {
  std::int64_t begin_ps = 0;
  std::int64_t end_ps = 0;
  int steps = 1;
};

struct CategoryTimes {
  std::string category;
  Seconds busy;      // per step
  Seconds exposed;   // per step
  Seconds critical;  // per step, on the critical path
};

struct Breakdown {
  std::vector<CategoryTimes> categories;  // in the order asked for (names the graph lacks are left out)
  Seconds exposed_total;                  // per step: sum of exposed
  Seconds critical_idle;                  // per step: gaps on the critical path
};

/// Busy, exposed and critical time per category, for the categories named in `order` (in
/// that order), over window `w`; the critical path is walked back from `end`.
Breakdown breakdown(const ActivityGraph& g, const SimResult& r, std::span<const std::string_view> order,
                    const Window& w, ActivityId end);
/// The same with the graph's wait index already built (a run that also walks other critical
/// paths, such as the stragglers report, indexes the graph once).
Breakdown breakdown(const ActivityGraph& g, const SimResult& r, std::span<const std::string_view> order,
                    const Window& w, ActivityId end, const WaitGraph& waits);

/// Per category id of `g`, the picoseconds of the critical path that ends at `end` and runs
/// back to `from` (ps).
std::vector<std::int64_t> critical_path_by_category(const ActivityGraph& g, const SimResult& r, ActivityId end,
                                                    std::int64_t from);
std::vector<std::int64_t> critical_path_by_category(const ActivityGraph& g, const SimResult& r, ActivityId end,
                                                    std::int64_t from, const WaitGraph& waits);

struct UtilizationEntry {
  std::string resource_class;  // "nvlink", "pcie", "nic", "hbm", "gpu", "cpu", ...
  bool compute = false;        // a compute-engine kind (else a bandwidth resource class)
  bool cores = false;          // a class of core pools (host threads, a node's cores): busy share of their cores
  std::size_t count = 0;       // resources / engines that were used
  double utilization = 0.0;
  Bytes bytes;                 // bandwidth classes: bytes over all of them, per step
};

/// Utilisation per resource kind (in kind order), then per compute engine kind (in kind
/// order), over the whole run; `steps` divides the bandwidth classes' bytes.
std::vector<UtilizationEntry> utilization(const ActivityGraph& g, const SimResult& r, int steps);

}  // namespace dlrmsim::sim
