// Planner statistics (placement/plan_statistics.hpp): per owner memory, the estimate's parts
// and all-to-all bytes, their imbalance, per table pooling factor, kernel and shard type, on a
// small plan whose every figure is computed by hand below.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "app/plan_report.hpp"
#include "placement/plan_statistics.hpp"
#include "placement_fixtures.hpp"

using namespace dlrmsim;
using namespace dlrmsim::placement;
using namespace dlrmsim::placement::testing;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

Shard shard_on(std::uint32_t gpu, std::int64_t row_begin, std::int64_t row_end, int dim) {
  Shard s;
  s.tier = Tier::gpu_hbm;
  s.owners = {gpu};
  s.storage = {gpu};
  s.row_begin = row_begin;
  s.row_end = row_end;
  s.column_end = dim;
  return s;
}

/// one_node(2 GPUs): socket0 (device 0), gpu0 (1), gpu1 (2); global batch 65,536, fp32 rows
/// with 4 B of optimiser state per row, no dense replica or activations. Three tables:
///   a: 1,000,000 x 64, 2 lookups a sample, table_wise on gpu0;
///   b:   500,000 x 32, 1 lookup,  row_wise, rows [0, 250000) on gpu0 and the rest on gpu1;
///   c:   100,000 x 16, 4 lookups, table_wise on gpu1.
struct SmallPlan {
  PlacementProblem problem = one_node(2, 16, 64);
  PlacementPlan plan;
  explicit SmallPlan(double off_node_fraction = 0.0) {
    problem.off_node_fraction = off_node_fraction;
    problem.tables = {table("a", 1'000'000, 64, 2), table("b", 500'000, 32, 1), table("c", 100'000, 16, 4)};
    plan.policy = "explicit";
    TablePlacement a{.table = 0, .name = "a", .tier = Tier::gpu_hbm, .sharding = Sharding::table_wise, .shards = {shard_on(1, 0, 1'000'000, 64)}, .distinct_fraction = {}};
    TablePlacement b{.table = 1, .name = "b", .tier = Tier::gpu_hbm, .sharding = Sharding::row_wise,
                     .shards = {shard_on(1, 0, 250'000, 32), shard_on(2, 250'000, 500'000, 32)}, .distinct_fraction = {}};
    TablePlacement c{.table = 2, .name = "c", .tier = Tier::gpu_hbm, .sharding = Sharding::table_wise, .shards = {shard_on(2, 0, 100'000, 16)}, .distinct_fraction = {}};
    plan.tables = {a, b, c};
    account(problem, PlacementOptions{}, plan);
  }
};

}  // namespace

// Expected, by hand. HBM = rows x columns x 4 B + rows x 4 B of state: a 256 MB + 4 MB = 260e6,
// each half of b 32 MB + 1 MB = 33e6, c 6.4 MB + 0.4 MB = 6.8e6; gpu0 293e6, gpu1 39.8e6,
// mean 166.4e6, imbalance 293 / 166.4. All-to-all: ids 8 B x lookups (a 65,536 x 2 = 1 MiB,
// each half of b 0.25 MiB, c 2 MiB), pooled outputs 4 B x 65,536 x columns sent (a 16 MiB, b
// 8 MiB a half, c 4 MiB) and as many gradient bytes received: gpu0 sends 24 MiB and receives
// 1 + 16 + 0.25 + 8 = 25.25 MiB, gpu1 sends 12 MiB and receives 0.25 + 8 + 2 + 4 = 14.25; sent
// imbalance 24 / 18, received 25.25 / 19.75. Compute (no profile: rows x row bytes over 1 TB/s
// x 0.5 gather efficiency, backward = 1 x forward): gpu0 forward (131,072 x 256 B + 32,768 x
// 128 B) / 5e11 B/s = 75.497472 us. One node: no communication in the estimate. The parts add
// up to the device's estimated load, the planner's one estimate.
TEST_CASE("planner statistics of a 2-GPU 3-table plan match the hand-computed memory, bytes and imbalance") {
  const SmallPlan s;
  const PlanStatistics st = plan_statistics(s.problem, s.plan);
  REQUIRE(st.owners.size() == 3);
  const OwnerStatistics& g0 = st.owners[1];
  const OwnerStatistics& g1 = st.owners[2];
  CHECK(g0.name == "gpu0");
  CHECK(g0.hbm.value() == rel(293e6));
  CHECK(g1.hbm.value() == rel(39.8e6));
  CHECK(g0.dram.value() == 0.0);
  CHECK(st.owners[0].dram.value() == 0.0);  // the socket holds nothing
  CHECK(g0.sent().value() == rel(24 * kMiB));
  CHECK(g0.received().value() == rel(25.25 * kMiB));
  CHECK(g0.ids_received.value() == rel(1.25 * kMiB));
  CHECK(g1.sent().value() == rel(12 * kMiB));
  CHECK(g1.received().value() == rel(14.25 * kMiB));
  CHECK(g0.forward_compute.value() == rel(75.497472e-6));
  CHECK(g0.backward_compute.value() == rel(75.497472e-6));
  CHECK(g0.forward_comms.value() == 0.0);
  CHECK(g0.backward_comms.value() == 0.0);
  CHECK(g0.total().value() == rel(s.plan.devices[1].estimated_load.value()));
  CHECK(g1.total().value() == rel(s.plan.devices[2].estimated_load.value()));
  CHECK(g0.shards[static_cast<std::size_t>(Sharding::table_wise)] == 1);
  CHECK(g0.shards[static_cast<std::size_t>(Sharding::row_wise)] == 1);

  REQUIRE(st.imbalance.size() == 2);  // GPUs and the socket
  const Imbalance& gpus = st.imbalance[0];
  CHECK(gpus.kind == OwnerKind::gpu);
  CHECK(gpus.devices == 2);
  auto ratio = [&](OwnerFigure f) { return gpus.max_over_mean[static_cast<std::size_t>(f)]; };
  CHECK(ratio(OwnerFigure::hbm) == rel(293.0 / 166.4));
  CHECK(ratio(OwnerFigure::sent) == rel(24.0 / 18.0));
  CHECK(ratio(OwnerFigure::received) == rel(25.25 / 19.75));
  CHECK(ratio(OwnerFigure::dram) == 0.0);  // no DRAM used: no ratio
  CHECK(gpus.max_device[static_cast<std::size_t>(OwnerFigure::hbm)] == 1);
  CHECK(gpus.min_device[static_cast<std::size_t>(OwnerFigure::hbm)] == 2);

  REQUIRE(st.tables.size() == 3);
  CHECK(st.tables[0].pooling_factor == 2.0);
  CHECK(st.tables[0].kernel == "fused");
  CHECK(st.tables[0].shard_type == "TW");
  CHECK(st.tables[1].shard_type == "RW");
  CHECK(st.tables[1].owners == 2);
  CHECK(st.tables[2].pooling_factor == 4.0);
}

// The same plan on two trainer nodes' worth of traffic (off_node_fraction 0.5): a GPU owner's
// NIC (12.5 GB/s) carries half its exchange. gpu0 forward: 0.5 x (ids 1.25 MiB + outputs 24 MiB)
// = 13,238,272 B / 12.5e9 B/s = 1.05906176 ms; backward: 0.5 x 24 MiB of gradients / 12.5e9 =
// 1.00663296 ms. The two add up to the shards' transfer term of ShardCost.
TEST_CASE("planner statistics split a GPU owner's NIC time into the forward and backward exchange") {
  const SmallPlan s(0.5);
  const PlanStatistics st = plan_statistics(s.problem, s.plan);
  const OwnerStatistics& g0 = st.owners[1];
  CHECK(g0.forward_comms.value() == rel(1.05906176e-3));
  CHECK(g0.backward_comms.value() == rel(1.00663296e-3));
  CHECK(g0.total().value() == rel(s.plan.devices[1].estimated_load.value()));
}

// The text names the figures TorchRec prints and the imbalance; the JSON carries them under the
// documented keys, every number as computed.
TEST_CASE("planner statistics print as text and JSON") {
  const SmallPlan s;
  const PlanStatistics st = plan_statistics(s.problem, s.plan);
  std::ostringstream text;
  app::print_plan_statistics(text, st);
  for (const char* word : {"gpu0", "TW: 1 RW: 1", "imbalance (max / mean)", "HBM 1.76", "fused", "25.25", "24.00"}) {
    CHECK_MESSAGE(text.str().find(word) != std::string::npos, word);
  }
  const nlohmann::json j = nlohmann::json::parse(app::plan_statistics_json(st).dump());
  CHECK(j["owners"][1]["received_bytes"].get<double>() == 25.25 * kMiB);
  CHECK(j["owners"][1]["shards"]["RW"] == 1);
  CHECK(j["imbalance"][0]["max_device"]["hbm_bytes"] == "gpu0");
  CHECK(j["tables"][1]["shard_type"] == "RW");
}

// System: 20 GPUs (beyond kListedOwners, 16), GPU k owning one table_wise table of (k + 1) x
// 10,000 rows and k + 1 lookups a sample, so gpu19 holds and does the most and gpu0 the least;
// a socket holding nothing.
// Expected: the text has one mean row for the 20 GPUs and the largest and smallest by total
// estimate (gpu19, gpu0), no row per GPU; the socket's kind, holding and doing nothing, only
// its mean row; the table list the 16 largest estimates and the count of the rest.
TEST_CASE("planner statistics of more than 16 devices of a kind print the mean and the extremes") {
  PlacementProblem p = one_node(20, 16, 64);
  PlacementPlan plan;
  for (std::uint32_t k = 0; k < 20; ++k) {
    const std::int64_t rows = 10'000 * static_cast<std::int64_t>(k + 1);
    p.tables.push_back(table("t" + std::to_string(k), rows, 16, k + 1.0));
    plan.tables.push_back({.table = k, .name = "t" + std::to_string(k), .tier = Tier::gpu_hbm,
                           .sharding = Sharding::table_wise, .shards = {shard_on(k + 1, 0, rows, 16)},
                           .distinct_fraction = {}});
  }
  account(p, PlacementOptions{}, plan);
  std::ostringstream out;
  app::print_plan_statistics(out, plan_statistics(p, plan));
  const std::string text = out.str();
  CHECK(text.find("gpu mean of 20") != std::string::npos);
  CHECK(text.find("largest gpu19") != std::string::npos);
  CHECK(text.find("smallest gpu0") != std::string::npos);
  CHECK(text.find("\ngpu5 ") == std::string::npos);
  CHECK(text.find("cpu_socket mean of 1") == std::string::npos);  // one socket: listed
  CHECK(text.find("\nsocket0 ") != std::string::npos);
  CHECK(text.find("(the largest 16)") != std::string::npos);
  CHECK(text.find("... 4 more tables") != std::string::npos);
}
