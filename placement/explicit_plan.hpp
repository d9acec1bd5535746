// An explicit plan, table by table, as read from a plan document: where each table's shards go
// (tier, owners, rows and columns) with each value's place in the document, so that every
// mistake is reported where it was written. Two readers fill it: dlrmsim's own plan (the
// `tables` of `dlrmsim place --json`, placement/explicit_policy.cpp) and a TorchRec sharding
// plan (placement/torchrec_plan.hpp). build_explicit_plan checks it against the scenario, the
// same checks for both, and makes the placement.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/config.hpp"
#include "placement/placement.hpp"

namespace dlrmsim::placement {

/// One shard: rows [row_begin, row_end) x columns [column_begin, column_end) of its table on
/// `owners` (indices into PlacementProblem::devices) in `tier`.
struct ExplicitShard {
  Tier tier = Tier::gpu_hbm;
  std::vector<std::uint32_t> owners;
  std::vector<ConfigNode> owner_nodes;  // where each owner was named (same order as owners)
  std::int64_t row_begin = 0, row_end = 0;
  int column_begin = 0, column_end = 0;
  ConfigNode where;         // the shard's entry
  ConfigNode owners_where;  // the list (or value) its owners came from
};

/// One table of the plan: the model's table `table` (index into PlacementProblem::tables).
struct ExplicitTable {
  std::size_t table = 0;
  ConfigNode name_where;  // where the table was named
  Sharding sharding = Sharding::table_wise;
  std::vector<ExplicitShard> shards;
  ConfigNode shards_where;  // the shards' list
};

/// The model's table `name` (an error at `name_node`, naming the nearest name, if there is none).
[[nodiscard]] std::size_t table_named(const PlacementProblem& problem, const std::string& name,
                                      const ConfigNode& name_node);

/// The placement of `tables`, checked against the scenario, each mistake a located error
/// (ConfigError): every table of the model exactly once (`tables_where`: the plan's table
/// list), owners that can own the shard's tier, one owner per shard except data_parallel (one
/// gpu_hbm shard of the whole table, a replica on every GPU trainer), shards that tile their
/// table with no gap or overlap. Capacity is place()'s check, as for every policy.
[[nodiscard]] PlacementPlan build_explicit_plan(const PlacementProblem& problem, const PlacementOptions& options,
                                                const std::vector<ExplicitTable>& tables, const ConfigNode& tables_where);

}  // namespace dlrmsim::placement
