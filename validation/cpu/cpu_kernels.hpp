// The CPU calibration kernels: what `dlrmsim-calibrate --cpu` measures on a host CPU.
//
// Every kernel is plain C++ (Eigen for the GEMM), runs on any machine, and is timed the same
// way: `threads` std::threads (the caller is thread 0) each run their share of the work,
// bracketed by a barrier before and after; thread 0 times each round from the first barrier
// to the second (steady_clock), `warmup` rounds are discarded, and the median, minimum and
// maximum of `repeats` timed rounds are returned. With threads = 1 the rate is a per-core
// rate; with threads = all logical CPUs it is the socket's. Before any timing each kernel is
// run once on a small instance with known inputs and compared with an independent scalar
// reference (CheckFailed on a mismatch).
//
// Work split across threads (what a multi-threaded trainer or server does):
//   GEMM           one C = A B split by output columns (intra-operator parallelism, as
//                  PyTorch's CPU GEMMs through MKL/oneDNN split one call over the cores);
//   gather         bags split evenly; every thread reads rows from the whole table;
//   update, hash   the table's rows are split in contiguous slices, one per thread, and each
//                  thread's ids fall in its own slice (the way a parameter server shards
//                  rows), so no two threads write one row;
//   convert, copy  the buffer is split in contiguous slices;
//   call           every thread runs the whole loop (a per-thread cost).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace dlrmsim::cpu_calibration {

/// A kernel's result differs from its scalar reference (the message says where and by how much).
class CheckFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct TimingOptions {
  int warmup = 1;
  int repeats = 7;
  std::uint64_t seed = 1;
};

struct Timing {
  double median_seconds = 0.0;
  double min_seconds = 0.0;
  double max_seconds = 0.0;
  int repeats = 0;
};

/// fp32 GEMM C = A B (A m x k, B k x n, column-major, Eigen, one Eigen call per thread on its
/// share of C's columns).
Timing time_gemm(std::int64_t m, std::int64_t n, std::int64_t k, int threads, const TimingOptions& options);

/// A table of fp32 rows in DRAM shared by the row kernels: `table_bytes` of memory, read as
/// rows of `row_bytes` (a multiple of 4) for each measurement.
class RowTable {
 public:
  explicit RowTable(std::size_t table_bytes);
  [[nodiscard]] std::size_t bytes() const { return data_.size() * sizeof(float); }
  [[nodiscard]] std::size_t rows(std::size_t row_bytes) const { return bytes() / row_bytes; }
  [[nodiscard]] float* data() { return data_.data(); }
  [[nodiscard]] const float* data() const { return data_.data(); }

 private:
  std::vector<float> data_;
};

/// Sum-pooled embedding-bag forward: `lookups` uniform random rows of `row_bytes`, `pooling`
/// rows summed per bag (bags = lookups / pooling).
Timing time_gather(RowTable& table, std::size_t row_bytes, int pooling, std::size_t lookups, int threads,
                   const TimingOptions& options);

/// Embedding SGD update without deduplication: for every bag, each of its `pooling` rows gets
/// row += lr x (the bag's gradient), rows uniform random within the thread's slice.
Timing time_update(RowTable& table, std::size_t row_bytes, int pooling, std::size_t lookups, int threads,
                   const TimingOptions& options);

/// A parameter server's inner loop: a flat open-addressing hash map (64-bit id -> 32-bit row
/// index, linear probing, load factor at most 1/2) of `keys` ids; each of `lookups` ids drawn
/// uniformly from the stored ones is looked up and its row (of `row_bytes`) updated by
/// row += lr x gradient. The map is built once per call (not timed) and used for each row size.
std::vector<Timing> time_hash_updates(RowTable& table, const std::vector<std::size_t>& row_bytes, std::size_t keys,
                                      std::size_t lookups, int threads, const TimingOptions& options);

/// Load-to-use latency of a random DRAM access: `loads` dependent loads (a pointer chase) through
/// a random cyclic permutation of the table's 64-byte lines (Sattolo's algorithm), one thread.
/// Each load's address is the previous load's value, so no two misses overlap and the time per
/// load is the latency of one random access into the table: a DRAM miss and, with 4 KiB pages,
/// the TLB miss and page walk that a random row of a large table also pays. The table's
/// contents are overwritten with the chain.
Timing time_dram_latency(RowTable& table, std::size_t loads, const TimingOptions& options);

/// The fp32 peak of a core: `calls` iterations on each thread of 12 independent chains
/// acc = acc x m + a over 16-lane vectors (one AVX-512 register, two AVX ones, four SSE or
/// NEON ones), kFp32PeakFlopsPerCall FLOP per iteration (validation/cpu/cpu_raw_measurements.hpp).
/// Twelve chains keep two FMA pipes of 4-cycle latency busy; the compiler contracts each
/// multiply-add into one FMA (-ffp-contract=fast, GCC's default) and keeps the chains apart (no
/// reassociation without -ffast-math). Checked exactly: with m = 1 and a = 0.5 each lane ends at
/// its start + calls / 2 (exact in fp32 below 2^23).
Timing time_fp32_peak(std::size_t calls, int threads, const TimingOptions& options);

/// fp32 -> fp16 (round to nearest even) of `bytes` of fp32 input, `passes` times per round.
Timing time_fp16_convert(std::size_t bytes, int passes, int threads, const TimingOptions& options);

/// std::memcpy of `bytes`, `passes` times per round.
Timing time_memcpy(std::size_t bytes, int passes, int threads, const TimingOptions& options);

/// `calls` calls, in a loop, of a function that cannot be inlined (called through a volatile
/// function pointer) and adds its argument to an accumulator: the per-call floor of an
/// operator boundary in compiled code. Not a framework's per-operator dispatch (PyTorch eager
/// costs about 10 us per operator: argument parsing, dispatcher, allocation), which is a
/// property of the software stack, not of the CPU.
Timing time_call_overhead(std::size_t calls, int threads, const TimingOptions& options);

/// The kernels' self-checks alone (each kernel on its small instance against its reference),
/// for tests; throws CheckFailed on a mismatch.
void check_all_kernels(std::uint64_t seed);

/// Reference fp32 -> fp16 conversion by bit manipulation (round to nearest even, overflow to
/// infinity, subnormals kept, NaN stays NaN), the bits of the result.
std::uint16_t reference_fp16_bits(float value);

/// The vector instruction sets this file was compiled for ("avx2 fma f16c", "sse2", ...).
std::string compiled_isa();

}  // namespace dlrmsim::cpu_calibration
