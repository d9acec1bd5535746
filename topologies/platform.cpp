#include "topologies/platform.hpp"

#include <boost/graph/push_relabel_max_flow.hpp>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>

#include "topologies/platform_data.hpp"

namespace dlrmsim::topo {

Platform::Platform() : data_(std::make_shared<detail::PlatformData>()) {}

Platform::Platform(std::shared_ptr<const detail::PlatformData> data) : data_(std::move(data)) {
  if (!data_) throw PlatformError("Platform: no data");
}

const std::string& Platform::name() const { return data_->name; }
const std::string& Platform::description() const { return data_->description; }
const std::string& Platform::source() const { return data_->source; }
std::span<const std::string> Platform::files_read() const { return data_->files_read; }

std::span<const Device> Platform::devices() const { return data_->devices; }

const Device& Platform::device(DeviceId d) const {
  if (d.index >= data_->devices.size()) {
    throw PlatformError("platform '" + data_->name + "': device #" + std::to_string(d.index) + " does not exist (" +
                        std::to_string(data_->devices.size()) + " devices)");
  }
  return data_->devices[d.index];
}

std::optional<DeviceId> Platform::find_device(std::string_view name) const {
  auto it = data_->device_by_name.find(std::string(name));
  if (it == data_->device_by_name.end()) return std::nullopt;
  return DeviceId{it->second};
}

std::span<const Node> Platform::nodes() const { return data_->nodes; }

const Node& Platform::node(NodeId n) const {
  if (n.index >= data_->nodes.size()) {
    throw PlatformError("platform '" + data_->name + "': node #" + std::to_string(n.index) + " does not exist (" +
                        std::to_string(data_->nodes.size()) + " nodes)");
  }
  return data_->nodes[n.index];
}

std::span<const NodeGroup> Platform::groups() const { return data_->groups; }

const NodeGroup& Platform::group(GroupId g) const {
  if (g.index >= data_->groups.size()) {
    throw PlatformError("platform '" + data_->name + "': node group #" + std::to_string(g.index) + " does not exist");
  }
  return data_->groups[g.index];
}

std::optional<GroupId> Platform::find_group(std::string_view name) const {
  for (const NodeGroup& g : data_->groups) {
    if (g.name == name) return g.id;
  }
  return std::nullopt;
}

std::span<const Node> Platform::nodes_in(GroupId g) const {
  const NodeGroup& grp = group(g);
  return std::span<const Node>(data_->nodes).subspan(grp.first_node.index, grp.node_count);
}

std::span<const Link> Platform::links() const { return data_->links; }

const Link& Platform::link(LinkId l) const {
  if (l.index >= data_->links.size()) {
    throw PlatformError("platform '" + data_->name + "': link #" + std::to_string(l.index) + " does not exist");
  }
  return data_->links[l.index];
}

DirectedLink Platform::directed_link(DirectedLinkId d) const {
  const Link& l = link(link_of(d));
  const bool forward = d.index % 2 == 0;
  return DirectedLink{d, l.id, forward ? l.a : l.b, forward ? l.b : l.a};
}

const std::optional<FabricSpec>& Platform::fabric() const { return data_->fabric; }
const std::optional<StorageSpec>& Platform::storage() const { return data_->storage; }

std::span<const DeviceId> Platform::all_gpus() const { return data_->all_gpus; }
std::span<const DeviceId> Platform::all_cpus() const { return data_->all_cpus; }

namespace {
template <class Spec>
const Spec& spec_of(const Platform& p, DeviceId d, std::string_view wanted) {
  const Device& dev = p.device(d);
  if (const auto* s = std::get_if<Spec>(&dev.spec)) return *s;
  throw PlatformError("device '" + dev.name + "' is a " + std::string(to_string(dev.kind)) + ", not a " +
                      std::string(wanted));
}
}  // namespace

const GpuSpec& Platform::gpu_spec(DeviceId d) const { return spec_of<GpuSpec>(*this, d, "gpu"); }
const CpuSocketSpec& Platform::cpu_spec(DeviceId d) const { return spec_of<CpuSocketSpec>(*this, d, "cpu"); }
const NicSpec& Platform::nic_spec(DeviceId d) const { return spec_of<NicSpec>(*this, d, "nic"); }

NodeId Platform::node_of(DeviceId d) const {
  const Device& dev = device(d);
  if (dev.node.index == kNoIndex) throw PlatformError("device '" + dev.name + "' is a fabric switch, in no node");
  return dev.node;
}

std::optional<DeviceId> Platform::host_cpu(DeviceId d) const {
  const Device& dev = device(d);
  if (dev.node.index == kNoIndex) return std::nullopt;
  const auto& tab = data_->templates[data_->template_of_node[dev.node.index]];
  const std::uint32_t local = tab.host_cpu[dev.local_index];
  if (local == kNoIndex) return std::nullopt;
  return DeviceId{data_->nodes[dev.node.index].first_device.index + local};
}

std::optional<DeviceId> Platform::affinity_nic(DeviceId d) const {
  const Device& dev = device(d);
  if (dev.node.index == kNoIndex) return std::nullopt;
  const auto& tab = data_->templates[data_->template_of_node[dev.node.index]];
  const std::uint32_t local = tab.affinity_nic[dev.local_index];
  if (local == kNoIndex) return std::nullopt;
  return DeviceId{data_->nodes[dev.node.index].first_device.index + local};
}

namespace detail {

bool search_route(const PlatformData& data, DeviceId a, DeviceId b, std::vector<DirectedLinkId>& out) {
  const auto n = data.devices.size();
  std::vector<std::uint32_t> via(n, kNoIndex);
  std::vector<std::uint8_t> seen(n, 0);
  std::deque<std::uint32_t> queue{a.index};
  seen[a.index] = 1;
  while (!queue.empty() && !seen[b.index]) {
    const std::uint32_t v = queue.front();
    queue.pop_front();
    if (v != a.index && data.devices[v].kind == DeviceKind::gpu) continue;
    for (auto [e, end] = boost::out_edges(v, data.graph); e != end; ++e) {
      const auto w = static_cast<std::uint32_t>(boost::target(*e, data.graph));
      if (seen[w]) continue;
      seen[w] = 1;
      via[w] = data.graph[*e].directed.index;
      queue.push_back(w);
    }
  }
  if (!seen[b.index]) return false;
  const std::size_t start = out.size();
  for (std::uint32_t v = b.index; v != a.index;) {
    const DirectedLinkId d{via[v]};
    out.push_back(d);
    const Link& l = data.links[d.index / 2];
    v = (d.index % 2 == 0) ? l.a.index : l.b.index;
  }
  std::reverse(out.begin() + static_cast<std::ptrdiff_t>(start), out.end());
  return true;
}

void throw_no_path(const PlatformData& data, DeviceId a, DeviceId b) {
  throw PlatformError("platform '" + data.name + "': no path from '" + data.devices[a.index].name + "' to '" +
                      data.devices[b.index].name + "'");
}

}  // namespace detail

void Platform::append_route(DeviceId a, DeviceId b, std::vector<DirectedLinkId>& out) const {
  (void)device(a);
  (void)device(b);
  const std::size_t start = out.size();
  try {
    detail::for_each_route_link(*data_, a, b, [&](DirectedLinkId d) { out.push_back(d); });
  } catch (...) {
    out.resize(start);
    throw;
  }
}

std::vector<DirectedLinkId> Platform::route(DeviceId a, DeviceId b) const {
  std::vector<DirectedLinkId> out;
  append_route(a, b, out);
  return out;
}

BytesPerSecond Platform::route_bandwidth(DeviceId a, DeviceId b) const {
  if (a == b) throw PlatformError("route_bandwidth: '" + device(a).name + "' to itself has no links");
  BytesPerSecond least(std::numeric_limits<double>::infinity());
  for (DirectedLinkId d : route(a, b)) least = std::min(least, data_->links[d.index / 2].bandwidth);
  return least;
}

std::optional<std::array<DirectedLinkId, 2>> Platform::nvlink_relay(DeviceId a, DeviceId b) const {
  const auto& ra = data_->routing.at(a.index);
  const auto& rb = data_->routing.at(b.index);
  if (ra.node == kNoIndex || ra.node != rb.node) return std::nullopt;
  const auto& tab = data_->templates[ra.table];
  const auto& relay = tab.relay[static_cast<std::size_t>(ra.local) * tab.device_count + rb.local];
  if (relay[0] == kNoIndex) return std::nullopt;
  return std::array<DirectedLinkId, 2>{DirectedLinkId{ra.link_base + relay[0]}, DirectedLinkId{ra.link_base + relay[1]}};
}

Seconds Platform::route_latency(DeviceId a, DeviceId b) const {
  Seconds sum;
  for (DirectedLinkId d : route(a, b)) sum += data_->links[d.index / 2].latency;
  return sum;
}

NodeSummary Platform::node_summary(NodeId n) const {
  const Node& nd = node(n);
  NodeSummary s;
  std::array<int, kPrecisionCount> gpus_with_rate{}, cpus_with_rate{};
  for (std::uint32_t i = 0; i < nd.device_count; ++i) {
    const Device& d = data_->devices[nd.first_device.index + i];
    if (const auto* g = std::get_if<GpuSpec>(&d.spec)) {
      ++s.gpu_count;
      s.hbm_capacity += g->hbm_capacity;
      s.hbm_bandwidth += g->hbm_bandwidth;
      for (Precision p : kAllPrecisions) {
        if (auto r = g->peak.get(p)) {
          s.gpu_peak.set(p, s.gpu_peak.get(p).value_or(FlopsPerSecond(0.0)) + *r);
          ++gpus_with_rate[static_cast<std::size_t>(p)];
        }
      }
    } else if (const auto* c = std::get_if<CpuSocketSpec>(&d.spec)) {
      ++s.cpu_socket_count;
      s.cpu_cores += c->cores;
      s.dram_capacity += c->dram_capacity;
      s.dram_bandwidth += c->dram_bandwidth;
      for (Precision p : kAllPrecisions) {
        if (auto r = c->peak.get(p)) {
          s.cpu_peak.set(p, s.cpu_peak.get(p).value_or(FlopsPerSecond(0.0)) + *r);
          ++cpus_with_rate[static_cast<std::size_t>(p)];
        }
      }
    } else if (const auto* nic = std::get_if<NicSpec>(&d.spec)) {
      ++s.nic_count;
      s.nic_bandwidth += nic->bandwidth;
    }
  }
  // A per-precision sum is only meaningful when every device of the kind gives that rate.
  for (Precision p : kAllPrecisions) {
    const auto i = static_cast<std::size_t>(p);
    if (gpus_with_rate[i] != s.gpu_count) s.gpu_peak.rate[i].reset();
    if (cpus_with_rate[i] != s.cpu_socket_count) s.cpu_peak.rate[i].reset();
  }
  for (std::uint32_t i = 0; i < nd.link_count; ++i) {
    const Link& l = data_->links[nd.first_link.index + i];
    if (l.resource_class != "nvlink") continue;
    if (data_->devices[l.a.index].kind == DeviceKind::gpu) s.nvlink_bandwidth += l.bandwidth;
    if (data_->devices[l.b.index].kind == DeviceKind::gpu) s.nvlink_bandwidth += l.bandwidth;
  }
  return s;
}

std::optional<BytesPerSecond> Platform::bisection_bandwidth() const {
  const auto& nodes = data_->nodes;
  const auto& ft = data_->fabric_tables;
  if (nodes.size() < 2 || ft.nic_device.empty()) return std::nullopt;
  // Flow network over the fabric: NICs and switches, plus a source and a sink. Capacities
  // are whole bytes per second (exact for every catalogue figure to well under 1 B/s).
  using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
  using FlowGraph = boost::adjacency_list<
      boost::vecS, boost::vecS, boost::directedS, boost::no_property,
      boost::property<boost::edge_capacity_t, std::int64_t,
                      boost::property<boost::edge_residual_capacity_t, std::int64_t,
                                      boost::property<boost::edge_reverse_t, Traits::edge_descriptor>>>>;
  std::vector<std::uint32_t> vertex_of_device(data_->devices.size(), kNoIndex);
  std::uint32_t vertices = 0;
  for (const Link& l : data_->links) {
    if (!l.fabric) continue;
    for (DeviceId d : {l.a, l.b}) {
      if (vertex_of_device[d.index] == kNoIndex) vertex_of_device[d.index] = vertices++;
    }
  }
  const std::uint32_t source = vertices++;
  const std::uint32_t sink = vertices++;
  FlowGraph g(vertices);
  auto capacity = boost::get(boost::edge_capacity, g);
  auto reverse = boost::get(boost::edge_reverse, g);
  auto add = [&](std::uint32_t u, std::uint32_t v, std::int64_t cap) {
    auto e = boost::add_edge(u, v, g).first;
    auto r = boost::add_edge(v, u, g).first;
    capacity[e] = cap;
    capacity[r] = 0;
    reverse[e] = r;
    reverse[r] = e;
  };
  std::int64_t total = 0;
  for (const Link& l : data_->links) {
    if (!l.fabric) continue;
    const auto cap = static_cast<std::int64_t>(std::llround(l.bandwidth.value()));
    add(vertex_of_device[l.a.index], vertex_of_device[l.b.index], cap);
    add(vertex_of_device[l.b.index], vertex_of_device[l.a.index], cap);
    total += cap;
  }
  const std::size_t half = nodes.size() / 2;
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    for (DeviceId nic : nodes[n].nics) {
      if (n < half) {
        add(source, vertex_of_device[nic.index], total);
      } else {
        add(vertex_of_device[nic.index], sink, total);
      }
    }
  }
  const std::int64_t flow = boost::push_relabel_max_flow(g, source, sink);
  return BytesPerSecond(static_cast<double>(flow));
}

}  // namespace dlrmsim::topo
