#include "models/cost_models.hpp"

#include <algorithm>
#include <stdexcept>

#include "topologies/cpu_profile.hpp"

namespace dlrmsim::models {

topo::GemmDtype gemm_dtype_for(Precision compute, const topo::DeviceProfile& profile) {
  topo::GemmDtype d = topo::GemmDtype::fp32;
  switch (compute) {
    case Precision::fp32: d = topo::GemmDtype::fp32; break;
    case Precision::tf32: d = topo::GemmDtype::tf32; break;
    case Precision::bf16: d = topo::GemmDtype::bf16; break;
    case Precision::fp16: d = topo::GemmDtype::fp16; break;
    case Precision::fp8: d = topo::GemmDtype::fp8; break;
    case Precision::int8:
      throw std::invalid_argument("compute precision int8 has no dense GEMM model; use fp32, tf32, bf16, fp16 or fp8");
  }
  if (!profile.supports(d)) {
    throw std::invalid_argument("device profile '" + profile.name + "' has no GEMM coefficients for " +
                                std::string(name_of(d)) + " (the model's compute precision)");
  }
  return d;
}

namespace {

Seconds memory_time(const topo::DeviceProfile& p, Bytes bytes) { return bytes / p.achievable_hbm_bandwidth(); }

/// Whether kernels that take `body` (launches excluded) and move `bytes` are bound by that traffic.
bool memory_bound(const topo::DeviceProfile& p, Seconds body, Bytes bytes) {
  return body.value() <= memory_time(p, bytes).value() * (1.0 + 1e-12);
}

}  // namespace

std::vector<DenseOperatorCost> gpu_dense_costs(const ModelSpec& model, const topo::DeviceProfile& profile,
                                               std::int64_t local_batch) {
  const topo::GemmDtype dt = gemm_dtype_for(model.compute_precision, profile);
  const Bytes elem = topo::operand_bytes(dt);
  const Seconds launch = profile.kernel_launch_overhead();
  const std::int64_t b = std::max<std::int64_t>(local_batch, 1);
  std::vector<DenseOperatorCost> out;
  for (const DenseLayer& l : model.dense_layers()) {
    DenseOperatorCost c;
    c.name = l.name;
    c.parameters = l.parameters;
    switch (l.kind) {
      case DenseLayer::Kind::bottom_mlp:
      case DenseLayer::Kind::top_mlp:
        c.forward = profile.gemm_time(b, l.out, l.in, dt) + launch;
        c.backward = profile.gemm_time(b, l.in, l.out, dt) + profile.gemm_time(l.in, l.out, b, dt) + launch * 2.0;
        c.forward_hbm = topo::gemm_traffic(b, l.out, l.in, dt);
        c.backward_hbm = topo::gemm_traffic(b, l.in, l.out, dt) + topo::gemm_traffic(l.in, l.out, b, dt);
        c.forward_kernels = 1;
        c.backward_kernels = 2;
        break;
      case DenseLayer::Kind::interaction: {
        const Bytes activation_bytes = elem * (l.activation_elements_per_sample * static_cast<double>(b));
        switch (model.interaction.kind) {
          case Interaction::Kind::dot: {
            const std::int64_t vectors = model.table_count() + 1;
            const int d = model.common_embedding_dim();
            const Seconds gemm = profile.batched_gemm_time(b, vectors, vectors, d, dt);
            const Seconds floor = memory_time(profile, activation_bytes);
            c.forward = std::max(gemm, floor) + launch;
            c.backward = std::max(gemm * 2.0, floor * 2.0) + launch * 2.0;
            c.forward_hbm = std::max(topo::gemm_traffic(vectors, vectors, d, dt, b), activation_bytes);
            c.backward_hbm = c.forward_hbm * 2.0;
            c.forward_kernels = 1;
            c.backward_kernels = 2;
            break;
          }
          case Interaction::Kind::concat:
            c.forward = memory_time(profile, activation_bytes) + launch;
            c.backward = memory_time(profile, activation_bytes) + launch;
            c.forward_hbm = c.backward_hbm = activation_bytes;
            c.forward_kernels = c.backward_kernels = 1;
            break;
          case Interaction::Kind::dcnv2: {
            const std::int64_t w = l.in;
            const std::int64_t r = model.interaction.low_rank;
            const int layers = model.interaction.cross_layers;
            Seconds fwd{0.0}, bwd{0.0};
            const auto gemm = [&](std::int64_t m, std::int64_t n, std::int64_t k, Seconds& time, Bytes& bytes) {
              time += profile.gemm_time(m, n, k, dt);
              bytes += topo::gemm_traffic(m, n, k, dt);
            };
            for (int i = 0; i < layers; ++i) {
              if (r > 0) {
                gemm(b, r, w, fwd, c.forward_hbm);
                gemm(b, w, r, fwd, c.forward_hbm);
                gemm(b, w, r, bwd, c.backward_hbm);  // V: dX, dW
                gemm(w, r, b, bwd, c.backward_hbm);
                gemm(b, r, w, bwd, c.backward_hbm);  // U: dX, dW
                gemm(r, w, b, bwd, c.backward_hbm);
              } else {
                gemm(b, w, w, fwd, c.forward_hbm);
                gemm(b, w, w, bwd, c.backward_hbm);
                gemm(w, w, b, bwd, c.backward_hbm);
              }
            }
            // Elementwise x0 * (.) + b + x: read x0, the GEMM output and x, write x_{l+1}
            // (4 w elements per sample per layer), twice as much backward.
            const Bytes elementwise = elem * (4.0 * static_cast<double>(w) * static_cast<double>(b) * layers);
            fwd += memory_time(profile, elementwise);
            bwd += memory_time(profile, elementwise * 2.0);
            c.forward_hbm += elementwise;
            c.backward_hbm += elementwise * 2.0;
            const int gemms_per_layer = r > 0 ? 2 : 1;
            c.forward_kernels = layers * (gemms_per_layer + 1);
            c.backward_kernels = layers * (2 * gemms_per_layer + 1);
            c.forward = fwd + launch * static_cast<double>(c.forward_kernels);
            c.backward = bwd + launch * static_cast<double>(c.backward_kernels);
            break;
          }
        }
        break;
      }
    }
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

Seconds gpu_embedding_forward_time(const topo::DeviceProfile& profile, const GatherWork& work) {
  if (work.lookups <= 0.0) return Seconds(0.0);
  return profile.embedding_forward_time(work.lookups, work.row_bytes, std::max(work.pooling, 1.0));
}

Seconds gpu_embedding_backward_time(const topo::DeviceProfile& profile, const GatherWork& work, const Optimizer& optimizer) {
  if (work.lookups <= 0.0) return Seconds(0.0);
  const double pooling = std::max(work.pooling, 1.0);
  switch (optimizer.kind) {
    case OptimizerKind::sgd:
      return profile.embedding_backward_time(work.lookups, work.row_bytes, pooling, topo::EmbeddingOptimizer::sgd,
                                             work.distinct_fraction);
    case OptimizerKind::rowwise_adagrad:
      return profile.embedding_backward_time(work.lookups, work.row_bytes, pooling, topo::EmbeddingOptimizer::rowwise_adagrad,
                                             work.distinct_fraction);
    case OptimizerKind::adagrad:
    case OptimizerKind::adam: {
      const Seconds rowwise = profile.embedding_backward_time(work.lookups, work.row_bytes, pooling,
                                                              topo::EmbeddingOptimizer::rowwise_adagrad, work.distinct_fraction);
      const Bytes state_elem = element_size(optimizer.state_dtype);
      const double values_per_element = optimizer.kind == OptimizerKind::adam ? 2.0 : 1.0;
      const Bytes full_state = state_elem * (values_per_element * static_cast<double>(work.columns));
      const Bytes rowwise_state = state_elem;
      return rowwise * ((work.row_bytes + full_state) / (work.row_bytes + rowwise_state));
    }
  }
  return Seconds(0.0);
}

Seconds gpu_embedding_separate_optimizer_time(const topo::DeviceProfile& profile, const GatherWork& work) {
  if (work.lookups <= 0.0) return Seconds(0.0);
  return memory_time(profile, work.row_bytes * (2.0 * work.lookups));
}

FlopsPerSecond cpu_peak(const topo::CpuSocketSpec& cpu, Precision compute) {
  topo::Precision p = topo::Precision::fp32;
  switch (compute) {
    case Precision::fp32:
    case Precision::tf32: p = topo::Precision::fp32; break;
    case Precision::bf16: p = topo::Precision::bf16; break;
    case Precision::fp16: p = topo::Precision::fp16; break;
    case Precision::fp8: p = topo::Precision::fp8; break;
    case Precision::int8: p = topo::Precision::int8; break;
  }
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
                                               std::optional<double> efficiency, std::int64_t local_batch) {
  const topo::CpuProfile* profile = efficiency ? nullptr : cpu.profile.get();
  if (!efficiency && !profile) {
    throw std::invalid_argument("CPU '" + cpu.model +
                                "' runs dense layers but its platform entry names no CPU profile (key `profile`): give "
                                "training.cpu.dense_efficiency (fraction of the socket's peak FLOP/s its GEMMs reach)");
  }
  const std::int64_t b = std::max<std::int64_t>(local_batch, 1);
  const FlopsPerSecond peak = cpu_peak(cpu, model.compute_precision);
  const auto gemm = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
    const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
    return Flops(flops) / (peak * profile->gemm_efficiency(m, n, k)) + profile->gemm_all_cores.call_overhead;
  };
  // Layers that are not one GEMM of known shape: the large-GEMM fraction (every extent saturated).
  const double large = profile ? profile->large_gemm_efficiency() : *efficiency;
  const double batch = static_cast<double>(b);
  std::vector<DenseOperatorCost> costs;
  for (const DenseLayer& l : model.dense_layers()) {
    DenseOperatorCost c;
    c.name = l.name;
    c.parameters = l.parameters;
    const bool mlp = l.kind != DenseLayer::Kind::interaction && l.gemms == 1 && l.in > 0 && l.out > 0;
    if (profile && mlp) {
      c.forward = gemm(b, l.out, l.in);
      c.backward = gemm(b, l.in, l.out) + gemm(l.in, l.out, b);
    } else {
      c.forward = cpu_dense_time(cpu, l.forward_flops_per_sample * batch, model.compute_precision, large);
      c.backward = cpu_dense_time(cpu, l.backward_flops_per_sample * batch, model.compute_precision, large);
    }
    c.forward_kernels = l.gemms;
    c.backward_kernels = 2 * l.gemms;
    costs.push_back(c);
  }
  return costs;
}

}  // namespace dlrmsim::models
