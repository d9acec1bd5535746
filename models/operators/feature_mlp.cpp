// feature_mlp: one MLP whose weights every sparse feature shares, applied to each of the F
// pooled embeddings (all of width d) on its own; its F outputs (each of the last width w_L)
// are concatenated with the dense input (the bottom-MLP output, or the raw dense features) and
// feed the top MLP. Widths w_1 .. w_L (model key interaction.widths), w_0 = d; each layer
// y = x W_l + b_l with a ReLU between layers (elementwise, not costed, as for linear).
//
// Per sample: parameters sum_l (w_{l-1} w_l + w_l), counted once (the weights are shared);
// FLOPs forward F x sum_l 2 w_{l-1} w_l, backward twice that (input and weight gradients, as
// linear); activations F x sum_l (w_{l-1} + w_l). A network of this kind does F times the
// arithmetic of an MLP of the same parameters on the concatenated input, which is what a dense
// part of many FLOPs and few parameters needs (the weights all-reduced each step stay small).
//
// On a GPU, local batch b, each layer one GEMM over the b F rows (the features stacked as
// rows, as a batched Linear over [b, F, d] runs), DeviceProfile::gemm_time, plus a launch:
//    forward          sum_l gemm(m=b F, n=w_l, k=w_{l-1})
//    backward         sum_l gemm(b F, w_{l-1}, w_l) [input gradient] + gemm(w_{l-1}, w_l, b F)
//                     [weight gradient]
// On a CPU socket the same GEMMs through CpuCostInput::gemm (linear's form).
#include <cstdint>
#include <vector>

#include "models/dense_operator.hpp"

namespace dlrmsim::models {

namespace {
/// The layer widths w_0 = d, w_1 .. w_L of the shared MLP.
std::vector<std::int64_t> widths_of(const ModelSpec& m) {
  std::vector<std::int64_t> w{m.common_embedding_dim()};
  w.insert(w.end(), m.interaction.widths.begin(), m.interaction.widths.end());
  return w;
}
}  // namespace

DenseLayer declare_feature_mlp(const DenseOperatorSite& site) {
  const ModelSpec& m = site.model;
  const auto w = widths_of(m);
  const auto f = static_cast<double>(m.table_count());
  DenseLayer l;
  l.in = site.in;
  l.out = site.in - m.pooled_embedding_width() + m.table_count() * w.back();
  double macs = 0.0, activations = 0.0;
  for (std::size_t i = 1; i < w.size(); ++i) {
    const auto a = static_cast<double>(w[i - 1]), b = static_cast<double>(w[i]);
    l.parameters += a * b + b;
    macs += a * b;
    activations += a + b;
  }
  l.forward_flops_per_sample = Flops(2.0 * f * macs);
  l.backward_flops_per_sample = l.forward_flops_per_sample * 2.0;
  l.activation_elements_per_sample = f * activations;
  l.gemms = static_cast<int>(w.size()) - 1;
  return l;
}

DenseOperatorCost feature_mlp_gpu_cost(const DenseLayer& l, const GpuCostInput& in) {
  const auto w = widths_of(in.model);
  const std::int64_t rows = in.batch * in.model.table_count();
  const auto& p = in.profile;
  const topo::Precision dt = in.dtype;
  DenseOperatorCost c;
  for (std::size_t i = 1; i < w.size(); ++i) {
    c.forward += p.gemm_time(rows, w[i], w[i - 1], dt) + in.launch();
    c.backward += p.gemm_time(rows, w[i - 1], w[i], dt) + p.gemm_time(w[i - 1], w[i], rows, dt) + in.launch() * 2.0;
    c.forward_hbm += topo::gemm_traffic(rows, w[i], w[i - 1], dt);
    c.backward_hbm += topo::gemm_traffic(rows, w[i - 1], w[i], dt) + topo::gemm_traffic(w[i - 1], w[i], rows, dt);
  }
  c.forward_kernels = l.gemms;
  c.backward_kernels = 2 * l.gemms;
  return c;
}

DenseOperatorCost feature_mlp_cpu_cost(const DenseLayer& l, const CpuCostInput& in) {
  if (!in.profile) return cpu_cost_from_flops(l, in);
  const auto w = widths_of(in.model);
  const std::int64_t rows = in.batch * in.model.table_count();
  DenseOperatorCost c;
  for (std::size_t i = 1; i < w.size(); ++i) {
    c.forward += in.gemm(rows, w[i], w[i - 1]);
    c.backward += in.gemm(rows, w[i - 1], w[i]) + in.gemm(w[i - 1], w[i], rows);
  }
  c.forward_kernels = l.gemms;
  c.backward_kernels = 2 * l.gemms;
  return c;
}

}  // namespace dlrmsim::models
