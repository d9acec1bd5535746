#include <array>
#include "topologies/platform_builder.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <utility>

#include "topologies/platform_data.hpp"

namespace dlrmsim::topo {

namespace {

std::string quoted(const std::string& s) { return "'" + s + "'"; }

/// Breadth-first search inside one template from `source`; devices that do not forward
/// traffic are end points only. Returns for each device the directed local link it was
/// reached by (kNoIndex for the source and unreachable devices) and its distance.
struct SearchResult {
  std::vector<std::uint32_t> via;       // local directed link index
  std::vector<std::uint32_t> distance;  // kNoIndex: unreachable
};

SearchResult search_template(const NodeTemplate& t, const std::vector<std::vector<std::uint32_t>>& out_edges,
                             std::uint32_t source) {
  const auto n = static_cast<std::uint32_t>(t.devices.size());
  SearchResult r{std::vector<std::uint32_t>(n, kNoIndex), std::vector<std::uint32_t>(n, kNoIndex)};
  std::deque<std::uint32_t> queue{source};
  r.distance[source] = 0;
  while (!queue.empty()) {
    const std::uint32_t v = queue.front();
    queue.pop_front();
    if (v != source && !forwards_traffic(kind_of(t.devices[v].spec))) continue;
    for (std::uint32_t directed : out_edges[v]) {
      const TemplateLink& l = t.links[directed / 2];
      const std::uint32_t w = (directed % 2 == 0) ? l.b : l.a;
      if (r.distance[w] != kNoIndex) continue;
      r.distance[w] = r.distance[v] + 1;
      r.via[w] = directed;
      queue.push_back(w);
    }
  }
  return r;
}

bool is_nvlink(const TemplateLink& l) { return link_kind_info(l.kind).resource_class == "nvlink"; }

double link_bandwidth(const TemplateLink& l) {
  return l.bandwidth ? l.bandwidth->value() : l.count * link_kind_info(l.kind).bandwidth->value();
}

/// The NVLink relay between two GPUs without an NVLink path of their own: NVLink to an
/// intermediate GPU that forwards over NVLink to the destination (what NCCL calls an NVB path,
/// Platform::nvlink_relay). Returns the two directed links, or nothing when no GPU has an
/// NVLink to both. The relay with the widest narrower link wins; ties go to the first in the
/// source's link order.
std::optional<std::array<std::uint32_t, 2>> nvlink_bridge(const NodeTemplate& t,
                                                          const std::vector<std::vector<std::uint32_t>>& out_edges,
                                                          std::uint32_t from, std::uint32_t to) {
  std::optional<std::array<std::uint32_t, 2>> best;
  double best_bandwidth = 0.0;
  for (std::uint32_t first : out_edges[from]) {
    const TemplateLink& a = t.links[first / 2];
    const std::uint32_t relay = (first % 2 == 0) ? a.b : a.a;
    if (!is_nvlink(a) || kind_of(t.devices[relay].spec) != DeviceKind::gpu) continue;
    for (std::uint32_t second : out_edges[relay]) {
      const TemplateLink& b = t.links[second / 2];
      if (!is_nvlink(b) || ((second % 2 == 0) ? b.b : b.a) != to) continue;
      const double bw = std::min(link_bandwidth(a), link_bandwidth(b));
      if (bw > best_bandwidth) {
        best_bandwidth = bw;
        best = std::array<std::uint32_t, 2>{first, second};
      }
    }
  }
  return best;
}

/// Whether every link of a path is NVLink (through NVSwitches or directly).
bool all_nvlink(const NodeTemplate& t, const std::vector<std::uint32_t>& path) {
  for (std::uint32_t d : path) {
    if (!is_nvlink(t.links[d / 2])) return false;
  }
  return !path.empty();
}

detail::TemplateTables make_tables(const NodeTemplate& t) {
  const auto n = static_cast<std::uint32_t>(t.devices.size());
  detail::TemplateTables tab;
  tab.name = t.name;
  tab.device_count = n;
  tab.link_count = static_cast<std::uint32_t>(t.links.size());
  std::vector<std::vector<std::uint32_t>> out_edges(n);
  for (std::uint32_t l = 0; l < t.links.size(); ++l) {
    out_edges[t.links[l].a].push_back(2 * l);
    out_edges[t.links[l].b].push_back(2 * l + 1);
  }
  tab.route_begin.reserve(static_cast<std::size_t>(n) * n + 1);
  tab.reachable.assign(static_cast<std::size_t>(n) * n, 0);
  tab.relay.assign(static_cast<std::size_t>(n) * n, {kNoIndex, kNoIndex});
  tab.host_cpu.assign(n, kNoIndex);
  tab.affinity_nic.assign(n, kNoIndex);
  std::vector<std::vector<std::uint32_t>> nearest_nics(n);
  std::vector<std::uint32_t> path;
  for (std::uint32_t i = 0; i < n; ++i) {
    const SearchResult r = search_template(t, out_edges, i);
    std::uint32_t best_cpu_distance = kNoIndex;
    std::uint32_t best_nic_distance = kNoIndex;
    for (std::uint32_t j = 0; j < n; ++j) {
      tab.route_begin.push_back(static_cast<std::uint32_t>(tab.route_pool.size()));
      if (r.distance[j] == kNoIndex) continue;
      tab.reachable[static_cast<std::size_t>(i) * n + j] = 1;
      path.clear();
      for (std::uint32_t v = j; v != i;) {
        const std::uint32_t directed = r.via[v];
        path.push_back(directed);
        const TemplateLink& l = t.links[directed / 2];
        v = (directed % 2 == 0) ? l.a : l.b;
      }
      std::reverse(path.begin(), path.end());
      const DeviceKind kj = kind_of(t.devices[j].spec);
      if (kind_of(t.devices[i].spec) == DeviceKind::gpu && kj == DeviceKind::gpu && !all_nvlink(t, path)) {
        if (const auto bridge = nvlink_bridge(t, out_edges, i, j)) {
          tab.relay[static_cast<std::size_t>(i) * n + j] = *bridge;
        }
      }
      tab.route_pool.insert(tab.route_pool.end(), path.begin(), path.end());
      if (kj == DeviceKind::cpu && r.distance[j] < best_cpu_distance) {
        best_cpu_distance = r.distance[j];
        tab.host_cpu[i] = j;
      }
      if (kj == DeviceKind::nic) {
        if (r.distance[j] < best_nic_distance) {
          best_nic_distance = r.distance[j];
          nearest_nics[i].clear();
        }
        if (r.distance[j] == best_nic_distance) nearest_nics[i].push_back(j);
      }
    }
  }
  tab.route_begin.push_back(static_cast<std::uint32_t>(tab.route_pool.size()));
  // Devices of one kind that tie for the same set of nearest NICs take them in turn
  // (DGX A100: two GPUs behind one PCIe switch with two NICs use one NIC each).
  std::map<std::pair<DeviceKind, std::vector<std::uint32_t>>, std::uint32_t> taken;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (nearest_nics[i].empty()) continue;
    const DeviceKind k = kind_of(t.devices[i].spec);
    std::uint32_t& rank = taken[{k, nearest_nics[i]}];
    tab.affinity_nic[i] = nearest_nics[i][rank % nearest_nics[i].size()];
    ++rank;
  }
  return tab;
}

BytesPerSecond nic_bandwidth(const DeviceSpec& spec) { return std::get<NicSpec>(spec).bandwidth; }

}  // namespace

std::uint32_t NodeTemplate::add_device(std::string device_name, DeviceSpec spec, DevicePower power) {
  if (device_name.empty()) throw PlatformError("node template " + quoted(name) + ": a device has no name");
  if (find(device_name)) {
    throw PlatformError("node template " + quoted(name) + ": two devices are named " + quoted(device_name));
  }
  devices.push_back(TemplateDevice{std::move(device_name), std::move(spec), power});
  return static_cast<std::uint32_t>(devices.size() - 1);
}

void NodeTemplate::add_link(std::uint32_t a, std::uint32_t b, LinkKind kind, int count,
                            std::optional<BytesPerSecond> bandwidth, std::optional<Seconds> latency) {
  const std::string what = "node template " + quoted(name) + ": link";
  if (a >= devices.size() || b >= devices.size()) {
    throw PlatformError(what + " between device #" + std::to_string(a) + " and #" + std::to_string(b) +
                        ": no such device (" + std::to_string(devices.size()) + " devices)");
  }
  const std::string ends = " " + devices[a].name + " - " + devices[b].name;
  if (a == b) throw PlatformError(what + ends + ": a link must join two different devices");
  if (count < 1) throw PlatformError(what + ends + ": count must be at least 1");
  if (bandwidth && !(bandwidth->value() > 0.0 && std::isfinite(bandwidth->value()))) {
    throw PlatformError(what + ends + ": bandwidth must be positive");
  }
  if (latency && !(latency->value() >= 0.0 && std::isfinite(latency->value()))) {
    throw PlatformError(what + ends + ": latency must be zero or positive");
  }
  if (!bandwidth && !link_kind_info(kind).bandwidth) {
    throw PlatformError(what + ends + ": a " + std::string(to_string(kind)) + " link needs an explicit bandwidth");
  }
  if (kind == LinkKind::nvlink_c2c) {
    // NVLink-C2C joins a Grace CPU to its GPU(s); GPUs reach each other over NVLink.
    const DeviceKind ka = kind_of(devices[a].spec), kb = kind_of(devices[b].spec);
    const bool cpu_gpu = (ka == DeviceKind::cpu && kb == DeviceKind::gpu) || (ka == DeviceKind::gpu && kb == DeviceKind::cpu);
    if (!cpu_gpu) {
      throw PlatformError(what + ends + ": an nvlink_c2c link joins a CPU and a GPU (here " + std::string(to_string(ka)) +
                          " and " + std::string(to_string(kb)) + "); GPUs are joined by NVLink");
    }
  }
  links.push_back(TemplateLink{a, b, kind, count, bandwidth, latency});
}

std::optional<std::string> NodeTemplate::mixed_scale_up_domain() const {
  // Union-find over the GPU-to-GPU scale-up links (resource class "nvlink": NVLink, AMD
  // Infinity Fabric), through the NVSwitches they meet at.
  std::vector<std::uint32_t> parent(devices.size());
  for (std::uint32_t i = 0; i < parent.size(); ++i) parent[i] = i;
  const auto root = [&](std::uint32_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  for (const TemplateLink& l : links) {
    if (link_kind_info(l.kind).resource_class == "nvlink") parent[root(l.a)] = root(l.b);
  }
  std::vector<std::uint32_t> first_gpu(devices.size(), kNoIndex);  // by domain root
  for (std::uint32_t i = 0; i < devices.size(); ++i) {
    const auto* gpu = std::get_if<GpuSpec>(&devices[i].spec);
    if (!gpu) continue;
    std::uint32_t& first = first_gpu[root(i)];
    if (first == kNoIndex) {
      first = i;
      continue;
    }
    const auto& model = std::get<GpuSpec>(devices[first].spec).model;
    if (gpu->model != model) {
      return "one NVLink domain joins GPUs of different models: " + devices[first].name + " is " + quoted(model) +
             ", " + devices[i].name + " is " + quoted(gpu->model) +
             "; a scale-up domain holds one GPU model (join the others by PCIe or the network)";
    }
  }
  return std::nullopt;
}

std::optional<std::uint32_t> NodeTemplate::find(const std::string& device_name) const {
  for (std::uint32_t i = 0; i < devices.size(); ++i) {
    if (devices[i].name == device_name) return i;
  }
  return std::nullopt;
}

PlatformBuilder::PlatformBuilder(std::string name, std::string description, std::string source)
    : name_(std::move(name)), description_(std::move(description)), source_(std::move(source)) {}

void PlatformBuilder::add_template(NodeTemplate t) {
  for (const auto& existing : templates_) {
    if (existing.name == t.name) throw PlatformError("two node templates are named " + quoted(t.name));
  }
  templates_.push_back(std::move(t));
}

void PlatformBuilder::add_group(std::string group_name, const std::string& template_name, int count,
                                std::string role) {
  const bool known = std::any_of(templates_.begin(), templates_.end(),
                                 [&](const NodeTemplate& t) { return t.name == template_name; });
  if (!known) throw PlatformError("node group " + quoted(group_name) + ": unknown node template " + quoted(template_name));
  if (count < 1) throw PlatformError("node group " + quoted(group_name) + ": count must be at least 1");
  for (const auto& g : groups_) {
    if (g.name == group_name) throw PlatformError("two node groups are named " + quoted(group_name));
  }
  groups_.push_back(Group{std::move(group_name), template_name, count, std::move(role)});
}

void PlatformBuilder::set_fabric(FabricSpec fabric) { fabric_ = std::move(fabric); }
void PlatformBuilder::set_storage(StorageSpec storage) { storage_ = std::move(storage); }

Platform PlatformBuilder::build() && {
  auto data = std::make_shared<detail::PlatformData>();
  data->name = name_;
  data->description = description_;
  data->source = source_;
  data->storage = storage_;
  for (const NodeTemplate& t : templates_) {
    for (const std::string& f : t.files) {
      if (std::find(data->files_read.begin(), data->files_read.end(), f) == data->files_read.end()) {
        data->files_read.push_back(f);
      }
    }
  }

  const bool single_implicit_node = groups_.empty();
  if (single_implicit_node) {
    if (templates_.size() != 1) {
      throw PlatformError("platform " + quoted(name_) + ": " + std::to_string(templates_.size()) +
                          " node templates and no cluster groups; a platform without a cluster section "
                          "must have exactly one node template");
    }
    groups_.push_back(Group{templates_[0].name, templates_[0].name, 1, {}});
  }
  std::uint64_t total_nodes = 0;
  for (const auto& g : groups_) total_nodes += static_cast<std::uint64_t>(g.count);
  if (total_nodes > 1 && !fabric_) {
    throw PlatformError("platform " + quoted(name_) + ": " + std::to_string(total_nodes) +
                        " nodes need a fabric to join them (cluster.fabric)");
  }

  // Per-template tables, only for templates in use.
  std::vector<std::uint32_t> table_of_template(templates_.size(), kNoIndex);
  auto template_index = [&](const std::string& tname) {
    for (std::uint32_t i = 0; i < templates_.size(); ++i) {
      if (templates_[i].name == tname) return i;
    }
    throw PlatformError("unknown node template " + quoted(tname));
  };
  for (const auto& g : groups_) {
    const std::uint32_t ti = template_index(g.template_name);
    if (table_of_template[ti] != kNoIndex) continue;
    table_of_template[ti] = static_cast<std::uint32_t>(data->templates.size());
    data->templates.push_back(make_tables(templates_[ti]));
    if (fabric_ && total_nodes > 1) {
      const auto& tab = data->templates.back();
      for (std::uint32_t i = 0; i < tab.device_count; ++i) {
        const DeviceKind k = kind_of(templates_[ti].devices[i].spec);
        if ((k == DeviceKind::gpu || k == DeviceKind::cpu) && tab.affinity_nic[i] == kNoIndex) {
          throw PlatformError("node template " + quoted(templates_[ti].name) + ": device " +
                              quoted(templates_[ti].devices[i].name) +
                              " cannot reach any NIC, so it cannot talk to other nodes of the cluster");
        }
      }
    }
  }

  // Nodes, their devices and links, in group order.
  std::size_t device_estimate = 0, link_estimate = 0;
  for (const auto& g : groups_) {
    const auto& t = templates_[template_index(g.template_name)];
    device_estimate += t.devices.size() * static_cast<std::size_t>(g.count);
    link_estimate += t.links.size() * static_cast<std::size_t>(g.count);
  }
  data->devices.reserve(device_estimate);
  data->links.reserve(link_estimate);
  data->nodes.reserve(total_nodes);
  for (std::uint32_t gi = 0; gi < groups_.size(); ++gi) {
    const Group& g = groups_[gi];
    const std::uint32_t ti = template_index(g.template_name);
    const NodeTemplate& t = templates_[ti];
    NodeGroup group;
    group.id = GroupId{gi};
    group.name = g.name;
    group.role = g.role;
    group.template_name = g.template_name;
    group.first_node = NodeId{static_cast<std::uint32_t>(data->nodes.size())};
    group.node_count = static_cast<std::uint32_t>(g.count);
    data->groups.push_back(group);
    for (int k = 0; k < g.count; ++k) {
      Node node;
      node.id = NodeId{static_cast<std::uint32_t>(data->nodes.size())};
      node.name = single_implicit_node ? t.name : (g.count == 1 ? g.name : g.name + std::to_string(k));
      node.group = group.id;
      node.index_in_group = static_cast<std::uint32_t>(k);
      node.template_name = t.name;
      node.first_device = DeviceId{static_cast<std::uint32_t>(data->devices.size())};
      node.device_count = static_cast<std::uint32_t>(t.devices.size());
      node.first_link = LinkId{static_cast<std::uint32_t>(data->links.size())};
      node.link_count = static_cast<std::uint32_t>(t.links.size());
      node.price = t.price;
      node.chassis_power = t.chassis_power;
      for (std::uint32_t i = 0; i < t.devices.size(); ++i) {
        Device d;
        d.id = DeviceId{static_cast<std::uint32_t>(data->devices.size())};
        d.local_name = t.devices[i].name;
        d.name = single_implicit_node ? d.local_name : node.name + "." + d.local_name;
        d.kind = kind_of(t.devices[i].spec);
        d.node = node.id;
        d.local_index = i;
        d.spec = t.devices[i].spec;
        d.power = t.devices[i].power;
        if (d.kind == DeviceKind::gpu) {
          node.gpus.push_back(d.id);
          data->all_gpus.push_back(d.id);
        } else if (d.kind == DeviceKind::cpu) {
          node.cpus.push_back(d.id);
          data->all_cpus.push_back(d.id);
        } else if (d.kind == DeviceKind::nic) {
          node.nics.push_back(d.id);
        }
        data->devices.push_back(std::move(d));
      }
      for (const TemplateLink& tl : t.links) {
        const LinkKindInfo& info = link_kind_info(tl.kind);
        Link l;
        l.id = LinkId{static_cast<std::uint32_t>(data->links.size())};
        l.a = DeviceId{node.first_device.index + tl.a};
        l.b = DeviceId{node.first_device.index + tl.b};
        l.kind = tl.kind;
        l.count = tl.count;
        l.bandwidth = tl.bandwidth ? *tl.bandwidth : *info.bandwidth * static_cast<double>(tl.count);
        l.latency = tl.latency ? *tl.latency : info.latency;
        const bool network = info.resource_class == "network";
        const bool at_nic = data->devices[l.a.index].kind == DeviceKind::nic ||
                            data->devices[l.b.index].kind == DeviceKind::nic;
        l.resource_class = (network && at_nic) ? "nic" : std::string(info.resource_class);
        data->links.push_back(std::move(l));
      }
      data->template_of_node.push_back(table_of_template[ti]);
      data->nodes.push_back(std::move(node));
    }
  }

  // The fabric.
  detail::FabricTables& ft = data->fabric_tables;
  ft.nic_number_of_device.assign(data->devices.size(), kNoIndex);
  if (fabric_ && total_nodes > 1) {
    FabricSpec& f = *fabric_;
    const std::string fwhat = "platform " + quoted(name_) + ": fabric (" + std::string(to_string(f.kind)) + ")";
    if (f.link_kind != LinkKind::ethernet && f.link_kind != LinkKind::infiniband) {
      throw PlatformError(fwhat + ": link_kind must be ethernet or infiniband");
    }
    for (const Node& node : data->nodes) {
      if (node.nics.empty()) throw PlatformError(fwhat + ": node " + quoted(node.name) + " has no NIC");
      for (DeviceId nic : node.nics) {
        ft.nic_number_of_device[nic.index] = static_cast<std::uint32_t>(ft.nic_device.size());
        ft.nic_device.push_back(nic);
      }
    }
    const auto nic_count = static_cast<std::uint32_t>(ft.nic_device.size());
    std::uint32_t leaf_count = 1;
    std::uint32_t uplinks_per_leaf = 0;
    ft.leaf_of_nic.assign(nic_count, 0);
    ft.port_on_leaf.assign(nic_count, 0);
    if (f.kind != FabricKind::single_switch) {
      if (f.hosts_per_leaf < 1) throw PlatformError(fwhat + ": hosts_per_leaf must be at least 1");
      if (!(f.oversubscription >= 1.0) || !std::isfinite(f.oversubscription)) {
        throw PlatformError(fwhat + ": oversubscription must be a ratio of at least 1");
      }
      const double uplinks = f.hosts_per_leaf / f.oversubscription;
      uplinks_per_leaf = static_cast<std::uint32_t>(std::llround(uplinks));
      if (uplinks_per_leaf < 1 || std::abs(uplinks - uplinks_per_leaf) > 1e-9) {
        throw PlatformError(fwhat + ": hosts_per_leaf / oversubscription = " + std::to_string(uplinks) +
                            " must be a whole number of uplinks per leaf (at least 1)");
      }
      if (f.kind == FabricKind::fat_tree) {
        const auto h = static_cast<std::uint32_t>(f.hosts_per_leaf);
        leaf_count = (nic_count + h - 1) / h;
        for (std::uint32_t i = 0; i < nic_count; ++i) {
          ft.leaf_of_nic[i] = i / h;
          ft.port_on_leaf[i] = i % h;
        }
      } else {
        std::uint32_t rails = f.rails > 0 ? static_cast<std::uint32_t>(f.rails)
                                          : static_cast<std::uint32_t>(data->nodes.front().nics.size());
        f.rails = static_cast<int>(rails);
        for (const Node& node : data->nodes) {
          if (node.nics.size() != rails) {
            throw PlatformError(fwhat + ": node " + quoted(node.name) + " has " + std::to_string(node.nics.size()) +
                                " NICs but the fabric has " + std::to_string(rails) +
                                " rails; every node of a rail-optimised fabric needs one NIC per rail");
          }
        }
        const auto h = static_cast<std::uint32_t>(f.hosts_per_leaf);
        const auto nodes = static_cast<std::uint32_t>(data->nodes.size());
        leaf_count = ((nodes + h - 1) / h) * rails;
        for (std::uint32_t n = 0; n < nodes; ++n) {
          for (std::uint32_t r = 0; r < rails; ++r) {
            const std::uint32_t nic = ft.nic_number_of_device[data->nodes[n].nics[r].index];
            ft.leaf_of_nic[nic] = (n / h) * rails + r;
            // A rail leaf's ports are its nodes (one NIC each), so its port is the node's
            // position in its leaf group: keyed by the global NIC number instead, the NICs of a
            // rail (r, r + rails, ...) would reach only spine_count / gcd(rails, spine_count)
            // of the spines (4 of 32 on the SuperPOD), oversubscribing the used uplinks 8:1.
            ft.port_on_leaf[nic] = n % h;
          }
        }
      }
      if (leaf_count > 1) {
        ft.spine_count = f.spines > 0 ? static_cast<std::uint32_t>(f.spines) : uplinks_per_leaf;
        if (uplinks_per_leaf % ft.spine_count != 0) {
          throw PlatformError(fwhat + ": the " + std::to_string(uplinks_per_leaf) +
                              " uplinks of a leaf cannot be spread evenly over " + std::to_string(ft.spine_count) +
                              " spines");
        }
      }
    }
    // Host link and uplink bandwidths.
    BytesPerSecond largest_host_link;
    std::vector<BytesPerSecond> host_bw(nic_count);
    for (std::uint32_t i = 0; i < nic_count; ++i) {
      host_bw[i] = f.host_link_bandwidth ? *f.host_link_bandwidth : nic_bandwidth(data->devices[ft.nic_device[i].index].spec);
      if (!(host_bw[i].value() > 0.0)) throw PlatformError(fwhat + ": host link bandwidth must be positive");
      largest_host_link = std::max(largest_host_link, host_bw[i]);
    }
    const BytesPerSecond uplink_bw = f.uplink_bandwidth ? *f.uplink_bandwidth
                                     : f.switch_spec.port_bandwidth.value() > 0.0 ? f.switch_spec.port_bandwidth
                                                                                 : largest_host_link;
    const Seconds latency = f.link_latency ? *f.link_latency : link_kind_info(f.link_kind).latency;
    // Port budget of the switches, when their radix is given.
    if (f.switch_spec.ports > 0) {
      std::vector<std::uint32_t> hosts_on_leaf(leaf_count, 0);
      for (std::uint32_t i = 0; i < nic_count; ++i) ++hosts_on_leaf[ft.leaf_of_nic[i]];
      const std::uint32_t busiest = *std::max_element(hosts_on_leaf.begin(), hosts_on_leaf.end());
      const std::uint32_t leaf_ports = busiest + (leaf_count > 1 ? uplinks_per_leaf : 0);
      if (leaf_ports > static_cast<std::uint32_t>(f.switch_spec.ports)) {
        throw PlatformError(fwhat + ": a leaf needs " + std::to_string(leaf_ports) + " ports but the switch has " +
                            std::to_string(f.switch_spec.ports));
      }
      if (leaf_count > 1) {
        const std::uint32_t spine_ports = leaf_count * (uplinks_per_leaf / ft.spine_count);
        if (spine_ports > static_cast<std::uint32_t>(f.switch_spec.ports)) {
          throw PlatformError(fwhat + ": a spine needs " + std::to_string(spine_ports) +
                              " ports but the switch has " + std::to_string(f.switch_spec.ports) +
                              "; use fewer leaves or more spines");
        }
      }
    }
    auto add_switch = [&](std::string switch_name, std::uint32_t index) {
      Device d;
      d.id = DeviceId{static_cast<std::uint32_t>(data->devices.size())};
      d.name = switch_name;
      d.local_name = std::move(switch_name);
      d.kind = DeviceKind::network_switch;
      d.local_index = index;
      d.spec = f.switch_spec;
      d.power = f.switch_power;
      data->devices.push_back(d);
      return d.id;
    };
    auto add_fabric_link = [&](DeviceId a, DeviceId b, BytesPerSecond bw, int count, std::string cls) {
      Link l;
      l.id = LinkId{static_cast<std::uint32_t>(data->links.size())};
      l.a = a;
      l.b = b;
      l.kind = f.link_kind;
      l.count = count;
      l.bandwidth = bw;
      l.latency = latency;
      l.resource_class = std::move(cls);
      l.fabric = true;
      data->links.push_back(std::move(l));
      return data->links.back().id;
    };
    for (std::uint32_t s = 0; s < leaf_count; ++s) {
      ft.leaf_device.push_back(add_switch(f.kind == FabricKind::single_switch ? "switch" : "leaf" + std::to_string(s), s));
    }
    if (leaf_count > 1) {
      for (std::uint32_t s = 0; s < ft.spine_count; ++s) ft.spine_device.push_back(add_switch("spine" + std::to_string(s), s));
    }
    ft.host_link_of_nic.reserve(nic_count);
    for (std::uint32_t i = 0; i < nic_count; ++i) {
      ft.host_link_of_nic.push_back(add_fabric_link(ft.nic_device[i], ft.leaf_device[ft.leaf_of_nic[i]], host_bw[i], 1, "nic"));
    }
    if (leaf_count > 1) {
      const int parallel = static_cast<int>(uplinks_per_leaf / ft.spine_count);
      ft.uplink.reserve(static_cast<std::size_t>(leaf_count) * ft.spine_count);
      for (std::uint32_t l = 0; l < leaf_count; ++l) {
        for (std::uint32_t s = 0; s < ft.spine_count; ++s) {
          ft.uplink.push_back(add_fabric_link(ft.leaf_device[l], ft.spine_device[s], uplink_bw * parallel, parallel, "network"));
        }
      }
    }
    data->fabric = f;
  } else if (fabric_) {
    data->fabric = fabric_;  // one node: the fabric is declared but carries nothing
  }

  // Packed routing data per device.
  data->routing.assign(data->devices.size(), detail::DeviceRouting{});
  for (const Node& node : data->nodes) {
    const std::uint32_t table = data->template_of_node[node.id.index];
    const detail::TemplateTables& tab = data->templates[table];
    for (std::uint32_t i = 0; i < node.device_count; ++i) {
      detail::DeviceRouting& r = data->routing[node.first_device.index + i];
      r.node = node.id.index;
      r.local = i;
      r.link_base = 2 * node.first_link.index;
      r.table = table;
      r.nic_local = tab.affinity_nic[i];
      if (r.nic_local != kNoIndex) {
        r.nic_number = ft.nic_number_of_device[node.first_device.index + r.nic_local];
        const std::size_t up = static_cast<std::size_t>(i) * tab.device_count + r.nic_local;
        const std::size_t down = static_cast<std::size_t>(r.nic_local) * tab.device_count + i;
        r.up_begin = tab.route_begin[up];
        r.up_end = tab.route_begin[up + 1];
        r.down_begin = tab.route_begin[down];
        r.down_end = tab.route_begin[down + 1];
      }
    }
  }

  // Names and the Boost graph.
  data->device_by_name.reserve(data->devices.size());
  for (const Device& d : data->devices) {
    if (!data->device_by_name.emplace(d.name, d.id.index).second) {
      throw PlatformError("platform " + quoted(name_) + ": two devices are named " + quoted(d.name) +
                          " (rename a node group or a device)");
    }
  }
  data->graph = PlatformGraph(data->devices.size());
  for (std::uint32_t i = 0; i < data->devices.size(); ++i) data->graph[i].device = DeviceId{i};
  for (const Link& l : data->links) {
    boost::add_edge(l.a.index, l.b.index, LinkEdge{forward_direction(l.id)}, data->graph);
    boost::add_edge(l.b.index, l.a.index, LinkEdge{reverse_direction(l.id)}, data->graph);
  }
  return Platform(std::move(data));
}

}  // namespace dlrmsim::topo
