// The semi-synchronous pipeline (software.embeddings.pipeline: semi_sync, TorchRec's
// TrainPipelineSemiSync; models/modes/synchronous.cpp): the next batch's lookups and pooled
// all-to-all are issued after this batch's forward, before its backward.
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

double category(const RunReport& r, const std::string& name, Seconds sim::CategoryTimes::*what) {
  for (const auto& b : r.breakdown) {
    if (b.category == name) return (b.*what).value();
  }
  return 0.0;
}

RunReport single_gpu(const std::string& pipeline) {
  return run_scenario(load_scenario_text(single_h200_job() + "software: {embeddings: {pipeline: " + pipeline +
                                             "}}\nrun: {warmup_steps: 2, steps: 4, calibration: " + kRoot +
                                             "/configs/calibration}\n",
                                         "single.yaml", kRoot, {}));
}

/// MLPerf DLRM-DCNv2 on 16 DGX H100 (the v4.1 validation case's settings), representative node.
RunReport mlperf_16_nodes(const std::string& pipeline) {
  return run_scenario(shipped("dcnv2_superpod_4096gpu",
                              {"platform.cluster.groups.0.count=16", "model.global_batch_size=135168",
                               "training.nodes=representative", "software=../software/hugectr-ngc24.06.yaml",
                               "placement.data_parallel_below=6.25 MB", "placement.policy=hugectr_auto",
                               "placement.mem_comm_bw_ratio=67", "software.embeddings.pipeline=" + pipeline}));
}

}  // namespace

// System: one H200 holding every table (no exchange). Expected: the same step time either way:
// with one in-order stream doing the lookups, the dense passes and the update, moving the next
// lookup before this backward reorders the stream's work but overlaps nothing.
TEST_CASE("semi-sync on one GPU: nothing to overlap, the same step") {
  const RunReport sync = single_gpu("sparse_dist");
  const RunReport semi = single_gpu("semi_sync");
  CHECK(semi.step_time.value() == dlrmsim::rel(sync.step_time.value()).epsilon(1e-9));
}

// System: the 16-node MLPerf job, whose pooled all-to-all is partly exposed when each batch's
// lookups wait for the previous update (sparse_dist). Expected: semi_sync hides more of the
// all-to-all behind the backward, so the step is shorter and the all-to-all's exposed time
// smaller; the step stays above the dense compute, which no pipeline hides (it is the trainer's
// own chain), and the work is the same: the lookups' busy time equal, the dense kernels' within
// 2 % (a kernel that shares the SMs with a concurrent one takes longer, and the overlaps differ).
TEST_CASE("semi-sync on 16 nodes: the next batch's exchange overlaps this backward") {
  const RunReport sync = mlperf_16_nodes("sparse_dist");
  const RunReport semi = mlperf_16_nodes("semi_sync");
  CHECK(semi.step_time.value() < sync.step_time.value());
  CHECK(category(semi, "all_to_all", &sim::CategoryTimes::exposed) <
        category(sync, "all_to_all", &sim::CategoryTimes::exposed));
  CHECK(semi.step_time.value() > category(semi, "dense_compute", &sim::CategoryTimes::busy));
  CHECK(category(semi, "embedding_lookup", &sim::CategoryTimes::busy) ==
        dlrmsim::rel(category(sync, "embedding_lookup", &sim::CategoryTimes::busy)).epsilon(1e-9));
  CHECK(category(semi, "dense_compute", &sim::CategoryTimes::busy) ==
        dlrmsim::rel(category(sync, "dense_compute", &sim::CategoryTimes::busy)).epsilon(0.02));
}

// Expected: an unknown pipeline is a located error naming the choices.
TEST_CASE("an unknown pipeline is refused where it is read") {
  CHECK_THROWS_WITH_AS(single_gpu("async"), doctest::Contains("software.embeddings.pipeline"), ConfigError);
}

// Expected: the Persia modes, which pipeline their embedding workers themselves, refuse it as
// bad input naming the key (a silently ignored setting would mislead).
TEST_CASE("semi-sync is refused by the Persia modes") {
  CHECK_THROWS_WITH_AS(run_scenario(shipped("persia_avazu_8v100", {"software.embeddings.pipeline=semi_sync"})),
                       doctest::Contains("software.embeddings.pipeline: semi_sync applies to the synchronous modes"),
                       std::invalid_argument);
}
