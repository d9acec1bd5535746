#include "models/step_builder.hpp"

namespace dlrmsim::models {

StepBuilder::StepBuilder(const StepInputs& inputs, sim::ActivityGraph& graph)
    : StepBuilder(inputs, graph, topo::export_platform(inputs.platform, graph)) {}

StepBuilder::StepBuilder(const StepInputs& inputs, sim::ActivityGraph& graph, topo::PlatformResources resources)
    : ctx_(inputs, graph, std::move(resources)),
      net_(ctx_),
      host_(ctx_, net_),
      collectives_(ctx_, net_),
      embeddings_(ctx_, host_, net_),
      dense_(ctx_, host_, collectives_) {}

void StepBuilder::select_trainers(bool cpu_trainers, int steps) {
  ctx_.select_trainers(
      cpu_trainers, [this](topo::DeviceId d) { return net_.narrowest(net_.egress_route(d)); },
      [this](topo::DeviceId d) { return net_.narrowest(net_.ingress_route(d)); }, steps);
}

}  // namespace dlrmsim::models
