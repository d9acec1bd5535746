// The calibration fitter (validation/calibration_fit.hpp, least_squares.hpp, raw_measurements.hpp):
// it recovers known coefficients from synthetic noisy measurements, reports a fit error that
// bounds its own profile's predictions, and rejects malformed raw files.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <tuple>

#include "topologies/device_profile.hpp"
#include "validation/calibration_fit.hpp"
#include "validation/least_squares.hpp"
#include "validation/raw_measurements.hpp"
#include "paths.hpp"

using namespace dlrmsim;
using namespace dlrmsim::topo;
using namespace dlrmsim::validation;

namespace {

const std::string kCalibrationDir = dlrmsim::testing::kRoot + "/configs/calibration";

/// Deterministic multiplicative noise exp(sigma z), z standard normal by Box-Muller on
/// mt19937_64's raw output (the same sequence with every standard library).
class Noise {
 public:
  Noise(std::uint64_t seed, double sigma) : rng_(seed), sigma_(sigma) {}
  double factor() {
    const double u1 = (static_cast<double>(rng_() >> 11) + 0.5) / 9007199254740992.0;
    const double u2 = (static_cast<double>(rng_() >> 11) + 0.5) / 9007199254740992.0;
    const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    return std::exp(sigma_ * z);
  }

 private:
  std::mt19937_64 rng_;
  double sigma_;
};

/// The "true" device: the H100 profile with coefficients moved away from the shipped values, so
/// that recovering them shows the fit and not the starting point.
DeviceProfile truth() {
  DeviceProfile p = load_device_profile(kCalibrationDir + "/h100.yaml");
  for (auto& [dtype, c] : p.gemm) {
    c.max_efficiency = 0.82;
    c.m_half = 300.0;
    c.n_half = 200.0;
    c.k_half = 100.0;
  }
  p.memory.achievable_fraction = 0.93;
  p.copies[static_cast<std::size_t>(CopyKind::d2d)] = {Seconds(4e-6), BytesPerSecond(0.93 * 3.35e12 / 2.0), {}};
  p.copies[static_cast<std::size_t>(CopyKind::h2d_pinned)] = {Seconds(8e-6), BytesPerSecond(53e9), {}};
  p.copies[static_cast<std::size_t>(CopyKind::h2d_pageable)] = {Seconds(15e-6), BytesPerSecond(21e9), {}};
  p.copies[static_cast<std::size_t>(CopyKind::d2h_pinned)] = {Seconds(9e-6), BytesPerSecond(54e9), {}};
  p.copies[static_cast<std::size_t>(CopyKind::d2h_pageable)] = {Seconds(16e-6), BytesPerSecond(19e9), {}};
  p.gather.max_efficiency = 0.68;
  p.gather.row_half = Bytes(24.0);
  p.gather.pooling_half = 2.0;
  p.embedding_backward.sgd_multiple = 3.9;
  p.embedding_backward.rowwise_adagrad_multiple = 4.3;
  p.uvm_gather.max_efficiency = 0.83;
  p.uvm_gather.row_half = Bytes(40.0);
  p.launch_overhead = Seconds(2.5e-6);
  p.min_kernel_time = Seconds(1.2e-6);
  return p;
}

/// The runner's sweep (validation/kernels/runner.cpp, "full"), timed by `device` with noise.
RawMeasurements synthetic(const DeviceProfile& device, double sigma, std::uint64_t seed) {
  RawMeasurements raw;
  raw.machine = {"NVIDIA H100 80GB HBM3", "test", "13.0", 132, Bytes(85e9), "2026-11-30T00:00:00Z", "synthetic"};
  Noise noise(seed, sigma);
  const auto add = [&](Measurement m) {
    m.time = predict(device, m) * noise.factor();
    m.repeats = 20;
    raw.measurements.push_back(m);
  };
  for (MeasurementKind kind : {MeasurementKind::launch, MeasurementKind::kernel_floor}) {
    for (int i = 0; i < 10; ++i) {
      Measurement m;
      m.kind = kind;
      add(m);
    }
  }
  for (CopyKind kind : kCopyKinds) {
    for (double bytes = 4096.0; bytes <= 268435456.0; bytes *= 4.0) {
      Measurement m;
      m.kind = MeasurementKind::copy;
      m.copy = kind;
      m.bytes = Bytes(bytes);
      add(m);
    }
  }
  std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t>> shapes;
  for (std::int64_t batch : {256, 1024, 4096, 16384}) {
    for (auto [in, out] : {std::pair{16, 512}, {512, 256}, {256, 128}, {480, 1024}, {1024, 1024}, {1024, 512}, {256, 64}}) {
      shapes.insert({batch, out, in});
      shapes.insert({batch, in, out});
      shapes.insert({in, out, batch});
    }
  }
  for (std::int64_t s : {128, 256, 512, 1024, 2048, 4096, 8192}) shapes.insert({s, s, s});
  for (Precision dtype : {Precision::fp32, Precision::tf32, Precision::bf16, Precision::fp16}) {
    for (const auto& [m_, n_, k_] : shapes) {
      Measurement m;
      m.kind = MeasurementKind::gemm;
      m.dtype = dtype;
      m.m = m_;
      m.n = n_;
      m.k = k_;
      add(m);
    }
  }
  const auto embedding = [](MeasurementKind kind, int dim, int element, int pooling, double lookups) {
    Measurement m;
    m.kind = kind;
    m.row_type = element == 4 ? "fp32" : "fp16";
    m.row_bytes = Bytes(static_cast<double>(dim * element));
    m.pooling = pooling;
    m.bags = static_cast<std::int64_t>(lookups / pooling);
    m.table_rows = 1000000;
    m.distribution = "uniform";
    return m;
  };
  for (int element : {4, 2}) {
    for (int dim : {16, 32, 64, 128, 256, 512}) {
      for (int pooling : {1, 4, 16, 64, 128}) add(embedding(MeasurementKind::gather_forward, dim, element, pooling, 2097152.0));
    }
  }
  for (EmbeddingOptimizer opt : kEmbeddingOptimizers) {
    for (int dim : {16, 64, 128, 256, 512}) {
      for (int pooling : {1, 8, 32, 64, 128}) {
        Measurement m = embedding(MeasurementKind::gather_backward, dim, 4, pooling, 2097152.0);
        m.optimizer = opt;
        add(m);
      }
    }
  }
  for (int dim : {4, 8, 16, 32, 64, 128, 256, 512}) add(embedding(MeasurementKind::uvm_gather, dim, 4, 16, 262144.0));
  return raw;
}

const ModelFitReport& report_of(const CalibrationResult& r, const std::string& model) {
  for (const ModelFitReport& m : r.models) {
    if (m.model == model) return m;
  }
  FAIL("no report for " << model);
  throw std::logic_error("unreachable");
}

}  // namespace

// System: noise-free samples of t = max(u / (e s(x1,h1) s(x2,h2)), f) with e = 0.8, h = (50, 3)
// and a floor active on some samples. Expected: Levenberg-Marquardt recovers e and h to 1e-6
// (the model is exact, so the least-squares optimum is the truth).
TEST_CASE("the saturating-product fit recovers exact coefficients") {
  std::vector<SaturatingSample> samples;
  for (double x1 : {4.0, 16.0, 64.0, 256.0, 1024.0}) {
    for (double x2 : {1.0, 2.0, 8.0, 32.0, 128.0}) {
      SaturatingSample s{{x1, x2}, 1e-3 * x1 * x2, x1 < 10.0 && x2 < 5.0 ? 1e-1 : 0.0, 0.0};
      s.measured_time = saturating_time(s, 0.8, {50.0, 3.0});
      samples.push_back(s);
    }
  }
  const SaturatingFit fit = fit_saturating_product(samples, 2);
  CHECK(fit.max_efficiency == dlrmsim::rel(0.8).epsilon(1e-6));
  CHECK(fit.halves[0] == dlrmsim::rel(50.0).epsilon(1e-6));
  CHECK(fit.halves[1] == dlrmsim::rel(3.0).epsilon(1e-6));
  CHECK(fit.rms_log_residual < 1e-8);
}

// System: noise-free samples of t = 5 + u / (e s(x1,h1) s(x2,h2)) with e = 0.9, h = (300, 100)
// over a grid where the constant matters for small problems. Expected: the fit with a per-call
// constant recovers it and the coefficients to 1e-6; without the constant the fit is worse.
TEST_CASE("the saturating-product fit recovers a per-call constant") {
  std::vector<SaturatingSample> samples;
  for (double x1 : {256.0, 512.0, 1024.0, 2048.0, 4096.0}) {
    for (double x2 : {128.0, 256.0, 1024.0, 4096.0}) {
      SaturatingSample s{{x1, x2}, 1e-3 * x1 * x2, 0.0, 0.0};
      s.measured_time = saturating_time(s, 0.9, {300.0, 100.0}, 5.0);
      samples.push_back(s);
    }
  }
  const SaturatingFit fit = fit_saturating_product(samples, 2, true);
  CHECK(fit.offset == dlrmsim::rel(5.0).epsilon(1e-6));
  CHECK(fit.max_efficiency == dlrmsim::rel(0.9).epsilon(1e-6));
  CHECK(fit.halves[0] == dlrmsim::rel(300.0).epsilon(1e-6));
  CHECK(fit.halves[1] == dlrmsim::rel(100.0).epsilon(1e-6));
  CHECK(fit_saturating_product(samples, 2).rms_log_residual > 100.0 * fit.rms_log_residual);
}

// System: t = 7 us + x / 25 GB/s at sizes 1 KiB .. 1 GiB, no noise. Expected: the relative
// line fit returns exactly that latency and bandwidth.
TEST_CASE("the relative line fit recovers latency and bandwidth") {
  std::vector<double> x, t;
  for (double b = 1024.0; b <= 1073741824.0; b *= 8.0) {
    x.push_back(b);
    t.push_back(7e-6 + b / 25e9);
  }
  const LineFit fit = fit_line_relative(x, t);
  CHECK(fit.intercept == dlrmsim::rel(7e-6).epsilon(1e-9));
  CHECK(1.0 / fit.slope == dlrmsim::rel(25e9).epsilon(1e-9));
  CHECK_THROWS_AS(fit_line_relative({1.0, 1.0}, {1.0, 2.0}), std::invalid_argument);
}

// System: the runner's full sweep without its Zipf runs (507 measurements: 10 launch, 10 kernel floor, 45 copy,
// 324 GEMM (81 shapes x 4 dtypes), 60 forward, 50 backward, 8 zero-copy) timed by a known
// "true" H100 (truth()) with 1 % log-normal noise, seed 42, fitted from the shipped H100
// profile.
// Expected: every coefficient comes back close to the truth: efficiencies and multiples within
// 2 %, copy latencies within 10 % and bandwidths within 2 %, half extents within 20 % (they
// are determined by the few small shapes only). The reported rms error is the noise level
// (between 0.6 % and 1.5 %).
TEST_CASE("the fitter recovers known coefficients from noisy synthetic measurements") {
  const DeviceProfile device = truth();
  const DeviceProfile base = load_device_profile(kCalibrationDir + "/h100.yaml");
  const RawMeasurements raw = synthetic(device, 0.01, 42);
  REQUIRE(raw.measurements.size() == 507);
  const CalibrationResult result = fit_device_profile(raw, base, {});
  const DeviceProfile& p = result.profile;

  for (Precision dtype : {Precision::fp32, Precision::tf32, Precision::bf16, Precision::fp16}) {
    CAPTURE(to_string(dtype));
    const GemmCoefficients& c = p.gemm_coefficients(dtype);
    CHECK(c.max_efficiency == dlrmsim::rel(0.82).epsilon(0.02));
    CHECK(c.m_half == dlrmsim::rel(300.0).epsilon(0.2));
    CHECK(c.n_half == dlrmsim::rel(200.0).epsilon(0.2));
    CHECK(c.k_half == dlrmsim::rel(100.0).epsilon(0.2));
    REQUIRE(c.provenance.fit);
    CHECK(c.provenance.fit->rms_relative > 0.006);
    CHECK(c.provenance.fit->rms_relative < 0.015);
  }
  // fp8 had no measurements: the shipped coefficients stay, with their source.
  CHECK(p.gemm_coefficients(Precision::fp8).max_efficiency == base.gemm_coefficients(Precision::fp8).max_efficiency);
  CHECK(p.gemm_coefficients(Precision::fp8).provenance.source == base.gemm_coefficients(Precision::fp8).provenance.source);

  CHECK(p.memory.achievable_fraction == dlrmsim::rel(0.93).epsilon(0.02));
  for (CopyKind kind : kCopyKinds) {
    CAPTURE(to_string(kind));
    CHECK(p.copy(kind).latency.value() == dlrmsim::rel(device.copy(kind).latency.value()).epsilon(0.10));
    CHECK(p.copy(kind).bandwidth.value() == dlrmsim::rel(device.copy(kind).bandwidth.value()).epsilon(0.02));
  }
  CHECK(p.gather.max_efficiency == dlrmsim::rel(0.68).epsilon(0.02));
  CHECK(p.gather.row_half.value() == dlrmsim::rel(24.0).epsilon(0.2));
  CHECK(p.gather.pooling_half == dlrmsim::rel(2.0).epsilon(0.2));
  CHECK(p.embedding_backward.sgd_multiple == dlrmsim::rel(3.9).epsilon(0.02));
  CHECK(p.embedding_backward.rowwise_adagrad_multiple == dlrmsim::rel(4.3).epsilon(0.02));
  CHECK(p.uvm_gather.max_efficiency == dlrmsim::rel(0.83).epsilon(0.02));
  CHECK(p.uvm_gather.row_half.value() == dlrmsim::rel(40.0).epsilon(0.2));
  CHECK(p.launch_overhead.value() == dlrmsim::rel(2.5e-6).epsilon(0.02));
  CHECK(p.min_kernel_time.value() == dlrmsim::rel(1.2e-6).epsilon(0.02));

  // Datasheet numbers are kept from the base profile; provenance names the run.
  CHECK(p.gemm_peak(Precision::bf16).value() == base.gemm_peak(Precision::bf16).value());
  CHECK(p.hbm_bandwidth().value() == base.hbm_bandwidth().value());
  CHECK(p.provenance.find("NVIDIA H100 80GB HBM3") != std::string::npos);
  CHECK(p.gather.provenance.source.find("fitted by dlrmsim fit-profile") != std::string::npos);
  CHECK(p.gather.provenance.source.find("base profile") != std::string::npos);
}

// System: the fitted profile of the previous case, written to YAML and read back, predicting
// every measurement it was fitted to. Expected: every relative error is at most the maximum
// error the profile reports for that model (up to the 1e-7 of the 9-digit YAML numbers) —
// the reported fit error is an honest bound.
TEST_CASE("a fitted profile reproduces its own measurements within its reported fit error") {
  const RawMeasurements raw = synthetic(truth(), 0.01, 7);
  const CalibrationResult result =
      fit_device_profile(raw, load_device_profile(kCalibrationDir + "/h100.yaml"), {Holdout::none, "synthetic.yaml"});
  const DeviceProfile p = parse_device_profile(ConfigNode::load_string(device_profile_to_yaml(result.profile), "fitted.yaml"));
  int checked = 0;
  for (const Measurement& m : raw.measurements) {
    std::optional<FitError> fit;
    switch (m.kind) {
      case MeasurementKind::gemm: fit = p.gemm_coefficients(m.dtype).provenance.fit; break;
      case MeasurementKind::gather_forward: fit = p.gather.provenance.fit; break;
      case MeasurementKind::gather_backward: fit = p.embedding_backward.provenance.fit; break;
      case MeasurementKind::uvm_gather: fit = p.uvm_gather.provenance.fit; break;
      case MeasurementKind::copy: fit = p.copy(m.copy).provenance.fit; break;
      case MeasurementKind::launch:
      case MeasurementKind::kernel_floor: fit = p.launch_provenance.fit; break;
    }
    REQUIRE(fit);
    const double error = std::fabs(predict(p, m).value() / m.time.value() - 1.0);
    CHECK(error <= fit->max_relative + 1e-7);
    ++checked;
  }
  CHECK(checked == static_cast<int>(raw.measurements.size()));
  CHECK(p.provenance.find("synthetic.yaml") != std::string::npos);
}

// System: the same synthetic run fitted on even-indexed measurements, odd ones held back.
// Expected: each model reports both sets (each about half), and with 1 % noise every held-back
// prediction is within 5 %: the 10 % acceptance check passes with margin for a correct model.
TEST_CASE("hold-out: fit even-indexed measurements, predict the odd ones") {
  const RawMeasurements raw = synthetic(truth(), 0.01, 11);
  const CalibrationResult result =
      fit_device_profile(raw, load_device_profile(kCalibrationDir + "/h100.yaml"), {Holdout::odd, "synthetic.yaml"});
  const ModelFitReport& gemm = report_of(result, "gemm.bf16");
  REQUIRE(gemm.held_back);
  CHECK(gemm.fit.measurements - gemm.held_back->measurements <= 1);
  CHECK(gemm.held_back->measurements == 40);  // 81 distinct shapes, every second one held back
  CHECK(result.max_held_back_error() > 0.0);
  CHECK(result.max_held_back_error() < 0.05);
  CHECK(format_fit_report(result).find("gemm.bf16") != std::string::npos);
}

// System: raw files written and read back; a record without its time; too few GEMM records;
// measurements faster than the datasheet allows. Expected: the round trip is exact to 9
// digits, the missing key is named with file, line and path, the others are clear errors.
TEST_CASE("raw measurement files round-trip and bad ones are rejected") {
  const RawMeasurements raw = synthetic(truth(), 0.01, 3);
  const std::string text = raw_measurements_to_yaml(raw);
  const RawMeasurements back = parse_raw_measurements(ConfigNode::load_string(text, "raw.yaml"));
  REQUIRE(back.measurements.size() == raw.measurements.size());
  for (std::size_t i = 0; i < raw.measurements.size(); ++i) {
    CHECK(back.measurements[i].time.value() == dlrmsim::rel(raw.measurements[i].time.value()).epsilon(1e-8));
    CHECK(model_of(back.measurements[i]) == model_of(raw.measurements[i]));
  }
  CHECK(back.machine.gpu == raw.machine.gpu);

  std::string broken = text;
  const auto first_time = broken.find(", time: ");
  const auto end = broken.find(", repeats", first_time);
  broken.erase(first_time, end - first_time);
  try {
    parse_raw_measurements(ConfigNode::load_string(broken, "raw.yaml"));
    FAIL("a record without time must be rejected");
  } catch (const ConfigError& e) {
    const std::string message = e.what();
    CHECK(message.find("raw.yaml:") != std::string::npos);
    CHECK(message.find("measurements.0") != std::string::npos);
    CHECK(message.find("'time'") != std::string::npos);
  }

  RawMeasurements few;
  few.machine = raw.machine;
  for (const Measurement& m : raw.measurements) {
    if (m.kind == MeasurementKind::gemm && m.dtype == Precision::bf16 && few.measurements.size() < 3) few.measurements.push_back(m);
  }
  const DeviceProfile base = load_device_profile(kCalibrationDir + "/h100.yaml");
  CHECK_THROWS_WITH_AS(fit_device_profile(few, base, {}), doctest::Contains("gemm.bf16: 3 measurement(s)"),
                       std::invalid_argument);

  RawMeasurements too_fast = raw;
  for (Measurement& m : too_fast.measurements) {
    if (m.kind == MeasurementKind::gemm) m.time = m.time * 0.5;  // 1.64 x the datasheet peak at best
  }
  CHECK_THROWS_WITH_AS(fit_device_profile(too_fast, base, {}), doctest::Contains("outside (0, 1]"), std::invalid_argument);
}

// System: GEMM measurements that cannot determine the saturating model. Inputs: (a) six
// timings of one shape, m = n = k = 256, which fix only the efficiency at that shape (e_max
// and the three half extents trade off exactly); (b) shapes that vary only in k, which leave
// m_half and n_half free. Expected: fit_device_profile refuses both, naming the model and the
// coefficient, instead of writing a profile with extents stuck at the fitter's bounds.
TEST_CASE("measurements that do not determine a model are refused, not fitted") {
  const DeviceProfile device = truth();
  const DeviceProfile base = load_device_profile(kCalibrationDir + "/h100.yaml");
  const auto gemm = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
    Measurement x;
    x.kind = MeasurementKind::gemm;
    x.dtype = Precision::bf16;
    x.m = m;
    x.n = n;
    x.k = k;
    x.time = predict(device, x);
    return x;
  };
  RawMeasurements one_shape;
  for (int i = 0; i < 6; ++i) one_shape.measurements.push_back(gemm(256, 256, 256));
  CHECK_THROWS_WITH_AS(fit_device_profile(one_shape, base, {}),
                       "gemm.bf16: every measurement has m = 256; m_half cannot be determined without measurements at "
                       "two or more sizes",
                       std::invalid_argument);
  RawMeasurements only_k;
  for (std::int64_t k : {64, 128, 256, 512, 1024, 2048}) only_k.measurements.push_back(gemm(256, 256, k));
  CHECK_THROWS_WITH_AS(fit_device_profile(only_k, base, {}), doctest::Contains("m_half cannot be determined"),
                       std::invalid_argument);
}
