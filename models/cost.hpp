// What a training run costs: money per hour, per million samples and per run, and the time
// to train, from the platform's node prices, the simulated throughput and the power model.
//
// Scenario section (all optional):
//   cost:
//     pue: 1.2                      # facility power / IT power (>= 1; default 1: IT power only)
//     energy_price: 0.12 USD/kWh    # paid for owned nodes' energy (x PUE); required for them
//     training_samples: 4195197692  # samples of one training run (default: one epoch of the
//                                   # Criteo 1TB Click Logs training days, MLPerf DLRM's dataset)
//
// Price model, per node (topologies/platform.hpp NodePrice, a node template's `price:`):
//   cloud   the list price per node-hour (with the date and region it was read); energy and
//           facility are included in it, so no energy is charged on top;
//   owned   purchase / (years x 8760 h) per node-hour (straight-line amortisation, the node used
//           every hour of those years: an assumption; idle time raises the real cost) plus
//           energy_price x the node's average power x PUE.
// Fabric switches are priced only through their power (no purchase price is modelled).
//
//   cost per hour     = sum over nodes of their hourly price (+ energy for owned nodes)
//   cost per sample   = cost per hour / (throughput x 3600 s)
//   time to train     = training_samples / throughput
//   cost per run      = cost per hour x time to train
// A platform with no price, or with a node template without one, has no cost (`available`
// false and `reason` says which template); currencies must all agree.
#pragma once

#include <optional>
#include <string>

#include "common/config.hpp"
#include "common/energy.hpp"
#include "models/power.hpp"
#include "topologies/platform.hpp"

namespace dlrmsim::models {

/// Samples of a training run by default: the 23 training days of the Criteo 1TB Click Logs
/// (4,195,197,692 samples), one epoch as MLPerf Training's DLRM benchmarks read it.
inline constexpr double kDefaultTrainingSamples = 4195197692.0;

struct CostOptions {
  double pue = 1.0;
  std::optional<Price> energy_price;  // per kWh
  double training_samples = kDefaultTrainingSamples;

  /// Reads the scenario's `cost:` section (located errors for bad values).
  static CostOptions from_config(const ConfigNode& node);
};

struct CostReport {
  bool available = false;
  std::string reason;     // why not available
  std::string currency;
  std::string pricing;    // "cloud", "owned" or "mixed"
  std::string sources;    // the price sources, "; "-joined (one per node template)
  Money per_hour;         // the whole platform
  Money hardware_per_hour;  // cloud list prices or amortised purchases
  Money energy_per_hour;    // owned nodes' energy (x PUE)
  Money per_sample;
  Money per_million_samples;
  Money per_training_run;
  Seconds time_to_train;
  double training_samples = 0.0;
};

/// The cost of running `platform` at `throughput_samples_per_s` with the power in `power`.
CostReport estimate_cost(const topo::Platform& platform, const PowerReport& power, double throughput_samples_per_s,
                         const CostOptions& options);

}  // namespace dlrmsim::models
