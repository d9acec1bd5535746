// remote_ps: remote CPU memory of parameter-server nodes across the network.
// Cost: the server's CPU lookup (topologies/cpu_row_cost.hpp, ids resolved through its hash
// map) plus pooled rows, their gradients and the ids over its NICs; the server pools rows
// before sending (assumption: HPCA 2021's sparse parameter servers and Persia's embedding
// workers both return pooled rows). A server runs its own software, not the trainers'
// framework: its updates are not striped under the framework's locks.
#include "placement/tier.hpp"

namespace dlrmsim::placement {
namespace {

class RemotePsTier final : public MemoryTier {
 public:
  [[nodiscard]] Tier id() const override { return Tier::remote_ps; }
  [[nodiscard]] std::string_view name() const override { return "remote_ps"; }
  [[nodiscard]] std::string_view description() const override {
    return "remote CPU memory of parameter-server nodes, reached over the network";
  }
  [[nodiscard]] std::string_view owners_description() const override {
    return "parameter-server nodes (a node group with role parameter_server)";
  }
  [[nodiscard]] TierProperties properties() const override {
    TierProperties p;
    p.owner_kind = OwnerKind::parameter_server;
    p.remote = true;
    return p;
  }
  [[nodiscard]] ShardCost cost(const ShardCostInput& in) const override {
    return cpu_owner_cost(in, 0.0, in.device.network_bandwidth);
  }
};

}  // namespace

const MemoryTier& remote_ps_tier() {
  static const RemotePsTier tier;
  return tier;
}

}  // namespace dlrmsim::placement
