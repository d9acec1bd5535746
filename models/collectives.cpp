#include "models/collectives.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <map>

#include "models/fidelity.hpp"

namespace dlrmsim::models {

using placement::OwnerKind;
using sim::ActivityId;

std::vector<ActivityId> Collectives::collective_launch(std::span<const ActivityId> ready, std::uint16_t category,
                                                      Seconds nccl_latency) {
  const Seconds delay = ctx_.in.options.software.collective_launch + nccl_latency;
  if (delay.value() <= 0.0) return {ready.begin(), ready.end()};
  auto it = launch_delays_.find(delay.value());
  if (it == launch_delays_.end()) {
    // Only zero-byte transfers cross it (they pay its latency); its capacity is any value in
    // the native engine's incremental range (sim/native_engine.hpp).
    const std::string name = launch_delays_.empty() ? "software.collective_launch"
                                                    : "software.collective_launch." + std::to_string(launch_delays_.size());
    it = launch_delays_.emplace(delay.value(), ctx_.graph.add_resource(name, BytesPerSecond(1e12), delay, "collective_launch")).first;
  }
  std::vector<ActivityId> out;
  for (ActivityId r : ready) out.push_back(ctx_.graph.add_transfer(Bytes(0.0), std::span(&it->second, 1), std::span(&r, 1), category));
  return out;
}

std::optional<NcclSystem> Collectives::nccl_system() {
  const NcclTuning* tuning = ctx_.in.options.software.nccl;
  if (!tuning || ctx_.trainers().empty() || !ctx_.trainers().front().is_gpu) return std::nullopt;
  const SimDevice& gpu = ctx_.trainers().front();
  const NcclView& view = nccl_view(gpu);
  const topo::GpuSpec& spec = ctx_.in.platform.gpu_spec(gpu.device);
  NcclSystem s;
  s.ranks = static_cast<int>(ctx_.total_trainers());
  s.nodes = static_cast<int>(std::max<std::size_t>(1, ctx_.trainer_node_count()));
  s.nvlink = view.nvlink && ctx_.in.options.software.peer_to_peer;
  s.nvswitch = view.nvswitch && s.nvlink;
  s.collnet = ctx_.in.options.software.collnet;
  s.arch = nccl_arch(spec);
  const auto cpus = ctx_.in.platform.cpus(gpu.node);
  // NCCL's CPU vendor test, by the platform's model name (AMD's server CPUs are EPYCs).
  s.amd_cpu = !cpus.empty() && ctx_.in.platform.cpu_spec(cpus.front()).model.find("EPYC") != std::string::npos;
  // One channel per SM NCCL holds; a GPU without a published SM count does not cap it.
  const int sm_cap = spec.sm_count > 0 ? spec.sm_count : std::numeric_limits<int>::max();
  s.channels = std::max(1, ctx_.in.options.software.nccl_sms(sm_cap, s.nvlink));
  s.intra_gbps = view.intra_seconds_per_byte > 0.0 ? 1e-9 / view.intra_seconds_per_byte : 0.0;
  if (s.nodes > 1) s.inter_gbps = net_.narrowest(net_.egress_route(gpu.device)).value() * 1e-9;
  return s;
}

std::optional<NcclEstimate> Collectives::all_reduce_estimate(Bytes bytes) {
  const auto s = nccl_system();
  if (!s) return std::nullopt;
  return nccl_all_reduce(*ctx_.in.options.software.nccl, *s, bytes);
}

Seconds Collectives::all_reduce_latency(Bytes bytes) {
  const auto e = all_reduce_estimate(bytes);
  return Seconds(e ? e->latency_us * 1e-6 : 0.0);
}

std::optional<NcclSystem> Collectives::all_to_all_system() {
  auto s = nccl_system();
  if (s) {
    s->ranks = static_cast<int>(ctx_.all_to_all_trainers());
    s->nodes = static_cast<int>(ctx_.all_to_all_nodes());
  }
  return s;
}

Seconds Collectives::all_to_all_latency(Bytes OwnerWork::*what) {
  const auto s = all_to_all_system();
  if (!s) return Seconds(0.0);
  const NcclTuning& t = *ctx_.in.options.software.nccl;
  // Each simulated GPU owner's bytes, 1 / ranks of them to each peer: the largest peer message.
  double largest = 0.0;
  for (std::uint32_t o : ctx_.simulated_owners(OwnerKind::gpu)) largest = std::max(largest, (ctx_.represented_work(o).*what).value());
  if (!hierarchical(OwnerKind::gpu, what)) return nccl_all_to_all_latency(t, *s, Bytes(largest / s->ranks));
  // Two exchanges one after the other: among the node's g GPUs (each peer w/g), then among
  // the N GPUs of a rail (each peer 1/T of the node's owners' bytes, at most g w/T = w/N).
  NcclSystem node = *s, rail = *s;
  node.ranks = static_cast<int>(ctx_.trainers_per_node());
  node.nodes = 1;
  rail.ranks = s->nodes;
  return nccl_all_to_all_latency(t, node, Bytes(largest / node.ranks)) +
         nccl_all_to_all_latency(t, rail, Bytes(largest / rail.ranks));
}

std::vector<ActivityId> Collectives::small_all_to_all(Bytes bytes_per_peer, std::span<const ActivityId> ready,
                                                     std::uint16_t category) {
  const std::size_t n = ctx_.trainers().size();
  if (ctx_.all_to_all_trainers() <= 1) return {ready.begin(), ready.end()};
  const auto s = all_to_all_system();
  const Seconds latency = s ? nccl_all_to_all_latency(*ctx_.in.options.software.nccl, *s, bytes_per_peer) : Seconds(0.0);
  const std::array<ActivityId, 1> all{ctx_.marker(ready)};
  std::vector<ActivityId> done;
  done.reserve(n);
  for (std::size_t i = 0; i < n; ++i) done.push_back(collective_launch(all, category, latency).front());
  return done;
}

std::vector<ActivityId> Collectives::all_reduce(Bytes bytes, std::span<const ActivityId> ready, std::uint16_t category) {
  const std::size_t n = ctx_.trainers().size();
  std::vector<ActivityId> done(n);
  if (ctx_.total_trainers() <= 1 || bytes.value() <= 0.0) {
    for (std::size_t i = 0; i < n; ++i) done[i] = ctx_.marker(ready.subspan(i, 1));
    return done;
  }
  const auto estimate = all_reduce_estimate(bytes);
  const std::vector<ActivityId> launched =
      collective_launch(ready, category, Seconds(estimate ? estimate->latency_us * 1e-6 : 0.0));
  ready = launched;
  // CollNet reduces in the switches: each GPU's NIC sends its shard up once and receives the
  // reduced shard once (NCCL's collnet_direct and collnet_chain, models/nccl_model.hpp).
  const bool in_network = estimate && (estimate->algorithm == NcclAlgorithm::collnet_direct ||
                                       estimate->algorithm == NcclAlgorithm::collnet_chain);
  const double g = static_cast<double>(ctx_.trainers_per_node());
  const double nodes = static_cast<double>(ctx_.trainer_node_count());
  // Group simulated trainers by node.
  std::map<std::uint32_t, std::vector<std::size_t>> by_node;
  for (std::size_t i = 0; i < n; ++i) by_node[ctx_.trainers()[i].node.index].push_back(i);

  const Bytes shard = bytes / g;
  const Bytes inter_node =
      ctx_.trainer_node_count() > 1 ? (in_network ? shard : shard * ring_all_reduce_share(nodes)) : Bytes(0.0);
  // NCCL's kernel holds its SMs through both intra-node phases and the inter-node one.
  for (std::size_t i = 0; i < n; ++i) {
    nccl_kernel(ctx_.trainers()[i], shard * (2.0 * (g - 1.0)), Bytes(0.0), ready[i], category);
    if (inter_node.value() > 0.0) nccl_kernel(ctx_.trainers()[i], Bytes(0.0), inter_node, ready[i], category);
  }
  // Inside each node every GPU sends S/g to each peer after `after`; per trainer, the
  // marker of its own `after` and what it received.
  auto intra_node = [&](std::span<const ActivityId> after) {
    std::vector<std::vector<ActivityId>> inbound(n);
    for (auto& [node, members] : by_node) {
      for (auto i : members) {
        for (auto j : members) {
          if (i == j) continue;
          const std::array<ActivityId, 1> dep{after[i]};
          inbound[j].push_back(net_.send(ctx_.trainers()[i].device, ctx_.trainers()[j].device, shard, dep, category));
        }
      }
    }
    std::vector<ActivityId> out(n);
    for (std::size_t i = 0; i < n; ++i) {
      inbound[i].push_back(after[i]);
      out[i] = ctx_.marker(inbound[i]);
    }
    return out;
  };
  // Phase 1: reduce-scatter inside each node.
  const std::vector<ActivityId> phase1 = intra_node(ready);
  // Phase 2: all-reduce of S/g across nodes (ring byte count per GPU: 2 (N-1)/N x S/g).
  const std::vector<ActivityId> phase2 =
      ctx_.trainer_node_count() > 1 ? ctx_.fidelity().inter_node_all_reduce(*this, inter_node, phase1, category) : phase1;
  // Phase 3: all-gather inside each node.
  return intra_node(phase2);
}

void Collectives::owner_trainer_flows(
    const SimDevice& od, Towards towards, Bytes bytes,
    const std::function<std::vector<ActivityId>(std::span<const std::size_t>)>& ready,
    const std::function<void(std::span<const std::size_t>, ActivityId)>& arrived, std::uint16_t category) {
  const double share = 1.0 / static_cast<double>(std::max<std::size_t>(1, ctx_.all_to_all_trainers()));
  std::size_t local = 0;
  for (std::size_t i = 0; i < ctx_.trainers().size(); ++i) {
    if (ctx_.trainers()[i].node != od.node) continue;
    ++local;
    const auto deps = ready(std::span(&i, 1));
    const topo::DeviceId t = ctx_.trainers()[i].device;
    arrived(std::span(&i, 1), towards == Towards::trainers ? net_.send(od.device, t, bytes * share, deps, category)
                                                           : net_.send(t, od.device, bytes * share, deps, category));
  }
  ctx_.fidelity().owner_off_node(*this, od, towards, bytes, local, ready, arrived, category);
}

std::vector<ActivityId> Collectives::pooled_to_trainers(OwnerKind kind, const std::map<std::uint32_t, ActivityId>& owner_ready_in,
                                                        std::span<const ActivityId> trainer_gate, std::uint16_t category,
                                                        Bytes OwnerWork::*what) {
  std::map<std::uint32_t, ActivityId> launched;
  if (kind == OwnerKind::gpu && ctx_.all_to_all_trainers() > 1) {
    const Seconds latency = all_to_all_latency(what);
    for (const auto& [o, r] : owner_ready_in) launched[o] = collective_launch(std::span(&r, 1), category, latency).front();
  }
  const auto& owner_ready = launched.empty() ? owner_ready_in : launched;
  nccl_all_to_all(kind, what, owner_ready, category);
  if (hierarchical(kind, what)) return hierarchical_to_trainers(owner_ready, trainer_gate, category, what);
  const std::size_t n = ctx_.trainers().size();
  std::vector<std::vector<ActivityId>> inbound(n);
  for (std::size_t i = 0; i < n; ++i) inbound[i].push_back(trainer_gate[i]);
  for (const auto& [o, ready] : owner_ready) {
    if (ctx_.in.problem.devices.at(o).kind != kind) continue;
    const OwnerWork& w = ctx_.represented_work(o);
    if ((w.*what).value() <= 0.0) continue;
    const std::array<ActivityId, 1> dep{ready};
    owner_trainer_flows(
        *ctx_.owner_device(o), Towards::trainers, w.*what,
        [&](std::span<const std::size_t>) { return std::vector<ActivityId>(dep.begin(), dep.end()); },
        [&](std::span<const std::size_t> members, ActivityId a) {
          for (auto i : members) inbound[i].push_back(a);
        },
        category);
  }
  // The traffic of the owners that are not simulated (the representative node's counterparts).
  const auto counterparts = ctx_.fidelity().counterparts_to_trainers(*this, kind, what, owner_ready, category);
  std::vector<ActivityId> arrived(n);
  for (std::size_t i = 0; i < n; ++i) {
    inbound[i].insert(inbound[i].end(), counterparts[i].begin(), counterparts[i].end());
    arrived[i] = ctx_.marker(inbound[i]);
  }
  return arrived;
}

std::map<std::uint32_t, ActivityId> Collectives::gradients_to_owners(OwnerKind kind, std::span<const ActivityId> trainer_ready,
                                                                     std::uint16_t category, Bytes OwnerWork::*what) {
  // The reverse of pooled_to_trainers: each trainer sends each owner its share of the pooled
  // gradients (same bytes as the forward outputs).
  std::vector<ActivityId> launched;
  if (kind == OwnerKind::gpu && ctx_.all_to_all_trainers() > 1) {
    launched = collective_launch(trainer_ready, category, all_to_all_latency(what));
    trainer_ready = launched;
  }
  const bool hier = hierarchical(kind, what);
  // The simulated trainers' traffic towards the owners that are not simulated (the
  // representative node's counterparts), joined into the arrival of the owner standing for them.
  auto counterparts = hier ? std::map<std::uint32_t, std::vector<ActivityId>>{}
                           : ctx_.fidelity().counterparts_to_owners(*this, kind, what, trainer_ready, category);
  if (kind == OwnerKind::gpu && ctx_.all_to_all_trainers() > 1) {
    // NCCL's kernel on each GPU owner starts with its own trainer's part.
    std::map<std::uint32_t, ActivityId> ready_on;  // by GPU device index
    for (std::size_t i = 0; i < ctx_.trainers().size(); ++i) ready_on.emplace(ctx_.trainers()[i].device.index, trainer_ready[i]);
    std::map<std::uint32_t, ActivityId> start;
    for (std::uint32_t o : ctx_.simulated_owners(kind)) {
      if (auto r = ready_on.find(ctx_.owner_device(o)->device.index); r != ready_on.end()) start.emplace(o, r->second);
    }
    nccl_all_to_all(kind, what, start, category);
  }
  if (hier) return hierarchical_to_owners(trainer_ready, category, what);
  std::map<std::uint32_t, ActivityId> done;
  for (std::uint32_t o : ctx_.simulated_owners(kind)) {
    const OwnerWork& w = ctx_.represented_work(o);
    std::vector<ActivityId> inbound;
    owner_trainer_flows(
        *ctx_.owner_device(o), Towards::owner, w.*what,
        [&](std::span<const std::size_t> members) {
          std::vector<ActivityId> deps;
          for (auto i : members) deps.push_back(trainer_ready[i]);
          return deps;
        },
        [&](std::span<const std::size_t>, ActivityId a) { inbound.push_back(a); }, category);
    const auto& extra = counterparts[o];
    inbound.insert(inbound.end(), extra.begin(), extra.end());
    if (inbound.empty()) inbound.assign(trainer_ready.begin(), trainer_ready.end());
    done[o] = ctx_.marker(inbound);
  }
  return done;
}

void Collectives::nccl_kernel(const SimDevice& gpu, Bytes intra, Bytes inter, ActivityId start, std::uint16_t category) {
  if (!gpu.is_gpu) return;
  const auto sms = ctx_.resources.sms(gpu.device);
  if (!sms) return;
  const NcclView& view = nccl_view(gpu);
  const int k = ctx_.in.options.software.nccl_sms(ctx_.in.platform.gpu_spec(gpu.device).sm_count,
                                           view.nvlink && ctx_.in.options.software.peer_to_peer);  // NCCL_P2P_DISABLE hides NVLink
  if (k <= 0) return;
  Seconds solo{intra.value() * view.intra_seconds_per_byte};
  if (inter.value() > 0.0) solo = std::max(solo, inter / net_.narrowest(net_.egress_route(gpu.device)));
  if (solo.value() <= 0.0) return;
  const double rate = k * sim::kWorkUnitsPerCoreSecond;
  ctx_.graph.add_kernel(net_.side_stream(gpu, "nccl." + ctx_.graph.categories()[category]), solo.value() * rate, rate,
                    std::span(&*sms, 1), std::span(&start, 1), category);
}

const Collectives::NcclView& Collectives::nccl_view(const SimDevice& gpu) {
  auto it = nccl_views_.find(gpu.device.index);
  if (it != nccl_views_.end()) return it->second;
  // One byte spread evenly over the node's other GPUs of the job (training.gpus_per_node may
  // leave some out) along the platform's routes: the busiest link's share of it over that
  // link's bandwidth is the time per byte alone.
  NcclView v;
  std::vector<topo::DeviceId> peers;
  for (const std::uint32_t i : ctx_.in.problem.devices_of(placement::OwnerKind::gpu)) {
    const auto& d = ctx_.in.problem.devices[i];
    if (d.node == gpu.node.index) peers.push_back(topo::DeviceId{d.topology_id});
  }
  std::map<std::uint32_t, double> load;  // bytes per directed link
  for (const topo::DeviceId p : peers) {
    if (p == gpu.device) continue;
    for (const auto l : ctx_.in.platform.route(gpu.device, p)) {
      load[l.index] += 1.0 / static_cast<double>(peers.size() - 1);
      v.nvlink |= ctx_.in.platform.link(topo::link_of(l)).resource_class == "nvlink";
    }
  }
  // Whether the node has an NVSwitch (one scan of the platform's devices per node).
  auto sw = nvswitch_nodes_.find(gpu.node.index);
  if (sw == nvswitch_nodes_.end()) {
    bool found = false;
    for (const topo::Device& d : ctx_.in.platform.devices()) found |= d.kind == topo::DeviceKind::nvswitch && d.node == gpu.node;
    sw = nvswitch_nodes_.emplace(gpu.node.index, found).first;
  }
  v.nvswitch = sw->second;
  for (const auto& [l, bytes] : load) {
    const double bandwidth = ctx_.in.platform.link(topo::link_of(topo::DirectedLinkId{l})).bandwidth.value();
    v.intra_seconds_per_byte = std::max(v.intra_seconds_per_byte, bytes / bandwidth);
  }
  return nccl_views_.emplace(gpu.device.index, v).first->second;
}

void Collectives::nccl_all_to_all(OwnerKind kind, Bytes OwnerWork::*what,
                                  const std::map<std::uint32_t, ActivityId>& start, std::uint16_t category) {
  if (kind != OwnerKind::gpu || ctx_.all_to_all_trainers() <= 1) return;
  const double total = static_cast<double>(ctx_.all_to_all_trainers());
  const double local = static_cast<double>(ctx_.trainers_per_node());
  for (const auto& [o, begin] : start) {
    if (ctx_.in.problem.devices.at(o).kind != kind) continue;
    const Bytes bytes = ctx_.represented_work(o).*what;
    nccl_kernel(*ctx_.owner_device(o), bytes * ((local - 1.0) / total), bytes * ((total - local) / total), begin, category);
  }
}

bool Collectives::hierarchical(OwnerKind kind, Bytes OwnerWork::*what) {
  // HugeCTR sends the keys to their tables' GPUs with a flat ncclSend/ncclRecv exchange
  // (embedding/data_distributor/dense_data_distribution_op_impl.cu all2all_keys); only the
  // pooled embeddings and their gradients take the hierarchical path.
  if (!ctx_.in.options.software.hierarchical_all_to_all || kind != OwnerKind::gpu ||
      (what != &OwnerWork::pooled_out && what != &OwnerWork::pooled_grad) ||
      ctx_.trainer_node_count() <= 1)
    return false;
  for (std::uint32_t o : ctx_.simulated_owners(kind)) {
    if (!trainer_index(ctx_.owner_device(o)->device)) return false;
  }
  return true;
}

std::optional<std::size_t> Collectives::trainer_index(topo::DeviceId d) const {
  const auto& trainers = ctx_.trainers();
  for (std::size_t i = 0; i < trainers.size(); ++i) {
    if (trainers[i].device == d) return i;
  }
  return std::nullopt;
}

std::vector<Bytes> Collectives::node_owner_shares(Bytes OwnerWork::*what) {
  const auto& trainers = ctx_.trainers();
  const double total = static_cast<double>(ctx_.total_trainers());
  std::map<std::uint32_t, Bytes> by_node;
  for (std::uint32_t o : ctx_.simulated_owners(OwnerKind::gpu)) by_node[ctx_.owner_device(o)->node.index] += ctx_.represented_work(o).*what / total;
  std::vector<Bytes> out(trainers.size());
  for (std::size_t i = 0; i < trainers.size(); ++i) out[i] = by_node[trainers[i].node.index];
  return out;
}

std::vector<ActivityId> Collectives::hierarchical_to_trainers(const std::map<std::uint32_t, ActivityId>& owner_ready,
                                                              std::span<const ActivityId> trainer_gate,
                                                              std::uint16_t category, Bytes OwnerWork::*what) {
  const auto& trainers = ctx_.trainers();
  const std::size_t n = trainers.size();
  const double g = static_cast<double>(ctx_.trainers_per_node());
  // Phase 1, inside the node: owner o sends each GPU j of its node w_o / g.
  std::vector<std::vector<ActivityId>> staged(n);
  for (const auto& [o, ready] : owner_ready) {
    if (ctx_.in.problem.devices.at(o).kind != OwnerKind::gpu) continue;
    const Bytes w = ctx_.represented_work(o).*what;
    if (w.value() <= 0.0) continue;
    const SimDevice& od = *ctx_.owner_device(o);
    const std::array<ActivityId, 1> dep{ready};
    for (std::size_t j = 0; j < n; ++j) {
      if (trainers[j].node != od.node) continue;
      staged[j].push_back(trainers[j].device == od.device ? ready
                                                          : net_.send(od.device, trainers[j].device, w / g, dep, category));
    }
  }
  std::vector<ActivityId> gathered(n);
  for (std::size_t j = 0; j < n; ++j) {
    staged[j].push_back(trainer_gate[j]);
    gathered[j] = ctx_.marker(staged[j]);
  }
  // Phase 2, along the rails: GPU j sends its node's shares to the GPU j of every other node.
  const std::vector<ActivityId> rail =
      ctx_.fidelity().rail_exchange(*this, Towards::trainers, node_owner_shares(&OwnerWork::pooled_node_reduced),
                                    &OwnerWork::pooled_node_reduced, gathered, category);
  std::vector<ActivityId> arrived(n);
  for (std::size_t j = 0; j < n; ++j) {
    const std::array<ActivityId, 2> both{gathered[j], rail[j]};
    arrived[j] = ctx_.marker(both);
  }
  return arrived;
}

std::map<std::uint32_t, ActivityId> Collectives::hierarchical_to_owners(std::span<const ActivityId> trainer_ready,
                                                                        std::uint16_t category, Bytes OwnerWork::*what) {
  const auto& trainers = ctx_.trainers();
  const double g = static_cast<double>(ctx_.trainers_per_node());
  // Phase 1, along the rails: GPU j receives from the GPU j of every other node the gradients
  // for its node's owners (1/T of each owner's bytes from each of them).
  const std::vector<ActivityId> rail =
      ctx_.fidelity().rail_exchange(*this, Towards::owner, node_owner_shares(&OwnerWork::pooled_grad_node_reduced),
                                    &OwnerWork::pooled_grad_node_reduced, trainer_ready, category);
  // Phase 2, inside the node: GPU j sends owner o what it gathered for o, w_o / g.
  std::map<std::uint32_t, ActivityId> done;
  for (std::uint32_t o : ctx_.simulated_owners(OwnerKind::gpu)) {
    const Bytes w = ctx_.represented_work(o).*what;
    const SimDevice& od = *ctx_.owner_device(o);
    std::vector<ActivityId> inbound;
    for (std::size_t j = 0; j < trainers.size(); ++j) {
      if (trainers[j].node != od.node) continue;
      const std::array<ActivityId, 1> dep{rail[j]};
      inbound.push_back(trainers[j].device == od.device || w.value() <= 0.0
                            ? rail[j]
                            : net_.send(trainers[j].device, od.device, w / g, dep, category));
    }
    done[o] = ctx_.marker(inbound);
  }
  return done;
}

std::vector<ActivityId> Collectives::replica_sync(Bytes payload, std::size_t replicas, std::span<const ActivityId> ready,
                                                 std::uint16_t category) {
  if (replicas <= 1 || payload.value() <= 0.0) return {ready.begin(), ready.end()};
  const double r = static_cast<double>(replicas);
  // NCCL's latency for an all-reduce of the payload among the R replicas, one GPU a node.
  Seconds latency{0.0};
  if (auto s = nccl_system()) {
    s->ranks = static_cast<int>(replicas);
    s->nodes = static_cast<int>(replicas);
    latency = Seconds(nccl_all_reduce(*ctx_.in.options.software.nccl, *s, payload).latency_us * 1e-6);
  }
  const std::vector<ActivityId> launched = collective_launch(ready, category, latency);
  return ctx_.fidelity().inter_node_all_reduce(*this, payload * ring_all_reduce_share(r), launched, category);
}

}  // namespace dlrmsim::models
