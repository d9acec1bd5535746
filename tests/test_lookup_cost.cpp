// Per-shard lookup cost estimates (placement/lookup_cost.hpp): each tier's formula by hand,
// with and without a calibrated device profile.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <memory>

#include "placement/cache_model.hpp"
#include "placement/lookup_cost.hpp"
#include "placement_fixtures.hpp"

using namespace dlrmsim;
using namespace dlrmsim::placement;
using namespace dlrmsim::placement::testing;

namespace {

Shard whole(const TableDemand& t, Tier tier, std::uint32_t owner) {
  Shard s;
  s.tier = tier;
  s.owners = {owner};
  s.row_end = t.rows;
  s.column_end = t.dim;
  return s;
}

}  // namespace

// gpu_hbm without a profile: L = 65,536 samples x 4 lookups = 262,144 rows of 128 x 4 B =
// 512 B at 1 TB/s x 0.5, forward + backward (backward factor 1) = 2 x 0.268 ms.
TEST_CASE("gpu_hbm lookup time from bandwidth and gather efficiency") {
  PlacementProblem p = one_node(1, 80, 512);
  const auto t = table("t", 1'000'000, 128, 4);
  const auto w = shard_work(p, t, whole(t, Tier::gpu_hbm, 1), Sharding::table_wise);
  CHECK(w.lookups == 262'144.0);
  CHECK(w.samples == 65'536.0);
  const double expected = 2.0 * 262'144.0 * 512.0 / 0.5e12;
  CHECK(lookup_time(p, p.devices[1], Tier::gpu_hbm, t, w).value() == dlrmsim::rel(expected));
  // The access granule rounds short rows up: 4 columns x 4 B = 16 B read as 32 B.
  p.devices[1].access_granule = Bytes(32.0);
  const auto narrow = table("n", 1000, 4, 1);
  const auto wn = shard_work(p, narrow, whole(narrow, Tier::gpu_hbm, 1), Sharding::table_wise);
  CHECK(lookup_time(p, p.devices[1], Tier::gpu_hbm, narrow, wn).value() ==
        dlrmsim::rel(2.0 * 65'536.0 * 32.0 / 0.5e12));
}

// With a profile the GPU costs are the profile's: forward = L x access bytes / (HBM x gather
// efficiency(row, pooling)) and backward = the measured multiple, scaled for the distinct rows
// (device_profile.hpp); UVM misses use the profile's PCIe gather model.
TEST_CASE("a device profile replaces the plain GPU figures") {
  auto profile = std::make_shared<topo::DeviceProfile>();
  profile->memory.hbm_bandwidth = BytesPerSecond(2e12);
  profile->memory.achievable_fraction = 0.9;
  profile->gather.access_granule = Bytes(32.0);
  profile->gather.max_efficiency = 0.6;
  profile->gather.row_half = Bytes(64.0);
  profile->gather.pooling_half = 2.0;
  profile->embedding_backward.sgd_multiple = 1.5;
  profile->embedding_backward.rowwise_adagrad_multiple = 3.0;
  profile->uvm_gather.pcie_bandwidth = BytesPerSecond(25e9);
  profile->uvm_gather.access_granule = Bytes(64.0);
  profile->uvm_gather.max_efficiency = 0.7;
  profile->uvm_gather.row_half = Bytes(0.0);
  PlacementProblem p = one_node(1, 80, 512);
  p.devices[1].profile = profile;
  p.gpu_embedding.update.measured = topo::EmbeddingOptimizer::rowwise_adagrad;
  const auto t = table("t", 1'000'000, 64, 8);  // 256 B rows, pooling 8
  Shard s = whole(t, Tier::gpu_hbm, 1);
  const auto w = shard_work(p, t, s, Sharding::table_wise);
  const double forward = profile->embedding_forward_time(w.lookups, Bytes(256.0), 8.0).value();
  // efficiency = 0.6 x 256/(256+64) x 8/(8+2) = 0.384; L = 524,288 rows.
  CHECK(forward == dlrmsim::rel(524'288.0 * 256.0 / (2e12 * 0.384)));
  // Uniform ids: 524,288 lookups touch 10^6 (1 - exp(-0.524288)) distinct rows; row-wise
  // Adagrad's backward scales by g + (1 - g) x distinct / L with g = 256 / (3 x 256 + 2 x 4).
  const double distinct = 1e6 * -std::expm1(-524'288.0 / 1e6) / 524'288.0;
  CHECK(w.distinct_rows == dlrmsim::rel(distinct * w.lookups));
  const double g = 256.0 / (3.0 * 256.0 + 8.0);
  const double backward_scale = 3.0 * (g + (1.0 - g) * distinct);
  CHECK(lookup_time(p, p.devices[1], Tier::gpu_hbm, t, w).value() == dlrmsim::rel((1.0 + backward_scale) * forward));
  // uvm with a 25 % hit rate, as the simulation runs it (topologies/gpu_embedding_cost.hpp):
  // the forward gathers the hits from HBM while the misses are read over PCIe (zero-copy
  // gathers), the update runs over every lookup in the cache (backward scaled as above), then
  // the misses are written back: max(hits, misses) + backward + misses.
  s.tier = Tier::uvm;
  s.expected_hit_rate = 0.25;
  const auto wu = shard_work(p, t, s, Sharding::table_wise);
  const double hits = profile->embedding_forward_time(0.25 * wu.lookups, Bytes(256.0), 8.0).value();
  const double misses = 0.75 * wu.lookups * 256.0 / (25e9 * 0.7);
  REQUIRE(misses > hits);
  CHECK(lookup_time(p, p.devices[1], Tier::uvm, t, wu).value() ==
        dlrmsim::rel(misses + backward_scale * forward + misses));
}

// uvm without a profile: hit rate 1 costs exactly gpu_hbm; hit rate 0 reads every row over
// PCIe at 32 GB/s x 0.5 in the forward and writes it back after the update, which runs in
// the HBM cache at 1 TB/s x 0.5 (backward factor 1).
TEST_CASE("uvm lookup time spans HBM and PCIe with the hit rate") {
  PlacementProblem p = one_node(1, 80, 512);
  const auto t = table("t", 1'000'000, 128, 1);
  Shard s = whole(t, Tier::uvm, 1);
  s.expected_hit_rate = 1.0;
  const auto all_hits = lookup_time(p, p.devices[1], Tier::uvm, t, shard_work(p, t, s, Sharding::table_wise));
  const auto hbm = lookup_time(p, p.devices[1], Tier::gpu_hbm, t, shard_work(p, t, s, Sharding::table_wise));
  CHECK(all_hits.value() == dlrmsim::rel(hbm.value()));
  s.expected_hit_rate = 0.0;
  const auto no_hits = lookup_time(p, p.devices[1], Tier::uvm, t, shard_work(p, t, s, Sharding::table_wise));
  CHECK(no_hits.value() == dlrmsim::rel(2.0 * 65'536.0 * 512.0 / 16e9 + 65'536.0 * 512.0 / 0.5e12));
}

// host_dram: the CPU model of topologies/cpu_row_cost.hpp, as the simulation runs it. 65,536
// rows of 512 B (64-byte granule) with 4 bytes of row-wise Adagrad state (one 64-byte line):
// the gather costs the cores (10 at 5 GB/s) 512 B / 50 GB/s = 10.24 ns a row, DRAM (100 GB/s)
// 5.12 ns; the update the cores (512 + 64) B / 50 GB/s = 11.52 ns, DRAM its read and
// write-back 2 x (512 + 64) B / 100 GB/s = 11.52 ns; plus pooled rows and gradients
// (2 x 65,536 x 512 B) and int64 ids (65,536 x 8 B) over PCIe at 32 GB/s.
TEST_CASE("host_dram lookup time: CPU gather and read-modify-write plus PCIe transfer") {
  PlacementProblem p = one_node(1, 80, 512);
  p.devices[0].cpu_rows.granule = Bytes(64.0);
  const auto t = table("t", 1'000'000, 128, 1);
  const auto w = shard_work(p, t, whole(t, Tier::host_dram, 0), Sharding::table_wise);
  const double transfer = (2.0 * 65'536.0 * 512.0 + 65'536.0 * 8.0) / 32e9;
  CHECK(lookup_time(p, p.devices[0], Tier::host_dram, t, w).value() ==
        dlrmsim::rel(65'536.0 * (512.0 / 50e9 + 576.0 / 50e9) + transfer));
  // Faster cores (80 of them, 400 GB/s) leave DRAM bandwidth as the limit: (512 + 2 x 576) B.
  p.devices[0].cpu_rows.cores = 80.0;
  CHECK(lookup_time(p, p.devices[0], Tier::host_dram, t, w).value() ==
        dlrmsim::rel(65'536.0 * (512.0 + 2.0 * 576.0) / 100e9 + transfer));
  // A 256-byte granule (training.cpu.access_granule) rounds the 4-byte state up to 256 B.
  p.devices[0].cpu_rows.granule = Bytes(256.0);
  CHECK(lookup_time(p, p.devices[0], Tier::host_dram, t, w).value() ==
        dlrmsim::rel(65'536.0 * (3.0 * 512.0 + 2.0 * 256.0) / 100e9 + transfer));
}

// TensorFlow's striped CPU scatter (lookup_cost.hpp): 1,024,000 rows make stripes of 1,000.
//  - uniform access, hashed ids: the busiest stripe holds the shard's hottest row (1/N) and
//    its even share of the rest: 1/N + 1000/N = 1001/1,024,000;
//  - Zipf(1), ids by frequency: the first stripe holds ranks 1..1000, H(1000, 1) / H(N, 1)
//    of the accesses (about 0.52);
//  - a row shard [1000, 3000) of that table: stripes of 2 rows, ranks 1001-1002 of
//    1001-3000: (H(1002) - H(1000)) / (H(3000) - H(1000));
//  - TensorFlow runs serially below 1,024 updates and above 10,000 updates per row: share 1.
TEST_CASE("the busiest lock stripe's share of a striped host update") {
  auto t = table("t", 1'024'000, 128, 1);
  CHECK(striped_lock_share(t, 0, t.rows, 65'536.0) == dlrmsim::rel(1001.0 / 1'024'000.0));
  t.access = AccessDistribution::zipf(1.0);
  t.access.ids_by_frequency = true;
  const double n = 1'024'000.0;
  CHECK(striped_lock_share(t, 0, t.rows, 65'536.0) ==
        dlrmsim::rel(generalized_harmonic(1000.0, 1.0) / generalized_harmonic(n, 1.0)));
  const double h1000 = generalized_harmonic(1000.0, 1.0);
  CHECK(striped_lock_share(t, 1000, 3000, 65'536.0) ==
        dlrmsim::rel((generalized_harmonic(1002.0, 1.0) - h1000) / (generalized_harmonic(3000.0, 1.0) - h1000)));
  CHECK(striped_lock_share(t, 0, t.rows, 1000.0) == 1.0);
  auto tiny = table("tiny", 4, 128, 1);
  CHECK(striped_lock_share(tiny, 0, 4, 65'536.0) == 1.0);   // 16,384 updates per row
  CHECK(striped_lock_share(tiny, 0, 4, 40'000.0) < 1.0);    // 10,000 per row: parallel
}

// The planner costs a striped host update as the simulation does (topologies/cpu_row_cost.hpp):
// the fixture's socket (10 cores at 5 GB/s, 100 GB/s DRAM) with a 100 ns latency, the Zipf(1)
// table above with ids by frequency, 65,536 lookups of 512-byte rows with 4 bytes of state
// (1,152 B of update traffic per row with the 64-byte granule). The chain of the first stripe,
// share x 65,536 x (100 ns + 1,152 B / 5 GB/s), outlasts the parallel update (65,536 x
// 11.52 ns = 0.75 ms, the test above) and replaces it; without striping the plain formula
// stands, and a parameter server (its own software) is never striped.
TEST_CASE("host_dram lookup time with striped host updates") {
  PlacementProblem p = one_node(1, 80, 512, 1);
  p.devices[0].cpu_rows.granule = Bytes(64.0);
  p.devices[0].cpu_rows.latency = Seconds(100e-9);
  auto t = table("t", 1'024'000, 128, 1);
  t.access = AccessDistribution::zipf(1.0);
  t.access.ids_by_frequency = true;
  const double lookups = 65'536.0;
  const double gather = lookups * 512.0 / 50e9;
  const double parallel = lookups * 1152.0 / 100e9;
  const double transfer = (2.0 * lookups * 512.0 + lookups * 8.0) / 32e9;
  const auto plain = shard_work(p, t, whole(t, Tier::host_dram, 0), Sharding::table_wise);
  CHECK(plain.serial_update_share == 0.0);
  CHECK(lookup_time(p, p.devices[0], Tier::host_dram, t, plain).value() == dlrmsim::rel(gather + parallel + transfer));
  p.striped_host_updates = true;
  const auto w = shard_work(p, t, whole(t, Tier::host_dram, 0), Sharding::table_wise);
  const double share = striped_lock_share(t, 0, t.rows, lookups);
  CHECK(w.serial_update_share == share);
  const double chain = share * lookups * (100e-9 + 1152.0 / 5e9);
  REQUIRE(chain > parallel);
  CHECK(lookup_time(p, p.devices[0], Tier::host_dram, t, w).value() == dlrmsim::rel(gather + chain + transfer));
  // The server (fixture: 20 cores at 5 GB/s, 200 GB/s DRAM, no granule) costs the plain formula
  // (the remote_ps test below) although its work carries the share.
  const auto served = shard_work(p, t, whole(t, Tier::remote_ps, 2), Sharding::table_wise);
  REQUIRE(served.serial_update_share > 0.0);
  CHECK(lookup_time(p, p.devices[2], Tier::remote_ps, t, served).value() ==
        dlrmsim::rel(lookups * (512.0 + 516.0) / 100e9 + (2.0 * lookups * 512.0 + lookups * 8.0) / 12.5e9));
}

// remote_ps: the same CPU gather and update on the server (20 cores at 5 GB/s, 200 GB/s DRAM;
// the fixture gives no granule, so the state moves its 4 bytes): the gather costs the cores
// 512 B / 100 GB/s (DRAM 512 B / 200 GB/s), the update the cores (512 + 4) B / 100 GB/s and
// DRAM 2 x 516 B / 200 GB/s, the same; plus the pooled traffic over its 12.5 GB/s NIC.
TEST_CASE("remote_ps lookup time: server gather and update plus network transfer") {
  PlacementProblem p = one_node(1, 80, 512, 1);
  const auto t = table("t", 1'000'000, 128, 1);
  const auto w = shard_work(p, t, whole(t, Tier::remote_ps, 2), Sharding::table_wise);
  const double expected = 65'536.0 * (512.0 + 516.0) / 100e9 +
                          (2.0 * 65'536.0 * 512.0 + 65'536.0 * 8.0) / 12.5e9;
  CHECK(lookup_time(p, p.devices[2], Tier::remote_ps, t, w).value() == dlrmsim::rel(expected));
}

// A row shard with a quarter of the rows gets a quarter of the lookups (hashed ids) but
// produces a partial pooled vector for every sample; a data-parallel replica on each of 4
// GPUs serves a quarter of the batch.
TEST_CASE("work per owner for row shards and replicas") {
  PlacementProblem p = one_node(4, 80, 512);
  const auto t = table("t", 1'000'000, 128, 2);
  Shard s = whole(t, Tier::gpu_hbm, 1);
  s.row_begin = 250'000;
  s.row_end = 500'000;
  const auto w = shard_work(p, t, s, Sharding::row_wise);
  CHECK(w.lookups == dlrmsim::rel(65'536.0 * 2 / 4));
  CHECK(w.samples == 65'536.0);
  Shard r = whole(t, Tier::gpu_hbm, 1);
  r.owners = {1, 2, 3, 4};
  const auto wr = shard_work(p, t, r, Sharding::data_parallel);
  CHECK(wr.samples == 16'384.0);
  CHECK(wr.lookups == 32'768.0);
}
