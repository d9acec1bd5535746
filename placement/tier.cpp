#include "placement/tier.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "topologies/cpu_row_cost.hpp"
#include "topologies/nvme_cost.hpp"

namespace dlrmsim::placement {

// The implementations, one file each in placement/tiers/.
const MemoryTier& gpu_hbm_tier();
const MemoryTier& host_dram_tier();
const MemoryTier& uvm_tier();
const MemoryTier& remote_ps_tier();
const MemoryTier& ssd_tier();
const MemoryTier& cxl_tier();

std::span<const MemoryTier* const> memory_tiers() {
  // In the order of the Tier values (tier_of(Tier) indexes it).
  static const std::array<const MemoryTier*, 6> tiers{&gpu_hbm_tier(),   &host_dram_tier(), &uvm_tier(),
                                                      &remote_ps_tier(), &ssd_tier(),       &cxl_tier()};
  return tiers;
}

const MemoryTier& tier_of(Tier tier) {
  const auto all = memory_tiers();
  const auto i = static_cast<std::size_t>(tier);
  if (i >= all.size() || all[i]->id() != tier) {
    throw std::logic_error("memory tier " + std::to_string(i) + " is not registered in its Tier slot (placement/tier.cpp)");
  }
  return *all[i];
}

const MemoryTier& tier_of(std::string_view name) {
  std::string known;
  for (const MemoryTier* t : memory_tiers()) {
    if (t->name() == name) return *t;
    known += (known.empty() ? "" : ", ") + std::string(t->name());
  }
  throw std::invalid_argument("unknown memory tier '" + std::string(name) + "' (expected one of " + known + ")");
}

bool MemoryTier::can_own(const PlacementDevice& device) const { return device.kind == properties().owner_kind; }

std::uint32_t MemoryTier::storage_of(const PlacementProblem&, std::uint32_t owner) const { return owner; }

std::vector<std::pair<std::uint32_t, double>> MemoryTier::memory_needed(const PlacementProblem& problem,
                                                                        const TableDemand& table, std::uint32_t owner,
                                                                        std::int64_t rows, int columns,
                                                                        double cache_fraction) const {
  const double bytes = table.footprint(rows, columns).value();
  const std::uint32_t storage = storage_of(problem, owner);
  if (!properties().hbm_cache) return {{storage, bytes}};
  const double cache_rows = std::round(cache_fraction * static_cast<double>(rows));
  const double cache = table.element_size.value() * cache_rows * columns;
  return {{owner, cache}, {storage, bytes}};
}

namespace {

/// The estimate without the storage reads and writes, summed in one fixed order (the
/// placement policies compare estimates, so their rounding decides ties).
Seconds without_storage(const ShardCost& c) {
  return std::max(c.forward, c.host_time) + c.backward + c.separate_optimizer + c.host_time + c.transfer;
}

}  // namespace

Seconds ShardCost::storage_exposed() const {
  const Seconds storage = storage_read + storage_write;
  return prefetched ? topo::prefetch_exposed(storage, without_storage(*this)) : storage;
}

Seconds ShardCost::estimate() const { return without_storage(*this) + storage_exposed(); }

Seconds transfer_time(double bytes, BytesPerSecond bandwidth, double efficiency) {
  if (bytes <= 0.0) return Seconds(0.0);
  const double rate = bandwidth.value() * efficiency;
  return Seconds(rate > 0.0 ? bytes / rate : std::numeric_limits<double>::infinity());
}

ShardCost gpu_owner_cost(const ShardCostInput& in, double hbm_lookups) {
  const PlacementDevice& d = in.device;
  const LookupWork& w = in.work;
  const Bytes row{in.table.element_size.value() * w.columns};
  const topo::GpuShardWork work{w.lookups,          hbm_lookups, w.samples, row, w.columns, w.distinct_rows,
                                in.problem.wire_element_size, in.table.optimizer_state_per_row};
  ShardCost c;
  topo::GpuShardCost& g = c;
  if (in.profile) {
    g = topo::gpu_shard_cost(*in.profile, work, in.software);
  } else {
    // No profile: peak figures x the device's efficiencies, each row read at least its granule.
    g = topo::gpu_shard_traffic(work, in.software);
    const double row_read = std::max(row.value(), d.access_granule.value());
    g.forward = transfer_time(hbm_lookups * row_read, d.memory_bandwidth, d.gather_efficiency);
    g.backward = transfer_time(w.lookups * row_read, d.memory_bandwidth, d.gather_efficiency) * d.backward_factor;
    g.separate_optimizer = transfer_time(g.hbm_separate_optimizer.value(), d.memory_bandwidth, 1.0);
    g.host_time = transfer_time(g.host_rows * row_read, d.host_link_bandwidth, d.zero_copy_efficiency);
  }
  // The owner's cross-node exchange goes through its NIC, one direction at a time (ids in,
  // outputs out, gradients in): an owner of many narrow tables computes little but loads its
  // NIC most.
  if (w.network_bytes.value() > 0.0 && d.network_bandwidth.value() > 0.0) {
    c.transfer = w.network_bytes / d.network_bandwidth;
    const Bytes exchanged = w.ids_in + w.outputs_out + w.gradients_in;
    if (exchanged.value() > 0.0) c.transfer_forward = c.transfer * ((w.ids_in + w.outputs_out) / exchanged);
  }
  return c;
}

ShardCost cpu_owner_cost(const ShardCostInput& in, double serial_share, BytesPerSecond link) {
  const LookupWork& w = in.work;
  const Bytes row{in.table.element_size.value() * w.columns};
  const auto& cpu = in.device.cpu_rows;
  ShardCost c;
  // Forward gather, then the backward's read-modify-write of the same rows and their optimiser
  // state (what the simulation's CPU owners do, models/owner_work.cpp).
  c.forward = topo::cpu_gather_time(cpu, w.lookups, row);
  c.backward = topo::cpu_update_time(cpu, w.lookups, row, in.table.optimizer_state_per_row, serial_share);
  // Pooled rows out, their gradients back, ids in.
  const double pooled_bytes = w.samples * row.value();
  const double id_bytes = w.lookups * kIndexBytes.value();
  c.transfer = transfer_time(2.0 * pooled_bytes + id_bytes, link, 1.0);
  c.transfer_forward = transfer_time(pooled_bytes + id_bytes, link, 1.0);
  return c;
}

}  // namespace dlrmsim::placement
