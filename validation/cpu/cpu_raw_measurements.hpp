// Raw CPU calibration measurements: what `dlrmsim-calibrate --cpu` writes and `dlrmsim
// fit-profile` reads. The CPU kind of the raw measurement format (validation/raw_measurements.hpp
// is the GPU kind): the same layout, a `machine` mapping and a `measurements` list, told apart by
// the machine's `cpu` key (a GPU file has `gpu`).
//
// File format (YAML):
//   machine:
//     cpu: "AMD EPYC 7763 64-Core Processor"   # /proc/cpuinfo "model name"
//     logical_cpus: 2                 # std::thread::hardware_concurrency(): the all-core runs' threads
//     clock: "2445.428 MHz"           # /proc/cpuinfo "cpu MHz" of CPU 0 at the start (as reported)
//     memory: "23.4 GiB"              # /proc/meminfo MemTotal
//     llc: "32 MiB"                   # /sys/devices/system/cpu/cpu0/cache/index3/size ("0 B": unknown)
//     isa: "avx2 fma f16c"            # vector instruction sets the kernels were compiled for
//     transparent_hugepages: "madvise"  # /sys/kernel/mm/transparent_hugepage/enabled: with
//                                     # "madvise" or "never" the tables use 4 KiB pages (the
//                                     # kernels do not madvise), so random rows miss the TLB
//     compiler: "GCC 12.2.0"
//     gemm_library: "Eigen 3.4.0"
//     load_before: "0.52 0.61 0.70"   # /proc/loadavg (1, 5, 15 min) before and after the run:
//     load_after: "1.02 0.70 0.72"    # other work on the machine disturbs the measurements
//     date: "2026-11-30T17:00:00Z"
//     command: "dlrmsim-calibrate --cpu -o raw.yaml"
//   measurements:   # `threads`: 1 (per-core rates) or logical_cpus (socket rates)
//     - {kind: gemm, threads: 1, m: 256, n: 1024, k: 1024, time: "12.5 ms", min: "12.1 ms", max: "13.0 ms", repeats: 7}
//     - {kind: gather, threads: 2, row_bytes: "64 B", pooling: 8, lookups: 262144, table_bytes: "256 MiB", time: ...}
//     - {kind: update, ... as gather ...}
//     - {kind: hash_update, threads: 1, row_bytes: "64 B", keys: 4194304, lookups: 262144, table_bytes: "256 MiB", time: ...}
//     - {kind: dram_latency, threads: 1, lookups: 2000000, table_bytes: "256 MiB", time: ...}
//     - {kind: fp32_peak, threads: 1, calls: 4000000, time: ...}
//     - {kind: fp16_convert, threads: 1, working_set: dram, bytes: "64 MiB", passes: 1, time: ...}
//     - {kind: memcpy, threads: 1, working_set: cached, bytes: "128 KiB", passes: 64, time: ...}
//     - {kind: call, threads: 1, calls: 1000000, time: ...}
// dram_latency: `lookups` dependent loads (a pointer chase through the table's lines), one thread.
// fp32_peak: `calls` iterations per thread of kFp32PeakFlopsPerCall independent fp32 multiply-adds.
// `time` is the median over `repeats` timed rounds (after warm-up, and after the kernel was
// checked against a scalar reference), `min` and `max` their spread. One round does all of the
// record's work (all its lookups, all its calls, `passes` times its bytes) on all its threads.
// Conversion and copy: `bytes` is the buffer (fp32 input bytes for the conversion), split among
// the threads; `working_set` says whether it was sized to stay in the cores' L2 caches
// (`cached`: a message just produced) or to be much larger than the last-level cache (`dram`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/config.hpp"
#include "common/enum_names.hpp"
#include "common/units.hpp"

namespace dlrmsim::validation {

enum class CpuMeasurementKind { gemm, gather, update, hash_update, dram_latency, fp32_peak, fp16_convert, memcpy, call };

/// fp32 FLOP one call of the fp32_peak kernel does per thread: 12 independent accumulators of 16
/// lanes, each updated by one multiply-add (validation/cpu/cpu_kernels.hpp time_fp32_peak).
inline constexpr double kFp32PeakFlopsPerCall = 2.0 * 16.0 * 12.0;
inline constexpr auto kCpuMeasurementKindNames =
    enum_names<CpuMeasurementKind>({{CpuMeasurementKind::gemm, "gemm"},
                                    {CpuMeasurementKind::gather, "gather"},
                                    {CpuMeasurementKind::update, "update"},
                                    {CpuMeasurementKind::hash_update, "hash_update"},
                                    {CpuMeasurementKind::dram_latency, "dram_latency"},
                                    {CpuMeasurementKind::fp32_peak, "fp32_peak"},
                                    {CpuMeasurementKind::fp16_convert, "fp16_convert"},
                                    {CpuMeasurementKind::memcpy, "memcpy"},
                                    {CpuMeasurementKind::call, "call"}});
inline std::string_view to_string(CpuMeasurementKind kind) { return kCpuMeasurementKindNames.name(kind); }

struct CpuMeasurement {
  CpuMeasurementKind kind = CpuMeasurementKind::call;
  int threads = 1;

  // gemm (fp32)
  std::int64_t m = 0, n = 0, k = 0;

  // gather, update, hash_update
  Bytes row_bytes{0.0};
  int pooling = 1;               // gather, update: rows per bag
  std::int64_t lookups = 0;      // rows read or updated per round (dram_latency: dependent loads)
  std::int64_t keys = 0;         // hash_update: ids stored in the map
  Bytes table_bytes{0.0};        // memory the rows are drawn from

  // fp16_convert (fp32 input bytes), memcpy
  Bytes bytes{0.0};
  int passes = 1;                // times the buffer is processed per round
  bool cached = false;           // working_set: cached (true) or dram

  // call
  std::int64_t calls = 0;

  Seconds time{0.0};       // median
  Seconds min_time{0.0};
  Seconds max_time{0.0};
  int repeats = 0;

  /// Time per unit of work: per row (gather, update, hash_update), per load (dram_latency), per
  /// call; the whole time otherwise.
  [[nodiscard]] Seconds time_per_item() const;
};

struct CpuMachineInfo {
  std::string cpu;
  int logical_cpus = 0;
  Hertz clock{0.0};
  Bytes memory{0.0};
  Bytes llc{0.0};  // 0: unknown
  std::string isa;
  std::string transparent_hugepages;
  std::string compiler;
  std::string gemm_library;
  std::string load_before;
  std::string load_after;
  std::string date;
  std::string command;
};

struct CpuRawMeasurements {
  CpuMachineInfo machine;
  std::vector<CpuMeasurement> measurements;
};

/// Whether a parsed raw measurement file is of the CPU kind (its machine has a `cpu` key).
bool is_cpu_raw_measurements(const ConfigNode& root);

/// Reads a CPU raw measurement file; malformed records throw ConfigError naming file, line and key.
CpuRawMeasurements load_cpu_raw_measurements(const std::string& path);
CpuRawMeasurements parse_cpu_raw_measurements(const ConfigNode& root);
/// The YAML text load_cpu_raw_measurements reads back (full precision, units on every quantity).
std::string cpu_raw_measurements_to_yaml(const CpuRawMeasurements& raw);

}  // namespace dlrmsim::validation
