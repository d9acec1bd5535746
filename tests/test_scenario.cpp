// Tests of scenario loading (models/scenario.hpp): references, overrides and bad input.
#include <doctest/doctest.h>

#include <string>

#include "models/scenario.hpp"
#include "paths.hpp"
#include "file_fixtures.hpp"

using namespace dlrmsim;
using namespace dlrmsim::models;

namespace {
using dlrmsim::testing::kRoot;
const std::string kScenarios = kRoot + "/configs/scenarios";

const std::string kBase = R"(
name: t
platform: ../platforms/dgx-h100.yaml
model: ../models/dlrm_mlperf_criteo_1tb.yaml
training: {mode: hybrid_parallel_sync}
placement: {policy: cost_greedy}
)";

Scenario from(const std::string& text, const std::vector<std::string>& overrides = {}) {
  return load_scenario_text(text, "t.yaml", kScenarios, overrides);
}

std::string error_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
  return dlrmsim::testing::config_error_of([&] { from(text, overrides); });
}
}  // namespace

// Paths resolve against the scenario's folder; the defaults are 2 warm-up + 3 measured steps
// on the native backend.
TEST_CASE("a scenario references its platform and model files") {
  const auto s = from(kBase);
  CHECK(s.name == "t");
  CHECK(s.platform.name() == "dgx-h100");
  CHECK(s.model.name == "dlrm_mlperf_criteo_1tb");
  CHECK(s.training.mode == "hybrid_parallel_sync");
  CHECK(s.warmup_steps == 2);
  CHECK(s.steps == 3);
  CHECK(s.backend == "native");
}

// --set reaches into a referenced model file (it is loaded first), and into the scenario
// itself; the scenario's own `set:` list applies before the command line's.
TEST_CASE("overrides reach referenced files and the scenario") {
  const auto s = from(kBase, {"model.global_batch_size=1024", "training.staleness=3", "run.steps=7"});
  CHECK(s.model.global_batch_size == 1024);
  CHECK(s.training.staleness == 3);
  CHECK(s.steps == 7);
  const auto listed = from(kBase + "set: [\"model.global_batch_size=2048\"]\n");
  CHECK(listed.model.global_batch_size == 2048);
  const auto both = from(kBase + "set: [\"model.global_batch_size=2048\"]\n", {"model.global_batch_size=4096"});
  CHECK(both.model.global_batch_size == 4096);
  // Replacing the referenced path itself.
  const auto other = from(kBase, {"model=../models/hpca21_m1.yaml"});
  CHECK(other.model.name == "hpca21_m1");
}

TEST_CASE("bad scenarios name the key and suggest the fix") {
  std::string e = error_of(kBase + "trainig: {}\n");
  CHECK(e.find("did you mean 'training'") != std::string::npos);
  e = error_of(kBase, {"training.mode=hybrid_paralel_sync"});
  CHECK(e.find("did you mean 'hybrid_parallel_sync'") != std::string::npos);
  e = error_of(kBase, {"training.stalenes=2"});
  CHECK(e.find("did you mean 'staleness'") != std::string::npos);
  e = error_of(kBase + "run: {backend: simgird}\n");
  CHECK(e.find("did you mean 'simgrid'") != std::string::npos);
  e = error_of(kBase, {"model.top_mlp=[]"});
  CHECK(e.find("top_mlp") != std::string::npos);
  // A typo made with --set inside the referenced model file is reported against the --set,
  // with the full key path.
  e = error_of(kBase, {"model.dense_featurs=3"});
  CHECK(e.find("--set 'model.dense_featurs=3': model.dense_featurs: unknown key 'dense_featurs'") == 0);
  CHECK(e.find("did you mean 'dense_features'") != std::string::npos);
  e = error_of(kBase, {"training.cpu.dense_efficiency=1.5"});
  CHECK(e.find("at most 1") != std::string::npos);
}

// training.cpu's two settings are independent: a GPU job may set only the CPU access granule
// (its host-memory and parameter-server reads), and dense_efficiency stays unset until CPU
// sockets run dense layers (the step builder asks for it there, naming the key).
TEST_CASE("training.cpu.access_granule needs no dense_efficiency") {
  const auto s = from(kBase, {"training.cpu={access_granule: 128 B}"});
  CHECK(s.training.cpu_access_granule.value() == 128.0);
  CHECK_FALSE(s.training.cpu_dense_efficiency.has_value());
  const auto both = from(kBase, {"training.cpu={access_granule: 128 B, dense_efficiency: 0.5}"});
  REQUIRE(both.training.cpu_dense_efficiency.has_value());
  CHECK(*both.training.cpu_dense_efficiency == 0.5);
}

// System: the base scenario with a bad value given three ways. Expected: a value from the
// command line is located at its --set (not at line 1 of the file it edits) and keeps the
// model. prefix; one from the scenario's own set: list names that list entry's line; one
// edited into the referenced model file by a valid --set leaves other errors at their lines.
TEST_CASE("errors in values given by overrides point at the override") {
  CHECK(error_of(kBase, {"model.global_batch_size=-3"}) ==
        "--set 'model.global_batch_size=-3': model.global_batch_size: value -3 must be positive");
  CHECK(error_of(kBase, {"run.steps=0"}) == "--set 'run.steps=0': run.steps: value 0 must be positive");
  CHECK(error_of(kBase + "set: [\"model.global_batch_size=-3\"]\n") ==
        "t.yaml:7:7: set.0 'model.global_batch_size=-3': model.global_batch_size: value -3 must be positive");
  CHECK(error_of(kBase, {"run.steps.=4"}).find("empty name in the key path 'run.steps.'") != std::string::npos);
  CHECK(error_of(kBase + "run: {steps: 1}\nrun: {steps: 2}\n") == "t.yaml:8:1: run: duplicate key 'run' (first at line 7, column 1)");
}

// Every shipped scenario file loads.
TEST_CASE("every shipped scenario file loads") {
  for (const char* f : {"default", "dlrm_mlperf_dgx_a100", "hpca21_m1_big_basin", "hpca21_m3_big_basin_remote_ps",
                        "hpca21_m1_cpu_cluster", "persia_100t_gcp", "dcnv2_superpod_4096gpu", "persia_taobao_8v100",
                        "persia_avazu_8v100", "persia_criteo_8v100"}) {
    CAPTURE(f);
    CHECK_NOTHROW(load_scenario(kScenarios + "/" + f + ".yaml"));
  }
}

// System: an override that creates mappings the file did not have. Input: the base scenario
// with --set platform.cluster.fabric.kind=single_switch, which creates cluster (with no groups)
// inside the referenced dgx-h100.yaml. Expected: the missing groups are blamed on the --set,
// the outermost mapping it created, not on a line of the platform file.
TEST_CASE("mappings created by an override are located at the override") {
  CHECK(error_of(kBase, {"platform.cluster.fabric.kind=single_switch"}) ==
        "--set 'platform.cluster.fabric.kind=single_switch': platform.cluster: missing required key 'groups'");
}
