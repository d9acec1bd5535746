#include "models/step_context.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "models/fidelity.hpp"

namespace dlrmsim::models {

using placement::OwnerKind;
using placement::Tier;
using sim::ActivityId;

std::vector<topo::NodeId> nodes_with_role(const topo::Platform& platform, const std::string& role) {
  std::vector<topo::NodeId> out;
  for (const auto& g : platform.groups()) {
    if (g.role != role && g.name != role) continue;
    for (std::uint32_t i = 0; i < g.node_count; ++i) out.push_back(topo::NodeId{g.first_node.index + i});
  }
  return out;
}

bool plan_uses(const placement::PlacementPlan& plan, Tier tier) {
  for (const auto& tp : plan.tables) {
    for (const auto& s : tp.shards) {
      if (s.tier == tier) return true;
    }
  }
  return false;
}

StepContext::StepContext(const StepInputs& inputs, sim::ActivityGraph& g, topo::PlatformResources r)
    : in(inputs), graph(g), resources(std::move(r)), cat(Categories::add_to(g)) {}

StepContext::~StepContext() = default;

const ClusterFidelity& StepContext::fidelity() const {
  if (!fidelity_) throw std::logic_error("the step builder's fidelity is chosen by select_trainers()");
  return *fidelity_;
}

bool StepContext::representative() const { return fidelity_ && fidelity_->representative(); }

void StepContext::select_trainers(bool cpu_trainers, std::function<BytesPerSecond(topo::DeviceId)> egress,
                                  std::function<BytesPerSecond(topo::DeviceId)> ingress, int steps) {
  const auto kind = cpu_trainers ? OwnerKind::cpu_socket : OwnerKind::gpu;
  const auto ids = in.problem.devices_of(kind);
  if (ids.empty()) {
    throw std::invalid_argument(std::string("training mode '") + in.options.mode + "' needs " +
                                (cpu_trainers ? "CPU sockets" : "GPUs") + " as trainers; the platform has none");
  }
  std::map<std::uint32_t, std::vector<topo::DeviceId>> by_node;
  for (auto i : ids) {
    const topo::DeviceId d{in.problem.devices[i].topology_id};
    by_node[in.platform.node_of(d).index].push_back(d);
  }
  total_trainers_ = ids.size();
  trainer_nodes_ = by_node.size();
  trainers_per_node_ = by_node.begin()->second.size();
  owner_work_ = compute_owner_work(in);
  fidelity_ = ClusterFidelity::choose(FidelityInputs{
      in.platform, in.problem, in.options, owner_work_.by_owner, by_node, std::move(egress), std::move(ingress), steps});
  trainers_.clear();
  for (const auto& [n, devs] : by_node) {
    if (!fidelity_->simulates_node(topo::NodeId{n})) continue;
    for (auto d : devs) trainers_.push_back(sim_device(d));
  }
  built.simulated_trainers = trainers_.size();
  built.total_trainers = total_trainers_;
  built.fidelity = fidelity_->description();
}

std::size_t StepContext::all_to_all_trainers() const {
  const auto& group = in.options.sharding_group;
  return group ? std::min(static_cast<std::size_t>(*group), total_trainers_) : total_trainers_;
}

std::size_t StepContext::all_to_all_nodes() const {
  if (!in.options.sharding_group || trainers_per_node_ == 0) return trainer_nodes_;
  return std::max<std::size_t>(1, all_to_all_trainers() / trainers_per_node_);
}

std::int64_t StepContext::local_batch() const {
  return std::max<std::int64_t>(1, in.model.global_batch_size / static_cast<std::int64_t>(std::max<std::size_t>(1, total_trainers_)));
}

const OwnerWork& StepContext::represented_work(std::uint32_t owner) const { return fidelity().represented_work(owner); }

std::vector<std::uint32_t> StepContext::simulated_owners(OwnerKind kind) const {
  return fidelity().simulated_owners(kind);
}

SimDevice* StepContext::owner_device(std::uint32_t owner) {
  const auto& dev = in.problem.devices.at(owner);
  if (dev.kind == OwnerKind::parameter_server) return sockets_of(topo::NodeId{dev.topology_id}).front();
  return &sim_device(topo::DeviceId{dev.topology_id});
}

SimDevice& StepContext::sim_device(topo::DeviceId d) {
  auto it = devices_.find(d.index);
  if (it != devices_.end()) return it->second;
  SimDevice s;
  s.device = d;
  s.node = in.platform.node_of(d);
  const auto& dev = in.platform.device(d);
  s.stream = graph.add_stream(resources.engine(d), dev.name + ".compute");
  if (dev.kind == topo::DeviceKind::gpu) {
    s.is_gpu = true;
    s.profile = &in.profiles.get(in.platform.gpu_spec(d));
    const auto gpus = in.platform.gpus(s.node);
    s.local_index = static_cast<int>(std::find(gpus.begin(), gpus.end(), d) - gpus.begin());
  } else if (dev.kind == topo::DeviceKind::cpu) {
    s.cpu = &in.platform.cpu_spec(d);
    const auto cpus = in.platform.cpus(s.node);
    s.local_index = static_cast<int>(std::find(cpus.begin(), cpus.end(), d) - cpus.begin());
  } else {
    throw std::invalid_argument("device '" + dev.name + "' is neither a GPU nor a CPU socket and cannot compute");
  }
  return devices_.emplace(d.index, s).first->second;
}

std::vector<SimDevice*> StepContext::sockets_of(topo::NodeId node) {
  std::vector<SimDevice*> out;
  for (auto c : in.platform.cpus(node)) out.push_back(&sim_device(c));
  if (out.empty()) throw std::invalid_argument("node '" + in.platform.node(node).name + "' has no CPU socket");
  return out;
}

ActivityId StepContext::compute(const SimDevice& d, Seconds t, std::span<const ActivityId> deps, std::uint16_t category,
                                KernelLoad load) {
  if (slowdowns_ && (category == cat.embedding_lookup ? slowdowns_->options().memory : slowdowns_->options().compute)) {
    t = t * fidelity().device_slowdown(*slowdowns_, step_, d.device);
  }
  const auto sms = d.is_gpu ? resources.sms(d.device) : std::nullopt;
  const bool on_sms = load.sms && sms;  // else a GPU without an SM pool, or a CPU: fixed duration
  const bool on_hbm = d.is_gpu && load.hbm.value() > 0.0 && t.value() > 0.0 && (on_sms || !load.sms);
  // Alone the kernel takes t over all the SMs and/or moves its bytes at hbm / t; beside other
  // streams' kernels, copies and NCCL's kernels (nccl_sms) it gets its max-min share of each.
  const sim::ResourceId memory = on_hbm ? resources.memory(d.device) : sim::ResourceId{};
  const double sm_rate = on_sms ? graph.resource(*sms).capacity.value() : 0.0;
  if (on_sms && on_hbm) {
    const std::array parts{sim::ActivityGraph::KernelPart{t.value() * sm_rate, std::span(&*sms, 1)},
                           sim::ActivityGraph::KernelPart{load.hbm.value(), std::span(&memory, 1)}};
    return graph.add_kernel(d.stream, t, parts, deps, category);
  }
  if (on_hbm) {
    return graph.add_kernel(d.stream, load.hbm.value(), (load.hbm / t).value(), std::span(&memory, 1), deps, category);
  }
  if (on_sms) return graph.add_kernel(d.stream, t.value() * sm_rate, sm_rate, std::span(&*sms, 1), deps, category);
  return graph.add_compute(d.stream, t, deps, category);
}

ActivityId StepContext::marker(std::span<const ActivityId> deps) { return graph.add_marker(deps, cat.sync); }

void StepContext::begin_step(int step) {
  step_ = step;
  auto& first = built.step_first_activity;
  const auto count = static_cast<std::uint32_t>(graph.activity_count());
  if (step >= 0 && static_cast<std::size_t>(step) >= first.size()) first.resize(static_cast<std::size_t>(step) + 1, count);
}

}  // namespace dlrmsim::models
