// Tests of the failure and goodput model (models/goodput.hpp): closed forms of the expected
// run time, the best checkpoint interval against Young's first-order optimum, the Llama 3
// preset against the report it comes from, failure-rate parsing, and the scenario keys.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <cmath>
#include <string>

#include "models/goodput.hpp"
#include "models/scenario.hpp"
#include "models/simulation.hpp"
#include "paths.hpp"
#include "file_fixtures.hpp"

using namespace dlrmsim;
using namespace dlrmsim::models;

namespace {

using dlrmsim::testing::kRoot;
const std::string kGoodputScenario = kRoot + "/configs/scenarios/goodput_dcnv2_512gpu.yaml";

Hertz rate_of(const std::string& text) {
  return parse_failure_rate(ConfigNode::load_string("r: " + text, "rate.yaml").child("r"));
}

std::string rate_error(const std::string& text) {
  return dlrmsim::testing::config_error_of([&] { rate_of(text); });
}

GoodputInputs simple_inputs(double throughput, double gpus) {
  GoodputInputs in;
  in.throughput_samples_per_s = throughput;
  in.component_counts = {gpus, 0.0, 0.0, 0.0, 0.0};
  in.checkpoint_full_bytes = Bytes(60e9);
  in.checkpoint_written_bytes = Bytes(60e9);
  in.storage_bandwidth = BytesPerSecond(1e9);  // C = 60 s
  return in;
}

}  // namespace

// System: one segment of W = 1 h of work, no checkpoint, no restart cost, failures at rate
// 1/h. Expected: (e^{lambda W} - 1) / lambda = (e - 1) h = 6185.8 s, the closed form of
// Bougeret et al. (SC 2011) with R = 0, because each failure loses the work done so far.
// With lambda = 0 the same run takes exactly W.
TEST_CASE("a single segment's expected time follows the exponential closed form") {
  const double hour = 3600.0;
  CHECK(expected_run_time(hour, 2 * hour, 60.0, 0.0, 1.0 / hour) == dlrmsim::rel((std::exp(1.0) - 1.0) * hour));
  CHECK(expected_run_time(hour, hour, 60.0, 0.0, 0.0) == hour);
  // Four segments of 15 min with three 60 s checkpoints between them, no failures.
  CHECK(expected_run_time(hour, hour / 4, 60.0, 0.0, 0.0) == dlrmsim::rel(hour + 3 * 60.0));
}

// System: 10^9 s of work, checkpoints of C = 60 s, restart free (R = 0), failures rare:
// MTBF = 10^6 s (C / MTBF = 6e-5). Young's first-order optimum is sqrt(2 C MTBF) =
// sqrt(1.2e8) = 10,954 s; its error is of order sqrt(C / MTBF), under 1 %, so the numerical
// optimum must be within 5 % of it. Its expected time must also be no worse than Young's
// interval's, and both beyond the failure-free time.
TEST_CASE("the best checkpoint interval is within 5 % of Young/Daly when restart is cheap and failures rare") {
  const double work = 1e9, c = 60.0, lambda = 1e-6;
  const double young = std::sqrt(2.0 * c / lambda);
  const double best = best_checkpoint_interval(work, c, 0.0, lambda);
  CHECK(std::abs(best / young - 1.0) < 0.05);
  CHECK(expected_run_time(work, best, c, 0.0, lambda) <= expected_run_time(work, young, c, 0.0, lambda));
  CHECK(expected_run_time(work, best, c, 0.0, lambda) > work);
  // The report carries the same figures: C = 60 GB / 1 GB/s, lambda = 1000 GPUs x 1e-9 /s.
  GoodputOptions o;
  o.samples = 1e9 * 1000.0;  // W = 1e9 s at 1000 samples/s
  o.failure_rates[0] = {Hertz(1e-9), "test"};
  const GoodputReport r = evaluate_goodput(o, simple_inputs(1000.0, 1000.0));
  CHECK(r.checkpoint_time.value() == dlrmsim::rel(60.0));
  CHECK(r.young_interval.value() == dlrmsim::rel(young));
  CHECK(std::abs(r.best.interval.value() / young - 1.0) < 0.05);
  CHECK(r.chosen.goodput_samples_per_s < r.throughput_samples_per_s);
}

// Where Young's assumptions fail (checkpoint C = 1 h against an MTBF of 2 h, restart 1 h),
// the exact optimum differs from sqrt(2 C MTBF) = 2 h by more than 5 %: the check above can
// fail, and the numerical search is what the report uses.
TEST_CASE("the best interval departs from Young/Daly when failures are frequent") {
  const double hour = 3600.0;
  const double best = best_checkpoint_interval(1000 * hour, hour, hour, 1.0 / (2 * hour));
  CHECK(std::abs(best / (2 * hour) - 1.0) > 0.05);
  CHECK(expected_run_time(1000 * hour, best, hour, hour, 1.0 / (2 * hour)) <
        expected_run_time(1000 * hour, 2 * hour, hour, hour, 1.0 / (2 * hour)));
}

// System: every failure rate zero. Nothing needs protecting, so the best plan is one segment
// without checkpoints: expected time = N / throughput and goodput = throughput exactly.
TEST_CASE("goodput with no failures equals throughput") {
  GoodputOptions o;
  o.samples = 1e12;
  const GoodputReport r = evaluate_goodput(o, simple_inputs(2.5e7, 512.0));
  CHECK(r.job_failure_rate.value() == 0.0);
  CHECK(r.best.goodput_samples_per_s == dlrmsim::rel(2.5e7).epsilon(1e-12));
  CHECK(r.chosen.expected_time.value() == dlrmsim::rel(1e12 / 2.5e7).epsilon(1e-12));
  CHECK(r.expected_failures == 0.0);
}

// System: the preset's per-component rates on the Llama 3 job itself: 16,384 GPUs, 2,048
// hosts, 16,384 NICs, 1,024 top-of-rack switches, for 54 days. Expected: the 419 unexpected
// interruptions of the report's table 5, the figure the rates were derived from.
TEST_CASE("the llama3_16k_h100 preset reproduces the report's 419 interruptions in 54 days") {
  const auto preset = failure_rate_preset("llama3_16k_h100");
  REQUIRE(preset);
  const double counts[] = {16384, 2048, 16384, 1024, 16384};
  double interruptions = 0.0;
  for (std::size_t c = 0; c < kFailureComponents; ++c) {
    interruptions += (*preset)[c].rate.value() * counts[c] * 54 * 24 * 3600.0;
  }
  CHECK(interruptions == dlrmsim::rel(419.0));
  CHECK(!failure_rate_preset("llama4"));
}

// "N per TIME" is failures of one component per time; a bare number has no unit and is
// refused, as are negative counts and zero or unit-less times.
TEST_CASE("failure rates need a unit") {
  CHECK(rate_of("1 per 80000 h").value() == dlrmsim::rel(1.0 / (80000 * 3600.0)));
  CHECK(rate_of("2.5e-5 per h").value() == dlrmsim::rel(2.5e-5 / 3600.0));
  CHECK(rate_of("0 per h").value() == 0.0);
  // A time in scientific notation: "1e4 h" is 10^4 hours (it was refused as "unknown unit 'e4 h'").
  CHECK(rate_of("1 per 1e4 h").value() == dlrmsim::rel(1.0 / (1e4 * 3600.0)));
  CHECK(rate_of("3 per 2.5E+3 min").value() == dlrmsim::rel(3.0 / (2.5e3 * 60.0)));
  CHECK(rate_error("1 per 1e999 h").find("out of range") != std::string::npos);
  CHECK(rate_error("0.001").find("rate.yaml:1:4: r: '0.001' is a failure rate with no unit") == 0);
  CHECK(rate_error("-1 per h").find("negative failure rate") != std::string::npos);
  CHECK(rate_error("1 per 0 h").find("longer than zero") != std::string::npos);
  CHECK(rate_error("1 per 80000").find("after 'per'") != std::string::npos);
  CHECK(rate_error("x per h").find("not a number") != std::string::npos);
}

// System: the shipped 512-GPU goodput scenario. Its checkpoint is the model's embedding
// weights + optimiser state + one dense replica and its state; the counts come from the
// platform (64 DGX H100: 512 GPUs, 64 hosts, 512 NICs, fabric switches); with all rates
// zero the report's goodput equals the simulated throughput.
TEST_CASE("a scenario's goodput section reaches the run report") {
  const Scenario sc = load_scenario(kGoodputScenario, {"goodput.failure_rates={gpu: 0 per h}"});
  REQUIRE(sc.goodput);
  const RunReport r = run_scenario(sc);
  REQUIRE(r.goodput);
  const auto& g = *r.goodput;
  CHECK(g.components[0].count == 512);
  CHECK(g.components[1].count == 64);
  CHECK(g.components[2].count == 512);
  CHECK(g.components[3].count > 0);
  const Bytes expected = sc.model.embedding_weight_bytes() + sc.model.embedding_optimizer_state_bytes() +
                         sc.model.dense_weight_bytes() + sc.model.dense_optimizer_state_bytes();
  CHECK(g.checkpoint_full_bytes.value() == dlrmsim::rel(expected.value()));
  CHECK(g.chosen.goodput_samples_per_s == dlrmsim::rel(r.throughput_samples_per_s).epsilon(1e-12));

  // Incremental checkpoints write a share of the tables, the dense part in full.
  const Scenario half = load_scenario(kGoodputScenario, {"goodput.checkpoint.embedding_fraction_written=0.5"});
  const auto in = goodput_inputs(*half.goodput, half.model, half.platform, 1.0);
  CHECK(in.checkpoint_written_bytes.value() ==
        dlrmsim::rel(0.5 * (half.model.embedding_weight_bytes() + half.model.embedding_optimizer_state_bytes()).value() +
                        (half.model.dense_weight_bytes() + half.model.dense_optimizer_state_bytes()).value()));
}

TEST_CASE("a goodput section needs checkpoint storage and valid parameters") {
  auto error_of = [](const std::vector<std::string>& overrides) -> std::string {
    try {
      load_scenario(kGoodputScenario, overrides);
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "";
  };
  CHECK(error_of({"platform=../platforms/dgx-h100.yaml"}).find("gives no storage to checkpoint to") !=
        std::string::npos);
  CHECK(error_of({"goodput.restart=-1 s"}).find("goodput.restart") != std::string::npos);
  CHECK(error_of({"goodput.samples=0"}).find("goodput.samples") != std::string::npos);
  CHECK(error_of({"goodput.checkpoint.embedding_fraction_written=1.5"}).find("[0, 1]") != std::string::npos);
  CHECK(error_of({"goodput.checkpoint.interval=0 s"}).find("goodput.checkpoint.interval") != std::string::npos);
  CHECK(error_of({"goodput.failure_rates.gpu=0.001"}).find("no unit") != std::string::npos);
  CHECK(error_of({"goodput.failure_rates.gpus=1 per h"}).find("did you mean 'gpu'") != std::string::npos);
  CHECK(error_of({"platform.storage.checkpoint_bandwidth=-5 GB/s"}).find("storage.checkpoint_bandwidth") !=
        std::string::npos);
}
