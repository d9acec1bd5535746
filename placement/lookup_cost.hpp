// Estimated embedding lookup time of one shard on its owner, per training step.
//
// These are the placement layer's own first-order estimates, used to balance load
// (cost_greedy), to rank tiers and to print the plan's estimated load; the training modes
// simulate the real step. Every coefficient comes from the PlacementDevice, i.e. from the
// platform file (bandwidths, capacities) and the device profile (gather and zero-copy
// efficiencies, CPU gather rate, backward factor of a GPU without a profile), never from
// constants in code; one cost model per operator, read by both the placement planner and the
// simulation:
//   rows looked up   L = lookups per step that reach this shard
//   bytes per row    b = max(shard columns x element size, access granule)
// Each tier's file in placement/tiers/ composes the shard's cost (placement/tier.hpp,
// ShardCost), and lookup_time is its estimate():
//   gpu_hbm:    the one GPU embedding cost model (topologies/gpu_embedding_cost.hpp), the
//               model the simulation runs: forward gather, backward + optimiser update (the
//               profile's measured multiple, Adam / full Adagrad scaled for their per-element
//               state, distinct rows when the stack deduplicates, an unfused optimiser's
//               extra pass); without a profile: t = L b / (HBM bandwidth x gather eff) and
//               the device's backward factor x that
//   uvm:        the same with the h L cache hits read from HBM and the (1 - h) L misses read
//               over PCIe (profile's uvm_gather_time, or L b / (PCIe bw x zero-copy eff)) in
//               the forward, alongside the kernel, and written back after the update, which
//               runs over every lookup in the cache: max(forward, misses) + backward + misses;
//               h is the hit rate of the shard's HBM cache (cache_model.hpp)
//   host_dram:  t = CPU gather of L rows + CPU update (read-modify-write) of L rows and their
//                   optimiser state, both topologies/cpu_row_cost.hpp (the simulation's model;
//                   with striped host updates, the busiest lock's chain when it is longer)
//                   + (pooled bytes + id bytes) / PCIe bandwidth            (to the GPUs)
//   remote_ps:  the same CPU lookup on the server + (pooled + id bytes) / NIC bandwidth;
//               the server pools rows before sending (assumption: HPCA 2021's sparse
//               parameter servers and Persia's embedding workers both return pooled rows).
// Transfer parts count pooled gradients going back the same way as the pooled rows.
// Network term of a GPU owner (gpu_hbm, uvm) of a model-parallel shard, on more than one
// trainer node: + network_bytes / its NIC's bandwidth, network_bytes = off_node_fraction x
// (2 x pooled bytes on the wire (outputs out, gradients in) + kIndexBytes x L (ids in)). The
// pooled part is the shard's share of the table's columns; the ids part is not: every column
// piece of a table receives all of the table's ids. So cutting a table into k column pieces
// divides its pooled bytes over k NICs but multiplies its id bytes by k, and a table with
// many lookups per sample has pieces that stop getting cheaper: cost_greedy cuts tables no
// finer than a share of that floor (kSplitFloorShare, placement/plan_builder.hpp).
// Lookups are assumed spread over row shards in proportion to their rows (ids hashed).
// Indices travel as 8-byte integers (kIndexBytes).
#pragma once

#include <cstdint>

#include "common/units.hpp"
#include "placement/placement.hpp"

namespace dlrmsim::placement {

/// Bytes of one embedding index on the wire: int64, TorchRec's KeyedJaggedTensor default
/// index dtype (the simulation's all-to-all of ids and Persia's id messages use it too).
inline constexpr Bytes kIndexBytes{8.0};

/// What one owner of a shard does per step.
struct LookupWork {
  double lookups = 0;  // rows gathered per step by this owner
  double distinct_rows = 0;  // distinct rows among them (what the backward updates)
  double samples = 0;  // output vectors produced per step by this owner (one a lookup for a sequence)
  int columns = 0;     // columns of the shard
  double hit_rate = 0;  // uvm: HBM cache hit rate
  /// Bytes through its node's NIC per step (model-parallel shards): the off-node share of its
  /// ids and pooled gradients in and of its pooled outputs out.
  Bytes network_bytes{0.0};
  /// What it exchanges with the trainers per step, every trainer's share counted (TorchRec's
  /// planner statistics count the same: torchrec/distributed/planner/shard_estimators.py,
  /// _calculate_shard_io_sizes): the ids it receives (kIndexBytes x lookups, TorchRec's
  /// "Input"), the pooled outputs (or partial sums) it sends (samples x columns in the wire
  /// type, TorchRec's "Output") and their gradients it receives. 0 for a data-parallel replica
  /// (its trainer's own batch: nothing is exchanged). network_bytes is off_node_fraction x
  /// their sum.
  Bytes ids_in{0.0};
  Bytes outputs_out{0.0};
  Bytes gradients_in{0.0};
  /// Share of the shard's row updates applied one after another under one lock when the
  /// problem's host updates are striped (striped_lock_share); 0 otherwise.
  double serial_update_share = 0;
};

/// TensorFlow's CPU scatter (the sparse update of a table in host memory): rows are updated
/// in parallel, each under the lock of its id's stripe, 1024 stripes of contiguous id ranges
/// (tensorflow/core/kernels/scatter_functor.h, ScatterFunctorBase<CPUDevice>::ParallelExecute:
/// kMaxLocks = 1024, lock_id = index / ceil(rows / kMaxLocks)); it runs serially when it has
/// fewer than 1024 updates or more than 10,000 per row (min_n_threshold, ser_par_ratio). Read
/// in the TensorFlow sources as mirrored at mhyttsten/tf_xla@77e11ddb.
inline constexpr double kHostUpdateLockStripes = 1024.0;
inline constexpr double kHostUpdateSerialBelow = 1024.0;
inline constexpr double kHostUpdateSerialPerRow = 10000.0;

/// The share of `updates` row updates of a variable holding rows [row_begin, row_end) of
/// `table` that its busiest lock stripe serialises, under TensorFlow's scheme above:
///  - serial execution: 1;
///  - ids by frequency (models::AccessSkew::IdOrder): the first stripe holds the hottest ranks,
///    share = (C(b + s) - C(b)) / (C(e) - C(b)), C(k) the share of the table's accesses to
///    its k hottest rows (cache_model.hpp, static top-k), s = ceil((e - b) / 1024);
///  - hashed ids: the stripe of the shard's hottest row, whose expected rank among n rows
///    drawn from the table's N is k = N / n: share = p(k) / (n / N) + s / n, p(k) = C(k) -
///    C(k - 1) (the rest spread evenly over the stripes); uniform access gives s / n.
double striped_lock_share(const TableDemand& table, std::int64_t row_begin, std::int64_t row_end, double updates);

/// Distinct rows per lookup of `table` over `samples` samples (placement::expected_distinct_rows
/// over the table's lookups in them; 1 without lookups).
double distinct_fraction_over(const TableDemand& table, double samples);
/// The same over one step of the problem's global batch.
double table_distinct_fraction(const PlacementProblem& problem, const TableDemand& table);

/// The work per owner of `shard` of `table`; `distinct_fraction` is the table's
/// table_distinct_fraction (callers costing many shards of one table compute it once).
LookupWork shard_work(const PlacementProblem& problem, const TableDemand& table, const Shard& shard,
                      Sharding sharding, double distinct_fraction);
LookupWork shard_work(const PlacementProblem& problem, const TableDemand& table, const Shard& shard,
                      Sharding sharding);

/// Estimated lookup time per step (forward, backward and optimiser) of `work` on `device`
/// reading from `tier`: tier_of(tier).cost(...).estimate() (placement/tier.hpp), with the
/// device's profile and the problem's GPU embedding software. Infinite when the device lacks what the tier needs (e.g. no PCIe
/// figure for uvm, no gather rate and no bandwidth for a CPU).
Seconds lookup_time(const PlacementProblem& problem, const PlacementDevice& device, Tier tier,
                    const TableDemand& table, const LookupWork& work);

}  // namespace dlrmsim::placement
