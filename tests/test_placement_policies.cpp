// The placement policies (placement/placement.hpp): registry, capacity accounting, balance,
// tier choice, sharding shapes, infeasibility reports, options, and planning speed.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <stdexcept>

#include "placement/hugectr_planner.hpp"
#include "placement/lookup_cost.hpp"
#include "placement/plan_builder.hpp"
#include "placement/placement.hpp"
#include "placement/synthetic.hpp"
#include "placement_fixtures.hpp"

using namespace dlrmsim;
using namespace dlrmsim::placement;
using namespace dlrmsim::placement::testing;

namespace {

// Every table is placed once and its shards tile rows x columns exactly (replicas: each one
// the whole table).
void check_coverage(const PlacementProblem& problem, const PlacementPlan& plan) {
  REQUIRE(plan.tables.size() == problem.tables.size());
  for (std::size_t i = 0; i < plan.tables.size(); ++i) {
    const auto& tp = plan.tables[i];
    const auto& t = problem.tables[tp.table];
    CAPTURE(t.name);
    CHECK(tp.table == i);
    REQUIRE(!tp.shards.empty());
    if (tp.sharding == Sharding::data_parallel) {
      CHECK(tp.shards.size() == 1);
      CHECK(tp.shards[0].row_count() == t.rows);
      CHECK(tp.shards[0].column_count() == t.dim);
      continue;
    }
    double area = 0.0;
    for (std::size_t a = 0; a < tp.shards.size(); ++a) {
      const auto& s = tp.shards[a];
      CHECK(s.tier == tp.tier);
      CHECK(s.owners.size() == 1);
      CHECK(s.row_begin >= 0);
      CHECK(s.row_end <= t.rows);
      CHECK(s.column_begin >= 0);
      CHECK(s.column_end <= t.dim);
      area += static_cast<double>(s.row_count()) * s.column_count();
      for (std::size_t b = a + 1; b < tp.shards.size(); ++b) {
        const auto& o = tp.shards[b];
        const bool disjoint = s.row_end <= o.row_begin || o.row_end <= s.row_begin || s.column_end <= o.column_begin ||
                              o.column_end <= s.column_begin;
        CHECK(disjoint);
      }
    }
    CHECK(area == static_cast<double>(t.rows) * t.dim);
  }
}

void check_within_capacity(const PlacementPlan& plan, double reserve = 0.0) {
  for (const auto& d : plan.devices) {
    CAPTURE(d.name);
    CHECK(d.used().value() <= d.capacity.value() * (1.0 - reserve));
  }
}

PlacementOptions with_policy(std::string policy) {
  PlacementOptions o;
  o.policy = std::move(policy);
  return o;
}

// A mixed problem: 8 GPUs of 16 GiB, a 256 GiB socket, two 1 TiB servers; 40 tables from
// 100 thousand to 200 million rows (together far more than the GPUs hold).
PlacementProblem mixed_problem() {
  PlacementProblem p = one_node(8, 16, 256, 2, 1024);
  p.activations_per_gpu = Bytes(2 * kGiB);
  for (int i = 0; i < 40; ++i) {
    const std::int64_t rows = 100'000LL * (1 + (i * 37) % 2000);
    auto t = table("t" + std::to_string(i), rows, i % 2 ? 64 : 128, 1 + (i * 7) % 25);
    if (i % 3 == 0) t.access = AccessDistribution::zipf(1.0);
    p.tables.push_back(t);
  }
  return p;
}

}  // namespace

// TorchRec's communication per sharding: table-wise all-to-all both ways; row-wise
// reduce-scatter forward and all-gather backward; table-row-wise reduce-scatter within the
// node then all-to-all across nodes; data-parallel only an all-reduce of weight gradients.
TEST_CASE("communication implied by each sharding") {
  auto collectives = [](Sharding s) {
    std::vector<std::string> out;
    for (const auto& c : communication_of(s)) {
      out.push_back(std::string(to_string(c.pass)) + ":" + std::string(to_string(c.collective)) + ":" +
                    std::string(to_string(c.scope)) + ":" + std::string(to_string(c.payload)));
    }
    return out;
  };
  CHECK(collectives(Sharding::table_wise) ==
        std::vector<std::string>{"forward:all_to_all:all_trainers:sparse_ids",
                                 "forward:all_to_all:all_trainers:pooled_embeddings",
                                 "backward:all_to_all:all_trainers:pooled_gradients"});
  CHECK(collectives(Sharding::column_wise) == collectives(Sharding::table_wise));
  CHECK(collectives(Sharding::row_wise) ==
        std::vector<std::string>{"forward:all_to_all:all_trainers:sparse_ids",
                                 "forward:reduce_scatter:all_trainers:pooled_embeddings",
                                 "backward:all_gather:all_trainers:pooled_gradients"});
  CHECK(collectives(Sharding::table_row_wise).size() == 5);
  CHECK(collectives(Sharding::table_row_wise)[1] == "forward:reduce_scatter:within_node:pooled_embeddings");
  CHECK(collectives(Sharding::table_row_wise)[2] == "forward:all_to_all:across_nodes:pooled_embeddings");
  CHECK(collectives(Sharding::data_parallel) ==
        std::vector<std::string>{"backward:all_reduce:all_trainers:weight_gradients"});
  for (Sharding s : kAllShardings) CHECK(sharding_from_string(to_string(s)) == s);
  for (Tier t : kAllTiers) CHECK(tier_from_string(to_string(t)) == t);
}

// System: the mixed problem (40 tables, a third with Zipf(1.0) access) under every policy.
// Expected: each placed table carries its distinct-row fraction, exactly (==) the value of
// table_distinct_fraction for the problem, whether the policy computed it or account() did.
// Why: the simulation's step builder reads it from the plan instead of computing it again, so
// any other value would change the simulated backward pass.
TEST_CASE("every placed table carries the distinct-row fraction of its problem") {
  const PlacementProblem problem = mixed_problem();
  for (const auto& policy : placement_policies()) {
    if (policy.needs_plan) continue;  // given a plan: tests/test_explicit_placement.cpp
    CAPTURE(policy.name);
    PlacementOptions options = with_policy(std::string(policy.name));
    options.search_max_evaluations = 20;
    PlacementPlan plan;
    try {
      plan = place(problem, options);
    } catch (const InfeasiblePlacement&) {
      continue;  // single-tier policies may refuse (see the next test)
    }
    for (const auto& tp : plan.tables) {
      CAPTURE(tp.name);
      REQUIRE(tp.distinct_fraction.has_value());
      CHECK(*tp.distinct_fraction == table_distinct_fraction(problem, problem.tables[tp.table]));
    }
  }
}

// Capacity is never exceeded: on the mixed problem (and with a 10 % reserve) every policy
// either returns a plan within every device's usable memory that covers every table, or
// refuses with InfeasiblePlacement naming a device and a positive overflow (only the
// single-tier policies, hashed_servers among them, and memory_balanced and hugectr_auto,
// which are GPU-only, may refuse). The greedy and
// search policies must find a plan (the tables fit in HBM + DRAM + servers together).
TEST_CASE("no policy exceeds any device's capacity") {
  for (double reserve : {0.0, 0.1}) {
    const PlacementProblem problem = mixed_problem();
    for (const auto& policy : placement_policies()) {
      if (policy.needs_plan) continue;  // given a plan: tests/test_explicit_placement.cpp
      CAPTURE(policy.name);
      CAPTURE(reserve);
      PlacementOptions options = with_policy(std::string(policy.name));
      options.memory_reserve_fraction = reserve;
      options.search_max_evaluations = 50;
      try {
        const PlacementPlan plan = place(problem, options);
        check_within_capacity(plan, reserve);
        check_coverage(problem, plan);
      } catch (const InfeasiblePlacement& e) {
        CHECK((policy.name.substr(0, 4) == "all_" || policy.name == "memory_balanced" || policy.name == "hashed_servers" ||
               policy.name == "hugectr_auto"));
        CHECK(!e.device().empty());
        CHECK(e.overflow().value() > 0.0);
      }
    }
    for (const char* must_fit : {"size_greedy", "cost_greedy", "search"}) {
      PlacementOptions options = with_policy(must_fit);
      options.memory_reserve_fraction = reserve;
      options.search_max_evaluations = 50;
      CHECK_NOTHROW(place(problem, options));
    }
  }
}

// One 16 GiB GPU with 1 GiB of activations and a table of 83,886,080 rows x 63 fp32 columns
// + 4 bytes of row-wise state = 256 bytes per row = 20 GiB: all_gpu needs 21 GiB on gpu0,
// 5 GiB = 5,368,709,120 bytes more than it has.
TEST_CASE("an infeasible plan names the device and the bytes over capacity") {
  PlacementProblem p = one_node(1, 16, 64);
  p.activations_per_gpu = Bytes(1 * kGiB);
  p.tables.push_back(table("big", 83'886'080, 63, 1));
  try {
    place(p, with_policy("all_gpu"));
    FAIL("all_gpu should not fit");
  } catch (const InfeasiblePlacement& e) {
    CHECK(e.device() == "gpu0");
    CHECK(e.overflow().value() == 5368709120.0);
    CHECK(std::string(e.what()).find("5368709120 bytes") != std::string::npos);
    CHECK(std::string(e.what()).find("gpu0") != std::string::npos);
  }
  // all_remote on a platform without parameter servers cannot run as described.
  CHECK_THROWS_WITH_AS(place(p, with_policy("all_remote")), doctest::Contains("parameter-server"),
                       InfeasiblePlacement);
  // The host socket has 64 GiB: all_host fits.
  const auto plan = place(p, with_policy("all_host"));
  CHECK(plan.tables[0].tier == Tier::host_dram);
  CHECK(plan.devices[0].weights.value() == 83'886'080.0 * 63 * 4);
}

// 64 identical tables on 8 identical GPUs: LPT gives every GPU 8 tables, so every GPU's
// estimated load is the same sum of the same 8 numbers (exactly equal).
TEST_CASE("cost_greedy balances equal tables exactly") {
  PlacementProblem p = one_node(8, 80, 512);
  for (int i = 0; i < 64; ++i) p.tables.push_back(table("t" + std::to_string(i), 1'000'000, 128, 10));
  const auto plan = place(p, with_policy("cost_greedy"));
  std::map<std::uint32_t, int> per_gpu;
  for (const auto& tp : plan.tables) {
    CHECK(tp.tier == Tier::gpu_hbm);
    CHECK(tp.sharding == Sharding::table_wise);
    per_gpu[tp.shards[0].owners[0]]++;
  }
  CHECK(per_gpu.size() == 8);
  for (const auto& [gpu, count] : per_gpu) CHECK(count == 8);
  const Seconds first = plan.devices[1].estimated_load;
  CHECK(first.value() > 0.0);
  for (const auto& d : plan.devices) {
    if (d.kind == OwnerKind::gpu) CHECK(d.estimated_load == first);
  }
  // Hand check of one table: 65,536 x 10 lookups of 512 B at 1 TB/s x 0.5, forward + backward.
  CHECK(plan.tables[0].shards[0].estimated_time.value() == dlrmsim::rel(2.0 * 655360.0 * 512.0 / 0.5e12));
}

// HugeCTR's MLPerf DLRM-DCNv2 planner replicates the tables under DP_SHARDING_THRESHOLD
// (mlcommons/training_results_v4.1@b87b9e39 NVIDIA/benchmarks/dlrm_dcnv2/implementations/
// hugectr/sharding/planner.py). System: 8 GPUs, tables of 1,000 / 12,206 / 12,207 / 1 M rows
// of 128 fp32 columns (512 B rows) with data_parallel_below 6.25 MB: 12,206 rows are 6,249,472 B
// and 12,207 are 6,249,984 B, both under it; 12,208 (6,250,496 B) and 1 M are not.
// Expected: the first three replicated on all 8 GPUs, the others not.
TEST_CASE("cost_greedy replicates the tables smaller than data_parallel_below") {
  PlacementProblem p = one_node(8, 80, 512);
  for (const std::int64_t rows : {1'000, 12'206, 12'207, 12'208, 1'000'000}) {
    p.tables.push_back(table("t" + std::to_string(rows), rows, 128, 1));
  }
  PlacementOptions o = with_policy("cost_greedy");
  o.data_parallel_below = Bytes(6.25e6);
  const auto plan = place(p, o);
  std::vector<bool> replicated;
  for (const auto& tp : plan.tables) replicated.push_back(tp.sharding == Sharding::data_parallel);
  CHECK(replicated == std::vector<bool>{true, true, true, false, false});
  CHECK(plan.tables[0].shards[0].owners.size() == 8);
  // Without the option nothing is replicated by size.
  for (const auto& tp : place(p, with_policy("cost_greedy")).tables) CHECK(tp.sharding != Sharding::data_parallel);
}

// 4 identical hot tables on 8 GPUs: each costs twice the mean per-GPU load, so each is split
// into 2 column shards of 64 columns and every GPU gets one shard: exactly equal loads.
TEST_CASE("cost_greedy splits hot tables by columns to balance them") {
  PlacementProblem p = one_node(8, 80, 512);
  for (int i = 0; i < 4; ++i) p.tables.push_back(table("hot" + std::to_string(i), 1'000'000, 128, 20));
  const auto plan = place(p, with_policy("cost_greedy"));
  for (const auto& tp : plan.tables) {
    CHECK(tp.sharding == Sharding::column_wise);
    REQUIRE(tp.shards.size() == 2);
    CHECK(tp.shards[0].column_count() == 64);
  }
  check_coverage(p, plan);
  const Seconds first = plan.devices[1].estimated_load;
  for (const auto& d : plan.devices) {
    if (d.kind == OwnerKind::gpu) CHECK(d.estimated_load == first);
  }
}

// One 1 GiB GPU and two tables of the same size (0.75 GiB), one looked up 50 times per
// sample and one once: only one fits in HBM, and the gain per byte of HBM is 50x larger for
// the hot one, so cost_greedy keeps the hot table in HBM and moves the cold one down.
TEST_CASE("cost_greedy gives HBM to the table that gains most per byte") {
  PlacementProblem p = one_node(1, 1, 64);
  const std::int64_t rows = static_cast<std::int64_t>(0.75 * kGiB / 260.0);
  p.tables.push_back(table("cold", rows, 64, 1));
  p.tables.push_back(table("hot", rows, 64, 50));
  const auto plan = place(p, with_policy("cost_greedy"));
  CHECK(plan.tables[1].tier == Tier::gpu_hbm);
  CHECK(plan.tables[0].tier != Tier::gpu_hbm);
  check_within_capacity(plan);
}

// size_greedy: with 1 GiB of HBM and tables of 0.9, 0.1 and 0.1 GiB (1.1 GiB), the largest
// moves to the slowest tier (by the estimated cost ranking) and the small ones stay in HBM.
TEST_CASE("size_greedy moves the largest tables to the slowest tier until the rest fits") {
  PlacementProblem p = one_node(1, 1, 64, 1, 64);
  auto rows_for = [](double gib) { return static_cast<std::int64_t>(gib * kGiB / 260.0); };
  p.tables.push_back(table("small0", rows_for(0.1), 64, 5));
  p.tables.push_back(table("big", rows_for(0.9), 64, 5));
  p.tables.push_back(table("small1", rows_for(0.1), 64, 5));
  const PlacementOptions options = with_policy("size_greedy");
  PlanBuilder builder(p, options);
  const auto tiers = builder.tiers_fastest_first();
  REQUIRE(tiers.size() == 4);
  CHECK(tiers.front() == Tier::gpu_hbm);
  const auto plan = place(p, options);
  CHECK(plan.tables[1].tier == tiers.back());
  CHECK(plan.tables[0].tier == Tier::gpu_hbm);
  CHECK(plan.tables[2].tier == Tier::gpu_hbm);
}

// A 40 GiB table (rows x (128 x 4 + 4) bytes) on 16 GiB GPUs needs ceil(40 / 16) = 3 of them:
// all_gpu shards it row-wise over 3 GPUs, a third of the rows each. On two nodes of two GPUs
// a 20 GiB table fits on the two GPUs of one node: table_row_wise.
TEST_CASE("tables too big for one device are sharded by rows") {
  PlacementProblem p = one_node(8, 16, 512);
  const std::int64_t rows = static_cast<std::int64_t>(40 * kGiB / 516.0);
  p.tables.push_back(table("huge", rows, 128, 1));
  const auto plan = place(p, with_policy("all_gpu"));
  CHECK(plan.tables[0].sharding == Sharding::row_wise);
  CHECK(plan.tables[0].shards.size() == 3);
  check_coverage(p, plan);

  PlacementProblem two;
  two.global_batch = 1024;
  two.devices.push_back(socket("n0.cpu", 512, 0));
  two.devices.push_back(socket("n1.cpu", 512, 1));
  for (int g = 0; g < 4; ++g) two.devices.push_back(gpu("g" + std::to_string(g), 16, g / 2, g / 2));
  two.tables.push_back(table("big", static_cast<std::int64_t>(20 * kGiB / 516.0), 128, 1));
  const auto plan2 = place(two, with_policy("all_gpu"));
  CHECK(plan2.tables[0].sharding == Sharding::table_row_wise);
  CHECK(plan2.tables[0].shards.size() == 2);
  CHECK(plan2.devices[plan2.tables[0].shards[0].owners[0]].node == plan2.devices[plan2.tables[0].shards[1].owners[0]].node);
}

// System: one trainer node and three parameter servers ps0..ps2 (1 TiB each); tables "t" of 10
// rows (2 lookups per sample) and "tiny" of 2 rows (1 lookup), uniform access, batch 65,536.
// Expected (Persia's id hashing: every server an equal share of every table): "t" in three
// row-wise ranges [0, 4), [4, 7), [7, 10) on ps0, ps1, ps2, each serving the table's lookups in
// proportion to its rows (65,536 x 2 x 4/10 = 52,428.8 on ps0); "tiny" one row on ps0 and one on
// ps1 (a server gets no empty range). Without servers the policy says what it needs.
TEST_CASE("hashed_servers spreads every table evenly over all parameter servers") {
  PlacementProblem p = one_node(1, 16, 512, 3);
  p.tables.push_back(table("t", 10, 16, 2));
  p.tables.push_back(table("tiny", 2, 16, 1));
  const auto plan = place(p, with_policy("hashed_servers"));
  check_coverage(p, plan);
  REQUIRE(plan.tables.size() == 2);
  const auto& t = plan.tables[0];
  CHECK(t.sharding == Sharding::row_wise);
  REQUIRE(t.shards.size() == 3);
  const std::int64_t begins[] = {0, 4, 7}, ends[] = {4, 7, 10};
  for (std::size_t k = 0; k < 3; ++k) {
    CAPTURE(k);
    CHECK(t.shards[k].row_begin == begins[k]);
    CHECK(t.shards[k].row_end == ends[k]);
    REQUIRE(t.shards[k].owners.size() == 1);
    CHECK(p.devices[t.shards[k].owners[0]].name == "ps" + std::to_string(k));
  }
  CHECK(shard_work(p, p.tables[0], t.shards[0], t.sharding).lookups == dlrmsim::rel(65536.0 * 2 * 0.4));
  const auto& tiny = plan.tables[1];
  REQUIRE(tiny.shards.size() == 2);
  CHECK(p.devices[tiny.shards[0].owners[0]].name == "ps0");
  CHECK(p.devices[tiny.shards[1].owners[0]].name == "ps1");

  PlacementProblem none = one_node(1, 16, 512);
  none.tables.push_back(table("t", 10, 16, 2));
  CHECK_THROWS_WITH_AS(place(none, with_policy("hashed_servers")), doctest::Contains("parameter-server"),
                       InfeasiblePlacement);
}

// all_uvm: the HBM cache holds 20 % of the rows (TorchRec's default ratio) on the GPU, the
// weights live on the GPU's host socket; with uniform access the hit rate is 0.2, and the
// lookup time is 0.2 of the reads at HBM speed plus 0.8 over PCIe.
TEST_CASE("all_uvm places caches on GPUs and weights on their host sockets") {
  PlacementProblem p = one_node(1, 16, 64);
  p.tables.push_back(table("t", 1'000'000, 128, 1));
  const auto plan = place(p, with_policy("all_uvm"));
  const Shard& s = plan.tables[0].shards[0];
  CHECK(s.tier == Tier::uvm);
  CHECK(s.owners == std::vector<std::uint32_t>{1});
  CHECK(s.storage == std::vector<std::uint32_t>{0});
  CHECK(s.cache_rows == 200'000);
  CHECK(s.expected_hit_rate == dlrmsim::rel(0.2));
  CHECK(plan.devices[1].cache.value() == 200'000.0 * 512);
  CHECK(plan.devices[0].weights.value() == 1'000'000.0 * 512);
  CHECK(plan.devices[0].optimizer_state.value() == 1'000'000.0 * 4);
  const double lookups = 65536.0;
  // The misses read over PCIe alongside the forward of the hits (the longer), the update of
  // every lookup in the HBM cache, the misses written back (placement/tiers/uvm.cpp).
  const double misses = 0.8 * lookups * 512 / 16e9;
  const double expected = misses + lookups * 512 / 0.5e12 + misses;
  CHECK(s.estimated_time.value() == dlrmsim::rel(expected));
}

// Options come from the scenario's `placement:` mapping; a misspelt key, tier or policy is
// an error naming the file, line and key with a suggestion.
TEST_CASE("placement options from YAML") {
  auto node = ConfigNode::load_string(
      "policy: search\ncache_model: static_top_k\nuvm_cache_fraction: 0.1\nmemory_reserve_fraction: 0.05\n"
      "tiers: [gpu_hbm, uvm]\nsearch_exhaustive_limit: 100\nsearch_max_evaluations: 7\n",
      "scenario.yaml");
  const auto o = PlacementOptions::from_config(node);
  CHECK(o.policy == "search");
  CHECK(o.cache_model == CacheModel::static_top_k);
  CHECK(o.uvm_cache_fraction == 0.1);
  CHECK(o.memory_reserve_fraction == 0.05);
  CHECK(o.tiers == std::vector<Tier>{Tier::gpu_hbm, Tier::uvm});
  CHECK(o.search_exhaustive_limit == 100);
  CHECK(o.search_max_evaluations == 7);
  CHECK(PlacementOptions::from_config(ConfigNode::load_string("{}", "s.yaml")).policy == "cost_greedy");
  CHECK_THROWS_WITH_AS(PlacementOptions::from_config(ConfigNode::load_string("polcy: all_gpu\n", "s.yaml")),
                       doctest::Contains("did you mean 'policy'"), ConfigError);
  CHECK_THROWS_WITH_AS(PlacementOptions::from_config(ConfigNode::load_string("tiers: [gpu_hmb]\n", "s.yaml")),
                       doctest::Contains("did you mean 'gpu_hbm'"), ConfigError);
  CHECK_THROWS_WITH_AS(PlacementOptions::from_config(ConfigNode::load_string("policy: cost_gredy\n", "s.yaml")),
                       doctest::Contains("s.yaml:1"), ConfigError);
  CHECK_THROWS_AS(PlacementOptions::from_config(ConfigNode::load_string("uvm_cache_fraction: 2\n", "s.yaml")),
                  ConfigError);
}

// Restricting the tiers is obeyed: with tiers [host_dram] cost_greedy puts every table in
// host DRAM even though HBM is faster.
TEST_CASE("the tiers option restricts where tables may go") {
  PlacementProblem p = one_node(2, 80, 512);
  for (int i = 0; i < 6; ++i) p.tables.push_back(table("t" + std::to_string(i), 100'000, 64, 4));
  PlacementOptions o = with_policy("cost_greedy");
  o.tiers = {Tier::host_dram};
  for (const auto& tp : place(p, o).tables) CHECK(tp.tier == Tier::host_dram);
}

// Planning 5,000 tables over 64 GPUs (8 nodes) with cost_greedy: every table placed, no
// device over capacity, and fast (the acceptance bound is 1 s; a generous 5 s here so that
// a loaded test machine does not fail it; dlrmsim-bench reports the real figure).
TEST_CASE("cost_greedy plans 5,000 tables over 64 GPUs quickly") {
  const PlacementProblem problem = make_synthetic_problem(5000, 8, 8);
  const auto start = std::chrono::steady_clock::now();
  const auto plan = place(problem, with_policy("cost_greedy"));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  MESSAGE("cost_greedy, 5000 tables x 64 GPUs: " << seconds << " s");
  CHECK(seconds < 5.0);
  check_within_capacity(plan);
  check_coverage(problem, plan);
  // Balance: the busiest GPU is within 5 % of the mean GPU load.
  double total = 0.0;
  double worst = 0.0;
  int gpus = 0;
  for (const auto& d : plan.devices) {
    if (d.kind != OwnerKind::gpu) continue;
    total += d.estimated_load.value();
    worst = std::max(worst, d.estimated_load.value());
    ++gpus;
  }
  CHECK(gpus == 64);
  CHECK(worst <= 1.05 * total / gpus);
}

// Tiers are ranked by estimated cost from the device figures, never by a fixed order: with
// the fixture's GPUs (1 TB/s HBM) gpu_hbm ranks first; give the GPU a 1 GB/s memory and the
// host socket (cores 50 GB/s + PCIe) ranks first, and cost_greedy then keeps the tables in
// host DRAM although they fit in HBM.
TEST_CASE("tier ranking follows the platform's figures") {
  PlacementProblem p = one_node(1, 80, 512);
  for (int i = 0; i < 4; ++i) p.tables.push_back(table("t" + std::to_string(i), 100'000, 64, 4));
  const PlacementOptions options = with_policy("cost_greedy");
  CHECK(PlanBuilder(p, options).tiers_fastest_first().front() == Tier::gpu_hbm);
  for (const auto& tp : place(p, options).tables) CHECK(tp.tier == Tier::gpu_hbm);
  p.devices[1].memory_bandwidth = BytesPerSecond(1e9);
  CHECK(PlanBuilder(p, options).tiers_fastest_first().front() == Tier::host_dram);
  for (const auto& tp : place(p, options).tables) CHECK(tp.tier == Tier::host_dram);
}

// A 16 GiB GPU cannot hold a 20 % cache of a 100 GiB table (19.8 GiB of rows): the cache is
// shrunk to what the GPU has left (16 GiB - 1 GiB of activations = 15 GiB), the plan fits,
// the uniform-access hit rate follows the smaller cache, and a note says so.
TEST_CASE("all_uvm shrinks caches to the HBM there is") {
  PlacementProblem p = one_node(1, 16, 256);
  p.activations_per_gpu = Bytes(1 * kGiB);
  const std::int64_t rows = static_cast<std::int64_t>(100 * kGiB / 516.0);
  p.tables.push_back(table("big", rows, 128, 1));
  const auto plan = place(p, with_policy("all_uvm"));
  const Shard& s = plan.tables[0].shards[0];
  CHECK(s.cache_rows < static_cast<std::int64_t>(0.2 * rows));
  CHECK(plan.devices[1].used().value() <= 16 * kGiB);
  CHECK(plan.devices[1].cache.value() == dlrmsim::rel(15 * kGiB).epsilon(1e-6));
  CHECK(s.expected_hit_rate == dlrmsim::rel(static_cast<double>(s.cache_rows) / rows));
  CHECK(std::any_of(plan.notes.begin(), plan.notes.end(),
                    [](const std::string& n) { return n.find("shrunk") != std::string::npos; }));
}

// memory_balanced reproduces Merlin Distributed Embeddings' strategy of that name
// (dist_model_parallel.py at 45cffaa, the commit the DLE Dockerfile builds), worked by hand:
//  - 2 GPUs, threshold 5000 elements; tables A 1000x8 (8000 elements, cut in 2 slices of 4
//    columns, 4000 each), B 600x8 (4800), C 100x8 (800), D 50x8 (400). Sorted slices:
//    B, A, A, C, D. GPU 0 takes positions 0, 4 and 3 (2G-1-0): B, D, C; GPU 1 takes 1 and 2:
//    both halves of A, which merge back into the whole table.
//  - 3 GPUs, no threshold, A 1000x8 and B 300x8: fewer tables than GPUs, so the largest is
//    halved until there are 3 pieces: A's halves go to GPUs 0 and 1 (columns 0-3 and 4-7),
//    B to GPU 2.
TEST_CASE("memory_balanced deals column slices in Distributed Embeddings' snake order") {
  {
    PlacementProblem p = one_node(2, 80, 512);
    p.tables = {table("A", 1000, 8, 1), table("B", 600, 8, 1), table("C", 100, 8, 1), table("D", 50, 8, 1)};
    PlacementOptions o;
    o.policy = "memory_balanced";
    o.column_slice_elements = 5000;
    const PlacementPlan plan = place(p, o);
    check_coverage(p, plan);
    const auto owner = [&](std::size_t t) { return plan.devices[plan.tables[t].shards.at(0).owners.at(0)].name; };
    CHECK(plan.tables[0].sharding == Sharding::table_wise);
    CHECK(owner(0) == "gpu1");
    CHECK(owner(1) == "gpu0");
    CHECK(owner(2) == "gpu0");
    CHECK(owner(3) == "gpu0");
  }
  {
    PlacementProblem p = one_node(3, 80, 512);
    p.tables = {table("A", 1000, 8, 1), table("B", 300, 8, 1)};
    PlacementOptions o;
    o.policy = "memory_balanced";
    const PlacementPlan plan = place(p, o);
    check_coverage(p, plan);
    const auto& a = plan.tables[0];
    CHECK(a.sharding == Sharding::column_wise);
    REQUIRE(a.shards.size() == 2);
    CHECK(plan.devices[a.shards[0].owners[0]].name == "gpu0");
    CHECK(a.shards[0].column_begin == 0);
    CHECK(a.shards[0].column_end == 4);
    CHECK(plan.devices[a.shards[1].owners[0]].name == "gpu1");
    CHECK(a.shards[1].column_begin == 4);
    CHECK(plan.devices[plan.tables[1].shards.at(0).owners.at(0)].name == "gpu2");
  }
}

// memory_balanced with a GPU memory budget (distributed-embeddings' _maybe_offload): one GPU,
// tables A 1000x8, B 100x8, C 50x8 of fp32 (32,000, 3,200 and 1,600 bytes of weights) and a
// 5,000-byte budget. Smallest first: C (1,600) and B (4,800 in all) stay; A would bring the
// total to 36,800, so A, the largest, goes to the GPU's host socket.
TEST_CASE("memory_balanced offloads a GPU's largest tables beyond gpu_embedding_memory") {
  PlacementProblem p = one_node(1, 80, 512);
  p.tables = {table("A", 1000, 8, 1), table("B", 100, 8, 1), table("C", 50, 8, 1)};
  PlacementOptions o;
  o.policy = "memory_balanced";
  o.gpu_embedding_memory = Bytes(5000.0);
  const PlacementPlan plan = place(p, o);
  check_coverage(p, plan);
  CHECK(plan.tables[0].tier == Tier::host_dram);
  CHECK(plan.devices[plan.tables[0].shards[0].owners[0]].name == "socket0");
  CHECK(plan.tables[1].tier == Tier::gpu_hbm);
  CHECK(plan.tables[2].tier == Tier::gpu_hbm);
  // Without host_dram among the allowed tiers the offload is refused by name.
  o.tiers = {Tier::gpu_hbm};
  CHECK_THROWS_WITH_AS(place(p, o), doctest::Contains("placement.tiers must include host_dram"), std::invalid_argument);
}

// cost_greedy splits a hot table by columns only as far as the pieces get cheaper. Two GPUs,
// a hot table H (1,000,000 x 128 fp32, 10 lookups per sample) and a cold one C (1,000 x 128,
// one lookup). Without an access granule a piece of w columns costs w/128 of H, so H is cut
// in two and each GPU gets half. With a 512-byte access granule every lookup reads a whole
// 512-byte line whatever the piece's width, so a piece costs as much as H itself: cutting it
// would only double the work, and H stays whole.
TEST_CASE("cost_greedy cuts a hot table only into pieces that are cheaper than the whole") {
  for (const double granule : {0.0, 512.0}) {
    CAPTURE(granule);
    PlacementProblem p = one_node(2, 80, 512);
    for (auto& d : p.devices) {
      if (d.kind == OwnerKind::gpu) d.access_granule = Bytes(granule);
    }
    p.tables = {table("H", 1000000, 128, 10), table("C", 1000, 128, 1)};
    PlacementOptions o;
    o.policy = "cost_greedy";
    o.tiers = {Tier::gpu_hbm};
    const PlacementPlan plan = place(p, o);
    check_coverage(p, plan);
    if (granule == 0.0) {
      CHECK(plan.tables[0].sharding == Sharding::column_wise);
      CHECK(plan.tables[0].shards.size() == 2);
    } else {
      CHECK(plan.tables[0].sharding == Sharding::table_wise);
    }
  }
}

// cost_greedy cuts hot tables no finer than kSplitFloorShare (1/7) of the busiest owner's
// least possible load. 32 GPUs whose lookups cost next to nothing (HBM 1e18 B/s) and whose
// NIC (12.5 GB/s) carries half of each owner's traffic (off_node_fraction 0.5, fp32 on the
// wire, batch 65,536): a piece of w columns of a table with L lookups per sample costs
// 0.5 x (2 x 4 B x w + 8 B x L) x 65,536 / 12.5 GB/s = (w + L) x 20.97 us, since it sends
// every sample's pooled w columns out, takes their gradients in and receives all L ids.
//  - A (64 columns, 256 lookups): its pieces never get under 256 x 20.97 us; 16 pieces of
//    4 columns (the finest) cost 260 x 20.97 = 5.453 ms each. That is the floor.
//  - B (128 columns, 4 lookups): whole 132 x 20.97 = 2.768 ms. Target = max(mean load,
//    floor / 7) = max(9.479 ms / 32 = 0.296 ms, 0.779 ms) = 0.779 ms. 3 pieces (44 columns)
//    cost 48 x 20.97 = 1.007 ms > target; 4 pieces (32 columns) 36 x 20.97 = 0.755 ms: B is
//    cut into 4. Cut down to the mean (the rule before) it was cut into 11 pieces of at most
//    12 columns, each still a flow to every node and a copy of all B's ids, for a busiest
//    owner (A's) no less loaded.
TEST_CASE("cost_greedy cuts a table no finer than a share of the floor set by the costliest one") {
  PlacementProblem p = one_node(32, 80, 512);
  for (auto& d : p.devices) {
    if (d.kind == OwnerKind::gpu) d.memory_bandwidth = BytesPerSecond(1e18);
  }
  p.off_node_fraction = 0.5;
  p.wire_element_size = Bytes(4.0);
  p.tables = {table("A", 1000, 64, 256), table("B", 1000, 128, 4)};
  PlacementOptions o;
  o.policy = "cost_greedy";
  o.tiers = {Tier::gpu_hbm};
  const PlacementPlan plan = place(p, o);
  check_coverage(p, plan);
  const double per_column = 0.5 * 8.0 * 65536.0 / 12.5e9;  // (w + L) x this, in seconds
  REQUIRE(plan.tables[0].shards.size() == 16);
  CHECK(plan.tables[0].shards[0].estimated_time.value() == dlrmsim::rel(260.0 * per_column).epsilon(1e-5));
  REQUIRE(plan.tables[1].shards.size() == 4);
  for (const auto& s : plan.tables[1].shards) {
    CHECK(s.column_count() == 32);
    CHECK(s.estimated_time.value() == dlrmsim::rel(36.0 * per_column).epsilon(1e-5));
  }
  // Each piece of B has a GPU of its own, not one of A's.
  std::set<std::uint32_t> owners;
  for (const auto& tp : plan.tables) {
    for (const auto& s : tp.shards) owners.insert(s.owners[0]);
  }
  CHECK(owners.size() == 20);
}

// NVIDIA's MLPerf DLRM-DCNv2 planner (placement/hugectr_planner.hpp) against its own output:
// planner.py of mlcommons/training_results_v4.1@b87b9e39 (NVIDIA/benchmarks/dlrm_dcnv2/
// implementations/eos_n16_ngc24.06_merlin_hugectr/sharding/planner.py, numpy 1.24) run on the
// MLPerf model (26 tables, hotness and rows of the v3.0 train.py) with generate_plan.py's
// arguments: CostModel(1, MEM_COMM_BW_RATIO / 4, 128 x 8e-9, 60 GB x GPUs per bucket),
// Planner(hotness, buckets, cost, dp_threshold) for the DGX H100 configurations. The
// model-parallel tables of each bucket:
//   v4.1 16 nodes (67, 0.0125): [20] [20] [20] [20] [21] [21] [19] [22] [11] [9] [4] [0] [10] [23] [1] [2]
//   v4.1 8 nodes (67, 0.0125):  [21] [20,10] [20,0] [20,1] [20,2] [19,23] [22,4] [11,9]
//   v3.0 16 nodes (67, none):   [21] [20] [20] [20] [20] [19,8] [22,7] [14,25] [11,5] [9,2] [4,12] [13,6]
//                               [15,16] [23,1,17] [10,3] [0,18,24]
//   v3.0 8 nodes (67, none):    [20,16] [20,18] [21,0,2] [19,23,6,24] [22,10,1,5] [14,15,17,25] [11,13,12,7] [9,4,3,8]
//   v3.0 1 node (7, none; buckets are GPUs):
//     [21,6,17] [20,0] [20,1,25] [20,3,7] [20,18,2] [19,4,23,10,8] [22,9,13,12,24] [14,11,15,16,5]
TEST_CASE("hugectr_auto's planner reproduces NVIDIA's planner.py on the MLPerf configurations") {
  const std::vector<std::int64_t> rows{40000000, 39060, 17295, 7424, 20265, 3,        7122,     1543,     63,
                                       40000000, 3067956, 405282, 10,  2209,  11938,    155,      4,        976,
                                       14,       40000000, 40000000, 40000000, 590152, 12973, 108, 36};
  const std::vector<double> hot{3, 2, 1, 2, 6, 1, 1, 1, 1, 7, 3, 8, 1, 6, 9, 5, 1, 1, 1, 12, 100, 27, 10, 3, 1, 1};
  const auto plan = [&](std::size_t buckets, double ratio, double dp_gb, double gpus_per_bucket) {
    HugectrPlannerInput in;
    in.buckets = buckets;
    in.hotness = hot;
    in.rows = rows;
    in.bytes_per_row = 128 * 8.0;
    in.bucket_capacity = 60e9 * gpus_per_bucket;
    in.table_cost = ratio / 4.0;
    for (std::int64_t r : rows) in.replicated.push_back(static_cast<double>(r) < dp_gb * 1e9 / (128 * 8.0));
    return hugectr_plan(in).buckets;
  };
  using B = std::vector<std::vector<std::size_t>>;
  CHECK(plan(16, 67, 0.0125, 8) ==
        B{{20}, {20}, {20}, {20}, {21}, {21}, {19}, {22}, {11}, {9}, {4}, {0}, {10}, {23}, {1}, {2}});
  CHECK(plan(8, 67, 0.0125, 8) == B{{21}, {20, 10}, {20, 0}, {20, 1}, {20, 2}, {19, 23}, {22, 4}, {11, 9}});
  CHECK(plan(16, 67, 0.0, 8) == B{{21}, {20}, {20}, {20}, {20}, {19, 8}, {22, 7}, {14, 25}, {11, 5}, {9, 2}, {4, 12},
                                  {13, 6}, {15, 16}, {23, 1, 17}, {10, 3}, {0, 18, 24}});
  CHECK(plan(8, 67, 0.0, 8) == B{{20, 16}, {20, 18}, {21, 0, 2}, {19, 23, 6, 24}, {22, 10, 1, 5}, {14, 15, 17, 25},
                                 {11, 13, 12, 7}, {9, 4, 3, 8}});
  CHECK(plan(8, 7, 0.0, 1) == B{{21, 6, 17}, {20, 0}, {20, 1, 25}, {20, 3, 7}, {20, 18, 2}, {19, 4, 23, 10, 8},
                                {22, 9, 13, 12, 24}, {14, 11, 15, 16, 5}});
}
