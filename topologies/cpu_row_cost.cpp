#include "topologies/cpu_row_cost.hpp"

#include <algorithm>
#include <limits>

namespace dlrmsim::topo {

CpuRowAccess CpuRowAccess::of(const CpuSocketSpec& cpu, Bytes granule) {
  return {cpu.dram_bandwidth, cpu.gather_bandwidth_per_core * static_cast<double>(cpu.cores), granule,
          cpu.gather_bandwidth_per_core, cpu.dram_latency};
}

BytesPerSecond CpuRowAccess::rate() const {
  if (core_gather_bandwidth.value() <= 0.0) return dram_bandwidth;
  if (dram_bandwidth.value() <= 0.0) return core_gather_bandwidth;
  return std::min(core_gather_bandwidth, dram_bandwidth);
}

Bytes CpuRowAccess::access_bytes(Bytes row_bytes) const { return row_bytes < granule ? granule : row_bytes; }

namespace {
Seconds over_rate(Bytes bytes, BytesPerSecond rate) {
  if (!(rate.value() > 0.0)) return Seconds(std::numeric_limits<double>::infinity());
  return bytes / rate;
}
}  // namespace

Seconds cpu_gather_time(const CpuRowAccess& cpu, double rows, Bytes row_bytes) {
  if (rows <= 0.0) return Seconds(0.0);
  return over_rate(cpu.access_bytes(row_bytes) * rows, cpu.rate());
}

Seconds cpu_update_time(const CpuRowAccess& cpu, double rows, Bytes row_bytes, Bytes state_bytes_per_row,
                        double serial_share) {
  if (rows <= 0.0) return Seconds(0.0);
  Bytes per_row = cpu.access_bytes(row_bytes) * 2.0;
  if (state_bytes_per_row.value() > 0.0) per_row += cpu.access_bytes(state_bytes_per_row) * 2.0;
  const Seconds parallel = over_rate(per_row * rows, cpu.rate());
  if (!(serial_share > 0.0)) return parallel;
  if (!(cpu.latency.value() > 0.0)) return Seconds(std::numeric_limits<double>::infinity());
  const Seconds chain = (cpu.latency + over_rate(per_row, cpu.one_core)) * (rows * serial_share);
  return std::max(parallel, chain);
}

}  // namespace dlrmsim::topo
