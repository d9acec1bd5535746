// A hardware platform: servers (nodes) made of devices, the links between them, and the
// cluster fabric that joins the nodes; routing between any two devices.
//
// API summary
//   Platform p = load_platform("configs/platforms/dgx-h100.yaml");   // platform_loader.hpp
//   p.nodes(), p.groups(), p.devices(), p.links()          all nodes / groups / devices / links
//   p.find_device("trainers3.gpu5"), p.nodes_in(group)     lookups by name and by group
//   p.gpus(node), p.cpus(node), p.nics(node)               device ids of one node, in order
//   p.gpu_spec(d), p.cpu_spec(d), p.nic_spec(d)            typed parameters (devices.hpp)
//   p.node_of(d), p.host_cpu(gpu), p.affinity_nic(d)       where a device sits
//   p.route(a, b)                                          directed links, shortest path
//   p.route_bandwidth(a, b), p.route_latency(a, b)         bottleneck and summed latency
//   p.node_summary(node), p.bisection_bandwidth()          aggregate figures
//   auto res = export_platform(p, graph);                  engine resources (engine_export.hpp)
//   res.engine(gpu), res.memory(gpu), res.route_resources(a, b)
//
// Structure. Each node is an instance of a node template (a server design such as "DGX
// H100"); nodes are grouped (e.g. "trainers" of one template, "parameter_servers" of
// another). The devices and links of each node are laid out contiguously and in the same
// order as in its template, so per-template tables serve every instance. Fabric switches
// and fabric links follow after all nodes.
//
// Routing. Inside a node, routes are shortest paths (fewest links) over devices that may
// forward traffic (forwards_traffic in devices.hpp: never through a GPU or a NIC), computed
// once per template with breadth-first search; ties go to the path found first in link
// order, so routes are deterministic. Routes never pass through a GPU; nvlink_relay gives
// the alternative that NCCL 2.8.3 and later takes between two GPUs without an NVLink path of
// their own (the DGX-1 / Big Basin hybrid cube mesh): NVLink to an intermediate GPU that
// forwards it over NVLink (NCCL's "NVB" paths); the software stack decides which is used. Between nodes a route is: source -> the source's
// affinity NIC (the nearest NIC; devices tied for the same NICs are spread over them in
// order) -> fabric (closed-form leaf/spine routing, fabric.hpp) -> the destination's
// affinity NIC -> destination. A route is therefore composed in O(hops) from cached tables,
// with no per-pair search: the 16.8 million ordered GPU pairs of a 4096-GPU cluster take
// under a second (about 35-50 ns per route; tests/test_fabric.cpp prints the figure).
//
// A Platform is immutable once built and cheap to copy (it shares its tables); every query
// is const and safe to call from several threads at once.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/units.hpp"
#include "topologies/devices.hpp"
#include "topologies/fabric.hpp"
#include "topologies/ids.hpp"
#include "topologies/links.hpp"

namespace dlrmsim::topo {

/// A platform that cannot be built or a query that makes no sense (unknown device, no
/// path between two devices). Bad files are reported as ConfigError by the loader instead.
class PlatformError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

inline constexpr std::uint32_t kNoIndex = 0xffffffffu;

struct Device {
  DeviceId id;
  std::string name;        // unique in the platform: "trainers3.gpu5", or "gpu5" in a one-node platform
  std::string local_name;  // name inside its node template: "gpu5"; fabric switches: "leaf12", "spine3"
  DeviceKind kind = DeviceKind::gpu;
  NodeId node{kNoIndex};   // kNoIndex for fabric switches
  std::uint32_t local_index = 0;  // position in its node template (fabric switches: in the fabric)
  DeviceSpec spec;
  DevicePower power;       // electrical power figures (not given: 0 W)
};

/// What one node costs (a node template's optional `price:`; models/cost.hpp uses it). Either
/// a cloud list price per node-hour, read on a date in a region, or an owned node's purchase
/// price amortised over `years` of use (energy is then paid separately, at the scenario's
/// energy price). `source` says where the figure comes from or that it is an assumption.
struct NodePrice {
  enum class Kind { cloud, owned };
  Kind kind = Kind::cloud;
  Money per_hour;          // cloud
  std::string read;        // cloud: the date the list price was read
  std::string region;      // cloud
  Money purchase;          // owned
  double years = 0.0;      // owned: amortisation period
  std::string source;
};

struct Node {
  NodeId id;
  std::string name;        // "trainers3" (group name + index), or the template name for one node
  GroupId group;
  std::uint32_t index_in_group = 0;
  std::string template_name;
  DeviceId first_device;   // devices [first_device, first_device + device_count)
  std::uint32_t device_count = 0;
  LinkId first_link;       // links inside the node [first_link, first_link + link_count)
  std::uint32_t link_count = 0;
  std::vector<DeviceId> gpus;  // in template order
  std::vector<DeviceId> cpus;
  std::vector<DeviceId> nics;
  std::optional<NodePrice> price;  // from the node template
  /// What the node draws besides its devices (fans, power-supply conversion losses, boards
  /// and storage the devices do not describe): a node template's optional
  /// `chassis_power: {idle: 467 W, max: 2776 W}` (models/power.hpp scales it with the node's
  /// activity). Not given: 0 W.
  DevicePower chassis_power;
};

struct NodeGroup {
  GroupId id;
  std::string name;           // "trainers"
  std::string role;           // free text from the file: "trainer", "parameter_server", ... ("" if none)
  std::string template_name;  // the node template of every node of the group
  NodeId first_node;          // nodes [first_node, first_node + node_count)
  std::uint32_t node_count = 0;
};

/// Aggregate figures of one node (the sums over its devices).
struct NodeSummary {
  int gpu_count = 0;
  int cpu_socket_count = 0;
  int cpu_cores = 0;
  int nic_count = 0;
  Bytes hbm_capacity;               // sum over GPUs
  BytesPerSecond hbm_bandwidth;     // sum over GPUs
  Bytes dram_capacity;              // sum over CPU sockets
  BytesPerSecond dram_bandwidth;    // sum over CPU sockets
  /// Sum over GPUs of the NVLink bandwidth leaving each GPU, per direction (DGX H100: 8 x 450 GB/s).
  BytesPerSecond nvlink_bandwidth;
  /// Sum of NIC bandwidths, per direction (DGX H100: 8 x 400 Gbit/s = 400 GB/s).
  BytesPerSecond nic_bandwidth;
  PeakRates gpu_peak;               // sum over GPUs, per precision given by every GPU
  PeakRates cpu_peak;               // sum over CPU sockets
};

namespace detail {
struct PlatformData;
}

class Platform {
 public:
  /// An empty platform (no devices). Real ones come from load_platform or PlatformBuilder.
  Platform();
  explicit Platform(std::shared_ptr<const detail::PlatformData> data);

  [[nodiscard]] const std::string& name() const;
  [[nodiscard]] const std::string& description() const;
  /// The file it was loaded from ("" when built in code or inline).
  [[nodiscard]] const std::string& source() const;
  /// The other files its loading read (node templates taken from other files, the CPU
  /// profiles its sockets name), each once, in the order first read.
  [[nodiscard]] std::span<const std::string> files_read() const;

  // --- devices, nodes, groups, links -------------------------------------------------------
  [[nodiscard]] std::span<const Device> devices() const;
  [[nodiscard]] const Device& device(DeviceId d) const;           // throws PlatformError if out of range
  /// By unique name ("trainers3.gpu5"); std::nullopt if there is none.
  [[nodiscard]] std::optional<DeviceId> find_device(std::string_view name) const;
  [[nodiscard]] std::span<const Node> nodes() const;
  [[nodiscard]] const Node& node(NodeId n) const;
  [[nodiscard]] std::span<const NodeGroup> groups() const;
  [[nodiscard]] const NodeGroup& group(GroupId g) const;
  [[nodiscard]] std::optional<GroupId> find_group(std::string_view name) const;
  /// The nodes of one group, in order.
  [[nodiscard]] std::span<const Node> nodes_in(GroupId g) const;
  [[nodiscard]] std::span<const Link> links() const;
  [[nodiscard]] const Link& link(LinkId l) const;
  [[nodiscard]] std::size_t directed_link_count() const { return links().size() * 2; }
  [[nodiscard]] DirectedLink directed_link(DirectedLinkId d) const;
  [[nodiscard]] const std::optional<FabricSpec>& fabric() const;  // nullopt for a single node
  /// Checkpoint storage (the platform's `storage` key); nullopt when the file gives none.
  [[nodiscard]] const std::optional<StorageSpec>& storage() const;

  // --- per-node device lists and typed specs ---------------------------------------------
  [[nodiscard]] std::span<const DeviceId> gpus(NodeId n) const { return node(n).gpus; }
  [[nodiscard]] std::span<const DeviceId> cpus(NodeId n) const { return node(n).cpus; }
  [[nodiscard]] std::span<const DeviceId> nics(NodeId n) const { return node(n).nics; }
  /// Every GPU of the platform in node order.
  [[nodiscard]] std::span<const DeviceId> all_gpus() const;
  [[nodiscard]] std::span<const DeviceId> all_cpus() const;
  /// The spec of a device of that kind; PlatformError if the device is of another kind.
  [[nodiscard]] const GpuSpec& gpu_spec(DeviceId d) const;
  [[nodiscard]] const CpuSocketSpec& cpu_spec(DeviceId d) const;
  [[nodiscard]] const NicSpec& nic_spec(DeviceId d) const;

  // --- where a device sits ----------------------------------------------------------------
  /// The node holding `d`; PlatformError for a fabric switch.
  [[nodiscard]] NodeId node_of(DeviceId d) const;
  [[nodiscard]] bool is_fabric_device(DeviceId d) const { return device(d).node.index == kNoIndex; }
  /// The CPU socket closest to `d` in its node (fewest links; ties: lowest index): the
  /// socket whose DRAM is "local host memory" for a GPU. nullopt if the node has no CPU.
  [[nodiscard]] std::optional<DeviceId> host_cpu(DeviceId d) const;
  /// The NIC that traffic from `d` to other nodes leaves by; nullopt if the node has none.
  [[nodiscard]] std::optional<DeviceId> affinity_nic(DeviceId d) const;

  // --- routing -----------------------------------------------------------------------------
  /// The directed links from `a` to `b` in order (empty when a == b). PlatformError if there
  /// is no path (e.g. two nodes of a cluster without a fabric).
  [[nodiscard]] std::vector<DirectedLinkId> route(DeviceId a, DeviceId b) const;
  /// Appends the route to `out` (the allocation-free form for bulk use).
  void append_route(DeviceId a, DeviceId b, std::vector<DirectedLinkId>& out) const;
  /// Smallest link bandwidth on the route; PlatformError when a == b (a route with no links).
  [[nodiscard]] BytesPerSecond route_bandwidth(DeviceId a, DeviceId b) const;
  /// Sum of the link latencies on the route (0 when a == b).
  [[nodiscard]] Seconds route_latency(DeviceId a, DeviceId b) const;
  /// Two GPUs of one node without an NVLink path of their own: the NVLink to an intermediate
  /// GPU and its NVLink on to `b` (NCCL's NVB path, NVIDIA/nccl src/graph/paths.cc since
  /// 2.8.3); nothing when there is no such relay or the route is NVLink already.
  [[nodiscard]] std::optional<std::array<DirectedLinkId, 2>> nvlink_relay(DeviceId a, DeviceId b) const;

  // --- aggregate figures ---------------------------------------------------------------
  [[nodiscard]] NodeSummary node_summary(NodeId n) const;
  /// One-direction bisection bandwidth of the cluster: the maximum flow through the fabric
  /// from the NICs of the first half of the nodes (in node order) to those of the second
  /// half. std::nullopt for a platform of one node. Costs one max-flow computation
  /// (milliseconds for thousands of NICs); not cached.
  [[nodiscard]] std::optional<BytesPerSecond> bisection_bandwidth() const;

  /// The tables behind the queries (for engine export, DOT output and tests).
  [[nodiscard]] const detail::PlatformData& data() const { return *data_; }

 private:
  std::shared_ptr<const detail::PlatformData> data_;
};

}  // namespace dlrmsim::topo
