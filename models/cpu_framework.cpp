#include "models/cpu_framework.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "models/dense_operator.hpp"
#include "topologies/cpu_profile.hpp"

namespace dlrmsim::models {

EagerOperators eager_layer_operators(const DenseLayer& l, const ModelSpec& model) {
  const std::string_view kind = l.op ? l.op->name : std::string_view{};
  if (kind == "linear") return {.forward = 2, .backward = 5, .parameter_tensors = 2};
  if (kind == "dot_interaction") return {.forward = 7, .backward = 7, .parameter_tensors = 0};
  if (kind == "concat_interaction") return {.forward = 1, .backward = 1, .parameter_tensors = 0};
  if (kind == "feature_mlp") {
    // Each layer an nn.Linear over the [batch, features, width] tensor and its activation, as
    // linear's counts; then one cat of the features' outputs with the dense input.
    const int layers = static_cast<int>(model.interaction.widths.size());
    return {.forward = 2 * layers + 1, .backward = 5 * layers + 1, .parameter_tensors = 2 * layers};
  }
  if (kind == "dcnv2_cross") {
    const int layers = model.interaction.cross_layers;
    if (model.interaction.low_rank > 0) return {.forward = 4 * layers, .backward = 9 * layers, .parameter_tensors = 3 * layers};
    return {.forward = 3 * layers, .backward = 6 * layers, .parameter_tensors = 2 * layers};
  }
  if (kind == "hstu") {
    // Per layer, the structure documented in models/operators/hstu.cpp: layer_norm, addmm and
    // silu (uvqk), split, the attention (one fused operator), layer_norm and mul (gating), cat,
    // addmm and add (output, residual): 10 forward; backward one autograd node each
    // (assumption: the eager trace of stu.py was not counted) and an AccumulateGrad for each of
    // the 7 parameter tensors (uvqk weight and bias, two norms' weight and bias, output weight).
    const int layers = model.interaction.hstu.layers;
    return {.forward = 10 * layers, .backward = 17 * layers, .parameter_tensors = 7 * layers};
  }
  throw std::invalid_argument("dense operator '" + std::string(kind) + "' of layer '" + l.name +
                              "' has no eager operator counts (models/cpu_framework.cpp)");
}

EagerOperators eager_loss_operators() { return {.forward = 1, .backward = 2, .parameter_tensors = 0}; }

int eager_optimizer_operators(OptimizerKind kind, bool sparse) {
  switch (kind) {
    case OptimizerKind::sgd: return 1;
    case OptimizerKind::adagrad:
    case OptimizerKind::rowwise_adagrad: return sparse ? 15 : 6;
    case OptimizerKind::adam: return sparse ? 24 : 11;
  }
  return 1;
}

bool optimizer_coalesces(OptimizerKind kind) { return kind != OptimizerKind::sgd; }

CpuTrainerFramework::CpuTrainerFramework(const SoftwareStack& stack, const ModelSpec& model, const topo::CpuSocketSpec& cpu,
                                         std::int64_t local_batch)
    : stack_(stack), model_(model), cpu_(cpu), batch_(std::max<std::int64_t>(local_batch, 1)) {}

bool CpuTrainerFramework::enabled() const { return stack_.cpu_framework == SoftwareStack::CpuFramework::eager; }

BytesPerSecond CpuTrainerFramework::elementwise_bandwidth() const {
  const topo::CpuProfile* p = cpu_.profile ? cpu_.profile.get() : cpu_.row_profile.get();
  if (!p || p->memcpy.cached.per_core.value() <= 0.0) {
    if (cpu_.dram_bandwidth.value() > 0.0) return cpu_.dram_bandwidth;  // no cache figure: DRAM's, a bound
    throw std::invalid_argument("CPU '" + cpu_.model +
                                "' runs a CPU trainer's elementwise work but has neither a CPU profile nor a DRAM bandwidth");
  }
  const int cores = std::max(cpu_.cores, 1);
  if (cores <= p->cores) return p->memcpy.cached.bandwidth(cores);
  return p->memcpy.cached.per_core * static_cast<double>(cores);
}

FrameworkWork CpuTrainerFramework::work(int operators, Bytes elementwise) const {
  if (!enabled()) return {};
  FrameworkWork w;
  w.operators = operators;
  w.time = stack_.dispatch * static_cast<double>(operators);
  if (elementwise.value() > 0.0) w.time += elementwise / elementwise_bandwidth();
  return w;
}

namespace {
/// Elements per sample of a layer's elementwise work in one pass (see the header).
double elementwise_elements(const DenseLayer& l, bool backward) {
  if (l.op && l.op->name == "linear") return backward ? 4.0 * static_cast<double>(l.out) : 2.0 * static_cast<double>(l.out);
  return 2.0 * static_cast<double>(l.in + l.out);
}
}  // namespace

FrameworkWork CpuTrainerFramework::layer_forward(const DenseLayer& l) const {
  const Bytes e = element_size(model_.compute_precision) * (elementwise_elements(l, false) * static_cast<double>(batch_));
  return work(eager_layer_operators(l, model_).forward, e);
}

FrameworkWork CpuTrainerFramework::layer_backward(const DenseLayer& l) const {
  const Bytes e = element_size(model_.compute_precision) * (elementwise_elements(l, true) * static_cast<double>(batch_));
  return work(eager_layer_operators(l, model_).backward, e);
}

FrameworkWork CpuTrainerFramework::loss() const {
  const EagerOperators ops = eager_loss_operators();
  // Forward reads the predictions and labels, writes the per-sample loss; backward the same again.
  FrameworkWork w = work(ops.forward + ops.backward, element_size(Precision::fp32) * (6.0 * static_cast<double>(batch_)));
  if (enabled()) w.time += stack_.framework_per_step + stack_.framework_per_sample * static_cast<double>(batch_);
  return w;
}

FrameworkWork CpuTrainerFramework::dense_optimizer() const {
  int tensors = 0;
  for (const DenseLayer& l : model_.dense_layers()) tensors += eager_layer_operators(l, model_).parameter_tensors;
  if (tensors == 0) return work(0, Bytes(0.0));
  if (stack_.cpu_fused_optimizer) return work(2, Bytes(0.0));  // one zero_grad, one fused step
  // zero_grad's zero_ per tensor, then the optimiser's loop; the update's bytes are
  // cpu_dense_optimizer_time's (the dense optimiser's memory-bound cost).
  return work(tensors * (1 + eager_optimizer_operators(model_.dense_optimizer.kind, false)), Bytes(0.0));
}

FrameworkWork CpuTrainerFramework::tables_forward(int tables) const {
  if (tables <= 0) return {};
  const bool batched = stack_.embedding_kernel == SoftwareStack::EmbeddingKernel::table_batched;
  return work(batched ? 1 : tables, Bytes(0.0));
}

FrameworkWork CpuTrainerFramework::tables_backward(int tables, double lookups, Bytes gradient_bytes) const {
  if (tables <= 0) return {};
  const bool batched = stack_.embedding_kernel == SoftwareStack::EmbeddingKernel::table_batched;
  const int passes = batched ? 1 : tables;
  // Backward: EmbeddingBagBackward0 + AccumulateGrad per pass (one weight tensor per table, or
  // one merged weight when batched). An optimiser fused into the backward leaves no gradient to
  // clear or apply; otherwise zero_grad's zero_ and the optimiser's operators per weight tensor.
  int operators = 2 * passes;
  if (!stack_.fused_optimizer) {
    operators += passes * (1 + (stack_.cpu_fused_optimizer ? 1 : eager_optimizer_operators(model_.embedding_optimizer.kind, true)));
  }
  FrameworkWork w = work(operators, Bytes(0.0));
  if (enabled() && !stack_.fused_optimizer && optimizer_coalesces(model_.embedding_optimizer.kind) && lookups > 0.0) {
    // Sort + segment sum of the uncoalesced gradient: the ids' sort per lookup, and the
    // gradient rows read and the coalesced rows written.
    w.time += stack_.coalesce_per_lookup * lookups + gradient_bytes * 2.0 / elementwise_bandwidth();
  }
  return w;
}

}  // namespace dlrmsim::models
