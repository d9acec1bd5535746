#include "topologies/dot.hpp"

#include <string>

#include "topologies/platform_data.hpp"

namespace dlrmsim::topo {

namespace {

std::string shape_of(DeviceKind k) {
  switch (k) {
    case DeviceKind::gpu:
      return "box, style=filled, fillcolor=\"#b7e1a1\"";
    case DeviceKind::cpu:
      return "box, style=filled, fillcolor=\"#a1c4e1\"";
    case DeviceKind::pcie_switch:
      return "ellipse";
    case DeviceKind::nic:
      return "hexagon";
    case DeviceKind::nvswitch:
      return "diamond, style=filled, fillcolor=\"#e1d7a1\"";
    case DeviceKind::network_switch:
      return "diamond";
  }
  return "ellipse";
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

void write_dot(const Platform& platform, std::ostream& out) {
  const auto& data = platform.data();
  out << "graph \"" << escape(platform.name()) << "\" {\n  node [fontsize=10];\n  edge [fontsize=8];\n";
  for (const Node& n : platform.nodes()) {
    out << "  subgraph \"cluster_" << escape(n.name) << "\" {\n    label=\"" << escape(n.name) << " ("
        << escape(n.template_name) << ")\";\n";
    for (std::uint32_t i = 0; i < n.device_count; ++i) {
      const Device& d = data.devices[n.first_device.index + i];
      out << "    d" << d.id.index << " [label=\"" << escape(d.local_name) << "\", shape=" << shape_of(d.kind) << "];\n";
    }
    out << "  }\n";
  }
  for (const Device& d : platform.devices()) {
    if (d.node.index != kNoIndex) continue;
    out << "  d" << d.id.index << " [label=\"" << escape(d.name) << "\", shape=" << shape_of(d.kind) << "];\n";
  }
  for (const Link& l : platform.links()) {
    out << "  d" << l.a.index << " -- d" << l.b.index << " [label=\"" << to_string(l.kind);
    if (l.count > 1) out << " x" << l.count;
    out << "\\n" << format_rate(l.bandwidth) << "\"];\n";
  }
  out << "}\n";
}

}  // namespace dlrmsim::topo
