// Writing plans (placement/plan_report.hpp): the JSON is valid (read back with yaml-cpp, a
// JSON superset parser) and carries the plan's numbers under the documented keys; the text
// names every table and device.
#include <doctest/doctest.h>

#include <sstream>

#include <yaml-cpp/yaml.h>

#include "placement/plan_report.hpp"
#include "placement_fixtures.hpp"

using namespace dlrmsim;
using namespace dlrmsim::placement;
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
  std::ostringstream json;
  write_plan_json(json, p, plan);
  const YAML::Node root = YAML::Load(json.str());
  CHECK(root["policy"].as<std::string>() == "cost_greedy");
  CHECK(root["predicted_step_time_s"].IsNull());
  REQUIRE(root["tables"].size() == 2);
  CHECK(root["tables"][1]["name"].as<std::string>() == "uvm \"quoted\"");
  CHECK(root["tables"][1]["tier"].as<std::string>() == "uvm");
  CHECK(root["tables"][1]["shards"][0]["cache_rows"].as<std::int64_t>() == 400'000);
  CHECK(root["tables"][1]["shards"][0]["expected_hit_rate"].as<double>() == doctest::Approx(0.2));
  CHECK(root["tables"][1]["shards"][0]["storage"][0].as<std::string>() == "socket0");
  REQUIRE(root["devices"].size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(root["devices"][i]["name"].as<std::string>() == plan.devices[i].name);
    CHECK(root["devices"][i]["used_bytes"].as<double>() == plan.devices[i].used().value());
    CHECK(root["devices"][i]["estimated_load_s"].as<double>() == plan.devices[i].estimated_load.value());
  }
  CHECK(root["communication"]["table_wise"].size() == 3);
  CHECK(root["communication"]["table_wise"][1]["collective"].as<std::string>() == "all_to_all");

  std::ostringstream text;
  print_plan(text, p, plan);
  for (const char* word : {"hbm", "uvm \"quoted\"", "gpu0", "gpu1", "socket0", "0.200"}) {
    CHECK(text.str().find(word) != std::string::npos);
  }
}
