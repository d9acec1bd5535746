// One dense operator of a model as the model places it: which operator it is, where it sits
// in the step, its widths and what it costs per sample in FLOPs, parameters and activations.
// ModelSpec::dense_layers lists them in forward order; models/dense_operator.hpp turns each
// into time for a batch.
#pragma once

#include <cstdint>
#include <string>

#include "common/units.hpp"

namespace dlrmsim::models {

struct DenseOperator;

/// One dense operator of the forward pass for a single sample, in execution order: a linear
/// layer (GEMM of [batch x in] by [in x out]) or the interaction. Cost models turn it into
/// time for a given batch (GEMM shapes m = batch, n = out, k = in).
struct DenseLayer {
  /// The operator this layer is (an entry of dense_operators(); never null in a model's list).
  const DenseOperator* op = nullptr;
  std::string name;
  /// Whether it reads only the dense features, so it can run before the pooled embeddings
  /// arrive (the bottom MLP); the step chains the two groups apart.
  bool before_embeddings = false;
  std::int64_t in = 0;   // input width (k)
  std::int64_t out = 0;  // output width (n)
  double parameters = 0.0;           // trainable parameters (weights + biases)
  Flops forward_flops_per_sample;    // multiply-add = 2 FLOP
  Flops backward_flops_per_sample;   // input + weight gradients
  /// Activation elements read + written per sample in the forward pass (memory-bound floor).
  double activation_elements_per_sample = 0.0;
  /// Number of GEMMs this operator is made of (kernel launches per pass).
  int gemms = 1;
  /// Whether it runs over each sample's event sequence (an HSTU block): context parallelism
  /// (training.context_parallel) splits its sequences over GPUs; other layers see whole samples.
  bool over_sequences = false;
};

}  // namespace dlrmsim::models
