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
// "payload"}]} for the shardings the plan uses, "notes": [strings]}. Sizes in bytes,
// times in seconds. Numbers carry 17 significant digits (every double exactly).
#pragma once

#include <ostream>
#include <string>

#include "placement/placement.hpp"

namespace dlrmsim::app {

void print_plan(std::ostream& out, const placement::PlacementProblem& problem, const placement::PlacementPlan& plan);
/// The plan as a JSON document (the keys above, in that order), ending in a newline.
std::string plan_json(const placement::PlacementProblem& problem, const placement::PlacementPlan& plan);

}  // namespace dlrmsim::app
