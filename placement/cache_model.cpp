#include "placement/cache_model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <unordered_map>

namespace dlrmsim::placement {
namespace {

// Ranks 1..kExactHead are summed term by term; the tail is integrated. The head carries the
// mass of skewed distributions, and beyond it the summands vary slowly enough in log-rank
// for an 8-point Gauss-Legendre rule per unit of log-rank (relative error < 1e-6 on the
// Che sums, checked against direct sums in tests/test_cache_model.cpp).
constexpr double kExactHead = 64.0;
// H(N, s) has a closed-form tail integral; a longer exact head makes the dropped
// Euler-Maclaurin terms (~ s (s+1) (s+2) / (720 a^(s+3))) negligible (< 1e-13 relative).
constexpr double kHarmonicHead = 256.0;

// 8-point Gauss-Legendre nodes and weights on [-1, 1] (Abramowitz and Stegun, table 25.4).
constexpr std::array<double, 4> kGaussNodes{0.1834346424956498, 0.5255324099163290, 0.7966664774136267,
                                            0.9602898564975363};
constexpr std::array<double, 4> kGaussWeights{0.3626837833783620, 0.3137066458778873, 0.2223810344533745,
                                              0.1012285362903763};

void check_rows(double rows, double cache_rows) {
  if (!(rows >= 1.0) || !std::isfinite(rows)) {
    throw std::invalid_argument("cache model: a table needs at least one row (got " + std::to_string(rows) + ")");
  }
  if (!(cache_rows >= 0.0)) {
    throw std::invalid_argument("cache model: cache size must be >= 0 rows (got " + std::to_string(cache_rows) + ")");
  }
}

void check_exponent(double s) {
  if (!(s >= 0.0) || !std::isfinite(s)) {
    throw std::invalid_argument("cache model: Zipf exponent must be a finite number >= 0 (got " + std::to_string(s) + ")");
  }
}

// Solves occupancy(T) = cache_rows for the characteristic time T by Newton's method in log T,
// safeguarded by a bracket. `occupancy(T, &derivative)` returns sum_i (1 - exp(-p_i T)).
template <class Occ>
double solve_characteristic_time(Occ occupancy, double cache_rows) {
  double lo = 0.0;
  double hi = std::numeric_limits<double>::infinity();
  double t = cache_rows;  // exact for uniform popularity at small occupancy
  for (int iter = 0; iter < 200; ++iter) {
    double slope = 0.0;
    const double occ = occupancy(t, &slope);
    const double err = occ - cache_rows;
    if (std::abs(err) <= 1e-12 * cache_rows) return t;
    if (err < 0) lo = t; else hi = t;
    double next = (slope > 0.0) ? t - err / slope : std::numeric_limits<double>::quiet_NaN();
    if (!(next > lo && next < hi)) {
      next = std::isfinite(hi) ? (lo > 0.0 ? std::sqrt(lo * hi) : 0.5 * hi) : 2.0 * t;
    }
    if (std::isfinite(hi) && hi - lo <= 1e-14 * hi) return 0.5 * (lo + hi);
    t = next;
  }
  return t;
}

}  // namespace

CacheModel cache_model_from_string(std::string_view name) {
  if (const auto m = kCacheModelNames.parse(name)) return *m;
  throw std::invalid_argument("unknown cache model '" + std::string(name) + "'; expected lru or static_top_k");
}

AccessDistribution AccessDistribution::zipf(double exponent) {
  check_exponent(exponent);
  AccessDistribution d;
  d.kind = Kind::zipf;
  d.zipf_exponent = exponent;
  return d;
}

AccessDistribution AccessDistribution::hit_rate(std::vector<std::pair<double, double>> points) {
  double prev_fraction = 0.0;
  double prev_hit = 0.0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto [fraction, hit] = points[i];
    const std::string where = "hit-rate curve point " + std::to_string(i) + " (" + std::to_string(fraction) + ", " +
                              std::to_string(hit) + ")";
    if (!(fraction > 0.0 && fraction <= 1.0)) throw std::invalid_argument(where + ": cache fraction must be in (0, 1]");
    if (!(hit >= 0.0 && hit <= 1.0)) throw std::invalid_argument(where + ": hit rate must be in [0, 1]");
    if (i > 0 && !(fraction > prev_fraction)) throw std::invalid_argument(where + ": fractions must increase");
    if (hit < prev_hit) throw std::invalid_argument(where + ": hit rates must not decrease");
    prev_fraction = fraction;
    prev_hit = hit;
  }
  AccessDistribution d;
  d.kind = Kind::hit_rate_curve;
  d.curve = std::move(points);
  return d;
}

double generalized_harmonic(double n, double s) {
  check_exponent(s);
  auto f = [s](double x) { return std::pow(x, -s); };
  auto df = [s](double x) { return -s * std::pow(x, -s - 1.0); };
  n = std::floor(n);
  if (n <= kHarmonicHead) {
    double sum = 0.0;
    for (double i = n; i >= 1.0; i -= 1.0) sum += f(i);
    return sum;
  }
  // The tail integral has a closed form; use it instead of quadrature.
  double head = 0.0;
  for (double i = kHarmonicHead; i >= 1.0; i -= 1.0) head += f(i);
  const double a = kHarmonicHead;
  const double log_ratio = std::log(n / a);
  const double x = (1.0 - s) * log_ratio;
  const double integral = std::abs(x) < 1e-300 ? log_ratio : std::pow(a, 1.0 - s) * std::expm1(x) / (1.0 - s);
  return head + integral + 0.5 * (f(n) - f(a)) + (df(n) - df(a)) / 12.0;
}

double zipf_top_k_hit_rate(double rows, double cache_rows, double s) {
  check_rows(rows, cache_rows);
  check_exponent(s);
  const double k = std::min(std::floor(cache_rows), std::floor(rows));
  if (k <= 0.0) return 0.0;
  if (k >= std::floor(rows)) return 1.0;
  return generalized_harmonic(k, s) / generalized_harmonic(rows, s);
}

namespace {

// sum_{i=1..N} f(p_i) for the Zipf(s) popularity p(x) = x^-s / H(N, s): the exact head (ranks
// 1..kExactHead), then the tail by Euler-Maclaurin, sum_{i=a..N} f(i) = integral_a^N f +
// (f(a) + f(N)) / 2 + (f'(N) - f'(a)) / 12 - f(a), with the integral done in u = ln x by
// 8-point Gauss-Legendre on panels of width <= 1. The popularity is sampled once at every
// point the rule needs, so each step of the characteristic-time solve costs one exp per
// sample and no pow.
class ZipfSamples {
 public:
  ZipfSamples(double rows, double s) : s_(s) {
    const double norm = generalized_harmonic(rows, s);
    const double head_end = std::min(rows, kExactHead);
    for (double i = head_end; i >= 1.0; i -= 1.0) {  // smallest terms first
      p_.push_back(std::pow(i, -s) / norm);
      w_.push_back(1.0);
    }
    if (rows > kExactHead) {
      const double ua = std::log(kExactHead);
      const double ub = std::log(rows);
      const int panels = std::max(1, static_cast<int>(std::ceil(ub - ua)));
      const double width = (ub - ua) / panels;
      for (int q = 0; q < panels; ++q) {
        const double mid = ua + (q + 0.5) * width;
        const double half = 0.5 * width;
        for (std::size_t k = 0; k < kGaussNodes.size(); ++k) {
          for (double sign : {-1.0, 1.0}) {
            const double x = std::exp(mid + sign * half * kGaussNodes[k]);
            p_.push_back(std::pow(x, -s) / norm);
            w_.push_back(kGaussWeights[k] * half * x);
          }
        }
      }
      tail_ = true;
      a_ = kExactHead;
      n_ = rows;
      pa_ = std::pow(a_, -s) / norm;
      pn_ = std::pow(n_, -s) / norm;
    }
  }

  // Sums over rows of f(p_i), where f is given with its derivative in p (for the
  // Euler-Maclaurin end terms: d/dx f(p(x)) = f'(p) p'(x), p'(x) = -s p / x).
  template <class F, class DF>
  double sum(F f, DF df) const {
    double total = 0.0;
    for (std::size_t i = 0; i < p_.size(); ++i) total += w_[i] * f(p_[i]);
    if (tail_) {
      const double dfa = df(pa_) * (-s_ * pa_ / a_);
      const double dfn = df(pn_) * (-s_ * pn_ / n_);
      total += 0.5 * (f(pn_) - f(pa_)) + (dfn - dfa) / 12.0;
    }
    return total;
  }

 private:
  double s_;
  std::vector<double> p_;
  std::vector<double> w_;
  bool tail_ = false;
  double a_ = 0.0, n_ = 0.0, pa_ = 0.0, pn_ = 0.0;
};

}  // namespace

double zipf_lru_hit_rate(double rows, double cache_rows, double s) {
  check_rows(rows, cache_rows);
  check_exponent(s);
  rows = std::floor(rows);
  if (cache_rows <= 0.0) return 0.0;
  if (cache_rows >= rows) return 1.0;
  const ZipfSamples samples(rows, s);
  auto occupancy = [&](double t, double* slope) {
    // occupancy: 1 - exp(-p T); its T-derivative p exp(-p T).
    *slope = samples.sum([t](double p) { return p * std::exp(-t * p); },
                         [t](double p) { return std::exp(-t * p) * (1.0 - t * p); });
    return samples.sum([t](double p) { return -std::expm1(-t * p); }, [t](double p) { return t * std::exp(-t * p); });
  };
  const double t = solve_characteristic_time(occupancy, cache_rows);
  const double hit = samples.sum([t](double p) { return p * -std::expm1(-t * p); },
                                 [t](double p) { return -std::expm1(-t * p) + p * t * std::exp(-t * p); });
  return std::clamp(hit, 0.0, 1.0);
}

double lru_hit_rate_che(std::span<const double> popularity, double cache_rows) {
  if (popularity.empty()) throw std::invalid_argument("cache model: empty popularity vector");
  double total = 0.0;
  for (double p : popularity) {
    if (!(p >= 0.0) || !std::isfinite(p)) throw std::invalid_argument("cache model: popularity must be finite and >= 0");
    total += p;
  }
  if (!(total > 0.0)) throw std::invalid_argument("cache model: popularity vector sums to zero");
  const auto distinct = static_cast<double>(std::count_if(popularity.begin(), popularity.end(), [](double p) { return p > 0; }));
  if (cache_rows <= 0.0) return 0.0;
  if (cache_rows >= distinct) return 1.0;
  auto occupancy = [&](double t, double* slope) {
    double occ = 0.0;
    double d = 0.0;
    for (double w : popularity) {
      const double p = w / total;
      occ += -std::expm1(-p * t);
      d += p * std::exp(-p * t);
    }
    *slope = d;
    return occ;
  };
  const double t = solve_characteristic_time(occupancy, cache_rows);
  double hit = 0.0;
  for (double w : popularity) {
    const double p = w / total;
    hit += p * -std::expm1(-p * t);
  }
  return std::clamp(hit, 0.0, 1.0);
}

double top_k_hit_rate(std::span<const double> popularity, double cache_rows) {
  if (popularity.empty()) throw std::invalid_argument("cache model: empty popularity vector");
  std::vector<double> sorted(popularity.begin(), popularity.end());
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  const double total = std::accumulate(sorted.begin(), sorted.end(), 0.0);
  if (!(total > 0.0)) throw std::invalid_argument("cache model: popularity vector sums to zero");
  const auto k = static_cast<std::size_t>(std::clamp(std::floor(cache_rows), 0.0, static_cast<double>(sorted.size())));
  return std::accumulate(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(k), 0.0) / total;
}

double expected_distinct_rows(const AccessDistribution& access, double rows, double draws) {
  check_rows(rows, 0.0);
  if (!(draws >= 0.0) || !std::isfinite(draws)) throw std::invalid_argument("distinct rows: draws must be finite and >= 0");
  rows = std::floor(rows);
  if (draws <= 0.0 || rows <= 0.0) return 0.0;
  double distinct = draws;
  switch (access.kind) {
    case AccessDistribution::Kind::uniform: distinct = -rows * std::expm1(-draws / rows); break;
    case AccessDistribution::Kind::zipf: {
      const ZipfSamples samples(rows, access.zipf_exponent);
      distinct = samples.sum([draws](double p) { return -std::expm1(-draws * p); },
                             [draws](double p) { return draws * std::exp(-draws * p); });
      break;
    }
    case AccessDistribution::Kind::hit_rate_curve: break;
  }
  return std::clamp(distinct, std::min(1.0, draws), std::min(rows, draws));
}

double cache_hit_rate(const AccessDistribution& access, double rows, double cache_rows, CacheModel model) {
  check_rows(rows, cache_rows);
  if (cache_rows >= rows) return 1.0;
  switch (access.kind) {
    case AccessDistribution::Kind::uniform:
      // Under IRM with equal popularity both LRU and a static cache hold C of N equally likely rows.
      return std::floor(cache_rows) / std::floor(rows);
    case AccessDistribution::Kind::zipf:
      return model == CacheModel::lru ? zipf_lru_hit_rate(rows, cache_rows, access.zipf_exponent)
                                      : zipf_top_k_hit_rate(rows, cache_rows, access.zipf_exponent);
    case AccessDistribution::Kind::hit_rate_curve: {
      const double fraction = cache_rows / rows;
      double x0 = 0.0;
      double y0 = 0.0;
      for (const auto& [x1, y1] : access.curve) {
        if (fraction <= x1) return y0 + (y1 - y0) * (fraction - x0) / (x1 - x0);
        x0 = x1;
        y0 = y1;
      }
      // Beyond the last point: interpolate towards (1, 1), a cache of the whole table.
      if (x0 >= 1.0) return y0;
      return y0 + (1.0 - y0) * (fraction - x0) / (1.0 - x0);
    }
  }
  return 0.0;
}

// ---------------------------------------------------------------------------------------

MissRatioCurve MissRatioCurve::from_trace(std::span<const std::uint64_t> trace) {
  // Fenwick tree over access times: a 1 at the time of each row's most recent access. The
  // stack distance of an access is the number of 1s strictly between the previous access to
  // the same row and now.
  const std::size_t n = trace.size();
  std::vector<std::uint32_t> tree(n + 1, 0);
  auto add = [&](std::size_t pos, int delta) {
    for (std::size_t i = pos + 1; i <= n; i += i & (~i + 1)) tree[i] = static_cast<std::uint32_t>(static_cast<int>(tree[i]) + delta);
  };
  auto prefix = [&](std::size_t count) {  // sum of positions [0, count)
    std::uint64_t s = 0;
    for (std::size_t i = count; i > 0; i -= i & (~i + 1)) s += tree[i];
    return s;
  };
  std::unordered_map<std::uint64_t, std::size_t> last_access;
  last_access.reserve(n);
  std::vector<std::uint64_t> histogram;
  std::uint64_t cold = 0;
  for (std::size_t t = 0; t < n; ++t) {
    auto [it, inserted] = last_access.try_emplace(trace[t], t);
    if (inserted) {
      ++cold;
    } else {
      const std::size_t previous = it->second;
      const std::uint64_t distance = prefix(t) - prefix(previous + 1);
      if (distance >= histogram.size()) histogram.resize(distance + 1, 0);
      ++histogram[distance];
      add(previous, -1);
      it->second = t;
    }
    add(t, +1);
  }
  return from_histogram(std::move(histogram), cold);
}

MissRatioCurve MissRatioCurve::from_histogram(std::vector<std::uint64_t> histogram, std::uint64_t cold_misses) {
  MissRatioCurve c;
  c.histogram_ = std::move(histogram);
  c.cold_misses_ = cold_misses;
  c.hits_up_to_.assign(c.histogram_.size() + 1, 0);
  for (std::size_t d = 0; d < c.histogram_.size(); ++d) c.hits_up_to_[d + 1] = c.hits_up_to_[d] + c.histogram_[d];
  c.accesses_ = c.hits_up_to_.back() + cold_misses;
  if (c.accesses_ == 0) throw std::invalid_argument("miss-ratio curve: the trace or histogram has no accesses");
  return c;
}

double MissRatioCurve::miss_ratio(std::uint64_t cache_rows) const {
  const std::size_t c = static_cast<std::size_t>(std::min<std::uint64_t>(cache_rows, hits_up_to_.size() - 1));
  return 1.0 - static_cast<double>(hits_up_to_[c]) / static_cast<double>(accesses_);
}

std::vector<std::pair<double, double>> MissRatioCurve::as_hit_rate_curve(std::uint64_t rows, std::size_t points) const {
  if (rows == 0) throw std::invalid_argument("miss-ratio curve: a table needs at least one row");
  std::vector<std::pair<double, double>> curve;
  points = std::max<std::size_t>(points, 2);
  std::uint64_t previous = 0;
  for (std::size_t i = 0; i < points; ++i) {
    const double f = static_cast<double>(i) / static_cast<double>(points - 1);
    const auto size = static_cast<std::uint64_t>(std::llround(std::pow(static_cast<double>(rows), f)));
    if (size <= previous) continue;
    previous = size;
    curve.emplace_back(static_cast<double>(size) / static_cast<double>(rows), hit_rate(size));
  }
  return curve;
}

}  // namespace dlrmsim::placement
