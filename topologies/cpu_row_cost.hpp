// Embedding rows read and updated by a CPU in its DRAM: the one cost model of CPU gathers and
// updates, read by the placement planner (placement/lookup_cost.cpp: host_dram and remote_ps
// estimates) and by the simulation (models/step_builder.cpp: CPU-socket and parameter-server
// owners; models/modes/persia_hybrid.cpp: pooling on embedding workers).
//
// Following ../shared/DESIGN.md ("Lookups on CPU: bounded by DRAM bandwidth and by per-core
// gather rate x cores"):
//   rate      r = min(DRAM bandwidth, cores x gather bandwidth per core); a figure of 0 is not a
//               limit (the platform does not give it); both 0: no rate (time infinite)
//   gather    rows x max(row bytes, g) / r
//   update    rows x (2 max(row bytes, g) + 2 max(state bytes, g) if the optimiser keeps state) / r
//             a read-modify-write: each touched row, and its optimiser state, is read and its
//             dirty lines written back (the same traffic multiple of 2 that the CPU profile's
//             update model measures, topologies/cpu_profile.hpp)
//   striped   an update whose busiest lock serialises a share f of its rows (the stack's
//             host_update: striped_locks): max(update, f rows x (DRAM latency + traffic per
//             row / one core's gather bandwidth))
// where g is the access granule: a random row read moves whole cache lines. Its default is the
// 64-byte line over which CpuSocketSpec::gather_bandwidth_per_core is defined (devices.hpp);
// a scenario may set another (training.cpu.access_granule), which then applies to the planner
// and the simulation alike.
// Assumptions: rows drawn at random from tables much larger than the last-level cache (every
// row a miss); a row of R bytes costs max(R, g), i.e. rows are aligned to the granule and a
// row longer than g streams its further lines at the same rate.
#pragma once

#include "common/units.hpp"
#include "topologies/devices.hpp"

namespace dlrmsim::topo {

/// The granule over which CpuSocketSpec::gather_bandwidth_per_core is defined (x86 cache line).
inline constexpr Bytes kCpuCacheLine{64.0};

/// What bounds random row accesses of one CPU (a socket, or the sockets of a server together).
struct CpuRowAccess {
  BytesPerSecond dram_bandwidth;         // 0: not a limit
  BytesPerSecond core_gather_bandwidth;  // cores x per-core gather bandwidth; 0: not a limit
  Bytes granule = kCpuCacheLine;
  BytesPerSecond one_core;  // one core's gather bandwidth; 0: not given
  Seconds latency;          // a DRAM miss's latency; 0: not given

  /// One socket of the platform.
  static CpuRowAccess of(const CpuSocketSpec& cpu, Bytes granule);
  /// min(DRAM, cores) over the figures given; 0 when neither is.
  [[nodiscard]] BytesPerSecond rate() const;
  /// Bytes one random read of a row of `row_bytes` moves: max(row_bytes, granule).
  [[nodiscard]] Bytes access_bytes(Bytes row_bytes) const;
};

/// Gather of `rows` rows of `row_bytes`; 0 for no rows, infinite when the CPU has no rate.
Seconds cpu_gather_time(const CpuRowAccess& cpu, double rows, Bytes row_bytes);
/// Read-modify-write of `rows` rows of `row_bytes` and of their `state_bytes_per_row` of
/// optimiser state (0: none); 0 for no rows, infinite when the CPU has no rate.
/// With `serial_share` > 0, that share of the rows is updated one after another by one core
/// (the holder of one lock, placement/lookup_cost.hpp striped_lock_share) while the others
/// run in parallel: the time is the larger of the parallel time and that chain's,
///   serial_share x rows x (DRAM latency + traffic per row / one core's bandwidth):
/// each update's row is a miss that the previous update does not overlap (it starts once the
/// lock is taken), and its lines then stream at one core's rate. Infinite when the CPU gives
/// no latency or no per-core bandwidth. Lock hand-over between cores is not counted.
/// Check: for a 512-byte row of an EPYC 7742 (110 ns, 8 GB/s per core: dgx-a100.yaml) it is
/// 110 + 1024 / 8 = 238 ns; one thread updating random 512-byte rows on this project's build
/// machine (Zen 3, no lock) measured 243 ns (configs/calibration/cpu-amd-epyc-2cpu.yaml,
/// update.per_core: 27.7 ns + 512 B / 2.378 GB/s).
Seconds cpu_update_time(const CpuRowAccess& cpu, double rows, Bytes row_bytes, Bytes state_bytes_per_row,
                        double serial_share = 0.0);

}  // namespace dlrmsim::topo
