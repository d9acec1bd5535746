#include "topologies/platform_loader.hpp"
#include "common/data_paths.hpp"
#include "common/files.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <map>
#include <set>

#include "topologies/cpu_profile.hpp"
#include "topologies/cpu_row_cost.hpp"
#include "topologies/platform_builder.hpp"

namespace dlrmsim::topo {

namespace {

/// A choice key read as platform_parameters() declares it: its key, its choices (the range)
/// and, when it has one, its default, written once in the table.
std::string choice(const ConfigNode& node, std::string_view key_path) {
  const Parameter& p = declared(platform_parameters(), key_path);
  if (p.default_value == "required") return node.get_choice(parameter_key(p), parameter_choices(p));
  return node.get_choice_or(parameter_key(p), parameter_choices(p), std::string(p.default_value));
}

/// `peak_flops: {fp32: 67 TFLOP/s, bf16: 989 TFLOP/s}`: keys must be precision names.
PeakRates read_peak_rates(const ConfigNode& node) {
  PeakRates rates;
  const auto allowed = kPrecisionNames.words();
  for (const auto& [key, value] : node.entries()) {
    const auto p = precision_from_string(key);
    if (!p) {
      std::string msg = "unknown precision '" + key + "'; expected one of fp64, fp32, tf32, bf16, fp16, fp8, int8";
      if (auto guess = did_you_mean(key, allowed)) msg += "; did you mean '" + *guess + "'?";
      value.fail(msg);
    }
    const auto r = value.as<FlopsPerSecond>();
    value.check_positive(r.value(), false);
    rates.set(*p, r);
  }
  return rates;
}

/// Reads the keys of one mapping, deferring "missing required key" until every key has been
/// asked for, so that a misspelt key ("hbm_bandwith") is reported as such, with its "did you
/// mean", rather than as the required key being absent.
class MappingReader {
 public:
  explicit MappingReader(const ConfigNode& node) : node_(node) {}

  /// A required value that must be > 0 (>= 0 with allow_zero).
  template <class T>
  T positive(std::string_view key, bool allow_zero = false) {
    if (!node_.has(key)) {
      if (missing_.empty()) missing_ = std::string(key);
      return T{};
    }
    return node_.get_positive<T>(key, allow_zero);
  }
  template <class T>
  T required(std::string_view key) {
    if (!node_.has(key)) {
      if (missing_.empty()) missing_ = std::string(key);
      return T{};
    }
    return node_.get<T>(key);
  }
  /// Rejects unknown keys (with "did you mean"), then the first missing required key.
  void finish() const {
    node_.finish();
    if (!missing_.empty()) node_.fail("missing required key '" + missing_ + "'");
  }

 private:
  const ConfigNode& node_;
  std::string missing_;
};

std::string resolve_path(const std::string& path, const ConfigNode& relative_to);

/// A CPU socket's `nvme: {model, count, capacity, ...}` (devices.hpp NvmeSpec).
NvmeSpec read_nvme(const ConfigNode& n) {
  MappingReader r(n);
  NvmeSpec s;
  s.model = r.required<std::string>("model");
  s.count = n.get_positive_or<int>("count", 1);
  s.capacity = r.positive<Bytes>("capacity");
  s.sequential_read = r.positive<BytesPerSecond>("sequential_read");
  s.sequential_write = r.positive<BytesPerSecond>("sequential_write");
  s.random_read_iops = r.positive<double>("random_read_iops");
  s.random_read = n.get_positive_or<BytesPerSecond>("random_read", s.sequential_read);
  s.read_latency = n.get_positive_or<Seconds>("read_latency", Seconds(0.0));
  s.queue_depth = n.get_positive_or<int>("queue_depth", 0, true);
  s.page_size = n.get_positive_or<Bytes>("page_size", s.page_size);
  r.finish();
  return s;
}

/// A CPU socket's `cxl: {model, count, capacity, bandwidth, load_latency}` (CxlMemorySpec).
CxlMemorySpec read_cxl(const ConfigNode& n) {
  MappingReader r(n);
  CxlMemorySpec s;
  s.model = r.required<std::string>("model");
  s.count = n.get_positive_or<int>("count", 1);
  s.capacity = r.positive<Bytes>("capacity");
  s.bandwidth = r.positive<BytesPerSecond>("bandwidth");
  s.load_latency = r.positive<Seconds>("load_latency");
  r.finish();
  return s;
}

DeviceSpec read_device_spec(const ConfigNode& d, DeviceKind kind, MappingReader& r, DeviceProfileFiles* files,
                            std::vector<std::string>& read) {
  switch (kind) {
    case DeviceKind::gpu: {
      GpuSpec g;
      g.model = r.required<std::string>("model");
      g.hbm_capacity = r.positive<Bytes>("hbm_capacity");
      g.hbm_bandwidth = r.positive<BytesPerSecond>("hbm_bandwidth");
      if (d.has("peak_flops")) {
        g.peak = read_peak_rates(d.child("peak_flops"));
      } else {
        r.required<std::string>("peak_flops");
      }
      g.sm_count = d.get_positive_or<int>("sm_count", 0, true);
      if (auto nv = d.optional_child("nvlink")) {
        g.nvlink_generation = nv->get_positive<int>("generation");
        g.nvlink_ports = nv->get_positive<int>("ports");
        nv->finish();
      }
      return g;
    }
    case DeviceKind::cpu: {
      CpuSocketSpec c;
      c.model = r.required<std::string>("model");
      c.cores = r.positive<int>("cores");
      c.threads_per_core = d.get_positive_or<int>("threads_per_core", 1);
      c.clock = r.positive<Hertz>("clock");
      c.dram_capacity = r.positive<Bytes>("dram_capacity");
      c.dram_bandwidth = r.positive<BytesPerSecond>("dram_bandwidth");
      c.memory_channels = r.positive<int>("memory_channels");
      c.dram_latency = d.get_positive_or<Seconds>("dram_latency", Seconds(0.0));
      if (auto p = d.optional_child("peak_flops")) c.peak = read_peak_rates(*p);
      // A CPU profile named by `key` (a path relative to this file).
      const auto load_profile = [&](const ConfigNode& key) {
        const std::string path = resolve_path(key.as<std::string>(), key);
        if (!regular_file_exists(path)) key.fail("cannot open '" + path + "'; expected a CPU profile file, relative to this file");
        read.push_back(path);
        try {
          return files ? files->load_cpu(path) : std::make_shared<const CpuProfile>(load_cpu_profile(path));
        } catch (const ConfigError& e) {
          key.fail(std::string("not a CPU profile: ") + e.what());
        }
      };
      if (d.has("profile")) {
        const ConfigNode key = d.child("profile");
        auto profile = load_profile(key);
        if (!(profile->peak_per_core.value() > 0.0)) {
          key.fail("the profile gives no gemm_fp32.peak_per_core: its GEMM rates cannot be scaled to this CPU");
        }
        if (!c.peak.get(Precision::fp32)) key.fail("a CPU profile scales to the socket's peak: give peak_flops.fp32");
        c.profile = std::move(profile);
      }
      if (d.has("row_profile")) {
        // One core's row rates from a measured profile, carried to this socket by the ratio of
        // DRAM latencies (topologies/cpu_row_cost.hpp); gather_bandwidth_per_core is derived.
        const ConfigNode key = d.child("row_profile");
        if (d.has("gather_bandwidth_per_core")) {
          d.child("gather_bandwidth_per_core").fail("give either gather_bandwidth_per_core or row_profile, not both");
        }
        if (!(c.dram_latency.value() > 0.0)) key.fail("a row profile is scaled to the socket's DRAM latency: give dram_latency");
        auto profile = load_profile(key);
        if (!(profile->dram_latency.value() > 0.0)) {
          key.fail("the profile gives no dram_latency (measure it with dlrmsim-calibrate --cpu): its row rates cannot "
                   "be carried to this CPU");
        }
        c.row_profile = std::move(profile);
        c.gather_bandwidth_per_core =
            kCpuCacheLine / CoreRowCosts::scaled(c.row_profile, c.dram_latency).gather(kCpuCacheLine);
      } else {
        c.gather_bandwidth_per_core = r.positive<BytesPerSecond>("gather_bandwidth_per_core");
      }
      if (auto n = d.optional_child("nvme")) c.nvme = read_nvme(*n);
      if (auto x = d.optional_child("cxl")) c.cxl = read_cxl(*x);
      return c;
    }
    case DeviceKind::pcie_switch: {
      PcieSwitchSpec s;
      s.model = d.get_or<std::string>("model", "");
      s.generation = d.get_positive_or<int>("generation", 0, true);
      s.lanes = d.get_positive_or<int>("lanes", 0, true);
      return s;
    }
    case DeviceKind::nic: {
      NicSpec n;
      n.model = d.get_or<std::string>("model", "");
      n.bandwidth = r.positive<BytesPerSecond>("bandwidth");
      n.ports = d.get_positive_or<int>("ports", 1);
      const std::string protocol = choice(d, "platform.node_templates.*.devices.*.protocol");
      n.protocol = kNetworkProtocolNames.parse(protocol).value();  // a declared choice
      return n;
    }
    case DeviceKind::nvswitch: {
      NvSwitchSpec s;
      s.model = d.get_or<std::string>("model", "");
      s.generation = d.get_positive_or<int>("generation", 0, true);
      s.ports = d.get_positive_or<int>("ports", 0, true);
      s.chips = d.get_positive_or<int>("chips", 1);
      return s;
    }
    case DeviceKind::network_switch: {
      NetworkSwitchSpec s;
      s.model = d.get_or<std::string>("model", "");
      s.ports = d.get_positive_or<int>("ports", 0, true);
      s.port_bandwidth = r.positive<BytesPerSecond>("port_bandwidth");
      return s;
    }
  }
  d.fail("unsupported device kind");
}

DeviceKind read_device_kind(const ConfigNode& d) {
  const ConfigNode k = d.child("kind");
  const auto name = k.as<std::string>();
  const auto kind = device_kind_from_string(name);
  if (!kind) {
    const auto allowed = kDeviceKindNames.words();
    std::string msg = "unknown device kind '" + name + "'; expected one of gpu, cpu, pcie_switch, nic, nvswitch, network_switch";
    if (auto guess = did_you_mean(name, allowed)) msg += "; did you mean '" + *guess + "'?";
    k.fail(msg);
  }
  return *kind;
}

LinkKind read_link_kind(const ConfigNode& node, std::string_view key) {
  const ConfigNode k = node.child(key);
  const auto name = k.as<std::string>();
  const auto kind = link_kind_from_string(name);
  if (!kind) {
    const auto allowed = kLinkKindNames.words();
    std::string msg = "unknown link kind '" + name + "'; expected one of";
    for (const auto& a : allowed) msg += " " + a;
    if (auto guess = did_you_mean(name, allowed)) msg += "; did you mean '" + *guess + "'?";
    k.fail(msg);
  }
  return *kind;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

/// Resolves a device selector ("gpu3", "gpu*", "gpu[0-3]") or a list of them to template
/// device indices, in order. Errors name the selector and list near misses.
std::vector<std::uint32_t> select_devices(const ConfigNode& sel, const NodeTemplate& t) {
  std::vector<std::string> texts;
  if (sel.is_sequence()) {
    for (const ConfigNode& e : sel.elements()) texts.push_back(e.as<std::string>());
  } else {
    texts.push_back(sel.as<std::string>());
  }
  std::vector<std::string> all_names;
  for (const auto& d : t.devices) all_names.push_back(d.name);
  std::vector<std::uint32_t> out;
  for (const std::string& text : texts) {
    const std::size_t before = out.size();
    if (!text.empty() && text.back() == '*') {
      const std::string stem = text.substr(0, text.size() - 1);
      for (std::uint32_t i = 0; i < t.devices.size(); ++i) {
        const std::string& n = t.devices[i].name;
        if (n == stem || (n.size() > stem.size() && n.compare(0, stem.size(), stem) == 0 &&
                          all_digits(std::string_view(n).substr(stem.size())))) {
          out.push_back(i);
        }
      }
    } else if (const auto open = text.find('['); open != std::string::npos && text.back() == ']') {
      const std::string stem = text.substr(0, open);
      const std::string range = text.substr(open + 1, text.size() - open - 2);
      const auto dash = range.find('-');
      int lo = 0, hi = -1;
      const auto number = [](std::string_view digits, int& out) {
        const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
        return ec == std::errc() && end == digits.data() + digits.size();
      };
      const bool ok = dash != std::string::npos && all_digits(range.substr(0, dash)) && all_digits(range.substr(dash + 1));
      const bool fits = ok && number(std::string_view(range).substr(0, dash), lo) &&
                        number(std::string_view(range).substr(dash + 1), hi);
      if (!ok || (fits && hi < lo)) sel.fail("bad device range '" + text + "'; expected a form like 'gpu[0-3]'");
      if (!fits || static_cast<std::int64_t>(hi) - lo >= kMaxTemplateDevices) {
        sel.fail("device range '" + text + "' names more than " + std::to_string(kMaxTemplateDevices) +
                 " devices, more than a node template can have");
      }
      for (int k = lo; k <= hi; ++k) {
        const auto i = t.find(stem + std::to_string(k));
        if (!i) {
          sel.fail("link to a device that does not exist: '" + stem + std::to_string(k) + "' (from '" + text +
                   "') is not a device of node template '" + t.name + "'");
        }
        out.push_back(*i);
      }
    } else if (auto i = t.find(text)) {
      out.push_back(*i);
    }
    if (out.size() == before) {
      std::string msg = "link to a device that does not exist: no device of node template '" + t.name +
                        "' matches '" + text + "'";
      if (auto guess = did_you_mean(text, all_names)) msg += "; did you mean '" + *guess + "'?";
      msg += "; expected a device name ('gpu0'), 'name*' or 'name[first-last]'";
      sel.fail(msg);
    }
  }
  return out;
}

void read_link(const ConfigNode& l, NodeTemplate& t) {
  const LinkKind kind = read_link_kind(l, "kind");
  const int count = l.get_positive_or<int>("count", 1);
  const auto bandwidth = l.has("bandwidth") ? std::optional(l.get_positive<BytesPerSecond>("bandwidth")) : std::nullopt;
  const auto latency = l.has("latency") ? std::optional(l.get_positive<Seconds>("latency", true)) : std::nullopt;
  if (!bandwidth && !link_kind_info(kind).bandwidth) {
    l.fail("a " + std::string(to_string(kind)) + " link needs a 'bandwidth' per direction, such as '100 Gbit/s'");
  }
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
  if (l.has("between")) {
    const ConfigNode between = l.child("between");
    if (!between.is_sequence() || between.yaml().size() != 2) {
      between.fail("expected a list of two device names, such as [gpu0, gpu1]");
    }
    const auto ends = between.elements();
    const auto a = select_devices(ends[0], t);
    const auto b = select_devices(ends[1], t);
    if (a.size() != 1 || b.size() != 1) between.fail("'between' joins exactly two devices; use from/to for patterns");
    pairs.emplace_back(a[0], b[0]);
  } else {
    if (!l.has("from") || !l.has("to")) l.fail("a link needs either 'between: [a, b]' or both 'from' and 'to'");
    const auto from = select_devices(l.child("from"), t);
    const auto to = select_devices(l.child("to"), t);
    const std::string pattern = choice(l, "platform.node_templates.*.links.*.pattern");
    if (pattern == "all") {
      for (auto a : from) {
        for (auto b : to) pairs.emplace_back(a, b);
      }
    } else {
      const std::size_t f = from.size(), n = to.size();
      if ((f >= n && f % n != 0) || (f < n && n % f != 0)) {
        l.fail("pattern 'block' needs one list's length to be a multiple of the other's (" + std::to_string(f) +
               " 'from' devices, " + std::to_string(n) + " 'to' devices); use pattern: all or explicit links");
      }
      if (f >= n) {
        for (std::size_t i = 0; i < f; ++i) pairs.emplace_back(from[i], to[i * n / f]);
      } else {
        for (std::size_t j = 0; j < n; ++j) pairs.emplace_back(from[j * f / n], to[j]);
      }
    }
  }
  if (static_cast<std::int64_t>(t.links.size() + pairs.size()) > kMaxTemplateLinks) {
    l.fail("node template '" + t.name + "' would have " + std::to_string(t.links.size() + pairs.size()) +
           " links; a node template has at most " + std::to_string(kMaxTemplateLinks));
  }
  try {
    for (auto [a, b] : pairs) t.add_link(a, b, kind, count, bandwidth, latency);
  } catch (const PlatformError& e) {
    l.fail(e.what());
  }
  if (link_kind_info(kind).resource_class == "nvlink") {
    if (auto mixed = t.mixed_scale_up_domain()) l.fail(*mixed);
  }
  l.finish();
}

/// `power: {idle: 70 W, max: 700 W}` (a CPU socket may add `dram_idle`, `dram_max`).
DevicePower read_device_power(const ConfigNode& p, bool cpu) {
  DevicePower power;
  power.given = true;
  power.idle = read_watts(p.child("idle"));
  power.max = read_watts(p.child("max"));
  if (power.max < power.idle) p.child("max").fail("the maximum power is below the idle power");
  if (cpu) {
    if (auto d = p.optional_child("dram_idle")) power.dram_idle = read_watts(*d);
    if (auto d = p.optional_child("dram_max")) power.dram_max = read_watts(*d);
    if (power.dram_max < power.dram_idle) p.child("dram_max").fail("the DRAM maximum power is below its idle power");
  }
  p.finish();
  return power;
}

/// `price: {per_hour: 98.32 USD/h, read: 2023-07-26, region: us-east-1, source: "..."}` (a
/// cloud list price per node-hour) or `price: {purchase: 300000 USD, years: 4, source: "..."}`.
NodePrice read_node_price(const ConfigNode& p) {
  NodePrice price;
  const bool cloud = p.has("per_hour");
  const bool owned = p.has("purchase");
  if (cloud == owned) {
    p.fail("expected either 'per_hour' (a cloud list price such as '98.32 USD/h') or 'purchase' (an owned node's "
           "price such as '300000 USD', with 'years' of amortisation)");
  }
  if (cloud) {
    const ConfigNode c = p.child("per_hour");
    const Price v = read_price(c);
    if (v.unit != PriceUnit::per_hour) c.fail("expected a price per hour of use, such as '98.32 USD/h'");
    price.kind = NodePrice::Kind::cloud;
    price.per_hour = Money{v.amount, v.currency};
    price.read = p.get<std::string>("read");
    price.region = p.get<std::string>("region");
  } else {
    const ConfigNode c = p.child("purchase");
    const Price v = read_price(c);
    if (v.unit != PriceUnit::amount) c.fail("expected a purchase price without a time unit, such as '300000 USD'");
    price.kind = NodePrice::Kind::owned;
    price.purchase = Money{v.amount, v.currency};
    price.years = p.get_positive<double>("years");
    if (price.years > 100.0) p.child("years").fail("an amortisation period of at most 100 years is expected");
  }
  price.source = p.get<std::string>("source");
  p.finish();
  return price;
}

NodeTemplate read_template_body(const std::string& name, const ConfigNode& node, DeviceProfileFiles* files) {
  NodeTemplate t;
  t.name = name;
  for (const ConfigNode& d : node.child("devices").elements()) {
    const auto device_name = d.get<std::string>("name");
    const DeviceKind kind = read_device_kind(d);
    const int count = d.has("count") ? d.get_positive<int>("count") : 0;
    const std::int64_t adding = std::max(count, 1);
    if (static_cast<std::int64_t>(t.devices.size()) + adding > kMaxTemplateDevices) {
      (d.has("count") ? d.child("count") : d)
          .fail("node template '" + name + "' would have " + std::to_string(t.devices.size() + adding) +
                " devices; a node template has at most " + std::to_string(kMaxTemplateDevices) +
                " (dlrmsim keeps a route between every pair of a node's devices); describe a cluster with "
                "cluster.groups instead");
    }
    MappingReader reader(d);
    const DeviceSpec spec = read_device_spec(d, kind, reader, files, t.files);
    const DevicePower power =
        d.has("power") ? read_device_power(d.child("power"), kind == DeviceKind::cpu) : DevicePower{};
    reader.finish();
    try {
      if (count == 0) {
        t.add_device(device_name, spec, power);
      } else {
        for (int i = 0; i < count; ++i) t.add_device(device_name + std::to_string(i), spec, power);
      }
    } catch (const PlatformError& e) {
      d.fail(e.what());
    }
  }
  if (auto links = node.optional_child("links")) {
    for (const ConfigNode& l : links->elements()) read_link(l, t);
  }
  if (auto p = node.optional_child("price")) t.price = read_node_price(*p);
  if (auto p = node.optional_child("chassis_power")) t.chassis_power = read_device_power(*p, false);
  node.finish();
  return t;
}

std::string resolve_path(const std::string& path, const ConfigNode& relative_to) {
  // Relative to the referring file, then in the data roots (a platform copied into
  // DLRMSIM_DATA still finds the shipped profiles its `../calibration/...` names).
  return resolve_data_path(path, relative_to.source_dir(), data_search_path());
}

NodeTemplate read_template(const std::string& name, const ConfigNode& node, int depth, DeviceProfileFiles* files);

/// `{from_file: other.yaml, template: name, set: ["devices.0.hbm_capacity=32 GiB"]}`.
NodeTemplate read_template_from_file(const std::string& name, const ConfigNode& node, int depth,
                                     DeviceProfileFiles* files) {
  if (depth > 8) node.fail("from_file chain is more than 8 files deep (a cycle?)");
  const std::string path = resolve_path(node.get<std::string>("from_file"), node);
  if (!regular_file_exists(path)) {
    node.child("from_file").fail("cannot open '" + path + "'; expected a platform file path, relative to this file");
  }
  const ConfigNode file = ConfigNode::load_file(path).recording_into(node.key_log(), "platform.");
  const ConfigNode templates = file.child("node_templates");
  auto entries = templates.entries();
  std::optional<ConfigNode> chosen;
  if (node.has("template")) {
    const auto wanted = node.get<std::string>("template");
    std::vector<std::string> names;
    for (auto& [k, v] : entries) {
      names.push_back(k);
      if (k == wanted) chosen = v;
    }
    if (!chosen) {
      std::string msg = "node template '" + wanted + "' is not in " + path;
      if (auto guess = did_you_mean(wanted, names)) msg += "; did you mean '" + *guess + "'?";
      node.child("template").fail(msg);
    }
  } else {
    if (entries.size() != 1) {
      node.fail(path + " has " + std::to_string(entries.size()) + " node templates; say which with 'template:'");
    }
    chosen = entries.front().second;
  }
  ConfigNode body = *chosen;
  if (auto set = node.optional_child("set")) {
    YAML::Node copy = YAML::Clone(chosen->yaml());
    std::vector<OverrideOrigin> origins;
    for (const ConfigNode& assignment : set->elements()) {
      const auto text = assignment.as<std::string>();
      try {
        const Override o = parse_override(text);
        origins.push_back({chosen->path() + "." + apply_override(copy, o), assignment.where() + " '" + text + "'", ""});
      } catch (const ConfigError& e) {
        assignment.fail(e.what());
      }
    }
    body = ConfigNode(copy, path, chosen->path(), origins).recording_into(node.key_log(), "platform.");
  }
  node.finish();
  NodeTemplate t = read_template(name, body, depth + 1, files);
  t.files.insert(t.files.begin(), path);
  return t;
}

NodeTemplate read_template(const std::string& name, const ConfigNode& node, int depth, DeviceProfileFiles* files) {
  if (node.has("from_file")) return read_template_from_file(name, node, depth, files);
  return read_template_body(name, node, files);
}

// The most host ports of one leaf switch and the most spine switches a fabric may have: 4096
// each. The largest switches have a few hundred ports; the fabric's uplinks (one per host
// port of a leaf, by default one spine each) and switches are built one by one, so an
// unbounded count here is memory without bound.
constexpr int kMaxFabricPorts = 4096;

int fabric_count(const ConfigNode& f, std::string_view key, bool allow_zero) {
  const auto c = f.child(key);
  const int v = f.get_positive<int>(key, allow_zero);
  if (v > kMaxFabricPorts) {
    c.fail("value " + std::to_string(v) + " is too large; expected at most " + std::to_string(kMaxFabricPorts) +
           " (a leaf switch has at most a few hundred ports, and the fabric builds one uplink and spine per port)");
  }
  return v;
}

FabricSpec read_fabric(const ConfigNode& f) {
  FabricSpec spec;
  const std::string kind = choice(f, "platform.cluster.fabric.kind");
  spec.kind = *fabric_kind_from_string(kind);
  spec.link_kind = *link_kind_from_string(choice(f, "platform.cluster.fabric.link_kind"));  // ethernet | infiniband
  if (f.has("host_link_bandwidth")) spec.host_link_bandwidth = f.get_positive<BytesPerSecond>("host_link_bandwidth");
  if (f.has("link_latency")) spec.link_latency = f.get_positive<Seconds>("link_latency", true);
  if (auto s = f.optional_child("switch")) {
    spec.switch_spec.model = s->get_or<std::string>("model", "");
    spec.switch_spec.ports = s->get_positive_or<int>("ports", 0, true);
    spec.switch_spec.port_bandwidth = s->get_positive<BytesPerSecond>("port_bandwidth");
    if (auto p = s->optional_child("power")) spec.switch_power = read_device_power(*p, false);
    s->finish();
  }
  if (spec.kind != FabricKind::single_switch) {
    if (f.has("uplink_bandwidth")) spec.uplink_bandwidth = f.get_positive<BytesPerSecond>("uplink_bandwidth");
    spec.hosts_per_leaf = fabric_count(f, spec.kind == FabricKind::fat_tree ? "hosts_per_leaf" : "nodes_per_leaf", false);
    spec.oversubscription = f.get_positive_or<double>("oversubscription", 1.0);
    if (spec.oversubscription < 1.0) {
      f.child("oversubscription").fail("oversubscription is a downlink:uplink ratio and must be at least 1");
    }
    spec.spines = f.has("spines") ? fabric_count(f, "spines", true) : 0;
    if (spec.kind == FabricKind::rail_optimized) spec.rails = f.get_positive_or<int>("rails", 0, true);
  }
  f.finish();
  return spec;
}

}  // namespace

Platform load_platform(const ConfigNode& node, DeviceProfileFiles* profile_files) {
  const auto name = node.get<std::string>("name");
  const auto description = node.get_or<std::string>("description", "");
  PlatformBuilder builder(name, description, node.source());
  const ConfigNode templates = node.child("node_templates");
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> template_size;  // devices, links
  for (const auto& [tname, tnode] : templates.entries()) {
    try {
      NodeTemplate t = read_template(tname, tnode, 0, profile_files);
      template_size[tname] = {static_cast<std::int64_t>(t.devices.size()), static_cast<std::int64_t>(t.links.size())};
      builder.add_template(std::move(t));
    } catch (const PlatformError& e) {
      tnode.fail(e.what());
    }
  }
  std::optional<ConfigNode> cluster = node.optional_child("cluster");
  if (cluster) {
    const ConfigNode groups = cluster->child("groups");
    if (groups.is_sequence() && groups.yaml().size() == 0) {
      groups.fail("an empty list of node groups; give at least one {name, template, count}, or leave out the "
                  "cluster section for a platform of one node");
    }
    std::int64_t devices = 0, links = 0;
    for (const ConfigNode& g : groups.elements()) {
      const auto gname = g.get<std::string>("name");
      const auto tname = g.get<std::string>("template");
      const int count = g.get_positive<int>("count");
      const auto role = g.get_or<std::string>("role", "");
      g.finish();
      if (const auto size = template_size.find(tname); size != template_size.end()) {
        devices += count * size->second.first;
        links += count * size->second.second;
        if (devices > kMaxPlatformDevices || links > kMaxPlatformLinks) {
          g.child("count").fail(std::to_string(count) + " nodes of template '" + tname + "' bring the platform to " +
                                std::to_string(devices) + " devices and " + std::to_string(links) +
                                " links; a platform has at most " + std::to_string(kMaxPlatformDevices) +
                                " devices and " + std::to_string(kMaxPlatformLinks) +
                                " links (memory: about 10 kB per simulated GPU)");
        }
      }
      try {
        builder.add_group(gname, tname, count, role);
      } catch (const PlatformError& e) {
        std::vector<std::string> names;
        for (const auto& [k, v] : templates.entries()) names.push_back(k);
        std::string msg = e.what();
        if (auto guess = did_you_mean(tname, names); guess && *guess != tname) msg += "; did you mean '" + *guess + "'?";
        g.fail(msg);
      }
    }
    if (auto f = cluster->optional_child("fabric")) builder.set_fabric(read_fabric(*f));
    cluster->finish();
  }
  if (auto st = node.optional_child("storage")) {
    StorageSpec storage;
    if (st->has("checkpoint_bandwidth")) storage.checkpoint_bandwidth = st->get_positive<BytesPerSecond>("checkpoint_bandwidth");
    storage.dataset_read_latency = st->get_positive_or<Seconds>("dataset_read_latency", Seconds(0.0), true);
    storage.description = st->get_or<std::string>("description", "");
    st->finish();
    builder.set_storage(std::move(storage));
  }
  node.finish();
  try {
    return std::move(builder).build();
  } catch (const PlatformError& e) {
    (cluster ? *cluster : node).fail(e.what());
  }
}

std::vector<std::string> unreachable_devices(const Platform& platform) {
  std::vector<std::string> out;
  std::set<std::string> templates_seen;
  for (const Node& node : platform.nodes()) {
    if (!templates_seen.insert(node.template_name).second) continue;  // nodes of a template are alike
    std::vector<DeviceId> ends(node.gpus.begin(), node.gpus.end());
    ends.insert(ends.end(), node.cpus.begin(), node.cpus.end());
    for (DeviceId a : ends) {
      std::string missing;
      for (DeviceId b : ends) {
        if (a == b) continue;
        try {
          (void)platform.route(a, b);
        } catch (const PlatformError&) {
          missing += (missing.empty() ? "" : ", ") + platform.device(b).local_name;
        }
      }
      if (!missing.empty()) {
        out.push_back("node template '" + node.template_name + "': " + platform.device(a).local_name +
                      " has no path of links to " + missing);
      }
    }
  }
  return out;
}

Platform load_platform(const std::string& path) { return load_platform(ConfigNode::load_file(path)); }

Platform load_platform_reference(const ConfigNode& node) {
  if (node.is_scalar()) return load_platform(resolve_path(node.as<std::string>(), node));
  if (!node.is_map()) node.fail("expected a platform file path or an inline platform mapping");
  return load_platform(node);
}

}  // namespace dlrmsim::topo
