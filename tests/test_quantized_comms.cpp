// Quantised communication (software.collectives.qcomm, models/quantized_comms.hpp): the wire
// sizes of FBGEMM's codecs, the bytes their kernels move, and what a simulated step sends and
// converts, against hand computations on a two-node cluster.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <map>
#include <string>

#include "app/run_report.hpp"
#include "models/quantized_comms.hpp"
#include "models/simulation.hpp"
#include "scenario_fixtures.hpp"

using namespace dlrmsim;
using namespace dlrmsim::models;
using namespace dlrmsim::models::testing;

// Expected (pytorch/FBGEMM@063bd061 fbgemm_gpu/fbgemm_gpu/quantize_comm.py): fp16 and bf16 take
// 2 B a value, fp8 (hfp8) 1 B; int8 packs rows of row_dim values, each ((row_dim + 3) // 4 x 4)
// B of values and 8 B of scale and bias (calc_quantized_size): 40 B per 32 values, 1.25 B a
// value; a row of 30 values pads to 32 B, (32 + 8) / 30 B a value. No codec: the source's size.
TEST_CASE("wire bytes per value of each codec") {
  CHECK(wire_bytes_per_value(std::nullopt, Precision::fp32, 32) == 4.0);
  CHECK(wire_bytes_per_value(std::nullopt, Precision::fp16, 32) == 2.0);
  CHECK(wire_bytes_per_value(Precision::fp32, Precision::fp16, 32) == 4.0);
  CHECK(wire_bytes_per_value(Precision::bf16, Precision::fp32, 32) == 2.0);
  CHECK(wire_bytes_per_value(Precision::fp16, Precision::fp32, 32) == 2.0);
  CHECK(wire_bytes_per_value(Precision::fp8, Precision::fp32, 32) == 1.0);
  CHECK(wire_bytes_per_value(Precision::int8, Precision::fp32, 32) == 1.25);
  CHECK(wire_bytes_per_value(Precision::int8, Precision::fp32, 30) == dlrmsim::rel(40.0 / 30.0));
  // fp8 halves bf16's bytes on the wire.
  CHECK(wire_bytes_per_value(Precision::fp8, Precision::fp32, 32) * 2.0 ==
        wire_bytes_per_value(Precision::bf16, Precision::fp32, 32));
}

// Expected: an encode kernel reads each value in the source type and writes it in the wire
// type: 1000 fp32 values to fp8 move 1000 x (4 + 1) B; to int8 (row 32) 1000 x (4 + 1.25) B;
// none without a codec.
TEST_CASE("a codec kernel moves source plus wire bytes per value") {
  CHECK(codec_hbm_bytes(Precision::fp8, Precision::fp32, 1000.0, 32).value() == 5000.0);
  CHECK(codec_hbm_bytes(Precision::int8, Precision::fp32, 1000.0, 32).value() == 5250.0);
  CHECK(codec_hbm_bytes(Precision::bf16, Precision::fp16, 1000.0, 32).value() == 4000.0);
  CHECK(codec_hbm_bytes(std::nullopt, Precision::fp32, 1000.0, 32).value() == 0.0);
}

namespace {

// Two nodes of the tests' mini server (2 H100 joined by NVLink, one 100 Gbit/s NIC each) on
// one switch; four tables of 1000 rows x 16 columns, one lookup a sample each, batch 4096, fp32
// on the wire without a codec, a flat all-to-all; each GPU owns one whole table (cost_greedy
// deals the four tables over the four GPUs).
std::string two_nodes(const std::string& qcomm) {
  return R"(
name: qcomm
platform:
  name: mini
  node_templates:
)" + mini_server_template("100 Gbit/s") +
         R"(  cluster:
    groups: [{name: n, template: server, count: 2, role: trainer}]
    fabric: {kind: single_switch, link_kind: ethernet}
model:
  name: four_tables
  global_batch_size: 4096
  dense_features: 0
  embedding_tables: [{name: t, count: 4, rows: 1000, dim: 16, lookups_per_sample: 1}]
  interaction: concat
  top_mlp: [64, 1]
  optimizer: sgd
  precision: {compute: bf16, communication: fp32}
training: {mode: hybrid_parallel_sync, nodes: all}
software: {name: qcomm-test, collectives: {nccl: none, qcomm: )" +
         qcomm + R"(}}
placement: {policy: cost_greedy, tiers: [gpu_hbm]}
run: {warmup_steps: 1, steps: 1, calibration: )" +
         kRoot + "/configs/calibration}\n";
}

struct StepBytes {
  std::map<std::string, double> wire;  // all-to-all transfer bytes per link resource
  std::map<std::string, double> hbm;   // all-to-all kernel bytes per HBM resource (the codecs)
};

/// Bytes of the all-to-all category in the measured step: transfers over each link, and the
/// kernels' loads over each HBM.
StepBytes all_to_all_bytes(const std::string& qcomm) {
  RunOptions keep;
  keep.keep_graph = true;
  const RunReport r = run_scenario(load_scenario_text(two_nodes(qcomm), "qcomm.yaml", kRoot, {}), keep);
  const sim::ActivityGraph& g = *r.graph;
  StepBytes out;
  for (std::uint32_t a = 0; a < g.activity_count(); ++a) {
    const sim::ActivityId id{a};
    const auto& act = g.activity(id);
    if (act.kind != sim::ActivityKind::transfer || g.categories()[act.category] != "all_to_all" || r.step_of(id) != 1)
      continue;
    for (const auto res : g.route(id)) {
      const auto& resource = g.resource(res);
      if (!act.engine_work()) out.wire[resource.name] += act.bytes().value();
      if (act.engine_work() && resource.kind == "hbm") out.hbm[resource.name] += act.amount;
    }
  }
  return out;
}

}  // namespace

// System: the two-node cluster above, T = 4 trainers, each GPU owning one table. Each owner's
// pooled output is every sample's vector, v = 4096 x 16 = 65,536 values; each trainer
// receives v / 4 from each of the four owners, v values in all, and sends as many gradients.
// Without a codec (fp32, 4 B): out of n0's NIC go the forward vectors of n0's two owners for
// n1's two trainers, 2 x 2 x v/4 x 4 B, the backward gradients of n0's two trainers for n1's
// owners, the same, and the ids (8 B each) of n0's trainers for n1's tables, 2 x 2 x 1024 x
// 8 B: 4v + 4v + 32,768 B. With forward fp8 (1 B) the forward part is a quarter, v; the
// backward stays 4v. Codec kernels on gpu0's HBM: the owner encodes its v values (4 + 1 B
// each) and the trainer decodes the v it received (1 + 4 B each): 10 v B; with int8 both
// ways, encode and decode in each direction: 4 x v x (4 + 1.25) B.
TEST_CASE("quantised all-to-all: fp8 forward quarters fp32's forward bytes, codec kernels on both ends") {
  const double v = 4096.0 * 16, ids = 2 * 2 * 1024.0 * 8;
  const StepBytes none = all_to_all_bytes("{}");
  CHECK(none.wire.at("n0.nic->switch") == dlrmsim::rel(4 * v + 4 * v + ids));
  CHECK(none.hbm.empty());
  const StepBytes fp8 = all_to_all_bytes("{forward: fp8}");
  CHECK(fp8.wire.at("n0.nic->switch") == dlrmsim::rel(v + 4 * v + ids));
  CHECK(fp8.hbm.at("n0.gpu0.hbm") == dlrmsim::rel(10 * v));
  const StepBytes int8 = all_to_all_bytes("{forward: int8, backward: int8}");
  CHECK(int8.wire.at("n0.nic->switch") == dlrmsim::rel(1.25 * v + 1.25 * v + ids));
  CHECK(int8.hbm.at("n0.gpu0.hbm") == dlrmsim::rel(4 * v * 5.25));
  // fp8 forward halves bf16's forward bytes.
  const StepBytes bf16 = all_to_all_bytes("{forward: bf16}");
  CHECK(bf16.wire.at("n0.nic->switch") - 4 * v - ids == dlrmsim::rel(2 * (fp8.wire.at("n0.nic->switch") - 4 * v - ids)));
}

// Expected: a bad codec is a located error naming the choices; the all-reduce takes only DDP's
// 16-bit hooks.
TEST_CASE("qcomm settings are checked where they are read") {
  CHECK_THROWS_WITH_AS(load_scenario_text(two_nodes("{forward: fp4}"), "qcomm.yaml", kRoot, {}),
                       doctest::Contains("software.collectives.qcomm.forward"), ConfigError);
  CHECK_THROWS_WITH_AS(load_scenario_text(two_nodes("{all_reduce: fp8}"), "qcomm.yaml", kRoot, {}),
                       doctest::Contains("'fp8' is not one of"), ConfigError);
  CHECK_THROWS_WITH_AS(load_scenario_text(two_nodes("{int8_row_dim: 0}"), "qcomm.yaml", kRoot, {}),
                       doctest::Contains("int8_row_dim"), ConfigError);
}
