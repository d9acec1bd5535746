#include "models/transfers.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>

#include "models/collectives.hpp"
#include "models/fidelity.hpp"
#include "models/quantized_comms.hpp"
#include "topologies/platform_data.hpp"

namespace dlrmsim::models {

using placement::OwnerKind;
using sim::ActivityId;

double Transfers::link_factor(std::span<const sim::ResourceId> route) const {
  if (!ctx_.slowdowns() || !ctx_.slowdowns()->options().links) return 1.0;
  // Link resources are exported in directed-link order (topologies/engine_export.hpp).
  const std::uint32_t first = ctx_.resources.link_resource(topo::DirectedLinkId{0}).index;
  const std::uint32_t count = static_cast<std::uint32_t>(ctx_.in.platform.directed_link_count());
  double factor = 1.0;
  for (sim::ResourceId r : route) {
    if (r.index >= first && r.index - first < count) {
      factor = std::max(factor, ctx_.fidelity().link_slowdown(*ctx_.slowdowns(), ctx_.step(), topo::DirectedLinkId{r.index - first}));
    }
  }
  return factor;
}

ActivityId Transfers::transfer(Bytes bytes, std::span<const sim::ResourceId> route, std::span<const ActivityId> deps,
                                 std::uint16_t category) {
  if (route.empty() || bytes.value() <= 0.0) return ctx_.marker(deps);
  return ctx_.graph.add_transfer(bytes * link_factor(route), route, deps, category);
}

ActivityId Transfers::host_dma(const SimDevice& gpu, std::string_view queue, topo::DeviceId from, topo::DeviceId to,
                                 Bytes bytes, Seconds solo, std::span<const ActivityId> deps, std::uint16_t category) {
  if (bytes.value() <= 0.0 || solo.value() <= 0.0) return ctx_.marker(deps);
  const auto host = ctx_.in.platform.device(from).kind == topo::DeviceKind::cpu ? from : to;
  std::vector<sim::ResourceId> route{ctx_.resources.memory(host)};
  ctx_.resources.append_route_resources(from, to, route);
  // A slowed link carries its bytes `factor` times slower: the DMA moves that many more bytes
  // at its own rate, as transfer() does.
  const double factor = link_factor(route);
  return ctx_.graph.add_kernel(side_stream(gpu, queue, true), bytes.value() * factor, (bytes / solo).value(), route, deps,
                           category);
}

sim::StreamId Transfers::side_stream(const SimDevice& gpu, std::string_view name, bool copy_engine) {
  const auto key = std::make_pair(gpu.device.index, std::string(name));
  auto q = side_streams_.find(key);
  if (q != side_streams_.end()) return q->second;
  const std::string& device = ctx_.in.platform.device(gpu.device).name;
  sim::EngineId engine = ctx_.graph.stream(gpu.stream).engine;
  if (copy_engine) {
    auto e = copy_engines_.find(gpu.device.index);
    if (e == copy_engines_.end()) e = copy_engines_.emplace(gpu.device.index, ctx_.graph.add_engine(device + ".copy", "copy_engine")).first;
    engine = e->second;
  }
  return side_streams_.emplace(key, ctx_.graph.add_stream(engine, device + "." + key.second)).first->second;
}

std::optional<sim::ResourceId> Transfers::gpu_memory(topo::DeviceId d) const {
  if (ctx_.in.platform.device(d).kind != topo::DeviceKind::gpu) return std::nullopt;
  const sim::ResourceId m = ctx_.resources.memory(d);
  if (!(ctx_.graph.resource(m).capacity.value() > 0.0)) return std::nullopt;
  return m;
}

ActivityId Transfers::send(topo::DeviceId a, topo::DeviceId b, Bytes bytes, std::span<const ActivityId> deps,
                             std::uint16_t category) {
  if (a == b || bytes.value() <= 0.0) return ctx_.marker(deps);
  // Between two GPUs of a node the route starts at the sender's HBM and ends at the receiver's:
  // NVLink and PCIe peer-to-peer copies (and the staging copies without P2P) run at rates that
  // take a share of HBM worth modelling (an NVLink-4 direction, 450 GB/s, is 13 % of an H100's
  // 3.35 TB/s), and compete there with the embedding kernels. Off the node a GPU's traffic is
  // bounded by its NIC (400 Gbit/s, 1.5 % of that HBM), so inter-node routes leave HBM out: two
  // more hops per flow cost the every-node cluster simulations 15-25 % of their time for no
  // change in any validated prediction.
  const bool same_node = ctx_.in.platform.node_of(a) == ctx_.in.platform.node_of(b);
  const auto from = same_node ? gpu_memory(a) : std::nullopt, to = same_node ? gpu_memory(b) : std::nullopt;
  auto route_from = [&](std::vector<sim::ResourceId> r) {
    if (from) r.insert(r.begin(), *from);
    return r;
  };
  auto route_to = [&](std::vector<sim::ResourceId> r) {
    if (to) r.push_back(*to);
    return r;
  };
  if (!ctx_.in.options.software.peer_to_peer) {
    // NCCL without P2P (NCCL_P2P_DISABLE): two GPUs of one node exchange data through a
    // buffer in host memory (the SHM transport), never over NVLink or PCIe peer-to-peer. NCCL
    // pipelines the staging in chunks (NCCL_BUFFSIZE, 4 MiB by default), so the copy into host
    // memory and the copy out of it run concurrently: two transfers of the full byte count,
    // GPU a -> its host socket's DRAM and that DRAM -> GPU b, each loading its own PCIe
    // direction and the socket's DRAM (written once, read once).
    const auto& da = ctx_.in.platform.device(a);
    const auto& db = ctx_.in.platform.device(b);
    const auto host = ctx_.in.platform.host_cpu(a);
    if (da.kind == topo::DeviceKind::gpu && db.kind == topo::DeviceKind::gpu && da.node == db.node && host) {
      const sim::ResourceId dram = ctx_.resources.memory(*host);
      std::vector<sim::ResourceId> in = route_from(ctx_.resources.route_resources(a, *host));
      in.push_back(dram);
      std::vector<sim::ResourceId> out{dram};
      ctx_.resources.append_route_resources(*host, b, out);
      out = route_to(std::move(out));
      const std::array<ActivityId, 2> halves{transfer(bytes, in, deps, category), transfer(bytes, out, deps, category)};
      return ctx_.marker(halves);
    }
  }
  if (ctx_.in.options.software.peer_to_peer && ctx_.in.options.software.nvlink_relay) {
    if (const auto relay = ctx_.in.platform.nvlink_relay(a, b)) {
      const auto route =
          route_to(route_from({ctx_.resources.link_resource((*relay)[0]), ctx_.resources.link_resource((*relay)[1])}));
      return transfer(bytes, route, deps, category);
    }
  }
  const auto route = route_to(route_from(ctx_.resources.route_resources(a, b)));
  return transfer(bytes, route, deps, category);
}

BytesPerSecond Transfers::route_bandwidth(topo::DeviceId a, topo::DeviceId b) const {
  return ctx_.in.platform.route_bandwidth(a, b);
}

topo::DeviceId Transfers::remote_peer(topo::DeviceId d) const {
  const auto node = ctx_.in.platform.node_of(d);
  const auto nodes = ctx_.in.platform.nodes();
  for (const auto& n : nodes) {
    if (n.id == node) continue;
    if (!n.gpus.empty()) return n.gpus.front();
    if (!n.cpus.empty()) return n.cpus.front();
  }
  throw std::invalid_argument("inter-node traffic from '" + ctx_.in.platform.device(d).name +
                              "' on a platform with a single node");
}

BytesPerSecond Transfers::narrowest(std::span<const sim::ResourceId> route) const {
  BytesPerSecond least{std::numeric_limits<double>::infinity()};
  for (auto r : route) least = std::min(least, ctx_.graph.resource(r).capacity);
  return least;
}

std::span<const sim::ResourceId> Transfers::egress_route(topo::DeviceId d) {
  auto it = egress_.find(d.index);
  if (it != egress_.end()) return it->second;
  const auto peer = remote_peer(d);
  const auto links = ctx_.in.platform.route(d, peer);
  std::vector<sim::ResourceId> r;
  for (auto l : links) {
    r.push_back(ctx_.resources.link_resource(l));
    if (ctx_.in.platform.link(topo::link_of(l)).fabric) break;
  }
  return egress_.emplace(d.index, std::move(r)).first->second;
}

std::span<const sim::ResourceId> Transfers::ingress_route(topo::DeviceId d) {
  auto it = ingress_.find(d.index);
  if (it != ingress_.end()) return it->second;
  const auto peer = remote_peer(d);
  const auto links = ctx_.in.platform.route(peer, d);
  std::size_t first = 0;
  for (std::size_t i = 0; i < links.size(); ++i) {
    if (ctx_.in.platform.link(topo::link_of(links[i])).fabric) first = i;
  }
  std::vector<sim::ResourceId> r;
  for (std::size_t i = first; i < links.size(); ++i) r.push_back(ctx_.resources.link_resource(links[i]));
  return ingress_.emplace(d.index, std::move(r)).first->second;
}

Transfers::RemoteBytes Transfers::remote_bytes(topo::NodeId n) const {
  // Per step, from the plan's owner work (every owner, not only the simulated ones): an
  // owner's node receives the ids and the pooled gradients of the samples of the other nodes
  // and sends them its pooled outputs; a trainer node receives the other nodes' owners'
  // outputs for its samples and sends them its ids and gradients. Apart (`dense`): the dense
  // all-reduce moves 2 (N-1)/N of the dense gradients each way (the ring's byte count, as
  // all_reduce()).
  const OwnerWorkTable& work = ctx_.owner_work();
  RemoteBytes b;
  const double nodes = static_cast<double>(std::max<std::size_t>(1, ctx_.trainer_node_count()));
  const double on_node = 1.0 / nodes;  // the node's share of the global batch
  for (std::uint32_t i = 0; i < work.by_owner.size(); ++i) {
    const OwnerWork& w = work.by_owner[i];
    if (!w.any) continue;
    const auto& dev = ctx_.in.problem.devices[i];
    const bool here = dev.kind != OwnerKind::parameter_server &&
                      ctx_.in.platform.node_of(topo::DeviceId{dev.topology_id}) == n;
    const Bytes in = w.ids_in + w.pooled_grad, out = w.pooled_out;
    if (here) {
      b.down += in * (1.0 - on_node);
      b.up += out * (1.0 - on_node);
    } else {
      b.down += out * on_node;
      b.up += in * on_node;
    }
  }
  const auto& qcomm = ctx_.in.options.software.qcomm;
  const Precision comm = ctx_.in.model.communication_precision;
  const double wire_ratio = wire_bytes_per_value(qcomm.all_reduce, comm, qcomm.int8_row_dim) / element_size(comm).value();
  const Bytes dense = (element_size(comm) * ctx_.in.model.dense_parameters() + work.dp_gradient_bytes) * wire_ratio;
  b.dense = dense * ring_all_reduce_share(nodes);
  return b;
}

const Transfers::CoreShare* Transfers::core_share(topo::DeviceId d) {
  auto it = core_share_.find(d.index);
  if (it != core_share_.end()) return it->second ? &*it->second : nullptr;
  std::optional<CoreShare> share;
  const auto& fabric = ctx_.in.platform.fabric();
  const auto& ft = ctx_.in.platform.data().fabric_tables;
  if (fabric && fabric->kind != topo::FabricKind::single_switch && ft.spine_count > 0) {
    // The NIC the traffic leaves by: the first fabric link of the egress route.
    const auto links = ctx_.in.platform.route(d, remote_peer(d));
    std::optional<topo::DeviceId> nic;
    for (auto l : links) {
      const auto& link = ctx_.in.platform.link(topo::link_of(l));
      if (!link.fabric) continue;
      for (auto end : {link.a, link.b}) {
        if (end.index < ft.nic_number_of_device.size() && ft.nic_number_of_device[end.index] != topo::kNoIndex) nic = end;
      }
      break;
    }
    if (nic) {
      const std::uint32_t number = ft.nic_number_of_device[nic->index];
      const std::uint32_t leaf = ft.leaf_of_nic[number];
      const auto my_node = ctx_.in.platform.node_of(*nic);
      double on_leaf = 0.0, others = 0.0, others_on_leaf = 0.0;
      for (std::uint32_t k = 0; k < ft.nic_device.size(); ++k) {
        const bool same_leaf = ft.leaf_of_nic[k] == leaf;
        if (same_leaf) on_leaf += 1.0;
        if (ctx_.in.platform.node_of(ft.nic_device[k]) == my_node) continue;
        others += 1.0;
        if (same_leaf) others_on_leaf += 1.0;
      }
      BytesPerSecond uplinks{0.0};
      for (std::uint32_t sp = 0; sp < ft.spine_count; ++sp) {
        uplinks += ctx_.in.platform.link(ft.uplink[static_cast<std::size_t>(leaf) * ft.spine_count + sp]).bandwidth;
      }
      const BytesPerSecond host = ctx_.in.platform.link(ft.host_link_of_nic[number]).bandwidth;
      const BytesPerSecond per_nic = uplinks / std::max(on_leaf, 1.0);
      if (others > 0.0 && per_nic < host) {
        // One pair of resources per (node, leaf), shared by every device whose traffic leaves by
        // one of the node's NICs on that leaf. Their capacity is the node's share of the leaf's uplinks in
        // proportion to the bytes it sends (receives) across nodes per step among the trainer
        // nodes on the leaf: the uplinks carry the leaf's bytes in the time they need, and the
        // representative node (the one with the most loaded owner) is not limited to an equal
        // share when the other nodes on its leaf send less. The part of the traffic that
        // crosses the uplinks: for the embeddings (destinations spread over the other nodes'
        // NICs) the other nodes off the leaf, 1 - others_on_leaf / others; for the dense
        // all-reduce, whose ring runs over the nodes in order (EveryNode::inter_node_all_reduce),
        // the ring's edges between leaves, one per leaf: 1 / (nodes on the leaf). With the
        // embeddings' fraction for the ring too, the representative node was 7-11 % slower than
        // every node on the 2:1 fat tree at 16 and 64 nodes.
        double node_nics = 0.0;
        std::vector<topo::NodeId> leaf_nodes;
        for (std::uint32_t k = 0; k < ft.nic_device.size(); ++k) {
          if (ft.leaf_of_nic[k] != leaf) continue;
          const auto n = ctx_.in.platform.node_of(ft.nic_device[k]);
          if (n == my_node) node_nics += 1.0;
          if (std::find(leaf_nodes.begin(), leaf_nodes.end(), n) == leaf_nodes.end()) leaf_nodes.push_back(n);
        }
        const std::uint64_t key = (static_cast<std::uint64_t>(my_node.index) << 32) | leaf;
        auto known = nic_core_share_.find(key);
        if (known == nic_core_share_.end()) {
          CoreShare c;
          c.remote_fraction = 1.0 - others_on_leaf / others;
          c.ring_remote_fraction = others_on_leaf < others ? 1.0 / static_cast<double>(leaf_nodes.size()) : 0.0;
          const RemoteBytes mine = remote_bytes(my_node);
          RemoteBytes leaf_total;
          for (auto n : leaf_nodes) {
            const RemoteBytes b = remote_bytes(n);
            leaf_total.up += b.up;
            leaf_total.down += b.down;
            leaf_total.dense += b.dense;
          }
          const BytesPerSecond equal = per_nic * node_nics;
          const BytesPerSecond cap = host * node_nics;
          auto capacity = [&](Bytes own, Bytes total) {
            if (!(total.value() > 0.0) || !(own.value() > 0.0)) return equal;
            return std::min(cap, std::max(equal, uplinks * (own / total)));
          };
          // The bytes that cross the uplinks: the embedding traffic's remote fraction, the ring's.
          auto crossing = [&](Bytes embeddings, Bytes dense) {
            return embeddings * c.remote_fraction + dense * c.ring_remote_fraction;
          };
          const std::string name = ctx_.in.platform.node(my_node).name + ".leaf_uplink_share";
          c.up = ctx_.graph.add_resource(name + ".up",
                                     capacity(crossing(mine.up, mine.dense), crossing(leaf_total.up, leaf_total.dense)),
                                     Seconds(0.0), "network");
          c.down = ctx_.graph.add_resource(
              name + ".down", capacity(crossing(mine.down, mine.dense), crossing(leaf_total.down, leaf_total.dense)),
              Seconds(0.0), "network");
          known = nic_core_share_.emplace(key, c).first;
        }
        share = known->second;
      }
    }
  }
  auto& slot = core_share_[d.index];
  slot = share;
  return slot ? &*slot : nullptr;
}

ActivityId Transfers::send_segment(bool egress, topo::DeviceId d, Bytes bytes, std::span<const ActivityId> deps,
                                     std::uint16_t category) {
  if (bytes.value() <= 0.0) return ctx_.marker(deps);
  const auto route = egress ? egress_route(d) : ingress_route(d);
  const CoreShare* c = core_share(d);
  if (!c) return transfer(bytes, route, deps, category);
  // Split into the part that stays under the leaf and the part that crosses the core (the
  // dense all-reduce's ring crosses it at its own fraction, core_share).
  const double remote = category == ctx_.cat.all_reduce ? c->ring_remote_fraction : c->remote_fraction;
  std::vector<sim::ResourceId> via_core(route.begin(), route.end());
  via_core.push_back(egress ? c->up : c->down);
  const std::array<ActivityId, 2> parts{transfer(bytes * (1.0 - remote), route, deps, category),
                                        transfer(bytes * remote, via_core, deps, category)};
  return ctx_.marker(parts);
}

ActivityId Transfers::send_egress(topo::DeviceId d, Bytes bytes, std::span<const ActivityId> deps, std::uint16_t category) {
  return send_segment(true, d, bytes, deps, category);
}

ActivityId Transfers::send_ingress(topo::DeviceId d, Bytes bytes, std::span<const ActivityId> deps,
                                     std::uint16_t category) {
  return send_segment(false, d, bytes, deps, category);
}

}  // namespace dlrmsim::models
