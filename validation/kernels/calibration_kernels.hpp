// The calibration kernel set: what dlrmsim-calibrate measures on a GPU.
//
// Plain C++ interface (no CUDA types), so that the runner is compiled by the host compiler
// and only the .cu files need nvcc. Every function first runs its kernel once on fresh random
// inputs and checks the result against a CPU reference (throwing CheckFailed on a mismatch),
// then times it: `warmup` untimed runs, `repeats` runs each bracketed by CUDA events, and
// returns the median. Inputs are generated from a counter-based hash of (seed, row, column) on
// the GPU and recomputed on the host for the reference, so no large host copy is needed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace dlrmsim::calibration {

/// A kernel's result differs from the CPU reference (the message says where and by how much).
class CheckFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A CUDA or cuBLAS call failed.
class CudaFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// No CUDA device to measure: no driver, no GPU, or no device of the ordinal asked for. A fact
/// of the machine or of the options, not a defect (dlrmsim-calibrate exits with status 2).
class NoDevice : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct TimingOptions {
  int warmup = 3;
  int repeats = 20;
  std::uint64_t seed = 1;
};

struct Timing {
  double median_seconds = 0.0;
  int repeats = 0;
};

struct DeviceInfo {
  std::string name;
  std::string driver;   // kernel module version from /proc/driver/nvidia/version, else CUDA driver API version
  std::string runtime;  // CUDA runtime version, "13.0"
  int sm_count = 0;
  std::size_t memory_bytes = 0;
  std::size_t l2_bytes = 0;
};

/// Selects device `ordinal` and describes it; NoDevice when there is none to select.
DeviceInfo open_device(int ordinal);

// --- embeddings -------------------------------------------------------------------------

enum class RowType { fp32, fp16 };
enum class IdDistribution { uniform, zipf };

struct EmbeddingConfig {
  int dim = 128;                 // elements per row, a multiple of 4, at most 512
  RowType row_type = RowType::fp32;
  int pooling = 1;               // lookups per bag, fixed-size bags
  std::int64_t bags = 0;         // batch x tables (all tables of one size share one flat table)
  std::int64_t table_rows = 0;
  IdDistribution ids = IdDistribution::uniform;
  double zipf_exponent = 1.05;   // for IdDistribution::zipf
};

/// Bytes of one row.
std::size_t row_bytes(const EmbeddingConfig& config);

/// Sum-pooled embedding-bag forward, rows in device memory (HBM).
Timing time_embedding_forward(const EmbeddingConfig& config, const TimingOptions& options);

enum class Optimizer { sgd, rowwise_adagrad };

/// Backward with the optimiser update fused: sort (row id, position) pairs by row, run-length
/// encode, then one warp per touched row sums its gradients and updates the row in place.
/// fp32 rows only.
Timing time_embedding_backward(const EmbeddingConfig& config, Optimizer optimizer, const TimingOptions& options);

/// The forward kernel reading rows from mapped pinned host memory over PCIe (zero-copy, UVM tier).
Timing time_uvm_gather(const EmbeddingConfig& config, const TimingOptions& options);

// --- copies, GEMM, launches ---------------------------------------------------------------

enum class CopyKind { h2d_pinned, h2d_pageable, d2h_pinned, d2h_pageable, d2d };
Timing time_copy(CopyKind kind, std::size_t bytes, const TimingOptions& options);

enum class GemmType { fp32, tf32, bf16, fp16 };
/// cuBLAS C = A B, column-major, no transposes, A m x k, B k x n (cublasGemmEx, fp32 accumulate).
Timing time_gemm(GemmType type, std::int64_t m, std::int64_t n, std::int64_t k, const TimingOptions& options);

/// Host time per launch of an empty kernel, `launches_per_repeat` launched back to back.
Timing time_launch_overhead(int launches_per_repeat, const TimingOptions& options);
/// GPU time per kernel of a CUDA graph of `kernels_per_repeat` empty kernels, launched once a
/// repeat and timed with CUDA events (the device profile's launch.min_kernel_time).
Timing time_kernel_floor(int kernels_per_repeat, const TimingOptions& options);

}  // namespace dlrmsim::calibration
