// Tests of stragglers (models/stragglers.hpp): slowdowns of members, the step-time
// distribution and who was waited for.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <string>

#include "models/scenario.hpp"
#include "models/simulation.hpp"
#include "models/stragglers.hpp"
#include "topologies/platform_loader.hpp"
#include "paths.hpp"
#include "file_fixtures.hpp"
#include "scenario_fixtures.hpp"

using namespace dlrmsim;
using namespace dlrmsim::models;
using namespace dlrmsim::models::testing;

namespace {

// Four nodes of two H100s (NVLink between them, PCIe gen5 to one CPU socket and a 400 Gbit/s
// NIC) on one non-blocking switch, running a compute-bound model: one narrow table and a wide
// top MLP at 524,288 samples per GPU (the GEMMs take tens of milliseconds, the all-reduce of
// 17 MB of bf16 gradients about a millisecond and overlaps the backward pass in 4 MiB buckets).
const std::string kComputeBound = mini_cluster("400 Gbit/s") + kComputeBoundJob +
                                  "run: {warmup_steps: 2, steps: 4, calibration: " + kCalibration + "}\n";

Scenario scenario(const std::vector<std::string>& overrides) {
  return load_scenario_text(kComputeBound, "test-scenario.yaml", kRoot + "/configs/scenarios", overrides);
}

std::string error_of(const std::vector<std::string>& overrides) {
  return dlrmsim::testing::config_error_of([&] { scenario(overrides); });
}

}  // namespace

// System: the compute-bound job above, synchronous (hybrid_parallel_sync), every node
// simulated. Input: node n2 runs every compute task s = 1.5 times slower. Expected: the
// step takes s times as long (within 3 %): every trainer waits in the all-reduce for n2's
// backward pass, and the step is almost all GEMM time, which n2 stretches by s; the last
// bucket's all-reduce after the backward is not stretched (measured: 1.470 with every node
// simulated, 1.487 with the representative). The report names n2 as the member waited for in
// every measured step.
TEST_CASE("one straggler of slowdown s in a synchronous compute-bound job multiplies the step by s") {
  for (const std::string nodes : {"all", "representative"}) {
    CAPTURE(nodes);
    const auto base = run_scenario(scenario({"training.nodes=" + nodes}));
    const auto slow = run_scenario(scenario({"training.nodes=" + nodes, "stragglers={slowdown: {n2: 1.5}}"}));
    CHECK(slow.step_time / base.step_time == dlrmsim::rel(1.5).epsilon(0.03));
    REQUIRE(slow.stragglers);
    CHECK(slow.stragglers->waited_counts.size() == 1);
    CHECK(slow.stragglers->waited_counts.front().first == "n2");
    CHECK(slow.stragglers->waited_counts.front().second == 4);
    CHECK(slow.stragglers->max.value() == dlrmsim::rel(slow.step_time.value()).epsilon(0.02));
    // One GPU of the node is as slow as the whole node: the other waits for it anyway.
    const auto gpu = run_scenario(scenario({"training.nodes=" + nodes, "stragglers={slowdown: {n2.gpu1: 1.5}}"}));
    CHECK(gpu.step_time / base.step_time == dlrmsim::rel(1.5).epsilon(0.03));
    CHECK(gpu.stragglers->waited_counts.front().first == "n2.gpu1");
  }
}

// System: the same job with random slowdowns. A Bernoulli draw with probability 0 never
// slows anyone (the step is the baseline's, nobody is waited for); with probability 1 and
// slowdown 2 every member is twice as slow every step, so the step doubles. The draws are a
// function of the seed alone: two runs agree to the picosecond, another seed differs.
TEST_CASE("random slowdowns: bounds of the distribution and reproducibility") {
  const auto base = run_scenario(scenario({"training.nodes=all"}));
  const auto none = run_scenario(scenario(
      {"training.nodes=all", "stragglers={random: {distribution: bernoulli, probability: 0, slowdown: 2}}"}));
  CHECK(none.step_time.value() == dlrmsim::rel(base.step_time.value()).epsilon(1e-9));
  for (const auto& w : none.stragglers->waited_for) CHECK(w.empty());
  const auto all = run_scenario(scenario(
      {"training.nodes=all", "stragglers={random: {distribution: bernoulli, probability: 1, slowdown: 2}}"}));
  CHECK(all.step_time / base.step_time == dlrmsim::rel(2.0).epsilon(0.02));

  const std::string uniform = "stragglers={random: {per: gpu, distribution: uniform, min: 1, max: 2, seed: 7}}";
  const auto a = run_scenario(scenario({"training.nodes=all", uniform}));
  const auto b = run_scenario(scenario({"training.nodes=all", uniform}));
  REQUIRE(a.stragglers);
  CHECK(a.stragglers->step_times == b.stragglers->step_times);
  CHECK(a.stragglers->waited_for == b.stragglers->waited_for);
  const auto c = run_scenario(scenario({"training.nodes=all", uniform, "stragglers.random.seed=8"}));
  CHECK(a.stragglers->step_times != c.stragglers->step_times);
  CHECK(a.stragglers->p50 <= a.stragglers->p99);
  CHECK(a.stragglers->p99 <= a.stragglers->max);
  CHECK(a.stragglers->max > base.step_time);
}

// The draws themselves: a Bernoulli(0.25) draw per node over 4 nodes and 10,000 steps slows
// about a quarter of them (binomial standard deviation 0.22 %, the bound 1 % is 4.6 of them);
// uniform draws stay in [min, max]; a lognormal draw with sigma 0 is its median.
TEST_CASE("slowdown draws follow their distribution") {
  const topo::Platform platform = scenario({}).platform;
  auto options = [&](const std::string& random) {
    const ConfigNode n = ConfigNode::load_string("s: {random: " + random + "}", "s.yaml");
    return StragglerOptions::from_config(n.child("s"), platform);
  };
  const Slowdowns bern(options("{distribution: bernoulli, probability: 0.25, slowdown: 3}"), platform);
  int slow = 0, total = 0, other = 0;
  for (int step = 0; step < 10000; ++step) {
    for (const auto& node : platform.nodes()) {
      const double f = bern.own(step, node.gpus.front());
      other += f == 1.0 || f == 3.0 ? 0 : 1;
      slow += f == 3.0 ? 1 : 0;
      ++total;
    }
  }
  CHECK(other == 0);
  CHECK(static_cast<double>(slow) / total == dlrmsim::rel(0.25).epsilon(0.04));
  const Slowdowns uni(options("{per: gpu, distribution: uniform, min: 1.2, max: 1.4}"), platform);
  int outside = 0;
  for (int step = 0; step < 1000; ++step) {
    const double f = uni.own(step, platform.all_gpus()[3]);
    outside += f >= 1.2 && f <= 1.4 ? 0 : 1;
  }
  CHECK(outside == 0);
  CHECK(uni.own(0, platform.all_cpus()[0]) == 1.0);  // per gpu: CPU sockets are not drawn
  const Slowdowns logn(options("{distribution: lognormal, sigma: 0, median: 1.3}"), platform);
  CHECK(logn.own(5, platform.all_gpus()[0]) == dlrmsim::rel(1.3));
}

TEST_CASE("bad straggler parameters are located errors") {
  CHECK(error_of({"stragglers={slowdown: {n9: 2}}"}).find("no node or device named 'n9'") != std::string::npos);
  CHECK(error_of({"stragglers={slowdown: {n2.gpu: 2}}"}).find("did you mean") != std::string::npos);
  CHECK(error_of({"stragglers={slowdown: {n2: -1}}"}).find("stragglers.slowdown.n2") != std::string::npos);
  CHECK(error_of({"stragglers={random: {distribution: bernoulli, slowdown: 2}}"}).find("probability") !=
        std::string::npos);
  CHECK(error_of({"stragglers={random: {distribution: lognormal, sigma: -0.1}}"}).find("stragglers.random.sigma") !=
        std::string::npos);
  CHECK(error_of({"stragglers={random: {distribution: uniform, min: 2, max: 1}}"}).find("max is below min") !=
        std::string::npos);
  CHECK(error_of({"stragglers={random: {distribution: gauss}}"}).find("distribution") != std::string::npos);
}
