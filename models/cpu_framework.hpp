// The framework work of a CPU trainer: what PyTorch eager runs on a CPU socket's cores besides
// the GEMMs, gathers and row updates that the other cost models price.
//
// On a GPU trainer the framework's per-operator cost is host work that overlaps the GPU
// (host_model.hpp); on a CPU trainer the same thread that dispatches an operator then runs it
// (eager CPU kernels are synchronous), so each operator's dispatch lies on the step's critical
// path, in program order with the compute, on the trainer socket's stream. Under
// software.cpu_trainer.framework: eager, a CPU trainer runs, per step:
//
//   dense layer l      eager_layer_operators(l): the forward's operators, the autograd nodes
//                      of its backward, its parameter tensors; and the elementwise work beside
//                      the GEMM: activation forward (read + write the output), activation
//                      backward (read the gradient and the output, write the gradient), the
//                      bias gradient (a sum over the batch: read the gradient): 6 x out elements
//                      per sample for a linear layer; 2 x (in + out) per pass for the
//                      interactions (their copies: cat, index, and the backward's scatter).
//   loss               torch.nn.BCELoss: 1 forward operator, 2 backward (loss.backward()'s seed,
//                      BinaryCrossEntropyBackward0).
//   tables             per table (nn.EmbeddingBag(sparse=True), software.embeddings.kernel:
//                      per_table; one per owner when table_batched): 1 forward operator, 2
//                      backward nodes (EmbeddingBagBackward0, AccumulateGrad); zero_grad's
//                      zero_ and the optimiser's operators per weight tensor (none when the
//                      optimiser is fused into the backward); and where the optimiser coalesces the sparse
//                      gradient (adagrad, adam: a non-linear update needs unique rows; SGD adds
//                      the uncoalesced gradient with index_add), the coalescing:
//                      lookups x software.cpu_trainer.coalesce_per_lookup (sort of the ids and
//                      segment sum, measured) + the gradient rows' bytes over the socket's
//                      streaming bandwidth.
//   dense optimiser    per parameter tensor: zero_grad's zero_ and the optimiser's operators.
// Once per step the framework also runs work that is no operator (the Python loop body,
// autograd's graph task, the optimiser's and zero_grad's entry and per-tensor Python loops):
// software.host.framework (per step, and per sample of the local batch), with the loss.
// Each operator costs software.host.dispatch; elementwise bytes run at the socket's cached
// streaming bandwidth (the CPU profile's memcpy.cached figure per core x the socket's cores,
// capped by the profile's all-core figure on a socket no larger than the measured machine).
//
// Operator counts (torch 1.13.1, the Debian python3-torch of this project's machines; pytorch/
// pytorch at tag v1.13.1), checked by torch.profiler in validation/cpu/pytorch_cpu_step.py:
//   torch/nn/modules/linear.py: F.linear (one aten::linear -> addmm); backward AddmmBackward0,
//     TBackward0 (the weight's transpose), and AccumulateGrad for weight and bias; the
//     activation (nn.ReLU, nn.Sigmoid on the top MLP's last layer, as dlrm_s_pytorch.py's
//     create_mlp) one more forward operator and one backward node.
//   dlrm_s_pytorch.py interact_features (dot): cat, view, bmm, transpose, index (+ its slice),
//     cat: 7 forward operators and 7 backward nodes; concat: 1 and 1.
//   torchrec's LowRankCrossNet (DCNv2) per cross layer: V x (mm), W (.) + b (addmm), x0 * (.),
//     + x: 4 forward operators; backward MmBackward0, AddmmBackward0, TBackward0 x 2,
//     MulBackward0, AddBackward0 and AccumulateGrad for V, W, b: 9 nodes; 3 parameter tensors
//     (full rank: one addmm, 3 operators, 6 nodes, 2 tensors).
//   feature_mlp (an MLP the features share, models/operators/feature_mlp.cpp): per layer an
//     nn.Linear over the [batch, features, width] tensor and its activation (linear's counts:
//     2 forward operators, 5 backward nodes, 2 tensors), and one cat (1 and 1).
//   torch/optim/optimizer.py zero_grad (set_to_none=False): one zero_ per tensor.
//   torch/optim/sgd.py _single_tensor_sgd (foreach defaults to False in 1.13): param.add_, 1 per
//     tensor, dense or sparse.
//   torch/optim/adagrad.py _single_tensor_adagrad: dense: step_t += 1, step_t.item(),
//     addcmul_, sqrt, add_, addcdiv_: 6; sparse: step_t += 1, item, coalesce, _indices,
//     _values, pow, _make_sparse, add_, sparse_mask, _values, sqrt_, add_, div, _make_sparse,
//     add_: 15.
//   torch/optim/adam.py _single_tensor_adam (dense): step_t += 1, mul_, add_, mul_, addcmul_,
//     conj, item, sqrt, div, add_, addcdiv_: 11; torch/optim/_functional.py sparse_adam
//     (SparseAdam): coalesce, _indices, _values, then sparse_mask, _values, sub, mul_,
//     grad.new, add_ (first moment), sparse_mask, _values, pow, sub_, mul_, grad.new, add_
//     (second), add_, add_, sqrt_, add_, div_, mul, grad.new, add_: 24. torch.optim has no
//     row-wise Adagrad: rowwise_adagrad is priced as adagrad (an assumption).
// Under software.cpu_trainer.optimizer: fused (IPEX's fused optimisers, a fused or foreach
// kernel), the optimiser is one operator per table and one for the dense parameters, and
// zero_grad one operator for all tensors.
// Validity: eager PyTorch on a CPU trainer with one Python thread dispatching; the per-op
// figure is the stack's (its time is the CPU's as much as the framework's).
#pragma once

#include <cstdint>

#include "common/units.hpp"
#include "models/dense_layer.hpp"
#include "models/model_spec.hpp"
#include "models/software_stack.hpp"
#include "topologies/devices.hpp"

namespace dlrmsim::models {

/// Operators an eager training step issues for one unit of the model.
struct EagerOperators {
  int forward = 0;            // top-level aten operators of the forward
  int backward = 0;           // autograd nodes the backward runs
  int parameter_tensors = 0;  // tensors the optimiser updates and zero_grad clears
};

/// The operators of dense layer `l` of `model` (see the header); std::invalid_argument for an
/// operator kind without counts.
EagerOperators eager_layer_operators(const DenseLayer& l, const ModelSpec& model);
/// The loss (torch.nn.BCELoss): 1 forward operator, 2 backward.
EagerOperators eager_loss_operators();
/// Operators of the single-tensor optimiser loop per parameter tensor (dense, or a table's
/// sparse gradient).
int eager_optimizer_operators(OptimizerKind kind, bool sparse);
/// Whether the optimiser coalesces a sparse gradient before its update (non-linear updates).
bool optimizer_coalesces(OptimizerKind kind);

/// One piece of framework work: operators dispatched and the time of it all.
struct FrameworkWork {
  int operators = 0;
  Seconds time{0.0};
};

/// The framework work of a CPU trainer socket under a stack (see the header).
class CpuTrainerFramework {
 public:
  CpuTrainerFramework(const SoftwareStack& stack, const ModelSpec& model, const topo::CpuSocketSpec& cpu,
                      std::int64_t local_batch);

  /// Whether the stack runs eager framework work on CPU trainers at all.
  [[nodiscard]] bool enabled() const;
  /// Dense layer l's forward and backward (its operators and elementwise work).
  [[nodiscard]] FrameworkWork layer_forward(const DenseLayer& l) const;
  [[nodiscard]] FrameworkWork layer_backward(const DenseLayer& l) const;
  /// The loss, forward and backward, before the top MLP's backward, with the stack's per-step
  /// framework work (software.host.framework).
  [[nodiscard]] FrameworkWork loss() const;
  /// zero_grad and the optimiser step over the dense parameter tensors.
  [[nodiscard]] FrameworkWork dense_optimizer() const;
  /// The forward of `tables` tables (one operator each, or one for a table-batched kernel).
  [[nodiscard]] FrameworkWork tables_forward(int tables) const;
  /// Backward, zero_grad and optimiser of `tables` tables with `lookups` lookups in all, whose
  /// rows (their sparse gradients' values) take `gradient_bytes`; coalescing included where the
  /// optimiser coalesces.
  [[nodiscard]] FrameworkWork tables_backward(int tables, double lookups, Bytes gradient_bytes) const;
  /// The socket's streaming bandwidth for activations in cache (see the header).
  [[nodiscard]] BytesPerSecond elementwise_bandwidth() const;

 private:
  [[nodiscard]] FrameworkWork work(int operators, Bytes elementwise) const;

  const SoftwareStack& stack_;
  const ModelSpec& model_;
  const topo::CpuSocketSpec& cpu_;
  std::int64_t batch_;
};

}  // namespace dlrmsim::models
