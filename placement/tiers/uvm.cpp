// uvm: the weights live in the DRAM of the owning GPU's NUMA-local CPU socket; the GPU reads
// them over PCIe (zero copy, FBGEMM's UVM caching) through a row cache in its HBM.
// Cost: the one GPU embedding cost model (topologies/gpu_embedding_cost.hpp) with the cache
// hits read from HBM and the misses read over PCIe (and written back after the update, which
// happens in the cache), plus the owner's NIC time for the off-node share of its exchange.
// Capacity: weights and optimiser state on the host socket, the cache on the GPU.
#include "placement/tier.hpp"

namespace dlrmsim::placement {
namespace {

class UvmTier final : public MemoryTier {
 public:
  [[nodiscard]] Tier id() const override { return Tier::uvm; }
  [[nodiscard]] std::string_view name() const override { return "uvm"; }
  [[nodiscard]] std::string_view description() const override {
    return "host DRAM read by the GPU over PCIe (zero copy) through an HBM row cache";
  }
  [[nodiscard]] std::string_view owners_description() const override { return "GPUs with a host CPU socket"; }
  [[nodiscard]] TierProperties properties() const override {
    TierProperties p;
    p.owner_kind = OwnerKind::gpu;
    p.on_gpu = true;
    p.over_host_link = true;
    p.hbm_cache = true;
    return p;
  }
  [[nodiscard]] bool can_own(const PlacementDevice& device) const override {
    return device.kind == OwnerKind::gpu && device.host_socket >= 0;
  }
  [[nodiscard]] OwnerKind storage_kind() const override { return OwnerKind::cpu_socket; }
  [[nodiscard]] std::uint32_t storage_of(const PlacementProblem& problem, std::uint32_t owner) const override {
    return static_cast<std::uint32_t>(problem.devices.at(owner).host_socket);
  }
  [[nodiscard]] ShardCost cost(const ShardCostInput& in) const override {
    return gpu_owner_cost(in, in.work.lookups * in.work.hit_rate);
  }
};

}  // namespace

const MemoryTier& uvm_tier() {
  static const UvmTier tier;
  return tier;
}

}  // namespace dlrmsim::placement
