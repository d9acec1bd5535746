// A GPU's device profile: the calibrated coefficients every operator cost model reads.
//
// The cost models never hold device constants of their own; they read one DeviceProfile,
// loaded from `configs/calibration/<device>.yaml`. A profile is produced either by the
// calibration fitter from measurements of the kernel set in validation/kernels/ (see
// validation/calibration_fit.hpp), or written by hand from datasheets and published kernel
// figures. Every group of numbers carries a `source` string saying which (a measurement on a
// named machine and date, a datasheet, a paper, or an explicitly labelled assumption).
//
// Models (each coefficient is fitted by validation/calibration_fit.cpp):
//
// * GEMM (cuBLAS, one call C = A B with A m x k, B k x n):
//     compute time  = 2 m n k / (peak(dtype) * efficiency(m, n, k, dtype))
//     efficiency    = e_max * s(m, m_half) * s(n, n_half) * s(k, k_half),   s(x, h) = x / (x + h)
//     memory floor  = (m k + k n) * operand_bytes + m n * output_bytes  over achievable HBM bandwidth
//     gemm_time     = max(compute time, memory floor)
//   Why this form: a GEMM of large m, n, k runs at a constant fraction e_max of the tensor-core
//   (or FMA) peak. Along each dimension a small extent leaves tiles partly empty and SMs idle
//   (m, n: fewer output tiles than SMs; k: the prologue and epilogue of each tile are not
//   amortised), and each such loss is a per-dimension fixed cost: with one dimension varying,
//   time = flops / (peak e_max) * (1 + h / x), a line in 1/x, i.e. the saturating factor
//   x / (x + h). The half-saturation extents h are in elements. Valid for the dense MLP shapes
//   of recommendation models (m = batch 64..65536, n, k = 16..8192); not for batched or
//   strided GEMMs.
//
// * Batched GEMM (b independent products of m x k by k x n in one kernel, e.g. the per-sample
//   X X^T of the dot interaction, m, n, k below a few hundred):
//     compute time  = b * 2 * pad(m) * pad(n) * k / (peak(dtype) * e_max * s(k, k_half))
//     memory floor  = b * ((m k + k n) * operand_bytes + m n * output_bytes) over achievable HBM
//     batched_gemm_time = max(compute time, memory floor)
//   The batch supplies the parallelism, so the m and n fill factors of one large GEMM do not
//   apply; instead each small matrix occupies whole tensor-core tiles: pad(x) rounds up to a
//   multiple of 16, the m and n extent of the mma.sync m16n8k16 / wgmma fragments (PTX ISA,
//   "Matrix shape"). The k depth keeps its fitted saturation.
//
// * Embedding-bag forward, sum pooling, rows in HBM (FBGEMM-style table-batched kernel):
//     time = lookups * access_bytes(row_bytes) / (hbm_bandwidth * gather_efficiency(row_bytes, pooling))
//     access_bytes = row_bytes rounded up to a multiple of the access granule (the 32-byte
//                    L2 sector: a row of 4 bytes still moves 32 bytes)
//     gather_efficiency = e_max * s(row_bytes, row_half) * s(pooling, pooling_half)
//   Why: random rows are read at a fraction of the streaming bandwidth; short rows expose the
//   per-lookup cost of loading an index and computing an address (row_half), small bags the
//   per-bag cost of reading offsets and writing the pooled output (pooling_half).
//   Latency bound (optional: a profile with `latency`, `bytes_in_flight_per_sm` and `sms` in
//   embedding_gather): random rows are independent misses, and the SMs keep only so many bytes
//   of them in flight; by Little's law the rows then arrive at most at
//     in-flight bytes per SM x SMs / memory latency,
//   so
//     latency_bound = lookups * access_bytes(row_bytes) * latency / (bytes_in_flight_per_sm * sms)
//     forward time  = max(the bandwidth-bound time above, latency_bound)
//   whichever binds. A GPU with twice the HBM bandwidth and the same latency and SMs speeds a
//   latency-bound gather by nothing, and one that is bandwidth bound by less than twice until
//   the latency bound takes over: generation-to-generation gains on random gathers follow
//   SMs x in-flight bytes / latency as much as the HBM peak. `sms` is the platform GPU's
//   sm_count when the platform gives one (on_platform_gpu), else the profile's.
//   Backward with the optimiser update (sort by row, segment-reduce, update) costs a measured
//   multiple of the forward time of the same lookups, per optimiser, measured with uniform ids
//   (every lookup a distinct row). With repeated rows the kernel reads each lookup's pooled
//   gradient but reads, updates and writes each distinct row once, so
//     backward = forward * multiple * (g + (1 - g) * distinct / lookups)
//     g = row_bytes / (3 row_bytes + 2 state_bytes)   (the share of the all-distinct backward
//         traffic that scales with lookups: one gradient read per lookup against the row read
//         and write and the state read and write per distinct row; state 4 B per row for
//         row-wise Adagrad, none for SGD)
//
// * Zero-copy (UVM) gather of rows from pinned host memory over PCIe:
//     time = lookups * access_bytes(row_bytes, uvm granule) / (pcie_bandwidth * uvm_efficiency(row_bytes))
//     uvm_efficiency = e_max * s(row_bytes, row_half)
//
// * Copies (cudaMemcpyAsync) H2D / D2H pinned and pageable, D2D:
//     time = latency + bytes / bandwidth
//
// * Kernel launch overhead: a constant per launch (host-side cudaLaunchKernel cost of an
//   empty kernel, back to back).
//
// * Kernel floor: the GPU time of a kernel that does no work (its launch on the GPU, one
//   block's start and its completion), measured as the time per kernel of a CUDA graph of
//   empty kernels run back to back. A kernel never takes less than
//     kernel_floor(launches) = launches * (launch overhead + min_kernel_time)
//   whatever its work: a GEMM or gather too small to fill the SMs costs this floor, not its
//   FLOPs or bytes at a fraction of peak (the GEMM's fill factors above bring its time down to a
//   plateau as m or n shrink; the floor bounds that plateau from below).
//
// Every time returned here is device time of the kernel or copy alone; a cost model adds
// launch_overhead() once per kernel launch where the launch is on the critical path.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/config.hpp"
#include "common/units.hpp"
#include "topologies/devices.hpp"

namespace dlrmsim::topo {

/// The element types a GEMM can run in (topologies/precision.hpp; tf32: fp32 storage,
/// tensor-core math), in the order a profile lists them.
inline constexpr std::array kGemmPrecisions{Precision::fp32, Precision::tf32, Precision::bf16, Precision::fp16,
                                            Precision::fp8};
/// The GEMM element type named `name` ("fp32", ...), or std::nullopt (fp64, int8 and unknown
/// names: no GEMM coefficients are kept for them).
std::optional<Precision> gemm_precision_from_name(std::string_view name);
/// Bytes per element of A and B: 4 (fp32, tf32), 2 (bf16, fp16), 1 (fp8).
Bytes operand_bytes(Precision dtype);
/// Bytes per element of C: as the operands, except fp8 GEMMs write bf16 (2 bytes), the usual
/// cuBLASLt FP8 configuration.
Bytes output_bytes(Precision dtype);

/// The HBM bytes of one GEMM C = A B (A m x k), each operand read once and C written once:
/// (m k + k n) operand bytes + m n output bytes (the memory floor's traffic, above); `batch`
/// such GEMMs for a batched one.
Bytes gemm_traffic(std::int64_t m, std::int64_t n, std::int64_t k, Precision dtype, std::int64_t batch = 1);

/// Optimisers of the embedding backward pass (FBGEMM's fused backward + update kernels).
enum class EmbeddingOptimizer { sgd, rowwise_adagrad };
inline constexpr std::array kEmbeddingOptimizers{EmbeddingOptimizer::sgd,
                                                 EmbeddingOptimizer::rowwise_adagrad};
inline constexpr auto kEmbeddingOptimizerNames = enum_names<EmbeddingOptimizer>(
    {{EmbeddingOptimizer::sgd, "sgd"}, {EmbeddingOptimizer::rowwise_adagrad, "rowwise_adagrad"}});
inline std::string_view to_string(EmbeddingOptimizer o) { return kEmbeddingOptimizerNames.name(o); }
inline std::optional<EmbeddingOptimizer> embedding_optimizer_from_name(std::string_view name) {
  return kEmbeddingOptimizerNames.parse(name);
}

/// Kinds of cudaMemcpyAsync.
enum class CopyKind { h2d_pinned, h2d_pageable, d2h_pinned, d2h_pageable, d2d };
inline constexpr std::array kCopyKinds{CopyKind::h2d_pinned, CopyKind::h2d_pageable,
                                       CopyKind::d2h_pinned, CopyKind::d2h_pageable, CopyKind::d2d};
inline constexpr auto kCopyKindNames = enum_names<CopyKind>({{CopyKind::h2d_pinned, "h2d_pinned"},
                                                             {CopyKind::h2d_pageable, "h2d_pageable"},
                                                             {CopyKind::d2h_pinned, "d2h_pinned"},
                                                             {CopyKind::d2h_pageable, "d2h_pageable"},
                                                             {CopyKind::d2d, "d2d"}});
inline std::string_view to_string(CopyKind kind) { return kCopyKindNames.name(kind); }
inline std::optional<CopyKind> copy_kind_from_name(std::string_view name) { return kCopyKindNames.parse(name); }

/// s(x, h) = x / (x + h): 0 at x = 0, 1/2 at x = h, tends to 1. h = 0 gives 1 for all x > 0.
double saturation(double x, double half);

/// How well a fitted model reproduces the measurements it was fitted to (relative errors of
/// predicted time against measured time). Absent for profiles written from datasheets.
struct FitError {
  double rms_relative = 0.0;
  double max_relative = 0.0;
  int measurements = 0;
};

/// The relative errors |predicted / measured - 1| of a fitted form over a group of
/// measurements (pointers to anything with a `time`); `predict(measurement)` gives Seconds.
template <class Group, class Predict>
FitError relative_fit_errors(const Group& group, Predict predict) {
  FitError e;
  double sum_squares = 0.0;
  for (const auto* m : group) {
    const double relative = std::fabs(predict(*m).value() / m->time.value() - 1.0);
    sum_squares += relative * relative;
    e.max_relative = std::max(e.max_relative, relative);
  }
  e.measurements = static_cast<int>(group.size());
  e.rms_relative = group.empty() ? 0.0 : std::sqrt(sum_squares / static_cast<double>(group.size()));
  return e;
}

/// Where a group of numbers comes from, and how well it fits when fitted.
struct Provenance {
  std::string source;
  std::optional<FitError> fit;
};

struct GemmCoefficients {
  FlopsPerSecond peak{0.0};     // dense peak for this dtype (datasheet)
  double max_efficiency = 0.0;  // e_max, fraction of peak reached by large GEMMs
  double m_half = 0.0;          // half-saturation extents, in elements
  double n_half = 0.0;
  double k_half = 0.0;
  // Time every measured call cost whatever its shape (launch, pipeline fill, the timing
  // harness), fitted alongside the efficiency. Part of predictions of the measurements only:
  // gemm_time leaves it out, and step models charge launch_overhead per kernel instead. 0 when
  // not fitted (optional key `call_overhead`).
  Seconds call_overhead{0.0};
  Provenance provenance;

  [[nodiscard]] double efficiency(double m, double n, double k) const;
};

struct MemoryCoefficients {
  BytesPerSecond hbm_bandwidth{0.0};  // datasheet peak
  double achievable_fraction = 0.0;   // streaming (device-to-device copy) fraction of the peak
  Provenance provenance;
};

struct GatherCoefficients {
  Bytes access_granule{0.0};  // smallest unit a random row read moves (32-byte L2 sector)
  double max_efficiency = 0.0;
  Bytes row_half{0.0};
  double pooling_half = 0.0;
  /// The latency bound (all three set, or none: no latency bound): load-to-use latency of an
  /// HBM miss, bytes of misses one SM keeps in flight, and the SMs.
  Seconds latency{0.0};
  Bytes bytes_in_flight_per_sm{0.0};
  int sms = 0;
  Provenance provenance;

  [[nodiscard]] double efficiency(Bytes row_bytes, double pooling) const;
  [[nodiscard]] bool latency_bound() const { return sms > 0 && latency.value() > 0.0 && bytes_in_flight_per_sm.value() > 0.0; }
  /// in-flight bytes per SM x SMs / latency: the rate random rows arrive at when the misses in
  /// flight bind (only with latency_bound()).
  [[nodiscard]] BytesPerSecond latency_bound_rate() const { return bytes_in_flight_per_sm * static_cast<double>(sms) / latency; }
};

struct EmbeddingBackwardCoefficients {
  // time(backward + optimiser update) / time(forward) for the same lookups, per optimiser.
  double sgd_multiple = 0.0;
  double rowwise_adagrad_multiple = 0.0;
  Provenance provenance;

  [[nodiscard]] double multiple(EmbeddingOptimizer optimizer) const;
};

struct UvmGatherCoefficients {
  BytesPerSecond pcie_bandwidth{0.0};  // one direction, link rate of the host interface
  Bytes access_granule{0.0};
  double max_efficiency = 0.0;
  Bytes row_half{0.0};
  Provenance provenance;

  [[nodiscard]] double efficiency(Bytes row_bytes) const;
};

struct CopyCoefficients {
  Seconds latency{0.0};
  BytesPerSecond bandwidth{0.0};
  Provenance provenance;

  [[nodiscard]] Seconds time(Bytes bytes) const { return latency + bytes / bandwidth; }
};

class DeviceProfile {
 public:
  // Identity.
  std::string name;                  // e.g. "H100-SXM5-80GB"
  std::string description;           // one line: what device and system this describes
  std::string provenance;            // overall: measured (machine, date, command) or datasheet-based
  Bytes memory_capacity{0.0};        // HBM capacity (datasheet)
  std::string memory_capacity_source;

  std::vector<std::pair<Precision, GemmCoefficients>> gemm;  // only the dtypes the device supports
  MemoryCoefficients memory;
  GatherCoefficients gather;
  EmbeddingBackwardCoefficients embedding_backward;
  UvmGatherCoefficients uvm_gather;
  std::array<CopyCoefficients, kCopyKinds.size()> copies{};  // indexed by CopyKind
  Seconds launch_overhead{0.0};
  Seconds min_kernel_time{0.0};  // launch.min_kernel_time: GPU time of an empty kernel
  Provenance launch_provenance;

  // --- GEMM ---
  [[nodiscard]] bool supports(Precision dtype) const;
  /// Throws std::invalid_argument naming the device if the dtype is not supported.
  [[nodiscard]] const GemmCoefficients& gemm_coefficients(Precision dtype) const;
  [[nodiscard]] FlopsPerSecond gemm_peak(Precision dtype) const;
  [[nodiscard]] double gemm_efficiency(std::int64_t m, std::int64_t n, std::int64_t k, Precision dtype) const;
  /// max(2mnk / (peak x efficiency), bytes moved / achievable HBM bandwidth); no launch overhead.
  [[nodiscard]] Seconds gemm_time(std::int64_t m, std::int64_t n, std::int64_t k, Precision dtype) const;
  /// `batch` independent m x k by k x n products in one kernel (see the header); no launch overhead.
  [[nodiscard]] Seconds batched_gemm_time(std::int64_t batch, std::int64_t m, std::int64_t n, std::int64_t k,
                                          Precision dtype) const;

  // --- memory ---
  [[nodiscard]] BytesPerSecond hbm_bandwidth() const { return memory.hbm_bandwidth; }
  [[nodiscard]] BytesPerSecond achievable_hbm_bandwidth() const {
    return memory.hbm_bandwidth * memory.achievable_fraction;
  }

  // --- embeddings in HBM ---
  /// Bytes one random row read moves: row_bytes rounded up to the access granule.
  [[nodiscard]] Bytes gather_access_bytes(Bytes row_bytes) const;
  /// Fraction of the HBM peak a forward sum-pooled gather reaches.
  [[nodiscard]] double gather_efficiency(Bytes row_bytes, double pooling) const;
  /// Forward embedding-bag time for `lookups` rows of `row_bytes`, `pooling` rows per bag.
  [[nodiscard]] Seconds embedding_forward_time(double lookups, Bytes row_bytes, double pooling) const;
  /// Backward with optimiser update: a measured multiple of the forward time, scaled for the
  /// `distinct_fraction` (distinct rows / lookups, in (0, 1]) as the header describes.
  [[nodiscard]] Seconds embedding_backward_time(double lookups, Bytes row_bytes, double pooling,
                                                EmbeddingOptimizer optimizer, double distinct_fraction = 1.0) const;

  // --- zero-copy gather over PCIe ---
  [[nodiscard]] double uvm_gather_efficiency(Bytes row_bytes) const;
  [[nodiscard]] Seconds uvm_gather_time(double lookups, Bytes row_bytes) const;

  // --- copies and launches ---
  [[nodiscard]] const CopyCoefficients& copy(CopyKind kind) const {
    return copies[static_cast<std::size_t>(kind)];
  }
  [[nodiscard]] Seconds copy_time(CopyKind kind, Bytes bytes) const { return copy(kind).time(bytes); }
  [[nodiscard]] Seconds kernel_launch_overhead() const { return launch_overhead; }
  /// The least time `launches` kernels take on the GPU (see the header's kernel floor).
  [[nodiscard]] Seconds kernel_floor(int launches) const {
    return (launch_overhead + min_kernel_time) * static_cast<double>(std::max(launches, 0));
  }
};

/// Reads a profile from YAML. Every field is required and every quantity must carry its unit;
/// a missing field, a number without a unit, a value out of range or an unknown key throws
/// ConfigError naming the file, line, column and key path.
DeviceProfile load_device_profile(const std::string& path);
DeviceProfile parse_device_profile(const ConfigNode& root);

/// Writes a profile as YAML that load_device_profile reads back (units on every quantity).
std::string device_profile_to_yaml(const DeviceProfile& profile);

/// The profile file for a GPU model name. Names are hyphen-separated, from the family to the
/// variant: "H100-SXM5-80GB". Files are named by the lower-cased name or a prefix of it ending
/// at a hyphen, and the most specific file wins: for "H100-SXM5-80GB" in DIR it tries
/// DIR/h100-sxm5-80gb.yaml, DIR/h100-sxm5.yaml, DIR/h100.yaml. Throws ConfigError listing the
/// paths tried and the profiles present when none exists.
std::string find_device_profile(std::string_view gpu_model, const std::string& calibration_dir);
/// The model name for a CUDA device name (cudaDeviceProp::name): drops a leading "NVIDIA " or
/// "Tesla " and joins words with hyphens, so "NVIDIA H100 80GB HBM3" gives "H100-80GB-HBM3"
/// (found as h100.yaml) and "Tesla V100-SXM2-32GB" gives "V100-SXM2-32GB".
std::string gpu_model_from_device_name(std::string_view device_name);
/// find_device_profile + load_device_profile.
DeviceProfile load_device_profile_for(std::string_view gpu_model, const std::string& calibration_dir);

/// The profile as it applies to one platform GPU: the peak rates (HBM bandwidth, GEMM peak
/// per dtype) and the SM count of the gather's latency bound are the platform's, the fractions of peak (efficiencies, achievable fractions)
/// and fixed costs stay the profile's. The platform file is thus the one source of peak
/// rates, and a what-if on it ("HBM at 4.8 TB/s") reaches every cost model.
DeviceProfile on_platform_gpu(DeviceProfile profile, const topo::GpuSpec& gpu);

class CpuProfile;  // topologies/cpu_profile.hpp

/// Profile files parsed once for many runs (the points of a sweep, which otherwise parse the
/// same file at every point): load(path) returns what load_device_profile(path) returns, and
/// load_cpu(path) what load_cpu_profile(path) returns (the CPU profiles a platform's sockets
/// name), and each parses again only when the file, or one of its from_file chain, no longer
/// holds the text it was parsed from. Entries are keyed by path and checked against that
/// content at every load (re-reading a file costs microseconds; parsing it a millisecond).
/// Failed loads are not kept. Not thread-safe: one per thread (app/sweep.cpp gives each
/// worker its own).
class DeviceProfileFiles {
 public:
  std::shared_ptr<const DeviceProfile> load(const std::string& path);
  std::shared_ptr<const CpuProfile> load_cpu(const std::string& path);
  /// Loads that parsed a file (the rest were served from earlier parses).
  [[nodiscard]] std::size_t parses() const { return parses_; }

 private:
  template <class Profile>
  struct Entry {
    std::vector<std::pair<std::string, std::string>> files;  // (path, text) of each file read
    std::shared_ptr<const Profile> profile;
  };
  std::map<std::string, Entry<DeviceProfile>> entries_;
  std::map<std::string, Entry<CpuProfile>> cpu_entries_;
  std::size_t parses_ = 0;
};

/// The profiles of a calibration directory, each file loaded once per run and each platform
/// GPU's profile (on_platform_gpu) made once: the one profile cache, shared by the placement
/// planner (models/placement_problem.hpp) and the simulation (models/step_builder.hpp).
/// `files`, if given, serves the files' parsed profiles across runs (it must outlive the set).
/// Not thread-safe: one set per run (sweeps give each scenario its own).
class DeviceProfileSet {
 public:
  explicit DeviceProfileSet(std::string calibration_dir, DeviceProfileFiles* files = nullptr)
      : dir_(std::move(calibration_dir)), files_(files) {}
  /// The profile of a platform GPU (its model's file on the GPU's peak rates); null when the
  /// directory has no file for the GPU's model. A malformed file throws ConfigError.
  std::shared_ptr<const DeviceProfile> find(const topo::GpuSpec& gpu) const;
  /// As find(), but a GPU model without a profile file is a ConfigError listing the paths tried.
  const DeviceProfile& get(const topo::GpuSpec& gpu) const;
  /// Adds a profile directly, standing for the file of `gpu_model` (tests).
  void add(const std::string& gpu_model, DeviceProfile profile);
  /// The profiles used so far (one per profile name, in name order).
  [[nodiscard]] std::vector<const DeviceProfile*> loaded() const;

 private:
  std::string dir_;
  DeviceProfileFiles* files_ = nullptr;
  // Profiles added directly, by GPU model.
  std::map<std::string, std::shared_ptr<const DeviceProfile>> added_;
  // A platform GPU's profile by model and peak rates (HBM bandwidth, then each precision's
  // peak, -1 where the GPU gives none): two GPUs of one model with different datasheet
  // figures (a what-if on one node template) get different profiles.
  using PlatformKey = std::pair<std::string, std::array<double, topo::kPrecisionCount + 2>>;
  mutable std::map<PlatformKey, std::shared_ptr<const DeviceProfile>> cache_;
  // GPU models without a profile file -> the ConfigError's message (what was looked for).
  mutable std::map<std::string, std::string> missing_;
};

}  // namespace dlrmsim::topo
