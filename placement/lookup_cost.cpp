#include "placement/lookup_cost.hpp"

#include <algorithm>
#include <cmath>

#include "placement/cache_model.hpp"
#include "placement/tier.hpp"

namespace dlrmsim::placement {

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
    w.samples *= table.outputs_per_sample;
  } else {
    w.samples = batch;  // every sample has a (partial) pooled vector from this shard
    w.lookups = batch * table.lookups_per_sample * row_fraction;
    w.samples *= table.outputs_per_sample;  // a sequence table returns one row per event
    // A GPU owner's pooled values and their gradients may travel quantised, each direction in
    // its own wire type (PlacementProblem::gpu_wire_forward / gpu_wire_backward).
    const bool gpu = tier_of(shard.tier).properties().owner_kind == OwnerKind::gpu;
    const Bytes out = gpu ? problem.gpu_wire_forward : problem.wire_element_size;
    const Bytes back = gpu ? problem.gpu_wire_backward : problem.wire_element_size;
    const Bytes pooled = (out + back) * (w.samples * w.columns);
    w.ids_in = kIndexBytes * w.lookups;
    w.outputs_out = out * (w.samples * w.columns);
    w.gradients_in = back * (w.samples * w.columns);
    w.network_bytes = (pooled + kIndexBytes * w.lookups) * problem.off_node_fraction;
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
  const topo::DeviceProfile* profile = d.kind == OwnerKind::gpu ? d.profile.get() : nullptr;
  return tier_of(tier).cost({problem, d, table, w, profile, problem.gpu_embedding}).estimate();
}

}  // namespace dlrmsim::placement
