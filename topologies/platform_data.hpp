// The tables behind a Platform (shared, immutable once built). Public so that engine export,
// DOT output and tests can read them; normal users go through Platform's queries.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "topologies/platform.hpp"
#include "topologies/platform_graph.hpp"

namespace dlrmsim::topo::detail {

/// Per node template: all-pairs routes inside one node, in local link-direction indices
/// (2 x local link + direction), and each device's host CPU and affinity NIC.
struct TemplateTables {
  std::string name;
  std::uint32_t device_count = 0;
  std::uint32_t link_count = 0;
  /// Route from local device i to j: route_pool[route_begin[i*n+j] .. route_begin[i*n+j+1]).
  std::vector<std::uint32_t> route_begin;
  std::vector<std::uint32_t> route_pool;
  /// 1 where a path from i to j exists, 0 where none does (the route range is then empty).
  std::vector<std::uint8_t> reachable;
  /// GPU i to GPU j without an NVLink path of their own: the two local directed links of an
  /// NVLink relay through another GPU ({kNoIndex, kNoIndex}: none; Platform::nvlink_relay).
  std::vector<std::array<std::uint32_t, 2>> relay;
  std::vector<std::uint32_t> host_cpu;      // local index or kNoIndex
  std::vector<std::uint32_t> affinity_nic;  // local index or kNoIndex
};

/// Closed-form fabric routing tables (fat_tree, rail_optimized, single_switch).
struct FabricTables {
  std::vector<std::uint32_t> nic_number_of_device;  // per device: global NIC number or kNoIndex
  std::vector<DeviceId> nic_device;                 // per NIC number
  std::vector<std::uint32_t> leaf_of_nic;           // per NIC number
  /// Per NIC number, its port on its leaf: the key of destination-mod-k (fabric.hpp); the spine
  /// of inter-leaf traffic to the NIC is port_on_leaf mod spine_count.
  std::vector<std::uint32_t> port_on_leaf;
  std::vector<LinkId> host_link_of_nic;             // NIC -> its leaf (direction 0 = NIC -> leaf)
  std::vector<DeviceId> leaf_device;
  std::vector<DeviceId> spine_device;
  /// Uplink of leaf l to spine s: uplink[l * spine_count + s] (direction 0 = leaf -> spine).
  std::vector<LinkId> uplink;
  std::uint32_t spine_count = 0;
};

/// What routing needs of one device, packed so that bulk routing touches little memory.
struct DeviceRouting {
  std::uint32_t node = kNoIndex;        // kNoIndex for fabric switches
  std::uint32_t local = 0;              // index in its node template
  std::uint32_t link_base = 0;          // 2 x the node's first link: local directions -> global
  std::uint32_t table = 0;              // index into PlatformData::templates
  std::uint32_t nic_local = kNoIndex;   // affinity NIC, local index (kNoIndex: none)
  std::uint32_t nic_number = kNoIndex;  // affinity NIC, fabric NIC number (kNoIndex: none / no fabric)
  /// The routes to and from the affinity NIC: [begin, end) in the template's route_pool.
  std::uint32_t up_begin = 0, up_end = 0, down_begin = 0, down_end = 0;
};

struct PlatformData {
  std::string name;
  std::string description;
  std::string source;
  std::vector<std::string> files_read;  // besides `source`: from_file templates, CPU profiles
  std::vector<Device> devices;
  std::vector<Node> nodes;
  std::vector<NodeGroup> groups;
  std::vector<Link> links;
  std::optional<FabricSpec> fabric;
  std::optional<StorageSpec> storage;
  std::vector<DeviceId> all_gpus;
  std::vector<DeviceId> all_cpus;
  std::vector<std::uint32_t> template_of_node;  // index into templates
  std::vector<TemplateTables> templates;
  FabricTables fabric_tables;
  std::unordered_map<std::string, std::uint32_t> device_by_name;
  std::vector<DeviceRouting> routing;  // per device
  PlatformGraph graph;
};

}  // namespace dlrmsim::topo::detail

namespace dlrmsim::topo::detail {

/// Breadth-first search over the whole platform graph, for routes with a fabric switch at
/// an end. GPUs are end points only; NICs forward here (they are the way into a node).
bool search_route(const PlatformData& data, DeviceId a, DeviceId b, std::vector<DirectedLinkId>& out);
[[noreturn]] void throw_no_path(const PlatformData& data, DeviceId a, DeviceId b);

/// Calls emit(DirectedLinkId) for each link direction on the route from a to b, in order
/// (see platform.hpp for the routing rules). Both ids must be valid. Throws PlatformError
/// when there is no path; links already emitted then are to be discarded by the caller.
template <class Emit>
void for_each_route_link(const PlatformData& data, DeviceId a, DeviceId b, Emit&& emit) {
  if (a == b) return;
  const DeviceRouting& ra = data.routing[a.index];
  const DeviceRouting& rb = data.routing[b.index];
  if (ra.node == kNoIndex || rb.node == kNoIndex) {
    std::vector<DirectedLinkId> found;
    if (!search_route(data, a, b, found)) throw_no_path(data, a, b);
    for (DirectedLinkId d : found) emit(d);
    return;
  }
  auto local = [&](const DeviceRouting& r, std::uint32_t from, std::uint32_t to) {
    const TemplateTables& tab = data.templates[r.table];
    const std::size_t cell = static_cast<std::size_t>(from) * tab.device_count + to;
    if (!tab.reachable[cell]) throw_no_path(data, a, b);
    const std::uint32_t* p = tab.route_pool.data() + tab.route_begin[cell];
    const std::uint32_t* end = tab.route_pool.data() + tab.route_begin[cell + 1];
    for (; p != end; ++p) emit(DirectedLinkId{r.link_base + *p});
  };
  if (ra.node == rb.node) {
    local(ra, ra.local, rb.local);
    return;
  }
  if (ra.nic_number == kNoIndex || rb.nic_number == kNoIndex) throw_no_path(data, a, b);
  {
    const std::uint32_t* pool = data.templates[ra.table].route_pool.data();
    for (std::uint32_t i = ra.up_begin; i < ra.up_end; ++i) emit(DirectedLinkId{ra.link_base + pool[i]});
  }
  // Closed-form leaf/spine route between the two NICs (fabric.hpp).
  const FabricTables& ft = data.fabric_tables;
  const std::uint32_t x = ra.nic_number;
  const std::uint32_t y = rb.nic_number;
  emit(forward_direction(ft.host_link_of_nic[x]));
  const std::uint32_t leaf_x = ft.leaf_of_nic[x];
  const std::uint32_t leaf_y = ft.leaf_of_nic[y];
  if (leaf_x != leaf_y) {
    const std::uint32_t spine = ft.port_on_leaf[y] % ft.spine_count;  // destination-mod-k
    emit(forward_direction(ft.uplink[static_cast<std::size_t>(leaf_x) * ft.spine_count + spine]));
    emit(reverse_direction(ft.uplink[static_cast<std::size_t>(leaf_y) * ft.spine_count + spine]));
  }
  emit(reverse_direction(ft.host_link_of_nic[y]));
  {
    const std::uint32_t* pool = data.templates[rb.table].route_pool.data();
    for (std::uint32_t i = rb.down_begin; i < rb.down_end; ++i) emit(DirectedLinkId{rb.link_base + pool[i]});
  }
}

}  // namespace dlrmsim::topo::detail
