// Writing plans (app/plan_report.hpp): the JSON is valid (read back with nlohmann::json)
// and carries the plan's numbers under the documented keys; the text names every table and
// device.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <sstream>

#include <nlohmann/json.hpp>

#include "app/plan_report.hpp"
#include "placement_fixtures.hpp"

using namespace dlrmsim;
using namespace dlrmsim::placement;
using namespace dlrmsim::app;
using namespace dlrmsim::placement::testing;

// Two GPUs and a socket; one table in HBM and one through UVM "with a \"quote\"" in its name
// (escaping). Every number read back equals the plan's.
TEST_CASE("plan JSON round-trips through a parser") {
  PlacementProblem p = one_node(2, 16, 64);
  p.tables.push_back(table("hbm", 1'000'000, 64, 2));
  p.tables.push_back(table("uvm \"quoted\"", 2'000'000, 32, 1));
  PlacementOptions o;
  o.policy = "cost_greedy";
  o.tiers = {Tier::gpu_hbm};
  PlacementPlan plan = place(p, o);
  // Move the second table to UVM by hand to exercise the cache fields.
  plan.tables[1].tier = Tier::uvm;
  plan.tables[1].shards[0].tier = Tier::uvm;
  plan.tables[1].shards[0].storage = {0};
  plan.tables[1].shards[0].cache_rows = 400'000;
  account(p, o, plan);
  const nlohmann::json root = nlohmann::json::parse(plan_json(p, plan));
  CHECK(root["policy"] == "cost_greedy");
  CHECK(root["predicted_step_time_s"].is_null());
  REQUIRE(root["tables"].size() == 2);
  CHECK(root["tables"][1]["name"] == "uvm \"quoted\"");
  CHECK(root["tables"][1]["tier"] == "uvm");
  CHECK(root["tables"][1]["shards"][0]["cache_rows"].get<std::int64_t>() == 400'000);
  CHECK(root["tables"][1]["shards"][0]["expected_hit_rate"].get<double>() == dlrmsim::rel(0.2));
  CHECK(root["tables"][1]["shards"][0]["storage"][0] == "socket0");
  REQUIRE(root["devices"].size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(root["devices"][i]["name"] == plan.devices[i].name);
    // 17 significant digits: every number reads back exactly.
    CHECK(root["devices"][i]["used_bytes"].get<double>() == plan.devices[i].used().value());
    CHECK(root["devices"][i]["estimated_load_s"].get<double>() == plan.devices[i].estimated_load.value());
  }
  CHECK(root["communication"]["table_wise"].size() == 3);
  CHECK(root["communication"]["table_wise"][1]["collective"] == "all_to_all");

  std::ostringstream text;
  print_plan(text, p, plan);
  for (const char* word : {"hbm", "uvm \"quoted\"", "gpu0", "gpu1", "socket0", "0.200"}) {
    CHECK(text.str().find(word) != std::string::npos);
  }
}

// A table whose name is not valid UTF-8 ("bad\xff", as a model file may hold any bytes): the
// plan is still valid JSON, and the invalid byte reads back as U+FFFD (UTF-8 EF BF BD), the
// rest of the name unchanged (common/json.hpp chooses replacement over failing the write).
TEST_CASE("a table name with invalid UTF-8 still gives valid JSON") {
  PlacementProblem p = one_node(1, 16, 64);
  p.tables.push_back(table("bad\xff", 1'000, 16, 1));
  PlacementOptions o;
  o.policy = "cost_greedy";
  o.tiers = {Tier::gpu_hbm};
  const PlacementPlan plan = place(p, o);
  const nlohmann::json root = nlohmann::json::parse(plan_json(p, plan));
  CHECK(root["tables"][0]["name"] == "bad\xEF\xBF\xBD");
}
