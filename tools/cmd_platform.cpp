// dlrmsim platform FILE [--dot OUT|-] [--json OUT|-]: describe a hardware platform. The graph
// and the JSON document (app/platform_report.hpp) are written whole or not at all
// (common/files.hpp); '-' is standard output, which then carries that output alone.
#include <boost/program_options.hpp>

#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include "common/files.hpp"
#include "topologies/dot.hpp"
#include "topologies/platform_data.hpp"
#include "topologies/platform_loader.hpp"
#include "tools/commands.hpp"
#include "tools/scenario_command.hpp"
#include "app/platform_report.hpp"

namespace dlrmsim::tools {

using app::describe_device;
using app::describe_peak;
using app::platform_json;

namespace {

namespace po = boost::program_options;
using namespace topo;

void print_summary(const NodeSummary& s, std::ostream& out) {
  out << "    GPUs " << s.gpu_count << ", HBM " << format_bytes(s.hbm_capacity) << " at " << format_rate(s.hbm_bandwidth)
      << "\n    CPU sockets " << s.cpu_socket_count << " (" << s.cpu_cores << " cores), DRAM "
      << format_bytes(s.dram_capacity) << " at " << format_rate(s.dram_bandwidth)
      << "\n    NVLink " << format_rate(s.nvlink_bandwidth) << " per direction (sum over GPUs)"
      << "\n    NICs " << s.nic_count << ", " << format_rate(s.nic_bandwidth) << " per direction\n";
  if (const std::string peak = describe_peak(s.gpu_peak); !peak.empty()) out << "    GPU peak: " << peak << "\n";
}

void print_platform(const Platform& p, std::ostream& out) {
  out << "platform " << p.name();
  if (!p.source().empty()) out << " (" << p.source() << ")";
  out << "\n";
  if (!p.description().empty()) out << "  " << p.description() << "\n";
  std::size_t fabric_devices = 0, fabric_links = 0;
  for (const Device& d : p.devices()) fabric_devices += d.node.index == kNoIndex ? 1 : 0;
  for (const Link& l : p.links()) fabric_links += l.fabric ? 1 : 0;
  out << "  " << p.nodes().size() << " node(s) in " << p.groups().size() << " group(s), " << p.devices().size()
      << " devices (" << p.all_gpus().size() << " GPUs, " << p.all_cpus().size() << " CPU sockets), "
      << p.links().size() << " links (" << p.directed_link_count() << " link directions)\n\n";

  out << "node groups:\n";
  for (const NodeGroup& g : p.groups()) {
    const Node& first = p.node(g.first_node);
    const Node& last = p.node(NodeId{g.first_node.index + g.node_count - 1});
    out << "  " << g.name << ": " << g.node_count << " x " << g.template_name;
    if (!g.role.empty()) out << ", role " << g.role;
    out << "; nodes " << first.name;
    if (g.node_count > 1) out << " .. " << last.name;
    out << "\n";
  }

  // Each node template once: its devices, links and per-node figures.
  std::map<std::string, NodeId> shown;
  for (const Node& n : p.nodes()) {
    if (!shown.emplace(n.template_name, n.id).second) continue;
    out << "\nnode template " << n.template_name << " (as in node " << n.name << "):\n  devices:\n";
    // Runs of identical devices (gpu0 .. gpu7) are printed once.
    for (std::uint32_t i = 0; i < n.device_count;) {
      const Device& d = p.device(DeviceId{n.first_device.index + i});
      const std::string description = describe_device(d);
      std::uint32_t j = i + 1;
      while (j < n.device_count) {
        const Device& e = p.device(DeviceId{n.first_device.index + j});
        if (e.kind != d.kind || describe_device(e) != description) break;
        ++j;
      }
      std::string names = d.local_name;
      if (j - i > 1) names += " .. " + p.device(DeviceId{n.first_device.index + j - 1}).local_name;
      out << "    " << std::left << std::setw(16) << names << std::setw(13) << to_string(d.kind) << description;
      if (j - i > 1) out << "  (x" << (j - i) << ")";
      out << "\n";
      i = j;
    }
    out << "  links:\n";
    for (std::uint32_t i = 0; i < n.link_count; ++i) {
      const Link& l = p.link(LinkId{n.first_link.index + i});
      std::ostringstream ends;
      ends << p.device(l.a).local_name << " - " << p.device(l.b).local_name;
      std::ostringstream kind;
      kind << to_string(l.kind);
      if (l.count > 1) kind << " x" << l.count;
      out << "    " << std::left << std::setw(26) << ends.str() << std::setw(14) << kind.str() << format_rate(l.bandwidth)
          << " per direction, " << format_seconds(l.latency) << "\n";
    }
    out << "  per node:\n";
    print_summary(p.node_summary(n.id), out);
  }

  if (const auto& f = p.fabric()) {
    const auto& ft = p.data().fabric_tables;
    out << "\nfabric: " << to_string(f->kind) << " over " << to_string(f->link_kind) << ", " << ft.nic_device.size()
        << " NIC ports, " << ft.leaf_device.size() << (f->kind == FabricKind::single_switch ? " switch" : " leaves")
        << ", " << ft.spine_device.size() << " spines, " << fabric_devices << " switches and " << fabric_links
        << " links in all\n";
    if (f->kind != FabricKind::single_switch) {
      out << "  " << f->hosts_per_leaf << (f->kind == FabricKind::fat_tree ? " NIC ports" : " nodes")
          << " per leaf, oversubscription " << f->oversubscription << ":1";
      if (f->kind == FabricKind::rail_optimized) out << ", " << f->rails << " rails";
      out << "\n";
    }
    if (!ft.nic_device.empty()) {
      const Link& host = p.link(ft.host_link_of_nic.front());
      out << "  host links " << format_rate(host.bandwidth) << " per direction";
      if (!ft.uplink.empty()) out << ", leaf-spine links " << format_rate(p.link(ft.uplink.front()).bandwidth);
      out << ", " << format_seconds(host.latency) << " per link\n";
    }
  }
  if (const auto bisection = p.bisection_bandwidth()) {
    out << "  bisection bandwidth " << format_rate(*bisection) << " per direction (first half of the nodes to the second)\n";
  }
  if (p.nodes().size() > 1) {
    Bytes hbm, dram;
    BytesPerSecond nic;
    for (const Node& n : p.nodes()) {
      const NodeSummary s = p.node_summary(n.id);
      hbm += s.hbm_capacity;
      dram += s.dram_capacity;
      nic += s.nic_bandwidth;
    }
    out << "\ncluster totals: " << p.all_gpus().size() << " GPUs, HBM " << format_bytes(hbm) << ", DRAM "
        << format_bytes(dram) << ", NIC " << format_rate(nic) << " per direction\n";
  }
}

}  // namespace

int cmd_platform(const std::vector<std::string>& args) {
  po::options_description options("dlrmsim platform FILE [options]");
  std::string file, dot_path, json_path;
  options.add_options()("help,h", "describe the options")(
      "dot", po::value<std::string>(&dot_path)->value_name("PATH"), "also write the platform as a Graphviz graph to PATH ('-' for standard output)")(
      "json", po::value<std::string>(&json_path)->value_name("PATH"), "also write the platform as JSON to PATH ('-' for standard output)");
  po::options_description hidden;
  hidden.add_options()("file", po::value<std::string>(&file), "platform file");
  po::options_description all;
  all.add(options).add(hidden);
  po::positional_options_description positional;
  positional.add("file", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
  if (vm.count("help")) {
    std::cout << "Prints the nodes, devices and links of a platform file and its aggregate figures (HBM,\n"
                 "DRAM, NVLink and NIC bandwidth per node, bisection bandwidth of the cluster).\n\n"
              << options;
    return kExitOk;
  }
  po::notify(vm);
  if (file.empty()) throw std::invalid_argument("dlrmsim platform: missing the platform FILE; usage: dlrmsim platform FILE [--dot PATH] [--json PATH]");
  check_outputs(given_outputs(vm, {{"--dot", "dot"}, {"--json", "json"}}), {file});
  const Platform platform = load_platform(file);
  // Standard output carries the description, unless the graph or the JSON goes there instead.
  if (dot_path != "-" && json_path != "-") print_platform(platform, std::cout);
  for (const std::string& line : unreachable_devices(platform)) {
    std::cerr << "warning: " << file << ": " << line << "; a job placed there cannot move its data\n";
  }
  if (!dot_path.empty()) {
    std::ostringstream dot;
    write_dot(platform, dot);
    write_output_file(dot_path, dot.str());
    if (dot_path != "-" && json_path != "-") std::cout << "\nwrote " << dot_path << "\n";
  }
  if (!json_path.empty()) {
    write_output_file(json_path, platform_json(platform));
    if (json_path != "-" && dot_path != "-") std::cout << "\nwrote " << json_path << "\n";
  }
  return kExitOk;
}

}  // namespace dlrmsim::tools
