#include "app/power_report.hpp"

#include <algorithm>
#include <cstdio>
#include <iomanip>

namespace dlrmsim::app {
namespace {

Json num(double v) { return json_number(v, 10); }

}  // namespace

std::string format_duration(Seconds s) {
  const double v = s.value();
  char buf[64];
  if (v >= 2.0 * 86400.0) std::snprintf(buf, sizeof buf, "%.3g days", v / 86400.0);
  else if (v >= 2.0 * 3600.0) std::snprintf(buf, sizeof buf, "%.3g h", v / 3600.0);
  else if (v >= 120.0) std::snprintf(buf, sizeof buf, "%.3g min", v / 60.0);
  else return format_seconds(s);
  return buf;
}

void print_power_and_cost(std::ostream& out, const models::RunReport& r) {
  const auto& p = r.power;
  out << "\npower (idle + (max - idle) x activity per device and chassis; IT power, facility = x PUE " << std::setprecision(3)
      << p.pue << ")\n";
  if (!p.modelled) {
    out << "  not modelled: no device of the platform has power figures ('power:' in the platform file)\n";
  } else {
    std::vector<const models::NodePowerEntry*> nodes;
    for (const auto& n : p.nodes) nodes.push_back(&n);
    std::stable_sort(nodes.begin(), nodes.end(), [](const auto* a, const auto* b) { return a->average > b->average; });
    const std::size_t shown = std::min<std::size_t>(nodes.size(), 8);
    for (std::size_t i = 0; i < shown; ++i) {
      const auto& n = *nodes[i];
      out << "  " << std::left << std::setw(24) << n.node << "average " << std::setw(10) << format_watts(n.average)
          << "peak " << std::setw(10) << format_watts(n.peak) << "(idle " << format_watts(n.idle) << ", max "
          << format_watts(n.max) << ")\n";
    }
    if (nodes.size() > shown) out << "  ... " << nodes.size() - shown << " more nodes (highest average shown first)\n";
    out << "  " << std::left << std::setw(24) << "job" << "average " << std::setw(10) << format_watts(p.job_average)
        << "peak " << std::setw(10) << format_watts(p.job_peak) << "facility average "
        << format_watts(p.facility_average) << "\n";
    out << "  by kind:";
    for (const auto& k : p.kinds) {
      if (k.average.value() <= 0.0) continue;
      char act[32];
      std::snprintf(act, sizeof act, "%.0f %%", k.activity * 100.0);
      out << "  " << k.kind << " " << format_watts(k.average) << " (" << act << " active)";
    }
    out << "\n";
    if (p.devices_without_figures > 0) {
      out << "  " << p.devices_without_figures << " device(s) without power figures count as 0 W\n";
    }
    char samples[32];
    std::snprintf(samples, sizeof samples, "%.4g", p.training_samples);
    out << "energy      " << format_joules(p.energy_per_step) << " per step, " << format_joules(p.energy_per_sample)
        << " per sample, " << format_joules(p.energy_per_training_run) << " per training run of " << samples
        << " samples (facility)\n";
  }
  const auto& c = r.cost;
  char samples[32];
  std::snprintf(samples, sizeof samples, "%.4g", c.training_samples);
  out << "time to train " << samples << " samples: " << format_duration(c.time_to_train) << "\n";
  if (!c.available) {
    out << "cost        not computed: " << c.reason << "\n";
    return;
  }
  out << "cost        " << format_money(c.per_hour) << " per hour (" << c.pricing << ": hardware "
      << format_money(c.hardware_per_hour) << ", energy " << format_money(c.energy_per_hour) << "), "
      << format_money(c.per_million_samples) << " per million samples, " << format_money(c.per_training_run)
      << " per training run\n";
  out << "  prices: " << c.sources << "\n";
}

Json power_json(const models::PowerReport& p) {
  Json j;
  j["modelled"] = p.modelled;
  j["pue"] = num(p.pue);
  j["job_average_w"] = num(p.job_average.value());
  j["job_peak_w"] = num(p.job_peak.value());
  j["facility_average_w"] = num(p.facility_average.value());
  j["energy_per_step_j"] = num(p.energy_per_step.value());
  j["it_energy_per_step_j"] = num(p.it_energy_per_step.value());
  j["energy_per_sample_j"] = num(p.energy_per_sample.value());
  j["energy_per_training_run_j"] = num(p.energy_per_training_run.value());
  j["training_samples"] = num(p.training_samples);
  j["devices_without_figures"] = p.devices_without_figures;
  Json& nodes = j["nodes"] = Json::array();
  for (const auto& n : p.nodes) {
    nodes.push_back({{"node", n.node},
                     {"template", n.template_name},
                     {"average_w", num(n.average.value())},
                     {"peak_w", num(n.peak.value())},
                     {"idle_w", num(n.idle.value())},
                     {"max_w", num(n.max.value())}});
  }
  Json& kinds = j["kinds"] = Json::object();
  for (const auto& k : p.kinds) {
    kinds[k.kind] = {{"count", k.count}, {"activity", num(k.activity)}, {"average_w", num(k.average.value())}};
  }
  return j;
}

Json cost_json(const models::CostReport& c) {
  Json j;
  j["available"] = c.available;
  j["time_to_train_s"] = num(c.time_to_train.value());
  j["training_samples"] = num(c.training_samples);
  if (!c.available) {
    j["reason"] = c.reason;
    return j;
  }
  j["currency"] = c.currency;
  j["pricing"] = c.pricing;
  j["sources"] = c.sources;
  j["per_hour"] = num(c.per_hour.amount);
  j["hardware_per_hour"] = num(c.hardware_per_hour.amount);
  j["energy_per_hour"] = num(c.energy_per_hour.amount);
  j["per_sample"] = num(c.per_sample.amount);
  j["per_million_samples"] = num(c.per_million_samples.amount);
  j["per_training_run"] = num(c.per_training_run.amount);
  return j;
}

}  // namespace dlrmsim::app
