// Native engine: closed-form completion times for transfers sharing bandwidth max-min fairly,
// compute tasks on streams, dependencies, statistics, determinism and bad input.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "sim/native_engine.hpp"
#include "engine_fixtures.hpp"

using namespace dlrmsim;
using namespace dlrmsim::sim;

using dlrmsim::sim::testing::end_s;
using dlrmsim::sim::testing::kGBps;

namespace {
// Flow completions are rounded up to the next picosecond.
constexpr double kPs = 1.001e-12;
}  // namespace

TEST_CASE("a transfer alone takes latency + bytes / bandwidth") {
  // One 10 GB/s link with 2 us latency; 1 MB -> 2 us + 100 us.
  ActivityGraph g;
  const ResourceId link = g.add_resource("link", BytesPerSecond(10 * kGBps), Seconds(2e-6));
  const ActivityId t = g.add_transfer(Bytes(1e6), std::vector{link});
  const SimResult r = simulate_native(g);
  CHECK(end_s(r, t) == dlrmsim::rel(102e-6).epsilon(1e-9));
  CHECK(r.start[t.index].ps() == 0);
  CHECK(r.makespan == r.end[t.index]);
}

TEST_CASE("latencies add along the route and bandwidth is that of the narrowest hop") {
  // Hops: 20 GB/s + 1 us, 5 GB/s + 3 us; 5 MB -> 4 us + 1 ms.
  ActivityGraph g;
  const ResourceId a = g.add_resource("a", BytesPerSecond(20 * kGBps), Seconds(1e-6));
  const ResourceId b = g.add_resource("b", BytesPerSecond(5 * kGBps), Seconds(3e-6));
  const ActivityId t = g.add_transfer(Bytes(5e6), std::vector{a, b});
  CHECK(end_s(simulate_native(g), t) == dlrmsim::rel(1004e-6).epsilon(1e-9));
}

TEST_CASE("two equal flows on one link each get half of it") {
  // 1 GB/s, no latency, 2 x 1 MB: both finish at 2 ms (twice the time of one alone).
  ActivityGraph g;
  const ResourceId link = g.add_resource("link", BytesPerSecond(kGBps), Seconds(0));
  const ActivityId a = g.add_transfer(Bytes(1e6), std::vector{link});
  const ActivityId b = g.add_transfer(Bytes(1e6), std::vector{link});
  const SimResult r = simulate_native(g);
  CHECK(end_s(r, a) == dlrmsim::rel(2e-3).epsilon(1e-9));
  CHECK(end_s(r, b) == dlrmsim::rel(2e-3).epsilon(1e-9));
}

TEST_CASE("three flows of 1, 2 and 3 MB share a link and finish at 3, 5 and 6 ms") {
  // 1 GB/s. All three at 1/3 GB/s until the 1 MB flow ends (3 ms); the other two then have
  // 1 and 2 MB left at 1/2 GB/s: the second ends 2 ms later (5 ms); the last has 1 MB at
  // the full 1 GB/s: 6 ms.
  const auto t = testing::three_flows_on_one_link();
  const SimResult r = simulate_native(t.graph);
  CHECK(end_s(r, t.a) == dlrmsim::rel(3e-3).epsilon(1e-9));
  CHECK(end_s(r, t.b) == dlrmsim::rel(5e-3).epsilon(1e-9));
  CHECK(end_s(r, t.c) == dlrmsim::rel(6e-3).epsilon(1e-9));
}

TEST_CASE("parking lot: one long flow over k links and one short flow per link") {
  // k = 4 links of 1 GB/s. Every link carries two flows, so all run at 0.5 GB/s. The short
  // flows (0.5 MB) end at 1 ms; the long flow (1 MB) has 0.5 MB left and then runs alone at
  // 1 GB/s: it ends at 1.5 ms.
  const auto p = testing::parking_lot(4, Seconds(0), [](int) { return 0.5e6; });
  const SimResult r = simulate_native(p.graph);
  for (ActivityId s : p.shorts) CHECK(end_s(r, s) == dlrmsim::rel(1e-3).epsilon(1e-9));
  CHECK(end_s(r, p.long_flow) == dlrmsim::rel(1.5e-3).epsilon(1e-9));
}

TEST_CASE("flows whose bottlenecks differ get max-min fair rates") {
  // Link A 10 GB/s, link B 4 GB/s. f1 on A, f2 on A and B, f3 on B. B is the bottleneck
  // (2 GB/s each for f2, f3); f1 takes what A has left: 8 GB/s. Sizes 16, 2, 2 GB: f2 and
  // f3 end at 1 s; f1 has 8 GB left and runs alone at 10 GB/s: it ends at 1.8 s.
  ActivityGraph g;
  const ResourceId a = g.add_resource("A", BytesPerSecond(10 * kGBps), Seconds(0));
  const ResourceId b = g.add_resource("B", BytesPerSecond(4 * kGBps), Seconds(0));
  const ActivityId f1 = g.add_transfer(Bytes(16e9), std::vector{a});
  const ActivityId f2 = g.add_transfer(Bytes(2e9), std::vector{a, b});
  const ActivityId f3 = g.add_transfer(Bytes(2e9), std::vector{b});
  const SimResult r = simulate_native(g);
  CHECK(end_s(r, f2) == dlrmsim::rel(1.0).epsilon(1e-9));
  CHECK(end_s(r, f3) == dlrmsim::rel(1.0).epsilon(1e-9));
  CHECK(end_s(r, f1) == dlrmsim::rel(1.8).epsilon(1e-9));
}

TEST_CASE("a flow that starts later slows the one already running") {
  // 1 GB/s link, f1 = 2 MB at t = 0, f2 = 1 MB after a 1 ms compute. f1 alone moves 1 MB by
  // 1 ms; then both share: f2's 1 MB and f1's remaining 1 MB both end at 3 ms.
  ActivityGraph g;
  const ResourceId link = g.add_resource("link", BytesPerSecond(kGBps), Seconds(0));
  const StreamId s = g.add_stream(g.add_engine("gpu0", "gpu"), "main");
  const ActivityId f1 = g.add_transfer(Bytes(2e6), std::vector{link});
  const ActivityId c = g.add_compute(s, Seconds(1e-3));
  const ActivityId f2 = g.add_transfer(Bytes(1e6), std::vector{link}, std::vector{c});
  const SimResult r = simulate_native(g);
  CHECK(end_s(r, f1) == dlrmsim::rel(3e-3).epsilon(1e-9));
  CHECK(end_s(r, f2) == dlrmsim::rel(3e-3).epsilon(1e-9));
  CHECK(r.start[f2.index].seconds().value() == dlrmsim::rel(1e-3));
}

TEST_CASE("compute then transfer chain") {
  // 5 us of compute, then 64 KiB over a 16 GB/s link with 1 us latency:
  // 5 us + 1 us + 65536 / 16e9 s = 10.096 us.
  ActivityGraph g;
  const StreamId s = g.add_stream(g.add_engine("gpu0", "gpu"));
  const ResourceId pcie = g.add_resource("pcie", BytesPerSecond(16 * kGBps), Seconds(1e-6), "pcie");
  const ActivityId c = g.add_compute(s, Seconds(5e-6));
  const ActivityId t = g.add_transfer(Bytes(65536), std::vector{pcie}, std::vector{c});
  const SimResult r = simulate_native(g);
  CHECK(end_s(r, c) == dlrmsim::rel(5e-6));
  CHECK(r.start[t.index] == r.end[c.index]);
  CHECK(end_s(r, t) == dlrmsim::rel(10.096e-6).epsilon(2e-7));  // within 2 ps: the engine's clock ticks in picoseconds
}

TEST_CASE("a stream runs its tasks in order; two streams of one engine run concurrently") {
  // Stream A: 1, 2, 3 us with no explicit dependencies -> ends at 1, 3, 6 us.
  // Stream B on the same engine: 4 us -> ends at 4 us, overlapping A.
  // Engine busy time is the union: 6 us.
  ActivityGraph g;
  const EngineId e = g.add_engine("gpu0", "gpu");
  const StreamId a = g.add_stream(e, "A");
  const StreamId b = g.add_stream(e, "B");
  const ActivityId a1 = g.add_compute(a, Seconds(1e-6));
  const ActivityId a2 = g.add_compute(a, Seconds(2e-6));
  const ActivityId a3 = g.add_compute(a, Seconds(3e-6));
  const ActivityId b1 = g.add_compute(b, Seconds(4e-6));
  const SimResult r = simulate_native(g);
  CHECK(r.end[a1.index].ps() == 1'000'000);
  CHECK(r.end[a2.index].ps() == 3'000'000);
  CHECK(r.end[a3.index].ps() == 6'000'000);
  CHECK(r.end[b1.index].ps() == 4'000'000);
  CHECK(r.engines[e.index].busy.value() == dlrmsim::rel(6e-6));
}

TEST_CASE("a marker joins its dependencies at no cost") {
  ActivityGraph g;
  const EngineId e = g.add_engine("cpu", "cpu");
  const ActivityId x = g.add_compute(g.add_stream(e), Seconds(2e-6));
  const ActivityId y = g.add_compute(g.add_stream(e), Seconds(7e-6));
  const ActivityId m = g.add_marker(std::vector{x, y});
  const ActivityId z = g.add_compute(g.add_stream(e), Seconds(1e-6), std::vector{m});
  const SimResult r = simulate_native(g);
  CHECK(r.end[m.index].ps() == 7'000'000);
  CHECK(r.end[z.index].ps() == 8'000'000);
}

TEST_CASE("a zero-byte transfer takes only its latency") {
  ActivityGraph g;
  const ResourceId link = g.add_resource("link", BytesPerSecond(kGBps), Seconds(3e-6));
  const ActivityId t = g.add_transfer(Bytes(0), std::vector{link});
  CHECK(simulate_native(g).end[t.index].ps() == 3'000'000);
}

TEST_CASE("resource statistics: bytes, busy time and utilisation") {
  // 1 GB/s link carries 1 MB during [0, 1 ms], then idles during a 1 ms compute, then 1 MB
  // again: 2 MB, busy 2 ms over a 3 ms makespan, utilisation 2/3.
  ActivityGraph g;
  const ResourceId link = g.add_resource("link", BytesPerSecond(kGBps), Seconds(0));
  const StreamId s = g.add_stream(g.add_engine("gpu0", "gpu"));
  const ActivityId t1 = g.add_transfer(Bytes(1e6), std::vector{link});
  const ActivityId c = g.add_compute(s, Seconds(1e-3), std::vector{t1});
  g.add_transfer(Bytes(1e6), std::vector{link}, std::vector{c});
  const SimResult r = simulate_native(g);
  CHECK(r.makespan.seconds().value() == dlrmsim::rel(3e-3).epsilon(1e-9));
  CHECK(r.resources[link.index].bytes.value() == dlrmsim::rel(2e6));
  CHECK(r.resources[link.index].busy.value() == dlrmsim::rel(2e-3).epsilon(1e-9));
  CHECK(r.resources[link.index].utilization == dlrmsim::rel(2.0 / 3.0).epsilon(1e-9));
}

TEST_CASE("staggered all-to-all over 16 endpoints conserves bytes and respects capacity") {
  // Each endpoint has an uplink and a downlink of 10 GB/s; flow i->j carries (1 + (i*7+j)%5)
  // MB. No flow can end before its own size over the link rate, and the makespan is at
  // least the busiest uplink's bytes over its capacity (max-min is work-conserving on it).
  const int n = 16;
  ActivityGraph g;
  std::vector<ResourceId> up, down;
  for (int i = 0; i < n; ++i) {
    up.push_back(g.add_resource("up" + std::to_string(i), BytesPerSecond(10 * kGBps), Seconds(0)));
    down.push_back(g.add_resource("down" + std::to_string(i), BytesPerSecond(10 * kGBps), Seconds(0)));
  }
  std::vector<double> sent(n, 0.0);
  std::vector<std::pair<ActivityId, double>> flows;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      const double bytes = 1e6 * (1 + (i * 7 + j) % 5);
      sent[i] += bytes;
      flows.emplace_back(g.add_transfer(Bytes(bytes), std::vector{up[i], down[j]}), bytes);
    }
  }
  const SimResult r = simulate_native(g);
  for (const auto& [a, bytes] : flows) CHECK(end_s(r, a) >= bytes / (10 * kGBps) - kPs);
  double max_sent = 0.0;
  for (double s : sent) max_sent = std::max(max_sent, s);
  CHECK(r.makespan.seconds().value() >= max_sent / (10 * kGBps) - kPs);
  for (int i = 0; i < n; ++i) CHECK(r.resources[up[i].index].bytes.value() == dlrmsim::rel(sent[i]));
}

TEST_CASE("the same graph run twice gives bit-identical results") {
  // A random mix of computes, markers and transfers with random dependencies (fixed seed).
  const ActivityGraph g = testing::random_graph(42, 2000);
  const SimResult r1 = simulate_native(g);
  const SimResult r2 = simulate_native(g);
  CHECK(r1.start == r2.start);
  CHECK(r1.end == r2.end);
  CHECK(r1.makespan == r2.makespan);
  for (std::size_t i = 0; i < g.activity_count(); ++i) CHECK(r1.end[i] >= r1.start[i]);
}

TEST_CASE("host work: one core per thread, k runnable pieces on c < k cores take k/c as long") {
  // A node of 2 cores, three host threads (one core each). Alone, 1 ms of CPU work takes
  // 1 ms. Three pieces of 1 ms, one per thread, run together: 3 runnable on 2 cores, each at
  // 2/3 of a core (max-min: the node's cores are the bottleneck), all end at 1.5 ms = 3/2 x
  // 1 ms. Two pieces on one thread share its one core: 2 ms each, whatever the node has.
  ActivityGraph g;
  const ResourceId node = g.add_cores("node.cores", 2.0);
  const ResourceId t0 = g.add_cores("thread0", 1.0), t1 = g.add_cores("thread1", 1.0), t2 = g.add_cores("thread2", 1.0);
  const ActivityId a = g.add_cpu_work(Seconds(1e-3), std::vector{t0, node});
  const ActivityId b = g.add_cpu_work(Seconds(1e-3), std::vector{t1, node});
  const ActivityId c = g.add_cpu_work(Seconds(1e-3), std::vector{t2, node});
  const SimResult r = simulate_native(g);
  CHECK(end_s(r, a) == dlrmsim::rel(1.5e-3).epsilon(1e-9));
  CHECK(end_s(r, b) == dlrmsim::rel(1.5e-3).epsilon(1e-9));
  CHECK(end_s(r, c) == dlrmsim::rel(1.5e-3).epsilon(1e-9));
  // Utilisation of the node's cores: 3 core-ms over 2 cores x 1.5 ms = 100 %.
  CHECK(r.resources[node.index].utilization == dlrmsim::rel(1.0).epsilon(1e-9));

  ActivityGraph one;
  const ResourceId n1 = one.add_cores("node.cores", 8.0);
  const ResourceId th = one.add_cores("thread", 1.0);
  const ActivityId x = one.add_cpu_work(Seconds(1e-3), std::vector{th, n1});
  const ActivityId y = one.add_cpu_work(Seconds(1e-3), std::vector{th, n1});
  const SimResult r1 = simulate_native(one);
  CHECK(end_s(r1, x) == dlrmsim::rel(2e-3).epsilon(1e-9));
  CHECK(end_s(r1, y) == dlrmsim::rel(2e-3).epsilon(1e-9));
}

TEST_CASE("host work and transfers do not mix on one route") {
  ActivityGraph g;
  const ResourceId link = g.add_resource("link", BytesPerSecond(kGBps), Seconds(0));
  const ResourceId cores = g.add_cores("cores", 4.0);
  CHECK_THROWS_WITH_AS(g.add_cpu_work(Seconds(1e-6), std::vector{link}), doctest::Contains("'link' is not a core pool"), GraphError);
  CHECK_THROWS_WITH_AS(g.add_transfer(Bytes(1), std::vector{cores}), doctest::Contains("'cores' is a core pool"), GraphError);
  CHECK_THROWS_WITH_AS(g.add_cpu_work(Seconds(-1.0), std::vector{cores}), doctest::Contains("CPU time must be zero or positive"), GraphError);
  CHECK_THROWS_AS(g.add_cores("none", 0.0), GraphError);
  CHECK(g.describe(g.add_cpu_work(Seconds(2e-6), std::vector{cores})).find("host work") == 0);
}

TEST_CASE("bad input raises a clear error") {
  ActivityGraph g;
  const ResourceId link = g.add_resource("link", BytesPerSecond(kGBps), Seconds(0));
  const StreamId s = g.add_stream(g.add_engine("gpu0"));
  CHECK_THROWS_WITH_AS(g.add_transfer(Bytes(-1), std::vector{link}), doctest::Contains("size must be zero or positive"), GraphError);
  CHECK_THROWS_WITH_AS(g.add_transfer(Bytes(1), std::vector{ResourceId{7}}), doctest::Contains("resource #7, which does not exist"), GraphError);
  CHECK_THROWS_WITH_AS(g.add_compute(s, Seconds(-1e-6)), doctest::Contains("duration must be zero or positive"), GraphError);
  CHECK_THROWS_WITH_AS(g.add_marker(std::vector{ActivityId{99}}), doctest::Contains("does not exist"), GraphError);
  CHECK_THROWS_WITH_AS(g.add_transfer(Bytes(1), std::vector{link, link}), doctest::Contains("crosses resource 'link' twice"), GraphError);
  CHECK_THROWS_AS(g.add_resource("bad", BytesPerSecond(-5), Seconds(0)), GraphError);
  CHECK_THROWS_AS(g.add_resource("zero", BytesPerSecond(0), Seconds(0)), GraphError);
}

TEST_CASE("times beyond the engine's range are refused, never wrapped around") {
  // The clock is 2^63 ps (about 106 days): a 10^7 s task is refused when added; 10^30 bytes
  // over a 1 bit/s link (8 x 10^30 s) is refused when its flow is scheduled.
  ActivityGraph g;
  const StreamId s = g.add_stream(g.add_engine("e"));
  CHECK_THROWS_WITH_AS(g.add_compute(s, Seconds(1e7)), doctest::Contains("exceeds the engine's time range"), GraphError);
  const ResourceId slow = g.add_resource("slow", BytesPerSecond(0.125), Seconds(0));
  g.add_transfer(Bytes(1e30), std::vector{slow});
  CHECK_THROWS_WITH_AS(simulate_native(g), doctest::Contains("beyond the engine's time range"), GraphError);
}

TEST_CASE("a dependency cycle is reported, never a hang") {
  // a -> b -> c -> a, plus d after c: the error names the cycle's activities.
  ActivityGraph g = testing::cyclic_graph();
  CHECK_THROWS_WITH_AS(simulate_native(g), doctest::Contains("dependency cycle"), GraphError);
  const ActivityId a{0};
  CHECK_THROWS_AS(g.add_dependency(a, a), GraphError);

  // Stream order against an explicit dependency: the first task of a stream waits for the
  // second, which waits (stream order) for the first.
  ActivityGraph h;
  const StreamId st = h.add_stream(h.add_engine("e"), "s");
  const ActivityId first = h.add_compute(st, Seconds(1e-6));
  const ActivityId second = h.add_compute(st, Seconds(1e-6));
  h.add_dependency(second, first);
  CHECK_THROWS_WITH_AS(simulate_native(h), doctest::Contains("compute #"), GraphError);
}

TEST_CASE("a finished flow frees bandwidth that propagates to a second link") {
  // A = 1 GB/s carries f1 (1 MB) and f2 (4 MB); B = 2 GB/s carries f2 and f3 (6 MB). Max-min:
  // f1 = f2 = 0.5 GB/s (A), f3 = B's rest = 1.5 GB/s. f1 ends at 2 ms; f2 has 3 MB left and
  // f3 3 MB. Now A lets f2 have 1 GB/s, so B is shared 1 + 1: f2's gain on A lowers f3 on B.
  // Both move their last 3 MB at 1 GB/s and end at 5 ms.
  ActivityGraph g;
  const ResourceId a = g.add_resource("A", BytesPerSecond(kGBps), Seconds(0));
  const ResourceId b = g.add_resource("B", BytesPerSecond(2 * kGBps), Seconds(0));
  const ActivityId f1 = g.add_transfer(Bytes(1e6), std::vector{a});
  const ActivityId f2 = g.add_transfer(Bytes(4e6), std::vector{a, b});
  const ActivityId f3 = g.add_transfer(Bytes(6e6), std::vector{b});
  for (const auto mode : {NativeOptions::Resharing::incremental, NativeOptions::Resharing::full_component}) {
    NativeOptions options;
    options.resharing = mode;
    const SimResult r = simulate_native(g, options);
    CHECK(end_s(r, f1) == dlrmsim::rel(2e-3).epsilon(1e-9));
    CHECK(end_s(r, f2) == dlrmsim::rel(5e-3).epsilon(1e-9));
    CHECK(end_s(r, f3) == dlrmsim::rel(5e-3).epsilon(1e-9));
  }
}

namespace {
// The largest difference, in picoseconds, between any activity's end under incremental
// re-sharing and under re-solving whole components.
std::int64_t incremental_vs_full_ps(const ActivityGraph& g) {
  const SimResult inc = simulate_native(g);
  NativeOptions full_options;
  full_options.resharing = NativeOptions::Resharing::full_component;
  const SimResult full = simulate_native(g, full_options);
  std::int64_t worst = 0;
  for (std::size_t i = 0; i < g.activity_count(); ++i) worst = std::max(worst, std::abs(inc.end[i].ps() - full.end[i].ps()));
  return worst;
}
}  // namespace

TEST_CASE("incremental and full recomputation agree on random graphs") {
  // Five random mixes (tests/engine_fixtures.hpp). Re-solving only the flows that can change
  // sums rates in another order than re-solving whole components, so completion times may
  // differ by rounding: a few picoseconds at most (measured: <= 9 ps), never more than 50 ps.
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    INFO("seed " << seed);
    CHECK(incremental_vs_full_ps(testing::random_graph(seed, 2000)) <= 50);
  }
}

// Progress milestones: the callback sees each listed activity's completion once, counting
// 1, 2, 3 in the order they finish (a chain of three computes of 1, 2, 3 ms: at 1, 3, 6 ms),
// and the results are those of a run without it.
TEST_CASE("milestones are reported as they finish") {
  ActivityGraph g;
  const StreamId s = g.add_stream(g.add_engine("gpu"));
  const ActivityId a = g.add_compute(s, Seconds(1e-3));
  const ActivityId b = g.add_compute(s, Seconds(2e-3));
  const ActivityId c = g.add_compute(s, Seconds(3e-3));
  std::vector<std::size_t> seen;
  NativeOptions options;
  options.milestones = {c, a, b};
  options.on_milestone = [&](std::size_t k) { seen.push_back(k); };
  const SimResult r = simulate_native(g, options);
  CHECK(seen == std::vector<std::size_t>{1, 2, 3});
  CHECK(r.end == simulate_native(g).end);
  CHECK(end_s(r, c) == dlrmsim::rel(6e-3));
}

// The incremental recomputation on the staggered all-to-all of the cross-checks (sizes and
// start times drawn per flow, tests/engine_fixtures.hpp): 24 endpoints, 552 flows, sharing
// changes at almost every arrival and completion and every flow is coupled to every other.
// Re-solving a subset sums in another order than whole components: a few picoseconds at
// most, as for the random graphs above.
TEST_CASE("incremental and full recomputation agree on staggered all-to-alls") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    INFO("seed " << seed);
    CHECK(incremental_vs_full_ps(testing::staggered_all_to_all(seed, 24)) <= 50);
  }
}

// Long routes: a flow's route is copied into a row of the engine sized for the graph's
// longest route (a row of more than 16 words takes a multiple of 16). A chain of 20 links of
// 1 GB/s carries one 1 MB flow over all 20; on link k a 1 MB flow of its own starts at
// k x 100 us. No link ever has more than two flows, so the long flow runs at 0.5 GB/s
// throughout and ends at 2 ms; flow k runs at 0.5 GB/s until then (moving 1 MB - 50 kB x k)
// and moves the remaining 50 kB x k alone at 1 GB/s: it ends at 2 ms + 50 us x k. The
// incremental and the full recomputation agree to a few picoseconds.
TEST_CASE("routes of 20 resources: a parking lot of 20 links") {
  ActivityGraph g;
  std::vector<ResourceId> links;
  for (int k = 0; k < 20; ++k) links.push_back(g.add_resource("l" + std::to_string(k), BytesPerSecond(kGBps), Seconds(0)));
  const ActivityId long_flow = g.add_transfer(Bytes(1e6), links);
  const EngineId e = g.add_engine("e");
  std::vector<ActivityId> shorts;
  for (int k = 0; k < 20; ++k) {
    const ActivityId wait = g.add_compute(g.add_stream(e), Seconds(100e-6 * k));
    shorts.push_back(g.add_transfer(Bytes(1e6), std::vector{links[k]}, std::vector{wait}));
  }
  CHECK(g.max_route_length() == 20);
  CHECK(incremental_vs_full_ps(g) <= 50);
  const SimResult inc = simulate_native(g);
  CHECK(end_s(inc, long_flow) == dlrmsim::rel(2e-3).epsilon(1e-9));
  for (int k = 0; k < 20; ++k) CHECK(end_s(inc, shorts[k]) == dlrmsim::rel(2e-3 + 50e-6 * k).epsilon(1e-9));
  for (std::size_t r = 0; r < links.size(); ++r) CHECK(inc.resources[r].bytes.value() == dlrmsim::rel(2e6));
}
