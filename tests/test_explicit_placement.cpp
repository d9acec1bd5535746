// The explicit placement policy (placement/explicit_policy.cpp): a plan given table by table,
// as `dlrmsim place --json` writes it, read back and checked against the scenario.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <string>
#include <vector>

#include "app/failure.hpp"
#include "common/config.hpp"
#include "file_fixtures.hpp"
#include "models/simulation.hpp"
#include "placement/placement.hpp"
#include "scenario_fixtures.hpp"

using namespace dlrmsim;
using namespace dlrmsim::models;
using namespace dlrmsim::models::testing;
using dlrmsim::testing::ScratchDir;

namespace {

const std::string kRun = "run: {warmup_steps: 1, steps: 2, calibration: " + kRoot + "/configs/calibration}\n";

/// The tests' one-H200 job (tables t_0..t_3, 100,000 x 64, on gpu0 and cpu0's host) placed by
/// `plan`, a plan document written next to the scenario.
struct Job {
  ScratchDir dir;
  std::string scenario;
  explicit Job(const std::string& plan) {
    dir.write("plan.yaml", plan);
    std::string text = single_h200_job() + kRun;
    text.replace(text.find("placement: {policy: cost_greedy, tiers: [gpu_hbm]}"),
                 std::string("placement: {policy: cost_greedy, tiers: [gpu_hbm]}").size(),
                 "placement: {policy: explicit, plan: plan.yaml}");
    scenario = dir.write("job.yaml", text);
  }
  RunReport run(const std::vector<std::string>& overrides = {}) const {
    return run_scenario(load_scenario(scenario, overrides));
  }
};

std::string whole(const std::string& table, const std::string& tier, const std::string& owner) {
  return "  - {name: " + table + ", sharding: table_wise, shards: [{tier: " + tier + ", owners: [" + owner + "]}]}\n";
}

std::string message_of(const Job& job, const std::vector<std::string>& overrides = {}) {
  try {
    job.run(overrides);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// System: the one-H200 job. Expected: the plan cost_greedy chooses (every table whole on gpu0),
// written as an explicit plan, gives the same plan and the same step; t_3 moved to host memory
// is honoured (its owner the CPU socket).
TEST_CASE("an explicit plan places the tables where it says") {
  const std::string on_gpu = "tables:\n" + whole("t_0", "gpu_hbm", "gpu0") + whole("t_1", "gpu_hbm", "gpu0") +
                             whole("t_2", "gpu_hbm", "gpu0") + whole("t_3", "gpu_hbm", "gpu0");
  const RunReport given = Job(on_gpu).run();
  std::string text = single_h200_job() + kRun;
  const RunReport chosen = run_scenario(load_scenario_text(text, "single.yaml", kRoot, {}));
  CHECK(given.step_time.value() == dlrmsim::rel(chosen.step_time.value()));
  const std::string one_on_host = "tables:\n" + whole("t_0", "gpu_hbm", "gpu0") + whole("t_1", "gpu_hbm", "gpu0") +
                                  whole("t_2", "gpu_hbm", "gpu0") + whole("t_3", "host_dram", "cpu0");
  const RunReport host = Job(one_on_host).run();
  CHECK(host.placement.at(3).tier == "host_dram");
  CHECK(host.placement.at(3).owners == std::vector<std::string>{"cpu0"});
}

// System: the same job, t_0 row-sharded in two halves on gpu0 (the shards tile the table).
// Expected: accepted; a gap (rows 60,000-100,000 missing) or an overlap is a located error.
TEST_CASE("shards must tile their table exactly") {
  const std::string rest = whole("t_1", "gpu_hbm", "gpu0") + whole("t_2", "gpu_hbm", "gpu0") + whole("t_3", "gpu_hbm", "gpu0");
  auto halves = [&](int second_begin, int second_end) {
    return "tables:\n  - name: t_0\n    sharding: row_wise\n    shards:\n"
           "      - {tier: gpu_hbm, owners: [gpu0], row_begin: 0, row_end: 50000}\n"
           "      - {tier: gpu_hbm, owners: [gpu0], row_begin: " + std::to_string(second_begin) +
           ", row_end: " + std::to_string(second_end) + "}\n" + rest;
  };
  CHECK(message_of(Job(halves(50000, 100000))) == "");
  const std::string gap = message_of(Job(halves(60000, 100000)));
  CHECK(gap.find("plan.yaml:") != std::string::npos);
  // 50,000 + 40,000 rows of 64 columns: 5.76 M of 6.4 M.
  CHECK(gap.find("the shards cover 5.76e+06 of the table's 6.4e+06 rows x columns") != std::string::npos);
  CHECK(message_of(Job(halves(40000, 100000))).find("overlaps another shard of table 't_0'") != std::string::npos);
}

// Expected: each mistake is a located error (ConfigError: exit 2) saying what is wrong.
TEST_CASE("bad explicit plans are located errors") {
  const std::string rest = whole("t_1", "gpu_hbm", "gpu0") + whole("t_2", "gpu_hbm", "gpu0") + whole("t_3", "gpu_hbm", "gpu0");
  struct Case {
    std::string plan, expected;
  };
  const Case cases[] = {
      {"tables:\n" + whole("t_9", "gpu_hbm", "gpu0") + rest, "the model has no table 't_9'"},
      {"tables:\n" + whole("t_0", "gpu_hbm", "gpu7") + rest, "unknown device 'gpu7'; did you mean 'gpu0'?"},
      {"tables:\n" + whole("t_0", "remote_ps", "cpu0") + rest,
       "device 'cpu0' cannot own a shard of tier remote_ps (no device of this platform can)"},
      {"tables:\n" + rest, "the plan does not place the model's table 't_0'"},
      {"tables:\n" + whole("t_0", "gpu_hbm", "gpu0") + whole("t_0", "gpu_hbm", "gpu0") + rest, "is placed twice"},
      {"tables:\n  - {name: t_0, sharding: diagonal, shards: [{tier: gpu_hbm, owners: [gpu0]}]}\n" + rest,
       "unknown sharding 'diagonal'"},
      {"tables:\n  - {name: t_0, sharding: table_wise, shards: [{tier: gpu_hbm, owner: [gpu0]}]}\n" + rest,
       "missing required key 'owners'"},
      {"tables:\n  - {name: t_0, rows: 5, sharding: table_wise, shards: [{tier: gpu_hbm, owners: [gpu0]}]}\n" + rest,
       "has 100000 rows; the plan was made for another model"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.plan);
    const Job job(c.plan);
    try {
      job.run();
      FAIL("accepted");
    } catch (const ConfigError& e) {
      CHECK(std::string(e.what()).find("plan.yaml:") != std::string::npos);
      CHECK(std::string(e.what()).find(c.expected) != std::string::npos);
    }
  }
}

// System: the job with every table 10,000 times larger (10^9 rows x 64 x 4 B = 256 GB each),
// all four placed whole on gpu0 (141 GB). Expected: infeasible, naming gpu0 and the overflow,
// as a plan of any policy that does not fit: 4 x (256 GB of weights + 4 GB of row-wise Adagrad
// state) - 141 GB = 899 GB (the activations and the dense replica, tens of MB, below 1 %).
TEST_CASE("an explicit plan that does not fit is infeasible, naming the device") {
  const std::string all_on_gpu = "tables:\n" + whole("t_0", "gpu_hbm", "gpu0") + whole("t_1", "gpu_hbm", "gpu0") +
                                 whole("t_2", "gpu_hbm", "gpu0") + whole("t_3", "gpu_hbm", "gpu0");
  const Job job(all_on_gpu);
  try {
    job.run({"model.embedding_tables.0.rows=1000000000"});
    FAIL("accepted");
  } catch (const placement::InfeasiblePlacement& e) {
    CHECK(e.device() == "gpu0");
    CHECK(e.overflow().value() == doctest::Approx(899e9).epsilon(0.01));
  }
}
