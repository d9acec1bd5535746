// dcnv2_cross: DCNv2 cross layers [Wang et al., WWW 2021] over the concatenated bottom-MLP
// output and pooled embeddings (width w). Layer l: x_{l+1} = x_0 * (U_l (V_l^T x_l) + b_l) + x_l
// with U_l, V_l of size w x r (r = model.interaction.low_rank; 0 = full rank: one w x w matrix
// per layer); the output (width w) feeds the top MLP.
//
// Per sample and layer: 2 w r + w parameters (w^2 + w at full rank); FLOPs in declare below.
// On a GPU, local batch b, per layer: gemm(b, r, w) + gemm(b, w, r) forward, four GEMMs
// backward (two at full rank: gemm(b, w, w) forward), plus the elementwise x0 * (.) + x traffic
// over achievable HBM bandwidth; one launch per GEMM and per elementwise kernel.
// On a CPU socket: FLOPs / (peak x the large-GEMM efficiency) (cpu_cost_from_flops).
#include "models/dense_operator.hpp"

namespace dlrmsim::models {

DenseLayer declare_dcnv2_cross(const DenseOperatorSite& site) {
  const Interaction& interaction = site.model.interaction;
  DenseLayer l;
  l.in = site.in;
  l.out = site.in;
  const double w = static_cast<double>(l.in);
  // Per layer: V^T x (w -> r), U (r -> w): 2 x 2wr FLOP with low rank, 2w^2 with full rank,
  // plus the elementwise x0 * (.) + x (3w, negligible but counted).
  const double r = static_cast<double>(interaction.low_rank);
  const double gemm_flops = interaction.low_rank > 0 ? 4.0 * w * r : 2.0 * w * w;
  const double params_per_layer = (interaction.low_rank > 0 ? 2.0 * w * r : w * w) + w;
  l.forward_flops_per_sample = Flops(interaction.cross_layers * (gemm_flops + 3.0 * w));
  l.backward_flops_per_sample = Flops(interaction.cross_layers * (2.0 * gemm_flops + 6.0 * w));
  l.parameters = interaction.cross_layers * params_per_layer;
  l.activation_elements_per_sample = interaction.cross_layers * (4.0 * w + 2.0 * r);
  l.gemms = interaction.cross_layers * (interaction.low_rank > 0 ? 2 : 1);
  return l;
}

DenseOperatorCost dcnv2_cross_gpu_cost(const DenseLayer& l, const GpuCostInput& in) {
  const auto& profile = in.profile;
  const topo::Precision dt = in.dtype;
  const std::int64_t b = in.batch;
  const std::int64_t w = l.in;
  const std::int64_t r = in.model.interaction.low_rank;
  const int layers = in.model.interaction.cross_layers;
  DenseOperatorCost c;
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
  const Bytes elementwise = in.element() * (4.0 * static_cast<double>(w) * static_cast<double>(b) * layers);
  fwd += in.memory_time(elementwise);
  bwd += in.memory_time(elementwise * 2.0);
  c.forward_hbm += elementwise;
  c.backward_hbm += elementwise * 2.0;
  const int gemms_per_layer = r > 0 ? 2 : 1;
  c.forward_kernels = layers * (gemms_per_layer + 1);
  c.backward_kernels = layers * (2 * gemms_per_layer + 1);
  c.forward = fwd + in.launch() * static_cast<double>(c.forward_kernels);
  c.backward = bwd + in.launch() * static_cast<double>(c.backward_kernels);
  return c;
}

}  // namespace dlrmsim::models
