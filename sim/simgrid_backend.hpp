// Replays an ActivityGraph on SimGrid 3.32 (S4U actors); the reference for the native engine.
#pragma once

#include "sim/activity_graph.hpp"

namespace dlrmsim::sim {

/// Runs `graph` on SimGrid in a child process (SimGrid allows one engine per process and
/// keeps global state), returning the same kind of result as simulate_native.
SimResult simulate_simgrid(const ActivityGraph& graph);

}  // namespace dlrmsim::sim
