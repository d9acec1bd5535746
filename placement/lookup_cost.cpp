#include "placement/lookup_cost.hpp"

#include <algorithm>
#include <limits>

#include "placement/cache_model.hpp"
#include "topologies/cpu_row_cost.hpp"

namespace dlrmsim::placement {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

double seconds_for(double bytes, BytesPerSecond bandwidth, double efficiency) {
  if (bytes <= 0.0) return 0.0;
  const double rate = bandwidth.value() * efficiency;
  return rate > 0.0 ? bytes / rate : kInfinity;
}

// Forward gather, then the backward's read-modify-write of the same rows and their optimiser
// state (what the simulation's CPU owners do, models/owner_work.cpp), `serial_share` of the
// updates one after another under a lock.
double cpu_lookup_seconds(const PlacementDevice& d, const TableDemand& table, const LookupWork& w, Bytes row,
                          double serial_share) {
  const auto& cpu = d.cpu_rows;
  return (topo::cpu_gather_time(cpu, w.lookups, row) +
          topo::cpu_update_time(cpu, w.lookups, row, table.optimizer_state_per_row, serial_share))
      .value();
}

}  // namespace

double distinct_fraction_over(const TableDemand& table, double samples) {
  const double table_lookups = samples * table.lookups_per_sample;
  if (!(table_lookups > 0.0) || table.rows <= 0) return 1.0;
  return expected_distinct_rows(table.access, static_cast<double>(table.rows), table_lookups) / table_lookups;
}

double table_distinct_fraction(const PlacementProblem& problem, const TableDemand& table) {
  return distinct_fraction_over(table, static_cast<double>(problem.global_batch));
}

LookupWork shard_work(const PlacementProblem& problem, const TableDemand& table, const Shard& shard,
                      Sharding sharding) {
  return shard_work(problem, table, shard, sharding, table_distinct_fraction(problem, table));
}

LookupWork shard_work(const PlacementProblem& problem, const TableDemand& table, const Shard& shard,
                      Sharding sharding, double distinct_fraction) {
  LookupWork w;
  w.columns = shard.column_count();
  w.hit_rate = shard.expected_hit_rate;
  const double batch = static_cast<double>(problem.global_batch);
  const double row_fraction =
      table.rows > 0 ? static_cast<double>(shard.row_count()) / static_cast<double>(table.rows) : 0.0;
  if (sharding == Sharding::data_parallel) {
    // Every replica serves its own trainer's share of the batch.
    const double replicas = std::max<double>(1.0, static_cast<double>(shard.owners.size()));
    w.samples = batch / replicas;
    w.lookups = w.samples * table.lookups_per_sample;
  } else {
    w.samples = batch;  // every sample has a (partial) pooled vector from this shard
    w.lookups = batch * table.lookups_per_sample * row_fraction;
    const Bytes pooled = problem.wire_element_size * (w.samples * w.columns);
    w.network_bytes = (pooled * 2.0 + kIndexBytes * w.lookups) * problem.off_node_fraction;
  }
  // Each owner's lookups repeat rows as often as the table's do over one step: the table's
  // distinct rows for the whole batch, pro rata (exact when rows are spread over shards and
  // replicas independently of their popularity).
  w.distinct_rows = w.lookups * distinct_fraction;
  if (problem.striped_host_updates) w.serial_update_share = striped_lock_share(table, shard.row_begin, shard.row_end, w.lookups);
  return w;
}

double striped_lock_share(const TableDemand& table, std::int64_t row_begin, std::int64_t row_end, double updates) {
  const double n = static_cast<double>(row_end - row_begin);
  if (!(n > 0.0) || !(updates > 0.0)) return 0.0;
  if (updates < kHostUpdateSerialBelow || std::floor(updates / n) > kHostUpdateSerialPerRow) return 1.0;
  const double rows = static_cast<double>(table.rows);
  const double stripe = std::ceil(n / kHostUpdateLockStripes);
  auto top = [&](double k) {
    return k <= 0.0 ? 0.0 : cache_hit_rate(table.access, rows, std::min(k, rows), CacheModel::static_top_k);
  };
  if (table.access.ids_by_frequency) {
    const double b = static_cast<double>(row_begin);
    const double all = top(b + n) - top(b);
    if (!(all > 0.0)) return stripe / n;
    return std::clamp((top(b + stripe) - top(b)) / all, 0.0, 1.0);
  }
  const double k = std::max(1.0, std::round(rows / n));
  return std::clamp((top(k) - top(k - 1.0)) / (n / rows) + stripe / n, 0.0, 1.0);
}

Seconds lookup_time(const PlacementProblem& problem, const PlacementDevice& d, Tier tier, const TableDemand& table,
                    const LookupWork& w) {
  const Bytes row{table.element_size.value() * w.columns};
  const double row_bytes = std::max(row.value(), d.access_granule.value());
  const double pooled_bytes = w.samples * row.value();
  const double id_bytes = w.lookups * kIndexBytes.value();
  // The profile's gather efficiency is defined for bags of at least one row.
  const double pooling = std::max(table.lookups_per_sample, 1.0);
  const topo::DeviceProfile* profile = d.kind == DeviceKind::gpu ? d.profile.get() : nullptr;
  const double backward_multiple =
      profile ? profile->embedding_backward.multiple(problem.embedding_optimizer) : d.backward_factor;
  // The GPU backward (sort, segment-reduce, update) touches each distinct row once.
  const double distinct_fraction = w.lookups > 0.0 ? std::clamp(w.distinct_rows / w.lookups, 1e-12, 1.0) : 1.0;
  auto hbm_backward = [&](double lookups) {
    if (lookups <= 0.0) return 0.0;
    if (profile) {
      return profile->embedding_backward_time(lookups, row, pooling, problem.embedding_optimizer, distinct_fraction)
          .value();
    }
    return backward_multiple * seconds_for(lookups * row_bytes, d.memory_bandwidth, d.gather_efficiency);
  };
  auto hbm_forward = [&](double lookups) {
    if (lookups <= 0.0) return 0.0;
    if (profile) return profile->embedding_forward_time(lookups, row, pooling).value();
    return seconds_for(lookups * row_bytes, d.memory_bandwidth, d.gather_efficiency);
  };
  // A GPU owner's cross-node exchange goes through its NIC, one direction at a time (ids in,
  // outputs out, gradients in): an owner of many narrow tables computes little but loads its
  // NIC most.
  const double network = d.kind == DeviceKind::gpu && w.network_bytes.value() > 0.0 && d.network_bandwidth.value() > 0.0
                             ? (w.network_bytes / d.network_bandwidth).value()
                             : 0.0;
  double t = 0.0;
  switch (tier) {
    case Tier::gpu_hbm:
      t = hbm_forward(w.lookups) + hbm_backward(w.lookups) + network;
      break;
    case Tier::uvm: {
      const double hits = w.lookups * w.hit_rate;
      const double misses = w.lookups - hits;
      double miss_time = 0.0;
      if (misses > 0.0) {
        miss_time = profile ? profile->uvm_gather_time(misses, row).value()
                            : seconds_for(misses * row_bytes, d.host_link_bandwidth, d.zero_copy_efficiency);
      }
      t = hbm_forward(hits) + hbm_backward(hits) + (1.0 + backward_multiple) * miss_time + network;
      break;
    }
    case Tier::host_dram:
      t = cpu_lookup_seconds(d, table, w, row, w.serial_update_share) +
          seconds_for(2.0 * pooled_bytes + id_bytes, d.host_link_bandwidth, 1.0);
      break;
    case Tier::remote_ps:
      // A parameter server runs its own software, not the trainers' framework: no striping.
      t = cpu_lookup_seconds(d, table, w, row, 0.0) + seconds_for(2.0 * pooled_bytes + id_bytes, d.network_bandwidth, 1.0);
      break;
  }
  return Seconds(t);
}

}  // namespace dlrmsim::placement
