// Tests of the HSTU block of sequence models (models/operators/hstu.cpp) and of context
// parallelism (training.context_parallel: models/dense_work.cpp, models/placement_problem.cpp).
// Each expected value is the operator's documented form (generative-recommenders stu.py at
// 1cf74590; Transformer Engine's all-gather context parallelism at 9c61cd7e) evaluated by hand
// on round numbers or on the shipped H100 profile.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <algorithm>
#include <string>

#include "models/cost_models.hpp"
#include "models/dense_operator.hpp"
#include "models/model_spec.hpp"
#include "models/placement_problem.hpp"
#include "models/simulation.hpp"
#include "scenario_fixtures.hpp"

using namespace dlrmsim;
using namespace dlrmsim::models;
using dlrmsim::topo::Precision;
using dlrmsim::models::testing::kCalibration;
using dlrmsim::models::testing::shipped;

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
// with recompute, L (2D + P + 4hH) = 800 without: recomputation keeps 5x less.
TEST_CASE("one layer's FLOPs, parameters and kept activations by hand") {
  const ModelSpec m = hstu("10");
  const DenseLayer l = m.dense_layers()[0];
  CHECK(l.op->name == "hstu");
  CHECK(l.over_sequences);
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
TEST_CASE("attention FLOPs quadratic in the sequence length") {
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
// launches. Twice the sequences at the same length: everything but the GEMMs and the launches
// (the attention's time and traffic, the elementwise passes) exactly twice.
TEST_CASE("GPU forward from the device profile, no attention matrix in HBM, linear in the sequences") {
  const auto p = topo::load_device_profile_for("H100-SXM5-80GB", kCalibration);
  const ModelSpec m = hstu("10");
  const DenseLayer l = m.dense_layers()[0];
  const std::int64_t b = 64, tokens = 640;
  const auto c = l.op->gpu_cost(l, GpuCostInput{m, p, Precision::bf16, b});
  const Seconds attention = Flops(64.0 * 2 * 55 * 2 * 8) / (p.gemm_peak(Precision::bf16) *
                                                            p.gemm_efficiency(10, 10, 8, Precision::bf16));
  const Seconds io = Bytes(2.0 * tokens * 2 * 16) / p.achievable_hbm_bandwidth();
  const Seconds elementwise = Bytes(2.0 * tokens * (64 + 48)) / p.achievable_hbm_bandwidth();
  const Seconds gemm_time = p.gemm_time(tokens, 32, 8, Precision::bf16) + p.gemm_time(tokens, 8, 24, Precision::bf16);
  const Seconds fwd = gemm_time + std::max(attention, io) + elementwise + p.kernel_launch_overhead() * 5.0;
  CHECK(c.forward.value() == dlrmsim::rel(fwd.value()));
  CHECK(c.forward_kernels == 5);
  CHECK(c.backward_kernels == 8);
  CHECK(c.forward_exchange.value() == 0.0);
  const Bytes gemms = topo::gemm_traffic(tokens, 32, 8, Precision::bf16) + topo::gemm_traffic(tokens, 8, 24, Precision::bf16);
  CHECK(c.forward_hbm.value() == dlrmsim::rel((gemms + Bytes(2.0 * tokens * 2 * 16 + 2.0 * tokens * 112)).value()));
  const auto c2 = l.op->gpu_cost(l, GpuCostInput{m, p, Precision::bf16, 2 * b});
  const Bytes gemms2 = topo::gemm_traffic(2 * tokens, 32, 8, Precision::bf16) +
                       topo::gemm_traffic(2 * tokens, 8, 24, Precision::bf16);
  CHECK((c2.forward_hbm - gemms2).value() == dlrmsim::rel(2.0 * (c.forward_hbm - gemms).value()));
  const Seconds gemm_time2 =
      p.gemm_time(2 * tokens, 32, 8, Precision::bf16) + p.gemm_time(2 * tokens, 8, 24, Precision::bf16);
  const Seconds launches = p.kernel_launch_overhead() * 5.0;
  CHECK((c2.forward - gemm_time2 - launches).value() == dlrmsim::rel(2.0 * (c.forward - gemm_time - launches).value()));
}

// Context parallelism over c = 2 GPUs (Transformer Engine's all-gather scheme): the group's
// b = 64 samples of L = 10, each GPU holding T = b L / c = 320 events. Its attention is half
// the group's, 64 x 2 x 55 x 16 / 2 FLOPs at the efficiency of 5 queries x 10 keys x 8; its
// kernel reads its own queries and outputs and the gathered keys and values: T H (a + h)
// (1 + c) = 320 x 16 x 3 bf16 values. Forward it sends the other GPU its keys and values,
// T H (a + h) = 5,120 bf16 values = 10,240 bytes; backward twice that (the gather again and
// the gradients' reduce-scatter). The GEMMs see T = 320 events, as 32 samples without it.
TEST_CASE("context parallelism: keys and values exchanged, the attention split, by hand") {
  const auto p = topo::load_device_profile_for("H100-SXM5-80GB", kCalibration);
  const ModelSpec m = hstu("10");
  const DenseLayer l = m.dense_layers()[0];
  GpuCostInput in{m, p, Precision::bf16, 64};
  in.context_parallel = 2;
  const auto c = l.op->gpu_cost(l, in);
  CHECK(c.forward_exchange.value() == dlrmsim::rel(10240.0));
  CHECK(c.backward_exchange.value() == dlrmsim::rel(20480.0));
  const std::int64_t tokens = 320;
  const Seconds attention = Flops(64.0 * 2 * 55 * 16 / 2) / (p.gemm_peak(Precision::bf16) *
                                                             p.gemm_efficiency(5, 10, 8, Precision::bf16));
  const Seconds io = Bytes(2.0 * tokens * 16 * 3) / p.achievable_hbm_bandwidth();
  const Seconds elementwise = Bytes(2.0 * tokens * (64 + 48)) / p.achievable_hbm_bandwidth();
  const Seconds fwd = p.gemm_time(tokens, 32, 8, Precision::bf16) + p.gemm_time(tokens, 8, 24, Precision::bf16) +
                      std::max(attention, io) + elementwise + p.kernel_launch_overhead() * 5.0;
  CHECK(c.forward.value() == dlrmsim::rel(fwd.value()));
  // gpu_dense_costs gives the group's samples to the HSTU block only: the top MLP sees the
  // local batch of 32.
  const auto costs = gpu_dense_costs(m, p, 32, 2, 64);
  CHECK(costs[0].forward_exchange.value() == dlrmsim::rel(10240.0));
  CHECK(costs[1].forward.value() == dlrmsim::rel(gpu_dense_costs(m, p, 32)[1].forward.value()));
}

// Bad sequence models are located errors: heads not dividing the dim, a negative length, a
// mean longer than the longest sequence, an unknown kind.
TEST_CASE("bad model files are located errors") {
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

// System: DLRMv4 (configs/models/dlrmv4_hstu.yaml) on the 8x MI350X server at a global batch
// of 4, half a sample a GPU. Data parallel, a GPU holds at least one whole sample; with
// training.context_parallel 2 each pair of GPUs shares two samples, so a GPU keeps half a
// sample's activations: the activations per GPU fall by 0.5 x bf16 x (2 x the sequence
// tables' output width + the HSTU block's kept activations) a sample. Its step sends keys and
// values over Infinity Fabric (reported as all_to_all), so that category's busy time grows.
TEST_CASE("context parallelism on the MI350X server: half a sample's activations a GPU, keys and values on the fabric") {
  const std::vector<std::string> small{"model.global_batch_size=4", "run.steps=1", "run.warmup_steps=1"};
  auto with_cp = small;
  with_cp.emplace_back("training.context_parallel=2");
  const Scenario dp = shipped("dlrmv4_hstu_mi350x_8gpu", small);
  const Scenario cp = shipped("dlrmv4_hstu_mi350x_8gpu", with_cp);
  const auto profiles = topo::DeviceProfileSet(dlrmsim::testing::kCalibration);
  const auto pdp = make_placement_problem(dp, profiles);
  const auto pcp = make_placement_problem(cp, profiles);
  double per_sample = 2.0 * static_cast<double>(dp.model.pooled_embedding_width());
  for (const auto& layer : dp.model.dense_layers()) per_sample += layer.activation_elements_per_sample;
  CHECK((pdp.activations_per_gpu - pcp.activations_per_gpu).value() == dlrmsim::rel(0.5 * 2.0 * per_sample));
  const auto busy = [](const RunReport& r) {
    for (const auto& b : r.breakdown) {
      if (b.category == "all_to_all") return b.busy.value();
    }
    return 0.0;
  };
  const RunReport rdp = run_scenario(dp);
  const RunReport rcp = run_scenario(cp);
  CHECK(busy(rcp) > busy(rdp));
}

// Context parallelism is refused where it cannot apply, at the key: a model without sequences,
// and a group that does not divide the GPUs a node gives the job.
TEST_CASE("context parallelism: located errors for a DLRM model and a group not dividing the node") {
  const auto profiles = topo::DeviceProfileSet(dlrmsim::testing::kCalibration);
  CHECK_THROWS_WITH_AS((void)make_placement_problem(shipped("dlrmv4_hstu_mi350x_8gpu", {"training.context_parallel=3"}), profiles),
                       doctest::Contains("expected a divisor of that"), ConfigError);
  CHECK_THROWS_WITH_AS((void)make_placement_problem(shipped("dcnv2_dgx_h200", {"training.context_parallel=2"}), profiles),
                       doctest::Contains("context parallelism splits a sequence model's sequences"), ConfigError);
}
