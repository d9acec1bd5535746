// Tests of the dense-operator registry and its operators (models/dense_operator.hpp,
// models/operators/*.cpp). Each expected value is the operator's documented form evaluated
// on the shipped H100 profile or on round numbers.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <string>

#include "models/cost_models.hpp"
#include "models/dense_operator.hpp"
#include "models/model_spec.hpp"
#include "paths.hpp"

using namespace dlrmsim;
using namespace dlrmsim::models;
using dlrmsim::topo::Precision;

namespace {

const std::string kCalibration = dlrmsim::testing::kRoot + "/configs/calibration";

/// 16 dense features -> bottom MLP 8, then `interaction` over 2 tables of dim 8, top MLP 16 -> 1.
ModelSpec model_with(const std::string& interaction) {
  return load_model(ConfigNode::load_string(R"(
name: m
global_batch_size: 8
dense_features: 16
embedding_tables: [{name: t, count: 2, rows: 10, dim: 8}]
bottom_mlp: [8]
interaction: )" + interaction + R"(
top_mlp: [16, 1]
optimizer: sgd
precision: {compute: bf16}
)",
                                            "m.yaml"));
}

}  // namespace

// The registry lists every implementation file (an operator whose file is missing from the
// list could never be chosen; an entry without a file would not link), each under its file's
// name, with a description and its three functions; every name resolves to its entry.
TEST_CASE("the registry lists every operator file in models/operators/") {
  std::set<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dlrmsim::testing::kRoot + "/models/operators")) {
    if (e.path().extension() == ".cpp") files.insert(e.path().stem().string());
  }
  std::set<std::string> names;
  for (const auto& op : dense_operators()) {
    CAPTURE(op.name);
    names.emplace(op.name);
    CHECK(!op.description.empty());
    CHECK(static_cast<bool>(op.declare));
    CHECK(static_cast<bool>(op.gpu_cost));
    CHECK(static_cast<bool>(op.cpu_cost));
    CHECK(find_dense_operator(op.name) == &op);
    CHECK(&dense_operator(op.name) == &op);
  }
  CHECK(names.size() == dense_operators().size());  // names are unique
  CHECK(names == files);
  CHECK(find_dense_operator("attention") == nullptr);
  CHECK_THROWS_WITH_AS(dense_operator("attention"), doctest::Contains("dot_interaction"), std::invalid_argument);
}

// Every interaction kind of the model file names a registered operator.
TEST_CASE("each interaction kind is a registered operator") {
  for (const auto kind : {Interaction::Kind::dot, Interaction::Kind::concat, Interaction::Kind::dcnv2,
                           Interaction::Kind::feature_mlp, Interaction::Kind::hstu}) {
    Interaction i;
    i.kind = kind;
    CAPTURE(i.describe());
    CHECK(find_dense_operator(i.operator_name()) != nullptr);
  }
}

// A model's layers record their operator and whether they run before the pooled embeddings
// arrive: the bottom MLP only.
TEST_CASE("dense layers name their operator and their place in the step") {
  const auto layers = model_with("{kind: dcnv2, cross_layers: 2, low_rank: 4}").dense_layers();
  REQUIRE(layers.size() == 4);
  CHECK(layers[0].op->name == "linear");
  CHECK(layers[0].before_embeddings);
  CHECK(layers[1].op->name == "dcnv2_cross");
  CHECK(layers[2].op->name == "linear");
  CHECK(layers[3].op->name == "linear");
  for (std::size_t i = 1; i < layers.size(); ++i) CHECK_FALSE(layers[i].before_embeddings);
  CHECK(model_with("dot").dense_layers()[1].op->name == "dot_interaction");
  CHECK(model_with("concat").dense_layers()[1].op->name == "concat_interaction");
  // The GPU and CPU costs carry the place over to the step (models/dense_work.cpp).
  const auto p = topo::load_device_profile_for("H100-SXM5-80GB", kCalibration);
  const auto costs = gpu_dense_costs(model_with("dot"), p, 64);
  CHECK(costs[0].before_embeddings);
  CHECK_FALSE(costs[1].before_embeddings);
}

// dot_interaction over 3 vectors of 8 (the bottom output and 2 pooled embeddings): 8 + 3 pairs
// wide; the batched X X^T, batched_gemm(b; 3, 3, 8), floored by its activations (24 in + 11 out
// bf16 values a sample) over HBM; backward twice both, with two launches.
TEST_CASE("dot interaction: the batched X X^T floored by its activation traffic") {
  const auto p = topo::load_device_profile_for("H100-SXM5-80GB", kCalibration);
  const ModelSpec m = model_with("dot");
  const DenseLayer l = m.dense_layers()[1];
  CHECK(l.in == 24);
  CHECK(l.out == 11);
  CHECK(l.forward_flops_per_sample.value() == dlrmsim::rel(2.0 * 3 * 3 * 8));
  const std::int64_t b = 4096;
  const auto c = l.op->gpu_cost(l, GpuCostInput{m, p, Precision::bf16, b});
  const Seconds gemm = p.batched_gemm_time(b, 3, 3, 8, Precision::bf16);
  const Seconds floor = Bytes(2.0 * (24 + 11) * b) / p.achievable_hbm_bandwidth();
  const Seconds launch = p.kernel_launch_overhead();
  CHECK(c.forward.value() == dlrmsim::rel((std::max(gemm, floor) + launch).value()));
  CHECK(c.backward.value() == dlrmsim::rel((std::max(gemm, floor) * 2.0 + launch * 2.0).value()));
  CHECK(c.forward_kernels == 1);
  CHECK(c.backward_kernels == 2);
}

// dcnv2_cross, 2 layers over w = 24: low rank 4 is two GEMMs and an elementwise kernel a
// layer forward (6 kernels), four GEMMs and one backward (10); full rank one GEMM forward (4
// kernels), two backward (6). The forward time is its GEMMs, the elementwise traffic
// (4 w bf16 values a sample a layer) over HBM and the launches.
TEST_CASE("DCNv2 cross layers: low-rank GEMMs, the elementwise traffic and a launch each") {
  const auto p = topo::load_device_profile_for("H100-SXM5-80GB", kCalibration);
  const std::int64_t b = 1024;
  const ModelSpec low = model_with("{kind: dcnv2, cross_layers: 2, low_rank: 4}");
  const DenseLayer l = low.dense_layers()[1];
  const auto c = l.op->gpu_cost(l, GpuCostInput{low, p, Precision::bf16, b});
  CHECK(c.forward_kernels == 6);
  CHECK(c.backward_kernels == 10);
  const Seconds gemms = (p.gemm_time(b, 4, 24, Precision::bf16) + p.gemm_time(b, 24, 4, Precision::bf16)) * 2.0;
  const Seconds elementwise = Bytes(2.0 * 4 * 24 * b * 2) / p.achievable_hbm_bandwidth();
  CHECK(c.forward.value() == dlrmsim::rel((gemms + elementwise + p.kernel_launch_overhead() * 6.0).value()));
  const ModelSpec full = model_with("{kind: dcnv2, cross_layers: 2}");
  const DenseLayer f = full.dense_layers()[1];
  const auto cf = f.op->gpu_cost(f, GpuCostInput{full, p, Precision::bf16, b});
  CHECK(cf.forward_kernels == 4);
  CHECK(cf.backward_kernels == 6);
  CHECK(f.parameters == dlrmsim::rel(2 * (24.0 * 24 + 24)));
}

// feature_mlp with widths [32, 4] over the 2 tables of dim 8: the shared weights counted once
// (8 x 32 + 32 + 32 x 4 + 4 = 420 parameters), the arithmetic per feature (F = 2: 2 x 2 x
// (8 x 32 + 32 x 4) = 1,536 FLOP a sample forward, twice that backward); the output is the
// bottom MLP's 8 plus 2 x 4. On a GPU each layer is one GEMM over the b F stacked rows
// forward, two backward, a launch each.
TEST_CASE("feature MLP: shared weights, the arithmetic of every feature, one GEMM per layer over b F rows") {
  const ModelSpec m = model_with("{kind: feature_mlp, widths: [32, 4]}");
  const DenseLayer l = m.dense_layers()[1];
  CHECK(l.op->name == "feature_mlp");
  CHECK(l.in == 8 + 16);
  CHECK(l.out == 8 + 2 * 4);
  CHECK(l.parameters == dlrmsim::rel(420.0));
  CHECK(l.forward_flops_per_sample.value() == dlrmsim::rel(1536.0));
  CHECK(l.backward_flops_per_sample.value() == dlrmsim::rel(3072.0));
  CHECK(m.dense_layers()[2].in == 16);  // the top MLP reads the concatenation
  const auto p = topo::load_device_profile_for("H100-SXM5-80GB", kCalibration);
  const std::int64_t b = 1024, rows = 2 * b;
  const auto c = l.op->gpu_cost(l, GpuCostInput{m, p, Precision::bf16, b});
  const Seconds launch = p.kernel_launch_overhead();
  const Seconds fwd = p.gemm_time(rows, 32, 8, Precision::bf16) + p.gemm_time(rows, 4, 32, Precision::bf16) + launch * 2.0;
  const Seconds bwd = p.gemm_time(rows, 8, 32, Precision::bf16) + p.gemm_time(8, 32, rows, Precision::bf16) +
                      p.gemm_time(rows, 32, 4, Precision::bf16) + p.gemm_time(32, 4, rows, Precision::bf16) + launch * 4.0;
  CHECK(c.forward.value() == dlrmsim::rel(fwd.value()));
  CHECK(c.backward.value() == dlrmsim::rel(bwd.value()));
  CHECK(c.forward_kernels == 2);
  CHECK(c.backward_kernels == 4);
  // Tables of different dims have no common width to share weights over.
  CHECK_THROWS_WITH_AS(load_model(ConfigNode::load_string(R"(
name: m
global_batch_size: 8
dense_features: 16
embedding_tables: [{name: a, rows: 10, dim: 8}, {name: b, rows: 10, dim: 4}]
interaction: {kind: feature_mlp, widths: [4]}
top_mlp: [1]
optimizer: sgd
)",
                                                       "m.yaml")),
                       doctest::Contains("feature_mlp needs all tables to have the same dim"), ConfigError);
}

// On a CPU socket an interaction takes its FLOPs over peak x the large-GEMM efficiency, a call
// per GEMM: the dot's 2 x 3 x 3 x 8 FLOP a sample at batch 1000 on 1 TFLOP/s x 0.5.
TEST_CASE("CPU interactions take their FLOPs over the socket's peak") {
  topo::CpuSocketSpec cpu;
  cpu.model = "test";
  cpu.peak.set(topo::Precision::bf16, FlopsPerSecond(1e12));
  const ModelSpec m = model_with("dot");
  const DenseLayer l = m.dense_layers()[1];
  const auto c = l.op->cpu_cost(l, CpuCostInput{m, cpu, nullptr, 0.5, FlopsPerSecond(1e12), 1000, std::nullopt});
  CHECK(c.forward.value() == dlrmsim::rel(144.0 * 1000 / 0.5e12));
  CHECK(c.backward.value() == dlrmsim::rel(2.0 * 144.0 * 1000 / 0.5e12));
  CHECK(c.forward_kernels == 1);
  CHECK(c.backward_kernels == 2);
}

// PyTorch's CPU bmm without MKL runs one BLAS call per item (software.cpu_trainer.bmm
// per_item): the dot interaction of 2 tables + the bottom output (3 vectors of 8) at batch
// 1000 on a 4-core socket of 1 TFLOP/s (250 GFLOP/s a core), 2 us a call, items at 0.1 of the
// core's large-GEMM rate (250 GFLOP/s x 0.5): forward 1000 x (2 us + 2 x 3 x 3 x 8 FLOP /
// 12.5 GFLOP/s), backward two such products of 3 x 8 x 3 (the same FLOPs) an item.
TEST_CASE("CPU dot interaction per item: a call and the item's FLOPs for every sample, on one core") {
  topo::CpuSocketSpec cpu;
  cpu.model = "test";
  cpu.cores = 4;
  cpu.peak.set(topo::Precision::bf16, FlopsPerSecond(1e12));
  const ModelSpec m = model_with("dot");
  const DenseLayer l = m.dense_layers()[1];
  const CpuCostInput in{m, cpu, nullptr, 0.5, FlopsPerSecond(1e12), 1000, CpuCostInput::PerItemGemm{Seconds(2e-6), 0.1}};
  const auto c = l.op->cpu_cost(l, in);
  const double item = 2e-6 + 144.0 / (250e9 * 0.5 * 0.1);
  CHECK(c.forward.value() == dlrmsim::rel(1000 * item));
  CHECK(c.backward.value() == dlrmsim::rel(2 * 1000 * item));
  // Batched (no per_item): the socket's FLOP form above, far cheaper than a call per sample.
  const CpuCostInput batched{m, cpu, nullptr, 0.5, FlopsPerSecond(1e12), 1000, std::nullopt};
  CHECK(l.op->cpu_cost(l, batched).forward.value() < c.forward.value() / 100.0);
}
