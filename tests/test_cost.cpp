// Tests of the price model (models/cost.hpp): cloud and owned nodes, and the cases without a
// cost.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <string>
#include <vector>

#include "models/scenario.hpp"
#include "models/simulation.hpp"
#include "paths.hpp"

using namespace dlrmsim;
using namespace dlrmsim::models;

namespace {

using dlrmsim::testing::kRoot;

// One DGX H100 (power figures from configs/platforms/dgx-h100.yaml) training DLRM-DCNv2.
RunReport dgx(const std::vector<std::string>& overrides) {
  std::vector<std::string> all{"run.warmup_steps=1", "run.steps=1"};
  all.insert(all.end(), overrides.begin(), overrides.end());
  return run_scenario(load_scenario(kRoot + "/configs/scenarios/default.yaml", all));
}

}  // namespace

TEST_CASE("a cloud price per node-hour gives the cost per sample and per training run") {
  // One node at 36 USD/h; energy is in the cloud price. Cost per sample = 36 / (3600 x
  // throughput); a run of 1e9 samples takes 1e9 / throughput seconds and costs 36 USD/h x
  // that time (the same as 1e9 x cost per sample).
  const RunReport r = dgx({"platform.node_templates.dgx-h100.price={per_hour: 36 USD/h, read: 2026-01-01, "
                           "region: test, source: test price}",
                           "cost.training_samples=1e9"});
  REQUIRE(r.cost.available);
  const double thr = r.throughput_samples_per_s;
  CHECK(r.cost.currency == "USD");
  CHECK(r.cost.pricing == "cloud");
  CHECK(r.cost.per_hour.amount == dlrmsim::rel(36.0));
  CHECK(r.cost.energy_per_hour.amount == 0.0);
  CHECK(r.cost.per_sample.amount == dlrmsim::rel(36.0 / (3600.0 * thr)));
  CHECK(r.cost.per_million_samples.amount == dlrmsim::rel(36.0e6 / (3600.0 * thr)));
  CHECK(r.cost.time_to_train.value() == dlrmsim::rel(1e9 / thr));
  CHECK(r.cost.per_training_run.amount == dlrmsim::rel(1e9 * 36.0 / (3600.0 * thr)));
}

TEST_CASE("an owned node costs its amortised purchase plus its energy at the PUE") {
  // The file's price: 300,000 USD over 4 years = 300000 / 35040 h = 8.5616 USD/h. Energy at
  // 0.10 USD/kWh x the node's average power (kW) x PUE 1.5.
  const RunReport r = dgx({"cost.energy_price=0.10 USD/kWh", "cost.pue=1.5"});
  REQUIRE(r.cost.available);
  CHECK(r.cost.pricing == "owned");
  CHECK(r.cost.hardware_per_hour.amount == dlrmsim::rel(300000.0 / (4.0 * 8760.0)));
  const double kw = r.power.job_average.value() / 1e3;
  CHECK(r.cost.energy_per_hour.amount == dlrmsim::rel(0.10 * kw * 1.5));
  CHECK(r.cost.per_hour.amount == dlrmsim::rel(300000.0 / (4.0 * 8760.0) + 0.10 * kw * 1.5));
}

TEST_CASE("no cost without prices, without an energy price for owned nodes, or with mixed currencies") {
  // Owned hardware needs the energy price; a platform without prices has no cost; a EUR
  // energy price with a USD purchase price cannot be added.
  const RunReport no_energy = dgx({});
  CHECK_FALSE(no_energy.cost.available);
  CHECK(no_energy.cost.reason.find("cost.energy_price") != std::string::npos);
  const RunReport mixed = dgx({"cost.energy_price=0.10 EUR/kWh"});
  CHECK_FALSE(mixed.cost.available);
  CHECK(mixed.cost.reason.find("different currencies") != std::string::npos);
  // The time to train is there even without a price.
  CHECK(no_energy.cost.time_to_train.value() > 0.0);
}

TEST_CASE("the shipped cloud instances carry their dated, located, sourced on-demand list prices") {
  // configs/platforms/aws-p5en-48xlarge.yaml (63.296 USD/h, us-east-1, 2026-08-06) and
  // aws-p4d-24xlarge.yaml (32.77 USD/h, us-east-1, 2024-11-09), each with its source URL. The
  // MLPerf DCNv2 job of default.yaml on each: pricing "cloud", no energy charge (it is in the
  // price), and cost per million samples = price per hour / 3600 / throughput x 1e6.
  const std::vector<std::pair<std::string, double>> shipped{{"aws-p5en-48xlarge", 63.296}, {"aws-p4d-24xlarge", 32.77}};
  for (const auto& [file, per_hour] : shipped) {
    CAPTURE(file);
    const RunReport r = dgx({"platform=../platforms/" + file + ".yaml"});
    REQUIRE(r.cost.available);
    CHECK(r.cost.pricing == "cloud");
    CHECK(r.cost.sources.find("https://github.com/") != std::string::npos);
    CHECK(r.cost.per_hour.amount == dlrmsim::rel(per_hour));
    CHECK(r.cost.energy_per_hour.amount == 0.0);
    CHECK(r.cost.per_million_samples.amount == dlrmsim::rel(per_hour / 3600.0 / r.throughput_samples_per_s * 1e6));
  }
}
