// A TorchRec sharding plan, written as JSON, read as an explicit placement:
//
//   placement: {policy: explicit, plan: my_plan.json}   # a document without `tables`
//
// The document is TorchRec's ShardingPlan.plan (pytorch/torchrec@a48cef79ebc333da92af1311c04b041ee21a8e75,
// torchrec/distributed/types.py: ShardingPlan, ParameterSharding): per module path, per table
// name a ParameterSharding (or the same under one key `plan`):
//
//   {"sparse_arch.embedding_bag_collection":
//      {"t_0": {"sharding_type": "row_wise", "compute_kernel": "fused", "ranks": [0, 1],
//               "sharding_spec": {"shards": [
//                  {"shard_offsets": [0, 0], "shard_sizes": [50000, 64], "placement": "rank:0/cuda:0"},
//                  {"shard_offsets": [50000, 0], "shard_sizes": [50000, 64], "placement": "rank:1/cuda:1"}]}}}}
//
// sharding_type (types.py ShardingType): table_wise, row_wise, column_wise, table_row_wise and
// data_parallel are dlrmsim's shardings of the same names; table_column_wise is column_wise
// (column slices, each on one rank). grid_shard is refused.
// compute_kernel (torchrec/distributed/embedding_types.py EmbeddingComputeKernel, same commit)
// gives the shards' tier: dense, fused and quant keep the weights in the GPU's HBM (gpu_hbm);
// fused_uvm, fused_uvm_caching, quant_uvm and quant_uvm_caching keep them in the host memory
// the GPU reads over PCIe (uvm, whose HBM row cache is placement.uvm_cache_fraction of the rows:
// 0 for an uncached fused_uvm); key_value (FBGEMM's SSD TBE behind an HBM cache) is ssd.
// ssd_virtual_table, dram_virtual_table and customized_kernel are refused.
// Ranks: rank r is the r-th GPU trainer of the platform, in the order `dlrmsim place` lists the
// devices (nodes in the platform's order, each node's GPUs by index: gpu0..gpu7 on one node,
// then the next node's). A shard's rank is its `placement` ("rank:3/cuda:3", torch's
// ShardMetadata: pytorch/pytorch@7d1f30fece2e2c4a99f11054a93e5e7b8ccb403c,
// torch/distributed/_shard/metadata.py), else the ParameterSharding's
// ranks[i] for shard i; both given, they must agree. Its rows and columns are shard_offsets
// [row, column] and shard_sizes [rows, columns]. Without sharding_spec: table_wise is the whole
// table on its one rank, data_parallel a replica on every GPU trainer; other types need it.
// cache_params, enforce_hbm, stochastic_rounding, bounds_check_mode, output_dtype and
// key_value_params are read and not modelled. The tables are the model's (TorchRec's table
// names must be dlrmsim's, `t_0`.. for a group `t`); everything else is checked as dlrmsim's own
// plan is (placement/explicit_plan.hpp), each mistake located in the TorchRec file.
//
// Export (torchrec_plan_json): the plan in the same format, one module (`module`, by default
// TorchRec's DLRM's "sparse_arch.embedding_bag_collection") holding every table: its
// sharding_type (dlrmsim's sharding name, TorchRec's same name), compute_kernel
// (torchrec_compute_kernel), ranks (each shard's GPU rank, in shard order), and sharding_spec
// {shards: [{shard_offsets, shard_sizes, placement: "rank:R/cuda:L"}]} (L the GPU's index on
// its node, TorchRec's rank % local_world_size); a data_parallel table has ranks: every GPU
// trainer and sharding_spec null, as TorchRec's. Read back, it is the same plan (the UVM
// caches sized by placement.uvm_cache_fraction, as every import). A table on host_dram or
// remote_ps, or whose shards are on different tiers, has no TorchRec form: std::invalid_argument
// naming it.
#pragma once

#include <string>
#include <string_view>

#include "common/config.hpp"
#include "placement/placement.hpp"

namespace dlrmsim::placement {

/// The placement a TorchRec sharding plan document (`doc`) gives the problem.
[[nodiscard]] PlacementPlan plan_torchrec(const PlacementProblem& problem, const PlacementOptions& options,
                                          const ConfigNode& doc);

/// TorchRec's compute kernel for shards on `tier`: fused (gpu_hbm), fused_uvm_caching (uvm with
/// an HBM cache), fused_uvm (uvm without), key_value (ssd); empty for host_dram, remote_ps and
/// cxl, which TorchRec has no kernel for.
[[nodiscard]] std::string_view torchrec_compute_kernel(Tier tier, bool cached);

inline constexpr std::string_view kTorchRecModule = "sparse_arch.embedding_bag_collection";

/// `plan` (of `problem`) as a TorchRec sharding plan JSON document, ending in a newline.
[[nodiscard]] std::string torchrec_plan_json(const PlacementProblem& problem, const PlacementPlan& plan,
                                             std::string_view module = kTorchRecModule);

}  // namespace dlrmsim::placement
