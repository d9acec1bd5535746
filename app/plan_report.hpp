// Writing a placement plan: a readable table for people and JSON for programs.
//
// Text: a header line (policy, cache model, tables, predicted step time when the search
// policy evaluated it), one line per table (tier, sharding, shard count, owner devices, UVM
// cache hit rate, estimated lookup time per step), one line per device (memory used against
// capacity with its parts, estimated load), and the notes (assumptions).
//
// JSON (stable keys): {"policy", "cache_model", "predicted_step_time_s" (or null),
// "evaluations", "max_estimated_load_s", "tables": [{"name", "tier", "sharding", "shards":
// [{"owners": [names], "storage": [names], "row_begin", "row_end", "column_begin",
// "column_end", "cache_rows", "cache_bytes", "expected_hit_rate", "estimated_time_s"}]}],
// "devices": [{"name", "kind", "topology_id", "node", "capacity_bytes", "weights_bytes",
// "optimizer_state_bytes", "cache_bytes", "activations_bytes", "used_bytes",
// "estimated_load_s"}], "communication": {sharding: [{"pass", "collective", "scope",
// "payload"}]} for the shardings the plan uses, "statistics" (plan_statistics_json), "notes":
// [strings]}. Sizes in bytes, times in seconds. Numbers carry 17 significant digits (every
// double exactly).
//
// Planner statistics (placement/plan_statistics.hpp, after TorchRec's EmbeddingStats):
// print_plan_statistics writes per owner HBM and DRAM used, the estimate as total (forward
// compute, forward comms, backward compute, backward comms) and the all-to-all MiB received
// and sent (TorchRec's "MB" is 2^20 bytes), the shards per sharding type; then per owner kind
// the imbalance (max / mean) of each figure; then per table its pooling factor, compute kernel
// and shard type. More than kListedOwners devices of a kind, or kListedOwners tables, are
// summarised: per kind its mean and the devices with the largest and smallest total; the
// tables with the largest estimates. plan_statistics_json: {"global_batch", "owners":
// [{"name", "kind", "hbm_bytes", "dram_bytes", "forward_compute_s", "forward_comms_s",
// "backward_compute_s", "backward_comms_s", "total_s", "ids_received_bytes",
// "outputs_sent_bytes", "gradients_received_bytes", "sent_bytes", "received_bytes", "shards":
// {type: count}}], "imbalance": [{"kind", "devices", "max_over_mean": {figure: x},
// "mean": {figure: x}, "max_device": {figure: name}, "min_device": {figure: name}}], "tables":
// [{"name", "pooling_factor", "compute_kernel", "shard_type", "tier", "shards", "owners",
// "estimated_time_s"}]}; every owner and table listed. `dlrmsim run --json` has it as
// placement.statistics.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>

#include "common/json.hpp"
#include "placement/placement.hpp"
#include "placement/plan_statistics.hpp"

namespace dlrmsim::app {

void print_plan(std::ostream& out, const placement::PlacementProblem& problem, const placement::PlacementPlan& plan);
/// The plan as a JSON document (the keys above, in that order), ending in a newline.
std::string plan_json(const placement::PlacementProblem& problem, const placement::PlacementPlan& plan);

/// The most devices of one kind, and tables, the statistics list one per row.
inline constexpr std::size_t kListedOwners = 16;
void print_plan_statistics(std::ostream& out, const placement::PlanStatistics& stats);
/// The statistics as JSON, numbers to `significant_digits` digits.
Json plan_statistics_json(const placement::PlanStatistics& stats, int significant_digits = 17);

}  // namespace dlrmsim::app
