// NVIDIA's MLPerf DLRM-DCNv2 sharding planner (HugeCTR submissions, sharding/planner.py), the
// core of the hugectr_auto placement policy (placement/hugectr_auto_policy.cpp explains it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/units.hpp"

namespace dlrmsim::placement {

/// train.py's --mem_comm_work_ratio default (8 / 2), which no MLPerf config overrides
/// (mlcommons/training_results_v3.0@63e326c4, v4.1@b87b9e39 NVIDIA/benchmarks/dlrm_dcnv2/
/// implementations/*/train.py and run_and_time.sh).
inline constexpr double kHugectrMemCommWorkRatio = 4.0;
/// train.py's --memory_cap_for_embedding default, 60 GB per GPU (same files).
inline constexpr Bytes kHugectrMemoryCapPerGpu{60e9};
/// train.py's --mem_comm_bw_ratio default, 3.35e12 / 450e9 (H100 HBM over NVLink bandwidth);
/// the MLPerf configs set MEM_COMM_BW_RATIO (7 on one node, 67 on several).
inline constexpr double kHugectrDefaultMemCommBwRatio = 3.35e12 / 450e9;

struct HugectrPlannerInput {
  std::size_t buckets = 0;            // GPUs (auto) or nodes (hier_auto)
  std::vector<double> hotness;        // lookups per sample, per table
  std::vector<std::int64_t> rows;     // per table
  std::vector<bool> replicated;       // under the DP threshold, per table
  double bytes_per_row = 0.0;         // dim x 8 B (weight and Adagrad state)
  double bucket_capacity = 0.0;       // bytes per bucket
  double table_cost = 0.0;            // MEM_COMM_BW_RATIO / mem_comm_work_ratio
  int max_rounds = 20;                // Planner(max_search_iter=20)
};

struct HugectrPlan {
  std::vector<std::vector<std::size_t>> buckets;  // model-parallel tables per bucket
  std::vector<bool> replicated;                   // per table
  double max_cost = 0.0;                          // the winning candidate's largest bucket cost
};

/// Planner.plan() (sharding/planner.py); throws std::runtime_error when even the fallback plan
/// does not fit.
HugectrPlan hugectr_plan(const HugectrPlannerInput& in);

}  // namespace dlrmsim::placement
