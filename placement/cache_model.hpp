// Cache hit-rate models for embedding tables read through an HBM cache (the `uvm` tier).
//
// A table of N rows is read with a skewed access distribution; an HBM cache of C rows sits
// in front of the host copy. Three ways to get the hit rate h(C):
//
//  1. Zipf closed forms under the independent reference model (IRM: each lookup draws row i
//     independently with probability p_i = i^-s / H(N, s), rows ranked by popularity):
//     - static_top_k: the cache holds the C hottest rows, h = H(C, s) / H(N, s). This is the
//       best any cache can do under IRM (and what LFU converges to); an upper bound.
//     - lru: the characteristic-time approximation of Che, Tung and Wang ("Hierarchical web
//       caching systems: modeling, design and experimental results", IEEE JSAC 20(7), 2002;
//       justified by Fricker, Robert and Roberts, "A versatile and accurate approximation for
//       LRU cache performance", ITC 2012): the characteristic time T solves
//           sum_i (1 - exp(-p_i T)) = C,   and   h = sum_i p_i (1 - exp(-p_i T)).
//     The training modes assume `lru` by default because FBGEMM's table-batched embedding
//     cache (the UVM caching that TorchRec plans for) replaces by LRU unless told otherwise
//     (`CacheAlgorithm.LRU` is the default of SplitTableBatchedEmbeddingBagsCodegen).
//     Sums over up to 10^12 rows are evaluated as an exact head (the 64 hottest ranks) plus
//     a Gauss-Legendre quadrature of the tail in log-rank space with Euler-Maclaurin end
//     corrections: within 1e-6 (relative) of the term-by-term sums for s from 0.6 to 1.3 and
//     H(N, s) within 1e-10 for s from 0 to 2 (tests/test_cache_model.cpp). About 40 us per
//     table of 10^8 rows.
//  2. A measured hit-rate curve: points (cache fraction of rows, hit rate), interpolated
//     linearly; h(0) = 0 and h(1) = 1 are implied.
//  3. An LRU miss-ratio curve from an access trace: Mattson, Gecsei, Slutz and Traiger,
//     "Evaluation techniques for storage hierarchies", IBM Systems Journal 9(2), 1970. An
//     LRU cache of C rows hits exactly the accesses whose stack distance (number of distinct
//     rows touched since the previous access to the same row) is below C, so one pass over
//     the trace gives the miss ratio for every C. Distances are counted with a Fenwick tree
//     over access times (Bennett and Kruskal, 1975): O(n log n) for a trace of n accesses.
//     A stack-distance histogram can also be given directly.
//
// Validity: IRM ignores temporal locality (bursts); real traces with locality hit more than
// IRM predicts, which is why a measured curve or trace overrides the Zipf model.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/enum_names.hpp"

namespace dlrmsim::placement {

/// How a cache replaces rows (see the header comment).
enum class CacheModel { lru, static_top_k };
inline constexpr auto kCacheModelNames =
    enum_names<CacheModel>({{CacheModel::lru, "lru"}, {CacheModel::static_top_k, "static_top_k"}});
inline std::string_view to_string(CacheModel m) { return kCacheModelNames.name(m); }
/// Parses "lru" or "static_top_k"; throws std::invalid_argument otherwise.
CacheModel cache_model_from_string(std::string_view name);

/// How a table's rows are accessed.
struct AccessDistribution {
  enum class Kind { uniform, zipf, hit_rate_curve };
  Kind kind = Kind::uniform;
  double zipf_exponent = 0.0;  // s >= 0 (Kind::zipf)
  /// Kind::hit_rate_curve: (cache size as a fraction of the table's rows, hit rate), both in
  /// [0, 1], fractions strictly increasing, hit rates non-decreasing.
  std::vector<std::pair<double, double>> curve;
  /// Whether id k is the k-th most frequent row (models::AccessSkew::IdOrder::by_frequency).
  bool ids_by_frequency = false;

  static AccessDistribution uniform() { return {}; }
  static AccessDistribution zipf(double exponent);
  /// Validates the points (throws std::invalid_argument naming the bad point).
  static AccessDistribution hit_rate(std::vector<std::pair<double, double>> points);
};

/// Generalised harmonic number H(n, s) = sum_{i=1..n} i^-s (n up to 10^15).
double generalized_harmonic(double n, double s);

/// Hit rate of a static cache of the `cache_rows` hottest of `rows` Zipf(s) rows.
double zipf_top_k_hit_rate(double rows, double cache_rows, double s);

/// Hit rate of an LRU cache of `cache_rows` rows over `rows` Zipf(s) rows (Che approximation).
double zipf_lru_hit_rate(double rows, double cache_rows, double s);

/// Che approximation for an explicit popularity vector (need not be normalised or sorted).
double lru_hit_rate_che(std::span<const double> popularity, double cache_rows);
/// Static top-k hit rate for an explicit popularity vector.
double top_k_hit_rate(std::span<const double> popularity, double cache_rows);

/// Expected hit rate of a cache of `cache_rows` rows in front of a table of `rows` rows.
double cache_hit_rate(const AccessDistribution& access, double rows, double cache_rows, CacheModel model);

/// Expected number of distinct rows among `draws` independent accesses to a table of `rows`
/// rows: sum over rows of 1 - exp(-draws p_i) (the Poisson form of 1 - (1 - p_i)^draws, the
/// same occupancy sum as Che's approximation). Uniform: rows (1 - exp(-draws / rows)). A
/// measured hit-rate curve does not give row popularities: every draw counts as distinct (an
/// upper bound).
double expected_distinct_rows(const AccessDistribution& access, double rows, double draws);

/// LRU miss ratio for every cache size, from stack distances (Mattson et al. 1970).
class MissRatioCurve {
 public:
  /// Builds the curve from a trace of row ids (any 64-bit ids).
  static MissRatioCurve from_trace(std::span<const std::uint64_t> trace);
  /// Builds it from a stack-distance histogram: histogram[d] accesses had distance d (d
  /// distinct other rows touched since the previous access to the same row), plus
  /// `cold_misses` first-time accesses (which miss in any cache).
  static MissRatioCurve from_histogram(std::vector<std::uint64_t> histogram, std::uint64_t cold_misses);

  /// Fraction of accesses that miss in an LRU cache of `cache_rows` rows.
  [[nodiscard]] double miss_ratio(std::uint64_t cache_rows) const;
  [[nodiscard]] double hit_rate(std::uint64_t cache_rows) const { return 1.0 - miss_ratio(cache_rows); }
  [[nodiscard]] std::uint64_t accesses() const { return accesses_; }
  [[nodiscard]] std::uint64_t cold_misses() const { return cold_misses_; }
  /// Stack-distance histogram (index = distance).
  [[nodiscard]] const std::vector<std::uint64_t>& histogram() const { return histogram_; }
  /// The curve as hit-rate points over cache fractions of a table of `rows` rows, at
  /// `points` sizes spaced geometrically (for AccessDistribution::hit_rate).
  [[nodiscard]] std::vector<std::pair<double, double>> as_hit_rate_curve(std::uint64_t rows,
                                                                          std::size_t points = 64) const;

 private:
  std::vector<std::uint64_t> histogram_;
  std::vector<std::uint64_t> hits_up_to_;  // hits_up_to_[c] = accesses with distance < c
  std::uint64_t cold_misses_ = 0;
  std::uint64_t accesses_ = 0;
};

}  // namespace dlrmsim::placement
