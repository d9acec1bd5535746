// Planner statistics of a placement plan, after TorchRec's (EmbeddingStats in
// torchrec/distributed/planner/stats.py, pytorch/torchrec@a48cef79ebc333da92af1311c04b041ee21a8e75):
//
// Per owner (TorchRec's rank; here every device of the plan: GPUs, CPU sockets, parameter
// servers), per training step of the global batch:
//  - hbm, dram: memory used. A GPU's HBM is everything it holds (shards, UVM caches, dense
//    replica and activations: TorchRec's "HBM", which counts dense tensors and features too);
//    its DRAM is the host memory of the UVM shards it owns (TorchRec's "DDR" of a rank). A CPU
//    socket's or a server's DRAM is everything it holds.
//  - forward and backward compute and communication: the parts of each owned shard's
//    ShardCost::estimate() (placement/tier.hpp, the one cost the planner and the simulation
//    read), summed over the shards it owns: TorchRec's Perf (fwd_compute, fwd_comms,
//    bwd_compute, bwd_comms). They add up to the device's estimated load. Communication is
//    the planner's transfer term: a GPU owner's off-node share through its NIC, a CPU socket's
//    PCIe, a server's NIC; unlike TorchRec's it leaves out the all-to-all inside a node (the
//    simulation runs it on the node's links).
//  - ids_received, outputs_sent, gradients_received: the all-to-all bytes of its shards
//    (LookupWork's ids_in, outputs_out, gradients_in): ids_received is TorchRec's "Input",
//    outputs_sent its "Output". sent = outputs_sent; received = ids + gradients.
//  - shards per sharding type (TorchRec's "Shards": "TW: 2 RW: 1").
// Imbalance: per owner kind (over every device of the kind, idle ones included), each
// figure's max / mean (TorchRec prints the same as "Max Total Perf is x% greater than the
// mean" for the total and HBM); 0 when the mean is 0.
// Per table: pooling factor (mean lookups per sample), compute kernel (TorchRec's
// EmbeddingComputeKernel name of its tier, placement/torchrec_plan.hpp), shard type
// (TorchRec's abbreviation), tier, shards, owners and its estimate summed over its shards'
// owners.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/units.hpp"
#include "placement/placement.hpp"

namespace dlrmsim::placement {

/// The figures of one owner, in the order kOwnerFigureNames lists them.
enum class OwnerFigure {
  hbm,
  dram,
  forward_compute,
  forward_comms,
  backward_compute,
  backward_comms,
  total,
  sent,
  received
};
inline constexpr std::size_t kOwnerFigures = 9;
inline constexpr std::array<std::string_view, kOwnerFigures> kOwnerFigureNames = {
    "hbm_bytes",        "dram_bytes",       "forward_compute_s", "forward_comms_s", "backward_compute_s",
    "backward_comms_s", "total_s",          "sent_bytes",        "received_bytes"};

struct OwnerStatistics {
  std::uint32_t device = 0;  // index into PlacementPlan::devices
  std::string name;          // the device's
  OwnerKind kind = OwnerKind::gpu;
  Bytes hbm{0.0};
  Bytes dram{0.0};
  Seconds forward_compute{0.0};
  Seconds forward_comms{0.0};
  Seconds backward_compute{0.0};
  Seconds backward_comms{0.0};
  Bytes ids_received{0.0};
  Bytes outputs_sent{0.0};
  Bytes gradients_received{0.0};
  /// Shards owned per sharding type, in kAllShardings order.
  std::array<int, std::size(kAllShardings)> shards{};

  [[nodiscard]] Seconds total() const { return forward_compute + forward_comms + backward_compute + backward_comms; }
  [[nodiscard]] Bytes sent() const { return outputs_sent; }
  [[nodiscard]] Bytes received() const { return ids_received + gradients_received; }
  /// The figure as a number in base units (bytes, seconds).
  [[nodiscard]] double figure(OwnerFigure f) const;
};

/// max / mean of one figure over the devices of one owner kind.
struct Imbalance {
  OwnerKind kind = OwnerKind::gpu;
  std::size_t devices = 0;
  std::array<double, kOwnerFigures> max_over_mean{};  // per OwnerFigure; 0 when the mean is 0
  std::array<std::uint32_t, kOwnerFigures> max_device{};  // the first device with the maximum
  std::array<std::uint32_t, kOwnerFigures> min_device{};  // the first device with the minimum
  std::array<double, kOwnerFigures> mean{};
};

struct TableStatistics {
  std::size_t table = 0;  // index into PlacementPlan::tables
  std::string name;
  Tier tier = Tier::gpu_hbm;  // its first shard's
  Sharding sharding = Sharding::table_wise;
  std::size_t shards = 0;
  double pooling_factor = 0.0;
  std::string kernel;      // TorchRec compute kernel name, or the tier's when TorchRec has none
  std::string shard_type;  // TW, RW, CW, TWRW, DP
  std::size_t owners = 0;  // distinct devices owning a shard
  Seconds estimate{0.0};   // its shards' estimates summed over their owners
};

struct PlanStatistics {
  std::int64_t global_batch = 0;
  std::vector<OwnerStatistics> owners;  // one per plan device, in plan order
  std::vector<Imbalance> imbalance;     // per owner kind present, in OwnerKind order
  std::vector<TableStatistics> tables;  // in plan order
};

/// TorchRec's abbreviation of a sharding type (stats.py, _get_sharding_type_abbr).
std::string_view sharding_abbreviation(Sharding s);

/// The statistics of `plan` (accounted for `problem`).
PlanStatistics plan_statistics(const PlacementProblem& problem, const PlacementPlan& plan);

}  // namespace dlrmsim::placement
