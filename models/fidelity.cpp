#include "models/fidelity.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <stdexcept>

namespace dlrmsim::models {

using placement::OwnerKind;
using sim::ActivityId;
using Towards = Collectives::Towards;

namespace {

/// Owners that stand for each other in representative mode: same kind, same position in
/// their node (GPU / socket index; 0 for a server) and same node template.
struct RepKey {
  int kind;
  int local;
  std::string node_template;
  auto operator<=>(const RepKey&) const = default;
};

RepKey key_of(const placement::PlacementProblem& problem, const topo::Platform& platform, std::uint32_t owner,
              topo::NodeId* node_out = nullptr) {
  const auto& dev = problem.devices[owner];
  topo::NodeId node{dev.topology_id};
  int local = 0;
  if (dev.kind != OwnerKind::parameter_server) {
    const topo::DeviceId d{dev.topology_id};
    node = platform.node_of(d);
    const auto list = dev.kind == OwnerKind::gpu ? platform.gpus(node) : platform.cpus(node);
    local = static_cast<int>(std::find(list.begin(), list.end(), d) - list.begin());
  }
  if (node_out) *node_out = node;
  return RepKey{static_cast<int>(dev.kind), local, platform.node(node).template_name};
}

const OwnerWork& work_of(std::span<const OwnerWork> work, std::uint32_t owner) {
  if (owner >= work.size()) throw std::out_of_range("owner " + std::to_string(owner) + " is not in the placement problem");
  return work[owner];
}

/// Each simulated trainer's share of an owner's bytes (its local batch over the batch its
/// owner serves: the global batch, or its sharding group's under 2D sparse parallelism).
double trainer_share(const Collectives& b) {
  return 1.0 / static_cast<double>(std::max<std::size_t>(1, b.context().all_to_all_trainers()));
}

std::vector<std::size_t> every_trainer(const Collectives& b) {
  std::vector<std::size_t> all(b.context().trainers().size());
  std::iota(all.begin(), all.end(), std::size_t{0});
  return all;
}

}  // namespace

// ---- sharding groups ------------------------------------------------------------------------

ClusterFidelity::ClusterFidelity(FidelityInputs inputs) : in_(std::move(inputs)) {
  // 2D sparse parallelism (models/sharding_groups.hpp): groups of whole consecutive trainer
  // nodes of training.sharding_group GPUs; without it every trainer node is in one group.
  const std::size_t nodes = in_.trainers_by_node.size();
  group_nodes_ = nodes;
  if (in_.options.sharding_group && nodes > 0) {
    const std::size_t per_node = std::max<std::size_t>(1, in_.trainers_by_node.begin()->second.size());
    group_nodes_ = std::clamp<std::size_t>(static_cast<std::size_t>(*in_.options.sharding_group) / per_node, 1, nodes);
  }
  std::size_t rank = 0;
  for (const auto& [node, devs] : in_.trainers_by_node) group_of_[node] = rank++ / std::max<std::size_t>(1, group_nodes_);
}

bool ClusterFidelity::same_group(std::uint32_t a, std::uint32_t b) const {
  const auto x = group_of_.find(a), y = group_of_.find(b);
  // A node off the trainer nodes (a server) is in every group.
  return x == group_of_.end() || y == group_of_.end() || x->second == y->second;
}

// ---- choice ---------------------------------------------------------------------------------

Seconds estimated_every_node_seconds(std::size_t trainers, int steps) {
  return Seconds(kEveryNodeSecondsPerTrainerStep * static_cast<double>(trainers) * static_cast<double>(std::max(steps, 1)));
}

std::unique_ptr<ClusterFidelity> ClusterFidelity::choose(FidelityInputs inputs) {
  const auto& by_node = inputs.trainers_by_node;
  bool symmetric = by_node.size() > 1;
  std::size_t trainers = 0;
  if (symmetric) {
    const std::size_t per_node = by_node.begin()->second.size();
    const std::string& tmpl = inputs.platform.node(topo::NodeId{by_node.begin()->first}).template_name;
    for (const auto& [n, devs] : by_node) {
      if (devs.size() != per_node || inputs.platform.node(topo::NodeId{n}).template_name != tmpl) symmetric = false;
      trainers += devs.size();
    }
  }
  using NodeFidelity = TrainingOptions::NodeFidelity;
  const auto nodes = inputs.options.nodes;
  if (!symmetric || nodes == NodeFidelity::all) return std::make_unique<EveryNode>(std::move(inputs));
  const RepresentativeErrorMeasurement* measured = representative_error_for(inputs.platform.fabric(), by_node.size());
  if (nodes == NodeFidelity::representative) return std::make_unique<RepresentativeNode>(std::move(inputs), measured);
  // auto: every node where affordable; beyond, the representative node where it is measured
  // to be within kRepresentativeErrorLimit of every node, else every node however long.
  const Seconds cost = estimated_every_node_seconds(trainers, inputs.steps);
  if (cost <= inputs.options.every_node_budget) return std::make_unique<EveryNode>(std::move(inputs));
  if (measured && std::abs(measured->error()) < kRepresentativeErrorLimit) {
    return std::make_unique<RepresentativeNode>(std::move(inputs), measured);
  }
  char estimate[32];
  std::snprintf(estimate, sizeof estimate, "%.2g s", cost.value());
  std::string why = std::string("every node although estimated at ") + estimate +
                    ", beyond training.every_node_budget: the representative node's error " +
                    (measured ? "is " + describe(*measured) : std::string("is not measured on this fabric"));
  return std::make_unique<EveryNode>(std::move(inputs), std::move(why));
}

// ---- every node -----------------------------------------------------------------------------

EveryNode::EveryNode(FidelityInputs inputs, std::string why) : ClusterFidelity(std::move(inputs)), why_(std::move(why)) {
  for (const auto& [n, devs] : in_.trainers_by_node) {
    simulated_nodes_.push_back(topo::NodeId{n});
    trainer_indices_.resize(trainer_indices_.size() + devs.size());
  }
  std::iota(trainer_indices_.begin(), trainer_indices_.end(), std::size_t{0});
}

std::string EveryNode::description() const {
  if (trainer_nodes() == 1) return "one trainer node, every device simulated";
  return std::string("all nodes, ") +
         (in_.options.communication == TrainingOptions::CommunicationFidelity::per_pair
              ? "per-pair flows"
              : "flows aggregated per destination node") +
         (why_.empty() ? "" : " (" + why_ + ")");
}

std::vector<std::uint32_t> EveryNode::simulated_owners(OwnerKind kind) const {
  std::vector<std::uint32_t> out;
  for (std::uint32_t i = 0; i < in_.problem.devices.size(); ++i) {
    if (in_.problem.devices[i].kind == kind && work_of(in_.owner_work, i).any) out.push_back(i);
  }
  return out;
}

const OwnerWork& EveryNode::represented_work(std::uint32_t owner) const { return work_of(in_.owner_work, owner); }

double EveryNode::device_slowdown(const Slowdowns& s, int step, topo::DeviceId d) const { return s.own(step, d); }

double EveryNode::link_slowdown(const Slowdowns& s, int step, topo::DirectedLinkId link) const {
  return s.link_factor(step, link, false);
}

void EveryNode::owner_off_node(Collectives& b, const SimDevice& od, Towards towards, Bytes bytes, std::size_t,
                               const Ready& ready, const Arrived& arrived, std::uint16_t category) const {
  const auto& trainers = b.context().trainers();
  const double share = trainer_share(b);
  auto flow = [&](std::size_t peer, Bytes part, std::span<const std::size_t> members) {
    const auto deps = ready(members);
    const topo::DeviceId t = trainers[peer].device;
    arrived(members, towards == Towards::trainers ? b.transfers().send(od.device, t, part, deps, category)
                                                  : b.transfers().send(t, od.device, part, deps, category));
  };
  const bool per_pair = in_.options.communication == TrainingOptions::CommunicationFidelity::per_pair;
  // StepContext lists the trainers node by node, in node order: each remote node's trainers are
  // one run of the list (a map of them per owner made this quadratic in the cluster's size).
  for (std::size_t start = 0, end = 0; start < trainers.size(); start = end) {
    end = start + 1;
    while (end < trainers.size() && trainers[end].node == trainers[start].node) ++end;
    if (trainers[start].node == od.node || !same_group(trainers[start].node.index, od.node.index)) continue;
    const std::span<const std::size_t> members = std::span(trainer_indices_).subspan(start, end - start);
    if (per_pair) {
      for (const std::size_t& i : members) flow(i, bytes * share, std::span(&i, 1));
    } else {
      // One flow per destination node, to or from the GPU of the owner's own index there (its
      // rail), so that the aggregate crosses the links an NCCL all-to-all would use.
      const std::size_t peer = members[static_cast<std::size_t>(od.local_index) % members.size()];
      flow(peer, bytes * (share * static_cast<double>(members.size())), members);
    }
  }
}

std::vector<std::vector<ActivityId>> EveryNode::counterparts_to_trainers(Collectives& b, OwnerKind, Bytes OwnerWork::*,
                                                                         const std::map<std::uint32_t, ActivityId>&,
                                                                         std::uint16_t) const {
  return std::vector<std::vector<ActivityId>>(b.context().trainers().size());  // every owner is simulated
}

std::map<std::uint32_t, std::vector<ActivityId>> EveryNode::counterparts_to_owners(Collectives&, OwnerKind,
                                                                                   Bytes OwnerWork::*,
                                                                                   std::span<const ActivityId>,
                                                                                   std::uint16_t) const {
  return {};  // every trainer is simulated
}

std::vector<ActivityId> EveryNode::inter_node_all_reduce(Collectives& b, Bytes bytes, std::span<const ActivityId> ready,
                                                         std::uint16_t category) const {
  // Ring over nodes among same-index GPUs: node k sends to node k+1.
  const auto& trainers = b.context().trainers();
  const std::size_t n = trainers.size();
  std::map<std::uint32_t, std::vector<std::size_t>> by_node;
  for (std::size_t i = 0; i < n; ++i) by_node[trainers[i].node.index].push_back(i);
  std::vector<std::uint32_t> node_order;
  for (const auto& [node, members] : by_node) node_order.push_back(node);
  std::vector<std::vector<ActivityId>> in(n);
  for (std::size_t k = 0; k < node_order.size(); ++k) {
    const auto& src = by_node[node_order[k]];
    const auto& dst = by_node[node_order[(k + 1) % node_order.size()]];
    for (std::size_t l = 0; l < src.size() && l < dst.size(); ++l) {
      const std::array<ActivityId, 1> dep{ready[src[l]]};
      in[dst[l]].push_back(b.transfers().send(trainers[src[l]].device, trainers[dst[l]].device, bytes, dep, category));
    }
  }
  std::vector<ActivityId> done(n);
  for (std::size_t i = 0; i < n; ++i) {
    in[i].push_back(ready[i]);
    done[i] = b.context().marker(in[i]);
  }
  return done;
}

std::vector<ActivityId> EveryNode::rail_exchange(Collectives& b, Towards towards, std::span<const Bytes> node_shares,
                                                 Bytes OwnerWork::*, std::span<const ActivityId> ready,
                                                 std::uint16_t category) const {
  const auto& trainers = b.context().trainers();
  const std::size_t n = trainers.size();
  std::map<std::uint32_t, std::vector<std::size_t>> by_node;
  for (std::size_t i = 0; i < n; ++i) by_node[trainers[i].node.index].push_back(i);
  std::vector<std::vector<ActivityId>> in(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (const auto& [node, members] : by_node) {
      if (node == trainers[i].node.index) continue;
      const std::size_t k = members[static_cast<std::size_t>(trainers[i].local_index) % members.size()];
      const Bytes bytes = towards == Towards::trainers ? node_shares[i] : node_shares[k];
      if (bytes.value() <= 0.0) continue;
      const std::array<ActivityId, 1> dep{ready[i]};
      in[k].push_back(b.transfers().send(trainers[i].device, trainers[k].device, bytes, dep, category));
    }
  }
  std::vector<ActivityId> done(n);
  for (std::size_t i = 0; i < n; ++i) {
    in[i].push_back(ready[i]);
    done[i] = b.context().marker(in[i]);
  }
  return done;
}

// ---- representative node --------------------------------------------------------------------

RepresentativeNode::RepresentativeNode(FidelityInputs inputs, const RepresentativeErrorMeasurement* measured)
    : ClusterFidelity(std::move(inputs)), measured_(measured) {
  const auto& platform = in_.platform;
  const auto& by_node = in_.trainers_by_node;
  if (by_node.empty()) throw std::invalid_argument("a representative node needs trainer nodes");
  // The representative is the trainer node holding the slowest embedding owner: a
  // synchronous step waits for it, and the rest of that node is simulated as it is (not a
  // composite of every node's worst device). An owner's time is its lookup compute plus its
  // cross-node traffic (its pooled outputs out, ids and pooled gradients in) at the
  // narrowest link of its route off the node: an owner of many narrow tables computes
  // little but loads its NIC most.
  const double off_node = 1.0 - 1.0 / static_cast<double>(std::max<std::size_t>(1, group_nodes()));
  std::uint32_t heaviest = by_node.begin()->first;
  double worst = -1.0;
  for (std::uint32_t i = 0; i < in_.owner_work.size(); ++i) {
    const auto& dev = in_.problem.devices[i];
    if (dev.kind == OwnerKind::parameter_server) continue;
    const topo::DeviceId device{dev.topology_id};
    const auto node = platform.node_of(device).index;
    if (by_node.count(node) == 0) continue;
    const OwnerWork& w = in_.owner_work[i];
    double load = (w.forward_compute + w.backward_compute).value();
    if (w.any && group_nodes() > 1) {
      const Bytes out = w.pooled_out * off_node, in = (w.ids_in + w.pooled_grad) * off_node;
      load += (out / in_.egress_bandwidth(device)).value() + (in / in_.ingress_bandwidth(device)).value();
    }
    if (load > worst) {
      worst = load;
      heaviest = node;
    }
  }
  simulated_nodes_.push_back(topo::NodeId{heaviest});

  // The owners on the simulated trainer node stand for themselves (and for their
  // counterparts on the other nodes); owners on server nodes (parameter servers, other
  // templates) are grouped by (kind, position in their node, node template), and the first
  // of a group is simulated carrying the largest work of the group.
  const std::string& trainer_template = platform.node(simulated_nodes_.front()).template_name;
  std::map<RepKey, std::uint32_t> best;       // key -> owner with the largest work
  std::map<RepKey, std::uint32_t> simulated;  // key -> the simulated owner
  for (std::uint32_t i = 0; i < in_.owner_work.size(); ++i) {
    const auto& dev = in_.problem.devices[i];
    topo::NodeId node;
    const RepKey key = key_of(in_.problem, platform, i, &node);
    const std::string& tmpl = key.node_template;
    const bool on_simulated_trainer_node = simulates_node(node) && tmpl == trainer_template;
    if (on_simulated_trainer_node && dev.kind != OwnerKind::parameter_server) {
      represented_owner_[i] = i;
      continue;
    }
    if ((tmpl != trainer_template || dev.kind == OwnerKind::parameter_server) && simulated.count(key) == 0) {
      simulated[key] = i;
    }
    // More compute time is larger work; between equal compute times, more pooled output bytes.
    const auto larger = [&](std::uint32_t x, std::uint32_t y) {
      const OwnerWork& wx = in_.owner_work[x];
      const OwnerWork& wy = in_.owner_work[y];
      const Seconds cx = wx.forward_compute + wx.backward_compute;
      const Seconds cy = wy.forward_compute + wy.backward_compute;
      if (cx != cy) return cx > cy;
      return wx.pooled_out > wy.pooled_out;
    };
    auto b = best.find(key);
    if (b == best.end() || larger(i, b->second)) best[key] = i;
  }
  for (const auto& [key, sim_owner] : simulated) represented_owner_[sim_owner] = best.at(key);
}

std::string RepresentativeNode::description() const {
  return "representative node (" + std::to_string(trainer_nodes()) +
         " symmetric trainer nodes, per-link aggregated flows; its error: " +
         (measured_ ? describe(*measured_) : std::string("not measured on this fabric")) + ")";
}

bool RepresentativeNode::simulates_node(topo::NodeId n) const {
  return std::find(simulated_nodes_.begin(), simulated_nodes_.end(), n) != simulated_nodes_.end();
}

std::vector<std::uint32_t> RepresentativeNode::simulated_owners(OwnerKind kind) const {
  std::vector<std::uint32_t> out;
  for (std::uint32_t i = 0; i < in_.problem.devices.size(); ++i) {
    if (in_.problem.devices[i].kind != kind) continue;
    auto it = represented_owner_.find(i);
    if (it == represented_owner_.end()) continue;  // not simulated
    if (work_of(in_.owner_work, it->second).any) out.push_back(i);
  }
  return out;
}

const OwnerWork& RepresentativeNode::represented_work(std::uint32_t owner) const {
  auto it = represented_owner_.find(owner);
  return work_of(in_.owner_work, it != represented_owner_.end() ? it->second : owner);
}

double RepresentativeNode::device_slowdown(const Slowdowns& s, int step, topo::DeviceId d) const {
  return s.largest_stood_for(step, d).factor;
}

double RepresentativeNode::link_slowdown(const Slowdowns& s, int step, topo::DirectedLinkId link) const {
  return s.link_factor(step, link, true);
}

std::map<std::uint32_t, Bytes> RepresentativeNode::remote_counterparts(OwnerKind kind, Bytes OwnerWork::*what) const {
  std::map<RepKey, std::uint32_t> simulated;
  for (const auto& [owner, src] : represented_owner_) {
    if (in_.problem.devices[owner].kind == kind) simulated[key_of(in_.problem, in_.platform, owner)] = owner;
  }
  std::map<std::uint32_t, Bytes> out;
  for (std::uint32_t j = 0; j < in_.owner_work.size(); ++j) {
    if (in_.problem.devices[j].kind != kind) continue;
    topo::NodeId node;
    const RepKey key = key_of(in_.problem, in_.platform, j, &node);
    if (kind != OwnerKind::parameter_server && simulates_node(node)) continue;  // on the simulated node
    // 2D: only the owners of the simulated node's sharding group serve its trainers.
    if (kind != OwnerKind::parameter_server && !same_group(node.index, simulated_nodes_.front().index)) continue;
    auto it = simulated.find(key);
    if (it == simulated.end()) continue;
    out[it->second] += in_.owner_work[j].*what;
  }
  return out;
}

ActivityId RepresentativeNode::off_node_flows(Collectives& b, topo::DeviceId device, bool sends, Bytes bytes,
                                              std::size_t flows, std::span<const ActivityId> deps,
                                              std::uint16_t category) {
  flows = std::max<std::size_t>(1, flows);
  std::vector<ActivityId> parts;
  parts.reserve(flows);
  for (std::size_t k = 0; k < flows; ++k) {
    const Bytes part = bytes / static_cast<double>(flows);
    parts.push_back(sends ? b.transfers().send_egress(device, part, deps, category) : b.transfers().send_ingress(device, part, deps, category));
  }
  return flows == 1 ? parts.front() : b.context().marker(parts);
}

void RepresentativeNode::owner_off_node(Collectives& b, const SimDevice& od, Towards towards, Bytes bytes,
                                        std::size_t local_trainers, const Ready& ready, const Arrived& arrived,
                                        std::uint16_t category) const {
  const double remote_fraction = 1.0 - static_cast<double>(local_trainers) * trainer_share(b);
  if (remote_fraction <= 1e-12) return;
  const auto all = every_trainer(b);
  const auto deps = ready(all);
  arrived(all, off_node_flows(b, od.device, towards == Towards::trainers, bytes * remote_fraction, group_nodes() - 1,
                              deps, category));
}

std::size_t RepresentativeNode::rail_trainer(Collectives& b, std::uint32_t owner) {
  // The simulated trainer at the owner's local index (modulo the trainers): the one every
  // node's owner at that position exchanges with over its rail.
  const auto& trainers = b.context().trainers();
  const std::size_t want = static_cast<std::size_t>(b.context().owner_device(owner)->local_index) % trainers.size();
  for (std::size_t i = 0; i < trainers.size(); ++i) {
    if (static_cast<std::size_t>(trainers[i].local_index) == want) return i;
  }
  return want;
}

std::vector<std::vector<ActivityId>> RepresentativeNode::counterparts_to_trainers(
    Collectives& b, OwnerKind kind, Bytes OwnerWork::*what, const std::map<std::uint32_t, ActivityId>& owner_ready,
    std::uint16_t category) const {
  const auto& trainers = b.context().trainers();
  const std::size_t n = trainers.size();
  const double share = trainer_share(b);
  std::vector<std::vector<ActivityId>> inbound(n);
  for (const auto& [o, bytes] : remote_counterparts(kind, what)) {
    auto r = owner_ready.find(o);
    if (r == owner_ready.end() || bytes.value() <= 0.0) continue;
    const std::array<ActivityId, 1> dep{r->second};
    if (kind == OwnerKind::gpu && n > 0) {
      // As every node's owners send it (Collectives::owner_trainer_flows): one flow per remote
      // node to the trainer on the owner's rail, carrying the node's shares.
      const ActivityId a = off_node_flows(b, trainers[rail_trainer(b, o)].device, false,
                                          bytes * (share * static_cast<double>(n)), group_nodes() - 1, dep, category);
      for (auto& in : inbound) in.push_back(a);
      continue;
    }
    for (std::size_t i = 0; i < n; ++i) inbound[i].push_back(b.transfers().send_ingress(trainers[i].device, bytes * share, dep, category));
  }
  return inbound;
}

std::map<std::uint32_t, std::vector<ActivityId>> RepresentativeNode::counterparts_to_owners(
    Collectives& b, OwnerKind kind, Bytes OwnerWork::*what, std::span<const ActivityId> trainer_ready,
    std::uint16_t category) const {
  const auto& trainers = b.context().trainers();
  const std::size_t n = trainers.size();
  const double share = trainer_share(b);
  std::map<std::uint32_t, std::vector<ActivityId>> egress;
  for (const auto& [o, bytes] : remote_counterparts(kind, what)) {
    if (bytes.value() <= 0.0) continue;
    if (kind == OwnerKind::gpu && n > 0) {
      // The mirror of counterparts_to_trainers: the rail's trainer sends the node's shares,
      // once every simulated trainer is ready.
      egress[o].push_back(off_node_flows(b, trainers[rail_trainer(b, o)].device, true,
                                         bytes * (share * static_cast<double>(n)), group_nodes() - 1, trainer_ready,
                                         category));
      continue;
    }
    for (std::size_t i = 0; i < n; ++i) {
      egress[o].push_back(b.transfers().send_egress(trainers[i].device, bytes * share, trainer_ready.subspan(i, 1), category));
    }
  }
  return egress;
}

std::vector<ActivityId> RepresentativeNode::inter_node_all_reduce(Collectives& b, Bytes bytes,
                                                                  std::span<const ActivityId> ready,
                                                                  std::uint16_t category) const {
  const auto& trainers = b.context().trainers();
  std::vector<ActivityId> done(trainers.size());
  for (std::size_t i = 0; i < trainers.size(); ++i) {
    const std::array<ActivityId, 1> dep{ready[i]};
    const std::array<ActivityId, 2> both{b.transfers().send_egress(trainers[i].device, bytes, dep, category),
                                         b.transfers().send_ingress(trainers[i].device, bytes, dep, category)};
    done[i] = b.context().marker(both);
  }
  return done;
}

std::vector<ActivityId> RepresentativeNode::rail_exchange(Collectives& b, Towards towards, std::span<const Bytes> node_shares,
                                                          Bytes OwnerWork::*what, std::span<const ActivityId> ready,
                                                          std::uint16_t category) const {
  const auto& trainers = b.context().trainers();
  const std::size_t others = trainer_nodes() - 1;
  // 1/T of every GPU owner's bytes on the trainer nodes: all nodes' shares summed.
  Bytes all;
  for (std::uint32_t o = 0; o < in_.owner_work.size(); ++o) {
    const auto& dev = in_.problem.devices[o];
    if (dev.kind != OwnerKind::gpu) continue;
    if (in_.trainers_by_node.count(in_.platform.node_of(topo::DeviceId{dev.topology_id}).index) == 0) continue;
    all += in_.owner_work[o].*what * trainer_share(b);
  }
  std::vector<ActivityId> done(trainers.size());
  for (std::size_t i = 0; i < trainers.size(); ++i) {
    const Bytes own = node_shares[i] * static_cast<double>(others);
    const Bytes remote = std::max(Bytes(0.0), all - node_shares[i]);
    const Bytes out = towards == Towards::trainers ? own : remote, in = towards == Towards::trainers ? remote : own;
    std::vector<ActivityId> parts{ready[i]};
    const std::span<const ActivityId> dep = ready.subspan(i, 1);
    if (others > 0 && out.value() > 0.0) parts.push_back(off_node_flows(b, trainers[i].device, true, out, others, dep, category));
    if (others > 0 && in.value() > 0.0) parts.push_back(off_node_flows(b, trainers[i].device, false, in, others, dep, category));
    done[i] = parts.size() == 1 ? ready[i] : b.context().marker(parts);
  }
  return done;
}

}  // namespace dlrmsim::models
