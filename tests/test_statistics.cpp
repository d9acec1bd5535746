// Run statistics (sim/statistics.hpp): busy, exposed and critical time per category, and
// utilisation per resource and engine kind, on a small graph whose timeline is known.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <array>
#include <string_view>
#include <vector>

#include "sim/critical_path.hpp"
#include "sim/native_engine.hpp"
#include "sim/statistics.hpp"

using namespace dlrmsim;
using namespace dlrmsim::sim;

namespace {

// One GPU with two streams and one 1 GB/s link without latency:
//   a: 10 us compute on stream 1, category "dense", no dependencies   -> [0, 10] us
//   b: 20 kB over the link, category "lookup", no dependencies        -> [0, 20] us
//   c: 5 us compute on stream 2, category "dense", after b            -> [20, 25] us
struct Timeline {
  ActivityGraph g;
  ActivityId a, b, c;
  SimResult r;
  Timeline() {
    const std::uint16_t dense = g.add_category("dense");
    const std::uint16_t lookup = g.add_category("lookup");
    const EngineId gpu = g.add_engine("gpu0", "gpu");
    const StreamId s1 = g.add_stream(gpu);
    const StreamId s2 = g.add_stream(gpu);
    const ResourceId link = g.add_resource("link", BytesPerSecond(1e9), Seconds(0.0), "pcie");
    a = g.add_compute(s1, Seconds(10e-6), {}, dense);
    b = g.add_transfer(Bytes(20e3), std::vector{link}, {}, lookup);
    c = g.add_compute(s2, Seconds(5e-6), std::vector{b}, dense);
    r = simulate_native(g);
  }
};

}  // namespace

TEST_CASE("breakdown: busy is the union per category, exposed follows the order, critical does not") {
  // Window [0, 25 us], one step. dense runs [0,10] and [20,25]: busy 15 us; lookup [0,20]:
  // busy 20 us. Listed first, dense is exposed for all its 15 us and lookup only where dense
  // does not run ([10,20]: 10 us); the other way round lookup has 20 us and dense 5 ([20,25]).
  // The critical path walks back from c: c waited for b (its dependency), b for nothing, so
  // 5 us dense + 20 us lookup, no idle, in either order.
  const Timeline t;
  const Window w{0, t.r.end[t.c.index].ps(), 1};
  const std::array<std::string_view, 3> dense_first{"dense", "lookup", "absent"};
  const Breakdown d = breakdown(t.g, t.r, dense_first, w, t.c);
  REQUIRE(d.categories.size() == 2);  // "absent" is not a category of the graph: left out
  CHECK(d.categories[0].category == "dense");
  CHECK(d.categories[0].busy.value() == dlrmsim::rel(15e-6));
  CHECK(d.categories[0].exposed.value() == dlrmsim::rel(15e-6));
  CHECK(d.categories[0].critical.value() == dlrmsim::rel(5e-6));
  CHECK(d.categories[1].busy.value() == dlrmsim::rel(20e-6));
  CHECK(d.categories[1].exposed.value() == dlrmsim::rel(10e-6));
  CHECK(d.categories[1].critical.value() == dlrmsim::rel(20e-6));
  CHECK(d.exposed_total.value() == dlrmsim::rel(25e-6));
  CHECK(d.critical_idle.value() == dlrmsim::rel(0.0));

  const std::array<std::string_view, 2> lookup_first{"lookup", "dense"};
  const Breakdown l = breakdown(t.g, t.r, lookup_first, w, t.c);
  REQUIRE(l.categories.size() == 2);
  CHECK(l.categories[0].category == "lookup");
  CHECK(l.categories[0].exposed.value() == dlrmsim::rel(20e-6));
  CHECK(l.categories[1].exposed.value() == dlrmsim::rel(5e-6));
  CHECK(l.categories[1].critical.value() == dlrmsim::rel(5e-6));
}

TEST_CASE("breakdown: times are per step of the window, and only inside it") {
  // The same timeline over the window [5, 25] us said to hold 2 steps: dense busy [5,10] +
  // [20,25] = 10 us, 5 us per step; lookup [5,20] = 15 us, 7.5 us per step. The critical
  // path is cut at 5 us: c (5 us) and b from 5 to 20 us (15 us): 2.5 and 7.5 us per step.
  const Timeline t;
  const Window w{5'000'000, t.r.end[t.c.index].ps(), 2};
  const std::array<std::string_view, 2> order{"dense", "lookup"};
  const Breakdown d = breakdown(t.g, t.r, order, w, t.c);
  REQUIRE(d.categories.size() == 2);
  CHECK(d.categories[0].busy.value() == dlrmsim::rel(5e-6));
  CHECK(d.categories[1].busy.value() == dlrmsim::rel(7.5e-6));
  CHECK(d.categories[0].critical.value() == dlrmsim::rel(2.5e-6));
  CHECK(d.categories[1].critical.value() == dlrmsim::rel(7.5e-6));
  CHECK(d.critical_idle.value() == dlrmsim::rel(0.0));
}

TEST_CASE("utilisation: bytes over capacity x makespan per resource kind, busy share per engine kind") {
  // Makespan 25 us. The pcie link carried 20 kB at 1 GB/s: 20e3 / (1e9 x 25e-6) = 0.8, and
  // over 2 steps 10 kB per step. The gpu engine ran work during [0,10] and [20,25]: 15 of
  // 25 us = 0.6. Resource kinds come before engine kinds.
  const Timeline t;
  const std::vector<UtilizationEntry> u = utilization(t.g, t.r, 2);
  REQUIRE(u.size() == 2);
  CHECK(u[0].resource_class == "pcie");
  CHECK_FALSE(u[0].compute);
  CHECK(u[0].count == 1);
  CHECK(u[0].utilization == dlrmsim::rel(0.8));
  CHECK(u[0].bytes.value() == dlrmsim::rel(10e3));
  CHECK(u[1].resource_class == "gpu");
  CHECK(u[1].compute);
  CHECK(u[1].utilization == dlrmsim::rel(0.6));
}

TEST_CASE("critical path: of dependencies that end together the lowest-numbered was waited for") {
  // Two 10 us computes on two engines, x (category "a", added first) and y ("b"), both end at
  // 10 us; z (5 us, "c", on a third engine) depends on both. z waited for whichever of its
  // dependencies finished last; they tie, and the walk takes the first predecessor in the
  // order of the graph (x): the path is z then x, 5 us of c and 10 us of a, none of b. The
  // wait index built once and shared (a run with a stragglers report walks several paths)
  // must keep that order, so it gives the same path.
  ActivityGraph g;
  const std::uint16_t a = g.add_category("a");
  const std::uint16_t b = g.add_category("b");
  const std::uint16_t c = g.add_category("c");
  const ActivityId x = g.add_compute(g.add_stream(g.add_engine("e0", "gpu")), Seconds(10e-6), {}, a);
  const ActivityId y = g.add_compute(g.add_stream(g.add_engine("e1", "gpu")), Seconds(10e-6), {}, b);
  const ActivityId z = g.add_compute(g.add_stream(g.add_engine("e2", "gpu")), Seconds(5e-6), std::vector{y, x}, c);
  const SimResult r = simulate_native(g);
  REQUIRE(r.end[x.index].ps() == r.end[y.index].ps());
  const WaitGraph waits(g);
  CHECK(waits.waited_for(z.index, r) == x.index);
  for (const auto& path : {critical_path_by_category(g, r, z, 0), critical_path_by_category(g, r, z, 0, waits)}) {
    REQUIRE(path.size() == g.categories().size());
    CHECK(path[a] == 10'000'000);
    CHECK(path[b] == 0);
    CHECK(path[c] == 5'000'000);
  }
  const std::array<std::string_view, 3> order{"a", "b", "c"};
  const Window w{0, r.end[z.index].ps(), 1};
  const Breakdown shared = breakdown(g, r, order, w, z, waits);
  const Breakdown own = breakdown(g, r, order, w, z);
  REQUIRE(shared.categories.size() == 3);
  for (std::size_t k = 0; k < 3; ++k) CHECK(shared.categories[k].critical.value() == own.categories[k].critical.value());
  CHECK(shared.categories[0].critical.value() == dlrmsim::rel(10e-6));
  CHECK(shared.critical_idle.value() == dlrmsim::rel(0.0));
}
