// Tests of the memory tiers (placement/tier.hpp): the registry lists every implementation in
// placement/tiers/ (read from the source tree at test time: a file left out of the build or
// of the table is silently no tier, the Ramulator 2 lesson), each tier's properties, owners
// and capacity accounting, and that the planner's estimate is the tier's ShardCost composed
// as the simulation runs it.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>

#include "regex.hpp"

#include "file_fixtures.hpp"
#include "paths.hpp"
#include "placement/lookup_cost.hpp"
#include "placement/tier.hpp"
#include "placement_fixtures.hpp"

namespace fs = std::filesystem;
using namespace dlrmsim;
using namespace dlrmsim::placement;
using namespace dlrmsim::placement::testing;
using dlrmsim::testing::kRoot;
using dlrmsim::testing::read_text;

// System: placement/tiers/*.cpp, placement/CMakeLists.txt and the table in placement/tier.cpp.
// Expected: every file is compiled, defines exactly the factory named for it (X.cpp:
// const MemoryTier& X_tier()), and its tier is registered under the file's name; the table
// references every factory and nothing else; the registry holds as many tiers as there are files.
TEST_CASE("memory tiers: every implementation in placement/tiers/ is registered") {
  const std::string cmake = read_text(fs::path(kRoot) / "placement/CMakeLists.txt");
  const std::string table = read_text(fs::path(kRoot) / "placement/tier.cpp");
  const std::regex factory(R"(\bconst\s+MemoryTier\s*&\s*(\w+)_tier\s*\(\s*\)\s*\{)");
  std::set<std::string> files;
  for (const auto& entry : fs::directory_iterator(fs::path(kRoot) / "placement/tiers")) {
    if (entry.path().extension() != ".cpp") continue;
    const std::string stem = entry.path().stem().string();
    CAPTURE(stem);
    files.insert(stem);
    CHECK(std::regex_search(cmake, std::regex("[\\s(]tiers/" + stem + "\\.cpp[\\s)]")));
    const std::string text = read_text(entry.path());
    std::set<std::string> defined;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), factory); it != std::sregex_iterator(); ++it) {
      defined.insert((*it)[1]);
    }
    CHECK(defined == std::set<std::string>{stem});
    CHECK(std::regex_search(table, std::regex("&" + stem + "_tier\\(\\)")));
    CHECK(tier_of(std::string_view(stem)).name() == stem);
  }
  REQUIRE(!files.empty());
  std::set<std::string> referenced;
  const std::regex reference(R"(&(\w+)_tier\(\))");
  for (auto it = std::sregex_iterator(table.begin(), table.end(), reference); it != std::sregex_iterator(); ++it) {
    referenced.insert((*it)[1]);
  }
  CHECK(referenced == files);
  CHECK(memory_tiers().size() == files.size());
}

// System: the registry against the Tier values. Expected: one tier per value, in the values'
// order, found again by value and by name; names unique, lower_snake_case, described; the
// plan's tier names are the tiers' own; an unknown name ("gpu", "UVM", "") is refused with a
// message that quotes it and names every tier.
TEST_CASE("memory tiers: one per Tier value, found by value and by name, unknown names refused") {
  REQUIRE(memory_tiers().size() == std::size(kAllTiers));
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < memory_tiers().size(); ++i) {
    const MemoryTier& t = *memory_tiers()[i];
    CAPTURE(t.name());
    CHECK(t.id() == kAllTiers[i]);
    CHECK(&tier_of(t.id()) == &t);
    CHECK(&tier_of(t.name()) == &t);
    CHECK(to_string(t.id()) == t.name());
    CHECK(tier_from_string(t.name()) == t.id());
    CHECK(names.insert(t.name()).second);
    CHECK(std::regex_match(std::string(t.name()), std::regex("[a-z][a-z0-9_]*")));
    CHECK(!t.description().empty());
    CHECK(!t.owners_description().empty());
  }
  for (const std::string name : {"gpu", "UVM", ""}) {
    CAPTURE(name);
    try {
      (void)tier_of(std::string_view(name));
      FAIL("an unknown tier must be refused");
    } catch (const std::invalid_argument& e) {
      const std::string message = e.what();
      CHECK(message.find("'" + name + "'") != std::string::npos);
      for (std::string_view known : names) CHECK(message.find(known) != std::string::npos);
    }
  }
}

// System: each tier's properties, as its file in placement/tiers/ describes them: gpu_hbm runs on
// the GPU and may be replicated; uvm runs on the GPU, reads host memory over PCIe through an
// HBM cache; host_dram is looked up by a trainer node's CPU socket whose results cross PCIe;
// remote_ps is on parameter-server nodes across the network.
TEST_CASE("memory tiers: properties of each tier") {
  const TierProperties hbm = tier_of(Tier::gpu_hbm).properties();
  CHECK(hbm.owner_kind == OwnerKind::gpu);
  CHECK((hbm.on_gpu && hbm.replicable && !hbm.over_host_link && !hbm.remote && !hbm.hbm_cache));
  const TierProperties uvm = tier_of(Tier::uvm).properties();
  CHECK(uvm.owner_kind == OwnerKind::gpu);
  CHECK((uvm.on_gpu && uvm.over_host_link && uvm.hbm_cache && !uvm.remote && !uvm.replicable));
  const TierProperties host = tier_of(Tier::host_dram).properties();
  CHECK(host.owner_kind == OwnerKind::cpu_socket);
  CHECK((host.over_host_link && !host.on_gpu && !host.remote && !host.hbm_cache && !host.replicable));
  const TierProperties ps = tier_of(Tier::remote_ps).properties();
  CHECK(ps.owner_kind == OwnerKind::parameter_server);
  CHECK((ps.remote && !ps.on_gpu && !ps.over_host_link && !ps.hbm_cache && !ps.replicable));
  const TierProperties ssd = tier_of(Tier::ssd).properties();
  CHECK(ssd.owner_kind == OwnerKind::gpu);
  CHECK((ssd.on_gpu && ssd.over_host_link && ssd.hbm_cache && !ssd.remote && !ssd.replicable));
  const TierProperties cxl = tier_of(Tier::cxl).properties();
  CHECK(cxl.owner_kind == OwnerKind::cpu_socket);
  CHECK((cxl.over_host_link && !cxl.on_gpu && !cxl.remote && !cxl.hbm_cache && !cxl.replicable));
}

// System: one node (device 0 a CPU socket, 1 a GPU whose host socket is 0, 2 a GPU without
// one) and a parameter server (3); a table of 1,000 rows x 128 fp32 columns with 4 bytes of
// row-wise Adagrad state per row: 1000 x (512 + 4) = 516,000 bytes.
// Expected: owners by kind (uvm only on a GPU with a host socket); uvm stores the weights on
// the host socket and caches round(0.2 x 1000) = 200 rows x 512 B = 102,400 B on the GPU; the
// other tiers store on the owner and need nothing else.
TEST_CASE("memory tiers: owners, storage and memory needed") {
  PlacementProblem p = one_node(1, 80, 512, 1);
  p.devices.insert(p.devices.begin() + 2, gpu("lonely", 80, 0, -1));
  const auto t = table("t", 1000, 128, 1);
  CHECK(tier_of(Tier::gpu_hbm).can_own(p.devices[1]));
  CHECK(tier_of(Tier::gpu_hbm).can_own(p.devices[2]));
  CHECK(tier_of(Tier::uvm).can_own(p.devices[1]));
  CHECK_FALSE(tier_of(Tier::uvm).can_own(p.devices[2]));
  CHECK(tier_of(Tier::host_dram).can_own(p.devices[0]));
  CHECK_FALSE(tier_of(Tier::host_dram).can_own(p.devices[1]));
  CHECK(tier_of(Tier::remote_ps).can_own(p.devices[3]));
  CHECK_FALSE(tier_of(Tier::remote_ps).can_own(p.devices[0]));

  CHECK(tier_of(Tier::uvm).storage_of(p, 1) == 0);
  const auto uvm = tier_of(Tier::uvm).memory_needed(p, t, 1, 1000, 128, 0.2);
  REQUIRE(uvm.size() == 2);
  CHECK(uvm[0] == std::pair<std::uint32_t, double>{1, 102'400.0});
  CHECK(uvm[1] == std::pair<std::uint32_t, double>{0, 516'000.0});
  for (Tier tier : {Tier::gpu_hbm, Tier::host_dram, Tier::remote_ps}) {
    const std::uint32_t owner = tier == Tier::gpu_hbm ? 1 : tier == Tier::host_dram ? 0 : 3;
    CAPTURE(to_string(tier));
    CHECK(tier_of(tier).storage_of(p, owner) == owner);
    const auto needed = tier_of(tier).memory_needed(p, t, owner, 1000, 128, 0.2);
    REQUIRE(needed.size() == 1);
    CHECK(needed[0] == std::pair<std::uint32_t, double>{owner, 516'000.0});
  }
}

// System: the test fixture's GPU (1 TB/s x 0.5 gathers, PCIe 32 GB/s x 0.5, backward 1x the
// forward, no profile) owning a table of 1,000,000 rows x 128 fp32 columns, one lookup per
// sample of 65,536, from uvm at a 25 % hit rate.
// Expected: the ShardCost's parts (forward of the 16,384 hits, backward of all 65,536 lookups
// in the HBM cache, the 49,152 misses over PCIe each way), and lookup_time is its estimate(),
// max(forward, misses) + backward + misses: the forward kernel runs alongside its PCIe reads,
// the write-back follows the update.
TEST_CASE("memory tiers: the planner's estimate is the tier's ShardCost composed as the simulation runs it") {
  const PlacementProblem p = one_node(1, 80, 512);
  const auto t = table("t", 1'000'000, 128, 1);
  Shard s;
  s.tier = Tier::uvm;
  s.owners = {1};
  s.row_end = t.rows;
  s.column_end = t.dim;
  s.expected_hit_rate = 0.25;
  const LookupWork w = shard_work(p, t, s, Sharding::table_wise);
  const ShardCost c = tier_of(Tier::uvm).cost({p, p.devices[1], t, w, nullptr, p.gpu_embedding});
  const double forward = 16'384.0 * 512.0 / 0.5e12;
  const double backward = 65'536.0 * 512.0 / 0.5e12;
  const double misses = 49'152.0 * 512.0 / 16e9;
  CHECK(c.forward.value() == dlrmsim::rel(forward));
  CHECK(c.backward.value() == dlrmsim::rel(backward));
  CHECK(c.host_rows == 49'152.0);
  CHECK(c.host_time.value() == dlrmsim::rel(misses));
  CHECK(c.transfer.value() == 0.0);  // one node: no off-node exchange
  CHECK(c.estimate().value() == dlrmsim::rel(misses + backward + misses));
  CHECK(lookup_time(p, p.devices[1], Tier::uvm, t, w).value() == c.estimate().value());
}

namespace {

// Four Samsung PM1743 (AnandTech, 2021-12-23: 13 GB/s read, 6.6 GB/s write, 2.5M 4 KiB read
// IOPS) on socket 0 of one_node(1, ...), as device 2 (the problem's storage devices come last).
PlacementProblem with_drives(PlacementProblem p) {
  PlacementDevice d;
  d.kind = OwnerKind::nvme;
  d.name = "socket0.nvme";
  topo::NvmeSpec drives;
  drives.model = "PM1743";
  drives.count = 4;
  drives.capacity = Bytes(15.36e12);
  drives.sequential_read = drives.random_read = BytesPerSecond(13e9);
  drives.sequential_write = BytesPerSecond(6.6e9);
  drives.random_read_iops = 2.5e6;
  d.memory_capacity = drives.capacity * 4.0;
  d.nvme = drives;
  p.devices.push_back(d);
  const auto index = static_cast<std::int32_t>(p.devices.size() - 1);
  p.devices[0].nvme_device = index;
  p.devices[1].nvme_device = index;
  return p;
}

// Two Micron CZ120 256 GB (Tom's Hardware, 2023-08-07: up to 36 GB/s) at an assumed 250 ns on
// socket 0 (DRAM latency 100 ns), as the last device.
PlacementProblem with_expanders(PlacementProblem p) {
  PlacementDevice d;
  d.kind = OwnerKind::cxl_memory;
  d.name = "socket0.cxl";
  d.cxl = topo::CxlMemorySpec{"CZ120", 2, Bytes(256e9), BytesPerSecond(36e9), Seconds(250e-9)};
  d.memory_capacity = Bytes(512e9);
  p.devices.push_back(d);
  p.devices[0].cxl_device = static_cast<std::int32_t>(p.devices.size() - 1);
  p.devices[0].cpu_rows.latency = Seconds(100e-9);
  return p;
}

}  // namespace

// System: one_node(1, ...) with four PM1743 on its socket (device 2); a table of 1,000 rows x
// 128 fp32 columns with 4 bytes of row state (516,000 bytes).
// Expected: only the GPU whose host socket has the drives owns ssd shards; the weights and state
// go to the drives' device, round(0.2 x 1000) = 200 cached rows x 512 B = 102,400 B to the GPU;
// cxl has no owner without expanders.
TEST_CASE("memory tiers: ssd stores on the host socket's drives with an HBM cache on the GPU") {
  PlacementProblem p = with_drives(one_node(1, 80, 512));
  const auto t = table("t", 1000, 128, 1);
  CHECK(tier_of(Tier::ssd).can_own(p.devices[1]));
  CHECK_FALSE(tier_of(Tier::ssd).can_own(p.devices[0]));
  CHECK_FALSE(tier_of(Tier::ssd).can_own(gpu("no drives", 80, 0, 0)));
  CHECK_FALSE(tier_of(Tier::cxl).can_own(p.devices[0]));
  CHECK(tier_of(Tier::ssd).storage_of(p, 1) == 2);
  const auto needed = tier_of(Tier::ssd).memory_needed(p, t, 1, 1000, 128, 0.2);
  REQUIRE(needed.size() == 2);
  CHECK(needed[0] == std::pair<std::uint32_t, double>{1, 102'400.0});
  CHECK(needed[1] == std::pair<std::uint32_t, double>{2, 516'000.0});
}

// System: the fixture's GPU owning a table of 1,000,000 rows x 128 fp32 columns (512 B rows,
// 4 B of state) on ssd, one lookup per sample of 65,536, at a 25 % cache hit rate; four PM1743.
// Expected: the 49,152 misses read one 4 KiB page each: IOPS x page (10.24 GB/s a drive) binds
// below the 13 GB/s, so 49,152 x 4096 / (4 x 10.24e9) s; their evicted rows (512 B and 4 B of
// state) are written sequentially (a log-structured store) at 4 x 6.6 GB/s: 49,152 x 516 / 26.4e9 s. The GPU part is uvm's (hits in HBM, misses over
// PCIe). The estimate adds both to uvm's; prefetched, only their part beyond the rest of the
// shard's time, here max(rest, read + write).
TEST_CASE("memory tiers: an ssd lookup costs its misses' pages over the drives' random-read rate") {
  PlacementProblem p = with_drives(one_node(1, 80, 512));
  const auto t = table("t", 1'000'000, 128, 1);
  Shard s;
  s.tier = Tier::ssd;
  s.owners = {1};
  s.row_end = t.rows;
  s.column_end = t.dim;
  s.expected_hit_rate = 0.25;
  const LookupWork w = shard_work(p, t, s, Sharding::table_wise);
  const ShardCost c = tier_of(Tier::ssd).cost({p, p.devices[1], t, w, nullptr, p.gpu_embedding});
  const ShardCost uvm = tier_of(Tier::uvm).cost({p, p.devices[1], t, w, nullptr, p.gpu_embedding});
  const double read = 49'152.0 * 4096.0 / (4.0 * 2.5e6 * 4096.0);
  const double write = 49'152.0 * 516.0 / 26.4e9;
  CHECK(c.storage_read.value() == dlrmsim::rel(read));
  CHECK(c.storage_write.value() == dlrmsim::rel(write));
  CHECK(c.forward.value() == dlrmsim::rel(uvm.forward.value()));
  CHECK(c.host_time.value() == dlrmsim::rel(uvm.host_time.value()));
  CHECK_FALSE(c.prefetched);
  const double rest = uvm.estimate().value();
  CHECK(c.estimate().value() == dlrmsim::rel(rest + read + write));
  CHECK(lookup_time(p, p.devices[1], Tier::ssd, t, w).value() == c.estimate().value());

  // A higher hit rate: fewer misses, proportionally less drive time (the cache hits cost none).
  s.expected_hit_rate = 0.75;
  const ShardCost hot = tier_of(Tier::ssd).cost({p, p.devices[1], t, shard_work(p, t, s, Sharding::table_wise), nullptr,
                                                 p.gpu_embedding});
  CHECK(hot.storage_read.value() == dlrmsim::rel(16'384.0 / 1e7));

  p.ssd_prefetch = true;
  const ShardCost ahead = tier_of(Tier::ssd).cost({p, p.devices[1], t, w, nullptr, p.gpu_embedding});
  CHECK(ahead.prefetched);
  CHECK(ahead.estimate().value() == dlrmsim::rel(std::max(rest, read + write)));
}

// System: socket 0 (10 cores at 5 GB/s each, 100 GB/s DRAM, 100 ns) owning a table of
// 1,000,000 rows x 128 fp32 columns, one lookup per sample of 65,536, in two Micron CZ120
// (36 GB/s each, 250 ns) and in its DRAM.
// Expected: the weights go to the expanders' device; each core's row rate drops by 250 / 100
// (5 -> 2 GB/s: Little's law), so the gather is core bound at 10 x 2 GB/s = 20 GB/s, below the
// expanders' 72 GB/s: 65,536 x 512 B / 20e9 s, against 65,536 x 512 / 50e9 from DRAM.
TEST_CASE("memory tiers: a cxl lookup is the socket's gather at the expanders' bandwidth and latency") {
  PlacementProblem p = with_expanders(one_node(1, 80, 512));
  const auto t = table("t", 1'000'000, 128, 1);
  CHECK(tier_of(Tier::cxl).can_own(p.devices[0]));
  CHECK_FALSE(tier_of(Tier::cxl).can_own(p.devices[1]));
  CHECK(tier_of(Tier::cxl).storage_of(p, 0) == 2);
  Shard s;
  s.tier = Tier::cxl;
  s.owners = {0};
  s.row_end = t.rows;
  s.column_end = t.dim;
  const LookupWork w = shard_work(p, t, s, Sharding::table_wise);
  const ShardCost c = tier_of(Tier::cxl).cost({p, p.devices[0], t, w, nullptr, p.gpu_embedding});
  const ShardCost dram = tier_of(Tier::host_dram).cost({p, p.devices[0], t, w, nullptr, p.gpu_embedding});
  CHECK(c.forward.value() == dlrmsim::rel(65'536.0 * 512.0 / 20e9));
  CHECK(dram.forward.value() == dlrmsim::rel(65'536.0 * 512.0 / 50e9));
  CHECK(c.transfer.value() == dlrmsim::rel(dram.transfer.value()));
}
