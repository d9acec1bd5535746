// Per-operator cost models: the duration of each kernel or host task of a training step.
//
// Every coefficient comes from a GPU's DeviceProfile (configs/calibration/*.yaml, see
// device_profile.hpp for the fitted forms) or from the platform file (CPU sockets: cores,
// DRAM bandwidth, per-core gather bandwidth, peak FLOP/s), never from constants here. The
// formulas (each a small documented formula; one cost model per operator, read by both the
// placement planner and the simulation):
//
//  Dense layers (ModelSpec::dense_layers): each kind is a dense operator (dense_operator.hpp)
//  whose file documents its formulas; gpu_dense_costs and cpu_dense_costs ask each layer's
//  operator for its time:
//    linear                  models/operators/linear.cpp (MLP layers: GEMMs)
//    dot interaction         models/operators/dot_interaction.cpp (batched X X^T)
//    concat interaction      models/operators/concat_interaction.cpp (a copy)
//    DCNv2 cross layer       models/operators/dcnv2_cross.cpp (low-rank GEMMs + elementwise)
//    HSTU block              models/operators/hstu.cpp (projections, jagged causal attention,
//                            the context-parallel exchange of keys and values)
//    dense optimiser update  memory bound: fp32 master weights read + written, gradient read,
//                            optimiser state read + written, over achievable HBM bandwidth
//                            (a fused multi-tensor kernel: one launch).
//  Each GPU kernel adds the profile's launch overhead.
//
//  Embeddings on a GPU: the one GPU embedding cost model, topologies/gpu_embedding_cost.hpp
//  (forward gather, backward + optimiser update with the Adam / full Adagrad scaling, an
//  unfused optimiser's pass, UVM misses over PCIe), which the placement planner reads too;
//  models/owner_work.cpp gets it from the shard's memory tier (placement/tier.hpp). The UVM
//  misses' real bytes cross PCIe from the host socket's DRAM as a kernel
//  (sim::ActivityGraph::add_kernel) capped at the rate of DeviceProfile::uvm_gather_time, so
//  it takes that time alone and shares DRAM and PCIe with copies and CPU gathers.
//
//  Host-device copies: the input batch's real bytes from DRAM over PCIe on the GPU's copy
//  queue, capped at the profile's measured copy bandwidth (Transfers::host_dma).
//
//  Embeddings on a CPU socket (host_dram tier, parameter servers, CPU trainers): gathers and
//  updates (read-modify-write) are topologies/cpu_row_cost.hpp, the model the placement
//  planner reads too.
//    dense layers on a CPU   the socket's CPU profile (platform key `profile`) gives each GEMM's
//                            efficiency (models/operators/linear.cpp), or FLOPs / (socket peak at
//                            the compute precision x training.cpu.dense_efficiency).
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
#include "topologies/gpu_embedding_cost.hpp"
#include "models/dense_operator.hpp"
#include "models/model_spec.hpp"
#include "topologies/devices.hpp"

namespace dlrmsim::models {

/// The compute precision, checked to have a dense GEMM model (fp64 and int8 have none) and
/// GEMM coefficients in the profile; std::invalid_argument naming the device otherwise.
topo::Precision gemm_precision_for(Precision compute, const topo::DeviceProfile& profile);

/// Costs of the dense operators in forward order on one GPU (launch overheads included).
/// Under context parallelism (`context_parallel` GPUs share each sample's sequence,
/// training.context_parallel) the layers over sequences see the `group_batch` samples of the
/// GPU's group (GpuCostInput::batch), the others the local batch.
std::vector<DenseOperatorCost> gpu_dense_costs(const ModelSpec& model, const topo::DeviceProfile& profile,
                                               std::int64_t local_batch, int context_parallel = 1,
                                               std::int64_t group_batch = 0);

/// Fused dense optimiser update of `parameters` parameters on a GPU.
Seconds gpu_dense_optimizer_time(const ModelSpec& model, const topo::DeviceProfile& profile, double parameters);
/// Bytes the dense optimiser update moves per parameter (fp32 master weight read + write,
/// gradient read, optimiser state read + write).
Bytes dense_optimizer_bytes_per_parameter(const ModelSpec& model);
/// The same update on a CPU socket: memory bound over its DRAM bandwidth.
Seconds cpu_dense_optimizer_time(const ModelSpec& model, const topo::CpuSocketSpec& cpu, double parameters);

/// The embedding optimiser as the one GPU embedding cost model reads it
/// (topologies/gpu_embedding_cost.hpp): SGD and row-wise Adagrad as measured; full Adagrad
/// and Adam as row-wise Adagrad scaled for their 1 and 2 state values per element.
topo::EmbeddingUpdate embedding_update(const Optimizer& optimizer);
/// Peak FLOP/s of a socket at a compute precision (tf32 falls back to fp32 on CPUs, which have
/// no tf32 mode); std::invalid_argument when the platform gives no figure.
FlopsPerSecond cpu_peak(const topo::CpuSocketSpec& cpu, Precision compute);
Seconds cpu_dense_time(const topo::CpuSocketSpec& cpu, Flops flops, Precision compute, double efficiency);

/// Costs of the dense operators in forward order on one CPU socket, each GEMM on all its cores:
/// with `efficiency` (training.cpu.dense_efficiency) FLOPs / (peak x efficiency) per layer,
/// without it the socket's CPU profile (platform key `profile`) gives each operator's efficiency.
/// std::invalid_argument naming training.cpu.dense_efficiency when there is neither.
/// `per_item`: batched GEMMs run one BLAS call per item (software.cpu_trainer.bmm per_item).
std::vector<DenseOperatorCost> cpu_dense_costs(const ModelSpec& model, const topo::CpuSocketSpec& cpu,
                                               std::optional<double> efficiency, std::int64_t local_batch,
                                               std::optional<CpuCostInput::PerItemGemm> per_item = std::nullopt);

}  // namespace dlrmsim::models
