// The scenario's `placement:` keys, as PlacementOptions::from_config (placement/placement.cpp)
// reads them. Defaults are PlacementOptions' member initialisers.
#include "placement/placement.hpp"

namespace dlrmsim::placement {
namespace {

constexpr Parameter kPlacementParameters[] = {
    {"placement", "", "the defaults below", "a mapping", "Where the embedding tables live and how they are sharded."},
    {"placement.policy", "", "cost_greedy", "a policy of `dlrmsim list`", "The placement policy."},
    {"placement.cache_model", "", "lru", "lru | static_top_k", "How a UVM cache's hit rate is modelled."},
    {"placement.uvm_cache_fraction", "fraction", "0.2 (TorchRec's planner default)", "[0, 1]",
     "UVM cache size as a fraction of each table's rows."},
    {"placement.memory_reserve_fraction", "fraction", "0", "[0, 1)",
     "Fraction of every device's memory kept free (allocator slack, framework buffers)."},
    {"placement.tiers", "", "every tier the platform has", "a non-empty list of gpu_hbm | host_dram | uvm | remote_ps",
     "Tiers the size_greedy, cost_greedy and search policies may use."},
    {"placement.search_exhaustive_limit", "candidate plans", "20000", ">= 1",
     "search: enumerate every candidate when there are at most this many, else local search."},
    {"placement.search_max_evaluations", "evaluations", "200", ">= 1", "search: most evaluator calls in local search."},
    {"placement.column_slice_elements", "elements (rows x columns)", "none (slice only while fewer slices than GPUs)",
     ">= 1, <= 1e18", "memory_balanced: a table of more elements is cut into column slices."},
    {"placement.gpu_embedding_memory", "bytes", "none (everything stays in GPU memory)", ">= 0; tiers must include host_dram",
     "memory_balanced: embedding weights each GPU keeps; larger tables go to host DRAM."},
};

}  // namespace

std::span<const Parameter> placement_parameters() { return kPlacementParameters; }

}  // namespace dlrmsim::placement
