// Dominated resources (sim/dominated_resources.hpp): which resources are found, and that the
// native engine, which leaves them out of its sharing, gives the same end times and the same
// statistics as a graph without them.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "sim/dominated_resources.hpp"
#include "sim/native_engine.hpp"

using namespace dlrmsim;
using namespace dlrmsim::sim;

TEST_CASE("a hop crossed only by traffic that also crosses a narrower one is dominated") {
  // A GPU's PCIe link (63 GB/s) carries NIC traffic and a host copy; the switch-to-NIC hop
  // (63 GB/s) only NIC traffic, which also crosses the NIC's 50 GB/s port.
  ActivityGraph g;
  const ResourceId gpu_pcie = g.add_resource("gpu->pcie", BytesPerSecond(63e9), Seconds(0));
  const ResourceId pcie_nic = g.add_resource("pcie->nic", BytesPerSecond(63e9), Seconds(0));
  const ResourceId port = g.add_resource("nic->leaf", BytesPerSecond(50e9), Seconds(0));
  const ResourceId host = g.add_resource("pcie->cpu", BytesPerSecond(63e9), Seconds(0));
  const ResourceId equal = g.add_resource("equal", BytesPerSecond(50e9), Seconds(0));
  const ResourceId unused = g.add_resource("unused", BytesPerSecond(100e9), Seconds(0));
  g.add_transfer(Bytes(1e6), std::vector{gpu_pcie, pcie_nic, port});
  g.add_transfer(Bytes(2e6), std::vector{gpu_pcie, pcie_nic, port, equal});
  g.add_transfer(Bytes(3e6), std::vector{gpu_pcie, host});
  const std::vector<std::uint8_t> d = dominated_resources(g);
  CHECK(d[pcie_nic.index] == 1);
  CHECK(d[gpu_pcie.index] == 0);  // the host copy crosses no narrower resource
  CHECK(d[port.index] == 0);      // the narrowest of its routes
  CHECK(d[host.index] == 0);
  CHECK(d[equal.index] == 0);     // as narrow as the port: it can be saturated with it
  CHECK(d[unused.index] == 0);
}

TEST_CASE("leaving dominated resources out changes no end time and no statistic") {
  // A staggered all-to-all (each of 24 endpoints sends 0.5-1.5 MB to every other after 0-20
  // us) built twice: with each uplink behind a 63 GB/s hop that only its flows cross, and
  // without. The hop never limits a flow (50 GB/s behind it), so every end time must be the
  // same picosecond, and the hop's bytes and busy time those of its uplink.
  auto build = [](bool with_hop, std::vector<ResourceId>& hops, std::vector<ResourceId>& ups) {
    std::mt19937_64 rng(7);
    ActivityGraph g;
    constexpr int n = 24;
    std::vector<ResourceId> down;
    for (int i = 0; i < n; ++i) {
      if (with_hop) hops.push_back(g.add_resource("pcie" + std::to_string(i), BytesPerSecond(63e9), Seconds(0.5e-6)));
      ups.push_back(g.add_resource("up" + std::to_string(i), BytesPerSecond(50e9), Seconds(1e-6)));
      down.push_back(g.add_resource("down" + std::to_string(i), BytesPerSecond(50e9), Seconds(1e-6)));
    }
    for (int i = 0; i < n; ++i) {
      const StreamId s = g.add_stream(g.add_engine("e" + std::to_string(i)));
      const ActivityId start = g.add_compute(s, Seconds(1e-6 * static_cast<double>(rng() % 21)));
      for (int j = 0; j < n; ++j) {
        if (i == j) continue;
        const double bytes = 0.5e6 + static_cast<double>(rng() % 1000001);
        std::vector<ResourceId> route;
        if (with_hop) route.push_back(hops[static_cast<std::size_t>(i)]);
        route.push_back(ups[static_cast<std::size_t>(i)]);
        route.push_back(down[static_cast<std::size_t>(j)]);
        g.add_transfer(Bytes(bytes), route, std::vector{start});
      }
    }
    return g;
  };
  std::vector<ResourceId> hops, ups_a, ups_b, unused;
  const ActivityGraph with = build(true, hops, ups_a);
  const ActivityGraph without = build(false, unused, ups_b);
  const std::vector<std::uint8_t> d = dominated_resources(with);
  for (const ResourceId h : hops) CHECK(d[h.index] == 1);
  for (const NativeOptions::Resharing mode : {NativeOptions::Resharing::incremental, NativeOptions::Resharing::full_component}) {
    NativeOptions options;
    options.resharing = mode;
    const SimResult a = simulate_native(with, options);
    const SimResult b = simulate_native(without, options);
    // Every flow starts 0.5 us later behind the hop's latency, and so ends 0.5 us later.
    std::vector<std::int64_t> ends_a, ends_b;
    for (std::uint32_t i = 0; i < with.activity_count(); ++i) {
      if (with.activity(ActivityId{i}).kind == ActivityKind::transfer) ends_a.push_back(a.end[i].ps());
    }
    for (std::uint32_t i = 0; i < without.activity_count(); ++i) {
      if (without.activity(ActivityId{i}).kind == ActivityKind::transfer) ends_b.push_back(b.end[i].ps());
    }
    REQUIRE(ends_a.size() == 24 * 23);
    REQUIRE(ends_a.size() == ends_b.size());
    for (std::size_t k = 0; k < ends_a.size(); ++k) CHECK(ends_a[k] - ends_b[k] == 500000);
    for (std::size_t i = 0; i < hops.size(); ++i) {
      const ResourceStats& hop = a.resources[hops[i].index];
      const ResourceStats& up = a.resources[ups_a[i].index];
      CHECK(hop.bytes.value() == up.bytes.value());
      CHECK(hop.busy.value() == up.busy.value());
    }
  }
}
