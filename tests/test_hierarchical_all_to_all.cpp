// HugeCTR's hierarchical all-to-all (software.collectives.all_to_all: hierarchical,
// models/collectives.hpp) against bytes worked out by hand on a two-node cluster.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <map>
#include <string>
#include <vector>

#include "app/run_report.hpp"
#include "models/simulation.hpp"
#include "scenario_fixtures.hpp"

using namespace dlrmsim;
using namespace dlrmsim::models;
using namespace dlrmsim::models::testing;

namespace {

// Two nodes of the tests' mini server (2 H100 joined by NVLink, one NIC each) on one switch;
// two tables of 1000 rows x 16 columns, one lookup a sample each, batch 4096, fp32 on the
// wire; the benchmark's planner with a table cost so high (MEM_COMM_BW_RATIO 400: 100 a table
// against a hotness of 1) that it puts one table on each node, row-sharded over its two GPUs.
std::string two_nodes(const std::string& all_to_all, const std::string& nodes) {
  return R"(
name: hier
platform:
  name: mini
  node_templates:
)" + mini_server_template("100 Gbit/s") +
         R"(  cluster:
    groups: [{name: n, template: server, count: 2, role: trainer}]
    fabric: {kind: single_switch, link_kind: ethernet}
model:
  name: two_tables
  global_batch_size: 4096
  dense_features: 0
  embedding_tables: [{name: t, count: 2, rows: 1000, dim: 16, lookups_per_sample: 1}]
  interaction: concat
  top_mlp: [16, 1]
  optimizer: sgd
  precision: {compute: bf16, communication: fp32}
training: {mode: hybrid_parallel_sync, nodes: )" +
         nodes + R"(}
software: {name: hier-test, collectives: {nccl: none, all_to_all: )" +
         all_to_all + R"(}}
placement: {policy: hugectr_auto, tiers: [gpu_hbm], mem_comm_bw_ratio: 400}
run: {warmup_steps: 1, steps: 1, calibration: )" +
         kRoot + "/configs/calibration}\n";
}

/// Bytes of the all-to-all category crossing each resource (by name) in the measured step,
/// over every resource of each transfer's route.
std::map<std::string, double> all_to_all_bytes(const RunReport& r) {
  const sim::ActivityGraph& g = *r.graph;
  std::map<std::string, double> out;
  for (std::uint32_t a = 0; a < g.activity_count(); ++a) {
    const sim::ActivityId id{a};
    const auto& act = g.activity(id);
    if (act.kind != sim::ActivityKind::transfer || g.categories()[act.category] != "all_to_all" || r.step_of(id) != 1)
      continue;
    for (const auto res : g.route(id)) out[g.resource(res).name] += act.bytes().value();
  }
  return out;
}

}  // namespace

// System: the two-node cluster above, T = 4 trainers, g = 2 a node. Each table is row-sharded
// over its node's two GPUs: each shard produces partial pooled sums for every sample,
// w = 4096 x 16 x 4 B = 262,144 B, and receives the ids of its rows, i = 8 B x 4096 / 2 =
// 16,384 B. Expected bytes of one step (forward pooled, backward gradients, ids) on n0's NVLink
// gpu0 -> gpu1 and out of n0's NIC:
//   flat: owner gpu0 sends each trainer w/4: w/4 to gpu1 forward; gpu0 sends owner gpu1 w/4
//     backward; ids i/4 to gpu1: NVLink w/2 + i/4 = 135,168 B. Off the node each owner sends
//     2 x w/4 forward, each trainer 2 x w/4 backward (to n1's owners), ids 2 x i/2: NIC
//     2 w + i = 540,672 B;
//   hierarchical: owner gpu0 sends gpu1 w/g = w/2 forward (gpu1's share and that of gpu1 on
//     n1), gpu0 sends owner gpu1 w/2 backward, ids as flat: NVLink w + i/4 = 266,240 B; across
//     nodes GPU j sends its peer on n1 the node's partial sums reduced, (w/2 + w/2)/4 = w/4
//     each way per GPU: NIC 2 GPUs x (w/4 forward + w/4 backward) + i = w + i = 278,528 B.
// The same bytes whether every node or a representative node is simulated.
TEST_CASE("hierarchical all-to-all: partial sums cross NVLink, then the reduced sums cross the rails once") {
  const double w = 4096.0 * 16 * 4, i = 8.0 * 4096 / 2;
  RunOptions keep;
  keep.keep_graph = true;
  for (const std::string nodes : {"all", "representative"}) {
    CAPTURE(nodes);
    const auto flat = all_to_all_bytes(run_scenario(load_scenario_text(two_nodes("flat", nodes), "hier.yaml", kRoot, {}), keep));
    const auto hier =
        all_to_all_bytes(run_scenario(load_scenario_text(two_nodes("hierarchical", nodes), "hier.yaml", kRoot, {}), keep));
    CHECK(flat.at("n0.gpu0->n0.gpu1") == dlrmsim::rel(w / 2 + i / 4));
    CHECK(hier.at("n0.gpu0->n0.gpu1") == dlrmsim::rel(w + i / 4));
    CHECK(flat.at("n0.nic->switch") == dlrmsim::rel(2 * w + i));
    CHECK(hier.at("n0.nic->switch") == dlrmsim::rel(w + i));
  }
}
