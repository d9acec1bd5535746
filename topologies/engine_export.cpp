#include "topologies/engine_export.hpp"

#include "topologies/platform_data.hpp"

namespace dlrmsim::topo {

PlatformResources export_platform(const Platform& platform, sim::ActivityGraph& graph) {
  PlatformResources res;
  res.platform_ = platform;
  const auto& data = platform.data();
  res.first_link_resource_ = static_cast<std::uint32_t>(graph.resource_count());
  for (const Link& l : data.links) {
    const std::string& a = data.devices[l.a.index].name;
    const std::string& b = data.devices[l.b.index].name;
    const sim::ResourceId forward = graph.add_resource(a + "->" + b, l.bandwidth, l.latency, l.resource_class);
    const sim::ResourceId backward = graph.add_resource(b + "->" + a, l.bandwidth, l.latency, l.resource_class);
    // Directed link ids are 2 x link + direction: the resources must follow that order.
    if (forward.index != res.first_link_resource_ + forward_direction(l.id).index ||
        backward.index != res.first_link_resource_ + reverse_direction(l.id).index) {
      throw PlatformError("export_platform: the activity graph handed out resource ids out of order");
    }
  }
  res.engine_of_device_.assign(data.devices.size(), kNoIndex);
  res.memory_of_device_.assign(data.devices.size(), kNoIndex);
  res.sms_of_device_.assign(data.devices.size(), kNoIndex);
  for (const Device& d : data.devices) {
    if (const auto* g = std::get_if<GpuSpec>(&d.spec)) {
      res.engine_of_device_[d.id.index] = graph.add_engine(d.name, "gpu").index;
      res.memory_of_device_[d.id.index] = graph.add_resource(d.name + ".hbm", g->hbm_bandwidth, Seconds(0.0), "hbm").index;
      if (g->sm_count > 0) res.sms_of_device_[d.id.index] = graph.add_cores(d.name + ".sms", g->sm_count, "sms").index;
    } else if (const auto* c = std::get_if<CpuSocketSpec>(&d.spec)) {
      res.engine_of_device_[d.id.index] = graph.add_engine(d.name, "cpu").index;
      res.memory_of_device_[d.id.index] = graph.add_resource(d.name + ".dram", c->dram_bandwidth, Seconds(0.0), "dram").index;
    }
  }
  return res;
}

sim::EngineId PlatformResources::engine(DeviceId d) const {
  const Device& dev = platform_.device(d);
  const std::uint32_t e = engine_of_device_[d.index];
  if (e == kNoIndex) throw PlatformError("device '" + dev.name + "' (" + std::string(to_string(dev.kind)) + ") has no compute engine");
  return sim::EngineId{e};
}

sim::ResourceId PlatformResources::memory(DeviceId d) const {
  const Device& dev = platform_.device(d);
  const std::uint32_t m = memory_of_device_[d.index];
  if (m == kNoIndex) throw PlatformError("device '" + dev.name + "' (" + std::string(to_string(dev.kind)) + ") has no memory");
  return sim::ResourceId{m};
}

std::optional<sim::ResourceId> PlatformResources::sms(DeviceId d) const {
  (void)platform_.device(d);
  const std::uint32_t m = sms_of_device_[d.index];
  if (m == kNoIndex) return std::nullopt;
  return sim::ResourceId{m};
}

void PlatformResources::append_route_resources(DeviceId a, DeviceId b, std::vector<sim::ResourceId>& out) const {
  (void)platform_.device(a);
  (void)platform_.device(b);
  const std::size_t start = out.size();
  const std::uint32_t offset = first_link_resource_;
  try {
    detail::for_each_route_link(platform_.data(), a, b,
                                [&](DirectedLinkId d) { out.push_back(sim::ResourceId{offset + d.index}); });
  } catch (...) {
    out.resize(start);
    throw;
  }
}

std::vector<sim::ResourceId> PlatformResources::route_resources(DeviceId a, DeviceId b) const {
  std::vector<sim::ResourceId> out;
  append_route_resources(a, b, out);
  return out;
}

}  // namespace dlrmsim::topo
