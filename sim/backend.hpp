// Backends run an ActivityGraph and report when every activity started and ended.
//
//  - `native`  (native_engine.hpp): our event engine with incremental max-min sharing.
//  - `simgrid` (simgrid_backend.hpp): the same graph replayed on SimGrid 3.32 with S4U actors,
//    the reference the native sharing model is tested against.
// Both give the same semantics: a transfer pays the sum of its route's latencies, then moves
// its bytes at the max-min fair rate of its route; a compute task takes its duration.
#pragma once

#include <span>
#include <string_view>

#include "sim/activity_graph.hpp"

namespace dlrmsim::sim {

struct BackendInfo {
  std::string_view name;
  std::string_view description;
  SimResult (*run)(const ActivityGraph&);
};

/// Every backend, in a fixed order.
std::span<const BackendInfo> backends();
/// The backend called `name`; throws std::invalid_argument naming the known ones otherwise.
const BackendInfo& backend(std::string_view name);

}  // namespace dlrmsim::sim
