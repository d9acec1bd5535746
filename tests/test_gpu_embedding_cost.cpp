// The one GPU embedding cost model (topologies/gpu_embedding_cost.hpp), which the placement
// planner's gpu_hbm and uvm tiers and the simulation's step builder both read: every field of
// one shard's cost against its closed form.
#include <doctest/doctest.h>

#include "approx.hpp"

#include "topologies/gpu_embedding_cost.hpp"

using namespace dlrmsim;
using namespace dlrmsim::topo;

namespace {

// Round figures: HBM 2 TB/s (achievable 90 %), gathers at most 60 % of it with half
// efficiency at 64-byte rows and 2 rows per bag, 32-byte sectors; row-wise Adagrad backward
// 3x the forward; PCIe zero-copy gathers at 25 GB/s x 0.7 in 64-byte units. No latency
// bound or kernel floor is set, so every time is bytes over a rate.
DeviceProfile round_profile() {
  DeviceProfile p;
  p.name = "round";
  p.memory.hbm_bandwidth = BytesPerSecond(2e12);
  p.memory.achievable_fraction = 0.9;
  p.gather.access_granule = Bytes(32.0);
  p.gather.max_efficiency = 0.6;
  p.gather.row_half = Bytes(64.0);
  p.gather.pooling_half = 2.0;
  p.embedding_backward.sgd_multiple = 1.5;
  p.embedding_backward.rowwise_adagrad_multiple = 3.0;
  p.uvm_gather.pcie_bandwidth = BytesPerSecond(25e9);
  p.uvm_gather.access_granule = Bytes(64.0);
  p.uvm_gather.max_efficiency = 0.7;
  p.uvm_gather.row_half = Bytes(0.0);
  return p;
}

}  // namespace

// System: one uvm shard of 64 fp32 columns (256 B rows) on the round profile, 524,288 lookups
// of 65,536 samples (pooling 8), a quarter of them cache hits, 262,144 distinct rows; Adam
// with fp32 moments (2 x 64 x 4 = 512 B of state per row); deduplicated backward, unfused
// optimiser; fp32 bags.
// Expected (device_profile.hpp's forms):
//  - gather efficiency 0.6 x 256 / (256 + 64) x 8 / (8 + 2) = 0.384, so a lookup costs
//    256 B / (2 TB/s x 0.384) and the forward of the 131,072 hits 131,072 x that;
//  - backward over all 524,288 lookups: 3 x their forward x (s + (1 - s) x 0.5), s = 256 /
//    (3 x 256 + 2 x 4) the row-wise Adagrad per-lookup share, times Adam's (256 + 512) /
//    (256 + 4) for the per-element moments the update moves with each row;
//  - unfused optimiser: 2 x 524,288 x 256 B over 1.8 TB/s, and those bytes in HBM;
//  - HBM: forward 131,072 x 256 B + 65,536 x 64 x 4 B of bags; backward the bags' gradients
//    + 2 x 262,144 distinct x (256 + 512) B;
//  - host memory: the 393,216 misses, 393,216 x 256 B, at 25 GB/s x 0.7 (256 B is a multiple
//    of the 64-byte unit).
TEST_CASE("GPU shard cost: forward, backward with Adam, unfused optimiser, HBM and PCIe bytes in closed form") {
  const DeviceProfile p = round_profile();
  GpuShardWork w;
  w.lookups = 524'288.0;
  w.hbm_lookups = 131'072.0;
  w.samples = 65'536.0;
  w.row_bytes = Bytes(256.0);
  w.columns = 64;
  w.distinct_rows = 262'144.0;
  w.bag_element = Bytes(4.0);
  w.optimizer_state_per_row = Bytes(512.0);
  GpuEmbeddingSoftware sw;
  sw.deduplicated_backward = true;
  sw.fused_optimizer = false;
  sw.update = {EmbeddingOptimizer::rowwise_adagrad, 2.0, Bytes(4.0)};
  const GpuShardCost c = gpu_shard_cost(p, w, sw);

  const double per_lookup = 256.0 / (2e12 * 0.384);
  CHECK(c.forward.value() == dlrmsim::rel(131'072.0 * per_lookup));
  const double share = 256.0 / (3.0 * 256.0 + 8.0);
  const double adam = (256.0 + 512.0) / (256.0 + 4.0);
  CHECK(c.backward.value() == dlrmsim::rel(524'288.0 * per_lookup * 3.0 * (share + (1.0 - share) * 0.5) * adam));
  CHECK(c.separate_optimizer.value() == dlrmsim::rel(2.0 * 524'288.0 * 256.0 / 1.8e12));
  CHECK(c.hbm_separate_optimizer.value() == dlrmsim::rel(2.0 * 524'288.0 * 256.0));
  CHECK(c.hbm_forward.value() == dlrmsim::rel(131'072.0 * 256.0 + 65'536.0 * 64.0 * 4.0));
  CHECK(c.hbm_backward.value() == dlrmsim::rel(65'536.0 * 64.0 * 4.0 + 2.0 * 262'144.0 * (256.0 + 512.0)));
  CHECK(c.host_rows == 393'216.0);
  CHECK(c.host_bytes.value() == dlrmsim::rel(393'216.0 * 256.0));
  CHECK(c.host_time.value() == dlrmsim::rel(393'216.0 * 256.0 / (25e9 * 0.7)));

  // Without deduplication the backward updates every lookup's row (scale 1); fused, the
  // optimiser adds nothing; SGD uses its own multiple and no state scaling.
  sw.deduplicated_backward = false;
  sw.fused_optimizer = true;
  sw.update = {EmbeddingOptimizer::sgd, 0.0, Bytes(4.0)};
  w.optimizer_state_per_row = Bytes(0.0);
  const GpuShardCost s = gpu_shard_cost(p, w, sw);
  CHECK(s.backward.value() == dlrmsim::rel(524'288.0 * per_lookup * 1.5));
  CHECK(s.separate_optimizer.value() == 0.0);
  CHECK(s.hbm_separate_optimizer.value() == 0.0);
  CHECK(s.hbm_backward.value() == dlrmsim::rel(65'536.0 * 64.0 * 4.0 + 2.0 * 524'288.0 * 256.0));
}

// System: the same shard with every lookup in HBM (gpu_hbm). Expected: no host rows, bytes or
// time; gpu_shard_traffic gives the same bytes as gpu_shard_cost and no times.
TEST_CASE("GPU shard cost: a shard wholly in HBM reads nothing over PCIe; traffic needs no profile") {
  const DeviceProfile p = round_profile();
  GpuShardWork w;
  w.lookups = 1000.0;
  w.hbm_lookups = 1000.0;
  w.samples = 500.0;
  w.row_bytes = Bytes(128.0);
  w.columns = 32;
  w.distinct_rows = 800.0;
  const GpuEmbeddingSoftware sw;
  const GpuShardCost c = gpu_shard_cost(p, w, sw);
  CHECK(c.host_rows == 0.0);
  CHECK(c.host_bytes.value() == 0.0);
  CHECK(c.host_time.value() == 0.0);
  const GpuShardCost t = gpu_shard_traffic(w, sw);
  CHECK(t.hbm_forward.value() == c.hbm_forward.value());
  CHECK(t.hbm_backward.value() == c.hbm_backward.value());
  CHECK(t.forward.value() == 0.0);
  CHECK(t.backward.value() == 0.0);
}
