#include "app/platform_report.hpp"

#include <iomanip>
#include <map>
#include <sstream>

#include "common/json.hpp"
#include "common/text.hpp"
#include "topologies/platform_data.hpp"
#include "topologies/platform_loader.hpp"

namespace dlrmsim::app {

using namespace topo;

std::string describe_peak(const PeakRates& peak) {
  std::string out;
  for (Precision p : kAllPrecisions) {
    if (auto r = peak.get(p)) {
      if (!out.empty()) out += ", ";
      out += std::string(to_string(p)) + " " + format_flop_rate(*r);
    }
  }
  return out;
}

std::string describe_device(const Device& d) {
  std::ostringstream s;
  if (const auto* g = std::get_if<GpuSpec>(&d.spec)) {
    s << g->model << ": HBM " << format_bytes(g->hbm_capacity) << " at " << format_rate(g->hbm_bandwidth);
    if (g->sm_count > 0) s << ", " << g->sm_count << " SMs";
    if (g->nvlink_generation > 0) s << ", NVLink" << g->nvlink_generation << " x" << g->nvlink_ports;
    s << "; peak " << describe_peak(g->peak);
  } else if (const auto* c = std::get_if<CpuSocketSpec>(&d.spec)) {
    s << c->model << ": " << c->cores << " cores x " << c->threads_per_core << " threads at "
      << std::setprecision(3) << c->clock.value() / 1e9 << " GHz, DRAM " << format_bytes(c->dram_capacity) << " at "
      << format_rate(c->dram_bandwidth) << " (" << c->memory_channels << " channels), gather "
      << format_rate(c->gather_bandwidth_per_core) << " per core";
    if (c->row_profile) s << " (measured row costs scaled to " << format_seconds(c->dram_latency) << ")";
    if (const std::string peak = describe_peak(c->peak); !peak.empty()) s << "; peak " << peak;
  } else if (const auto* p = std::get_if<PcieSwitchSpec>(&d.spec)) {
    s << (p->model.empty() ? "PCIe switch" : p->model);
    if (p->generation > 0) s << " (gen" << p->generation << ")";
  } else if (const auto* n = std::get_if<NicSpec>(&d.spec)) {
    s << (n->model.empty() ? "NIC" : n->model) << ": " << format_rate(n->bandwidth) << " per direction, "
      << to_string(n->protocol);
  } else if (const auto* nv = std::get_if<NvSwitchSpec>(&d.spec)) {
    s << (nv->model.empty() ? "NVSwitch" : nv->model) << " (" << nv->chips << " chip" << (nv->chips > 1 ? "s" : "") << ")";
  } else if (const auto* sw = std::get_if<NetworkSwitchSpec>(&d.spec)) {
    s << (sw->model.empty() ? "network switch" : sw->model);
    if (sw->ports > 0) s << ", " << sw->ports << " ports";
    if (sw->port_bandwidth.value() > 0) s << " of " << format_rate(sw->port_bandwidth);
  }
  return s.str();
}

std::string platform_json(const Platform& p) {
  auto num = [](double v) { return json_number(v, 10); };
  Json doc;
  doc["name"] = p.name();
  doc["description"] = p.description();
  doc["nodes"] = p.nodes().size();
  doc["devices"] = p.devices().size();
  doc["gpus"] = p.all_gpus().size();
  doc["cpu_sockets"] = p.all_cpus().size();
  doc["links"] = p.links().size();
  Json& groups = doc["groups"] = Json::array();
  for (const NodeGroup& g : p.groups()) {
    groups.push_back({{"name", g.name}, {"template", g.template_name}, {"count", g.node_count}, {"role", g.role}});
  }
  Json& templates = doc["node_templates"] = Json::object();
  std::map<std::string, bool> shown;
  for (const Node& n : p.nodes()) {
    if (!shown.emplace(n.template_name, true).second) continue;
    Json t;
    Json& devices = t["devices"] = Json::array();
    for (std::uint32_t i = 0; i < n.device_count; ++i) {
      const Device& d = p.device(DeviceId{n.first_device.index + i});
      devices.push_back({{"name", d.local_name}, {"kind", std::string(to_string(d.kind))}, {"description", describe_device(d)}});
    }
    Json& links = t["links"] = Json::array();
    for (std::uint32_t i = 0; i < n.link_count; ++i) {
      const Link& l = p.link(LinkId{n.first_link.index + i});
      links.push_back({{"a", p.device(l.a).local_name},
                       {"b", p.device(l.b).local_name},
                       {"kind", std::string(to_string(l.kind))},
                       {"count", l.count},
                       {"bandwidth_bytes_per_s", num(l.bandwidth.value())},
                       {"latency_s", num(l.latency.value())}});
    }
    const NodeSummary s = p.node_summary(n.id);
    t["per_node"] = {{"gpus", s.gpu_count},
                     {"hbm_bytes", num(s.hbm_capacity.value())},
                     {"hbm_bandwidth_bytes_per_s", num(s.hbm_bandwidth.value())},
                     {"cpu_sockets", s.cpu_socket_count},
                     {"cpu_cores", s.cpu_cores},
                     {"dram_bytes", num(s.dram_capacity.value())},
                     {"dram_bandwidth_bytes_per_s", num(s.dram_bandwidth.value())},
                     {"nvlink_bandwidth_bytes_per_s", num(s.nvlink_bandwidth.value())},
                     {"nics", s.nic_count},
                     {"nic_bandwidth_bytes_per_s", num(s.nic_bandwidth.value())}};
    templates[n.template_name] = std::move(t);
  }
  if (const auto& f = p.fabric()) {
    doc["fabric"] = {{"kind", std::string(to_string(f->kind))},
                     {"link_kind", std::string(to_string(f->link_kind))},
                     {"oversubscription", num(f->oversubscription)}};
  }
  if (const auto bisection = p.bisection_bandwidth()) doc["bisection_bandwidth_bytes_per_s"] = num(bisection->value());
  return json_text(doc);
}

std::string platform_file_json(const std::string& path) { return platform_json(topo::load_platform(path)); }

}  // namespace dlrmsim::app
