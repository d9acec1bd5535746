#include "topologies/cpu_row_cost.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace dlrmsim::topo {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// One core's time for one row; `probe`: resolve its id through the hash map first.
Seconds row_core_time(const CpuRowAccess& cpu, Bytes row, bool update, bool probe) {
  if (cpu.measured) {
    const CoreRowCosts& m = *cpu.measured;
    if (update) return probe ? m.hash_update(row) : m.update(row);
    Seconds t = m.gather(row);
    if (probe) t += std::max(Seconds(0.0), m.hash_update(row) - m.update(row));
    return t;
  }
  return cpu.one_core.value() > 0.0 ? cpu.access_bytes(row) / cpu.one_core : Seconds(0.0);
}

/// rows x max(one core's time / cores, DRAM traffic / DRAM bandwidth), a zero figure not a limit.
Seconds bounded(const CpuRowAccess& cpu, double rows, Seconds core_time, Bytes traffic) {
  double per_row = 0.0;
  if (core_time.value() > 0.0 && cpu.cores > 0.0) per_row = core_time.value() / cpu.cores;
  if (cpu.dram_bandwidth.value() > 0.0) per_row = std::max(per_row, (traffic / cpu.dram_bandwidth).value());
  return Seconds(per_row > 0.0 ? rows * per_row : kInfinity);
}

/// DRAM bytes of one update of a row and of its optimiser state (read, then written back).
Bytes update_traffic(const CpuRowAccess& cpu, Bytes row, Bytes state) {
  Bytes bytes = cpu.access_bytes(row) * 2.0;
  if (state.value() > 0.0) bytes += cpu.access_bytes(state) * 2.0;
  return bytes;
}

/// The map slot a keyed access reads (measured parameter servers only, see the header).
Bytes probe_traffic(const CpuRowAccess& cpu) { return cpu.keyed && cpu.measured ? cpu.granule : Bytes(0.0); }

}  // namespace

CoreRowCosts CoreRowCosts::scaled(std::shared_ptr<const CpuProfile> profile, Seconds latency) {
  if (!(profile->dram_latency.value() > 0.0)) {
    throw std::invalid_argument("the CPU profile '" + profile->name +
                                "' gives no dram_latency: its row rates cannot be carried to another CPU");
  }
  if (!(latency.value() > 0.0)) throw std::invalid_argument("a CPU with a row profile needs its dram_latency");
  const double factor = latency / profile->dram_latency;
  return {std::move(profile), factor};
}

CpuRowAccess CpuRowAccess::of(const CpuSocketSpec& cpu, Bytes granule) {
  CpuRowAccess access;
  access.dram_bandwidth = cpu.dram_bandwidth;
  access.cores = static_cast<double>(cpu.cores);
  access.one_core = cpu.gather_bandwidth_per_core;
  access.granule = granule;
  access.latency = cpu.dram_latency;
  if (cpu.row_profile) access.measured = CoreRowCosts::scaled(cpu.row_profile, cpu.dram_latency);
  return access;
}

Bytes CpuRowAccess::access_bytes(Bytes row_bytes) const { return row_bytes < granule ? granule : row_bytes; }

Seconds CpuRowAccess::core_time(Bytes row_bytes, bool update) const {
  return row_core_time(*this, row_bytes, update, keyed);
}

bool CpuRowAccess::has_rate() const {
  return dram_bandwidth.value() > 0.0 || (cores > 0.0 && (measured || one_core.value() > 0.0));
}

CpuRowAccess with_cxl_memory(const CpuRowAccess& dram, const CxlMemorySpec& cxl) {
  CpuRowAccess a = dram;
  a.dram_bandwidth = cxl.bandwidth * static_cast<double>(std::max(cxl.count, 1));
  a.latency = cxl.load_latency;
  if (dram.measured || dram.one_core.value() > 0.0) {
    if (!(dram.latency.value() > 0.0)) {
      throw std::invalid_argument("CXL memory '" + cxl.model +
                                  "': its rows' per-core cost is the socket's scaled by the load latencies, and the "
                                  "socket gives no dram_latency");
    }
    const double slower = cxl.load_latency / dram.latency;
    if (a.measured) a.measured->factor *= slower;
    a.one_core = a.one_core / slower;
  }
  return a;
}

Seconds cpu_gather_time(const CpuRowAccess& cpu, double rows, Bytes row_bytes) {
  if (rows <= 0.0) return Seconds(0.0);
  return bounded(cpu, rows, cpu.core_time(row_bytes, false), cpu.access_bytes(row_bytes) + probe_traffic(cpu));
}

Seconds cpu_update_time(const CpuRowAccess& cpu, double rows, Bytes row_bytes, Bytes state_bytes_per_row,
                        double serial_share) {
  if (rows <= 0.0) return Seconds(0.0);
  if (cpu.keyed) {
    // A parameter server keeps the optimiser state in the row's entry: one access of both.
    row_bytes += state_bytes_per_row;
    state_bytes_per_row = Bytes(0.0);
  }
  Seconds core = cpu.core_time(row_bytes, true);
  // Elsewhere the state is a table of its own: a miss of its own, found without a probe.
  if (state_bytes_per_row.value() > 0.0) core += row_core_time(cpu, state_bytes_per_row, true, false);
  const Bytes traffic = update_traffic(cpu, row_bytes, state_bytes_per_row);
  const Seconds parallel = bounded(cpu, rows, core, traffic + probe_traffic(cpu));
  if (!(serial_share > 0.0)) return parallel;
  if (!(cpu.latency.value() > 0.0 && cpu.one_core.value() > 0.0)) return Seconds(kInfinity);
  const Seconds chain = (cpu.latency + traffic / cpu.one_core) * (rows * serial_share);
  return std::max(parallel, chain);
}

}  // namespace dlrmsim::topo
