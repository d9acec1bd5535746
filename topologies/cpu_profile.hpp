// A CPU's profile: the measured coefficients of the host-side operators (dense GEMM on CPU
// trainers, embedding gathers and updates from DRAM, a parameter server's hash lookups,
// serialisation, per-call overhead), loaded from `configs/calibration/cpu-<model>.yaml`.
//
// A profile is fitted by `dlrmsim fit-profile` (validation/cpu/cpu_profile_fit.hpp) from the
// raw measurements of the CPU calibration set (validation/cpu/, run by `dlrmsim-calibrate
// --cpu`). Every group carries a `source` naming the measurement (machine, date, command) and
// the fit error of its formula over the measurements it was fitted to. Two thread counts are
// measured: one thread ("per_core") and every logical CPU of the machine ("all_cores", `cores`
// of them); a cost model for another core count of the same CPU interpolates with the formulas
// below, and for another CPU scales by its datasheet (that is the next step, not done here).
//
// Models:
//
// * GEMM, fp32 (Eigen 3, one C = A B with A m x k; for all cores one GEMM split by columns):
//     time = call_overhead + 2 m n k / (rate * s(m, m_half) * s(n, n_half) * s(k, k_half))
//     s(x, h) = x / (x + h)
//   `rate` is the achieved FLOP/s of large GEMMs, not an efficiency. The machine's fp32 peak per
//   core (gemm_fp32.peak_per_core) is measured beside it by the calibration set's fp32_peak
//   kernel (independent multiply-add chains at the clock the core runs: a virtual machine does
//   not report its clock reliably) or given at fit time; with it the rates become efficiencies
//   that another CPU's datasheet peak scales. Why the form: as
//   for GPUs (topologies/device_profile.hpp), a small extent leaves the kernel's register and cache
//   blocks (Eigen's gebp: mr x nr micro-kernel, kc x nc panels) partly empty and its packing
//   unamortised, a fixed cost per dimension, i.e. a saturating factor. Valid for the MLP shapes
//   of the shipped models at batch 256-2048 (m, n, k = 16..4096); the all-cores figures also
//   include the split's loss when C has few columns per thread.
//
// * Embedding gather (sum pooling) and update (row += lr x grad), rows of R bytes drawn
//   uniformly from a table much larger than the last-level cache:
//     per core:   time per row t(R) = row_time + R / bandwidth
//     all cores:  rows/s(R, c) = min(c * parallel_scaling / t(R),
//                                    dram_bandwidth / (traffic_multiple * max(R, cache_line)))
//   Why: one core keeps a bounded number of cache misses in flight (its fill buffers), so its
//   rate is latency-bound: a fixed cost per row (the first line's miss, index load, address
//   arithmetic) plus a cost per byte (the further lines of a long row, streamed by the
//   prefetcher). With c cores the misses add up until the DRAM channels saturate; each row then
//   moves whole cache lines, max(R, line) bytes, once (gather: traffic_multiple 1) or twice
//   (update: read, and write back the dirty line: traffic_multiple 2). parallel_scaling is the
//   all-cores rate over c times the per-core rate while DRAM does not bind. Valid for R = 16..512 B
//   (measured); pooling 8 (the output write amortised over 8 rows; one-hot bags cost more).
//
// * Parameter-server id update (flat open-addressing hash map id -> row index, then the row's
//   update; the inner loop of Persia's embedding servers, whose map is a hashbrown HashMap<u64,
//   u32>, a flat SwissTable):
//     per core:   time per id t(R) = row_time + R / bandwidth
//     all cores:  as the gather, with traffic per id = 2 max(R, line) + one line (the map's slot)
//   Valid for maps much larger than the last-level cache (4 M ids measured) and R = 16..256 B.
//
// * DRAM latency (optional): the time per load of a pointer chase through a random cyclic
//   permutation of a large table's 64-byte lines, one thread: each load waits for the previous
//   one, so it is one random access's latency, TLB miss and page walk included (the table uses
//   the same pages as the row kernels'). With the per-core lines above it gives the misses one
//   core keeps in flight, latency / t(line): what carries the row rates to another CPU.
//
// * fp32 -> fp16 conversion and memcpy (serialising messages): bytes / bandwidth, with
//     bandwidth(c cores) = min(c * per_core, all_cores)
//   for two working sets: `cached` (the buffer fits in the core's L2: a message just produced)
//   and `dram` (much larger than the last-level cache). Bytes are input bytes (fp32 for the
//   conversion). memcpy's all-core DRAM bandwidth (x 2: it reads and writes each byte) is also
//   the streaming DRAM bound used for the gathers when no gather run reached DRAM's limit.
//
// * Per-call overhead: the time of one call of a non-inlined function doing trivial work, in a
//   loop: the floor of an operator boundary in compiled code. It is NOT a framework's
//   per-operator dispatch cost (PyTorch eager: about 10 us per operator), which belongs to the
//   software stack, not to the CPU.
#pragma once

#include <cstdint>
#include <string>

#include "common/config.hpp"
#include "common/units.hpp"
#include "topologies/device_profile.hpp"

namespace dlrmsim::topo {

struct CpuGemmCoefficients {
  FlopsPerSecond rate{0.0};  // achieved FLOP/s of large GEMMs
  double m_half = 0.0;       // half-saturation extents, elements
  double n_half = 0.0;
  double k_half = 0.0;
  Seconds call_overhead{0.0};
  Provenance provenance;

  [[nodiscard]] double fill(double m, double n, double k) const;
  [[nodiscard]] Seconds time(std::int64_t m, std::int64_t n, std::int64_t k) const;
};

/// t(R) = row_time + R / bandwidth, the per-core time of one row (or id).
struct RowCostLine {
  Seconds row_time{0.0};
  BytesPerSecond bandwidth{0.0};
  Provenance provenance;

  [[nodiscard]] Seconds time_per_row(Bytes row_bytes) const { return row_time + row_bytes / bandwidth; }
};

struct RowSocketBound {
  double parallel_scaling = 0.0;   // all-cores rate / (cores x per-core rate) while DRAM does not bind
  BytesPerSecond dram_bandwidth{0.0};
  Provenance provenance;
};

struct RowKernelCoefficients {
  RowCostLine per_core;
  RowSocketBound all_cores;
  // DRAM traffic per row = traffic_multiple x max(R, line) + extra_traffic (set by the loader
  // per kernel, as the header explains: gather 1 x, update 2 x, hash update 2 x + one line).
  double traffic_multiple = 1.0;
  Bytes extra_traffic{0.0};

  [[nodiscard]] Bytes dram_bytes_per_row(Bytes row_bytes, Bytes line) const;
  /// Rows (ids) per second on `cores` cores: the header's min(core-bound, DRAM-bound).
  [[nodiscard]] double rows_per_second(Bytes row_bytes, int cores, Bytes line) const;
};

struct StreamCoefficients {
  BytesPerSecond per_core{0.0};
  BytesPerSecond all_cores{0.0};
  Provenance provenance;

  [[nodiscard]] BytesPerSecond bandwidth(int cores) const;
};

struct StreamPair {
  StreamCoefficients cached;  // working set in the core's L2
  StreamCoefficients dram;    // working set much larger than the last-level cache
};

class CpuProfile {
 public:
  std::string name;         // e.g. "AMD-EPYC-2vCPU"
  std::string description;  // one line
  std::string provenance;   // overall: measured where, when, how
  int cores = 0;            // threads of the all-cores measurements (logical CPUs of the machine)
  Bytes cache_line{64.0};
  std::string machine_source;  // where cores and cache_line come from

  CpuGemmCoefficients gemm_per_core;   // fp32, one thread
  CpuGemmCoefficients gemm_all_cores;  // fp32, one GEMM on `cores` threads
  /// The measured machine's fp32 peak per core (gemm_fp32.peak_per_core, optional: measured by
  /// the fp32_peak kernel or given at fit time; 0 when absent) and where that figure comes from.
  /// With it the GEMM rates become efficiencies, which another CPU's datasheet peak scales
  /// (gemm_efficiency).
  FlopsPerSecond peak_per_core{0.0};
  std::string peak_source;
  RowKernelCoefficients gather;
  RowKernelCoefficients update;
  RowKernelCoefficients hash_update;
  /// Load-to-use latency of one random access into a table much larger than the last-level
  /// cache (a pointer chase, one thread; optional: 0 when the profile does not give it). With
  /// it, one core's row rates transfer to another CPU (topologies/cpu_row_cost.hpp).
  Seconds dram_latency{0.0};
  Provenance latency_provenance;
  StreamPair fp16_convert;
  StreamPair memcpy;
  Seconds call_overhead{0.0};
  Provenance call_provenance;

  /// fp32 GEMM time on one core or on all `cores`.
  [[nodiscard]] Seconds gemm_time(std::int64_t m, std::int64_t n, std::int64_t k, bool all_cores) const {
    return (all_cores ? gemm_all_cores : gemm_per_core).time(m, n, k);
  }
  /// Fraction of the measured machine's all-core fp32 peak (cores x peak_per_core) that one
  /// GEMM of m x k by k x n reaches on all its cores, call overhead excluded:
  ///   e(m, n, k) = gemm_all_cores.rate x s(m) s(n) s(k) / (cores x peak_per_core).
  /// std::logic_error when the profile gives no peak_per_core.
  [[nodiscard]] double gemm_efficiency(std::int64_t m, std::int64_t n, std::int64_t k) const;
  /// The same for a GEMM whose every extent is large (fill 1): gemm_all_cores.rate / (cores x peak_per_core).
  [[nodiscard]] double large_gemm_efficiency() const;
  /// Sets peak_per_core and peak_source; std::invalid_argument when the peak is below the
  /// measured one-core GEMM rate (no machine runs above its peak).
  void set_peak(FlopsPerSecond per_core, std::string source);
  [[nodiscard]] double gather_rows_per_second(Bytes row_bytes, int cores) const {
    return gather.rows_per_second(row_bytes, cores, cache_line);
  }
  [[nodiscard]] double update_rows_per_second(Bytes row_bytes, int cores) const {
    return update.rows_per_second(row_bytes, cores, cache_line);
  }
  [[nodiscard]] double hash_updates_per_second(Bytes row_bytes, int cores) const {
    return hash_update.rows_per_second(row_bytes, cores, cache_line);
  }
};

/// The DRAM traffic shape of each row kernel (see the header).
void set_row_kernel_traffic(CpuProfile& profile);

/// Reads a CPU profile from YAML; every field is required and every quantity carries its unit;
/// errors are ConfigError naming file, line, column and key.
CpuProfile load_cpu_profile(const std::string& path);
CpuProfile parse_cpu_profile(const ConfigNode& root);
/// YAML that load_cpu_profile reads back.
std::string cpu_profile_to_yaml(const CpuProfile& profile);

}  // namespace dlrmsim::topo
