// Tests of the per-operator cost models (models/cost_models.hpp). Each expected value is the
// documented closed form evaluated by hand on the shipped H100 profile or on round numbers.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <algorithm>
#include <string>

#include "models/cost_models.hpp"
#include "topologies/cpu_profile.hpp"
#include "models/model_spec.hpp"
#include "paths.hpp"

using namespace dlrmsim;
using namespace dlrmsim::models;
using dlrmsim::topo::CopyKind;
using dlrmsim::topo::DeviceProfile;
using dlrmsim::topo::Precision;
using dlrmsim::topo::load_device_profile_for;

namespace {
const std::string kCalibration = dlrmsim::testing::kRoot + "/configs/calibration";

topo::CpuSocketSpec socket(double dram_gbps, int cores, double per_core_gbps) {
  topo::CpuSocketSpec c;
  c.model = "test";
  c.cores = cores;
  c.dram_bandwidth = BytesPerSecond(dram_gbps * 1e9);
  c.gather_bandwidth_per_core = BytesPerSecond(per_core_gbps * 1e9);
  c.peak.set(topo::Precision::fp32, FlopsPerSecond(2e12));
  return c;
}

/// 64 dense features -> bottom MLP 32, concat, top MLP 256 -> 1: four dense layers.
ModelSpec small_mlp_model(const std::string& compute) {
  return load_model(ConfigNode::load_string(R"(
name: m
global_batch_size: 8
dense_features: 64
embedding_tables: [{name: t, rows: 10, dim: 32}]
bottom_mlp: [32]
interaction: concat
top_mlp: [256, 1]
optimizer: sgd
precision: {compute: )" + compute + "}\n",
                                            "m.yaml"));
}
}  // namespace

// Dense layers on a CPU: FLOPs / (peak x efficiency): 1 TFLOP at 2 TFLOP/s x 0.5 = 1 s.
// (CPU gathers and updates: tests/test_cpu_row_cost.cpp.)
TEST_CASE("CPU dense time is FLOPs over peak times efficiency") {
  const auto few = socket(128, 20, 4);
  CHECK(cpu_dense_time(few, Flops(1e12), Precision::fp32, 0.5).value() == dlrmsim::rel(1.0));
  CHECK_THROWS_AS(cpu_peak(few, Precision::bf16), std::invalid_argument);  // no bf16 figure given
}

// Dense layers on a CPU socket with a CPU profile (platform key `profile`): the socket (peak 2
// TFLOP/s fp32) takes the measured machine's GEMM efficiency at each shape. The profile: all
// cores (2 of them) reach 100 GFLOP/s on large GEMMs, halves m 0, n 4, k 4, call overhead 10 us,
// against a peak of 80 GFLOP/s per core: e(m, n, k) = 100 / 160 x n / (n + 4) x k / (k + 4).
// A 64 -> 32 MLP layer at batch 1024: forward GEMM 1024 x 32 x 64 takes
//   2 x 1024 x 32 x 64 / (2e12 x 0.625 x 32/36 x 64/68) + 10 us;
// the backward GEMMs 1024 x 64 x 32 and 64 x 32 x 1024 likewise (n and k as given).
// A flat training.cpu.dense_efficiency replaces the profile; with neither, the error names it.
TEST_CASE("CPU dense layers take the CPU profile's efficiency at each GEMM shape") {
  auto cpu = socket(128, 20, 4);
  auto profile = std::make_shared<topo::CpuProfile>();
  profile->name = "test";
  profile->cores = 2;
  profile->gemm_all_cores = {FlopsPerSecond(100e9), 0.0, 4.0, 4.0, Seconds(10e-6), {}};
  profile->peak_per_core = FlopsPerSecond(80e9);
  const ModelSpec m = small_mlp_model("fp32");
  CHECK_THROWS_WITH_AS(cpu_dense_costs(m, cpu, std::nullopt, 1024), doctest::Contains("training.cpu.dense_efficiency"),
                       std::invalid_argument);
  cpu.profile = profile;
  const auto gemm = [](double mm, double n, double k) {
    return 2.0 * mm * n * k / (2e12 * 0.625 * n / (n + 4.0) * k / (k + 4.0)) + 10e-6;
  };
  const auto costs = cpu_dense_costs(m, cpu, std::nullopt, 1024);
  REQUIRE(costs.size() == 4);
  CHECK(costs[0].forward.value() == dlrmsim::rel(gemm(1024, 32, 64)));
  CHECK(costs[0].backward.value() == dlrmsim::rel(gemm(1024, 64, 32) + gemm(64, 32, 1024)));
  const auto flat = cpu_dense_costs(m, cpu, 0.5, 1024);
  CHECK(flat[0].forward.value() == dlrmsim::rel(2.0 * 1024 * 32 * 64 / (2e12 * 0.5)));
}

// The model's embedding optimiser as the one GPU embedding cost model reads it
// (embedding_update, topologies/gpu_embedding_cost.hpp): the profile's measured multiples for
// SGD and row-wise Adagrad; full Adagrad scales the row-wise time by (row + per-element state)
// / (row + one value): 512-byte rows of 128 fp32 with 128 fp32 accumulators: (512 + 512) /
// (512 + 4); Adam's two moments (512 + 1024) / (512 + 4).
TEST_CASE("embedding backward uses the profile's multiples and scales for per-element state") {
  const auto p = load_device_profile_for("H100-SXM5-80GB", kCalibration);
  const topo::GatherWork w{1e6, Bytes(512.0), 10.0, 128};
  const Seconds fwd = topo::gpu_embedding_forward_time(p, w);
  CHECK(fwd.value() == dlrmsim::rel(p.embedding_forward_time(1e6, Bytes(512.0), 10.0).value()));
  Optimizer rowwise{OptimizerKind::rowwise_adagrad, Precision::fp32};
  Optimizer full{OptimizerKind::adagrad, Precision::fp32};
  Optimizer adam{OptimizerKind::adam, Precision::fp32};
  const Seconds rw = topo::gpu_embedding_backward_time(p, w, embedding_update(rowwise));
  CHECK(rw.value() == dlrmsim::rel(fwd.value() * p.embedding_backward.rowwise_adagrad_multiple));
  CHECK(topo::gpu_embedding_backward_time(p, w, embedding_update(full)).value() == dlrmsim::rel(rw.value() * 1024.0 / 516.0));
  CHECK(topo::gpu_embedding_backward_time(p, w, embedding_update(adam)).value() == dlrmsim::rel(rw.value() * 1536.0 / 516.0));
  CHECK(topo::gpu_embedding_forward_time(p, topo::GatherWork{0.0, Bytes(512.0), 1.0, 128}).value() == 0.0);
}

// Dense costs: a linear layer is one forward GEMM (b, out, in) and two backward GEMMs, each
// with one launch; the GEMM dtype follows the compute precision; a precision the profile has
// no coefficients for is an error naming the profile.
TEST_CASE("dense layer costs are the profile's GEMM times plus launches") {
  const auto p = load_device_profile_for("H100-SXM5-80GB", kCalibration);
  const ModelSpec m = small_mlp_model("bf16");
  const auto costs = gpu_dense_costs(m, p, 1024);
  REQUIRE(costs.size() == 4);
  const Seconds launch = p.kernel_launch_overhead();
  CHECK(costs[0].forward.value() == dlrmsim::rel((p.gemm_time(1024, 32, 64, Precision::bf16) + launch).value()));
  CHECK(costs[2].backward.value() ==
        dlrmsim::rel((p.gemm_time(1024, 64, 256, Precision::bf16) + p.gemm_time(64, 256, 1024, Precision::bf16) +
                         launch * 2.0)
                            .value()));
  // HBM traffic: each GEMM reads A (b x in) and B (in x out) and writes C (b x out) once, 2 B
  // an element in bf16: forward 2 (1024 x 64 + 64 x 32 + 1024 x 32) = 200,704 B.
  CHECK(costs[0].forward_hbm.value() == dlrmsim::rel(2.0 * (1024 * 64 + 64 * 32 + 1024 * 32)));
  CHECK(costs[2].backward_hbm.value() == dlrmsim::rel((gemm_traffic(1024, 64, 256, Precision::bf16) +
                                                         gemm_traffic(64, 256, 1024, Precision::bf16))
                                                            .value()));
  // Which bound sets the time: the concat interaction is a copy (its activations over HBM);
  // the first layer's GEMM (1024 x 32 x 64) runs at the profile's efficiency for that shape,
  // 4.2 MFLOP in more time than its 200 kB take over HBM.
  CHECK(costs[1].forward_memory_bound);
  CHECK(costs[1].backward_memory_bound);
  // (it reads the 32 + 32 inputs of a sample and writes its 64 outputs: 128 bf16 values)
  CHECK(costs[1].forward_hbm.value() == dlrmsim::rel(2.0 * 1024 * (32 + 32 + 64)));
  CHECK(p.gemm_time(1024, 32, 64, Precision::bf16) > gemm_traffic(1024, 32, 64, Precision::bf16) / p.achievable_hbm_bandwidth());
  CHECK_FALSE(costs[0].forward_memory_bound);
  CHECK(gemm_precision_for(Precision::bf16, p) == Precision::bf16);
  DeviceProfile only_fp32 = p;
  only_fp32.gemm.erase(std::remove_if(only_fp32.gemm.begin(), only_fp32.gemm.end(),
                                      [](const auto& e) { return e.first != Precision::fp32; }),
                       only_fp32.gemm.end());
  CHECK_THROWS_WITH_AS(gemm_precision_for(Precision::bf16, only_fp32), doctest::Contains("bf16"), std::invalid_argument);
  // SGD dense optimiser: fp32 weight read + write (8 B) + bf16-free gradient (fp32 comm, 4 B) = 12 B per parameter.
  CHECK(dense_optimizer_bytes_per_parameter(m).value() == dlrmsim::rel(12.0));
}
