// gpu_hbm: the owning GPU's embedding kernel reads the shard from its own HBM.
// Cost: the one GPU embedding cost model (topologies/gpu_embedding_cost.hpp) over every
// lookup, plus the owner's NIC time for the off-node share of its exchange.
#include "placement/tier.hpp"

namespace dlrmsim::placement {
namespace {

class GpuHbmTier final : public MemoryTier {
 public:
  [[nodiscard]] Tier id() const override { return Tier::gpu_hbm; }
  [[nodiscard]] std::string_view name() const override { return "gpu_hbm"; }
  [[nodiscard]] std::string_view description() const override {
    return "GPU memory: the owning GPU's embedding kernel reads its own HBM";
  }
  [[nodiscard]] std::string_view owners_description() const override { return "GPUs"; }
  [[nodiscard]] TierProperties properties() const override {
    TierProperties p;
    p.owner_kind = OwnerKind::gpu;
    p.on_gpu = true;
    p.replicable = true;  // a full replica per trainer is TorchRec's data-parallel sharding
    return p;
  }
  [[nodiscard]] ShardCost cost(const ShardCostInput& in) const override { return gpu_owner_cost(in, in.work.lookups); }
};

}  // namespace

const MemoryTier& gpu_hbm_tier() {
  static const GpuHbmTier tier;
  return tier;
}

}  // namespace dlrmsim::placement
