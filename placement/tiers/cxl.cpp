// cxl: the weights and optimiser state live in the CXL Type-3 memory expanders of a trainer
// node's CPU socket, which looks rows up with its cores and sends the pooled results to the
// GPUs over PCIe, as host_dram does from its DRAM.
// Cost: topologies/cpu_row_cost.hpp's gather and update with the expanders' bandwidth and
// the cores' row costs scaled by the expanders' load latency over the DRAM's (with_cxl_memory),
// plus the pooled rows, their gradients and the ids over the socket's PCIe link.
// Capacity: weights and optimiser state on the socket's expanders (a device of their own).
#include "placement/tier.hpp"

#include <limits>

#include "topologies/cpu_row_cost.hpp"

namespace dlrmsim::placement {
namespace {

class CxlTier final : public MemoryTier {
 public:
  [[nodiscard]] Tier id() const override { return Tier::cxl; }
  [[nodiscard]] std::string_view name() const override { return "cxl"; }
  [[nodiscard]] std::string_view description() const override {
    return "CXL memory expanders of a trainer node's CPU socket, looked up by its cores; pooled rows go to the GPUs over "
           "PCIe";
  }
  [[nodiscard]] std::string_view owners_description() const override {
    return "CPU sockets on trainer nodes with CXL memory expanders (a CPU device's `cxl:`)";
  }
  [[nodiscard]] TierProperties properties() const override {
    TierProperties p;
    p.owner_kind = OwnerKind::cpu_socket;
    p.over_host_link = true;
    return p;
  }
  [[nodiscard]] bool can_own(const PlacementDevice& device) const override {
    return device.kind == OwnerKind::cpu_socket && device.cxl_device >= 0;
  }
  [[nodiscard]] OwnerKind storage_kind() const override { return OwnerKind::cxl_memory; }
  [[nodiscard]] std::uint32_t storage_of(const PlacementProblem& problem, std::uint32_t owner) const override {
    return static_cast<std::uint32_t>(problem.devices.at(owner).cxl_device);
  }
  [[nodiscard]] ShardCost cost(const ShardCostInput& in) const override {
    const auto storage = in.device.cxl_device;
    if (storage < 0 || !in.problem.devices.at(static_cast<std::size_t>(storage)).cxl) {
      ShardCost c;
      c.forward = Seconds(std::numeric_limits<double>::infinity());
      return c;
    }
    PlacementDevice socket = in.device;
    socket.cpu_rows = topo::with_cxl_memory(in.device.cpu_rows, *in.problem.devices[static_cast<std::size_t>(storage)].cxl);
    return cpu_owner_cost({in.problem, socket, in.table, in.work, in.profile, in.software}, in.work.serial_update_share,
                          in.device.host_link_bandwidth);
  }
};

}  // namespace

const MemoryTier& cxl_tier() {
  static const CxlTier tier;
  return tier;
}

}  // namespace dlrmsim::placement
