// Per-operator cost models: the duration of each kernel or host task of a training step.
//
// Every coefficient comes from a GPU's DeviceProfile (configs/calibration/*.yaml, see
// device_profile.hpp for the fitted forms) or from the platform file (CPU sockets: cores,
// DRAM bandwidth, per-core gather bandwidth, peak FLOP/s), never from constants here. The
// formulas, following ../shared/DESIGN.md "Cost models and calibration":
//
//  Dense layers on a GPU, local batch b (FLOPs and shapes from ModelSpec::dense_layers):
//    linear forward          gemm(m=b, n=out, k=in)
//    linear backward         gemm(b, in, out) [input gradient] + gemm(in, out, b) [weight gradient]
//    dot interaction         the batched X X^T: batched_gemm(b; F+1, F+1, d), backward twice
//                            that (dX = (dZ + dZ^T) X); floored by its activation traffic over
//                            achievable HBM bandwidth
//    DCNv2 cross layer       gemm(b, r, w) + gemm(b, w, r) forward, four GEMMs backward, plus the
//                            elementwise x0 * (.) + x traffic over achievable HBM bandwidth
//    concat interaction      a copy: activation bytes over achievable HBM bandwidth
//  where gemm() is DeviceProfile::gemm_time (peak x efficiency(m, n, k), floored by operand
//  traffic) and each kernel adds the profile's launch overhead.
//    dense optimiser update  memory bound: fp32 master weights read + written, gradient read,
//                            optimiser state read + written, over achievable HBM bandwidth
//                            (a fused multi-tensor kernel: one launch).
//
//  Embeddings on a GPU (FBGEMM-style table-batched kernel: one launch per pass per GPU):
//    forward                 DeviceProfile::embedding_forward_time(lookups, row bytes, pooling)
//    backward + update       DeviceProfile::embedding_backward_time with the profile's measured
//                            multiple for SGD or row-wise Adagrad, scaled for the distinct rows
//                            among the lookups (placement::expected_distinct_rows). Full Adagrad and Adam keep a
//                            per-element state that the update reads and writes with the row;
//                            their time is the row-wise Adagrad time scaled by
//                            (row bytes + state bytes per row) / (row bytes + row-wise state
//                            bytes per row) (assumption: the update is memory bound).
//    UVM misses              the rows that miss the HBM cache cross PCIe: their real bytes
//                            (misses x row bytes) read from the host socket's DRAM over the
//                            PCIe route, a kernel (sim::ActivityGraph::add_kernel) capped at
//                            the rate of DeviceProfile::uvm_gather_time, so it takes that time
//                            alone and shares DRAM and PCIe with copies and CPU gathers.
//
//  Host-device copies: the input batch's real bytes from DRAM over PCIe on the GPU's copy
//  queue, capped at the profile's measured copy bandwidth (StepBuilder::host_dma).
//
//  Embeddings on a CPU socket (host_dram tier, parameter servers, CPU trainers): gathers and
//  updates (read-modify-write) are topologies/cpu_row_cost.hpp, the model the placement
//  planner reads too.
//    dense layers on a CPU   FLOPs / (socket peak at the compute precision x dense efficiency);
//                            the dense efficiency is a scenario input (training.cpu.dense_efficiency)
//                            because no CPU calibration profile exists yet.
//
// Validity: the GEMM and gather forms hold within the ranges their profile was fitted on
// (device_profile.hpp); operators below a few microseconds are dominated by launch overhead.
#pragma once

#include <cstdint>
#include <string>
#include <optional>
#include <vector>

#include "common/units.hpp"
#include "topologies/device_profile.hpp"
#include "models/model_spec.hpp"
#include "topologies/devices.hpp"

namespace dlrmsim::models {

/// The GEMM dtype a compute precision runs in; int8 has no dense GEMM here. Throws
/// std::invalid_argument naming the device when its profile lacks the dtype.
topo::GemmDtype gemm_dtype_for(Precision compute, const topo::DeviceProfile& profile);

/// Time of one dense operator (forward, backward) for a local batch, and its gradient size.
struct DenseOperatorCost {
  std::string name;
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
};

/// Costs of the dense operators in forward order on one GPU (launch overheads included).
std::vector<DenseOperatorCost> gpu_dense_costs(const ModelSpec& model, const topo::DeviceProfile& profile,
                                               std::int64_t local_batch);

/// Fused dense optimiser update of `parameters` parameters on a GPU.
Seconds gpu_dense_optimizer_time(const ModelSpec& model, const topo::DeviceProfile& profile, double parameters);
/// Bytes the dense optimiser update moves per parameter (fp32 master weight read + write,
/// gradient read, optimiser state read + write).
Bytes dense_optimizer_bytes_per_parameter(const ModelSpec& model);
/// The same update on a CPU socket: memory bound over its DRAM bandwidth.
Seconds cpu_dense_optimizer_time(const ModelSpec& model, const topo::CpuSocketSpec& cpu, double parameters);

/// Embedding work of one GPU in one pass: rows gathered and rows per pooled bag.
struct GatherWork {
  double lookups = 0.0;  // rows gathered
  Bytes row_bytes;       // bytes of one row (shard columns x element size)
  double pooling = 1.0;  // rows per bag (lookups per sample)
  int columns = 0;       // elements per row (for per-element optimiser state)
  double distinct_fraction = 1.0;  // distinct rows / lookups (the backward updates each row once)
};

/// Forward gather time of rows in HBM (no launch overhead: one launch per pass is added by
/// the caller for the table-batched kernel).
Seconds gpu_embedding_forward_time(const topo::DeviceProfile& profile, const GatherWork& work);
/// Backward + optimiser update of rows in HBM (no launch overhead).
Seconds gpu_embedding_backward_time(const topo::DeviceProfile& profile, const GatherWork& work, const Optimizer& optimizer);
/// Extra time of an embedding optimiser that is not fused into the backward kernel (PyTorch's
/// nn.EmbeddingBag with a torch.optim optimiser): the backward writes one gradient row per
/// lookup (a sparse gradient) and the optimiser reads it back, 2 x lookups x row bytes over
/// achievable HBM bandwidth, on top of the fused update's own traffic (no launch overhead:
/// the caller adds one optimiser kernel per table).
Seconds gpu_embedding_separate_optimizer_time(const topo::DeviceProfile& profile, const GatherWork& work);
/// Peak FLOP/s of a socket at a compute precision (tf32 falls back to fp32 on CPUs, which have
/// no tf32 mode); std::invalid_argument when the platform gives no figure.
FlopsPerSecond cpu_peak(const topo::CpuSocketSpec& cpu, Precision compute);
Seconds cpu_dense_time(const topo::CpuSocketSpec& cpu, Flops flops, Precision compute, double efficiency);

/// Costs of the dense operators in forward order on one CPU socket, each GEMM on all its cores.
/// With `efficiency` (training.cpu.dense_efficiency): FLOPs / (peak x efficiency) per layer.
/// Without it, the socket's CPU profile (platform key `profile`) gives the efficiency:
///   an MLP layer's GEMMs (forward b x out x in; backward b x in x out and in x out x b) take
///     2 m n k / (peak x e(m, n, k)) + the profile's all-core call overhead,
///   e(m, n, k) = CpuProfile::gemm_efficiency: the measured machine's achieved fraction of its
///   peak at that shape, carried over to this socket's datasheet peak (an assumption: the same
///   fraction on another core and GEMM library);
///   other layers (the interaction) take FLOPs / (peak x the profile's large-GEMM efficiency).
/// std::invalid_argument naming training.cpu.dense_efficiency when there is neither.
std::vector<DenseOperatorCost> cpu_dense_costs(const ModelSpec& model, const topo::CpuSocketSpec& cpu,
                                               std::optional<double> efficiency, std::int64_t local_batch);

}  // namespace dlrmsim::models
