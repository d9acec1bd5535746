#include "validation/calibration_fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <stdexcept>

#include "validation/least_squares.hpp"

namespace dlrmsim::validation {

using topo::CopyKind;
using topo::DeviceProfile;
using topo::FitError;
using topo::Precision;

namespace {

using Group = std::vector<const Measurement*>;

FitError errors_of(const DeviceProfile& profile, const Group& group) {
  return topo::relative_fit_errors(group, [&](const Measurement& m) { return predict(profile, m); });
}

FitError merge(const FitError& a, const FitError& b) {
  FitError e;
  e.measurements = a.measurements + b.measurements;
  e.max_relative = std::max(a.max_relative, b.max_relative);
  if (e.measurements > 0) {
    e.rms_relative = std::sqrt((a.rms_relative * a.rms_relative * a.measurements +
                                b.rms_relative * b.rms_relative * b.measurements) /
                               e.measurements);
  }
  return e;
}

void require(const Group& group, std::size_t needed, const std::string& model, const std::string& what) {
  if (group.size() < needed) {
    throw std::invalid_argument(model + ": " + std::to_string(group.size()) + " measurement(s) cannot determine " +
                                what + "; at least " + std::to_string(needed) + " are needed");
  }
}

double efficiency_or_throw(double e, const std::string& model, const std::string& peak_name) {
  if (!(e > 0.0) || e > 1.0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", e);
    throw std::invalid_argument(model + ": fitted efficiency " + buf + " is outside (0, 1]: the measurements run faster than the " +
                                peak_name + " of the base profile allows; check that the base profile is for this GPU");
  }
  return e;
}

// Measurements faster than the base profile's peak allows mean the base is for another device.
void check_not_faster_than_peak(const std::vector<SaturatingSample>& samples, const std::string& model,
                                const std::string& peak_name) {
  double best = 0.0;
  for (const SaturatingSample& s : samples) best = std::max(best, s.ideal_time / s.measured_time);
  if (best > 1.0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", best);
    throw std::invalid_argument(model + ": measured efficiency " + buf + " is outside (0, 1]: the measurements run faster than the " +
                                peak_name + " of the base profile allows; check that the base profile is for this GPU");
  }
}

// A half-saturation extent is determined only by measurements at two or more sizes along
// its feature: with one size, efficiency and extent trade off exactly.
void require_varied(const std::vector<SaturatingSample>& samples, std::size_t feature, const std::string& model,
                    const std::string& feature_name, const std::string& coefficient) {
  const double first = samples.front().features[feature];
  for (const SaturatingSample& s : samples) {
    if (s.features[feature] != first) return;
  }
  char value[32];
  std::snprintf(value, sizeof value, "%.6g", first);
  throw std::invalid_argument(model + ": every measurement has " + feature_name + " = " + value + "; " + coefficient +
                              " cannot be determined without measurements at two or more sizes");
}

// The fitter bounds each extent to [1e-6, 1e3] x the measured sizes (least_squares.cpp) and
// reports one stuck at its lower bound as 0: an extent at either bound was not determined by
// the measurements (they show no saturation along that feature, or only saturation).
void require_determined(const SaturatingFit& fit, const std::vector<SaturatingSample>& samples, const std::string& model,
                        const std::vector<std::string>& coefficients, const std::vector<std::string>& features) {
  if (!std::isfinite(fit.max_efficiency) || !std::isfinite(fit.offset)) {
    throw std::invalid_argument(model + ": the fit did not converge to finite coefficients; check the measurements");
  }
  for (std::size_t j = 0; j < fit.halves.size(); ++j) {
    double largest = 0.0;
    for (const SaturatingSample& s : samples) largest = std::max(largest, s.features[j]);
    const double h = fit.halves[j];
    if (!std::isfinite(h) || h <= 0.0 || h >= 1e3 * largest * (1.0 - 1e-6)) {
      throw std::invalid_argument(
          model + ": the measurements do not determine " + coefficients[j] + " (the fit ran to its bound: " +
          (h <= 0.0 ? "no" : "no end of") + " saturation along " + features[j] +
          "); measure sizes on both sides of the knee of the efficiency curve");
    }
  }
}

std::string with_base(const std::string& fitted, const std::string& base_source) {
  return fitted + "; base profile (its datasheet values kept, its fitted values replaced): " + base_source;
}

}  // namespace

std::string model_of(const Measurement& m) {
  switch (m.kind) {
    case MeasurementKind::gemm: return "gemm." + std::string(topo::to_string(m.dtype));
    case MeasurementKind::gather_forward:
      return m.distribution == "uniform" ? "embedding_gather" : "embedding_gather." + m.distribution;
    case MeasurementKind::gather_backward: return "embedding_backward." + std::string(topo::to_string(m.optimizer));
    case MeasurementKind::uvm_gather: return "uvm_gather";
    case MeasurementKind::copy: return "copies." + std::string(topo::to_string(m.copy));
    case MeasurementKind::launch: return "launch";
    case MeasurementKind::kernel_floor: return "kernel_floor";
  }
  return "?";
}

Seconds predict(const DeviceProfile& profile, const Measurement& m) {
  switch (m.kind) {
    case MeasurementKind::gemm:
      return profile.gemm_time(m.m, m.n, m.k, m.dtype) + profile.gemm_coefficients(m.dtype).call_overhead;
    case MeasurementKind::gather_forward: return profile.embedding_forward_time(m.lookups(), m.row_bytes, m.pooling);
    case MeasurementKind::gather_backward:
      return profile.embedding_backward_time(m.lookups(), m.row_bytes, m.pooling, m.optimizer);
    case MeasurementKind::uvm_gather: return profile.uvm_gather_time(m.lookups(), m.row_bytes);
    case MeasurementKind::copy: return profile.copy_time(m.copy, m.bytes);
    case MeasurementKind::launch: return profile.kernel_launch_overhead();
    case MeasurementKind::kernel_floor: return profile.min_kernel_time;
  }
  return Seconds(0.0);
}

double CalibrationResult::max_held_back_error() const {
  double worst = 0.0;
  for (const ModelFitReport& r : models) {
    if (r.fitted && r.held_back) worst = std::max(worst, r.held_back->max_relative);
  }
  return worst;
}

CalibrationResult fit_device_profile(const RawMeasurements& raw, const DeviceProfile& base, const FitOptions& options) {
  CalibrationResult result;
  DeviceProfile& p = result.profile;
  p = base;

  // Split every model's measurements into the fitted and the held-back set.
  std::map<std::string, Group> fit_set, held_set;
  std::map<std::string, int> seen;
  for (const Measurement& m : raw.measurements) {
    const std::string name = model_of(m);
    const int index = seen[name]++;
    (options.holdout == Holdout::odd && index % 2 == 1 ? held_set : fit_set)[name].push_back(&m);
  }
  const auto group = [&](const std::string& name) -> const Group& {
    static const Group empty;
    const auto it = fit_set.find(name);
    return it == fit_set.end() ? empty : it->second;
  };

  const std::string measured_on = "fitted by dlrmsim fit-profile to measurements in " +
                                  (options.raw_name.empty() ? std::string("a raw file") : options.raw_name) + " (" +
                                  raw.machine.gpu + ", driver " + raw.machine.driver + ", CUDA runtime " +
                                  raw.machine.runtime + ", " + raw.machine.date + "; command: " + raw.machine.command + ")";
  p.provenance = "calibrated: " + measured_on + "; base profile: " + base.name + " (" + base.provenance + ")";
  std::vector<std::string> fitted_models;

  // 1. Copies: latency + bytes / bandwidth.
  for (CopyKind kind : topo::kCopyKinds) {
    const std::string name = "copies." + std::string(topo::to_string(kind));
    const Group& g = group(name);
    if (g.empty()) continue;
    std::vector<double> x, t;
    for (const Measurement* m : g) {
      x.push_back(m->bytes.value());
      t.push_back(m->time.value());
    }
    require(g, 2, name, "a latency and a bandwidth");
    LineFit line;
    try {
      line = fit_line_relative(x, t);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(name + ": " + e.what());
    }
    if (!std::isfinite(line.intercept) || !std::isfinite(line.slope) || !(line.slope > 0.0)) {
      throw std::invalid_argument(name + ": the latency and bandwidth fit is not finite; check the measurements");
    }
    auto& c = p.copies[static_cast<std::size_t>(kind)];
    c.latency = Seconds(line.intercept);
    c.bandwidth = BytesPerSecond(1.0 / line.slope);
    c.provenance.source = measured_on;
    fitted_models.push_back(name);
  }

  // 2. Achievable HBM bandwidth from the device-to-device copy (it reads and writes each byte).
  if (!group("copies.d2d").empty()) {
    double fraction = 2.0 * p.copy(CopyKind::d2d).bandwidth.value() / p.memory.hbm_bandwidth.value();
    if (fraction > 1.0) {
      result.notes.push_back("device-to-device copies moved " + format_rate(p.copy(CopyKind::d2d).bandwidth * 2.0) +
                             ", more than the base profile's HBM peak " + format_rate(p.memory.hbm_bandwidth) +
                             "; achievable_fraction capped at 1 (check the base profile's HBM figure)");
      fraction = 1.0;
    }
    p.memory.achievable_fraction = fraction;
    p.memory.provenance.source = with_base("achievable_fraction = 2 x D2D copy bandwidth / HBM peak, " + measured_on,
                                           base.memory.provenance.source);
    p.memory.provenance.fit.reset();
  }

  // 3. GEMM per dtype, with the HBM floor inside the fit.
  for (auto& [dtype, c] : p.gemm) {
    const std::string name = "gemm." + std::string(topo::to_string(dtype));
    const Group& g = group(name);
    if (g.empty()) continue;
    require(g, 5, name, "e_max, m_half, n_half and k_half");
    std::vector<SaturatingSample> samples;
    for (const Measurement* m : g) {
      const double dm = static_cast<double>(m->m), dn = static_cast<double>(m->n), dk = static_cast<double>(m->k);
      const Bytes moved = (dm * dk + dk * dn) * topo::operand_bytes(dtype) + dm * dn * topo::output_bytes(dtype);
      samples.push_back({{dm, dn, dk},
                         (Flops(2.0 * dm * dn * dk) / c.peak).value(),
                         (moved / p.achievable_hbm_bandwidth()).value(),
                         m->time.value()});
    }
    // A GEMM call costs a constant time whatever its shape (launch, pipeline fill and drain, and
    // whatever the timing harness adds): fitted alongside so that it does not bend the
    // efficiency curve, and kept as call_overhead, which gemm_time leaves out (the step model
    // charges launch.overhead once per kernel instead).
    check_not_faster_than_peak(samples, name, "dense peak");
    require_varied(samples, 0, name, "m", "m_half");
    require_varied(samples, 1, name, "n", "n_half");
    require_varied(samples, 2, name, "k", "k_half");
    const SaturatingFit fit = fit_saturating_product(samples, 3, /*fit_offset=*/true);
    require_determined(fit, samples, name, {"m_half", "n_half", "k_half"}, {"m", "n", "k"});
    c.max_efficiency = efficiency_or_throw(fit.max_efficiency, name, "dense peak");
    c.m_half = fit.halves[0];
    c.n_half = fit.halves[1];
    c.k_half = fit.halves[2];
    c.call_overhead = Seconds(fit.offset);
    c.provenance.source = with_base("efficiency and call_overhead " + measured_on, c.provenance.source);
    fitted_models.push_back(name);
  }
  for (const auto& [name, g] : fit_set) {
    if (name.rfind("gemm.", 0) == 0 && !p.supports(g.front()->dtype)) {
      result.notes.push_back(name + ": " + std::to_string(g.size()) +
                             " measurement(s) ignored; the base profile has no peak for this dtype");
    }
  }

  // 4. Embedding gather (uniform ids).
  if (const Group& g = group("embedding_gather"); !g.empty()) {
    require(g, 4, "embedding_gather", "e_max, row_half and pooling_half");
    std::vector<SaturatingSample> samples;
    for (const Measurement* m : g) {
      samples.push_back({{m->row_bytes.value(), m->pooling},
                         (m->lookups() * p.gather_access_bytes(m->row_bytes) / p.hbm_bandwidth()).value(),
                         0.0,
                         m->time.value()});
    }
    check_not_faster_than_peak(samples, "embedding_gather", "HBM peak bandwidth");
    require_varied(samples, 0, "embedding_gather", "row_bytes", "row_half");
    require_varied(samples, 1, "embedding_gather", "pooling", "pooling_half");
    const SaturatingFit fit = fit_saturating_product(samples, 2);
    require_determined(fit, samples, "embedding_gather", {"row_half", "pooling_half"}, {"row_bytes", "pooling"});
    p.gather.max_efficiency = efficiency_or_throw(fit.max_efficiency, "embedding_gather", "HBM peak bandwidth");
    p.gather.row_half = Bytes(fit.halves[0]);
    p.gather.pooling_half = fit.halves[1];
    p.gather.provenance.source = with_base(measured_on, p.gather.provenance.source);
    fitted_models.push_back("embedding_gather");
  }
  for (const auto& [name, g] : fit_set) {
    if (name.rfind("embedding_gather.", 0) == 0) {
      result.notes.push_back(name + ": " + std::to_string(g.size()) +
                             " measurement(s) reported against the uniform-id model, not fitted (skewed ids hit in "
                             "L2; the profile models the uniform case)");
    }
  }

  // 5. Backward multiples over the fitted forward model.
  for (topo::EmbeddingOptimizer opt : topo::kEmbeddingOptimizers) {
    const std::string name = "embedding_backward." + std::string(topo::to_string(opt));
    const Group& g = group(name);
    if (g.empty()) continue;
    double sum_log = 0.0;
    for (const Measurement* m : g) {
      sum_log += std::log(m->time.value() / p.embedding_forward_time(m->lookups(), m->row_bytes, m->pooling).value());
    }
    const double multiple = std::exp(sum_log / static_cast<double>(g.size()));
    if (!std::isfinite(multiple) || !(multiple > 0.0)) {
      throw std::invalid_argument(name + ": the backward multiple is not a finite positive number; check the measurements");
    }
    (opt == topo::EmbeddingOptimizer::sgd ? p.embedding_backward.sgd_multiple
                                            : p.embedding_backward.rowwise_adagrad_multiple) = multiple;
    p.embedding_backward.provenance.source = measured_on;
    fitted_models.push_back(name);
  }

  // 6. Zero-copy gather over PCIe.
  if (const Group& g = group("uvm_gather"); !g.empty()) {
    require(g, 3, "uvm_gather", "e_max and row_half");
    std::vector<SaturatingSample> samples;
    for (const Measurement* m : g) {
      const double granule = p.uvm_gather.access_granule.value();
      const double access = granule * std::ceil(m->row_bytes.value() / granule);
      samples.push_back({{m->row_bytes.value()},
                         m->lookups() * access / p.uvm_gather.pcie_bandwidth.value(),
                         0.0,
                         m->time.value()});
    }
    check_not_faster_than_peak(samples, "uvm_gather", "PCIe link rate");
    require_varied(samples, 0, "uvm_gather", "row_bytes", "row_half");
    const SaturatingFit fit = fit_saturating_product(samples, 1);
    require_determined(fit, samples, "uvm_gather", {"row_half"}, {"row_bytes"});
    p.uvm_gather.max_efficiency = efficiency_or_throw(fit.max_efficiency, "uvm_gather", "PCIe link rate");
    p.uvm_gather.row_half = Bytes(fit.halves[0]);
    p.uvm_gather.provenance.source = with_base(measured_on, p.uvm_gather.provenance.source);
    fitted_models.push_back("uvm_gather");
  }

  // 7. Launch overhead and the kernel floor: the medians.
  const auto median_time = [](const Group& g) {
    std::vector<double> t;
    for (const Measurement* m : g) t.push_back(m->time.value());
    std::sort(t.begin(), t.end());
    const std::size_t n = t.size();
    return Seconds(n % 2 == 1 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]));
  };
  if (const Group& g = group("launch"); !g.empty()) {
    p.launch_overhead = median_time(g);
    p.launch_provenance.source = measured_on;
    fitted_models.push_back("launch");
  }
  if (const Group& g = group("kernel_floor"); !g.empty()) {
    p.min_kernel_time = median_time(g);
    p.launch_provenance.source = measured_on;
    fitted_models.push_back("kernel_floor");
  }

  // Errors of the final profile, per model, over fitted and held-back measurements.
  std::map<std::string, bool> names;
  for (const auto& [name, g] : fit_set) names[name] = true;
  for (const auto& [name, g] : held_set) names[name] = true;
  for (const auto& [name, unused] : names) {
    ModelFitReport report;
    report.model = name;
    report.fitted = std::find(fitted_models.begin(), fitted_models.end(), name) != fitted_models.end();
    report.fit = errors_of(p, group(name));
    if (const auto it = held_set.find(name); it != held_set.end()) report.held_back = errors_of(p, it->second);
    result.models.push_back(report);
  }

  // Store the fit errors with the groups they describe.
  const auto fit_of = [&](const std::string& name) -> std::optional<FitError> {
    for (const ModelFitReport& r : result.models) {
      if (r.model == name && r.fitted) return r.fit;
    }
    return std::nullopt;
  };
  for (CopyKind kind : topo::kCopyKinds) {
    if (auto f = fit_of("copies." + std::string(topo::to_string(kind)))) p.copies[static_cast<std::size_t>(kind)].provenance.fit = f;
  }
  for (auto& [dtype, c] : p.gemm) {
    if (auto f = fit_of("gemm." + std::string(topo::to_string(dtype)))) c.provenance.fit = f;
  }
  if (auto f = fit_of("embedding_gather")) p.gather.provenance.fit = f;
  {
    std::optional<FitError> combined;
    for (topo::EmbeddingOptimizer opt : topo::kEmbeddingOptimizers) {
      if (auto f = fit_of("embedding_backward." + std::string(topo::to_string(opt)))) {
        combined = combined ? merge(*combined, *f) : *f;
      }
    }
    if (combined) p.embedding_backward.provenance.fit = combined;
  }
  if (auto f = fit_of("uvm_gather")) p.uvm_gather.provenance.fit = f;
  {
    // The launch overhead and the kernel floor share the profile's `launch` group.
    std::optional<FitError> combined;
    for (const char* name : {"launch", "kernel_floor"}) {
      if (auto f = fit_of(name)) combined = combined ? merge(*combined, *f) : *f;
    }
    if (combined) p.launch_provenance.fit = combined;
  }
  return result;
}

std::string format_fit_report(const CalibrationResult& result) {
  std::ostringstream out;
  char line[256];
  std::snprintf(line, sizeof line, "%-36s %6s %9s %9s   %6s %9s %9s\n", "model", "fitted", "rms err", "max err", "held",
                "rms err", "max err");
  out << line;
  for (const ModelFitReport& r : result.models) {
    std::snprintf(line, sizeof line, "%-36s %6d %8.2f%% %8.2f%%", r.model.c_str(), r.fitted ? r.fit.measurements : 0,
                  100.0 * r.fit.rms_relative, 100.0 * r.fit.max_relative);
    out << line;
    if (r.held_back) {
      std::snprintf(line, sizeof line, "   %6d %8.2f%% %8.2f%%", r.held_back->measurements,
                    100.0 * r.held_back->rms_relative, 100.0 * r.held_back->max_relative);
      out << line;
    }
    if (!r.fitted) out << "   (not fitted: reported against the profile)";
    out << "\n";
  }
  for (const std::string& note : result.notes) out << "note: " << note << "\n";
  return out.str();
}

}  // namespace dlrmsim::validation
