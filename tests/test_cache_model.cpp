// Cache hit-rate models of the uvm tier (placement/cache_model.hpp): Zipf closed forms,
// the Che approximation for LRU, Mattson stack distances, checked against direct sums and
// brute-force LRU simulations.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <cmath>
#include <algorithm>
#include <cstdint>
#include <list>
#include <random>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "placement/cache_model.hpp"

using namespace dlrmsim::placement;

namespace {

double direct_harmonic(std::int64_t n, double s) {
  double sum = 0.0;
  for (std::int64_t i = n; i >= 1; --i) sum += std::pow(static_cast<double>(i), -s);
  return sum;
}

// Misses of an LRU cache of `capacity` rows over `trace`, by direct simulation (a recency list).
std::uint64_t brute_force_lru_misses(const std::vector<std::uint64_t>& trace, std::size_t capacity,
                                     std::size_t skip = 0, std::uint64_t* counted = nullptr) {
  std::list<std::uint64_t> recency;  // front = most recent
  std::unordered_map<std::uint64_t, std::list<std::uint64_t>::iterator> where;
  std::uint64_t misses = 0;
  std::uint64_t n = 0;
  for (std::size_t t = 0; t < trace.size(); ++t) {
    const std::uint64_t id = trace[t];
    auto it = where.find(id);
    const bool hit = it != where.end();
    if (t >= skip) {
      ++n;
      if (!hit) ++misses;
    }
    if (hit) {
      recency.erase(it->second);
    } else if (capacity > 0 && recency.size() == capacity) {
      where.erase(recency.back());
      recency.pop_back();
    }
    if (capacity > 0) {
      recency.push_front(id);
      where[id] = recency.begin();
    }
  }
  if (counted) *counted = n;
  return misses;
}

// A trace drawn under the independent reference model from Zipf(s) over `rows` rows. Uses
// std::mt19937_64 (its output sequence is fixed by the C++ standard) and an explicit inverse
// CDF, so the trace is the same on every platform.
std::vector<std::uint64_t> zipf_trace(std::size_t rows, double s, std::size_t length, std::uint64_t seed) {
  std::vector<double> cdf(rows);
  double total = 0.0;
  for (std::size_t i = 0; i < rows; ++i) cdf[i] = (total += std::pow(static_cast<double>(i + 1), -s));
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> trace(length);
  for (auto& x : trace) {
    const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53 * total;
    x = static_cast<std::uint64_t>(std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
    if (x >= rows) x = rows - 1;
  }
  return trace;
}

}  // namespace

// H(n, s) by head + Euler-Maclaurin tail against the direct sum over a million terms, for
// exponents on both sides of 1 and at 1 itself (where the closed-form integral is a log).
TEST_CASE("generalized harmonic numbers match direct sums") {
  for (double s : {0.0, 0.5, 0.99, 1.0, 1.01, 1.5, 2.0}) {
    CAPTURE(s);
    const double exact = direct_harmonic(1'000'000, s);
    CHECK(generalized_harmonic(1e6, s) == dlrmsim::rel(exact).epsilon(1e-10));
  }
  CHECK(generalized_harmonic(200, 1.0) == dlrmsim::rel(direct_harmonic(200, 1.0)).epsilon(1e-14));
}

// For s = 1, H(n) = ln n + gamma + 1/(2n) - 1/(12 n^2) + ... (Euler's asymptotic expansion);
// at n = 10^12 the remaining terms are below 1e-24.
TEST_CASE("generalized harmonic number at 10^12 rows follows Euler's expansion") {
  const double n = 1e12;
  const double gamma = 0.57721566490153286;
  CHECK(generalized_harmonic(n, 1.0) == dlrmsim::rel(std::log(n) + gamma + 0.5 / n).epsilon(1e-12));
  // s = 0 counts the rows.
  CHECK(generalized_harmonic(n, 0.0) == dlrmsim::rel(n).epsilon(1e-12));
}

// A static cache of the k hottest rows hits with probability H(k, s) / H(N, s); for s = 0 this
// is k / N exactly, and for s > 0 it is far above k / N.
TEST_CASE("static top-k hit rate is the Zipf head mass") {
  CHECK(zipf_top_k_hit_rate(1000, 250, 0.0) == dlrmsim::rel(0.25).epsilon(1e-12));
  const double expected = direct_harmonic(1000, 1.0) / direct_harmonic(1'000'000, 1.0);
  CHECK(zipf_top_k_hit_rate(1e6, 1000, 1.0) == dlrmsim::rel(expected).epsilon(1e-10));
  CHECK(zipf_top_k_hit_rate(1e6, 0, 1.0) == 0.0);
  CHECK(zipf_top_k_hit_rate(1e6, 2e6, 1.0) == 1.0);
}

// The Zipf form of Che's approximation (exact head, integrated tail) against the same
// approximation summed term by term over an explicit popularity vector of 200,000 rows.
TEST_CASE("Zipf LRU hit rate (Che) matches the term-by-term Che sum") {
  const std::size_t rows = 200'000;
  for (double s : {0.6, 1.0, 1.3}) {
    std::vector<double> popularity(rows);
    for (std::size_t i = 0; i < rows; ++i) popularity[i] = std::pow(static_cast<double>(i + 1), -s);
    for (double cache : {100.0, 5'000.0, 50'000.0}) {
      CAPTURE(s);
      CAPTURE(cache);
      CHECK(zipf_lru_hit_rate(static_cast<double>(rows), cache, s) ==
            dlrmsim::rel(lru_hit_rate_che(popularity, cache)).epsilon(1e-6));
    }
  }
}

// Distinct rows among L independent draws: the closed form for uniform access, and for Zipf the
// exact Poisson sum over 200,000 rows, sum (1 - exp(-L p_i)); never more than L or the rows.
// A measured hit-rate curve gives no popularities, so every draw counts (an upper bound).
TEST_CASE("expected distinct rows among the lookups of a step") {
  CHECK(expected_distinct_rows(AccessDistribution::uniform(), 1e6, 524'288.0) ==
        dlrmsim::rel(1e6 * -std::expm1(-0.524288)));
  const std::size_t rows = 200'000;
  for (double s : {0.6, 1.05, 1.3}) {
    std::vector<double> p(rows);
    double norm = 0.0;
    for (std::size_t i = 0; i < rows; ++i) norm += p[i] = std::pow(static_cast<double>(i + 1), -s);
    for (double draws : {100.0, 55'296.0, 2e6}) {
      double exact = 0.0;
      for (double q : p) exact += -std::expm1(-draws * q / norm);
      CAPTURE(s);
      CAPTURE(draws);
      CHECK(expected_distinct_rows(AccessDistribution::zipf(s), static_cast<double>(rows), draws) ==
            dlrmsim::rel(exact).epsilon(1e-6));
    }
  }
  CHECK(expected_distinct_rows(AccessDistribution::zipf(1.05), 3.0, 55'296.0) == dlrmsim::rel(3.0));
  CHECK(expected_distinct_rows(AccessDistribution::hit_rate({{0.1, 0.5}}), 1e6, 1000.0) == 1000.0);
  CHECK(expected_distinct_rows(AccessDistribution::uniform(), 1e6, 0.0) == 0.0);
  CHECK_THROWS_AS((void)expected_distinct_rows(AccessDistribution::uniform(), 1e6, -1.0), std::invalid_argument);
}

// Che's approximation against a brute-force LRU simulation of an IRM Zipf(0.9) trace of
// 400,000 accesses over 2,000 rows (first 20,000 accesses warm the cache). Fricker, Robert
// and Roberts (ITC 2012) report errors well below 1 % for Zipf popularity; the sampling
// error of the simulated hit rate is about 0.001, so 0.01 absolute is a meaningful bound.
TEST_CASE("LRU hit rate from the Zipf closed form matches a brute-force LRU simulation") {
  const std::size_t rows = 2000;
  const double s = 0.9;
  const auto trace = zipf_trace(rows, s, 400'000, 42);
  for (std::size_t cache : {50, 200, 800}) {
    std::uint64_t counted = 0;
    const auto misses = brute_force_lru_misses(trace, cache, 20'000, &counted);
    const double simulated = 1.0 - static_cast<double>(misses) / static_cast<double>(counted);
    CAPTURE(cache);
    CHECK(std::abs(zipf_lru_hit_rate(static_cast<double>(rows), static_cast<double>(cache), s) - simulated) < 0.01);
    // LRU can never beat the best static cache under IRM.
    CHECK(zipf_top_k_hit_rate(static_cast<double>(rows), static_cast<double>(cache), s) >=
          zipf_lru_hit_rate(static_cast<double>(rows), static_cast<double>(cache), s));
  }
}

// Mattson's stack-distance curve gives, for every cache size at once, exactly the misses
// of an LRU cache simulated separately at that size (both count the cold misses).
TEST_CASE("Mattson miss-ratio curve equals brute-force LRU at every cache size") {
  const auto trace = zipf_trace(300, 0.8, 5000, 7);
  const auto curve = MissRatioCurve::from_trace(trace);
  CHECK(curve.accesses() == trace.size());
  for (std::size_t c = 0; c <= 310; ++c) {
    CAPTURE(c);
    const auto misses = brute_force_lru_misses(trace, c);
    CHECK(curve.miss_ratio(c) == dlrmsim::rel(static_cast<double>(misses) / trace.size()).epsilon(1e-15));
  }
}

// The cyclic trace a b c a b c: the second round has stack distance 2 for every access, so
// an LRU cache of 2 rows misses everything and one of 3 rows hits the second round.
TEST_CASE("stack distances of a cyclic trace") {
  const std::vector<std::uint64_t> trace{1, 2, 3, 1, 2, 3};
  const auto curve = MissRatioCurve::from_trace(trace);
  CHECK(curve.cold_misses() == 3);
  REQUIRE(curve.histogram().size() == 3);
  CHECK(curve.histogram()[2] == 3);
  CHECK(curve.miss_ratio(2) == 1.0);
  CHECK(curve.miss_ratio(3) == 0.5);
  // The same curve from its histogram.
  const auto same = MissRatioCurve::from_histogram({0, 0, 3}, 3);
  CHECK(same.miss_ratio(3) == 0.5);
  CHECK_THROWS_AS(MissRatioCurve::from_histogram({}, 0), std::invalid_argument);
}

// Uniform popularity: C of N equally likely rows hit with probability C / N (any policy).
TEST_CASE("uniform access hit rate is the cached fraction") {
  for (auto model : {CacheModel::lru, CacheModel::static_top_k}) {
    CHECK(cache_hit_rate(AccessDistribution::uniform(), 1e6, 2e5, model) == dlrmsim::rel(0.2));
  }
}

// A measured curve is interpolated linearly, through (0, 0) below its first point and
// towards (1, 1) beyond its last; bad curves are refused with the offending point named.
TEST_CASE("hit-rate curves are interpolated and validated") {
  const auto curve = AccessDistribution::hit_rate({{0.1, 0.6}, {0.5, 0.9}});
  CHECK(cache_hit_rate(curve, 1000, 50, CacheModel::lru) == dlrmsim::rel(0.3));
  CHECK(cache_hit_rate(curve, 1000, 300, CacheModel::lru) == dlrmsim::rel(0.75));
  CHECK(cache_hit_rate(curve, 1000, 750, CacheModel::lru) == dlrmsim::rel(0.95));
  CHECK_THROWS_WITH_AS(AccessDistribution::hit_rate({{0.5, 0.9}, {0.1, 0.95}}), doctest::Contains("point 1"),
                       std::invalid_argument);
  CHECK_THROWS_AS(AccessDistribution::hit_rate({{0.1, 1.5}}), std::invalid_argument);
  CHECK_THROWS_AS(AccessDistribution::zipf(-1.0), std::invalid_argument);
}

// A miss-ratio curve turned into hit-rate points reproduces the trace's LRU hit rate at
// the sizes it samples (below the whole table: a cache of every row always hits).
TEST_CASE("miss-ratio curve as a hit-rate curve") {
  const auto trace = zipf_trace(1000, 1.0, 20'000, 3);
  const auto mrc = MissRatioCurve::from_trace(trace);
  const auto points = mrc.as_hit_rate_curve(1000, 32);
  const auto access = AccessDistribution::hit_rate(points);
  CHECK(points.size() > 16);
  for (const auto& [fraction, hit] : points) {
    if (fraction >= 1.0) continue;
    CHECK(cache_hit_rate(access, 1000, fraction * 1000, CacheModel::lru) == dlrmsim::rel(hit));
    CHECK(hit == dlrmsim::rel(mrc.hit_rate(static_cast<std::uint64_t>(std::llround(fraction * 1000)))));
  }
}
