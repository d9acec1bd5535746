// A TorchRec sharding plan written as JSON (placement/torchrec_plan.hpp), read as an explicit
// placement: ranks, compute kernels and shards mapped onto dlrmsim's devices, tiers and row
// ranges, and checked as dlrmsim's own plan is.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <string>
#include <vector>

#include "common/config.hpp"
#include "file_fixtures.hpp"
#include "models/simulation.hpp"
#include "placement/placement.hpp"
#include "placement/torchrec_plan.hpp"
#include "scenario_fixtures.hpp"

using namespace dlrmsim;
using namespace dlrmsim::models;
using namespace dlrmsim::models::testing;
using dlrmsim::testing::ScratchDir;

namespace {

/// The tests' one-H200 job moved to a DGX H200 (configs/platforms/dgx-h200.yaml: one node,
/// GPUs gpu0..gpu7, ranks 0..7) with two tables, t_0 and t_1, of 100,000 x 64, placed by
/// `plan`, a plan document written next to it as plan.json.
struct Job {
  ScratchDir dir;
  std::string scenario;
  explicit Job(const std::string& plan) {
    dir.write("plan.json", plan);
    std::string text = single_h200_job() + "run: {warmup_steps: 1, steps: 2, calibration: " + kRoot +
                       "/configs/calibration}\n";
    auto swap = [&](const std::string& from, const std::string& to) { text.replace(text.find(from), from.size(), to); };
    swap("h200-server.yaml", "dgx-h200.yaml");
    swap("count: 4", "count: 2");
    swap("placement: {policy: cost_greedy, tiers: [gpu_hbm]}",
         "placement: {policy: explicit, plan: plan.json, tiers: [gpu_hbm, uvm]}");
    scenario = dir.write("job.yaml", text);
  }
  [[nodiscard]] PlacedScenario place() const {
    const Scenario sc = load_scenario(scenario);
    const topo::DeviceProfileSet profiles(sc.calibration_dir);
    return place_scenario(sc, profiles);
  }
};

/// t_0 table_wise on rank 3 with `kernel`; t_1 row_wise over ranks 0..7, 12,500 rows each.
std::string two_tables(const std::string& kernel = "fused", const std::string& t1_shards = "") {
  std::string shards;
  for (int r = 0; r < 8; ++r) {
    shards += std::string(r ? ", " : "") + "{\"shard_offsets\": [" + std::to_string(12500 * r) +
              ", 0], \"shard_sizes\": [12500, 64], \"placement\": \"rank:" + std::to_string(r) + "/cuda:" +
              std::to_string(r) + "\"}";
  }
  return R"({"sparse_arch.embedding_bag_collection": {
  "t_0": {"sharding_type": "table_wise", "compute_kernel": ")" + kernel + R"(", "ranks": [3],
          "sharding_spec": {"shards": [{"shard_offsets": [0, 0], "shard_sizes": [100000, 64], "placement": "rank:3/cuda:3"}]}},
  "t_1": {"sharding_type": "row_wise", "compute_kernel": "fused", "ranks": [0, 1, 2, 3, 4, 5, 6, 7],
          "sharding_spec": {"shards": [)" + (t1_shards.empty() ? shards : t1_shards) + R"(]},
          "cache_params": null, "enforce_hbm": null}}}
)";
}

std::string message_of(const Job& job) {
  try {
    (void)job.place();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// System: the DGX H200 job, t_0 table_wise on rank 3 and t_1 row_wise in eight 12,500-row
// shards on ranks 0-7, both fused (weights in HBM). Expected, by hand: t_0 whole (rows
// [0, 100000), columns [0, 64)) on gpu3 in gpu_hbm; t_1's shard r on gpu<r>, rows
// [12500 r, 12500 (r + 1)), all 64 columns: rank r is the r-th GPU trainer, the order
// `dlrmsim place` lists them in.
TEST_CASE("a TorchRec plan places table_wise and row_wise tables on the ranks' GPUs") {
  const PlacedScenario placed = Job(two_tables()).place();
  const auto& devices = placed.problem.devices;
  const auto& t0 = placed.plan.tables.at(0);
  CHECK(t0.sharding == placement::Sharding::table_wise);
  REQUIRE(t0.shards.size() == 1);
  CHECK(t0.shards[0].tier == placement::Tier::gpu_hbm);
  CHECK(devices.at(t0.shards[0].owners.at(0)).name == "gpu3");
  CHECK(t0.shards[0].row_begin == 0);
  CHECK(t0.shards[0].row_end == 100000);
  CHECK(t0.shards[0].column_end == 64);
  const auto& t1 = placed.plan.tables.at(1);
  CHECK(t1.sharding == placement::Sharding::row_wise);
  REQUIRE(t1.shards.size() == 8);
  for (int r = 0; r < 8; ++r) {
    CAPTURE(r);
    CHECK(devices.at(t1.shards[r].owners.at(0)).name == "gpu" + std::to_string(r));
    CHECK(t1.shards[r].row_begin == 12500 * r);
    CHECK(t1.shards[r].row_end == 12500 * (r + 1));
    CHECK(t1.shards[r].column_begin == 0);
    CHECK(t1.shards[r].column_end == 64);
  }
}

// Expected: fused_uvm_caching puts t_0 in the uvm tier (weights in host DRAM, an HBM row
// cache on gpu3), still owned by gpu3; the same plan written in dlrmsim's own format gives the
// same step time (the importer only translates).
TEST_CASE("a TorchRec plan's compute kernel is the shards' tier, and the plan runs as dlrmsim's own") {
  const PlacedScenario placed = Job(two_tables("fused_uvm_caching")).place();
  const auto& t0 = placed.plan.tables.at(0);
  CHECK(t0.shards.at(0).tier == placement::Tier::uvm);
  CHECK(placed.problem.devices.at(t0.shards.at(0).owners.at(0)).name == "gpu3");
  CHECK(t0.shards.at(0).cache_rows > 0);

  std::string own = "{\"tables\": [{\"name\": \"t_0\", \"sharding\": \"table_wise\", \"shards\": [{\"tier\": \"gpu_hbm\", "
                    "\"owners\": [\"gpu3\"]}]}, {\"name\": \"t_1\", \"sharding\": \"row_wise\", \"shards\": [";
  for (int r = 0; r < 8; ++r) {
    own += std::string(r ? ", " : "") + "{\"tier\": \"gpu_hbm\", \"owners\": [\"gpu" + std::to_string(r) +
           "\"], \"row_begin\": " + std::to_string(12500 * r) + ", \"row_end\": " + std::to_string(12500 * (r + 1)) + "}";
  }
  own += "]}]}\n";
  const Job torchrec(two_tables()), dlrmsim_plan(own);
  const RunReport a = run_scenario(load_scenario(torchrec.scenario));
  const RunReport b = run_scenario(load_scenario(dlrmsim_plan.scenario));
  CHECK(a.step_time.value() == dlrmsim::rel(b.step_time.value()));
}

// Expected: each mistake is a located error in plan.json (ConfigError: exit 2) saying what
// was expected; the tiling and table checks are dlrmsim's own plan's.
TEST_CASE("bad TorchRec plans are located errors") {
  std::string seven;  // t_1's shards without rank 7's: rows 87,500-100,000 missing
  for (int r = 0; r < 7; ++r) {
    seven += std::string(r ? ", " : "") + "{\"shard_offsets\": [" + std::to_string(12500 * r) +
             ", 0], \"shard_sizes\": [12500, 64], \"placement\": \"rank:" + std::to_string(r) + "/cuda:0\"}";
  }
  auto edit = [](std::string text, const std::string& from, const std::string& to) {
    text.replace(text.find(from), from.size(), to);
    return text;
  };
  struct Case {
    std::string plan, expected;
  };
  const Case cases[] = {
      {two_tables("fused_ssd"),
       "unknown TorchRec compute_kernel 'fused_ssd'; did you mean 'fused_uvm'? (expected one of dense, fused, quant, "
       "fused_uvm, fused_uvm_caching, quant_uvm, quant_uvm_caching, key_value;"},
      {two_tables("ssd_virtual_table"), "ssd_virtual_table, dram_virtual_table and customized_kernel have no dlrmsim tier"},
      {edit(two_tables(), "\"table_wise\"", "\"grid_shard\""), "unknown TorchRec sharding_type 'grid_shard'"},
      {edit(two_tables(), "\"ranks\": [3]", "\"ranks\": [8]"),
       "rank 8 is not a GPU trainer: the platform has 8 (ranks 0-7, rank 0 is gpu0, rank 7 gpu7)"},
      {edit(two_tables(), "\"ranks\": [3]", "\"ranks\": [2]"), "shard 0 is on rank 3 but ranks[0] is 2"},
      {edit(two_tables(), "\"placement\": \"rank:3/cuda:3\"", "\"placement\": \"cuda:3\""),
       "placement 'cuda:3': expected \"rank:R/DEVICE\""},
      {edit(two_tables(), "\"shard_sizes\": [100000, 64]", "\"shard_sizes\": [100000]"), "expected shard_sizes [rows, columns]"},
      {edit(two_tables(), "\"ranks\": [0, 1, 2, 3, 4, 5, 6, 7]", "\"ranks\": [0, 1, 2, 3, 4, 5, 6]"),
       "ranks has 7 entries and sharding_spec 8 shards"},
      {edit(two_tables("fused", seven), "[0, 1, 2, 3, 4, 5, 6, 7]", "[0, 1, 2, 3, 4, 5, 6]"),
       "the shards cover 5.6e+06 of the table's 6.4e+06 rows x columns"},
      {edit(two_tables(), "\"t_0\"", "\"t_7\""), "the model has no table 't_7'"},
      {edit(two_tables(), ",\n  \"t_1\": {", "},\n  \"other.ebc\": {\"t_0\": {"), "table 't_0' is placed twice"},
      {edit(two_tables(), "\"sharding_type\": \"row_wise\"", "\"sharding_typ\": \"row_wise\""),
       "missing required key 'sharding_type'"},
      {"{\"tabels\": []}\n", "module 'tabels': expected its tables' ParameterShardings"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.plan);
    const std::string message = message_of(Job(c.plan));
    CAPTURE(message);
    CHECK(message.find("plan.json:") != std::string::npos);
    CHECK(message.find(c.expected) != std::string::npos);
  }
}

namespace {

/// Whether two plans place every table alike: sharding, and per shard tier, owners, rows,
/// columns and cache rows.
bool same_placement(const placement::PlacementPlan& a, const placement::PlacementPlan& b) {
  if (a.tables.size() != b.tables.size()) return false;
  for (std::size_t t = 0; t < a.tables.size(); ++t) {
    const auto& x = a.tables[t];
    const auto& y = b.tables[t];
    if (x.name != y.name || x.sharding != y.sharding || x.shards.size() != y.shards.size()) return false;
    for (std::size_t s = 0; s < x.shards.size(); ++s) {
      const auto& p = x.shards[s];
      const auto& q = y.shards[s];
      if (p.tier != q.tier || p.owners != q.owners || p.row_begin != q.row_begin || p.row_end != q.row_end ||
          p.column_begin != q.column_begin || p.column_end != q.column_end || p.cache_rows != q.cache_rows) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

// Expected: a plan exported as TorchRec's (torchrec_plan_json) and read back is the same plan:
// for table_wise + row_wise in HBM, for a UVM-cached table (fused_uvm_caching) and for a
// data-parallel table (ranks: every GPU, sharding_spec null, as TorchRec writes it). The text
// carries TorchRec's placement strings ("rank:3/cuda:3").
TEST_CASE("a plan exported as a TorchRec sharding plan reads back as the same plan") {
  const std::string dp = R"({"m": {"t_0": {"sharding_type": "data_parallel", "compute_kernel": "fused", "ranks": [0, 1, 2, 3, 4, 5, 6, 7]},
  "t_1": {"sharding_type": "table_wise", "compute_kernel": "fused", "ranks": [5]}}}
)";
  for (const std::string& doc : {two_tables(), two_tables("fused_uvm_caching"), dp}) {
    const PlacedScenario first = Job(doc).place();
    const std::string exported = placement::torchrec_plan_json(first.problem, first.plan);
    CAPTURE(exported);
    const PlacedScenario again = Job(exported).place();
    CHECK(same_placement(first.plan, again.plan));
    CHECK(exported.find(std::string(placement::kTorchRecModule)) != std::string::npos);
  }
  const PlacedScenario placed = Job(two_tables()).place();
  CHECK(placement::torchrec_plan_json(placed.problem, placed.plan).find("\"rank:3/cuda:3\"") != std::string::npos);
}
