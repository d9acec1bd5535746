// The native event engine: runs an ActivityGraph with an integer-picosecond clock.
#pragma once

#include "sim/activity_graph.hpp"

namespace dlrmsim::sim {

/// Runs `graph` to completion. Deterministic: the same graph gives bit-identical results.
/// Throws GraphError if some activities can never start (a dependency cycle), naming a cycle.
SimResult simulate_native(const ActivityGraph& graph);

}  // namespace dlrmsim::sim
