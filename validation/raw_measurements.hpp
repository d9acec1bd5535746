// Raw calibration measurements: what `dlrmsim-calibrate` writes and the fitter reads.
//
// File format (YAML):
//   machine:
//     gpu: "NVIDIA H200"            # cudaDeviceProp::name
//     driver: "570.86.15"           # from cudaDriverGetVersion and NVML-free /proc read
//     runtime: "13.0"               # CUDA runtime the runner was built with
//     sm_count: 132
//     memory: "139.8 GiB"           # cudaDeviceProp::totalGlobalMem
//     date: "2026-11-30T03:00:00Z"  # UTC, when the run started
//     command: "dlrmsim-calibrate -o raw.yaml"
//   measurements:                   # one record per measured configuration
//     - {kind: gemm, dtype: bf16, m: 2048, n: 1024, k: 512, time: "12.5 us", repeats: 30}
//     - {kind: gather_forward, row_type: fp32, row_bytes: "512 B", pooling: 32, bags: 65536,
//        table_rows: 1000000, distribution: uniform, time: "80 us", repeats: 30}
//     - {kind: gather_backward, optimizer: rowwise_adagrad, ... as gather_forward ...}
//     - {kind: uvm_gather, row_type: fp32, row_bytes: "256 B", pooling: 1, bags: 65536, ...}
//     - {kind: copy, copy: h2d_pinned, bytes: "64 MiB", time: "2.7 ms", repeats: 30}
//     - {kind: launch, time: "2.4 us", repeats: 30}
//     - {kind: kernel_floor, time: "1.6 us", repeats: 30}
// `repeats` may be omitted (measurements transcribed from a public table that does not say).
// `time` is the median over `repeats` timed runs of one kernel or copy (CUDA events), after
// warm-up, and after the result was checked against a CPU reference. For `launch` it is the
// host time per launch of an empty kernel, launched back to back; for `kernel_floor` the GPU time
// per kernel of a CUDA graph of empty kernels (CUDA events around the graph's launch).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/config.hpp"
#include "common/units.hpp"
#include "topologies/device_profile.hpp"

namespace dlrmsim::validation {

enum class MeasurementKind { gemm, gather_forward, gather_backward, uvm_gather, copy, launch, kernel_floor };
inline constexpr auto kMeasurementKindNames = enum_names<MeasurementKind>({{MeasurementKind::gemm, "gemm"},
                                                                           {MeasurementKind::gather_forward, "gather_forward"},
                                                                           {MeasurementKind::gather_backward, "gather_backward"},
                                                                           {MeasurementKind::uvm_gather, "uvm_gather"},
                                                                           {MeasurementKind::copy, "copy"},
                                                                           {MeasurementKind::launch, "launch"},
                                                                           {MeasurementKind::kernel_floor, "kernel_floor"}});
inline std::string_view to_string(MeasurementKind kind) { return kMeasurementKindNames.name(kind); }

struct Measurement {
  MeasurementKind kind = MeasurementKind::launch;

  // gemm
  topo::Precision dtype = topo::Precision::fp32;
  std::int64_t m = 0, n = 0, k = 0;

  // gather_forward, gather_backward, uvm_gather
  std::string row_type;       // element type of the rows: fp32 or fp16
  Bytes row_bytes{0.0};       // bytes of one row (dimension x element size)
  double pooling = 0.0;       // lookups per bag
  std::int64_t bags = 0;      // batch x tables
  std::int64_t table_rows = 0;
  std::string distribution;   // uniform or zipf (ids)
  topo::EmbeddingOptimizer optimizer = topo::EmbeddingOptimizer::sgd;  // gather_backward

  // copy
  topo::CopyKind copy = topo::CopyKind::h2d_pinned;
  Bytes bytes{0.0};

  Seconds time{0.0};
  int repeats = 0;  // 0: not stated by the source

  [[nodiscard]] double lookups() const { return static_cast<double>(bags) * pooling; }
};

struct MachineInfo {
  std::string gpu;
  std::string driver;
  std::string runtime;
  int sm_count = 0;
  Bytes memory{0.0};
  std::string date;
  std::string command;
};

struct RawMeasurements {
  MachineInfo machine;
  std::vector<Measurement> measurements;
};

/// Reads a raw measurement file; malformed records throw ConfigError naming file, line and key.
RawMeasurements load_raw_measurements(const std::string& path);
RawMeasurements parse_raw_measurements(const ConfigNode& root);
/// The YAML text load_raw_measurements reads back (full precision, units on every quantity).
std::string raw_measurements_to_yaml(const RawMeasurements& raw);

}  // namespace dlrmsim::validation
