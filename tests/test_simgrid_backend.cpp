// SimGrid reference backend: closed-form completion times computed by SimGrid itself, and
// cross-checks against the native engine on sharing scenarios (every activity's end time
// within 1 % relative, plus 10 ns absolute for SimGrid's 1 ns-per-event time precision).
#include <doctest/doctest.h>

#include "approx.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "sim/native_engine.hpp"
#include "sim/simgrid_backend.hpp"
#include "engine_fixtures.hpp"

using namespace dlrmsim;
using namespace dlrmsim::sim;

using dlrmsim::sim::testing::end_s;
using dlrmsim::sim::testing::kGBps;

namespace {

// SimGrid's clock is a double with a 1 ns event precision (surf/precision), and its
// max-min solver works to 1e-5 of a link's capacity: closed forms hold to 1e-6 relative.
constexpr double kClosedFormEpsilon = 1e-6;

/// Every activity ends at the same time on both backends, within 1 % + 10 ns.
void check_backends_agree(const ActivityGraph& g) {
  const SimResult reference = simulate_simgrid(g);
  const SimResult native = simulate_native(g);
  REQUIRE(reference.end.size() == g.activity_count());
  REQUIRE(native.end.size() == g.activity_count());
  double worst = 0.0;
  std::size_t worst_index = 0;
  for (std::size_t i = 0; i < g.activity_count(); ++i) {
    const double s = reference.end[i].seconds().value();
    const double n = native.end[i].seconds().value();
    const double allowed = 0.01 * std::max(s, n) + 10e-9;
    const double excess = std::abs(s - n) / allowed;
    if (excess > worst) {
      worst = excess;
      worst_index = i;
    }
  }
  INFO("worst: " << g.describe(ActivityId{static_cast<std::uint32_t>(worst_index)}) << " ends at "
                 << reference.end[worst_index].seconds().value() << " s on simgrid, "
                 << native.end[worst_index].seconds().value() << " s on native");
  CHECK(worst <= 1.0);
  const double ms = reference.makespan.seconds().value();
  CHECK(native.makespan.seconds().value() == dlrmsim::rel(ms).epsilon(0.01));
  // Statistics: bytes per resource are exact sums; busy times follow the completion times.
  for (std::size_t r = 0; r < g.resource_count(); ++r) {
    INFO("resource " << g.resource(ResourceId{static_cast<std::uint32_t>(r)}).name);
    CHECK(native.resources[r].bytes.value() == dlrmsim::rel(reference.resources[r].bytes.value()));
    CHECK(std::abs(native.resources[r].busy.value() - reference.resources[r].busy.value()) <=
          0.01 * reference.resources[r].busy.value() + 10e-9);
    CHECK(native.resources[r].utilization == dlrmsim::rel(reference.resources[r].utilization).epsilon(0.01));
  }
  for (std::size_t e = 0; e < g.engine_count(); ++e) {
    CHECK(std::abs(native.engines[e].busy.value() - reference.engines[e].busy.value()) <=
          0.01 * reference.engines[e].busy.value() + 10e-9);
  }
}

/// 64 endpoints, each with a 50 GB/s uplink and downlink (1 us latency each); flow i->j
/// carries 1 MB x (1 + ((7i + 13j) mod 17) / 16), so sizes vary from 1 to 2 MB and flows
/// finish at many different times.
ActivityGraph staggered_all_to_all(int n) {
  ActivityGraph g;
  std::vector<ResourceId> up, down;
  for (int i = 0; i < n; ++i) {
    up.push_back(g.add_resource("up" + std::to_string(i), BytesPerSecond(50 * kGBps), Seconds(1e-6)));
    down.push_back(g.add_resource("down" + std::to_string(i), BytesPerSecond(50 * kGBps), Seconds(1e-6)));
  }
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      const double bytes = 1e6 * (1.0 + ((7 * i + 13 * j) % 17) / 16.0);
      g.add_transfer(Bytes(bytes), std::vector{up[i], down[j]});
    }
  }
  return g;
}

}  // namespace

TEST_CASE("simgrid: a transfer alone takes latency + bytes / bandwidth") {
  // One 10 GB/s link with 2 us latency; 1 MB -> 2 us + 100 us = 102 us. The link carries
  // 1 MB, is busy during the 100 us of data movement (not during the latency), and its
  // utilisation is 1 MB / (10 GB/s x 102 us) = 0.98039.
  ActivityGraph g;
  const ResourceId link = g.add_resource("link", BytesPerSecond(10 * kGBps), Seconds(2e-6));
  const ActivityId t = g.add_transfer(Bytes(1e6), std::vector{link});
  const SimResult r = simulate_simgrid(g);
  CHECK(end_s(r, t) == dlrmsim::rel(102e-6).epsilon(kClosedFormEpsilon));
  CHECK(r.start[t.index].ps() == 0);
  CHECK(r.makespan == r.end[t.index]);
  CHECK(r.resources[link.index].bytes.value() == dlrmsim::rel(1e6));
  CHECK(r.resources[link.index].busy.value() == dlrmsim::rel(100e-6).epsilon(kClosedFormEpsilon));
  CHECK(r.resources[link.index].utilization == dlrmsim::rel(1e6 / (10 * kGBps * 102e-6)).epsilon(1e-5));
}

TEST_CASE("simgrid: latencies add along the route; the narrowest hop sets the rate") {
  // Hops 20 GB/s + 1 us and 5 GB/s + 3 us; 5 MB -> 4 us + 1 ms.
  ActivityGraph g;
  const ResourceId a = g.add_resource("a", BytesPerSecond(20 * kGBps), Seconds(1e-6));
  const ResourceId b = g.add_resource("b", BytesPerSecond(5 * kGBps), Seconds(3e-6));
  const ActivityId t = g.add_transfer(Bytes(5e6), std::vector{a, b});
  CHECK(end_s(simulate_simgrid(g), t) == dlrmsim::rel(1004e-6).epsilon(kClosedFormEpsilon));
}

TEST_CASE("simgrid: flows with different route latencies share a link equally") {
  // Link C (1 GB/s, no latency) carries f1 after a 1 us hop and f2 after a 3 us hop (both
  // hops 1 TB/s), 1 MB each. f1 runs alone during [1, 3] us and moves 2000 B; then plain
  // max-min gives each 0.5 GB/s: f1's last 998000 B take 1.996 ms (ends at 1.999 ms), by
  // when f2 has 2000 B left, moved alone at 1 GB/s: 2.001 ms. (Were the latencies on
  // SimGrid's links, CM02 would weight the shares by the inverse route latency and f1 would
  // get three times f2's rate; the backend pays latencies itself to avoid that.)
  ActivityGraph g;
  const ResourceId c = g.add_resource("C", BytesPerSecond(kGBps), Seconds(0));
  const ResourceId h1 = g.add_resource("h1", BytesPerSecond(1000 * kGBps), Seconds(1e-6));
  const ResourceId h2 = g.add_resource("h2", BytesPerSecond(1000 * kGBps), Seconds(3e-6));
  const ActivityId f1 = g.add_transfer(Bytes(1e6), std::vector{h1, c});
  const ActivityId f2 = g.add_transfer(Bytes(1e6), std::vector{h2, c});
  const SimResult r = simulate_simgrid(g);
  CHECK(end_s(r, f1) == dlrmsim::rel(1.999e-3).epsilon(kClosedFormEpsilon));
  CHECK(end_s(r, f2) == dlrmsim::rel(2.001e-3).epsilon(kClosedFormEpsilon));
}

TEST_CASE("simgrid: three flows of 1, 2 and 3 MB share a link and finish at 3, 5 and 6 ms") {
  // 1 GB/s: all three at 1/3 GB/s until the 1 MB flow ends (3 ms); the others have 1 and
  // 2 MB left at 1/2 GB/s: 5 ms; the last 1 MB alone at 1 GB/s: 6 ms. The link is busy the
  // whole 6 ms and fully used (utilisation 1).
  const auto t = testing::three_flows_on_one_link();
  const SimResult r = simulate_simgrid(t.graph);
  CHECK(end_s(r, t.a) == dlrmsim::rel(3e-3).epsilon(kClosedFormEpsilon));
  CHECK(end_s(r, t.b) == dlrmsim::rel(5e-3).epsilon(kClosedFormEpsilon));
  CHECK(end_s(r, t.c) == dlrmsim::rel(6e-3).epsilon(kClosedFormEpsilon));
  CHECK(r.resources[t.link.index].busy.value() == dlrmsim::rel(6e-3).epsilon(kClosedFormEpsilon));
  CHECK(r.resources[t.link.index].utilization == dlrmsim::rel(1.0).epsilon(1e-5));
  check_backends_agree(t.graph);
}

TEST_CASE("simgrid: parking lot, one long flow over 4 links and one short flow per link") {
  // 4 links of 1 GB/s, each carrying the long flow and its short flow: all at 0.5 GB/s.
  // Short flows (0.5 MB) end at 1 ms; the long flow (1 MB) then runs alone: 1.5 ms.
  const auto p = testing::parking_lot(4, Seconds(0), [](int) { return 0.5e6; });
  const SimResult r = simulate_simgrid(p.graph);
  for (ActivityId s : p.shorts) CHECK(end_s(r, s) == dlrmsim::rel(1e-3).epsilon(kClosedFormEpsilon));
  CHECK(end_s(r, p.long_flow) == dlrmsim::rel(1.5e-3).epsilon(kClosedFormEpsilon));
  check_backends_agree(p.graph);
}

TEST_CASE("simgrid: parking lot with per-link latencies agrees with the native engine") {
  // As above but each link has 1 us latency (the long flow waits 4 us, short ones 1 us) and
  // short flows of 0.3, 0.5, 0.7, 0.9 MB: the long flow's rate changes at every finish.
  check_backends_agree(testing::parking_lot(4, Seconds(1e-6), [](int i) { return 0.3e6 + 0.2e6 * i; }).graph);
}

TEST_CASE("simgrid: flows whose bottlenecks differ get max-min fair rates") {
  // Link A 1 GB/s carries f1 and f3 (0.5 GB/s each); link B 3 GB/s carries f1 and f2: f1 is
  // held to 0.5 GB/s by A, so f2 gets the remaining 2.5 GB/s. f1 = f3 = 1 MB end at 2 ms;
  // f2 (10 MB) has moved 5 MB by then and moves the other 5 MB alone at 3 GB/s:
  // 2 ms + 5/3 ms = 3.6667 ms.
  ActivityGraph g;
  const ResourceId a = g.add_resource("A", BytesPerSecond(kGBps), Seconds(0));
  const ResourceId b = g.add_resource("B", BytesPerSecond(3 * kGBps), Seconds(0));
  const ActivityId f1 = g.add_transfer(Bytes(1e6), std::vector{a, b});
  const ActivityId f2 = g.add_transfer(Bytes(10e6), std::vector{b});
  const ActivityId f3 = g.add_transfer(Bytes(1e6), std::vector{a});
  const SimResult r = simulate_simgrid(g);
  CHECK(end_s(r, f1) == dlrmsim::rel(2e-3).epsilon(kClosedFormEpsilon));
  CHECK(end_s(r, f3) == dlrmsim::rel(2e-3).epsilon(kClosedFormEpsilon));
  CHECK(end_s(r, f2) == dlrmsim::rel(2e-3 + 5e-3 / 3).epsilon(kClosedFormEpsilon));
  check_backends_agree(g);
}

TEST_CASE("simgrid: 64-endpoint all-to-all with staggered sizes agrees with the native engine") {
  // 64 x 63 = 4032 concurrent flows (see staggered_all_to_all). Closed-form bound checked
  // too: the busiest uplink must carry all its bytes at 50 GB/s after the 2 us of latency,
  // so the makespan is at least 2 us + max bytes sent / 50 GB/s.
  const ActivityGraph g = staggered_all_to_all(64);
  CHECK(g.activity_count() == 64 * 63);
  const SimResult r = simulate_simgrid(g);
  double max_sent = 0.0;
  for (std::uint32_t i = 0; i < 64; ++i) max_sent = std::max(max_sent, r.resources[2 * i].bytes.value());
  CHECK(r.makespan.seconds().value() >= 2e-6 + max_sent / (50 * kGBps) * (1 - 1e-9));
  check_backends_agree(g);
}

TEST_CASE("simgrid: host work on shared cores agrees with the closed form") {
  // As the native engine's test: 2 cores, three threads of one core, 1 ms of CPU work each:
  // 3 runnable on 2 cores, each at 2/3 of a core, all end at 1.5 ms. SimGrid moves the work
  // units (1 ns of one core each) as bytes over links of the pools' capacities.
  ActivityGraph g;
  const ResourceId node = g.add_cores("node.cores", 2.0);
  std::vector<ActivityId> work;
  for (int i = 0; i < 3; ++i) {
    const ResourceId t = g.add_cores("thread" + std::to_string(i), 1.0);
    work.push_back(g.add_cpu_work(Seconds(1e-3), std::vector{t, node}));
  }
  const SimResult r = simulate_simgrid(g);
  for (ActivityId a : work) CHECK(end_s(r, a) == dlrmsim::rel(1.5e-3).epsilon(kClosedFormEpsilon));
}

TEST_CASE("simgrid: compute-then-transfer chain with two streams") {
  // Engine with streams s0, s1; one 10 GB/s link with 1 us latency.
  //  - s0: c0 (10 us) then c1 (5 us, stream order): c1 ends at 15 us.
  //  - s1: c2 (20 us), concurrently with s0: ends at 20 us (streams never slow each other).
  //  - t0 (1 MB) after c0: data from 11 us; t1 (1 MB) after c2: data from 21 us.
  //    t0 alone moves 100 kB by 21 us, then both at 5 GB/s: t0's remaining 900 kB end at
  //    21 + 180 = 201 us; t1 has moved 900 kB, its last 100 kB alone take 10 us: 211 us.
  //  - marker m after t0 and t1: 211 us.
  // Engine busy: [0, 20] us = 20 us. Link: busy [11, 211] us = 200 us, 2 MB, utilisation
  // 2 MB / (10 GB/s x 211 us) = 0.947867.
  ActivityGraph g;
  const EngineId gpu = g.add_engine("gpu0", "gpu");
  const StreamId s0 = g.add_stream(gpu, "s0");
  const StreamId s1 = g.add_stream(gpu, "s1");
  const ResourceId link = g.add_resource("nvlink", BytesPerSecond(10 * kGBps), Seconds(1e-6), "nvlink");
  const ActivityId c0 = g.add_compute(s0, Seconds(10e-6));
  const ActivityId c1 = g.add_compute(s0, Seconds(5e-6));
  const ActivityId c2 = g.add_compute(s1, Seconds(20e-6));
  const ActivityId t0 = g.add_transfer(Bytes(1e6), std::vector{link}, std::vector{c0});
  const ActivityId t1 = g.add_transfer(Bytes(1e6), std::vector{link}, std::vector{c2});
  const ActivityId m = g.add_marker(std::vector{t0, t1});
  const SimResult r = simulate_simgrid(g);
  CHECK(end_s(r, c0) == dlrmsim::rel(10e-6).epsilon(kClosedFormEpsilon));
  CHECK(r.start[c1.index] == r.end[c0.index]);
  CHECK(end_s(r, c1) == dlrmsim::rel(15e-6).epsilon(kClosedFormEpsilon));
  CHECK(end_s(r, c2) == dlrmsim::rel(20e-6).epsilon(kClosedFormEpsilon));
  CHECK(r.start[t0.index] == r.end[c0.index]);
  CHECK(end_s(r, t0) == dlrmsim::rel(201e-6).epsilon(kClosedFormEpsilon));
  CHECK(end_s(r, t1) == dlrmsim::rel(211e-6).epsilon(kClosedFormEpsilon));
  CHECK(r.end[m.index] == r.end[t1.index]);
  CHECK(r.makespan == r.end[m.index]);
  CHECK(r.engines[gpu.index].busy.value() == dlrmsim::rel(20e-6).epsilon(kClosedFormEpsilon));
  CHECK(r.resources[link.index].bytes.value() == dlrmsim::rel(2e6));
  CHECK(r.resources[link.index].busy.value() == dlrmsim::rel(200e-6).epsilon(kClosedFormEpsilon));
  CHECK(r.resources[link.index].utilization == dlrmsim::rel(2e6 / (10 * kGBps * 211e-6)).epsilon(1e-5));
  check_backends_agree(g);
}

TEST_CASE("simgrid: a random mix of computes, transfers and markers agrees with the native engine") {
  // 2000 activities (fixed seed), see tests/engine_fixtures.hpp.
  const ActivityGraph g = testing::random_graph(7, 2000);
  check_backends_agree(g);
}

TEST_CASE("simgrid: zero-cost activities") {
  // A 0-byte transfer takes only its route's latency (3 us); a 0 s compute and a marker
  // finish when their dependencies do.
  ActivityGraph g;
  const ResourceId link = g.add_resource("link", BytesPerSecond(kGBps), Seconds(3e-6));
  const StreamId s = g.add_stream(g.add_engine("cpu", "cpu"));
  const ActivityId t = g.add_transfer(Bytes(0), std::vector{link});
  const ActivityId c = g.add_compute(s, Seconds(0), std::vector{t});
  const ActivityId m = g.add_marker(std::vector{c});
  const SimResult r = simulate_simgrid(g);
  CHECK(end_s(r, t) == dlrmsim::rel(3e-6).epsilon(kClosedFormEpsilon));
  CHECK(r.end[c.index] == r.end[t.index]);
  CHECK(r.end[m.index] == r.end[t.index]);
  CHECK(r.resources[link.index].busy.value() == 0.0);
}

TEST_CASE("simgrid: the same graph run twice in one process gives identical results") {
  // Each run forks its own SimGrid process, so the clock starts at zero every time.
  const ActivityGraph g = staggered_all_to_all(8);
  const SimResult r1 = simulate_simgrid(g);
  const SimResult r2 = simulate_simgrid(g);
  CHECK(r1.start == r2.start);
  CHECK(r1.end == r2.end);
  CHECK(r1.makespan == r2.makespan);
  CHECK(r1.events == r2.events);
}

TEST_CASE("simgrid: a dependency cycle is reported, never a hang") {
  // a -> b -> c -> a (c is a marker), plus d after c: the error names the cycle.
  const ActivityGraph g = testing::cyclic_graph();
  CHECK_THROWS_WITH_AS(simulate_simgrid(g), doctest::Contains("dependency cycle: compute #0"), GraphError);
  CHECK_THROWS_WITH_AS(simulate_simgrid(g), doctest::Contains("marker #2"), GraphError);
  CHECK_THROWS_WITH_AS(simulate_simgrid(g), doctest::Contains("4 activities can never start"), GraphError);
}

namespace {
/// Every activity ends at the same time on both backends within 1e-6 relative (plus 10 ns
/// for SimGrid's 1 ns event precision along dependency chains).
void check_backends_agree_closely(const ActivityGraph& g) {
  const SimResult reference = simulate_simgrid(g);
  const SimResult native = simulate_native(g);
  double worst = 0.0;
  for (std::size_t i = 0; i < g.activity_count(); ++i) {
    const double s = reference.end[i].seconds().value();
    const double n = native.end[i].seconds().value();
    worst = std::max(worst, std::abs(s - n) / (1e-6 * std::max(s, n) + 10e-9));
  }
  CHECK(worst <= 1.0);
}
}  // namespace

TEST_CASE("simgrid: 48-endpoint all-to-all with random sizes and start times, every end within 1e-6") {
  // 48 x 47 = 2256 flows of 0.5-1.5 MB, sources starting 0-20 us apart (fixed seed, see
  // tests/engine_fixtures.hpp): rates change at almost every arrival and completion.
  check_backends_agree_closely(testing::staggered_all_to_all(3, 48));
}

TEST_CASE("simgrid: parking lot with staggered arrivals, every end within 1e-6") {
  // 6 links; short flows arrive every 100 us, so the long flow's rate changes at each
  // arrival and each completion (see tests/engine_fixtures.hpp).
  check_backends_agree_closely(testing::staggered_parking_lot(6));
}
