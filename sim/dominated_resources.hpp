// Resources that max-min sharing can never saturate, found from the graph's routes alone.
//
// A resource A is dominated when every transfer whose route crosses A also crosses one same
// resource B of a lower capacity: the flows crossing A are then a subset of those crossing
// B, so their rates sum to at most cap(B) < cap(A) in any feasible allocation. A is never
// saturated, so it is never any flow's bottleneck, and the max-min allocation (unique) is
// the same with A left out of every route. Progressive filling never reaches it either: if A
// had the smallest share left / unfixed, B (whose unfixed flows include A's and whose load
// includes A's) would give at most cap(B) - cap(A) < 0 more, a contradiction. The margin on
// the capacities (B below A by more than 1e-9 relative) keeps that true under the rounding
// of rate sums (1e-13 relative and less, see native_tables.hpp).
//
// Typical examples: the PCIe hop between a PCIe switch and a NIC (63 GB/s), crossed only by
// the NIC's traffic, which also crosses the NIC's 400 Gbit/s (50 GB/s) port; the GPU's PCIe
// link of a node whose GPUs send nothing to the host. The native engine leaves dominated
// resources out of its sharing (sim/native_engine.hpp) and keeps only their statistics.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/activity_graph.hpp"

namespace dlrmsim::sim {

/// Relative margin by which a dominating resource's capacity is below the dominated one's.
inline constexpr double kDominanceMargin = 1e-9;

/// Per resource of `graph`, 1 when it is dominated (see above), else 0. A resource no transfer
/// crosses is not dominated. O(H x L) for H route hops of routes of at most L resources.
std::vector<std::uint8_t> dominated_resources(const ActivityGraph& graph);

}  // namespace dlrmsim::sim
