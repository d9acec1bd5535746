// Tests of the CPU row gather and update model (topologies/cpu_row_cost.hpp), the one the
// placement planner and the simulation both read. Every expected value is the closed form
// evaluated by hand on round numbers: n rows of b bytes on c cores take
// n max(t(b) / c, traffic(b) / DRAM), with t(b) = max(b, g) / per-core bandwidth for a gather and
// an update alike (datasheet figures) or a profile's line scaled by the latency ratio, and
// traffic max(b, g) for a gather, 2 max(b, g) + 2 max(s, g) for an update.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <cmath>
#include <stdexcept>

#include "paths.hpp"
#include "topologies/cpu_row_cost.hpp"
#include "topologies/platform_loader.hpp"

using namespace dlrmsim;
using namespace dlrmsim::topo;

namespace {
CpuSocketSpec socket(double dram_gbps, int cores, double per_core_gbps) {
  CpuSocketSpec c;
  c.model = "test";
  c.cores = cores;
  c.dram_bandwidth = BytesPerSecond(dram_gbps * 1e9);
  c.gather_bandwidth_per_core = BytesPerSecond(per_core_gbps * 1e9);
  return c;
}

RowCostLine line(double row_ns, double gbps) {
  RowCostLine l;
  l.row_time = Seconds(row_ns * 1e-9);
  l.bandwidth = BytesPerSecond(gbps * 1e9);
  return l;
}
}  // namespace

TEST_CASE("gathers move max(row, granule) per row at the slower of DRAM and the cores") {
  const auto few = CpuRowAccess::of(socket(128, 20, 4), Bytes(64.0));
  CHECK(cpu_gather_time(few, 1e6, Bytes(32.0)).value() == dlrmsim::rel(0.8e-3));
  CHECK(cpu_gather_time(few, 1e6, Bytes(256.0)).value() == dlrmsim::rel(3.2e-3));
  const auto many = CpuRowAccess::of(socket(128, 60, 4), Bytes(64.0));
  CHECK(cpu_gather_time(many, 1e6, Bytes(32.0)).value() == dlrmsim::rel(0.5e-3));
}

// The granule is an input (training.cpu.access_granule): 64-byte rows read through 128-byte
// granules move twice the bytes, so take twice as long: 1e6 x 128 / 80e9 = 1.6 ms vs 0.8 ms.
TEST_CASE("a larger access granule makes short rows cost more") {
  const auto lines = CpuRowAccess::of(socket(128, 20, 4), Bytes(64.0));
  const auto pairs = CpuRowAccess::of(socket(128, 20, 4), Bytes(128.0));
  CHECK(cpu_gather_time(lines, 1e6, Bytes(64.0)).value() == dlrmsim::rel(0.8e-3));
  CHECK(cpu_gather_time(pairs, 1e6, Bytes(64.0)).value() == dlrmsim::rel(1.6e-3));
}

// An update's core cost is one miss per row like a gather's (its write-back holds no fill
// buffer; measured 1.2x a gather on one core, the header), while DRAM moves each of its lines
// twice. A 256-byte row with 4 bytes of row-wise Adagrad state (one 64-byte line): 20 cores
// at 4 GB/s spend (256 + 64) / 4 GB/s / 20 = 4 ns a row, DRAM at 128 GB/s (2 x 256 + 2 x 64)
// / 128 GB/s = 5 ns: DRAM binds, 1e6 rows in 5 ms. Without state (SGD): 3.2 ns against 4 ns,
// 4 ms. With DRAM out of the way (1 TB/s) the cores bind and the update of a row costs exactly
// its gather: 1e6 x 256 / 80 GB/s = 3.2 ms.
TEST_CASE("updates cost the cores one miss per row and DRAM a read and a write-back") {
  const auto cpu = CpuRowAccess::of(socket(128, 20, 4), Bytes(64.0));
  CHECK(cpu_update_time(cpu, 1e6, Bytes(256.0), Bytes(4.0)).value() == dlrmsim::rel(5e-3));
  CHECK(cpu_update_time(cpu, 1e6, Bytes(256.0), Bytes(0.0)).value() == dlrmsim::rel(4e-3));
  const auto fast_dram = CpuRowAccess::of(socket(1000, 20, 4), Bytes(64.0));
  CHECK(cpu_update_time(fast_dram, 1e6, Bytes(256.0), Bytes(0.0)).value() == dlrmsim::rel(3.2e-3));
  CHECK(cpu_update_time(fast_dram, 1e6, Bytes(256.0), Bytes(0.0)).value() ==
        dlrmsim::rel(cpu_gather_time(fast_dram, 1e6, Bytes(256.0)).value()));
}

// A figure the platform does not give (0) is not a limit; with neither there is no rate and
// the time is infinite (the planner then never picks that tier); no rows take no time.
TEST_CASE("missing figures: the other one binds, neither is infinitely slow") {
  const auto dram_only = CpuRowAccess::of(socket(128, 20, 0), Bytes(64.0));
  CHECK(cpu_gather_time(dram_only, 1e6, Bytes(64.0)).value() == dlrmsim::rel(0.5e-3));
  const auto cores_only = CpuRowAccess::of(socket(0, 20, 4), Bytes(64.0));
  CHECK(cpu_gather_time(cores_only, 1e6, Bytes(64.0)).value() == dlrmsim::rel(0.8e-3));
  const auto none = CpuRowAccess::of(socket(0, 20, 0), Bytes(64.0));
  CHECK(std::isinf(cpu_gather_time(none, 1e6, Bytes(64.0)).value()));
  CHECK(std::isinf(cpu_update_time(none, 1e6, Bytes(64.0), Bytes(4.0)).value()));
  CHECK(cpu_gather_time(none, 0.0, Bytes(64.0)).value() == 0.0);
  CHECK(cpu_update_time(dram_only, 0.0, Bytes(64.0), Bytes(4.0)).value() == 0.0);
  CHECK(cpu_update_time(dram_only, 1e6, Bytes(64.0), Bytes(0.0)).value() == dlrmsim::rel(1e-3));
}

// A striped update (software.embeddings.host_update: striped_locks) runs a share of its rows
// one after another on one core: each costs a DRAM latency plus its traffic at one core's
// rate. 20 cores x 4 GB/s, 128 GB/s DRAM, 100 ns latency; 1e6 rows of 256 B without state: the
// parallel update takes 4 ms (DRAM, above). With half the rows under one lock the chain is
// 5e5 x (100 ns + 512 B / 4 GB/s) = 5e5 x 228 ns = 114 ms, which sets the time; with 1 % of
// them it is 2.28 ms, under the parallel 4 ms, which stands. Without a latency the chain
// cannot be costed: infinite.
TEST_CASE("a striped update takes the longer of the parallel update and its busiest lock's chain") {
  auto spec = socket(128, 20, 4);
  spec.dram_latency = Seconds(100e-9);
  const auto cpu = CpuRowAccess::of(spec, Bytes(64.0));
  CHECK(cpu_update_time(cpu, 1e6, Bytes(256.0), Bytes(0.0), 0.5).value() == dlrmsim::rel(114e-3));
  CHECK(cpu_update_time(cpu, 1e6, Bytes(256.0), Bytes(0.0), 0.01).value() == dlrmsim::rel(4e-3));
  CHECK(cpu_update_time(cpu, 1e6, Bytes(256.0), Bytes(0.0), 0.0).value() == dlrmsim::rel(4e-3));
  CHECK(std::isinf(cpu_update_time(CpuRowAccess::of(socket(128, 20, 4), Bytes(64.0)), 1e6, Bytes(256.0), Bytes(0.0), 0.5)
                       .value()));
}

// A socket with a row profile takes the profile's one-core lines scaled by its DRAM latency
// over the profile's: measured at 200 ns, gather 10 ns + R / 10 GB/s, update 12 ns + R / 10 GB/s,
// hash update 50 ns + R / 8 GB/s; the socket's latency 100 ns halves every time. 64-byte rows,
// 20 cores, DRAM at 1 TB/s (not binding):
//   gather  (10 + 6.4) / 2 = 8.2 ns a row, / 20 cores: 1e6 rows in 0.41 ms;
//   update  (12 + 6.4) / 2 = 9.2 ns, 0.46 ms;
// and on a parameter server (keyed: each id through the hash map first)
//   update  the hash update, (50 + 8) / 2 = 29 ns, 1.45 ms;
//   gather  the probe (29 - 9.2 ns) and the gather 8.2 ns, 28 ns, 1.4 ms.
// With 4 bytes of optimiser state per row: a plain update adds the state's own access,
// (12 + 0.4) / 2 = 6.2 ns, 9.2 + 6.2 = 15.4 ns, 0.77 ms; a parameter server keeps the state in
// the row's entry, one hash update of 68 bytes, (50 + 8.5) / 2 = 29.25 ns, 1.4625 ms.
// At 128 GB/s DRAM binds the plain gather (64 B / 128 GB/s = 0.5 ns a row, above the cores'
// 0.41 ns): 0.5 ms; the keyed gather's 64 B + one map line (1 ns a row) stays under its cores'
// 1.4 ns: 1.4 ms.
TEST_CASE("a row profile's one-core costs carry to a socket by the ratio of DRAM latencies") {
  auto profile = std::make_shared<CpuProfile>();
  profile->name = "measured";
  profile->gather.per_core = line(10, 10);
  profile->update.per_core = line(12, 10);
  profile->hash_update.per_core = line(50, 8);
  profile->dram_latency = Seconds(200e-9);
  auto spec = socket(1000, 20, 0);
  spec.dram_latency = Seconds(100e-9);
  spec.row_profile = profile;
  auto cpu = CpuRowAccess::of(spec, Bytes(64.0));
  CHECK(cpu_gather_time(cpu, 1e6, Bytes(64.0)).value() == dlrmsim::rel(0.41e-3));
  CHECK(cpu_update_time(cpu, 1e6, Bytes(64.0), Bytes(0.0)).value() == dlrmsim::rel(0.46e-3));
  CHECK(cpu_update_time(cpu, 1e6, Bytes(64.0), Bytes(4.0)).value() == dlrmsim::rel(0.77e-3));
  cpu.keyed = true;
  CHECK(cpu_update_time(cpu, 1e6, Bytes(64.0), Bytes(0.0)).value() == dlrmsim::rel(1.45e-3));
  CHECK(cpu_update_time(cpu, 1e6, Bytes(64.0), Bytes(4.0)).value() == dlrmsim::rel(1.4625e-3));
  CHECK(cpu_gather_time(cpu, 1e6, Bytes(64.0)).value() == dlrmsim::rel(1.4e-3));
  spec.dram_bandwidth = BytesPerSecond(128e9);
  auto slow = CpuRowAccess::of(spec, Bytes(64.0));
  CHECK(cpu_gather_time(slow, 1e6, Bytes(64.0)).value() == dlrmsim::rel(0.5e-3));
  slow.keyed = true;
  CHECK(cpu_gather_time(slow, 1e6, Bytes(64.0)).value() == dlrmsim::rel(1.4e-3));
  // A profile without a latency cannot be carried.
  profile->dram_latency = Seconds(0.0);
  CHECK_THROWS_AS(CpuRowAccess::of(spec, Bytes(64.0)), std::invalid_argument);
}

// The shipped DGX A100 file names the build machine's row profile (configs/calibration/
// cpu-amd-epyc-zen5-2cpu.yaml: gather 14.8734 ns + R / 14.6556 GB/s at a 203.361 ns pointer
// chase) and a 110 ns latency: its derived per-core gather bandwidth is 64 B over
// (14.8734 + 64 / 14.6556) x 110 / 203.361 ns = 10.407 ns, 6.150 GB/s, which the loader writes
// into gather_bandwidth_per_core.
TEST_CASE("a platform's row_profile derives its per-core gather bandwidth") {
  const auto platform = load_platform(std::string(dlrmsim::testing::kRoot) + "/configs/platforms/dgx-a100.yaml");
  const auto& cpu = platform.cpu_spec(platform.cpus(platform.nodes().front().id).front());
  REQUIRE(cpu.row_profile);
  CHECK(cpu.row_profile->dram_latency.value() == dlrmsim::rel(203.361e-9));
  const double line_ns = (14.8734 + 64.0 / 14.6556) * 110.0 / 203.361;
  CHECK(cpu.gather_bandwidth_per_core.value() == dlrmsim::rel(64.0 / line_ns * 1e9).epsilon(1e-5));
  const auto access = CpuRowAccess::of(cpu, Bytes(64.0));
  CHECK(access.core_time(Bytes(64.0), false).value() == dlrmsim::rel(line_ns * 1e-9).epsilon(1e-5));
}
