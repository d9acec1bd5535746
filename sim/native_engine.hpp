// The native event engine: runs an ActivityGraph with an integer-picosecond clock.
//
// Events
//   A binary heap ordered by (time, sequence number); the sequence number is taken from one
//   counter whenever an event is scheduled, so events at the same picosecond run in the order
//   they were scheduled and every run is bit-for-bit repeatable. Flow completions live in a
//   second, indexed heap keyed the same way (a rate change moves the flow's entry instead of
//   leaving stale entries behind); the loop always takes the smaller of the two tops.
//   Activities enter the queues only when their last dependency finishes (dependency
//   counters), so memory for events and flows is bounded by what runs concurrently.
//
// Flow-level bandwidth sharing (max-min fairness)
//   A transfer first waits the sum of its route's latencies, then becomes a flow that crosses
//   every resource of its route. Rates are max-min fair: no flow can get more without taking
//   from a flow that has no more. They are computed by progressive filling ("water-filling",
//   Bertsekas & Gallager, Data Networks, 2nd ed., sec. 6.5.2): repeatedly take the resource
//   whose remaining capacity divided by its number of unfixed flows is smallest, fix all its
//   unfixed flows at that share, and subtract their rates from the other resources they
//   cross. A min-heap of shares (lazy: stale entries are skipped) gives
//   O(H log R) per computation for H flow-hops over R resources in the computation.
//
// Incremental recomputation
//   A start or finish marks the resources of its route dirty. Once all events of the current
//   instant have run, the engine gathers the connected component of the flow/resource
//   coupling graph reachable from the dirty resources (breadth-first, O(H_c)), advances those
//   flows' remaining bytes to now, and re-runs water-filling over that component only. Flows
//   outside it keep their rates and their completion events. Completions at one instant are
//   batched: 261,632 equal flows finishing together cost one recomputation, not 261,632.
//   Flows whose rate did not change keep their scheduled completion.
//
// Rounding: compute durations and route latencies are rounded to the nearest picosecond;
// a flow's completion is rounded up, so a transfer finishes at most 1 ps late.
//
// Complexity: O(E log Q) for E events with Q queued events, plus O(H_c log R_c) per
// recomputation of a component with H_c flow-hops over R_c resources.
#pragma once

#include "sim/activity_graph.hpp"

namespace dlrmsim::sim {

/// How rates are recomputed after a start or finish (see "Incremental recomputation").
struct NativeOptions {
  enum class Resharing {
    incremental,     // only the flows whose rate can change (the default)
    full_component,  // every flow of the connected component touched (the reference, for tests)
  };
  Resharing resharing = Resharing::incremental;
};

/// Runs `graph` to completion. Deterministic: the same graph gives bit-identical results.
/// Throws GraphError if some activities can never start (a dependency cycle), naming a cycle.
SimResult simulate_native(const ActivityGraph& graph);
SimResult simulate_native(const ActivityGraph& graph, const NativeOptions& options);

}  // namespace dlrmsim::sim
