#include "topologies/gpu_embedding_cost.hpp"

#include <algorithm>

namespace dlrmsim::topo {

Seconds gpu_embedding_forward_time(const DeviceProfile& profile, const GatherWork& work) {
  if (work.lookups <= 0.0) return Seconds(0.0);
  return profile.embedding_forward_time(work.lookups, work.row_bytes, std::max(work.pooling, 1.0));
}

Seconds gpu_embedding_backward_time(const DeviceProfile& profile, const GatherWork& work, const EmbeddingUpdate& update) {
  if (work.lookups <= 0.0) return Seconds(0.0);
  const double pooling = std::max(work.pooling, 1.0);
  const Seconds measured =
      profile.embedding_backward_time(work.lookups, work.row_bytes, pooling, update.measured, work.distinct_fraction);
  if (!(update.state_values_per_element > 0.0)) return measured;
  // Per-element state moves with the row: scale the row-wise time by the bytes the update touches.
  const Bytes full_state = update.state_value * (update.state_values_per_element * static_cast<double>(work.columns));
  const Bytes rowwise_state = update.state_value;
  return measured * ((work.row_bytes + full_state) / (work.row_bytes + rowwise_state));
}

Seconds gpu_embedding_separate_optimizer_time(const DeviceProfile& profile, const GatherWork& work) {
  if (work.lookups <= 0.0) return Seconds(0.0);
  return work.row_bytes * (2.0 * work.lookups) / profile.achievable_hbm_bandwidth();
}

namespace {

double pooling_of(const GpuShardWork& work) { return work.samples > 0.0 ? work.lookups / work.samples : 1.0; }

// Distinct rows / lookups as the backward sees them: every lookup without deduplication; the
// lower bound 1e-12 only keeps a vanishing fraction positive (the profile's form needs it so).
double backward_distinct_fraction(const GpuShardWork& work, const GpuEmbeddingSoftware& software) {
  return work.lookups > 0.0 && software.deduplicated_backward ? std::clamp(work.distinct_rows / work.lookups, 1e-12, 1.0)
                                                                : 1.0;
}

}  // namespace

GpuShardCost gpu_shard_traffic(const GpuShardWork& work, const GpuEmbeddingSoftware& software) {
  GpuShardCost c;
  const Bytes row = work.row_bytes;
  const double lookups = work.lookups;
  if (!software.fused_optimizer) c.hbm_separate_optimizer = row * (2.0 * lookups);  // sparse gradient written, read back
  const Bytes bags = work.bag_element * (work.samples * work.columns);
  c.hbm_forward = row * work.hbm_lookups + bags;
  c.hbm_backward = bags + (row + work.optimizer_state_per_row) * (2.0 * lookups * backward_distinct_fraction(work, software));
  const double host_rows = lookups - work.hbm_lookups;
  if (host_rows > 0.0) {
    c.host_rows = host_rows;
    c.host_bytes = row * host_rows;
  }
  return c;
}

GpuShardCost gpu_shard_cost(const DeviceProfile& profile, const GpuShardWork& work, const GpuEmbeddingSoftware& software) {
  GpuShardCost c = gpu_shard_traffic(work, software);
  const Bytes row = work.row_bytes;
  const double pooling = pooling_of(work);
  const double distinct = backward_distinct_fraction(work, software);
  if (!software.fused_optimizer) {
    c.separate_optimizer = gpu_embedding_separate_optimizer_time(profile, {work.lookups, row, pooling, work.columns});
  }
  c.forward = gpu_embedding_forward_time(profile, {work.hbm_lookups, row, pooling, work.columns});
  c.backward =
      gpu_embedding_backward_time(profile, {work.lookups, row, pooling, work.columns, distinct}, software.update);
  if (c.host_rows > 0.0) c.host_time = profile.uvm_gather_time(c.host_rows, row);
  return c;
}

}  // namespace dlrmsim::topo
