// linear: a fully connected layer of an MLP, y = x W + b with W of in x out.
//
// Per sample: in x out + out parameters (weights + biases), 2 in out FLOP forward (a
// multiply-add is 2 FLOP), twice that backward (input and weight gradients, the standard count
// [Kaplan et al. 2020; Narayanan et al. 2021]); it reads in and writes out activations.
//
// On a GPU, local batch b (gemm() is DeviceProfile::gemm_time: peak x efficiency(m, n, k),
// floored by operand traffic; each kernel adds the profile's launch overhead):
//    forward          gemm(m=b, n=out, k=in)
//    backward         gemm(b, in, out) [input gradient] + gemm(in, out, b) [weight gradient]
// On a CPU socket with a CPU profile (platform key `profile`), each GEMM on all its cores:
//    2 m n k / (peak x e(m, n, k)) + the profile's all-core call overhead, same shapes,
//    e(m, n, k) = CpuProfile::gemm_efficiency: the measured machine's achieved fraction of its
//    peak at that shape, carried over to this socket's datasheet peak (an assumption: the same
//    fraction on another core and GEMM library);
// with training.cpu.dense_efficiency instead (or without inputs): FLOPs / (peak x efficiency).
#include "models/dense_operator.hpp"

namespace dlrmsim::models {

DenseLayer declare_linear(const DenseOperatorSite& site) {
  DenseLayer l;
  l.in = site.in;
  l.out = site.out;
  l.parameters = static_cast<double>(l.in) * static_cast<double>(l.out) + static_cast<double>(l.out);
  l.forward_flops_per_sample = Flops(2.0 * static_cast<double>(l.in) * static_cast<double>(l.out));
  l.backward_flops_per_sample = l.forward_flops_per_sample * 2.0;
  l.activation_elements_per_sample = static_cast<double>(l.in + l.out);
  l.gemms = 1;
  return l;
}

DenseOperatorCost linear_gpu_cost(const DenseLayer& l, const GpuCostInput& in) {
  const auto& profile = in.profile;
  const std::int64_t b = in.batch;
  const topo::Precision dt = in.dtype;
  const Seconds launch = in.launch();
  DenseOperatorCost c;
  c.forward = profile.gemm_time(b, l.out, l.in, dt) + launch;
  c.backward = profile.gemm_time(b, l.in, l.out, dt) + profile.gemm_time(l.in, l.out, b, dt) + launch * 2.0;
  c.forward_hbm = topo::gemm_traffic(b, l.out, l.in, dt);
  c.backward_hbm = topo::gemm_traffic(b, l.in, l.out, dt) + topo::gemm_traffic(l.in, l.out, b, dt);
  c.forward_kernels = 1;
  c.backward_kernels = 2;
  return c;
}

DenseOperatorCost linear_cpu_cost(const DenseLayer& l, const CpuCostInput& in) {
  // A layer without inputs or outputs has no GEMM shape for the profile: its FLOPs alone.
  if (!in.profile || l.in <= 0 || l.out <= 0) return cpu_cost_from_flops(l, in);
  const std::int64_t b = in.batch;
  DenseOperatorCost c;
  c.forward = in.gemm(b, l.out, l.in);
  c.backward = in.gemm(b, l.in, l.out) + in.gemm(l.in, l.out, b);
  c.forward_kernels = l.gemms;
  c.backward_kernels = 2 * l.gemms;
  return c;
}

}  // namespace dlrmsim::models
