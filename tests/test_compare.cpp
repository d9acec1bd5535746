// Tests of the side-by-side comparison (app/compare.hpp).
#include <doctest/doctest.h>

#include "approx.hpp"

#include <string>
#include <vector>

#include "models/scenario.hpp"
#include "models/simulation.hpp"
#include "app/compare.hpp"
#include "paths.hpp"

using namespace dlrmsim;
using namespace dlrmsim::app;

namespace {

using dlrmsim::testing::kRoot;

models::RunReport run(const std::string& file, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> o{"run.warmup_steps=1", "run.steps=1", "cost.energy_price=0.12 USD/kWh"};
  o.insert(o.end(), extra.begin(), extra.end());
  return models::run_scenario(models::load_scenario(kRoot + "/configs/scenarios/" + file, o));
}

}  // namespace

TEST_CASE("compare of a scenario with itself reports zero deltas") {
  // The default scenario (one DGX H100) against itself: the simulation is deterministic, so
  // every row present in both has B - A = 0 and B / A = 1 (where A is not 0), the bound is
  // the same, and the verdict says as fast and 1x per USD.
  const auto a = run("default.yaml");
  const auto b = run("default.yaml");
  const Comparison c = compare_runs(a, 1, b, 1);
  REQUIRE(c.rows.size() > 10);
  for (const auto& r : c.rows) {
    CAPTURE(r.name);
    REQUIRE(r.a.has_value() == r.b.has_value());
    if (!r.a) continue;
    CHECK(*r.delta() == 0.0);
    if (*r.a != 0.0) CHECK(*r.ratio() == 1.0);
  }
  CHECK(c.bound_a == c.bound_b);
  CHECK(c.verdict.find("B is as fast per server and 1x per USD") == 0);
  CHECK(c.verdict.find("stays bound by " + c.bound_a) != std::string::npos);
}

TEST_CASE("compare names the faster platform and its ratio per server") {
  // DGX H100 (A) against DGX H200 (B), the same job: H200's HBM is 4.8 against 3.35 TB/s
  // and its compute the same, so B is faster per server (ratio > 1) and the throughput row's
  // ratio is B's throughput over A's.
  const auto a = run("default.yaml");
  const auto b = run("dcnv2_dgx_h200.yaml");
  const Comparison c = compare_runs(a, 1, b, 1);
  const auto& thr = c.rows.front();
  CHECK(thr.name == "throughput");
  CHECK(*thr.ratio() == dlrmsim::rel(b.throughput_samples_per_s / a.throughput_samples_per_s));
  CHECK(*thr.ratio() > 1.0);
  CHECK(c.verdict.find("faster per server") != std::string::npos);
}
