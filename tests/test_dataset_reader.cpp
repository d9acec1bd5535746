// The training data's reader (models/host_model.hpp dataset_read): a node's reader keeping N
// batches requested from a storage of read latency L (software.host.loader.batches_in_flight,
// platform.storage.dataset_read_latency) hands over one batch every L / N, so a step cannot be
// shorter than L / N.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <string>
#include <vector>

#include "models/simulation.hpp"
#include "scenario_fixtures.hpp"

using namespace dlrmsim;
using namespace dlrmsim::models;
using namespace dlrmsim::models::testing;

namespace {

Seconds step_time(const std::vector<std::string>& overrides) {
  const std::string text = single_h200_job() + "run: {warmup_steps: 3, steps: 6, calibration: " + kRoot +
                           "/configs/calibration}\n";
  return run_scenario(load_scenario_text(text, "reader.yaml", kRoot, overrides)).step_time;
}

}  // namespace

// System: the tests' one-H200 job (a step of tens of microseconds). Expected: with a storage
// latency of 80 ms and 16 batches in flight the reader hands over a batch every 80 / 16 = 5 ms,
// far above the step, so the step is exactly 5 ms; with 4 in flight, 20 ms. Without a bound on
// the batches in flight, or without a latency, the reader never waits: the plain step.
TEST_CASE("a reader with N batches in flight at latency L bounds the step at L / N") {
  const double plain = step_time({}).value();
  CHECK(plain < 1e-3);
  CHECK(step_time({"platform.storage.dataset_read_latency=80 ms", "software.host.loader.batches_in_flight=16"}).value() ==
        dlrmsim::rel(5e-3));
  CHECK(step_time({"platform.storage.dataset_read_latency=80 ms", "software.host.loader.batches_in_flight=4"}).value() ==
        dlrmsim::rel(20e-3));
  CHECK(step_time({"platform.storage.dataset_read_latency=80 ms"}).value() == dlrmsim::rel(plain));
  CHECK(step_time({"software.host.loader.batches_in_flight=16"}).value() == dlrmsim::rel(plain));
}

// System: the same job with a bound far below its step (1 us / 16). Expected: the step as
// without a reader: the reader runs ahead and never holds a step back.
TEST_CASE("a reader faster than the step does not change it") {
  const double plain = step_time({}).value();
  CHECK(step_time({"platform.storage.dataset_read_latency=1 us", "software.host.loader.batches_in_flight=16"}).value() ==
        dlrmsim::rel(plain));
}

// System: MLPerf DLRM-DCNv2 (global batch 135,168) under HugeCTR 23.04 (16 batches in flight)
// on 8 and 16 nodes of the SuperPOD platform, whose storage latency, 47.8 ms, is fitted on the
// 8-node v3.0 run. Expected: both steps at the reader's bound, 47.8 / 16 = 2.9875 ms, whatever
// the node count (the published 8- and 16-node runs: 2.986 and 2.940 ms); under HugeCTR 24.06
// (64 in flight, a bound of 0.747 ms) the 16-node step is the simulated one, above the bound
// and well below 2.9875 ms.
TEST_CASE("the MLPerf v3.0 multi-node runs are reader bound, the v4.1 ones are not") {
  const auto run = [](const std::string& nodes, const std::string& software) {
    return run_scenario(shipped("dcnv2_superpod_4096gpu",
                                {"platform.cluster.groups.0.count=" + nodes, "model.global_batch_size=135168",
                                 "training.nodes=representative", "software=../software/" + software,
                                 "placement.policy=hugectr_auto", "placement.mem_comm_bw_ratio=67"}))
        .step_time.value();
  };
  CHECK(run("8", "hugectr-ngc23.04.yaml") == dlrmsim::rel(47.8e-3 / 16));
  CHECK(run("16", "hugectr-ngc23.04.yaml") == dlrmsim::rel(47.8e-3 / 16));
  const double v41 = run("16", "hugectr-ngc24.06.yaml");
  CHECK(v41 > 47.8e-3 / 64);
  CHECK(v41 < 0.6 * 47.8e-3 / 16);
}
