// host_dram: the owning CPU socket of a trainer node looks rows up in its DRAM and sends the
// pooled results to the GPUs over PCIe.
// Cost: topologies/cpu_row_cost.hpp's gather and read-modify-write update (with striped host
// updates, the busiest lock's chain when it is longer), plus pooled rows, their gradients and
// the ids over the socket's PCIe link to its GPUs.
#include "placement/tier.hpp"

namespace dlrmsim::placement {
namespace {

class HostDramTier final : public MemoryTier {
 public:
  [[nodiscard]] Tier id() const override { return Tier::host_dram; }
  [[nodiscard]] std::string_view name() const override { return "host_dram"; }
  [[nodiscard]] std::string_view description() const override {
    return "host DRAM of a trainer node's CPU socket, looked up by its cores; pooled rows go to the GPUs over PCIe";
  }
  [[nodiscard]] std::string_view owners_description() const override { return "CPU sockets on trainer nodes"; }
  [[nodiscard]] TierProperties properties() const override {
    TierProperties p;
    p.owner_kind = OwnerKind::cpu_socket;
    p.over_host_link = true;
    return p;
  }
  [[nodiscard]] ShardCost cost(const ShardCostInput& in) const override {
    return cpu_owner_cost(in, in.work.serial_update_share, in.device.host_link_bandwidth);
  }
};

}  // namespace

const MemoryTier& host_dram_tier() {
  static const HostDramTier tier;
  return tier;
}

}  // namespace dlrmsim::placement
