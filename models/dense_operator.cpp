// The dense-operator registry and the cost pieces the operators share. Adding an operator:
// its file models/operators/<name>.cpp, its three functions declared and its entry below,
// and its tests (docs/extending.md).
#include "models/dense_operator.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

#include "models/cost_models.hpp"
#include "topologies/cpu_profile.hpp"

namespace dlrmsim::models {

// The implementations (models/operators/*.cpp).
DenseLayer declare_linear(const DenseOperatorSite& site);
DenseOperatorCost linear_gpu_cost(const DenseLayer& layer, const GpuCostInput& in);
DenseOperatorCost linear_cpu_cost(const DenseLayer& layer, const CpuCostInput& in);
DenseLayer declare_dot_interaction(const DenseOperatorSite& site);
DenseOperatorCost dot_interaction_gpu_cost(const DenseLayer& layer, const GpuCostInput& in);
DenseOperatorCost dot_interaction_cpu_cost(const DenseLayer& layer, const CpuCostInput& in);
DenseLayer declare_concat_interaction(const DenseOperatorSite& site);
DenseOperatorCost concat_interaction_gpu_cost(const DenseLayer& layer, const GpuCostInput& in);
DenseLayer declare_dcnv2_cross(const DenseOperatorSite& site);
DenseOperatorCost dcnv2_cross_gpu_cost(const DenseLayer& layer, const GpuCostInput& in);
DenseLayer declare_feature_mlp(const DenseOperatorSite& site);
DenseOperatorCost feature_mlp_gpu_cost(const DenseLayer& layer, const GpuCostInput& in);
DenseOperatorCost feature_mlp_cpu_cost(const DenseLayer& layer, const CpuCostInput& in);
DenseLayer declare_hstu(const DenseOperatorSite& site);
DenseOperatorCost hstu_gpu_cost(const DenseLayer& layer, const GpuCostInput& in);

namespace {

constexpr std::array kOperators{
    DenseOperator{"linear", "a fully connected layer: one GEMM [batch x in] x [in x out] plus a bias (MLP layers)",
                  &declare_linear, &linear_gpu_cost, &linear_cpu_cost},
    DenseOperator{"dot_interaction",
                  "DLRM's pairwise dot products of the bottom-MLP output and the pooled embeddings, "
                  "concatenated with the bottom-MLP output",
                  &declare_dot_interaction, &dot_interaction_gpu_cost, &dot_interaction_cpu_cost},
    DenseOperator{"concat_interaction", "the bottom-MLP output and the pooled embeddings concatenated (a copy)",
                  &declare_concat_interaction, &concat_interaction_gpu_cost, &cpu_cost_from_flops},
    DenseOperator{"dcnv2_cross", "DCNv2 cross layers x0 * (U (V^T x) + b) + x, low rank or full rank",
                  &declare_dcnv2_cross, &dcnv2_cross_gpu_cost, &cpu_cost_from_flops},
    DenseOperator{"feature_mlp",
                  "one MLP with shared weights applied to each pooled embedding, its outputs concatenated "
                  "with the dense input",
                  &declare_feature_mlp, &feature_mlp_gpu_cost, &feature_mlp_cpu_cost},
    DenseOperator{"hstu",
                  "HSTU layers over each sample's jagged event sequence: uvqk projection, causal SiLU "
                  "attention (quadratic in the sequence length), gating and output projection",
                  &declare_hstu, &hstu_gpu_cost, &cpu_cost_from_flops},
};

}  // namespace

std::span<const DenseOperator> dense_operators() { return kOperators; }

const DenseOperator* find_dense_operator(std::string_view name) {
  const auto* it = std::find_if(kOperators.begin(), kOperators.end(), [&](const auto& o) { return o.name == name; });
  return it == kOperators.end() ? nullptr : it;
}

const DenseOperator& dense_operator(std::string_view name) {
  if (const auto* o = find_dense_operator(name)) return *o;
  std::string known;
  for (const auto& o : kOperators) known += (known.empty() ? "" : ", ") + std::string(o.name);
  throw std::invalid_argument("unknown dense operator '" + std::string(name) + "'; expected one of " + known);
}

Seconds CpuCostInput::gemm(std::int64_t m, std::int64_t n, std::int64_t k) const {
  const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  if (cpu.cores == 1 && profile->peak_per_core.value() > 0.0) {
    // A one-core socket runs each GEMM on one thread: the profile's one-thread fit, without the
    // all-core split's call overhead (the fork and join of its threads).
    const auto& one = profile->gemm_per_core;
    const double e = one.rate.value() / profile->peak_per_core.value() *
                     one.fill(static_cast<double>(m), static_cast<double>(n), static_cast<double>(k));
    return Flops(flops) / (peak * e) + one.call_overhead;
  }
  return Flops(flops) / (peak * profile->gemm_efficiency(m, n, k)) + profile->gemm_all_cores.call_overhead;
}

Seconds CpuCostInput::per_item_gemms(std::int64_t items, std::int64_t m, std::int64_t n, std::int64_t k) const {
  if (!per_item) throw std::logic_error("per_item_gemms without software.cpu_trainer.bmm per_item");
  const FlopsPerSecond core_rate = peak / static_cast<double>(std::max(1, cpu.cores)) * large_efficiency;
  const Flops item(2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k));
  return (per_item->call + item / (core_rate * per_item->efficiency)) * static_cast<double>(items);
}

DenseOperatorCost cpu_cost_from_flops(const DenseLayer& layer, const CpuCostInput& in) {
  const double batch = static_cast<double>(in.batch);
  DenseOperatorCost c;
  c.forward = cpu_dense_time(in.cpu, layer.forward_flops_per_sample * batch, in.model.compute_precision, in.large_efficiency);
  c.backward = cpu_dense_time(in.cpu, layer.backward_flops_per_sample * batch, in.model.compute_precision, in.large_efficiency);
  c.forward_kernels = layer.gemms;
  c.backward_kernels = 2 * layer.gemms;
  return c;
}

}  // namespace dlrmsim::models
