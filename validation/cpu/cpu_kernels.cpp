#include "validation/cpu/cpu_kernels.hpp"
#include "validation/cpu/cpu_raw_measurements.hpp"

#include <Eigen/Core>

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <thread>

#if defined(__F16C__)
#include <immintrin.h>
#endif

namespace dlrmsim::cpu_calibration {

namespace {

constexpr float kLearningRate = 0.01f;

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// A value in [-0.5, 0.5) from (seed, index): inputs are reproducible without storing them.
float input_value(std::uint64_t seed, std::uint64_t index) {
  return static_cast<float>(splitmix64(seed * 0x100000001b3ULL + index) >> 40) / 16777216.0f - 0.5f;
}

/// Counter-based uniform integer in [0, bound).
std::uint64_t uniform_index(std::uint64_t seed, std::uint64_t index, std::uint64_t bound) {
  return splitmix64(seed ^ (index * 0xd1b54a32d192ed03ULL)) % bound;
}

/// [begin, end) of part `t` of `n` items split into `parts` contiguous shares.
std::pair<std::size_t, std::size_t> share(std::size_t n, int t, int parts) {
  const auto p = static_cast<std::size_t>(parts), i = static_cast<std::size_t>(t);
  return {n * i / p, n * (i + 1) / p};
}

void require(bool ok, const std::string& what) {
  if (!ok) throw CheckFailed(what);
}

void check_close(double got, double want, double tolerance, const std::string& what) {
  if (!(std::fabs(got - want) <= tolerance * std::max(1.0, std::fabs(want)))) {
    throw CheckFailed(what + ": got " + std::to_string(got) + ", reference " + std::to_string(want));
  }
}

/// Runs body(thread, threads) on `threads` threads for warmup + repeats rounds (see the header).
Timing time_rounds(int threads, const TimingOptions& options, const std::function<void(int, int)>& body) {
  if (threads < 1) throw std::invalid_argument("threads must be at least 1");
  const int rounds = options.warmup + options.repeats;
  std::vector<double> times(static_cast<std::size_t>(std::max(options.repeats, 0)));
  std::barrier sync(threads);
  const auto run = [&](int t) {
    for (int r = 0; r < rounds; ++r) {
      sync.arrive_and_wait();
      const auto start = std::chrono::steady_clock::now();
      body(t, threads);
      sync.arrive_and_wait();
      if (t == 0 && r >= options.warmup) {
        times[static_cast<std::size_t>(r - options.warmup)] =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      }
    }
  };
  std::vector<std::thread> workers;
  for (int t = 1; t < threads; ++t) workers.emplace_back(run, t);
  run(0);
  for (std::thread& w : workers) w.join();
  Timing timing;
  timing.repeats = options.repeats;
  if (times.empty()) return timing;
  std::sort(times.begin(), times.end());
  const std::size_t n = times.size();
  timing.median_seconds = n % 2 == 1 ? times[n / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]);
  timing.min_seconds = times.front();
  timing.max_seconds = times.back();
  return timing;
}

// --- GEMM --------------------------------------------------------------------------------

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic>;

Matrix input_matrix(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  Matrix a(rows, cols);
  for (std::int64_t j = 0; j < cols; ++j) {
    for (std::int64_t i = 0; i < rows; ++i) a(i, j) = input_value(seed, static_cast<std::uint64_t>(j * rows + i));
  }
  return a;
}

void gemm_share(const Matrix& a, const Matrix& b, Matrix& c, int t, int threads) {
  const auto [c0, c1] = share(static_cast<std::size_t>(b.cols()), t, threads);
  const auto first = static_cast<Eigen::Index>(c0), count = static_cast<Eigen::Index>(c1 - c0);
  if (count > 0) c.middleCols(first, count).noalias() = a * b.middleCols(first, count);
}

/// Compares entries of C (all of them for small products, a sample otherwise) with double sums.
void check_gemm(const Matrix& a, const Matrix& b, const Matrix& c, std::uint64_t seed) {
  const std::int64_t m = a.rows(), n = b.cols(), k = a.cols();
  const std::int64_t samples = std::min<std::int64_t>(m * n, 256);
  for (std::int64_t s = 0; s < samples; ++s) {
    const std::int64_t i = samples == m * n ? s % m : static_cast<std::int64_t>(uniform_index(seed, static_cast<std::uint64_t>(s), static_cast<std::uint64_t>(m)));
    const std::int64_t j = samples == m * n ? s / m : static_cast<std::int64_t>(uniform_index(seed + 1, static_cast<std::uint64_t>(s), static_cast<std::uint64_t>(n)));
    double want = 0.0, magnitude = 0.0;
    for (std::int64_t l = 0; l < k; ++l) {
      want += static_cast<double>(a(i, l)) * b(l, j);
      magnitude += std::fabs(static_cast<double>(a(i, l)) * b(l, j));
    }
    // fp32 accumulation of k products: error grows like sqrt(k) ulps of the magnitude.
    const double tolerance = 1e-6 * std::sqrt(static_cast<double>(k)) * 8.0 * std::max(1.0, magnitude);
    if (!(std::fabs(c(i, j) - want) <= tolerance)) {
      throw CheckFailed("gemm " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + ": C(" +
                        std::to_string(i) + "," + std::to_string(j) + ") = " + std::to_string(c(i, j)) +
                        ", reference " + std::to_string(want));
    }
  }
}

// --- rows ----------------------------------------------------------------------------------

/// Sum-pools bags [b0, b1) of `pooling` rows each into `out` (dim floats per bag).
void gather_bags(const float* table, std::size_t dim, const std::uint32_t* ids, int pooling, std::size_t b0,
                 std::size_t b1, float* out) {
  const auto p = static_cast<std::size_t>(pooling);
  for (std::size_t b = b0; b < b1; ++b) {
    float* o = out + b * dim;
    const float* first = table + static_cast<std::size_t>(ids[b * p]) * dim;
    for (std::size_t d = 0; d < dim; ++d) o[d] = first[d];
    for (std::size_t l = 1; l < p; ++l) {
      const float* row = table + static_cast<std::size_t>(ids[b * p + l]) * dim;
      for (std::size_t d = 0; d < dim; ++d) o[d] += row[d];
    }
  }
}

/// row += lr x grad(bag) for every lookup of bags [b0, b1).
void update_bags(float* table, std::size_t dim, const std::uint32_t* ids, int pooling, std::size_t b0, std::size_t b1,
                 const float* grad) {
  const auto p = static_cast<std::size_t>(pooling);
  for (std::size_t b = b0; b < b1; ++b) {
    const float* g = grad + b * dim;
    for (std::size_t l = 0; l < p; ++l) {
      float* row = table + static_cast<std::size_t>(ids[b * p + l]) * dim;
      for (std::size_t d = 0; d < dim; ++d) row[d] += kLearningRate * g[d];
    }
  }
}

/// Uniform ids: for the gather over the whole table; for the update thread t's bags draw from
/// thread t's slice of rows (`sliced`).
std::vector<std::uint32_t> make_ids(std::size_t lookups, std::size_t rows, int pooling, int threads, bool sliced,
                                    std::uint64_t seed) {
  std::vector<std::uint32_t> ids(lookups);
  const std::size_t bags = lookups / static_cast<std::size_t>(pooling);
  for (int t = 0; t < threads; ++t) {
    const auto [b0, b1] = share(bags, t, threads);
    const auto [r0, r1] = sliced ? share(rows, t, threads) : std::pair<std::size_t, std::size_t>{0, rows};
    for (std::size_t i = b0 * static_cast<std::size_t>(pooling); i < b1 * static_cast<std::size_t>(pooling); ++i) {
      ids[i] = static_cast<std::uint32_t>(r0 + uniform_index(seed, i, r1 - r0));
    }
  }
  return ids;
}

void check_row_size(std::size_t row_bytes, std::size_t table_bytes) {
  if (row_bytes == 0 || row_bytes % sizeof(float) != 0) throw std::invalid_argument("row bytes must be a positive multiple of 4");
  if (table_bytes / row_bytes > std::numeric_limits<std::uint32_t>::max()) {
    throw std::invalid_argument("too many rows for 32-bit ids");
  }
}

void check_gather_and_update(std::uint64_t seed) {
  // 64 rows of 8 floats, 16 bags of 3 (ids repeat, so the update's order of application matters).
  const std::size_t dim = 8, rows = 64, pooling = 3, bags = 16;
  std::vector<float> table(rows * dim);
  for (std::size_t i = 0; i < table.size(); ++i) table[i] = input_value(seed, i);
  std::vector<std::uint32_t> ids(bags * pooling);
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<std::uint32_t>(uniform_index(seed, i, rows));
  std::vector<float> out(bags * dim);
  gather_bags(table.data(), dim, ids.data(), static_cast<int>(pooling), 0, bags, out.data());
  for (std::size_t b = 0; b < bags; ++b) {
    for (std::size_t d = 0; d < dim; ++d) {
      double want = 0.0;
      for (std::size_t l = 0; l < pooling; ++l) want += table[ids[b * pooling + l] * dim + d];
      check_close(out[b * dim + d], want, 1e-6, "gather bag " + std::to_string(b) + " element " + std::to_string(d));
    }
  }
  std::vector<float> grad(bags * dim), expected(table.begin(), table.end());
  for (std::size_t i = 0; i < grad.size(); ++i) grad[i] = input_value(seed + 7, i);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    for (std::size_t d = 0; d < dim; ++d) expected[ids[i] * dim + d] += kLearningRate * grad[(i / pooling) * dim + d];
  }
  update_bags(table.data(), dim, ids.data(), static_cast<int>(pooling), 0, bags, grad.data());
  for (std::size_t i = 0; i < table.size(); ++i) check_close(table[i], expected[i], 1e-6, "update element " + std::to_string(i));
}

// --- hash map ------------------------------------------------------------------------------

/// Open addressing with linear probing over a power-of-two array of (key, value) slots of
/// 16 bytes (8-byte key, 4-byte value, padding: the layout of a Rust hashbrown HashMap<u64,
/// u32>'s buckets). The all-ones key marks an empty slot. Keys are hashed by the splitmix64
/// finaliser.
class FlatIdMap {
 public:
  explicit FlatIdMap(std::size_t keys) {
    std::size_t capacity = 16;
    while (capacity < 2 * keys) capacity *= 2;  // load factor at most 1/2
    slots_.assign(capacity, Slot{kEmpty, 0, 0});
    mask_ = capacity - 1;
  }
  void insert(std::uint64_t key, std::uint32_t value) {
    if (key == kEmpty) throw std::invalid_argument("the all-ones key is reserved");
    for (std::size_t i = splitmix64(key) & mask_;; i = (i + 1) & mask_) {
      if (slots_[i].key == kEmpty || slots_[i].key == key) {
        slots_[i] = Slot{key, value, 0};
        return;
      }
    }
  }
  /// The value of `key`, or -1 when absent.
  [[nodiscard]] std::int64_t find(std::uint64_t key) const {
    for (std::size_t i = splitmix64(key) & mask_;; i = (i + 1) & mask_) {
      if (slots_[i].key == key) return slots_[i].value;
      if (slots_[i].key == kEmpty) return -1;
    }
  }

 private:
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  struct Slot {
    std::uint64_t key;
    std::uint32_t value;
    std::uint32_t padding;
  };
  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
};

/// The id stored for row index i (distinct for distinct i, never the all-ones key).
std::uint64_t id_of(std::size_t i, std::uint64_t seed) { return splitmix64(seed + 0x5bd1e995ULL * (i + 1)) >> 1; }

void hash_update_range(const FlatIdMap& map, float* table, std::size_t dim, std::size_t rows,
                       const std::uint64_t* queries, std::size_t q0, std::size_t q1, const float* grad) {
  for (std::size_t q = q0; q < q1; ++q) {
    const std::int64_t value = map.find(queries[q]);
    if (value < 0) continue;
    float* row = table + (static_cast<std::size_t>(value) % rows) * dim;
    const float* g = grad + (q & 1023) * dim;
    for (std::size_t d = 0; d < dim; ++d) row[d] += kLearningRate * g[d];
  }
}

void check_hash_map(std::uint64_t seed) {
  const std::size_t keys = 1000, dim = 4, rows = 1000;
  FlatIdMap map(keys);
  for (std::size_t i = 0; i < keys; ++i) map.insert(id_of(i, seed), static_cast<std::uint32_t>(i));
  for (std::size_t i = 0; i < keys; ++i) {
    require(map.find(id_of(i, seed)) == static_cast<std::int64_t>(i), "hash map: key " + std::to_string(i) + " not found with its value");
  }
  for (std::size_t i = keys; i < keys + 100; ++i) require(map.find(id_of(i, seed)) == -1, "hash map: an absent key was found");
  std::vector<float> table(rows * dim, 0.0f), grad(1024 * dim), expected(rows * dim, 0.0f);
  for (std::size_t i = 0; i < grad.size(); ++i) grad[i] = input_value(seed, i);
  std::vector<std::uint64_t> queries(3000);
  for (std::size_t q = 0; q < queries.size(); ++q) {
    const std::size_t i = uniform_index(seed, q, keys);
    queries[q] = id_of(i, seed);
    for (std::size_t d = 0; d < dim; ++d) expected[i * dim + d] += kLearningRate * grad[(q & 1023) * dim + d];
  }
  hash_update_range(map, table.data(), dim, rows, queries.data(), 0, queries.size(), grad.data());
  for (std::size_t i = 0; i < table.size(); ++i) check_close(table[i], expected[i], 1e-6, "hash update element " + std::to_string(i));
}

// --- conversion, copies, calls -------------------------------------------------------------

/// fp32 -> fp16, round to nearest even: F16C's vcvtps2ph, 8 values per instruction, where the
/// kernels are compiled for it (x86-64 since 2012), else the scalar reference.
void convert_range(const float* in, std::uint16_t* out, std::size_t i0, std::size_t i1) {
  std::size_t i = i0;
#if defined(__F16C__)
  for (; i + 8 <= i1; i += 8) {
    const __m128i half = _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), half);
  }
#endif
  for (; i < i1; ++i) out[i] = reference_fp16_bits(in[i]);
}

void check_convert(std::uint64_t seed) {
  std::vector<float> in = {0.0f, -0.0f, 1.0f, -2.5f, 65504.0f, 65520.0f, 1e-8f, 6.0e-5f, 3.0e-7f,
                           std::numeric_limits<float>::infinity(), 1.0f + 1.0f / 2048.0f, 1.0f + 3.0f / 2048.0f};
  for (std::size_t i = 0; i < 4096; ++i) in.push_back(input_value(seed, i) * 1000.0f);
  std::vector<std::uint16_t> out(in.size());
  convert_range(in.data(), out.data(), 0, in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    require(out[i] == reference_fp16_bits(in[i]),
            "fp16 conversion of " + std::to_string(in[i]) + ": bits " + std::to_string(out[i]) + ", reference " +
                std::to_string(reference_fp16_bits(in[i])));
  }
}

[[gnu::noinline]] void tiny_operation(std::uint64_t& accumulator, std::uint64_t x) { accumulator += x; }

std::uint64_t call_loop(std::size_t calls) {
  // Through a volatile pointer the compiler can neither inline nor hoist the call.
  void (*volatile operation)(std::uint64_t&, std::uint64_t) = &tiny_operation;
  std::uint64_t accumulator = 0;
  for (std::size_t i = 0; i < calls; ++i) operation(accumulator, i);
  return accumulator;
}

}  // namespace

// --- public --------------------------------------------------------------------------------

std::uint16_t reference_fp16_bits(float value) {
  std::uint32_t f;
  std::memcpy(&f, &value, sizeof f);
  const std::uint32_t sign = (f >> 16) & 0x8000u;
  const std::uint32_t exponent = (f >> 23) & 0xffu;
  std::uint32_t mantissa = f & 0x7fffffu;
  if (exponent == 0xffu) return static_cast<std::uint16_t>(sign | 0x7c00u | (mantissa ? 0x200u : 0u));
  const int e = static_cast<int>(exponent) - 127 + 15;
  if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return static_cast<std::uint16_t>(sign);
    mantissa |= 0x800000u;  // implicit bit
    const int shift = 14 - e;
    std::uint32_t half = mantissa >> shift;
    const std::uint32_t rest = mantissa & ((1u << shift) - 1u), midpoint = 1u << (shift - 1);
    if (rest > midpoint || (rest == midpoint && (half & 1u))) ++half;
    return static_cast<std::uint16_t>(sign | half);
  }
  std::uint32_t half = (static_cast<std::uint32_t>(e) << 10) | (mantissa >> 13);
  const std::uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;  // may carry into the exponent: correct
  return static_cast<std::uint16_t>(sign | half);
}

std::string compiled_isa() {
  std::string isa;
  const auto add = [&](const char* name) { isa += (isa.empty() ? "" : " ") + std::string(name); };
#if defined(__AVX512F__)
  add("avx512f");
#endif
#if defined(__AVX2__)
  add("avx2");
#endif
#if defined(__FMA__)
  add("fma");
#endif
#if defined(__F16C__)
  add("f16c");
#endif
#if defined(__ARM_NEON)
  add("neon");
#endif
#if defined(__SSE2__)
  if (isa.empty()) add("sse2");
#endif
  return isa.empty() ? "generic" : isa;
}

RowTable::RowTable(std::size_t table_bytes) : data_(table_bytes / sizeof(float)) {
  // Written once, so that every page is resident before timing (not zero pages shared by the OS).
  for (std::size_t i = 0; i < data_.size(); ++i) data_[i] = static_cast<float>(i & 1023) * (1.0f / 1024.0f) - 0.5f;
}

Timing time_gemm(std::int64_t m, std::int64_t n, std::int64_t k, int threads, const TimingOptions& options) {
  if (m < 1 || n < 1 || k < 1) throw std::invalid_argument("GEMM extents must be positive");
  const Matrix a = input_matrix(m, k, options.seed), b = input_matrix(k, n, options.seed + 1);
  Matrix c(m, n);
  for (int t = 0; t < threads; ++t) gemm_share(a, b, c, t, threads);
  check_gemm(a, b, c, options.seed);
  return time_rounds(threads, options, [&](int t, int parts) { gemm_share(a, b, c, t, parts); });
}

namespace {

/// What a gather and an update of `lookups` rows in bags of `pooling` share: the checks, the
/// row width and the ids (`for_update`: the ids an update pass draws, see make_ids).
struct BagWork {
  std::size_t dim = 0;
  std::size_t bags = 0;
  std::vector<std::uint32_t> ids;
};

BagWork bag_work(RowTable& table, std::size_t row_bytes, int pooling, std::size_t lookups, int threads,
                 bool for_update, const TimingOptions& options) {
  check_row_size(row_bytes, table.bytes());
  if (pooling < 1 || lookups < static_cast<std::size_t>(pooling)) throw std::invalid_argument("bad pooling or lookups");
  check_gather_and_update(options.seed);
  BagWork w;
  w.dim = row_bytes / sizeof(float);
  w.bags = lookups / static_cast<std::size_t>(pooling);
  w.ids = make_ids(w.bags * static_cast<std::size_t>(pooling), table.rows(row_bytes), pooling, threads, for_update,
                   options.seed);
  return w;
}

}  // namespace

Timing time_gather(RowTable& table, std::size_t row_bytes, int pooling, std::size_t lookups, int threads,
                   const TimingOptions& options) {
  const auto [dim, bags, ids] = bag_work(table, row_bytes, pooling, lookups, threads, false, options);
  std::vector<float> out(bags * dim);
  return time_rounds(threads, options, [&](int t, int parts) {
    const auto [b0, b1] = share(bags, t, parts);
    gather_bags(table.data(), dim, ids.data(), pooling, b0, b1, out.data());
  });
}

Timing time_update(RowTable& table, std::size_t row_bytes, int pooling, std::size_t lookups, int threads,
                   const TimingOptions& options) {
  const auto [dim, bags, ids] = bag_work(table, row_bytes, pooling, lookups, threads, true, options);
  std::vector<float> grad(bags * dim);
  for (std::size_t i = 0; i < grad.size(); ++i) grad[i] = input_value(options.seed + 3, i) * 1e-3f;
  return time_rounds(threads, options, [&](int t, int parts) {
    const auto [b0, b1] = share(bags, t, parts);
    update_bags(table.data(), dim, ids.data(), pooling, b0, b1, grad.data());
  });
}

std::vector<Timing> time_hash_updates(RowTable& table, const std::vector<std::size_t>& row_bytes, std::size_t keys,
                                      std::size_t lookups, int threads, const TimingOptions& options) {
  if (keys < 1 || lookups < 1) throw std::invalid_argument("keys and lookups must be positive");
  if (keys > std::numeric_limits<std::uint32_t>::max()) throw std::invalid_argument("too many keys for 32-bit values");
  check_hash_map(options.seed);
  FlatIdMap map(keys);
  for (std::size_t i = 0; i < keys; ++i) map.insert(id_of(i, options.seed), static_cast<std::uint32_t>(i));
  std::vector<Timing> timings;
  for (std::size_t row : row_bytes) {
    check_row_size(row, table.bytes());
    const std::size_t dim = row / sizeof(float), rows = table.rows(row);
    // Thread t's queries are ids whose row (index mod rows) lies in its slice of min(keys, rows) rows.
    const std::size_t used_rows = std::min(keys, rows), wraps = (keys + rows - 1) / rows;
    std::vector<std::uint64_t> queries(lookups);
    for (int t = 0; t < threads; ++t) {
      const auto [q0, q1] = share(lookups, t, threads);
      const auto [r0, r1] = share(used_rows, t, threads);
      for (std::size_t q = q0; q < q1; ++q) {
        std::size_t i = r0 + uniform_index(options.seed, q, r1 - r0) + rows * uniform_index(options.seed + 5, q, wraps);
        if (i >= keys) i = r0 + uniform_index(options.seed, q, r1 - r0);
        queries[q] = id_of(i, options.seed);
      }
    }
    std::vector<float> grad(1024 * dim);
    for (std::size_t i = 0; i < grad.size(); ++i) grad[i] = input_value(options.seed + 3, i) * 1e-3f;
    timings.push_back(time_rounds(threads, options, [&](int t, int parts) {
      const auto [q0, q1] = share(lookups, t, parts);
      hash_update_range(map, table.data(), dim, rows, queries.data(), q0, q1, grad.data());
    }));
  }
  return timings;
}

namespace {

constexpr std::size_t kChaseLine = 64;

/// Writes into every 64-byte line of `lines` lines at `base` the index of the next line of one
/// random cycle through all of them (Sattolo's algorithm: a uniformly random cyclic permutation).
void write_chase(unsigned char* base, std::size_t lines, std::uint64_t seed) {
  std::vector<std::uint32_t> order(lines);
  for (std::size_t i = 0; i < lines; ++i) order[i] = static_cast<std::uint32_t>(i);
  for (std::size_t i = lines - 1; i > 0; --i) std::swap(order[i], order[uniform_index(seed, i, i)]);
  for (std::size_t i = 0; i < lines; ++i) {
    const std::uint32_t next = order[(i + 1) % lines];
    std::memcpy(base + static_cast<std::size_t>(order[i]) * kChaseLine, &next, sizeof next);
  }
}

std::uint32_t chase(const unsigned char* base, std::uint32_t start, std::size_t loads) {
  std::uint32_t at = start;
  for (std::size_t i = 0; i < loads; ++i) std::memcpy(&at, base + static_cast<std::size_t>(at) * kChaseLine, sizeof at);
  return at;
}

/// The chain visits every line once before it returns to its start (it is one cycle).
void check_chase(std::uint64_t seed) {
  constexpr std::size_t lines = 97;
  std::vector<unsigned char> buffer(lines * kChaseLine);
  write_chase(buffer.data(), lines, seed);
  std::vector<char> seen(lines, 0);
  std::uint32_t at = 0;
  for (std::size_t i = 0; i < lines; ++i) {
    require(!seen[at], "pointer chase: line " + std::to_string(at) + " visited twice in one cycle");
    seen[at] = 1;
    at = chase(buffer.data(), at, 1);
  }
  require(at == 0, "pointer chase: the chain does not return to its start after every line");
}

}  // namespace

Timing time_dram_latency(RowTable& table, std::size_t loads, const TimingOptions& options) {
  if (loads < 1) throw std::invalid_argument("loads must be positive");
  const std::size_t lines = table.bytes() / kChaseLine;
  if (lines < 2 || lines > std::numeric_limits<std::uint32_t>::max()) throw std::invalid_argument("bad table size for a pointer chase");
  check_chase(options.seed);
  auto* base = reinterpret_cast<unsigned char*>(table.data());
  write_chase(base, lines, options.seed);
  std::uint32_t at = 0;
  const Timing timing = time_rounds(1, options, [&](int, int) { at = chase(base, at, loads); });
  require(at < lines, "pointer chase: left the table");  // also keeps the chase from being optimised away
  return timing;
}

namespace {

using PeakVector = float __attribute__((vector_size(64)));  // 16 fp32 lanes
constexpr int kPeakChains = 12;
static_assert(validation::kFp32PeakFlopsPerCall == 2.0 * 16.0 * kPeakChains);

/// `calls` iterations of the peak kernel from accumulators k = 0 .. 11 (every lane); the sum of
/// all lanes at the end, in double (exact: each lane is a multiple of 0.5 below 2^23).
[[gnu::noinline]] double fma_chains(std::size_t calls, float m, float a) {
  PeakVector mul, add, acc[kPeakChains];
  for (int i = 0; i < 16; ++i) {
    mul[i] = m;
    add[i] = a;
  }
  for (int k = 0; k < kPeakChains; ++k) {
    for (int i = 0; i < 16; ++i) acc[k][i] = static_cast<float>(k);
  }
  for (std::size_t c = 0; c < calls; ++c) {
#pragma GCC unroll 12
    for (int k = 0; k < kPeakChains; ++k) acc[k] = acc[k] * mul + add;
  }
  double sum = 0.0;
  for (int k = 0; k < kPeakChains; ++k) {
    for (int i = 0; i < 16; ++i) sum += static_cast<double>(acc[k][i]);
  }
  return sum;
}

/// 16 lanes x (sum of k = 0 .. 11, plus calls / 2 each): the exact result with m = 1, a = 0.5.
double fma_chains_expected(std::size_t calls) { return 16.0 * (66.0 + 12.0 * 0.5 * static_cast<double>(calls)); }

void check_fma_chains(std::size_t calls, double got) {
  require(got == fma_chains_expected(calls), "fp32 peak: " + std::to_string(calls) + " iterations summed to " +
                                                  std::to_string(got) + ", expected " +
                                                  std::to_string(fma_chains_expected(calls)));
}

/// m = 1 and a = 0.5 through volatile reads, so the compiler cannot fold the multiply by 1 away.
std::pair<float, float> fma_inputs() {
  volatile float one = 1.0f, half = 0.5f;
  return {one, half};
}

void check_fp32_peak() {
  const auto [m, a] = fma_inputs();
  check_fma_chains(1000, fma_chains(1000, m, a));
}

}  // namespace

Timing time_fp32_peak(std::size_t calls, int threads, const TimingOptions& options) {
  if (calls < 1 || static_cast<double>(calls) / 2.0 + kPeakChains >= 8388608.0) {
    throw std::invalid_argument("fp32 peak: calls must be in [1, 2^24 - 24) for an exact check");
  }
  check_fp32_peak();
  const auto [m, a] = fma_inputs();
  std::vector<double> sums(static_cast<std::size_t>(threads));
  const Timing timing = time_rounds(threads, options, [&](int t, int) { sums[static_cast<std::size_t>(t)] = fma_chains(calls, m, a); });
  for (double sum : sums) check_fma_chains(calls, sum);
  return timing;
}

Timing time_fp16_convert(std::size_t bytes, int passes, int threads, const TimingOptions& options) {
  check_convert(options.seed);
  const std::size_t n = bytes / sizeof(float);
  std::vector<float> in(n);
  for (std::size_t i = 0; i < n; ++i) in[i] = input_value(options.seed, i);
  std::vector<std::uint16_t> out(n, 0);
  return time_rounds(threads, options, [&](int t, int parts) {
    const auto [i0, i1] = share(n, t, parts);
    for (int p = 0; p < passes; ++p) convert_range(in.data(), out.data(), i0, i1);
  });
}

Timing time_memcpy(std::size_t bytes, int passes, int threads, const TimingOptions& options) {
  // Source and destination sit 2 KiB apart modulo the 4 KiB page: with a destination a few
  // bytes past the source modulo 4 KiB (two buffers from the heap, side by side) glibc's
  // `rep movsb` copy runs 20-40x slower on AMD Zen 3 (measured here: 1.2 against 50 GB/s), a
  // placement accident that a serialiser's buffers do not systematically have.
  std::vector<unsigned char> buffer(2 * bytes + 3 * 4096);
  const auto base = reinterpret_cast<std::uintptr_t>(buffer.data());
  unsigned char* in = buffer.data() + ((4096 - base % 4096) % 4096);
  unsigned char* out = in + (bytes + 4095) / 4096 * 4096 + 2048;
  for (std::size_t i = 0; i < bytes; ++i) in[i] = static_cast<unsigned char>(splitmix64(i) & 0xffu);
  const auto copy = [&](int t, int parts) {
    const auto [i0, i1] = share(bytes, t, parts);
    std::memcpy(out + i0, in + i0, i1 - i0);
  };
  for (int t = 0; t < threads; ++t) copy(t, threads);
  require(std::memcmp(in, out, bytes) == 0, "memcpy: the copy differs from its source");
  return time_rounds(threads, options, [&](int t, int parts) {
    for (int p = 0; p < passes; ++p) copy(t, parts);
  });
}

Timing time_call_overhead(std::size_t calls, int threads, const TimingOptions& options) {
  // Sum of 0 .. calls-1.
  const std::uint64_t want = static_cast<std::uint64_t>(calls) * (calls - 1) / 2;
  require(call_loop(calls) == want, "call loop: the accumulated sum is wrong");
  std::vector<std::uint64_t> sums(static_cast<std::size_t>(threads));
  return time_rounds(threads, options, [&](int t, int) { sums[static_cast<std::size_t>(t)] = call_loop(calls); });
}

void check_all_kernels(std::uint64_t seed) {
  const Matrix a = input_matrix(37, 53, seed), b = input_matrix(53, 29, seed + 1);
  Matrix c(37, 29);
  for (int t = 0; t < 3; ++t) gemm_share(a, b, c, t, 3);
  check_gemm(a, b, c, seed);
  check_gather_and_update(seed);
  check_hash_map(seed);
  check_convert(seed);
  check_chase(seed);
  check_fp32_peak();
  require(call_loop(1000) == 499500, "call loop: the accumulated sum is wrong");
}

}  // namespace dlrmsim::cpu_calibration
