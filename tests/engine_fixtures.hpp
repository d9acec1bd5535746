// Activity graphs and helpers shared by the engine tests (native engine, SimGrid backend,
// shared resources).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "sim/activity_graph.hpp"

namespace dlrmsim::sim::testing {

inline constexpr double kGBps = 1e9;  // 1 GB/s, in bytes per second

/// When activity `a` ended, in seconds.
inline double end_s(const SimResult& r, ActivityId a) { return r.end[a.index].seconds().value(); }

/// Three transfers of 1, 2 and 3 MB started together on one link of 1 GB/s without latency.
/// Max-min sharing gives each a third of the link until the 1 MB one ends (3 ms); the other
/// two then have 1 and 2 MB left at half the link each, so the 2 MB one ends 2 ms later
/// (5 ms); the last 1 MB runs alone at the full 1 GB/s and ends at 6 ms.
struct ThreeFlows {
  ActivityGraph graph;
  ResourceId link;
  ActivityId a, b, c;  // 1, 2 and 3 MB
};
inline ThreeFlows three_flows_on_one_link() {
  ThreeFlows t;
  t.link = t.graph.add_resource("link", BytesPerSecond(kGBps), Seconds(0));
  t.a = t.graph.add_transfer(Bytes(1e6), std::vector{t.link});
  t.b = t.graph.add_transfer(Bytes(2e6), std::vector{t.link});
  t.c = t.graph.add_transfer(Bytes(3e6), std::vector{t.link});
  return t;
}

/// A parking lot started at once: one long flow of 1 MB over `links` links of 1 GB/s, each of
/// latency `latency`, and on link i one short flow of short_bytes(i) bytes.
struct ParkingLot {
  ActivityGraph graph;
  std::vector<ResourceId> links;
  ActivityId long_flow;
  std::vector<ActivityId> shorts;  // the short flow of link i at index i
};
inline ParkingLot parking_lot(int links, Seconds latency, const std::function<double(int)>& short_bytes) {
  ParkingLot p;
  for (int i = 0; i < links; ++i) p.links.push_back(p.graph.add_resource("l" + std::to_string(i), BytesPerSecond(kGBps), latency));
  p.long_flow = p.graph.add_transfer(Bytes(1e6), p.links);
  for (int i = 0; i < links; ++i) p.shorts.push_back(p.graph.add_transfer(Bytes(short_bytes(i)), std::vector{p.links[i]}));
  return p;
}

/// `activities` activities drawn with a fixed seed: computes of 1-50 us on 8 streams of 4
/// engines, markers, and transfers of 1-1000 kB over 1-3 distinct links among 12 (1-10 GB/s,
/// 0-2 us latency), each depending on a random earlier activity half of the time. Sharing
/// changes at almost every event, so it exercises start/finish ordering as well as the rates.
inline ActivityGraph random_graph(std::uint64_t seed, int activities) {
  std::mt19937_64 rng(seed);
  ActivityGraph g;
  std::vector<ResourceId> links;
  for (int i = 0; i < 12; ++i) {
    links.push_back(g.add_resource("l" + std::to_string(i), BytesPerSecond(1e9 * static_cast<double>(1 + rng() % 10)),
                                   Seconds(1e-6 * static_cast<double>(rng() % 3))));
  }
  std::vector<StreamId> streams;
  for (int e = 0; e < 4; ++e) {
    const EngineId engine = g.add_engine("e" + std::to_string(e));
    streams.push_back(g.add_stream(engine));
    streams.push_back(g.add_stream(engine));
  }
  std::vector<ActivityId> acts;
  for (int i = 0; i < activities; ++i) {
    std::vector<ActivityId> deps;
    if (!acts.empty() && rng() % 2) deps.push_back(acts[rng() % acts.size()]);
    const auto kind = rng() % 5;
    if (kind == 0) {
      acts.push_back(g.add_compute(streams[rng() % streams.size()], Seconds(1e-6 * static_cast<double>(1 + rng() % 50)), deps));
    } else if (kind == 1) {
      acts.push_back(g.add_marker(deps));
    } else {
      std::vector<ResourceId> route{links[rng() % 12], links[rng() % 12], links[rng() % 12]};
      route.resize(1 + rng() % 3);
      std::sort(route.begin(), route.end());
      route.erase(std::unique(route.begin(), route.end()), route.end());
      acts.push_back(g.add_transfer(Bytes(1e3 * static_cast<double>(1 + rng() % 1000)), route, deps));
    }
  }
  return g;
}

/// An all-to-all over `endpoints` endpoints with staggered sizes and start times (fixed
/// seed): each endpoint has a 50 GB/s uplink and downlink (1 us latency each); each source
/// first computes 0-20 us on its own engine, then sends 0.5-1.5 MB (drawn per flow) to every
/// other endpoint. Flows arrive and finish at many different instants.
inline ActivityGraph staggered_all_to_all(std::uint64_t seed, int endpoints) {
  std::mt19937_64 rng(seed);
  ActivityGraph g;
  std::vector<ResourceId> up, down;
  for (int i = 0; i < endpoints; ++i) {
    up.push_back(g.add_resource("up" + std::to_string(i), BytesPerSecond(50e9), Seconds(1e-6)));
    down.push_back(g.add_resource("down" + std::to_string(i), BytesPerSecond(50e9), Seconds(1e-6)));
  }
  for (int i = 0; i < endpoints; ++i) {
    const StreamId s = g.add_stream(g.add_engine("e" + std::to_string(i)));
    const ActivityId start = g.add_compute(s, Seconds(1e-6 * static_cast<double>(rng() % 21)));
    for (int j = 0; j < endpoints; ++j) {
      if (i == j) continue;
      const double bytes = 0.5e6 + static_cast<double>(rng() % 1000001);
      g.add_transfer(Bytes(bytes), std::vector{up[i], down[j]}, std::vector{start});
    }
  }
  return g;
}

/// A parking lot with staggered arrivals: one long flow (4 MB) over `links` links of
/// 1 GB/s, and on each link k a short flow of (0.5 + 0.2 k) MB that starts after k x 100 us.
inline ActivityGraph staggered_parking_lot(int links) {
  ActivityGraph g;
  std::vector<ResourceId> route;
  for (int k = 0; k < links; ++k) route.push_back(g.add_resource("l" + std::to_string(k), BytesPerSecond(1e9), Seconds(0)));
  g.add_transfer(Bytes(4e6), route);
  const EngineId e = g.add_engine("e");
  for (int k = 0; k < links; ++k) {
    const ActivityId wait = g.add_compute(g.add_stream(e), Seconds(100e-6 * k));
    g.add_transfer(Bytes(0.5e6 + 0.2e6 * k), std::vector{route[k]}, std::vector{wait});
  }
  return g;
}

/// a -> b -> c -> a (a and b computes on two engines, c a marker), plus a marker d after c:
/// every backend must report the cycle (its activities by name), never hang.
inline ActivityGraph cyclic_graph() {
  ActivityGraph g;
  const StreamId s1 = g.add_stream(g.add_engine("e1"), "s1");
  const StreamId s2 = g.add_stream(g.add_engine("e2"), "s2");
  const ActivityId a = g.add_compute(s1, Seconds(1e-6));
  const ActivityId b = g.add_compute(s2, Seconds(1e-6), std::vector{a});
  const ActivityId c = g.add_marker(std::vector{b});
  g.add_marker(std::vector{c});
  g.add_dependency(c, a);
  return g;
}

}  // namespace dlrmsim::sim::testing
