// Export of a platform to the engine: resources per link direction, per memory and per GPU SM
// pool, compute engines per GPU and CPU socket, and routes as resource lists.
#include <doctest/doctest.h>

#include "approx.hpp"

#include "sim/activity_graph.hpp"
#include "topologies/engine_export.hpp"
#include "topologies/platform_loader.hpp"
#include "paths.hpp"

using namespace dlrmsim;
using namespace dlrmsim::topo;

TEST_CASE("DGX A100 export: one resource per link direction, memory and SM pool, one engine per GPU and socket") {
  // System: dgx-a100.yaml: 29 links (8 NVLink bundles, 8 GPU-PCIe, 8 NIC-PCIe, 4 PCIe-CPU, 1
  // xGMI) -> 58 link resources, + 8 HBM + 2 DRAM + 8 SM pools (108 SMs each, the file's
  // sm_count) = 76 resources; 8 + 2 = 10 engines.
  const Platform p = load_platform(dlrmsim::testing::kRoot + "/configs/platforms/dgx-a100.yaml");
  sim::ActivityGraph graph;
  graph.add_resource("something else first", BytesPerSecond(1e9), Seconds(0.0));  // ids need not start at 0
  const PlatformResources res = export_platform(p, graph);
  CHECK(graph.resource_count() == 1 + 58 + 10 + 8);
  CHECK(graph.engine_count() == 10);
  const DeviceId gpu3 = *p.find_device("gpu3");
  const DeviceId cpu1 = *p.find_device("cpu1");
  CHECK(graph.engine(res.engine(gpu3)).kind == "gpu");
  CHECK(graph.engine(res.engine(gpu3)).name == "gpu3");
  const sim::Resource& hbm = graph.resource(res.memory(gpu3));
  CHECK(hbm.kind == "hbm");
  CHECK(hbm.capacity.value() == dlrmsim::rel(2039e9));  // A100 80 GB datasheet figure in the file
  CHECK(graph.resource(res.memory(cpu1)).kind == "dram");
  CHECK(graph.resource(res.memory(cpu1)).capacity.value() == dlrmsim::rel(204.8e9));
  const auto sms = res.sms(gpu3);
  REQUIRE(sms.has_value());
  CHECK(graph.resource(*sms).kind == "sms");
  CHECK(graph.resource(*sms).cores);
  CHECK(graph.resource(*sms).capacity.value() == dlrmsim::rel(108 * sim::kWorkUnitsPerCoreSecond));
  CHECK_FALSE(res.sms(cpu1).has_value());
  CHECK_THROWS_AS((void)res.engine(*p.find_device("nic0")), PlatformError);
  CHECK_THROWS_AS((void)res.memory(*p.find_device("pcie0")), PlatformError);

  // gpu3 -> gpu6 over the NVSwitch: two NVLink resources of 300 GB/s, 0.3 us each, matching
  // the platform route link by link.
  const auto route = res.route_resources(gpu3, *p.find_device("gpu6"));
  const auto links = p.route(gpu3, *p.find_device("gpu6"));
  REQUIRE(route.size() == 2);
  for (std::size_t i = 0; i < route.size(); ++i) {
    const sim::Resource& r = graph.resource(route[i]);
    CHECK(route[i] == res.link_resource(links[i]));
    CHECK(r.kind == "nvlink");
    CHECK(r.capacity.value() == dlrmsim::rel(300e9));
    CHECK(r.latency.value() == dlrmsim::rel(0.3e-6));
  }
  // The two directions of a link are two resources with mirrored names.
  CHECK(graph.resource(route[0]).name == "gpu3->nvswitch");
  CHECK(graph.resource(route[1]).name == "nvswitch->gpu6");
  // gpu3 -> its host DRAM's socket: gpu3 -> pcie1 -> cpu0 (PCIe gen4, 31.5 GB/s).
  const auto to_host = res.route_resources(gpu3, *p.host_cpu(gpu3));
  REQUIRE(to_host.size() == 2);
  CHECK(graph.resource(to_host[0]).kind == "pcie");
  CHECK(graph.resource(to_host[0]).capacity.value() == dlrmsim::rel(31.5e9).epsilon(1e-3));
  // A transfer over the exported route is accepted by the engine graph.
  CHECK_NOTHROW(graph.add_transfer(Bytes(1e6), route));
}
