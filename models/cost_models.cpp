#include "models/cost_models.hpp"

#include <algorithm>
#include <stdexcept>

#include "topologies/cpu_profile.hpp"

namespace dlrmsim::models {

topo::Precision gemm_precision_for(Precision compute, const topo::DeviceProfile& profile) {
  if (compute == Precision::int8 || compute == Precision::fp64) {
    throw std::invalid_argument("compute precision " + std::string(to_string(compute)) +
                                " has no dense GEMM model; use fp32, tf32, bf16, fp16 or fp8");
  }
  if (!profile.supports(compute)) {
    throw std::invalid_argument("device profile '" + profile.name + "' has no GEMM coefficients for " +
                                std::string(to_string(compute)) + " (the model's compute precision)");
  }
  return compute;
}

namespace {

Seconds memory_time(const topo::DeviceProfile& p, Bytes bytes) { return bytes / p.achievable_hbm_bandwidth(); }

/// Whether kernels that take `body` (launches excluded) and move `bytes` are bound by that traffic.
bool memory_bound(const topo::DeviceProfile& p, Seconds body, Bytes bytes) {
  return body.value() <= memory_time(p, bytes).value() * (1.0 + 1e-12);
}

}  // namespace

std::vector<DenseOperatorCost> gpu_dense_costs(const ModelSpec& model, const topo::DeviceProfile& profile,
                                               std::int64_t local_batch, int context_parallel,
                                               std::int64_t group_batch) {
  const GpuCostInput in{model, profile, gemm_precision_for(model.compute_precision, profile),
                        std::max<std::int64_t>(local_batch, 1)};
  GpuCostInput sequences = in;
  if (context_parallel > 1) {
    sequences.batch = std::max<std::int64_t>(group_batch, 1);
    sequences.context_parallel = context_parallel;
  }
  const Seconds launch = profile.kernel_launch_overhead();
  std::vector<DenseOperatorCost> out;
  for (const DenseLayer& l : model.dense_layers()) {
    DenseOperatorCost c = l.op->gpu_cost(l, l.over_sequences ? sequences : in);
    c.name = l.name;
    c.before_embeddings = l.before_embeddings;
    c.parameters = l.parameters;
    c.forward_memory_bound = memory_bound(profile, c.forward - launch * static_cast<double>(c.forward_kernels), c.forward_hbm);
    c.backward_memory_bound =
        memory_bound(profile, c.backward - launch * static_cast<double>(c.backward_kernels), c.backward_hbm);
    out.push_back(c);
  }
  return out;
}

Bytes dense_optimizer_bytes_per_parameter(const ModelSpec& model) {
  const double state_values = model.dense_optimizer.dense_state_values_per_parameter();
  return element_size(Precision::fp32) * 2.0 + element_size(model.communication_precision) +
         element_size(model.dense_optimizer.state_dtype) * (2.0 * state_values);
}

Seconds gpu_dense_optimizer_time(const ModelSpec& model, const topo::DeviceProfile& profile, double parameters) {
  return memory_time(profile, dense_optimizer_bytes_per_parameter(model) * parameters) + profile.kernel_launch_overhead();
}

Seconds cpu_dense_optimizer_time(const ModelSpec& model, const topo::CpuSocketSpec& cpu, double parameters) {
  if (cpu.dram_bandwidth.value() <= 0.0) throw std::invalid_argument("CPU '" + cpu.model + "' has no DRAM bandwidth");
  return dense_optimizer_bytes_per_parameter(model) * parameters / cpu.dram_bandwidth;
}

topo::EmbeddingUpdate embedding_update(const Optimizer& optimizer) {
  topo::EmbeddingUpdate u;
  u.state_value = element_size(optimizer.state_dtype);
  switch (optimizer.kind) {
    case OptimizerKind::sgd: u.measured = topo::EmbeddingOptimizer::sgd; break;
    case OptimizerKind::rowwise_adagrad: u.measured = topo::EmbeddingOptimizer::rowwise_adagrad; break;
    case OptimizerKind::adagrad:
      u.measured = topo::EmbeddingOptimizer::rowwise_adagrad;
      u.state_values_per_element = 1.0;  // one accumulator per weight element
      break;
    case OptimizerKind::adam:
      u.measured = topo::EmbeddingOptimizer::rowwise_adagrad;
      u.state_values_per_element = 2.0;  // first and second moments per weight element
      break;
  }
  return u;
}

FlopsPerSecond cpu_peak(const topo::CpuSocketSpec& cpu, Precision compute) {
  // tf32 is a GPU tensor-core mode: a CPU runs such a layer in fp32.
  const Precision p = compute == Precision::tf32 ? Precision::fp32 : compute;
  if (auto r = cpu.peak.get(p)) return *r;
  throw std::invalid_argument("CPU '" + cpu.model + "' has no peak FLOP/s for " + std::string(to_string(compute)) +
                              " in the platform file");
}

Seconds cpu_dense_time(const topo::CpuSocketSpec& cpu, Flops flops, Precision compute, double efficiency) {
  if (flops.value() <= 0.0) return Seconds(0.0);
  if (!(efficiency > 0.0)) throw std::invalid_argument("CPU dense efficiency must be positive");
  return flops / (cpu_peak(cpu, compute) * efficiency);
}

std::vector<DenseOperatorCost> cpu_dense_costs(const ModelSpec& model, const topo::CpuSocketSpec& cpu,
                                               std::optional<double> efficiency, std::int64_t local_batch,
                                               std::optional<CpuCostInput::PerItemGemm> per_item) {
  const topo::CpuProfile* profile = efficiency ? nullptr : cpu.profile.get();
  if (!efficiency && !profile) {
    throw std::invalid_argument("CPU '" + cpu.model +
                                "' runs dense layers but its platform entry names no CPU profile (key `profile`): give "
                                "training.cpu.dense_efficiency (fraction of the socket's peak FLOP/s its GEMMs reach)");
  }
  // Layers that are not one GEMM of known shape: the large-GEMM fraction (every extent saturated).
  const double large = profile ? profile->large_gemm_efficiency() : *efficiency;
  const CpuCostInput in{model, cpu, profile, large, cpu_peak(cpu, model.compute_precision),
                        std::max<std::int64_t>(local_batch, 1), per_item};
  std::vector<DenseOperatorCost> costs;
  for (const DenseLayer& l : model.dense_layers()) {
    DenseOperatorCost c = l.op->cpu_cost(l, in);
    c.name = l.name;
    c.before_embeddings = l.before_embeddings;
    c.parameters = l.parameters;
    costs.push_back(c);
  }
  return costs;
}

}  // namespace dlrmsim::models
