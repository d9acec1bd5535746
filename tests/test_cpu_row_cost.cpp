// Tests of the CPU row gather and update model (topologies/cpu_row_cost.hpp), the one the
// placement planner and the simulation both read. Every expected value is the closed form
// evaluated by hand on round numbers: rate r = min(DRAM, cores x per-core), gather of R rows
// of b bytes = R max(b, g) / r, update = R (2 max(b, g) + 2 max(s, g)) / r.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <cmath>

#include "topologies/cpu_row_cost.hpp"

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
}  // namespace

// 20 cores x 4 GB/s = 80 GB/s < 128 GB/s DRAM: the cores bind. 1e6 rows of 32 B with a
// 64-byte granule move 64 MB: 64e6 / 80e9 = 0.8 ms. With 60 cores (240 GB/s) the DRAM's
// 128 GB/s binds: 64e6 / 128e9 = 0.5 ms. A 256-byte row (above the granule) moves 256 B:
// 1e6 x 256 / 80e9 = 3.2 ms.
TEST_CASE("gathers move max(row, granule) per row at the slower of DRAM and the cores") {
  const auto few = CpuRowAccess::of(socket(128, 20, 4), Bytes(64.0));
  CHECK(few.rate().value() == dlrmsim::rel(80e9));
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

// Update = read-modify-write of each row and of its optimiser state: a 256-byte row with
// 4 bytes of row-wise Adagrad state (one 64-byte line) moves 2 x 256 + 2 x 64 = 640 B per
// row, 1e6 rows at 80 GB/s: 8 ms. Without state (SGD): 2 x 256 B, 6.4 ms, i.e. exactly twice
// the gather of the same rows (the traffic multiple 2 of a write-back).
TEST_CASE("updates read and write back each row and its optimiser state") {
  const auto cpu = CpuRowAccess::of(socket(128, 20, 4), Bytes(64.0));
  CHECK(cpu_update_time(cpu, 1e6, Bytes(256.0), Bytes(4.0)).value() == dlrmsim::rel(8e-3));
  CHECK(cpu_update_time(cpu, 1e6, Bytes(256.0), Bytes(0.0)).value() == dlrmsim::rel(6.4e-3));
  CHECK(cpu_update_time(cpu, 1e6, Bytes(256.0), Bytes(0.0)).value() ==
        dlrmsim::rel(2.0 * cpu_gather_time(cpu, 1e6, Bytes(256.0)).value()));
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
}

// A striped update (software.embeddings.host_update: striped_locks) runs a share of its rows
// one after another on one core: each costs a DRAM latency plus its traffic at one core's
// rate. 20 cores x 4 GB/s, 100 ns latency; 1e6 rows of 256 B without state: the parallel
// update moves 512 MB at 80 GB/s, 6.4 ms. With half the rows under one lock the chain is
// 5e5 x (100 ns + 512 B / 4 GB/s) = 5e5 x 228 ns = 114 ms, which sets the time; with 1 % of
// them it is 2.28 ms, under the parallel 6.4 ms, which stands. Without a latency the chain
// cannot be costed: infinite.
TEST_CASE("a striped update takes the longer of the parallel update and its busiest lock's chain") {
  auto spec = socket(128, 20, 4);
  spec.dram_latency = Seconds(100e-9);
  const auto cpu = CpuRowAccess::of(spec, Bytes(64.0));
  CHECK(cpu_update_time(cpu, 1e6, Bytes(256.0), Bytes(0.0), 0.5).value() == dlrmsim::rel(114e-3));
  CHECK(cpu_update_time(cpu, 1e6, Bytes(256.0), Bytes(0.0), 0.01).value() == dlrmsim::rel(6.4e-3));
  CHECK(cpu_update_time(cpu, 1e6, Bytes(256.0), Bytes(0.0), 0.0).value() == dlrmsim::rel(6.4e-3));
  CHECK(std::isinf(cpu_update_time(CpuRowAccess::of(socket(128, 20, 4), Bytes(64.0)), 1e6, Bytes(256.0), Bytes(0.0), 0.5)
                       .value()));
}
