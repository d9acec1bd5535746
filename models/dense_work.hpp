// Dense work: the trainers' dense layers, their gradients' all-reduce in buckets and the
// dense optimiser (step_builder.hpp's vocabulary), from the per-operator costs of
// models/cost_models.hpp.
#pragma once

#include <map>
#include <span>
#include <string>
#include <vector>

#include "models/collectives.hpp"
#include "models/cpu_framework.hpp"
#include "models/cost_models.hpp"
#include "models/host_model.hpp"
#include "models/step_context.hpp"
#include "sim/activity_graph.hpp"

namespace dlrmsim::models {

class DenseWork {
 public:
  DenseWork(StepContext& ctx, HostModel& host, Collectives& collectives)
      : ctx_(ctx), host_(host), collectives_(collectives) {}

  /// Dense operator costs for the local batch on a trainer (cached per device kind).
  const std::vector<DenseOperatorCost>& costs(const SimDevice& trainer);

  /// The dense layers a chain of kernels covers: the bottom MLP (dense features only, which
  /// can run before the embeddings arrive: DenseLayer::before_embeddings) or every layer above
  /// it (interaction, top MLP).
  enum class Layers { bottom_mlp, above_bottom };
  /// Chains the forward kernels of `layers` on the trainer's stream after `after`; returns the
  /// last one (`after` when there is none). A layer with a context-parallel exchange sends it
  /// first (the backward likewise). A CPU trainer runs each layer's framework work
  /// (models/cpu_framework.hpp) before its GEMMs, and the loss before the backward above the
  /// bottom MLP.
  sim::ActivityId forward(const SimDevice& trainer, Layers layers, sim::ActivityId after);
  /// Chains the backward kernels of `layers` in reverse layer order after `after`; the kernel
  /// of layer l is written to layer_done[l] (one entry per dense layer). Returns the last.
  sim::ActivityId backward(const SimDevice& trainer, Layers layers, sim::ActivityId after,
                           std::span<sim::ActivityId> layer_done);

  /// The dense gradients all-reduced in buckets of software.allreduce_bucket, in backward
  /// layer order, then the replicated tables' gradients; each bucket after the previous one
  /// (one NCCL stream) and after the backward of its layers (layer_done[trainer][layer]), or
  /// after the whole backward (last_backward[trainer]) when the stack does not overlap them.
  /// Returns per simulated trainer the completion of the last bucket (empty: nothing to reduce).
  std::vector<sim::ActivityId> reduce_gradients(const std::vector<std::vector<sim::ActivityId>>& layer_done,
                                                std::span<const sim::ActivityId> last_backward, std::uint16_t category);

  /// The dense optimiser of each simulated trainer, one fused kernel after its backward
  /// (last_backward[i]) and its last all-reduce bucket (reduced[i]; empty: none): on a GPU
  /// gpu_dense_optimizer_time, on a CPU socket cpu_dense_optimizer_time after the framework's
  /// zero_grad and optimiser operators. Returns per trainer.
  std::vector<sim::ActivityId> optimizer(std::span<const sim::ActivityId> last_backward,
                                         std::span<const sim::ActivityId> reduced);

 private:
  /// A CPU trainer's framework work (models/cpu_framework.hpp) and its activity on the
  /// trainer's stream after `after` (none for a GPU trainer or no work).
  [[nodiscard]] CpuTrainerFramework cpu_framework(const SimDevice& trainer) const;
  sim::ActivityId framework(const SimDevice& trainer, const FrameworkWork& work, sim::ActivityId after);
  /// Context parallelism: `bytes` from the trainer to each other GPU of its group after
  /// `after` (an HSTU block's keys and values, DenseOperatorCost::forward_exchange), tagged
  /// all_to_all; returns when its sends are done (`after` when there is nothing to send). The
  /// members are symmetric, so each waits for its own sends rather than its peers'.
  sim::ActivityId exchange(const SimDevice& trainer, Bytes bytes, sim::ActivityId after);

  StepContext& ctx_;
  HostModel& host_;
  Collectives& collectives_;
  std::map<std::string, std::vector<DenseOperatorCost>> dense_cache_;
};

}  // namespace dlrmsim::models
