// From raw calibration measurements to a device profile.
//
// The fitter starts from a base profile of the same device (configs/calibration/<device>.yaml,
// written from datasheets): the datasheet numbers a run cannot measure (peak FLOP/s per dtype,
// HBM peak bandwidth, PCIe link rate, memory capacity) are kept from it, and every coefficient
// the kernel set measures is refitted (models in topologies/device_profile.hpp):
//   - copies: latency and bandwidth per copy kind, relative-weighted line fit;
//   - memory.achievable_fraction: 2 x (device-to-device copy bandwidth) / HBM peak (a copy reads
//     and writes every byte);
//   - GEMM per dtype: e_max, m_half, n_half, k_half and the per-call constant call_overhead
//     by Levenberg-Marquardt on log time, with the HBM floor of the model inside the fit;
//   - embedding gather: e_max, row_half, pooling_half from the uniform-id forward runs (Zipf
//     runs hit in L2 and are reported against the uniform model, not fitted);
//   - backward multiples: geometric mean of measured backward time over the fitted forward
//     model's time, per optimiser (the least-squares solution in log time);
//   - zero-copy gather: e_max, row_half;
//   - launch overhead: median of the launch measurements.
// A model with no measurements keeps the base profile's values and source. Measurements faster
// than the base profile's peak (efficiency above 1) are rejected: the base is for another device.
//
// Fit error: relative error (predicted - measured) / measured of the final profile's own
// prediction functions over the measurements each model was fitted to; with a hold-out, the
// same over the measurements held back. Hold-out `odd`: within each model, the measurements
// with even index (0, 2, ...) are fitted and the odd ones predicted. The split is by position,
// so a sweep must not order its records with a period of two in some feature (all even records
// with k = 128, all odd ones with k = 1024 would leave k unfitted); dlrmsim-calibrate's sweeps
// (sorted shape sets, nested loops over odd-sized lists) do not.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "topologies/device_profile.hpp"
#include "validation/raw_measurements.hpp"

namespace dlrmsim::validation {

enum class Holdout { none, odd };

struct FitOptions {
  Holdout holdout = Holdout::none;
  std::string raw_name;  // how the provenance names the raw file (its path)
};

struct ModelFitReport {
  std::string model;                   // "gemm.bf16", "embedding_gather", "copies.d2d", ...
  bool fitted = false;                 // false: no measurements, base values kept
  topo::FitError fit;                // over the fitted measurements
  std::optional<topo::FitError> held_back;
};

struct CalibrationResult {
  topo::DeviceProfile profile;
  std::vector<ModelFitReport> models;
  std::vector<std::string> notes;

  /// Largest held-back relative error over all fitted models (0 when nothing was held back).
  [[nodiscard]] double max_held_back_error() const;
};

/// The profile's prediction for the configuration of one measurement.
Seconds predict(const topo::DeviceProfile& profile, const Measurement& m);

/// Model name a measurement belongs to ("gemm.fp32", "embedding_backward.sgd", ...).
std::string model_of(const Measurement& m);

/// Fits; throws std::invalid_argument when a model's measurements cannot determine it.
CalibrationResult fit_device_profile(const RawMeasurements& raw, const topo::DeviceProfile& base,
                                     const FitOptions& options);

/// A readable table of the fit errors (and held-back errors) per model, with the notes.
std::string format_fit_report(const CalibrationResult& result);

}  // namespace dlrmsim::validation
