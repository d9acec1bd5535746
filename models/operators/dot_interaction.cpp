// dot_interaction: DLRM's feature interaction [Naumov et al. 2019]. The bottom-MLP output and
// the F pooled embeddings form F+1 vectors of width d (the model reader checks they share d);
// the interaction outputs the F(F+1)/2 distinct pairwise dot products (no self-products)
// concatenated with the bottom-MLP output. No parameters.
//
// Per sample: the batched GEMM Z = X X^T of the (F+1) x d matrix, (F+1)^2 d multiply-adds;
// it reads its input and writes its output.
// On a GPU, local batch b: the batched X X^T, batched_gemm(b; F+1, F+1, d) (DeviceProfile::
// batched_gemm_time), backward twice that (dX = (dZ + dZ^T) X); floored by its activation
// traffic over achievable HBM bandwidth; one launch forward, two backward.
// On a CPU socket, the batched GEMM as the stack runs it (software.cpu_trainer.bmm):
//   batched    FLOPs / (peak x the large-GEMM efficiency) (cpu_cost_from_flops);
//   per_item   PyTorch's CPU bmm in a build without MKL (pytorch/pytorch@v1.13.1
//              aten/src/ATen/native/LinearAlgebra.cpp, bmm_out_or_baddbmm_: above 400
//              multiply-adds an item and without MKL it splits along the batch, one
//              mm_cpu_out per item): b items of (F+1) x (F+1) x d forward (bmm(T, T^T)), and the
//              backward's two products (BmmBackward0: grad Z bmm T and T^T bmm grad Z, each
//              (F+1) x d x (F+1)), each item at CpuCostInput::per_item_gemms.
#include <algorithm>

#include "models/dense_operator.hpp"

namespace dlrmsim::models {

DenseLayer declare_dot_interaction(const DenseOperatorSite& site) {
  DenseLayer l;
  l.in = site.in;
  // The input is the bottom-MLP output followed by the pooled embeddings.
  const std::int64_t bottom_out = site.in - site.model.pooled_embedding_width();
  const std::int64_t f_plus_1 = site.model.table_count() + 1;
  l.out = bottom_out + f_plus_1 * (f_plus_1 - 1) / 2;
  // Batched GEMM Z = X X^T of the (F+1) x d matrix per sample: (F+1)^2 d multiply-adds;
  // backward computes dX = (dZ + dZ^T) X: the same count again twice.
  const double vectors = static_cast<double>(site.model.table_count() + 1);
  const int d = site.model.common_embedding_dim();
  l.forward_flops_per_sample = Flops(2.0 * vectors * vectors * d);
  l.backward_flops_per_sample = l.forward_flops_per_sample * 2.0;
  l.activation_elements_per_sample = static_cast<double>(l.in) + static_cast<double>(l.out);
  l.gemms = 1;
  return l;
}

DenseOperatorCost dot_interaction_gpu_cost(const DenseLayer& l, const GpuCostInput& in) {
  const Bytes activation_bytes = in.activation_bytes(l);
  const Seconds launch = in.launch();
  const std::int64_t vectors = in.model.table_count() + 1;
  const int d = in.model.common_embedding_dim();
  const Seconds gemm = in.profile.batched_gemm_time(in.batch, vectors, vectors, d, in.dtype);
  const Seconds floor = in.memory_time(activation_bytes);
  DenseOperatorCost c;
  c.forward = std::max(gemm, floor) + launch;
  c.backward = std::max(gemm * 2.0, floor * 2.0) + launch * 2.0;
  c.forward_hbm = std::max(topo::gemm_traffic(vectors, vectors, d, in.dtype, in.batch), activation_bytes);
  c.backward_hbm = c.forward_hbm * 2.0;
  c.forward_kernels = 1;
  c.backward_kernels = 2;
  return c;
}

DenseOperatorCost dot_interaction_cpu_cost(const DenseLayer& l, const CpuCostInput& in) {
  if (!in.per_item) return cpu_cost_from_flops(l, in);
  const std::int64_t vectors = in.model.table_count() + 1;
  const int d = in.model.common_embedding_dim();
  DenseOperatorCost c;
  c.forward = in.per_item_gemms(in.batch, vectors, vectors, d);
  c.backward = in.per_item_gemms(in.batch, vectors, d, vectors) * 2.0;
  c.forward_kernels = 1;
  c.backward_kernels = 2;
  return c;
}

}  // namespace dlrmsim::models
