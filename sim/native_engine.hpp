// The native event engine: runs an ActivityGraph with an integer-picosecond clock.
//
// Events
//   A binary heap ordered by (time, sequence number); the sequence number is taken from one
//   counter whenever an event is scheduled, so events at the same picosecond run in the order
//   they were scheduled and every run is bit-for-bit repeatable. Flow completions live in a
//   second, indexed heap of rate groups keyed the same way (see "Rate groups"); the loop
//   always takes the smaller of the two tops.
//   Activities enter the queues only when their last dependency finishes (dependency
//   counters), so memory for events and flows is bounded by what runs concurrently.
//
// Flow-level bandwidth sharing (max-min fairness)
//   A transfer first waits the sum of its route's latencies, then becomes a flow that crosses
//   every resource of its route. Rates are max-min fair: no flow can get more without taking
//   from a flow that has no more. Equivalently (Bertsekas & Gallager, Data Networks, 2nd ed.,
//   sec. 6.5.2) every flow has a bottleneck: a saturated resource on which no flow is faster.
//   They are computed by progressive filling ("water-filling"): repeatedly take the resource
//   whose left capacity divided by its number of unfixed flows (its key) is smallest (ties:
//   lowest index), fix its unfixed flows at that share, subtract it from the other resources
//   they cross. Shares are held non-decreasing so rounding cannot starve a flow.
//
// Dominated resources
//   A resource that every flow crossing it reaches only together with one narrower resource
//   (the hop from a PCIe switch to a NIC, behind which the NIC's port is narrower) can never be
//   saturated, so it is no flow's bottleneck and the max-min allocation is the same without it
//   (sim/dominated_resources.hpp, found once from the graph's routes). The engine leaves such
//   resources out of the routes it shares bandwidth over and keeps only their bytes and busy
//   time. Progressive filling never pops them, and the order in which it visits the other
//   resources is unchanged, so every completion time is the same to the picosecond
//   (tests/test_dominated_resources.cpp; the validation cases and the every-node DCNv2 runs
//   too). On the 8-hop inter-node routes of the DGX H100 SuperPOD two hops go (the PCIe hops
//   on either side of each NIC: 6,144 of 61,314 resources at 256 nodes).
//
// Rate groups
//   The flows fixed by one resource form its group; all members move at the group's rate and
//   share one progress clock (bytes moved per member), so a rate change costs one clock update
//   and one completion-heap entry per group, not per flow. A flow completes when its group's
//   clock reaches its end mark; each group's members are a heap by end mark, and the groups a
//   heap by (completion time, sequence number). A flow that leaves a group is not searched
//   for in its heap: its entry goes stale (each flow carries a stamp that changes when it joins
//   or leaves a group, and an entry is live when its stamp is the flow's) and is dropped when
//   it reaches the top, so the top is always a member, or when stale entries outnumber the
//   members (the heap is rebuilt, amortised O(1) per leave). Which member completes first is
//   the same as with eager removal: the smallest live (end mark, flow).
//
// Incremental recomputation
//   After the events of an instant, only a set S of flows is re-solved; the others keep their
//   rates, which are taken off the capacity of the resources S crosses (each resource keeps
//   the exact sum of its flows' rates as a 128-bit integer of 2^-64 B/s, so that sum is the
//   same whatever the order of updates). S starts as the new flows and the members of the
//   groups of the resources whose flows changed, and grows until every flow has a bottleneck:
//    - while filling, when a resource is about to fix its share s and a kept flow crossing it
//      is faster than s, that flow joins S on the spot (its rate goes back to its resources;
//      no key falls below s, so the shares fixed so far stand);
//    - after filling, the kept members of a group whose resource is no longer saturated, or
//      is crossed by a faster re-solved flow, join S and the filling is redone.
//   Checks use a relative slack of 1e-11. The result is the max-min allocation (unique), up to
//   rounding. `full_component` re-solves every flow coupled to a change (the reference used
//   by tests, and the mode used when a capacity is outside [1 B/s, 2^56 B/s]).
//   Measured on the benchmark's staggered all-to-all (512 endpoints, 261,632 flows,
//   `dlrmsim-bench --only staggered`, 2026-12-01): 247 computations re-solve 10.3 M flows
//   (a full re-solve of the component each time would be 27.5 M), 6.4 M of which join while
//   filling; 128 computations redo the filling (379 fillings, 17.2 M flows fixed in all). In
//   that graph every flow is coupled to every other and a completion moves almost every rate,
//   so S is near minimal; what is left is the cost per re-solved flow. Two ways of saving the
//   fillings that are redone were measured and not kept: stopping a filling as soon as a kept
//   group is known to fail (such failures show only near the end of a filling, one group at a
//   time: 3,244 fillings instead of 379, 2.7 times the time), and resuming the redone filling
//   from the last of its saved states that a filling from scratch would repeat (16 % fewer
//   flows fixed, but more instructions in all than it saved).
//   Where its time goes (cycle counters around each phase, 2026-12-01): water-filling 45 %,
//   commit 30 % (half of it the 2.2 M moves between groups, ~280 cycles each, mostly member
//   heap traffic), building S 10 %, the event loop 10 %, the checks after a filling 5 %. The
//   fillings that are redone fix 8.3 M of the 17.2 M flows (124 computations fill twice, 4
//   three times); they share little with the first filling, as the failing groups' flows
//   cross hundreds of resources. Also measured and not kept: committing a failing
//   filling as it is and re-solving the failing groups as another computation (14.2 M flows
//   fixed, but 14.2 M committed instead of 10.3 M: no faster); adding first the groups that
//   failed in the previous computation (373 fillings instead of 379); raising a stale heap
//   key only at the top, never lowering it by a rounding (7 % fewer instructions, but ends
//   move by 1-2 ps on the engine tests' staggered graphs, beyond the contract below); and
//   bit-identical changes (a flow's progress in its row, local pointers in the hot loops, a
//   multiplication sparing most key divisions, no prefetch of rows already fixed): <= 5 % fewer
//   instructions and 8 % fewer misses of a simulated 1 MiB cache, within the build machine's
//   run-to-run spread (20 % and more). A filling's fixings do not depend on the order of the
//   re-solved table (all fixings of one pop subtract the same share), so that table could be
//   laid out for locality; the commit's order is what decides heap orders and sequences.
//
// Data layout (what makes a computation cheap is touching little memory per re-solved flow)
//   An active flow is one row (its group and its route, copied from the graph), so visiting
//   it is one cache line for routes of up to 14 resources; membership of the re-solved set is
//   a bitset. The flows re-solved by a computation are copied into a table of their own, in
//   the order they join it, which the water-filling and the commit read (the commit in order);
//   a row there holds only what the filling reads and writes: the route, its length and the
//   resource that fixed the flow's rate (16 bytes for two hops; the rate is that resource's
//   share), while the flow's id and group are in a parallel table that the commit reads; the
//   water-filling's per-resource scratch is a small array apart from the resource state,
//   whose per-computation fields share one cache line. A rate group's member heap holds each
//   member's key and stamp, no positions (moving a flow between groups writes only the two
//   heaps); a group keeps its rate's fixed-point value for the load updates. Loops over a
//   resource's flows prefetch the rows a few entries ahead. None of this changes an operation
//   on a rate or a load, nor its order. The one order that follows the layout is that of a
//   group's heap entries, in which its members join the re-solved set: it decides which of the
//   groups re-timed by one computation takes the lower sequence number, so the order of
//   completions within one picosecond can depend on it (the filling pops by key and index and
//   loads are exact sums; through that order, a resource's flow list, and so the order in which
//   kept flows give their rates back while filling, can change: rounding, a few ps at most).
//   Lazy removal left every completion time of the engine tests' graphs, the benchmark's and
//   the validation cases bit-identical. So did keeping the re-solved table's storage from one
//   computation to the next (a new row is not cleared) and its 16-byte rows (they were 32):
//   on the staggered benchmark 3 % fewer instructions and 17 % fewer misses of a simulated
//   1 MiB second-level cache (valgrind --tool=cachegrind --LL=1048576,8,64, 2026-12-01).
//
// Rounding and ties: compute durations and route latencies are rounded to the nearest
// picosecond; a group's next completion is rounded up, so a transfer finishes at most 1 ps
// late. Re-solving a subset sums rates in another order than a full computation, so
// completion times can differ from the full computation by a few picoseconds (measured
// 2026-12-01: at most 1 ps on the engine tests' random graphs (seeds 1-5) and staggered
// all-to-alls (24, 64 and 128 endpoints) and on the benchmark's all-to-alls of 128 and 512
// endpoints; earlier, at most 9 ps on random graphs). A flow whose old group gives its new
// share exactly stays in that group.
// Exactness contract: a change to this engine may move completion times by rounding (another
// order of summation), but (1) every completion time stays within 1e-6 relative of SimGrid's
// on the cross-check graphs (tests/test_simgrid_backend.cpp), (2) within 1e-9 relative of
// the previous version on the engine tests' graphs and on the validation table's predictions
// (`dlrmsim validate validation/cases --json`, compared case by case), and (3) the same input
// gives the same output bit for bit, every run. Note that 1 ps is already 4e-9 of a transfer
// that ends at 250 us, so (2) asks for the same picoseconds on short graphs.
//
// Complexity: O(E log Q) for E events with Q queued events; per computation
// O(H_S log R_S + K) for the H_S hops of the re-solved flows over R_S resources, plus K for
// scanning the resources where a kept flow may be faster than the share (bounded by a kept
// maximum per resource).
#pragma once

#include <functional>
#include <vector>

#include "sim/activity_graph.hpp"

namespace dlrmsim::sim {

/// How rates are recomputed after a start or finish (see "Incremental recomputation").
struct NativeOptions {
  enum class Resharing {
    incremental,     // only the flows whose rate can change (the default)
    full_component,  // every flow of the connected component touched (the reference, for tests)
  };
  Resharing resharing = Resharing::incremental;
  /// Progress: `on_milestone(k)` is called when the k-th of `milestones` to finish has
  /// finished (k counts from 1), e.g. a step's end for a progress line. Empty: no calls.
  std::vector<ActivityId> milestones;
  std::function<void(std::size_t)> on_milestone;
};

/// Runs `graph` to completion. Deterministic: the same graph gives bit-identical results.
/// Throws GraphError if some activities can never start (a dependency cycle), naming a cycle.
SimResult simulate_native(const ActivityGraph& graph);
SimResult simulate_native(const ActivityGraph& graph, const NativeOptions& options);

}  // namespace dlrmsim::sim
