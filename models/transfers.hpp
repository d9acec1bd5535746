// Transfers: the flows of a step along the platform's routes (step_builder.hpp's vocabulary).
//
// A transfer carries its real bytes along a route of engine resources (links, memories),
// sharing each max-min with whatever else crosses it; a slowed link (stragglers) carries its
// bytes `factor` times slower. A copy between two GPUs of a node reads the sender's HBM and
// writes the receiver's (send(); not across nodes, where the NIC bounds it far below HBM).
// Host-device copies and UVM reads are DMA kernels over host DRAM and PCIe (host_dma) on the
// GPU's copy engine.
//
// Inter-node traffic of the representative node (models/fidelity.hpp) is cut into two
// segments that carry the correct per-link byte counts:
//   egress   source -> ... -> its NIC -> leaf (the route prefix up to the first fabric link)
//   ingress  leaf -> NIC -> ... -> destination (the route suffix from the last fabric link)
// The fabric core (leaf-spine links): when a leaf's uplinks carry less than its host links
// (oversubscription), the part of the traffic that leaves the leaf (uniform destinations)
// also crosses a resource per direction standing for the node's share of its leaf's uplinks,
// in proportion to the bytes it sends (receives) among the trainer nodes on the leaf
// (remote_bytes); collisions of the deterministic spine routing are not represented
// (`nodes: all` simulates them).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/units.hpp"
#include "models/step_context.hpp"
#include "sim/activity_graph.hpp"
#include "topologies/platform.hpp"

namespace dlrmsim::models {

class Transfers {
 public:
  explicit Transfers(StepContext& ctx) : ctx_(ctx) {}

  /// A transfer along the platform route from a to b (a == b: a marker).
  sim::ActivityId send(topo::DeviceId a, topo::DeviceId b, Bytes bytes, std::span<const sim::ActivityId> deps,
                       std::uint16_t category);
  /// The egress segment of inter-node traffic from d (up to and including its first fabric
  /// link) and the ingress segment into d (from the last fabric link).
  sim::ActivityId send_egress(topo::DeviceId d, Bytes bytes, std::span<const sim::ActivityId> deps, std::uint16_t category);
  sim::ActivityId send_ingress(topo::DeviceId d, Bytes bytes, std::span<const sim::ActivityId> deps, std::uint16_t category);
  /// A DMA or zero-copy access between a GPU and its host socket: `bytes` (real bytes) from
  /// `from` to `to` over the host's DRAM and the PCIe route, on the GPU's queue `queue` (an
  /// in-order stream: "h2d" for copies, "uvm" for zero-copy gathers), never faster than
  /// `bytes` in `solo` (the profile's measured time alone), sharing DRAM and PCIe max-min
  /// with whatever else crosses them (CPU gathers, other GPUs' copies).
  sim::ActivityId host_dma(const SimDevice& gpu, std::string_view queue, topo::DeviceId from, topo::DeviceId to,
                           Bytes bytes, Seconds solo, std::span<const sim::ActivityId> deps, std::uint16_t category);
  /// A transfer on an explicit route of engine resources.
  sim::ActivityId transfer(Bytes bytes, std::span<const sim::ResourceId> route, std::span<const sim::ActivityId> deps,
                           std::uint16_t category);
  /// Bottleneck bandwidth of the route a -> b.
  BytesPerSecond route_bandwidth(topo::DeviceId a, topo::DeviceId b) const;
  /// d's route off its node (up to its first fabric link) and onto it (from the last one).
  std::span<const sim::ResourceId> egress_route(topo::DeviceId d);
  std::span<const sim::ResourceId> ingress_route(topo::DeviceId d);
  /// The smallest capacity of a route's resources.
  BytesPerSecond narrowest(std::span<const sim::ResourceId> route) const;
  /// A GPU's in-order queue besides its compute stream, created on first use: on the GPU's
  /// engine (an NCCL stream), or on its copy engine (DMA queues "h2d", "uvm": utilisation
  /// class copy_engine, not counted as the GPU's compute).
  sim::StreamId side_stream(const SimDevice& gpu, std::string_view name, bool copy_engine = false);

 private:
  /// send_egress (egress) or send_ingress: d's NIC segment, split at the core on a fat tree.
  sim::ActivityId send_segment(bool egress, topo::DeviceId d, Bytes bytes, std::span<const sim::ActivityId> deps,
                               std::uint16_t category);
  /// The HBM of a GPU endpoint of a transfer, which NCCL's kernels read the bytes they send
  /// from and write the bytes they receive to (nullopt: not a GPU, or no HBM bandwidth).
  std::optional<sim::ResourceId> gpu_memory(topo::DeviceId d) const;
  topo::DeviceId remote_peer(topo::DeviceId d) const;
  /// The largest straggler factor of the links of `route` (1 without link stragglers).
  double link_factor(std::span<const sim::ResourceId> route) const;
  /// Representative mode on a leaf/spine fabric whose leaf uplinks are narrower than its host
  /// links: the fractions of a NIC's inter-node traffic that leave its leaf (the embeddings'
  /// uniform destinations over the other nodes' NICs; the dense all-reduce's ring over the
  /// nodes in order) and a resource per direction standing for the node's share of the leaf's
  /// uplink bandwidth.
  struct CoreShare {
    double remote_fraction = 0.0;
    double ring_remote_fraction = 0.0;
    sim::ResourceId up, down;
  };
  const CoreShare* core_share(topo::DeviceId d);
  /// Bytes trainer node n sends to (up) and receives from (down) other nodes per step for the
  /// embeddings (ids, pooled outputs, their gradients), and the dense all-reduce's bytes each way.
  struct RemoteBytes {
    Bytes up, down, dense;
  };
  RemoteBytes remote_bytes(topo::NodeId n) const;

  StepContext& ctx_;
  std::map<std::uint32_t, std::vector<sim::ResourceId>> egress_, ingress_;
  std::map<std::uint32_t, std::optional<CoreShare>> core_share_;  // by device
  std::map<std::uint64_t, CoreShare> nic_core_share_;               // by (node, leaf)
  std::map<std::pair<std::uint32_t, std::string>, sim::StreamId> side_streams_;  // (GPU, name) -> stream
  std::map<std::uint32_t, sim::EngineId> copy_engines_;                         // by GPU device index
};

}  // namespace dlrmsim::models
