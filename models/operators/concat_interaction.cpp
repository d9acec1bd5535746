// concat_interaction: the bottom-MLP output and the pooled embeddings concatenated, as in
// Persia's feed-forward network [Lian et al., KDD 2022]. No parameters, no FLOPs.
//
// Per sample: a copy into the concatenated buffer, its input read and written (2 w elements).
// On a GPU: a copy, its activation bytes over achievable HBM bandwidth, one launch each way.
// On a CPU socket: no FLOPs, so no time (cpu_cost_from_flops).
#include "models/dense_operator.hpp"

namespace dlrmsim::models {

DenseLayer declare_concat_interaction(const DenseOperatorSite& site) {
  DenseLayer l;
  l.in = site.in;
  l.out = site.in;
  l.forward_flops_per_sample = Flops(0.0);
  l.backward_flops_per_sample = Flops(0.0);
  l.activation_elements_per_sample = 2.0 * static_cast<double>(l.in);  // a copy into the concatenated buffer
  l.gemms = 0;
  return l;
}

DenseOperatorCost concat_interaction_gpu_cost(const DenseLayer& l, const GpuCostInput& in) {
  const Bytes activation_bytes = in.activation_bytes(l);
  const Seconds launch = in.launch();
  DenseOperatorCost c;
  c.forward = in.memory_time(activation_bytes) + launch;
  c.backward = in.memory_time(activation_bytes) + launch;
  c.forward_hbm = c.backward_hbm = activation_bytes;
  c.forward_kernels = c.backward_kernels = 1;
  return c;
}

}  // namespace dlrmsim::models
