// A memory tier: where a shard's weights live and who reads them, as an extension point.
//
// Each tier is one implementation of MemoryTier in placement/tiers/<name>.cpp, registered in
// memory_tiers() (placement/tier.cpp); tests/test_tiers.cpp checks that every file there is
// registered. A tier says what it is (TierProperties), which devices own its shards and where
// their weights are stored (capacity accounting), and what a shard costs its owner per step
// (ShardCost). The placement planner's estimates (lookup_cost.hpp) and the simulation's GPU
// embedding work (models/owner_work.cpp) read the same ShardCost; its GPU part is the one
// GPU embedding cost model, topologies/gpu_embedding_cost.hpp.
//
// Tier (placement.hpp) stays the value plans and configurations carry; tier_of(Tier) is its
// implementation.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "common/units.hpp"
#include "placement/lookup_cost.hpp"
#include "placement/placement.hpp"
#include "topologies/gpu_embedding_cost.hpp"

namespace dlrmsim::placement {

/// What a tier is.
struct TierProperties {
  OwnerKind owner_kind = OwnerKind::gpu;  // the kind of device that runs its lookups
  bool on_gpu = false;          // lookups run in the owning GPU's embedding kernel
  bool over_host_link = false;  // rows or pooled results cross the GPU-host link (PCIe)
  bool remote = false;          // on other nodes than the trainers, reached over the network
  bool hbm_cache = false;       // an HBM row cache on the owning GPU fronts the weights
  bool replicable = false;      // a table may be replicated on every GPU trainer (data parallel)
};

/// What the cost of one shard on one owner depends on.
struct ShardCostInput {
  const PlacementProblem& problem;
  const PlacementDevice& device;  // the owner
  const TableDemand& table;
  const LookupWork& work;         // shard_work of the shard
  /// GPU owner: its calibrated profile (null: the device's plain figures, a peer's assumption).
  const topo::DeviceProfile* profile = nullptr;
  /// GPU owner: the software's embedding kernel choices and the optimiser.
  const topo::GpuEmbeddingSoftware& software;
};

/// One shard's cost on its owner per training step: the GPU embedding cost record
/// (topologies/gpu_embedding_cost.hpp; host_* are a uvm shard's misses) for a GPU owner; for a
/// CPU owner its gather as `forward` and its read-modify-write as `backward`, the rest 0.
struct ShardCost : topo::GpuShardCost {
  /// Results, ids and gradients between the owner and the trainers: PCIe (host_dram), the
  /// server's NIC (remote_ps), a GPU owner's NIC for its off-node share.
  Seconds transfer;
  /// The forward part of `transfer` (ids in, pooled outputs out); the rest carries the
  /// gradients back.
  Seconds transfer_forward;
  /// ssd: the drives' reads of the rows that miss the cache and writes of the rows it evicts
  /// (topologies/nvme_cost.hpp), per step; 0 for the other tiers.
  Seconds storage_read;
  Seconds storage_write;
  /// Whether they are prefetched: the next batch's run alongside this step (their exposed
  /// part is what exceeds the rest of the estimate), else before the forward and after the
  /// backward.
  bool prefetched = false;

  /// The planner's estimate, composed as the simulation runs the shard alone: the forward
  /// kernel alongside its host reads, then the backward and the unfused optimiser, then the
  /// write-back of the host rows, and the transfers; the storage reads and writes added, or
  /// prefetched, only their part longer than all that (topo::prefetch_exposed).
  [[nodiscard]] Seconds estimate() const;
  /// estimate()'s parts (they add up to it, to rounding): the forward kernel alongside its host reads, with
  /// the drives' exposed reads and writes (storage_exposed); the backward, the unfused
  /// optimiser and the write-back of host rows; the transfers' forward and backward parts.
  [[nodiscard]] Seconds forward_compute() const { return std::max(forward, host_time) + storage_exposed(); }
  /// The storage reads and writes on the estimate: all of them, or prefetched, only their part
  /// longer than the rest of the estimate (topo::prefetch_exposed).
  [[nodiscard]] Seconds storage_exposed() const;
  [[nodiscard]] Seconds backward_compute() const { return backward + separate_optimizer + host_time; }
  [[nodiscard]] Seconds forward_comms() const { return transfer_forward; }
  [[nodiscard]] Seconds backward_comms() const { return transfer - transfer_forward; }
};

class MemoryTier {
 public:
  MemoryTier() = default;
  MemoryTier(const MemoryTier&) = delete;
  MemoryTier& operator=(const MemoryTier&) = delete;
  virtual ~MemoryTier() = default;

  [[nodiscard]] virtual Tier id() const = 0;
  /// The configuration name (placement.tiers, plan output).
  [[nodiscard]] virtual std::string_view name() const = 0;
  [[nodiscard]] virtual std::string_view description() const = 0;
  /// The devices its shards need, for error messages ("GPUs with a host CPU socket").
  [[nodiscard]] virtual std::string_view owners_description() const = 0;
  [[nodiscard]] virtual TierProperties properties() const = 0;
  /// Whether `device` can own its shards (default: a device of properties().owner_kind).
  [[nodiscard]] virtual bool can_own(const PlacementDevice& device) const;
  /// The device (index into problem.devices) whose memory holds the weights and optimiser
  /// state of a shard that `owner` looks up (default: the owner).
  [[nodiscard]] virtual std::uint32_t storage_of(const PlacementProblem& problem, std::uint32_t owner) const;
  /// The kind of device storage_of() returns (default: properties().owner_kind): what the
  /// capacity report of an infeasible plan sums as the tier's free memory.
  [[nodiscard]] virtual OwnerKind storage_kind() const { return properties().owner_kind; }
  /// Memory a shard of `rows` x `columns` of `table` owned by `owner` needs, as (device,
  /// bytes) pairs: weights and state on storage_of(owner), and for a tier with an HBM cache
  /// round(cache_fraction x rows) cached rows on the owner.
  [[nodiscard]] virtual std::vector<std::pair<std::uint32_t, double>> memory_needed(
      const PlacementProblem& problem, const TableDemand& table, std::uint32_t owner, std::int64_t rows, int columns,
      double cache_fraction) const;
  /// The shard's cost on in.device; infinite times when the device lacks what the tier needs
  /// (e.g. no PCIe figure for uvm, no gather rate and no bandwidth for a CPU).
  [[nodiscard]] virtual ShardCost cost(const ShardCostInput& in) const = 0;
};

/// Every memory tier, in the order of the Tier values.
std::span<const MemoryTier* const> memory_tiers();
/// The implementation of `tier`.
const MemoryTier& tier_of(Tier tier);
/// The tier called `name`; throws std::invalid_argument naming the known ones otherwise.
const MemoryTier& tier_of(std::string_view name);

// Shared by the implementations (placement/tier.cpp).

/// bytes / (bandwidth x efficiency); 0 without bytes, infinite without a rate.
Seconds transfer_time(double bytes, BytesPerSecond bandwidth, double efficiency);
/// A GPU owner's shard whose `hbm_lookups` of the work's lookups are found in HBM (the rest
/// read from host memory): the one GPU embedding cost model with the owner's profile, or the
/// device's plain figures without one (peak bandwidths x the given efficiencies, backward as
/// backward_factor x the forward); plus its NIC time for the off-node exchange.
ShardCost gpu_owner_cost(const ShardCostInput& in, double hbm_lookups);
/// A CPU owner's shard: topologies/cpu_row_cost.hpp's gather and update (`serial_share` of
/// the updates under one lock), plus pooled rows, their gradients and the ids over `link`.
ShardCost cpu_owner_cost(const ShardCostInput& in, double serial_share, BytesPerSecond link);

}  // namespace dlrmsim::placement
