#include "validation/least_squares.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace dlrmsim::validation {

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Evaluation {
  Eigen::VectorXd residuals;
  Eigen::MatrixXd jacobian;
  double cost = 0.0;
};

// theta = (ln e, ln h_1 .. ln h_F[, ln t0]); the optional last entry is the per-call constant.
Evaluation evaluate(const std::vector<SaturatingSample>& samples, const Eigen::VectorXd& theta, bool with_offset) {
  const auto rows = static_cast<Eigen::Index>(samples.size());
  Evaluation e;
  e.residuals.resize(rows);
  e.jacobian = Eigen::MatrixXd::Zero(rows, theta.size());
  const double eff = std::exp(theta[0]);
  const double offset = with_offset ? std::exp(theta[theta.size() - 1]) : 0.0;
  for (Eigen::Index i = 0; i < rows; ++i) {
    const SaturatingSample& s = samples[static_cast<std::size_t>(i)];
    double product = eff;
    for (std::size_t j = 0; j < s.features.size(); ++j) {
      const double h = std::exp(theta[static_cast<Eigen::Index>(j + 1)]);
      product *= s.features[j] / (s.features[j] + h);
    }
    const double compute = s.ideal_time / product;
    const double body = std::max(compute, s.floor_time);
    const double predicted = offset + body;
    e.residuals[i] = std::log(predicted) - std::log(s.measured_time);
    if (compute >= s.floor_time) {
      // d ln(t0 + c) / d ln e = -c / t, d / d ln h_j = c / t * h_j / (x_j + h_j).
      const double share = compute / predicted;
      e.jacobian(i, 0) = -share;
      for (std::size_t j = 0; j < s.features.size(); ++j) {
        const double h = std::exp(theta[static_cast<Eigen::Index>(j + 1)]);
        e.jacobian(i, static_cast<Eigen::Index>(j + 1)) = share * h / (s.features[j] + h);
      }
    }
    if (with_offset) e.jacobian(i, theta.size() - 1) = offset / predicted;
  }
  e.cost = e.residuals.squaredNorm();
  return e;
}

}  // namespace

double saturating_time(const SaturatingSample& s, double max_efficiency, const std::vector<double>& halves,
                       double offset) {
  double product = max_efficiency;
  for (std::size_t j = 0; j < s.features.size(); ++j) product *= s.features[j] / (s.features[j] + halves.at(j));
  return offset + std::max(s.ideal_time / product, s.floor_time);
}

SaturatingFit fit_saturating_product(const std::vector<SaturatingSample>& samples, int features, bool fit_offset) {
  if (samples.empty()) throw std::invalid_argument("no measurements to fit");
  if (features < 0) throw std::invalid_argument("negative feature count");
  const auto nf = static_cast<std::size_t>(features);
  std::vector<double> observed_efficiency;
  std::vector<std::vector<double>> columns(nf);
  for (const SaturatingSample& s : samples) {
    if (s.features.size() != nf) throw std::invalid_argument("a sample has the wrong number of features");
    if (!(s.ideal_time > 0.0) || !(s.measured_time > 0.0) || !(s.floor_time >= 0.0)) {
      throw std::invalid_argument("sample times must be positive (floor: non-negative)");
    }
    for (std::size_t j = 0; j < nf; ++j) {
      if (!(s.features[j] > 0.0)) throw std::invalid_argument("sample features must be positive");
      columns[j].push_back(s.features[j]);
    }
    observed_efficiency.push_back(s.ideal_time / s.measured_time);
  }

  // Start: e a little above the best observed efficiency, each h a tenth of the median extent.
  Eigen::VectorXd theta(static_cast<Eigen::Index>(nf + 1 + (fit_offset ? 1 : 0)));
  // e <= 1: no kernel beats its peak rate.
  theta[0] = std::min(std::log(1.05 * *std::max_element(observed_efficiency.begin(), observed_efficiency.end())), 0.0);
  std::vector<double> low(nf), high(nf);
  for (std::size_t j = 0; j < nf; ++j) {
    const auto [mn, mx] = std::minmax_element(columns[j].begin(), columns[j].end());
    theta[static_cast<Eigen::Index>(j + 1)] = std::log(0.1 * median(columns[j]));
    // An extent far below every observed x is indistinguishable from 0, one far above from
    // infinity; bounding keeps the iteration finite when the data do not constrain h.
    low[j] = std::log(1e-6 * *mn);
    high[j] = std::log(1e3 * *mx);
  }
  // The per-call constant starts at a tenth of the shortest measurement and stays below it.
  double shortest = samples.front().measured_time;
  for (const SaturatingSample& s : samples) shortest = std::min(shortest, s.measured_time);
  const double offset_low = std::log(1e-6 * shortest), offset_high = std::log(shortest);
  if (fit_offset) theta[theta.size() - 1] = std::log(0.1 * shortest);

  Evaluation current = evaluate(samples, theta, fit_offset);
  double lambda = 1e-3;
  int iteration = 0;
  constexpr int kMaxIterations = 500;
  bool converged = false;
  for (; iteration < kMaxIterations && !converged; ++iteration) {
    const Eigen::MatrixXd jtj = current.jacobian.transpose() * current.jacobian;
    const Eigen::VectorXd gradient = current.jacobian.transpose() * current.residuals;
    if (gradient.lpNorm<Eigen::Infinity>() < 1e-14) break;
    bool improved = false;
    while (lambda < 1e12) {
      Eigen::MatrixXd damped = jtj;
      for (Eigen::Index d = 0; d < damped.rows(); ++d) damped(d, d) += lambda * std::max(jtj(d, d), 1e-12);
      const Eigen::VectorXd step = damped.ldlt().solve(-gradient);
      Eigen::VectorXd candidate = theta + step;
      for (std::size_t j = 0; j < nf; ++j) {
        const auto idx = static_cast<Eigen::Index>(j + 1);
        candidate[idx] = std::clamp(candidate[idx], low[j], high[j]);
      }
      candidate[0] = std::min(candidate[0], 0.0);
      if (fit_offset) candidate[theta.size() - 1] = std::clamp(candidate[theta.size() - 1], offset_low, offset_high);
      Evaluation next = evaluate(samples, candidate, fit_offset);
      if (next.cost < current.cost) {
        const double gain = current.cost - next.cost;
        theta = candidate;
        current = std::move(next);
        lambda = std::max(lambda / 10.0, 1e-12);
        improved = true;
        converged = gain < 1e-15 * std::max(1.0, current.cost);
        break;
      }
      lambda *= 10.0;
    }
    if (!improved) break;
  }

  SaturatingFit fit;
  fit.max_efficiency = std::exp(theta[0]);
  for (std::size_t j = 0; j < nf; ++j) {
    const double h = theta[static_cast<Eigen::Index>(j + 1)];
    // At the lower bound the extent is unresolved and effectively 0.
    fit.halves.push_back(h <= low[j] + 1e-9 ? 0.0 : std::exp(h));
  }
  if (fit_offset) {
    const double t0 = theta[theta.size() - 1];
    fit.offset = t0 <= offset_low + 1e-9 ? 0.0 : std::exp(t0);
  }
  fit.iterations = iteration;
  fit.rms_log_residual = std::sqrt(current.cost / static_cast<double>(samples.size()));
  return fit;
}

LineFit fit_line_relative(const std::vector<double>& x, const std::vector<double>& t) {
  if (x.size() != t.size() || x.size() < 2) throw std::invalid_argument("a line fit needs at least two points");
  if (*std::min_element(x.begin(), x.end()) == *std::max_element(x.begin(), x.end())) {
    throw std::invalid_argument("a line fit needs at least two distinct sizes");
  }
  const auto n = static_cast<Eigen::Index>(x.size());
  Eigen::MatrixXd a(n, 2);
  Eigen::VectorXd b(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double ti = t[static_cast<std::size_t>(i)];
    if (!(ti > 0.0)) throw std::invalid_argument("measured times must be positive");
    a(i, 0) = 1.0 / ti;
    a(i, 1) = x[static_cast<std::size_t>(i)] / ti;
    b[i] = 1.0;
  }
  // Column scaling keeps the normal equations well conditioned (x spans bytes to gigabytes).
  const Eigen::Vector2d scale(a.col(0).norm(), a.col(1).norm());
  Eigen::MatrixXd scaled = a;
  scaled.col(0) /= scale[0];
  scaled.col(1) /= scale[1];
  Eigen::Vector2d solution = scaled.colPivHouseholderQr().solve(b);
  solution = solution.cwiseQuotient(scale);
  LineFit fit{solution[0], solution[1]};
  if (fit.intercept < 0.0) {
    // Through the origin: minimise sum (b x_i / t_i - 1)^2.
    const Eigen::VectorXd col = a.col(1);
    fit.intercept = 0.0;
    fit.slope = col.dot(b) / col.squaredNorm();
  }
  if (!(fit.slope > 0.0)) throw std::invalid_argument("measured times do not grow with size; no bandwidth can be fitted");
  return fit;
}

}  // namespace dlrmsim::validation
