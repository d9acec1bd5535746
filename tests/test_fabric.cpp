// Cluster fabrics: bisection bandwidth against the closed forms, closed-form leaf/spine
// routing, and the cost of routing every all-to-all pair of a 4096-GPU cluster.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <chrono>
#include <iostream>
#include <map>
#include <string>

#include "sim/activity_graph.hpp"
#include "topologies/engine_export.hpp"
#include "topologies/platform_builder.hpp"
#include "topologies/platform_data.hpp"
#include "topologies/platform_loader.hpp"
#include "paths.hpp"

using namespace dlrmsim;
using namespace dlrmsim::topo;

namespace {

/// A host with one CPU socket and `nics` NICs of `nic_gbit` Gbit/s each.
NodeTemplate host(int nics, double nic_gbit) {
  NodeTemplate t{"host", {}, {}};
  const auto cpu = t.add_device("cpu0", CpuSocketSpec{"cpu", 8, 1, Hertz(2e9), Bytes(64e9), BytesPerSecond(100e9), 4,
                                                      BytesPerSecond(5e9), Seconds(0.0), {}, nullptr, nullptr, std::nullopt, std::nullopt});
  for (int i = 0; i < nics; ++i) {
    const auto nic = t.add_device("nic" + std::to_string(i), NicSpec{"nic", BytesPerSecond(nic_gbit * 1e9 / 8), 1,
                                                                      NetworkProtocol::ethernet});
    t.add_link(nic, cpu, LinkKind::pcie5x16);
  }
  return t;
}

Platform cluster(int nodes, int nics_per_node, FabricSpec fabric) {
  PlatformBuilder b("test cluster");
  b.add_template(host(nics_per_node, 100.0));
  b.add_group("n", "host", nodes);
  b.set_fabric(fabric);
  return std::move(b).build();
}

}  // namespace

TEST_CASE("fat-tree bisection bandwidth equals N x B / (2 x oversubscription)") {
  // System: a two-level fat tree of N single-NIC hosts (100 Gbit/s = 12.5 GB/s ports), h hosts
  // per leaf, h / r uplinks per leaf. Closed form for full leaves: cutting the hosts in half
  // along leaf boundaries, each half can push at most min(its host links, its uplinks) =
  // (N / 2) x B x min(1, 1 / r). The platform computes it independently, as a max flow.
  const double B = 12.5e9;
  for (int n : {32, 64, 256}) {
    for (int h : {8, 16}) {
      for (double r : {1.0, 2.0, 4.0}) {
        FabricSpec f;
        f.kind = FabricKind::fat_tree;
        f.hosts_per_leaf = h;
        f.oversubscription = r;
        const Platform p = cluster(n, 1, f);
        const auto bisection = p.bisection_bandwidth();
        REQUIRE(bisection.has_value());
        CHECK_MESSAGE(bisection->value() == dlrmsim::rel(n * B / (2.0 * r)), "N=" << n << " h=" << h << " r=" << r);
        CHECK(p.data().fabric_tables.leaf_device.size() == static_cast<std::size_t>(n / h));
        CHECK(p.data().fabric_tables.spine_device.size() == static_cast<std::size_t>(h / r));
      }
    }
  }
}

TEST_CASE("single-switch and rail-optimised bisection") {
  // Single switch, 10 hosts of 12.5 GB/s: half the hosts can send 5 x 12.5 = 62.5 GB/s.
  FabricSpec single;
  CHECK(cluster(10, 1, single).bisection_bandwidth()->value() == dlrmsim::rel(62.5e9));
  // Rail-optimised, 64 nodes x 4 rails, 16 nodes per rail leaf, 2:1: the same closed form as a
  // fat tree over all 256 NIC ports: 256 x 12.5 GB/s / (2 x 2) = 800 GB/s.
  FabricSpec rail;
  rail.kind = FabricKind::rail_optimized;
  rail.hosts_per_leaf = 16;
  rail.oversubscription = 2.0;
  const Platform p = cluster(64, 4, rail);
  CHECK(p.bisection_bandwidth()->value() == dlrmsim::rel(800e9));
  // 4 node groups x 4 rails = 16 leaves; NIC r of node n sits on leaf (n / 16) x 4 + r.
  const auto& ft = p.data().fabric_tables;
  CHECK(ft.leaf_device.size() == 16);
  const Node& node37 = p.node(NodeId{37});
  CHECK(ft.leaf_of_nic[ft.nic_number_of_device[node37.nics[3].index]] == (37 / 16) * 4 + 3);
  // One node is not a cluster: no bisection.
  CHECK_FALSE(cluster(1, 1, single).bisection_bandwidth().has_value());
}

TEST_CASE("fat-tree routes: same leaf stays on the leaf, otherwise up to the destination-mod-k spine") {
  // System: 64 hosts, 16 per leaf, 1:1 (16 spines). host0 -> host5 (leaf 0 both): cpu -> nic
  // (pcie), nic -> leaf, leaf -> nic, nic -> cpu: 4 links. host0 -> host37 (leaf 2): via spine
  // (37's port on leaf 2: 37 mod 16 = 5) mod 16 = 5: 6 links, the middle two being leaf0 -> spine5 and spine5 -> leaf2.
  FabricSpec f;
  f.kind = FabricKind::fat_tree;
  f.hosts_per_leaf = 16;
  const Platform p = cluster(64, 1, f);
  const DeviceId a = *p.find_device("n0.cpu0");
  CHECK(p.route(a, *p.find_device("n5.cpu0")).size() == 4);
  const auto r = p.route(a, *p.find_device("n37.cpu0"));
  REQUIRE(r.size() == 6);
  CHECK(p.device(p.directed_link(r[2]).from).name == "leaf0");
  CHECK(p.device(p.directed_link(r[2]).to).name == "spine5");
  CHECK(p.device(p.directed_link(r[3]).to).name == "leaf2");
  CHECK(p.link(link_of(r[2])).resource_class == "network");
  CHECK(p.link(link_of(r[1])).resource_class == "nic");
}

TEST_CASE("rail-optimised routes spread one rail's traffic over every spine") {
  // System: 32 nodes x 8 rails, 16 nodes per leaf group, 1:1, so 16 rail leaves of 16 ports and
  // 16 spines. NIC 0 of node 0 sends to NIC 0 of each node 16..31 (rail 0, the other leaf
  // group): destination-mod-k keys on the destination's port on its rail leaf (its position in
  // the group, 0..15), so the 16 routes use 16 different spines, one each, as a permutation on
  // a 1:1 fat tree should. Keyed on the global NIC number (8 n) they would use only spines 0 and
  // 8: 2 of 16, each uplink carrying 8 flows.
  FabricSpec rail;
  rail.kind = FabricKind::rail_optimized;
  rail.hosts_per_leaf = 16;
  const Platform p = cluster(32, 8, rail);
  const DeviceId src = *p.find_device("n0.nic0");
  std::map<std::string, int> flows_per_spine;
  for (int n = 16; n < 32; ++n) {
    const auto r = p.route(src, *p.find_device("n" + std::to_string(n) + ".nic0"));
    REQUIRE(r.size() == 4);  // nic -> leaf -> spine -> leaf -> nic
    ++flows_per_spine[p.device(p.directed_link(r[1]).to).name];
  }
  CHECK(flows_per_spine.size() == 16);
  for (const auto& [spine, flows] : flows_per_spine) CHECK_MESSAGE(flows == 1, spine);
}

TEST_CASE("fabric parameters that cannot be built are refused") {
  FabricSpec f;
  f.kind = FabricKind::fat_tree;
  f.hosts_per_leaf = 16;
  f.oversubscription = 3.0;  // 16 / 3 uplinks is not whole
  CHECK_THROWS_WITH_AS(cluster(32, 1, f), doctest::Contains("whole number of uplinks"), PlatformError);
  f.oversubscription = 1.0;
  f.switch_spec.ports = 24;  // 16 down + 16 up > 24 ports
  f.switch_spec.port_bandwidth = BytesPerSecond(12.5e9);
  CHECK_THROWS_WITH_AS(cluster(32, 1, f), doctest::Contains("a leaf needs 32 ports"), PlatformError);
  FabricSpec rail;
  rail.kind = FabricKind::rail_optimized;
  rail.hosts_per_leaf = 4;
  rail.rails = 8;
  CHECK_THROWS_WITH_AS(cluster(8, 4, rail), doctest::Contains("one NIC per rail"), PlatformError);
}

TEST_CASE("4096-GPU DGX H100 cluster: build, export and route every all-to-all pair") {
  // System: configs/platforms/dgx-h100-superpod-512.yaml, 512 DGX H100 on a rail-optimised
  // fabric (32 nodes per leaf group, 8 rails, 1:1). Expected hop counts, pair by pair:
  //   same node (512 x 8 x 7 pairs): gpu -> nvswitch -> gpu = 2 links;
  //   other node, same rail leaf (same GPU index and same 32-node group; 4096 x 31 pairs):
  //     gpu -> pcie -> nic -> leaf -> nic -> pcie -> gpu = 6 links;
  //   all other pairs: 8 links (up to a spine and down).
  // The time to build, export and route all 16.8 million ordered pairs is printed; the
  // acceptance target is under a second in a Release build.
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  const Platform p = load_platform(dlrmsim::testing::kRoot + "/configs/platforms/dgx-h100-superpod-512.yaml");
  sim::ActivityGraph graph;
  const PlatformResources res = export_platform(p, graph);
  const auto t1 = clock::now();
  const auto gpus = p.all_gpus();
  REQUIRE(gpus.size() == 4096);
  std::vector<sim::ResourceId> route;
  route.reserve(16);
  std::uint64_t hops = 0, pairs = 0;
  std::uint64_t checksum = 0;
  for (DeviceId a : gpus) {
    for (DeviceId b : gpus) {
      if (a == b) continue;
      route.clear();
      res.append_route_resources(a, b, route);
      hops += route.size();
      checksum += route.back().index;
      ++pairs;
    }
  }
  const auto t2 = clock::now();
  const std::uint64_t same_node = 512ull * 8 * 7;
  const std::uint64_t same_leaf = 4096ull * 31;
  const std::uint64_t all = 4096ull * 4095;
  CHECK(pairs == all);
  CHECK(hops == same_node * 2 + same_leaf * 6 + (all - same_node - same_leaf) * 8);
  CHECK(checksum > 0);
  // The last link of every route is the one into the destination GPU.
  route.clear();
  res.append_route_resources(gpus[0], gpus[4095], route);
  CHECK(graph.resource(route.back()).kind == "pcie");
  CHECK(graph.resource(route[3]).kind == "network");
  // Bisection of the full fat tree of 4096 NDR ports: 4096 x 50 GB/s / 2 = 102.4 TB/s.
  CHECK(p.bisection_bandwidth()->value() == dlrmsim::rel(4096 * 50e9 / 2));
  const double build_s = std::chrono::duration<double>(t1 - t0).count();
  const double route_s = std::chrono::duration<double>(t2 - t1).count();
  std::cout << "4096-GPU DGX H100 cluster: load + export " << build_s * 1e3 << " ms (" << graph.resource_count()
            << " resources), " << pairs << " all-to-all routes in " << route_s * 1e3 << " ms ("
            << route_s / static_cast<double>(pairs) * 1e9 << " ns per route)\n";
}
