// The one GPU embedding cost model: forward gather, backward with optimiser update, an
// unfused optimiser's extra pass, the HBM bytes of each and the zero-copy reads of rows that
// live in host memory, for one table shard owned by one GPU in one training step. The
// placement planner (placement/tiers/gpu_hbm.cpp, placement/tiers/uvm.cpp) and the
// simulation's step builder (models/owner_work.cpp) both read it, so a plan is costed by the
// formulas the simulation runs.
//
// Every coefficient comes from the GPU's DeviceProfile (configs/calibration/*.yaml; the
// fitted forms are in device_profile.hpp), never a constant in code; one cost model per
// operator, read by both the placement planner and the simulation:
//   forward              DeviceProfile::embedding_forward_time(rows read from HBM, row bytes,
//                        max(pooling, 1)) (FBGEMM-style table-batched kernel, no launch)
//   backward + update    DeviceProfile::embedding_backward_time over every lookup (updates of
//                        UVM rows happen in the HBM cache) with the profile's measured
//                        multiple for SGD or row-wise Adagrad, scaled for the distinct rows
//                        among the lookups when the stack deduplicates its backward. Full
//                        Adagrad and Adam keep a per-element state that the update reads and
//                        writes with the row: their time is the row-wise Adagrad time scaled by
//                        (row bytes + state bytes per row) / (row bytes + one state value)
//                        (assumption: the update is memory bound).
//   unfused optimiser    PyTorch's nn.EmbeddingBag with a torch.optim optimiser: the backward
//                        writes one gradient row per lookup and the optimiser reads it back,
//                        2 x lookups x row bytes over achievable HBM bandwidth.
//   HBM bytes            forward: rows found in HBM + pooled bags written; backward: bag
//                        gradients read + each updated row and its optimiser state read and
//                        written (2 x distinct lookups x (row + state)); unfused: + 2 x lookups
//                        x row bytes.
//   host memory rows     lookups that miss the HBM cache (uvm): rows x row bytes cross PCIe
//                        each way (read in the forward, written back after the update), each
//                        way taking DeviceProfile::uvm_gather_time alone.
// Validity: the ranges the profile's gather and backward fits were measured on.
#pragma once

#include "common/units.hpp"
#include "topologies/device_profile.hpp"

namespace dlrmsim::topo {

/// The embedding optimiser as the GPU cost model sees it.
struct EmbeddingUpdate {
  /// The optimiser whose measured backward multiple the profile gives (full Adagrad and Adam:
  /// row-wise Adagrad, scaled below).
  EmbeddingOptimizer measured = EmbeddingOptimizer::rowwise_adagrad;
  /// State values per weight element (full Adagrad 1, Adam 2: their update moves them with
  /// the row); 0 for SGD and row-wise Adagrad, whose measured multiple applies as it is.
  double state_values_per_element = 0.0;
  Bytes state_value{4.0};  // bytes of one state value (the optimiser's state dtype; fp32 default)
};

/// The training software's embedding kernel choices that change its cost.
struct GpuEmbeddingSoftware {
  bool deduplicated_backward = true;  // the backward updates each distinct row once
  bool fused_optimizer = true;        // the update runs inside the backward kernel
  EmbeddingUpdate update;
};

/// Embedding work of one GPU in one pass: rows gathered and rows per pooled bag.
struct GatherWork {
  double lookups = 0.0;  // rows gathered
  Bytes row_bytes;       // bytes of one row (shard columns x element size)
  double pooling = 1.0;  // rows per bag (lookups per sample)
  int columns = 0;       // elements per row (for per-element optimiser state)
  double distinct_fraction = 1.0;  // distinct rows / lookups (the backward updates each row once)
};

/// Forward gather time of rows in HBM (no launch overhead: one launch per pass is added by
/// the caller for the table-batched kernel).
Seconds gpu_embedding_forward_time(const DeviceProfile& profile, const GatherWork& work);
/// Backward + optimiser update of rows in HBM (no launch overhead).
Seconds gpu_embedding_backward_time(const DeviceProfile& profile, const GatherWork& work, const EmbeddingUpdate& update);
/// Extra time of an embedding optimiser that is not fused into the backward kernel (no launch
/// overhead: the caller adds one optimiser kernel per table).
Seconds gpu_embedding_separate_optimizer_time(const DeviceProfile& profile, const GatherWork& work);

/// One GPU-owned shard's work per step.
struct GpuShardWork {
  double lookups = 0.0;          // rows gathered per step
  double hbm_lookups = 0.0;      // of which found in HBM (all of them for gpu_hbm; uvm: the cache hits)
  double samples = 0.0;          // pooled bags produced per step
  Bytes row_bytes;               // bytes of one row of the shard
  int columns = 0;               // columns of the shard
  double distinct_rows = 0.0;    // distinct rows among the lookups (what a deduplicated backward updates)
  Bytes bag_element{4.0};        // bytes of a pooled-bag element (the communication precision)
  Bytes optimizer_state_per_row; // optimiser state bytes of one row
};

/// The shard's cost on its GPU; times exclude launch overheads.
struct GpuShardCost {
  Seconds forward;             // forward gather of the rows in HBM
  Seconds backward;            // backward + fused optimiser update of every lookup
  Seconds separate_optimizer;  // the unfused optimiser's extra pass (0 when fused)
  Bytes hbm_forward;
  Bytes hbm_backward;
  Bytes hbm_separate_optimizer;
  double host_rows = 0.0;      // rows read from host memory (each way)
  Bytes host_bytes;            // their bytes (each way)
  Seconds host_time;           // their zero-copy time alone (each way; 0 without host rows)
};

/// The shard's HBM and host-memory traffic alone (times left 0): what needs no profile.
GpuShardCost gpu_shard_traffic(const GpuShardWork& work, const GpuEmbeddingSoftware& software);
/// Its traffic and the profile's times.
GpuShardCost gpu_shard_cost(const DeviceProfile& profile, const GpuShardWork& work, const GpuEmbeddingSoftware& software);

}  // namespace dlrmsim::topo
