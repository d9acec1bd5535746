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
  const auto c = l.op->cpu_cost(l, CpuCostInput{m, cpu, nullptr, 0.5, FlopsPerSecond(1e12), 1000});
  CHECK(c.forward.value() == dlrmsim::rel(144.0 * 1000 / 0.5e12));
  CHECK(c.backward.value() == dlrmsim::rel(2.0 * 144.0 * 1000 / 0.5e12));
  CHECK(c.forward_kernels == 1);
  CHECK(c.backward_kernels == 2);
}

namespace {

/// The sequence model of the HSTU tests: tables of dim D = 8, one layer of H = 2 heads,
/// a = h = 4 (so P = (2h + 2a) H = 32), a jagged mean of `length` events, `extra` further keys.
std::string hstu_model(const std::string& length, const std::string& extra = "") {
  return R"(
name: m
global_batch_size: 8
dense_features: 16
embedding_tables: [{name: items, rows: 10, dim: 8}]
interaction: {kind: hstu, layers: 1, heads: 2, attention_dim: 4, hidden_dim: 4, sequence_length: )" +
         length + ", max_sequence_length: 4096" + extra + R"(}
top_mlp: [16, 1]
optimizer: sgd
precision: {compute: bf16}
)";
}

ModelSpec hstu(const std::string& length, const std::string& extra = "") {
  return load_model(ConfigNode::load_string(hstu_model(length, extra), "m.yaml"));
}

}  // namespace

// One HSTU layer (stu.py at 1cf74590) over a sample of L = 10 events, D = 8, H = 2, a = h = 4,
// P = 32, by hand: projections L (2 D P + 2 (3hH) D) = 10 (512 + 384) = 8960 FLOP; causal
// attention H L (L + 1) / 2 (2a + 2h) = 2 x 55 x 16 = 1760 FLOP; forward 10720. Backward twice
// that plus the recomputed uvqk GEMM 10 x 2 x 8 x 32 = 5120: 26560. Parameters D P + P + 2D +
// 3hH D + 2hH = 256 + 32 + 16 + 192 + 16 = 512. Activations kept per sample: L (D + hH) = 160
// with recompute, L (2D + P + 4hH) = 800 without (5x).
TEST_CASE("hstu: one layer's FLOPs, parameters and kept activations by hand") {
  const ModelSpec m = hstu("10");
  const DenseLayer l = m.dense_layers()[0];
  CHECK(l.op->name == "hstu");
  CHECK(l.in == 8);
  CHECK(l.out == 8);
  CHECK(l.forward_flops_per_sample.value() == dlrmsim::rel(10720.0));
  CHECK(l.backward_flops_per_sample.value() == dlrmsim::rel(26560.0));
  CHECK(l.parameters == dlrmsim::rel(512.0));
  CHECK(l.activation_elements_per_sample == dlrmsim::rel(160.0));
  const DenseLayer kept_all = hstu("10", ", recompute: false").dense_layers()[0];
  CHECK(kept_all.activation_elements_per_sample == dlrmsim::rel(800.0));
  CHECK(kept_all.activation_elements_per_sample / l.activation_elements_per_sample == dlrmsim::rel(5.0));
  CHECK(kept_all.backward_flops_per_sample.value() == dlrmsim::rel(2.0 * 10720.0));
}

// The attention's FLOPs are quadratic in one sequence's length: with the projections linear
// (896 FLOP an event), the attention part at L is 16 L (L + 1); doubling L from 100 to 200
// multiplies it by 200 x 201 / (100 x 101) = 3.98.
TEST_CASE("hstu: attention FLOPs quadratic in the sequence length") {
  const auto attention = [](double length) {
    return hstu(std::to_string(static_cast<int>(length))).dense_layers()[0].forward_flops_per_sample.value() -
           896.0 * length;
  };
  CHECK(attention(100) == dlrmsim::rel(16.0 * 100 * 101));
  CHECK(attention(200) / attention(100) == dlrmsim::rel(200.0 * 201 / (100.0 * 101)));
}

// On a GPU, local batch b = 64 of L = 10 (T = 640 events), per layer: gemm(T, 32, 8) and
// gemm(T, 8, 24) forward, the attention's b H L (L + 1) / 2 (2a + 2h) FLOPs at the profile's
// GEMM efficiency for 10 x 10 x 8, floored by its fused-kernel traffic T H (2a + 2h) bf16
// values (no L x L matrix), and the elementwise traffic T (2P + 2 x 24) values over HBM; five
// launches. The attention's FLOPs and traffic scale with the number of sequences.
TEST_CASE("hstu: GPU forward from the device profile, no attention matrix in HBM") {
  const auto p = topo::load_device_profile_for("H100-SXM5-80GB", kCalibration);
  const ModelSpec m = hstu("10");
  const DenseLayer l = m.dense_layers()[0];
  const std::int64_t b = 64, tokens = 640;
  const auto c = l.op->gpu_cost(l, GpuCostInput{m, p, Precision::bf16, b});
  const Seconds attention = Flops(64.0 * 2 * 55 * 2 * 8) / (p.gemm_peak(Precision::bf16) *
                                                            p.gemm_efficiency(10, 10, 8, Precision::bf16));
  const Seconds io = Bytes(2.0 * tokens * 2 * 16) / p.achievable_hbm_bandwidth();
  const Seconds elementwise = Bytes(2.0 * tokens * (64 + 48)) / p.achievable_hbm_bandwidth();
  const Seconds fwd = p.gemm_time(tokens, 32, 8, Precision::bf16) + p.gemm_time(tokens, 8, 24, Precision::bf16) +
                      std::max(attention, io) + elementwise + p.kernel_launch_overhead() * 5.0;
  CHECK(c.forward.value() == dlrmsim::rel(fwd.value()));
  CHECK(c.forward_kernels == 5);
  CHECK(c.backward_kernels == 8);
  const Bytes gemms = topo::gemm_traffic(tokens, 32, 8, Precision::bf16) + topo::gemm_traffic(tokens, 8, 24, Precision::bf16);
  CHECK(c.forward_hbm.value() == dlrmsim::rel((gemms + Bytes(2.0 * tokens * 2 * 16 + 2.0 * tokens * 112)).value()));
  // Twice the sequences: twice the attention traffic (linear in the number of sequences).
  const auto c2 = l.op->gpu_cost(l, GpuCostInput{m, p, Precision::bf16, 2 * b});
  const Bytes gemms2 = topo::gemm_traffic(2 * tokens, 32, 8, Precision::bf16) +
                       topo::gemm_traffic(2 * tokens, 8, 24, Precision::bf16);
  CHECK((c2.forward_hbm - gemms2).value() == dlrmsim::rel(2.0 * (c.forward_hbm - gemms).value()));
}

// Bad sequence models are located errors: heads not dividing the dim, a negative length, a
// mean longer than the longest sequence, an unknown kind.
TEST_CASE("hstu: bad model files are located errors") {
  const auto bad = [](const std::string& text) { (void)load_model(ConfigNode::load_string(text, "m.yaml")); };
  auto text = hstu_model("10");
  CHECK_THROWS_WITH_AS(bad(std::string(text).replace(text.find("heads: 2"), 8, "heads: 3")),
                       doctest::Contains("m.yaml:6"), ConfigError);
  CHECK_THROWS_WITH_AS(bad(std::string(text).replace(text.find("heads: 2"), 8, "heads: 3")),
                       doctest::Contains("must divide the embedding dim (8)"), ConfigError);
  CHECK_THROWS_WITH_AS(bad(hstu_model("-5")), doctest::Contains("sequence_length"), ConfigError);
  CHECK_THROWS_WITH_AS(bad(hstu_model("5000")), doctest::Contains("exceeds max_sequence_length (4096)"), ConfigError);
  CHECK_THROWS_WITH_AS(bad(std::string(text).replace(text.find("kind: hstu"), 10, "kind: hstv")),
                       doctest::Contains("hstu"), ConfigError);
}
