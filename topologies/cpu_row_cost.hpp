// Embedding rows read and updated by a CPU in its DRAM: the one cost model of CPU gathers and
// updates, read by the placement planner (placement/lookup_cost.cpp: host_dram and remote_ps
// estimates) and by the simulation (models/owner_work.cpp: CPU-socket and parameter-server
// owners; models/modes/persia_hybrid.cpp: pooling on embedding workers).
//
// The project's rule for lookups on a CPU: bounded by DRAM bandwidth and by the per-core
// gather rate x cores, whichever binds. So n rows of R bytes on c cores take
//   n x max(t(R) / c, traffic(R) / DRAM bandwidth)
// where t(R) is one core's time per row while it keeps its other misses in flight and traffic
// the bytes DRAM moves per row: whole granules g (a random read moves cache lines), max(R, g)
// for a gather, twice that for an update (the row is read, then its dirty lines written back).
// A figure of 0 is not a limit; with neither there is no rate (time infinite). No parallel
// scaling below the DRAM bound: the profiles measure it on 2 logical CPUs (0.98-1.02 for these
// kernels), which says nothing of 64 cores sharing a mesh; the DRAM bound is the limit.
//
// One core's t(R) comes from one of two places:
//   measured  a CPU profile's lines (topologies/cpu_profile.hpp: gather, update, and for a
//             parameter server hash_update), measured on one machine and carried to this CPU
//             by the ratio of the DRAM latencies, t(R) = t_measured(R) x latency / latency_measured
//             (platform key `row_profile`). Why: one core's random-row rate is latency bound,
//             misses in flight x line / latency, and the misses a core keeps in flight are a
//             property of its core design and of the code, not of the DRAM behind it. Labelled
//             assumption: the platform's core keeps as many misses in flight as the measured one;
//   datasheet the platform's gather_bandwidth_per_core b over granules, t(R) = max(R, g) / b for
//             a gather and for an update alike: an update's read-for-ownership is one miss like
//             a read, and its write-back leaves through the write buffers without holding a
//             fill buffer (measured, one core of this project's machines: updating a random
//             64-byte row costs 1.2 times a gather of it, 54.6 / 45.8 ns on the Zen 3 guest,
//             19.1 / 16.4 ns on the Zen 5 guest; configs/calibration/cpu-amd-epyc-*.yaml).
// Optimiser state: a table of its own beside the rows (FBGEMM's and TensorFlow's CPU tables),
// so one more random access per updated row, with its own t and traffic.
// A parameter server (keyed) differs in two ways:
//   - it resolves each id through a hash map first: with a measured profile its update is the
//     profile's hash_update and its gather the map probe (hash_update - update) plus a gather,
//     each with one more line of traffic (the map's slot); with datasheet figures the probe is
//     not costed;
//   - it keeps a row's optimiser state in the row's entry, so an update moves R + state bytes
//     in one access (Persia's server: HashMapEmbeddingEntry::inner holds the embedding and its
//     optimiser space in one Vec, PersiaML/PERSIA@7cd455b rust/persia-common/src/lib.rs).
// Striped updates: an update whose busiest lock serialises a share f of its rows (the stack's
// host_update: striped_locks) takes max(update, f n (DRAM latency + update traffic per row /
// one core's gather bandwidth)).
// g is the access granule: its default is the 64-byte line over which
// CpuSocketSpec::gather_bandwidth_per_core is defined (devices.hpp); a scenario may set another
// (training.cpu.access_granule), which then applies to the planner and the simulation alike.
// Assumptions: rows drawn at random from tables much larger than the last-level cache (every
// row a miss); with datasheet figures a row of R bytes costs max(R, g), i.e. rows are aligned
// to the granule and a row longer than g streams its further lines at the same rate.
#pragma once

#include <memory>
#include <optional>

#include "common/units.hpp"
#include "topologies/cpu_profile.hpp"
#include "topologies/devices.hpp"

namespace dlrmsim::topo {

/// The granule over which CpuSocketSpec::gather_bandwidth_per_core is defined (x86 cache line).
inline constexpr Bytes kCpuCacheLine{64.0};

/// One core's measured time per random row, carried to a CPU (see the header): the profile's
/// one-core line times `factor`, the CPU's DRAM latency over the profile's.
struct CoreRowCosts {
  std::shared_ptr<const CpuProfile> profile;
  double factor = 1.0;

  /// `profile`'s one-core lines scaled to a CPU whose DRAM latency is `latency`;
  /// std::invalid_argument when either latency is missing.
  static CoreRowCosts scaled(std::shared_ptr<const CpuProfile> profile, Seconds latency);
  [[nodiscard]] Seconds gather(Bytes row) const { return profile->gather.per_core.time_per_row(row) * factor; }
  [[nodiscard]] Seconds update(Bytes row) const { return profile->update.per_core.time_per_row(row) * factor; }
  [[nodiscard]] Seconds hash_update(Bytes row) const {
    return profile->hash_update.per_core.time_per_row(row) * factor;
  }
};

/// What bounds random row accesses of one CPU (a socket, or the sockets of a server together).
struct CpuRowAccess {
  BytesPerSecond dram_bandwidth;  // 0: not a limit
  double cores = 0.0;             // cores sharing the accesses (a pod's share may be a fraction)
  BytesPerSecond one_core;        // one core's gather bandwidth over granules; 0: not given
  Bytes granule = kCpuCacheLine;
  Seconds latency;                // a DRAM miss's latency; 0: not given
  std::optional<CoreRowCosts> measured;  // from a CPU profile (platform key row_profile)
  bool keyed = false;             // ids resolved through a hash map first (a parameter server)

  /// One socket of the platform.
  static CpuRowAccess of(const CpuSocketSpec& cpu, Bytes granule);
  /// Bytes one random read of a row of `row_bytes` moves: max(row_bytes, granule).
  [[nodiscard]] Bytes access_bytes(Bytes row_bytes) const;
  /// One core's time per row read (`update`: per read-modify-write); 0 when no per-core figure
  /// is given (the cores are then not a limit).
  [[nodiscard]] Seconds core_time(Bytes row_bytes, bool update) const;
  /// Whether any figure bounds the accesses (otherwise their time is infinite).
  [[nodiscard]] bool has_rate() const;
};

/// The same socket's accesses to rows in its CXL memory expanders (the cxl placement tier):
/// bandwidth the expanders' (bandwidth x count), and each core's row costs scaled by the
/// expanders' load latency over the socket's DRAM latency (a core keeps as many misses in
/// flight, each waiting longer: Little's law, as a row profile is carried between CPUs above).
/// std::invalid_argument when the socket gives no dram_latency but has per-core figures.
CpuRowAccess with_cxl_memory(const CpuRowAccess& dram, const CxlMemorySpec& cxl);

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
/// Check: for a 512-byte row of an EPYC 7742 (110 ns, 8 GB/s per core) it is
/// 110 + 1024 / 8 = 238 ns; one thread updating random 512-byte rows on this project's build
/// machine (Zen 3, no lock) measured 243 ns (configs/calibration/cpu-amd-epyc-2cpu.yaml,
/// update.per_core: 27.7 ns + 512 B / 2.378 GB/s).
Seconds cpu_update_time(const CpuRowAccess& cpu, double rows, Bytes row_bytes, Bytes state_bytes_per_row,
                        double serial_share = 0.0);

}  // namespace dlrmsim::topo
