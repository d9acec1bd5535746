#include "models/power.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "topologies/engine_export.hpp"

namespace dlrmsim::models {
namespace {

/// At most this many bins over the whole window (a long run gets coarser bins), so that the
/// profile stays small: bins x active devices doubles.
constexpr int kMaxBins = 400;

/// Adds `amount` spread evenly over [s, e) (picoseconds, inside the window) to the bins.
void spread(std::vector<double>& bins, double bin_ps, std::int64_t w0, std::int64_t s, std::int64_t e, double amount) {
  const double len = static_cast<double>(e - s);
  if (len <= 0.0) return;
  const double per_ps = amount / len;
  const std::size_t n = bins.size();
  std::size_t k = std::min(n - 1, static_cast<std::size_t>(static_cast<double>(s - w0) / bin_ps));
  for (; k < n; ++k) {
    const double b0 = static_cast<double>(w0) + bin_ps * static_cast<double>(k);
    const double b1 = b0 + bin_ps;
    const double lo = std::max(b0, static_cast<double>(s));
    const double hi = std::min(b1, static_cast<double>(e));
    if (hi > lo) bins[k] += per_ps * (hi - lo);
    if (b1 >= static_cast<double>(e)) break;
  }
}

struct Interval {
  std::int64_t begin;
  std::int64_t end;
};

struct DevicePowerFigures {
  double idle;     // W
  double dynamic;  // W at full activity above idle
};

}  // namespace

NodePowerLimits node_power_limits(const topo::Platform& platform, const topo::Node& node) {
  NodePowerLimits limits;
  const auto devices = platform.devices();
  for (std::uint32_t k = 0; k < node.device_count; ++k) {
    const auto& p = devices[node.first_device.index + k].power;
    if (!p.given) continue;
    limits.idle += p.idle + p.dram_idle;
    limits.max += p.max + p.dram_max;
  }
  if (node.chassis_power.given) {
    limits.idle += node.chassis_power.idle;
    limits.max += node.chassis_power.max;
  }
  return limits;
}

Watts chassis_power_at(const topo::DevicePower& chassis, Watts device_dynamic, Watts device_dynamic_max) {
  if (!chassis.given) return Watts(0.0);
  const double u = device_dynamic_max.value() > 0.0
                       ? std::clamp(device_dynamic.value() / device_dynamic_max.value(), 0.0, 1.0)
                       : 0.0;
  return chassis.idle + (chassis.max - chassis.idle) * u;
}

PowerReport estimate_power(const topo::Platform& platform, const topo::PlatformResources& res,
                           const sim::ActivityGraph& g, const sim::SimResult& r, const PowerWindow& w) {
  PowerReport rep;
  rep.pue = w.pue;
  rep.training_samples = w.training_samples;

  const auto devices = platform.devices();
  const std::size_t nd = devices.size();
  const std::int64_t w0 = w.begin_ps;
  const std::int64_t w1 = w.end_ps;
  const int nbins = std::clamp(kBinsPerStep * std::max(w.measured_steps, 1), 1, kMaxBins);
  const double bin_ps = w1 > w0 ? static_cast<double>(w1 - w0) / nbins : 0.0;
  const double bin_s = bin_ps * 1e-12;

  // Where each engine and resource belongs.
  constexpr std::uint32_t kNone = topo::kNoIndex;
  std::vector<std::uint32_t> engine_device(g.engine_count(), kNone);
  std::vector<std::uint32_t> dram_device(g.resource_count(), kNone);
  for (const auto& d : devices) {
    if (d.kind == topo::DeviceKind::gpu || d.kind == topo::DeviceKind::cpu) {
      engine_device[res.engine(d.id).index] = d.id.index;
      if (d.kind == topo::DeviceKind::cpu) dram_device[res.memory(d.id).index] = d.id.index;
    }
  }
  const auto links = platform.links();
  std::vector<double> port_capacity(nd, 0.0);  // bytes/s through a device's links, both directions
  for (const auto& l : links) {
    port_capacity[l.a.index] += 2.0 * l.bandwidth.value();
    port_capacity[l.b.index] += 2.0 * l.bandwidth.value();
  }
  const std::size_t link_resources = 2 * links.size();

  // Activity bins: engines in busy picoseconds, links and DRAM in bytes (converted below).
  std::vector<std::vector<double>> busy(nd), bytes(nd), dram(nd);
  auto bins_of = [&](std::vector<std::vector<double>>& v, std::uint32_t d) -> std::vector<double>& {
    if (v[d].empty()) v[d].assign(static_cast<std::size_t>(nbins), 0.0);
    return v[d];
  };
  if (w1 > w0) {
    std::vector<std::vector<Interval>> engine_intervals(g.engine_count());
    for (std::size_t a = 0; a < g.activity_count(); ++a) {
      const sim::ActivityId id{static_cast<std::uint32_t>(a)};
      const auto& act = g.activity(id);
      if (act.kind == sim::ActivityKind::marker) continue;
      const std::int64_t s = std::max(r.start[a].ps(), w0);
      const std::int64_t e = std::min(r.end[a].ps(), w1);
      if (e <= s) continue;
      // Work of a GPU's or socket's engine makes the device active; a copy engine's DMA
      // counts as the transfer it is.
      const std::uint32_t engine = act.engine_work() ? g.stream(sim::StreamId{act.stream}).engine.index : kNone;
      if (engine < engine_device.size() && engine_device[engine] != kNone) {
        engine_intervals[engine].push_back({s, e});
        continue;
      }
      // A transfer: its bytes inside the window, spread evenly over its duration.
      const double full = static_cast<double>(r.end[a].ps() - r.start[a].ps());
      const double inside = full > 0.0 ? act.amount * static_cast<double>(e - s) / full : 0.0;
      for (const sim::ResourceId rid : g.route(id)) {
        if (rid.index < link_resources) {
          const auto& l = links[rid.index / 2];
          spread(bins_of(bytes, l.a.index), bin_ps, w0, s, e, inside);
          spread(bins_of(bytes, l.b.index), bin_ps, w0, s, e, inside);
        } else if (rid.index < dram_device.size() && dram_device[rid.index] != kNone) {
          spread(bins_of(dram, dram_device[rid.index]), bin_ps, w0, s, e, inside);
        }
      }
    }
    for (std::size_t e = 0; e < engine_intervals.size(); ++e) {
      auto& v = engine_intervals[e];
      if (v.empty() || engine_device[e] == kNone) continue;
      std::sort(v.begin(), v.end(), [](const Interval& x, const Interval& y) { return x.begin < y.begin; });
      auto& bins = bins_of(busy, engine_device[e]);
      Interval cur = v.front();
      for (std::size_t k = 1; k <= v.size(); ++k) {
        if (k < v.size() && v[k].begin <= cur.end) {
          cur.end = std::max(cur.end, v[k].end);
          continue;
        }
        spread(bins, bin_ps, w0, cur.begin, cur.end, static_cast<double>(cur.end - cur.begin));
        if (k < v.size()) cur = v[k];
      }
    }
  }

  // Activity in [0, 1] per bin.
  auto activity = [&](std::uint32_t d) {
    std::vector<double> a;
    const auto& dev = devices[d];
    if (dev.kind == topo::DeviceKind::gpu || dev.kind == topo::DeviceKind::cpu) {
      if (busy[d].empty()) return a;
      a = busy[d];
      for (double& x : a) x = std::min(1.0, x / bin_ps);
    } else {
      if (bytes[d].empty() || port_capacity[d] <= 0.0) return a;
      a = bytes[d];
      for (double& x : a) x = std::min(1.0, x / (port_capacity[d] * bin_s));
    }
    return a;
  };
  auto dram_activity = [&](std::uint32_t d) {
    std::vector<double> a;
    if (dram[d].empty()) return a;
    const double capacity = platform.cpu_spec(devices[d].id).dram_bandwidth.value();
    a = dram[d];
    for (double& x : a) x = capacity > 0.0 ? std::min(1.0, x / (capacity * bin_s)) : 0.0;
    return a;
  };
  std::vector<std::vector<double>> act(nd), dram_act(nd);
  for (std::uint32_t d = 0; d < nd; ++d) {
    act[d] = activity(d);
    if (devices[d].kind == topo::DeviceKind::cpu) dram_act[d] = dram_activity(d);
  }

  // Representative runs: the unsimulated nodes of the representative's template take its
  // activity; fabric switches take its mean NIC activity.
  if (w.representative) {
    const auto nodes = platform.nodes();
    std::map<std::string, std::uint32_t> representative;  // template -> an active node
    auto active = [&](const topo::Node& n) {
      for (std::uint32_t k = 0; k < n.device_count; ++k) {
        if (!busy[n.first_device.index + k].empty()) return true;
      }
      return false;
    };
    for (const auto& n : nodes) {
      if (active(n)) representative.emplace(n.template_name, n.id.index);
    }
    for (const auto& n : nodes) {
      const auto it = representative.find(n.template_name);
      if (it == representative.end() || it->second == n.id.index || active(n)) continue;
      const auto& rep_node = nodes[it->second];
      for (std::uint32_t k = 0; k < n.device_count; ++k) {
        act[n.first_device.index + k] = act[rep_node.first_device.index + k];
        dram_act[n.first_device.index + k] = dram_act[rep_node.first_device.index + k];
      }
    }
    if (!representative.empty()) {
      const auto& rep_node = nodes[representative.begin()->second];
      std::vector<double> nic(static_cast<std::size_t>(nbins), 0.0);
      std::size_t count = 0;
      for (auto nid : rep_node.nics) {
        ++count;
        const auto& a = act[nid.index];
        for (std::size_t k = 0; k < a.size(); ++k) nic[k] += a[k];
      }
      if (count > 0) {
        for (double& x : nic) x /= static_cast<double>(count);
        for (const auto& d : devices) {
          if (d.kind == topo::DeviceKind::network_switch) act[d.id.index] = nic;
        }
      }
    }
  }

  // Power per device, per node, per kind and for the job.
  const std::size_t node_count = platform.nodes().size();
  const std::size_t fabric_slot = node_count;  // fabric switches
  std::vector<std::vector<double>> node_bins(node_count + 1, std::vector<double>(static_cast<std::size_t>(nbins), 0.0));
  // Per node: the devices' power above idle per bin, and its most (for the chassis' load).
  std::vector<std::vector<double>> node_dynamic(node_count, std::vector<double>(static_cast<std::size_t>(nbins), 0.0));
  std::vector<double> node_dynamic_max(node_count, 0.0);
  std::vector<NodePowerEntry> entries(node_count + 1);
  for (const auto& n : platform.nodes()) {
    entries[n.id.index].node = n.name;
    entries[n.id.index].template_name = n.template_name;
  }
  entries[fabric_slot].node = "fabric";
  std::map<std::string, KindPowerEntry> kinds;
  bool any_switch = false;
  for (std::uint32_t d = 0; d < nd; ++d) {
    const auto& dev = devices[d];
    const std::size_t slot = dev.node.index == topo::kNoIndex ? fabric_slot : dev.node.index;
    if (slot == fabric_slot) any_switch = true;
    auto& kind = kinds[std::string(topo::to_string(dev.kind))];
    kind.kind = std::string(topo::to_string(dev.kind));
    ++kind.count;
    double mean_activity = 0.0;
    for (double x : act[d]) mean_activity += x;
    kind.activity += mean_activity / nbins;
    if (!dev.power.given) {
      ++rep.devices_without_figures;
      continue;
    }
    rep.modelled = true;
    const DevicePowerFigures f{dev.power.idle.value(), dev.power.max.value() - dev.power.idle.value()};
    const double dram_idle = dev.power.dram_idle.value();
    const double dram_dyn = dev.power.dram_max.value() - dram_idle;
    auto& bins = node_bins[slot];
    double sum = 0.0;
    for (int k = 0; k < nbins; ++k) {
      const std::size_t kk = static_cast<std::size_t>(k);
      double p = f.idle + dram_idle;
      if (!act[d].empty()) p += f.dynamic * act[d][kk];
      if (!dram_act[d].empty()) p += dram_dyn * dram_act[d][kk];
      bins[kk] += p;
      sum += p;
      if (slot != fabric_slot) node_dynamic[slot][kk] += p - (f.idle + dram_idle);
    }
    if (slot != fabric_slot) node_dynamic_max[slot] += f.dynamic + dram_dyn;
    kind.average += Watts(sum / nbins);
  }
  // Chassis power, following each node's device load; limits with every device idle or at
  // its maximum.
  for (const auto& n : platform.nodes()) {
    const NodePowerLimits limits = node_power_limits(platform, n);
    entries[n.id.index].idle = limits.idle;
    entries[n.id.index].max = limits.max;
    if (!n.chassis_power.given) continue;
    rep.modelled = true;
    auto& kind = kinds["chassis"];
    kind.kind = "chassis";
    ++kind.count;
    double sum = 0.0, load = 0.0;
    for (int k = 0; k < nbins; ++k) {
      const std::size_t kk = static_cast<std::size_t>(k);
      const Watts p = chassis_power_at(n.chassis_power, Watts(node_dynamic[n.id.index][kk]),
                                       Watts(node_dynamic_max[n.id.index]));
      node_bins[n.id.index][kk] += p.value();
      sum += p.value();
      if (n.chassis_power.max > n.chassis_power.idle) {
        load += (p - n.chassis_power.idle).value() / (n.chassis_power.max - n.chassis_power.idle).value();
      }
    }
    kind.average += Watts(sum / nbins);
    kind.activity += load / nbins;
  }
  for (const auto& d : devices) {
    if (d.node.index != topo::kNoIndex || !d.power.given) continue;
    entries[fabric_slot].idle += d.power.idle;
    entries[fabric_slot].max += d.power.max;
  }
  std::vector<double> job(static_cast<std::size_t>(nbins), 0.0);
  for (std::size_t n = 0; n <= node_count; ++n) {
    if (n == fabric_slot && !any_switch) continue;
    double sum = 0.0, peak = 0.0;
    for (int k = 0; k < nbins; ++k) {
      const double p = node_bins[n][static_cast<std::size_t>(k)];
      sum += p;
      peak = std::max(peak, p);
      job[static_cast<std::size_t>(k)] += p;
    }
    entries[n].average = Watts(sum / nbins);
    entries[n].peak = Watts(peak);
    rep.nodes.push_back(entries[n]);
  }
  double job_sum = 0.0, job_peak = 0.0;
  for (double p : job) {
    job_sum += p;
    job_peak = std::max(job_peak, p);
  }
  rep.job_average = Watts(job_sum / nbins);
  rep.job_peak = Watts(job_peak);
  for (auto& [name, k] : kinds) {
    k.activity /= static_cast<double>(std::max<std::size_t>(k.count, 1));
    rep.kinds.push_back(k);
  }
  rep.facility_average = rep.job_average * w.pue;
  const Seconds step_time(static_cast<double>(w1 - w0) * 1e-12 / std::max(w.measured_steps, 1));
  rep.it_energy_per_step = rep.job_average * step_time;
  rep.energy_per_step = rep.it_energy_per_step * w.pue;
  rep.energy_per_sample = rep.energy_per_step / static_cast<double>(std::max<std::int64_t>(w.global_batch, 1));
  rep.energy_per_training_run = rep.energy_per_sample * w.training_samples;
  return rep;
}

}  // namespace dlrmsim::models
