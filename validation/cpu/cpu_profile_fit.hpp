// From raw CPU measurements (validation/cpu/cpu_raw_measurements.hpp) to a CPU profile
// (topologies/cpu_profile.hpp, whose header states the formulas). Every coefficient comes from the
// measurements; nothing is kept from elsewhere:
//   - GEMM, per core and all cores separately: rate, m_half, n_half, k_half and call_overhead
//     by Levenberg-Marquardt on log time (least_squares.hpp), the ideal time being 2mnk over a
//     reference rate of 4x the fastest measured GEMM (the fit's efficiency is at most 1, so the
//     plateau may lie up to 4x above the best measurement; rate = efficiency x reference). A fit
//     whose plateau reaches that bound is refused: the measurements do not determine it;
//   - gather, update, hash update per core: the line t(R) = row_time + R / bandwidth through the
//     time per row at each row size, relative-weighted (fit_line_relative);
//   - the same, all cores: parallel_scaling and dram_bandwidth of min(c s / t(R), B / traffic(R)).
//     The runs are ordered by the bytes/s they would move if core-bound; each split into a
//     core-bound head and a DRAM-bound tail is tried (s, B: geometric means over each part,
//     the least-squares solution in log rate) and the split with the smallest squared log error
//     is kept, a DRAM-bound tail only when each of its runs is at least 10 % below the core-bound
//     prediction (otherwise noise would always "find" a DRAM bound). When no run reached the
//     DRAM bound (the usual case on a machine with few cores), dram_bandwidth is the streaming
//     bandwidth of all cores (2 x memcpy's DRAM rate) and the source says so;
//   - fp16 conversion and memcpy, per working set: the median bytes/s of the runs, per core and
//     all cores;
//   - call overhead: the median time per call of the one-thread runs;
//   - DRAM latency: the median time per load of the pointer-chase runs (optional: a raw file
//     without them gives a profile without dram_latency, and a note says so);
//   - the fp32 peak per core (gemm_fp32.peak_per_core): the median FLOP/s of the one-thread
//     fp32_peak runs (optional; fit-profile --peak-per-core replaces it).
// Fit error per model: relative error (predicted - measured) / measured of the final profile's
// formulas over the measurements of that model. A model without measurements, or with too few to
// determine its coefficients, is an error (std::invalid_argument naming the model).
#pragma once

#include <string>
#include <vector>

#include "topologies/cpu_profile.hpp"
#include "validation/calibration_fit.hpp"
#include "validation/cpu/cpu_raw_measurements.hpp"

namespace dlrmsim::validation {

struct CpuFitOptions {
  std::string raw_name;  // how the provenance names the raw file (its path)
};

struct CpuCalibrationResult {
  topo::CpuProfile profile;
  std::vector<ModelFitReport> models;  // held_back is never set
  std::vector<std::string> notes;
};

/// The profile's prediction for the configuration of one measurement.
Seconds predict(const topo::CpuProfile& profile, const CpuMeasurement& m);

/// Model name a measurement belongs to ("gemm.per_core", "gather.all_cores", "memcpy.dram", ...).
std::string model_of(const CpuMeasurement& m);

/// The profile name for a CPU model string: words joined by hyphens, then the logical CPU
/// count: "AMD EPYC" with 2 logical CPUs gives "AMD-EPYC-2CPU" (its file: cpu-amd-epyc-2cpu.yaml).
std::string cpu_profile_name(const CpuMachineInfo& machine);

CpuCalibrationResult fit_cpu_profile(const CpuRawMeasurements& raw, const CpuFitOptions& options);

/// A readable table of the fit errors per model, with the notes.
std::string format_cpu_fit_report(const CpuCalibrationResult& result);

}  // namespace dlrmsim::validation
