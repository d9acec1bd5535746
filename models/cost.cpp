#include "models/cost.hpp"

#include <map>
#include <set>

#include "common/param.hpp"
#include "models/scenario_parameters.hpp"

namespace dlrmsim::models {

namespace {

// The `cost:` keys read below (cost_parameter_rows() lists them); defaults are CostOptions'
// member initialisers.
const CostOptions kDefaults;
constexpr std::string_view kPueMessage = "a PUE (facility power / IT power) between 1 and 10 is expected";
const Param<double> kPue{.key_path = "cost.pue", .unit = "ratio", .fallback = kDefaults.pue, .default_note = "IT power only",
                         .range = {.min = Bound<double>{1.0, true, kPueMessage}, .max = Bound<double>{10.0, true, kPueMessage},
                                   .interval = true},
                         .meaning = "Facility power over IT power."};
const Parameter kEnergyPrice{"cost.energy_price", "money per kWh (\"0.12 USD/kWh\")", "none (required for owned nodes' cost)",
                             "> 0", "Price of energy for owned nodes."};
constexpr std::string_view kSamplesMessage = "a positive number of samples (at most 1e18) is expected";
const Param<double> kTrainingSamples{
    .key_path = "cost.training_samples", .unit = "samples", .fallback = kDefaults.training_samples,
    .default_note = "one epoch of Criteo 1TB",
    .range = {.min = Bound<double>{0.0, false, kSamplesMessage}, .max = Bound<double>{1e18, true, kSamplesMessage}},
    .meaning = "Samples of one training run."};

}  // namespace

std::vector<ParameterRow> cost_parameter_rows() {
  return {
      Parameter{"cost", "", "the defaults below", "{pue, energy_price, training_samples}",
                "Cost of a training run (models/cost.hpp)."},
      kPue.row(),
      kEnergyPrice,
      kTrainingSamples.row(),
  };
}

CostOptions CostOptions::from_config(const ConfigNode& node) {
  CostOptions o;
  o.pue = kPue.read(node);
  if (auto e = node.optional_child(param_detail::last_segment(kEnergyPrice.key_path))) {
    const Price p = read_price(*e);
    if (p.unit != PriceUnit::per_kilowatt_hour) e->fail("expected a price per energy, such as '0.12 USD/kWh'");
    o.energy_price = p;
  }
  o.training_samples = kTrainingSamples.read(node);
  node.finish();
  return o;
}

CostReport estimate_cost(const topo::Platform& platform, const PowerReport& power, double throughput,
                         const CostOptions& options) {
  CostReport c;
  c.training_samples = options.training_samples;
  c.time_to_train = Seconds(throughput > 0.0 ? options.training_samples / throughput : 0.0);
  const auto nodes = platform.nodes();
  if (nodes.empty()) {
    c.reason = "the platform has no nodes";
    return c;
  }
  std::map<std::string, Watts> node_power;
  for (const auto& n : power.nodes) node_power[n.node] = n.average;
  std::set<std::string> currencies, kinds, sources;
  bool any_price = false;
  for (const auto& n : nodes) {
    if (n.price) {
      any_price = true;
      continue;
    }
  }
  if (!any_price) {
    c.reason = "the platform has no prices (a node template's 'price:')";
    return c;
  }
  double hardware = 0.0, energy = 0.0;
  for (const auto& n : nodes) {
    if (!n.price) {
      c.reason = "node template '" + n.template_name + "' has no price";
      return c;
    }
    const topo::NodePrice& p = *n.price;
    sources.insert(n.template_name + ": " + p.source);
    if (p.kind == topo::NodePrice::Kind::cloud) {
      kinds.insert("cloud");
      currencies.insert(p.per_hour.currency);
      hardware += p.per_hour.amount;
    } else {
      kinds.insert("owned");
      currencies.insert(p.purchase.currency);
      hardware += p.purchase.amount / (p.years * 8760.0);
      if (!options.energy_price) {
        c.reason = "node template '" + n.template_name + "' is owned hardware: its energy needs cost.energy_price";
        return c;
      }
      currencies.insert(options.energy_price->currency);
      const auto it = node_power.find(n.name);
      const double kw = it == node_power.end() ? 0.0 : it->second.value() / 1e3;
      energy += options.energy_price->amount * kw * options.pue;
    }
  }
  // Owned clusters pay for their fabric's switches' energy too.
  if (kinds.count("owned") && options.energy_price) {
    const auto it = node_power.find("fabric");
    if (it != node_power.end()) energy += options.energy_price->amount * it->second.value() / 1e3 * options.pue;
  }
  if (currencies.size() != 1) {
    std::string list;
    for (const auto& cur : currencies) list += (list.empty() ? "" : ", ") + cur;
    c.reason = "prices are in different currencies (" + list + "); dlrmsim does not convert currencies";
    return c;
  }
  c.available = true;
  c.currency = *currencies.begin();
  c.pricing = kinds.size() == 1 ? *kinds.begin() : "mixed";
  for (const auto& s : sources) c.sources += (c.sources.empty() ? "" : "; ") + s;
  c.hardware_per_hour = Money{hardware, c.currency};
  c.energy_per_hour = Money{energy, c.currency};
  c.per_hour = Money{hardware + energy, c.currency};
  const double samples_per_hour = throughput * 3600.0;
  c.per_sample = Money{samples_per_hour > 0.0 ? c.per_hour.amount / samples_per_hour : 0.0, c.currency};
  c.per_million_samples = c.per_sample * 1e6;
  c.per_training_run = Money{c.per_hour.amount * c.time_to_train.value() / 3600.0, c.currency};
  return c;
}

}  // namespace dlrmsim::models
