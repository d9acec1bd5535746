// The two least-squares problems behind calibration (Eigen).
//
// 1. Saturating-product efficiency models (GEMM, embedding gather, zero-copy gather):
//      t_i = t0 + max( u_i / (e * prod_j s(x_ij, h_j)),  f_i ),     s(x, h) = x / (x + h)
//    where u_i is the time at 100 % efficiency (work over peak rate), f_i an optional floor
//    (0 for none), and the parameters are e (the efficiency of large problems, at most 1) and
//    one half-saturation extent h_j per feature, plus, when asked, a per-call constant t0 >= 0
//    (time every call of the measured kernel costs whatever its size: launch, pipeline fill and
//    drain, the timing harness; otherwise t0 = 0). Residuals are relative, r_i = ln t_pred - ln t_i,
//    so small and large problems weigh alike, and the parameters are solved in logarithms
//    (theta = ln e, ln h_j), which keeps them positive. Levenberg-Marquardt: with J the
//    Jacobian of r, each step solves (J^T J + lambda diag(J^T J)) d = -J^T r. With c_i the compute
//    term and t_i' the predicted time, where the compute term is active d r_i / d ln e = -c_i / t_i'
//    and d r_i / d ln h_j = (c_i / t_i') h_j / (x_ij + h_j); where the floor is active those are 0
//    (the max is piecewise smooth); d r_i / d ln t0 = t0 / t_i'.
//
// 2. Latency + bandwidth lines t = a + b x (copies), fitted with relative weights
//    (minimise sum ((a + b x_i - t_i) / t_i)^2) so that the small copies which determine the
//    latency count as much as the large ones which determine the bandwidth.
#pragma once

#include <vector>

namespace dlrmsim::validation {

struct SaturatingSample {
  std::vector<double> features;  // x_ij > 0, one per half-saturation extent
  double ideal_time = 0.0;       // u_i > 0
  double floor_time = 0.0;       // f_i >= 0
  double measured_time = 0.0;    // t_i > 0
};

struct SaturatingFit {
  double max_efficiency = 0.0;
  std::vector<double> halves;
  double offset = 0.0;  // t0 in the units of the sample times (0 unless fitted)
  int iterations = 0;
  double rms_log_residual = 0.0;
};

/// Fits e and h_j (and t0 with fit_offset); throws std::invalid_argument for an empty or
/// inconsistent sample set.
SaturatingFit fit_saturating_product(const std::vector<SaturatingSample>& samples, int features,
                                     bool fit_offset = false);

/// Model time of one sample under given parameters.
double saturating_time(const SaturatingSample& s, double max_efficiency, const std::vector<double>& halves,
                       double offset = 0.0);

struct LineFit {
  double intercept = 0.0;  // a >= 0
  double slope = 0.0;      // b > 0
};

/// Relative-weighted least squares t = a + b x with a >= 0 (if the free fit gives a < 0, a = 0
/// and b is refitted). Needs at least two distinct x.
LineFit fit_line_relative(const std::vector<double>& x, const std::vector<double>& t);

}  // namespace dlrmsim::validation
