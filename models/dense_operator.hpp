// Dense operators: each kind of layer of the dense part (a linear layer, a feature
// interaction, ...) is one implementation behind this interface, in its own file
// models/operators/<name>.cpp, listed in the registry (models/dense_operator.cpp). An operator
// declares what one sample costs (FLOPs, parameters, activations, GEMMs) where the model places
// it, and turns that into the time of its kernels for a batch on a GPU or a CPU socket. The
// model's list of layers (ModelSpec::dense_layers), the step and the placement planner all
// read these, so each formula exists once; the formulas and their sources are documented in
// the operator's file.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "common/units.hpp"
#include "models/dense_layer.hpp"
#include "models/model_spec.hpp"
#include "topologies/device_profile.hpp"
#include "topologies/devices.hpp"

namespace dlrmsim::topo {
class CpuProfile;
}

namespace dlrmsim::models {

/// Time of one dense operator (forward, backward) for a local batch, and its gradient size.
struct DenseOperatorCost {
  std::string name;
  /// Whether it runs before the pooled embeddings arrive (DenseLayer::before_embeddings).
  bool before_embeddings = false;
  Seconds forward;
  Seconds backward;
  double parameters = 0.0;  // trainable parameters (their gradients are all-reduced)
  int forward_kernels = 0;
  int backward_kernels = 0;
  /// HBM bytes its kernels move (GEMM operands read once and outputs written once, activations
  /// of the memory-bound parts), and whether that traffic is what sets their time (no GEMM
  /// above its memory floor): a memory-bound operator loads HBM alone, another its SMs and HBM.
  Bytes forward_hbm{0.0};
  Bytes backward_hbm{0.0};
  bool forward_memory_bound = false;
  bool backward_memory_bound = false;
  /// Context parallelism: bytes the GPU sends each other GPU of its group before the forward
  /// and backward kernels (an HSTU block's keys and values, and their gradients backward).
  Bytes forward_exchange{0.0};
  Bytes backward_exchange{0.0};
};

/// Where the model places an operator: the model (whose keys an operator may read, as the
/// interaction's), the operator's input width and the output width the model asks for (an
/// MLP layer's; 0 where the operator derives its own, as an interaction does).
struct DenseOperatorSite {
  const ModelSpec& model;
  std::int64_t in = 0;
  std::int64_t out = 0;
};

/// What an operator's GPU cost reads besides its layer.
struct GpuCostInput {
  const ModelSpec& model;
  const topo::DeviceProfile& profile;
  topo::Precision dtype;  // the compute precision's GEMM dtype (gemm_precision_for)
  /// The local batch, at least 1; for a layer over sequences (DenseLayer::over_sequences)
  /// under context parallelism, the samples of the GPU's group, of which it holds
  /// 1/context_parallel of each sequence.
  std::int64_t batch;
  /// GPUs sharing each sample's sequence (training.context_parallel; 1: none).
  int context_parallel = 1;

  [[nodiscard]] Seconds launch() const { return profile.kernel_launch_overhead(); }
  /// Bytes of one GEMM operand element in the compute dtype.
  [[nodiscard]] Bytes element() const { return topo::operand_bytes(dtype); }
  /// Bytes of the layer's activations over the batch (DenseLayer::activation_elements_per_sample).
  [[nodiscard]] Bytes activation_bytes(const DenseLayer& layer) const {
    return element() * (layer.activation_elements_per_sample * static_cast<double>(batch));
  }
  /// `bytes` over the achievable HBM bandwidth (the time of memory-bound work).
  [[nodiscard]] Seconds memory_time(Bytes bytes) const { return bytes / profile.achievable_hbm_bandwidth(); }
};

/// What an operator's CPU cost reads besides its layer: each GEMM runs on all the socket's cores.
struct CpuCostInput {
  const ModelSpec& model;
  const topo::CpuSocketSpec& cpu;
  /// The socket's CPU profile; null where training.cpu.dense_efficiency replaces it.
  const topo::CpuProfile* profile;
  /// The fraction of peak of work that is not one GEMM of known shape: the profile's
  /// large-GEMM efficiency (every extent saturated), or training.cpu.dense_efficiency.
  double large_efficiency;
  FlopsPerSecond peak;  // cpu_peak at the compute precision
  std::int64_t batch;   // the local batch, at least 1

  /// How a batched GEMM runs when each item is one BLAS call (software.cpu_trainer.bmm
  /// per_item): an item costs `call` plus its FLOPs at `efficiency` of one core's large-GEMM
  /// rate (the socket's peak / cores x large_efficiency), the items one after another on one
  /// core. Absent: one GEMM of the whole batch.
  struct PerItemGemm {
    Seconds call;
    double efficiency = 1.0;
  };
  std::optional<PerItemGemm> per_item;

  /// One GEMM m x n x k at the profile's efficiency for that shape plus its all-core call
  /// overhead (CpuProfile::gemm_efficiency); on a one-core socket the profile's one-thread fit
  /// (gemm_fp32.per_core, no split overhead). Only with a profile.
  [[nodiscard]] Seconds gemm(std::int64_t m, std::int64_t n, std::int64_t k) const;
  /// `items` GEMMs of m x n x k one BLAS call each (per_item must be set):
  ///   items x (call + 2 m n k / (peak / cores x large_efficiency x efficiency)).
  [[nodiscard]] Seconds per_item_gemms(std::int64_t items, std::int64_t m, std::int64_t n, std::int64_t k) const;
};

/// The CPU cost of an operator from its FLOPs alone, FLOPs / (peak x large_efficiency) per
/// pass, each GEMM a call: the form of every operator that is not one GEMM of known shape.
DenseOperatorCost cpu_cost_from_flops(const DenseLayer& layer, const CpuCostInput& in);

/// One kind of dense operator. The costs fill the times, HBM bytes and kernel counts; the
/// caller adds the layer's name, parameters and place (gpu_dense_costs, cpu_dense_costs).
struct DenseOperator {
  std::string_view name;
  std::string_view description;
  /// The per-sample figures at a site: widths, parameters, FLOPs, activations, GEMMs.
  DenseLayer (*declare)(const DenseOperatorSite& site);
  DenseOperatorCost (*gpu_cost)(const DenseLayer& layer, const GpuCostInput& in);
  DenseOperatorCost (*cpu_cost)(const DenseLayer& layer, const CpuCostInput& in);
};

/// Every dense operator, in a fixed order.
std::span<const DenseOperator> dense_operators();
/// The operator called `name`, or nullptr.
const DenseOperator* find_dense_operator(std::string_view name);
/// The operator called `name`; throws std::invalid_argument naming the known ones otherwise.
const DenseOperator& dense_operator(std::string_view name);

}  // namespace dlrmsim::models
