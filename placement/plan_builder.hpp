// PlanBuilder: the shared machinery of the placement policies (placement/policies.cpp,
// placement/search_policy.cpp). It builds a PlacementPlan shard by shard while keeping
// track of every device's committed memory and estimated load, so that a policy can ask
// "does this shard fit there?" and "which device of this tier is least loaded?" in O(log G).
//
// Memory a shard commits: gpu_hbm, host_dram, remote_ps: weights + optimiser state on the
// owner; uvm: the HBM cache (a fraction of the shard's rows, PlacementOptions) on the owner
// GPU and weights + optimiser state on that GPU's host socket. GPUs start with the
// activations and the dense replica already committed.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "placement/placement.hpp"
#include "placement/tier.hpp"

namespace dlrmsim::placement {

/// How fine cost_greedy cuts hot tables, as a share of `floor`, the busiest owner's least
/// possible load (PlanBuilder::split_hot_columns): no table is cut into pieces cheaper than
/// floor x kSplitFloorShare (nor than the mean load). The planner's estimate of an owner is
/// the sum of its phases (ids in, forward lookup, pooled outputs out, pooled gradients in,
/// backward and optimiser), which every owner of a synchronous step enters together
/// (models/modes/synchronous.cpp): the step waits in each phase for that phase's busiest
/// owner, so pieces well under the floor owner's load shorten no phase much, while each
/// piece is one more owner that exchanges flows with every node and receives all its
/// table's ids. Measured (DLRM-DCNv2, batch 55,296, every node simulated): on 64 DGX H100,
/// shares 1, 1/2, 1/4, 1/5, 1/6, 1/7, 1/10, 0 (0: cut down to the mean, the rule before)
/// give 42, 62, 116, 134, 167, 213, 344, 624 column pieces and steps of 1.429, 1.236, 1.242,
/// 1.241, 1.239, 1.239, 1.274, 1.306 ms; on 16 nodes 1/5 slows the step 1.300 -> 1.338 ms
/// (the all-reduce on its critical path, 818 -> 857 us), 1/6 and 1/7 leave it at 1.300 ms.
/// Of the MLPerf DCNv2 validation cases (8 and 16 nodes, batch 135,168), 1/2 moves 8 nodes,
/// every node, by -2.6 %, 1/4 16 nodes, every node, by +0.6 %, 1/6 by +0.013 %; 1/7 moves
/// none: it is the coarsest share measured that changes no validated prediction.
inline constexpr double kSplitFloorShare = 1.0 / 7.0;

/// A piece of a table to place: a column range of it (the whole table for most policies).
struct PlacementItem {
  std::size_t table = 0;
  int column_begin = 0;
  int column_end = 0;
  Seconds cost{0.0};  // estimated time on a representative owner, for ordering
};

class PlanBuilder {
 public:
  PlanBuilder(const PlacementProblem& problem, const PlacementOptions& options);

  [[nodiscard]] const PlacementProblem& problem() const { return problem_; }
  [[nodiscard]] const PlacementOptions& options() const { return options_; }

  /// Devices that can own shards of `tier` (its MemoryTier::can_own): GPUs (gpu_hbm; uvm:
  /// those with a host socket), CPU sockets (host_dram), parameter servers (remote_ps).
  [[nodiscard]] const std::vector<std::uint32_t>& owners_of(Tier tier) const;
  /// The tiers the options allow and the platform has, in memory_tiers() order.
  [[nodiscard]] std::vector<Tier> usable_tiers() const;
  /// usable_tiers() ordered fastest first by the summed estimated cost of every table placed
  /// whole on the tier's first owner (ties: memory_tiers() order).
  [[nodiscard]] std::vector<Tier> tiers_fastest_first() const;

  /// Usable memory left on a device (capacity x (1 - reserve) minus what is committed).
  [[nodiscard]] double free_bytes(std::uint32_t device) const;
  [[nodiscard]] double load(std::uint32_t device) const { return load_[device]; }

  /// The memory a shard needs, as (device, bytes) pairs.
  [[nodiscard]] std::vector<std::pair<std::uint32_t, double>> memory_needed(std::size_t table, Tier tier,
                                                                             std::uint32_t owner,
                                                                             std::int64_t rows, int columns) const;
  [[nodiscard]] bool fits(std::size_t table, Tier tier, std::uint32_t owner, std::int64_t rows, int columns) const;
  /// Estimated time of a shard (a table-wise, row-wise or column-wise piece) on `owner`.
  [[nodiscard]] Seconds shard_cost(std::size_t table, Tier tier, std::uint32_t owner, std::int64_t rows,
                                   int columns) const;
  /// Estimated time of the whole table on `owner` (table-wise).
  [[nodiscard]] Seconds table_cost(std::size_t table, Tier tier, std::uint32_t owner) const;
  /// Weights + optimiser state of the whole table.
  [[nodiscard]] double footprint(std::size_t table) const;

  /// Commits a shard of `table` owned by `owner` (not data-parallel).
  void add_shard(std::size_t table, Tier tier, Sharding sharding, std::uint32_t owner, std::int64_t row_begin,
                 std::int64_t row_end, int column_begin, int column_end);
  /// Commits a full replica of `table` on every GPU.
  void add_data_parallel(std::size_t table);
  /// Releases everything committed for `table`.
  void remove_table(std::size_t table);
  [[nodiscard]] bool placed(std::size_t table) const { return tables_[table].has_value(); }

  /// Places `items` on the owners of `tier`, costliest first, each on the least-loaded owner
  /// it fits on (LPT, Graham 1969). A whole table that fits on no single owner is split into
  /// equal row ranges over the fewest owners with the most free memory that hold it. When
  /// `allow_overflow`, a table that fits nowhere is still placed (row-wise over every owner)
  /// so that capacity checking can report the overflow; otherwise the tables not placed are
  /// returned (with anything committed for them released).
  std::vector<std::size_t> assign_balanced(std::vector<PlacementItem> items, Tier tier, bool allow_overflow);
  /// Items for whole tables with their cost on the tier's first owner.
  [[nodiscard]] std::vector<PlacementItem> whole_tables(const std::vector<std::size_t>& tables, Tier tier) const;
  /// Splits items whose cost exceeds the mean per-owner load into column ranges (multiples
  /// of 4 columns, FBGEMM's alignment) so that LPT can balance them; each piece is costed by
  /// shard_cost (a piece looks up every row and receives every id of its table, so k pieces
  /// cost more than the whole). The floor is the larger of the mean load and the cheapest
  /// largest piece any item can be cut into (the busiest owner cannot be below either); an
  /// item is cut into the fewest pieces that minimise max(largest piece, mean load after the
  /// cut, target), target = max(mean, floor x kSplitFloorShare): no piece is cut finer than
  /// that share of the load of the owner that sets the floor.
  [[nodiscard]] std::vector<PlacementItem> split_hot_columns(std::vector<PlacementItem> items, Tier tier) const;

  /// The plan so far, tables in problem order (unplaced tables are left out).
  [[nodiscard]] PlacementPlan plan() const;
  /// The placement of one table so far.
  [[nodiscard]] const std::optional<TablePlacement>& table(std::size_t t) const { return tables_[t]; }
  /// Replaces the placement of a table (used by local search); commits its memory and load.
  void set_table(std::size_t t, const TablePlacement& placement);

 private:
  void commit(std::size_t table, std::uint32_t device, double bytes, double seconds);
  /// The hit rate of `table`'s HBM cache on `tier` (its cache fraction of the rows).
  [[nodiscard]] double cache_hit_rate_of(std::size_t table, Tier tier) const;
  [[nodiscard]] double distinct_fraction(std::size_t table) const;

  const PlacementProblem& problem_;
  const PlacementOptions& options_;
  std::vector<std::vector<std::uint32_t>> owners_;  // by Tier: the devices its MemoryTier::can_own
  std::vector<double> usable_;
  std::vector<double> used_;
  std::vector<double> load_;
  std::vector<std::optional<TablePlacement>> tables_;
  // What each table committed: (device, bytes, seconds), to release it again.
  std::vector<std::vector<std::tuple<std::uint32_t, double, double>>> commitments_;
  mutable std::vector<std::optional<double>> hit_rate_;
  mutable std::vector<std::optional<double>> distinct_fraction_;  // table_distinct_fraction per table
};

}  // namespace dlrmsim::placement
