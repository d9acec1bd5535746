// The CPU calibration set: which configurations `dlrmsim-calibrate --cpu` measures, and the
// machine facts it records with them (validation/cpu/cpu_kernels.hpp has the kernels).
//
// The `full` sweep (about 20-40 s on a 2-core machine, under a minute on any machine):
//   peak     fp32 multiply-adds on 12 independent 16-lane chains, 4,000,000 iterations per thread
//            (1.5 GFLOP): the core's fp32 peak, measured rather than taken from a clock;
//   GEMM     fp32, the MLP layers of the shipped models (configs/models/) at batch 256: bottom
//            16->512 (13 dense features padded), 512->256, 256->128, top 1024->1024, the Persia
//            benchmark's 4096->2048, each as forward (m = batch, n = out, k = in), input gradient
//            (m = batch, n = in, k = out) and weight gradient (m = in, n = out, k = batch), plus
//            1024->1024 at batch 2048: 16 shapes;
//   rows     one 256 MiB table (at least 8x the last-level cache of current server sockets
//            other than the largest: a 32 MiB L3 here), read as rows of 16, 32, 64, 128, 256 and
//            512 bytes; 262,144 uniform random lookups per round, bags of 8 (gather, update);
//   hash     4,194,304 ids in a flat map of 8,388,608 slots (128 MiB), 262,144 lookups + row
//            updates per round, rows of 16, 64 and 256 bytes from the same table;
//   latency  2,000,000 dependent loads through the same table (one thread): a random access's
//            load-to-use latency, TLB misses included;
//   streams  fp16 conversion and memcpy of a 64 MiB buffer (dram) and of 128 KiB per thread
//            repeated 64 times per round (cached: fits a 512 KiB L2 with its output);
//   calls    1,000,000 calls per round.
// Every configuration runs on one thread and on all logical CPUs; 1 warm-up round and 7 timed
// rounds by default. The `smoke` sweep is the same set at tiny sizes (for tests: it checks that
// the whole set runs, not what it measures).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "validation/cpu/cpu_kernels.hpp"
#include "validation/cpu/cpu_raw_measurements.hpp"

namespace dlrmsim::cpu_calibration {

struct CpuSweep {
  std::vector<std::int64_t> gemm_batches;                         // batch sizes of every layer
  std::vector<std::pair<std::int64_t, std::int64_t>> mlp_layers;  // (in, out)
  std::vector<std::int64_t> extra_forward_batches;                // forward of the largest square layer
  std::vector<std::size_t> row_bytes;
  std::vector<std::size_t> hash_row_bytes;
  int pooling = 8;
  std::size_t lookups = 0;
  std::size_t table_bytes = 0;
  std::size_t hash_keys = 0;
  std::size_t chase_loads = 0;  // dependent loads of the DRAM latency run
  std::size_t peak_calls = 0;   // iterations per thread of the fp32 peak run
  std::size_t stream_dram_bytes = 0;
  std::size_t stream_cached_bytes_per_thread = 0;
  int stream_cached_passes = 1;
  std::size_t calls = 0;
};

/// "full" or "smoke"; throws std::invalid_argument for another name.
CpuSweep make_cpu_sweep(const std::string& name);

/// The machine facts of the raw file (CPU model, logical CPUs, clock, memory, caches, compiler,
/// ISA, load average, date); `command` as given.
validation::CpuMachineInfo describe_this_machine(const std::string& command);

/// Runs the sweep on 1 thread and on `all_threads` threads; `progress` receives one line per
/// group. The machine facts are filled in by the caller (describe_this_machine), except
/// load_after, which is read at the end.
void measure_cpu(const CpuSweep& sweep, int all_threads, const TimingOptions& timing,
                 validation::CpuRawMeasurements& raw, const std::function<void(const std::string&)>& progress);

}  // namespace dlrmsim::cpu_calibration
