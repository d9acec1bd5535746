// The platform graph: building nodes from templates, routing inside a node (Big Basin's NVLink
// hybrid cube mesh) and across a fabric, host-CPU and NIC affinity, per-node sums.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <algorithm>

#include "topologies/platform_builder.hpp"
#include "topologies/platform_data.hpp"
#include "topologies/platform_loader.hpp"
#include "paths.hpp"

using namespace dlrmsim;
using namespace dlrmsim::topo;

namespace {

std::string platform_file(const std::string& name) {
  return dlrmsim::testing::kRoot + "/configs/platforms/" + name;
}

DeviceId dev(const Platform& p, const std::string& name) {
  auto d = p.find_device(name);
  REQUIRE_MESSAGE(d.has_value(), "no device " << name);
  return *d;
}

/// The resource classes along a route, e.g. {"nvlink"} or {"pcie", "pcie", "upi", "pcie", "pcie"}.
std::vector<std::string> classes_on_route(const Platform& p, DeviceId a, DeviceId b) {
  std::vector<std::string> out;
  for (DirectedLinkId d : p.route(a, b)) out.push_back(p.link(link_of(d)).resource_class);
  return out;
}

/// The NVLink pairs of the DGX-1 / Big Basin hybrid cube mesh (DGX-1 V100 white paper).
bool nvlinked(int a, int b) {
  if (a > b) std::swap(a, b);
  const bool same_quad = (a < 4) == (b < 4);
  return same_quad || b == a + 4;
}

}  // namespace

TEST_CASE("Big Basin: routes use NVLink where the hybrid cube mesh has a link, PCIe and the host otherwise") {
  // System: big-basin-v100-16gb.yaml, 8 V100 in the DGX-1 hybrid cube mesh. Expected: for each of
  // the 56 ordered GPU pairs, a direct NVLink pair routes over exactly one NVLink link (GPUs do
  // not forward, so no two-hop NVLink path is allowed); every other pair goes GPU -> PCIe
  // switch -> CPU socket (-> UPI -> other socket) -> PCIe switch -> GPU, never over NVLink.
  const Platform p = load_platform(platform_file("big-basin-v100-16gb.yaml"));
  REQUIRE(p.all_gpus().size() == 8);
  int nvlink_pairs = 0;
  for (int a = 0; a < 8; ++a) {
    for (int b = 0; b < 8; ++b) {
      if (a == b) continue;
      const auto classes = classes_on_route(p, dev(p, "gpu" + std::to_string(a)), dev(p, "gpu" + std::to_string(b)));
      if (nvlinked(a, b)) {
        ++nvlink_pairs;
        CHECK_MESSAGE(classes == std::vector<std::string>{"nvlink"}, "gpu" << a << " -> gpu" << b);
      } else {
        CHECK_MESSAGE(std::count(classes.begin(), classes.end(), "nvlink") == 0, "gpu" << a << " -> gpu" << b);
        CHECK(classes.front() == "pcie");
        CHECK(classes.back() == "pcie");
        // GPUs 0-3 hang off socket 0 and 4-7 off socket 1: a cross pair crosses the UPI link.
        CHECK(std::count(classes.begin(), classes.end(), "upi") == ((a < 4) != (b < 4) ? 1 : 0));
      }
    }
  }
  CHECK(nvlink_pairs == 8 * 4);  // each GPU has 4 NVLink peers (3 in its quad + 1 across)
  // gpu0 -> gpu5: no NVLink; 0 and 5 sit on different sockets: pcie, pcie, upi, pcie, pcie.
  CHECK(classes_on_route(p, dev(p, "gpu0"), dev(p, "gpu5")) ==
        std::vector<std::string>{"pcie", "pcie", "upi", "pcie", "pcie"});
  // Doubled NVLink pairs carry 2 x 25 GB/s per direction (gpu0-gpu3), single ones 25 GB/s (gpu0-gpu1).
  CHECK(p.route_bandwidth(dev(p, "gpu0"), dev(p, "gpu3")).value() == dlrmsim::rel(50e9));
  CHECK(p.route_bandwidth(dev(p, "gpu0"), dev(p, "gpu1")).value() == dlrmsim::rel(25e9));
  // Through the host the bottleneck is one PCIe gen3 x16: 8 GT/s x 16 x 128/130 / 8 = 15.75 GB/s.
  CHECK(p.route_bandwidth(dev(p, "gpu0"), dev(p, "gpu5")).value() == dlrmsim::rel(15.75e9).epsilon(1e-3));
}

// System: the same Big Basin. NCCL 2.8.3 and later relays traffic between two GPUs without an
// NVLink of their own through a GPU that has an NVLink to both (its NVB paths). Expected:
// every one of the 24 ordered pairs without an NVLink has a relay of two NVLink links whose
// middle device is a GPU with an NVLink to both ends; pairs with an NVLink have none. gpu0 ->
// gpu5: relays via gpu1 (0-1 single, 1-5 double) and gpu4 (0-4 double, 4-5 single) both
// carry 25 GB/s at their narrower link; the tie goes to the first link of gpu0 (0-1).
TEST_CASE("Big Basin: every GPU pair without an NVLink has an NVLink relay through a third GPU") {
  const Platform p = load_platform(platform_file("big-basin-v100-16gb.yaml"));
  int relayed = 0;
  for (int a = 0; a < 8; ++a) {
    for (int b = 0; b < 8; ++b) {
      if (a == b) continue;
      const auto relay = p.nvlink_relay(dev(p, "gpu" + std::to_string(a)), dev(p, "gpu" + std::to_string(b)));
      CHECK_MESSAGE(relay.has_value() == !nvlinked(a, b), "gpu" << a << " -> gpu" << b);
      if (!relay) continue;
      ++relayed;
      const auto& first = p.directed_link((*relay)[0]);
      const auto& second = p.directed_link((*relay)[1]);
      CHECK(first.from == dev(p, "gpu" + std::to_string(a)));
      CHECK(first.to == second.from);
      CHECK(second.to == dev(p, "gpu" + std::to_string(b)));
      CHECK(p.device(first.to).kind == DeviceKind::gpu);
      CHECK(p.link(first.link).resource_class == "nvlink");
      CHECK(p.link(second.link).resource_class == "nvlink");
    }
  }
  CHECK(relayed == 56 - 32);
  CHECK(p.device(p.directed_link((*p.nvlink_relay(dev(p, "gpu0"), dev(p, "gpu5")))[0]).to).name == "gpu1");
  // A DGX A100's GPUs all reach each other over NVSwitch: nothing to relay.
  const Platform a100 = load_platform(platform_file("dgx-a100.yaml"));
  CHECK_FALSE(a100.nvlink_relay(dev(a100, "gpu0"), dev(a100, "gpu7")).has_value());
}

TEST_CASE("routes are directed, reversed links for the way back, and latencies add up") {
  // System: big-basin, gpu0 -> gpu5 and back. Expected: the way back uses the same links in
  // reverse order and opposite direction; 5 hops: 4 PCIe (0.5 us) + 1 UPI (0.1 us) = 2.1 us.
  const Platform p = load_platform(platform_file("big-basin-v100-16gb.yaml"));
  const auto there = p.route(dev(p, "gpu0"), dev(p, "gpu5"));
  const auto back = p.route(dev(p, "gpu5"), dev(p, "gpu0"));
  REQUIRE(there.size() == back.size());
  for (std::size_t i = 0; i < there.size(); ++i) {
    const DirectedLinkId d = there[i];
    const DirectedLinkId r = back[back.size() - 1 - i];
    CHECK(link_of(d) == link_of(r));
    CHECK(d.index != r.index);
  }
  // Consecutive directed links chain: each starts where the previous one ended.
  DeviceId at = dev(p, "gpu0");
  for (DirectedLinkId d : there) {
    const DirectedLink dl = p.directed_link(d);
    CHECK(dl.from == at);
    at = dl.to;
  }
  CHECK(at == dev(p, "gpu5"));
  CHECK(p.route_latency(dev(p, "gpu0"), dev(p, "gpu5")).value() == dlrmsim::rel(2.1e-6));
  CHECK(p.route(dev(p, "gpu2"), dev(p, "gpu2")).empty());
}

TEST_CASE("host CPU and NIC affinity follow the PCIe tree") {
  // System: DGX A100 (4 PCIe switches, each with 2 GPUs and 2 NICs; switches 0-1 on socket 0).
  // Expected: gpu0 and gpu1 tie for nic0 and nic1 and take one each (gpu0 -> nic0, gpu1 -> nic1);
  // GPUs 0-3 have cpu0 as host, 4-7 cpu1 (DGX A100 architecture white paper).
  const Platform p = load_platform(platform_file("dgx-a100.yaml"));
  for (int g = 0; g < 8; ++g) {
    const DeviceId gpu = dev(p, "gpu" + std::to_string(g));
    CHECK(p.affinity_nic(gpu) == dev(p, "nic" + std::to_string(g)));
    CHECK(p.host_cpu(gpu) == dev(p, g < 4 ? "cpu0" : "cpu1"));
  }
  // NVSwitch: every GPU pair is one hop to the switch and one back, 300 GB/s per direction.
  CHECK(classes_on_route(p, dev(p, "gpu0"), dev(p, "gpu7")) == std::vector<std::string>{"nvlink", "nvlink"});
  CHECK(p.route_bandwidth(dev(p, "gpu0"), dev(p, "gpu7")).value() == dlrmsim::rel(300e9));
}

TEST_CASE("per-node sums match the devices listed in the platform file") {
  // Systems and expected sums, each straight from the YAML values (times device counts):
  //   DGX H100: 8 x 80 GB HBM, 8 x 3.35 TB/s, 2 x 1 TB DRAM, 2 x 307.2 GB/s, 8 x 18 NVLink4 x 25 GB/s
  //             = 3.6 TB/s, 8 x 400 Gbit/s = 400 GB/s NIC, 2 x 56 cores.
  //   Big Basin 32 GB: 8 x 32 GB, 8 x 6 x 25 GB/s = 1.2 TB/s NVLink, one 100 Gbit/s NIC.
  const Platform h100 = load_platform(platform_file("dgx-h100.yaml"));
  const NodeSummary s = h100.node_summary(NodeId{0});
  CHECK(s.gpu_count == 8);
  CHECK(s.hbm_capacity.value() == dlrmsim::rel(640e9));
  CHECK(s.hbm_bandwidth.value() == dlrmsim::rel(8 * 3.35e12));
  CHECK(s.cpu_socket_count == 2);
  CHECK(s.cpu_cores == 112);
  CHECK(s.dram_capacity.value() == dlrmsim::rel(2e12));
  CHECK(s.dram_bandwidth.value() == dlrmsim::rel(2 * 307.2e9));
  CHECK(s.nvlink_bandwidth.value() == dlrmsim::rel(8 * 18 * 25e9));
  CHECK(s.nic_count == 8);
  CHECK(s.nic_bandwidth.value() == dlrmsim::rel(400e9));
  CHECK(s.gpu_peak.get(Precision::bf16)->value() == dlrmsim::rel(8 * 989.5e12));
  CHECK_FALSE(s.cpu_peak.get(Precision::fp8).has_value());  // not given for the CPUs: no sum

  const Platform bb = load_platform(platform_file("big-basin-v100-32gb.yaml"));
  const NodeSummary b = bb.node_summary(NodeId{0});
  CHECK(b.hbm_capacity.value() == dlrmsim::rel(8 * 32e9));
  CHECK(b.nvlink_bandwidth.value() == dlrmsim::rel(8 * 6 * 25e9));
  CHECK(b.nic_bandwidth.value() == dlrmsim::rel(100e9 / 8));
  CHECK(bb.gpu_spec(bb.all_gpus()[3]).model == "V100-SXM2-32GB");
}

TEST_CASE("a cluster names nodes by group, knows where each device sits and routes across the fabric") {
  // System: cpu-cluster.yaml, 20 trainers + 8 parameter servers of one template on one switch.
  // Expected: 28 nodes; trainer3.cpu1 lives in node trainer3; a route from a trainer's socket 1
  // to a parameter server's socket 1 goes UPI -> PCIe (to the NIC) -> NIC-switch -> switch-NIC
  // -> PCIe -> UPI, whose bottleneck is the 25 Gbit/s NIC link (3.125 GB/s).
  const Platform p = load_platform(platform_file("cpu-cluster.yaml"));
  CHECK(p.nodes().size() == 28);
  REQUIRE(p.groups().size() == 2);
  CHECK(p.groups()[1].name == "ps");
  CHECK(p.groups()[1].role == "parameter_server");
  REQUIRE(p.nodes_in(GroupId{1}).size() == 8);
  CHECK(p.nodes_in(GroupId{1}).front().name == "ps0");
  CHECK(p.nodes_in(GroupId{0}).back().name == "trainer19");
  const DeviceId a = dev(p, "trainer3.cpu1");
  const DeviceId b = dev(p, "ps7.cpu1");
  CHECK(p.node(p.node_of(a)).name == "trainer3");
  CHECK(p.node(p.node_of(b)).group == *p.find_group("ps"));
  CHECK(classes_on_route(p, a, b) == std::vector<std::string>{"upi", "pcie", "nic", "nic", "pcie", "upi"});
  CHECK(p.route_bandwidth(a, b).value() == dlrmsim::rel(3.125e9));
  CHECK_THROWS_AS((void)p.gpu_spec(a), PlatformError);
  // A fabric switch is in no node, but routes to it are found by search.
  const DeviceId sw = dev(p, "switch");
  CHECK(p.is_fabric_device(sw));
  CHECK_THROWS_AS((void)p.node_of(sw), PlatformError);
  CHECK(p.route(a, sw).size() == 3);  // upi, pcie, nic
}

TEST_CASE("the builder rejects inconsistent platforms with messages naming the part") {
  // Two nodes and no fabric; a device that cannot reach a NIC in a cluster; bad link indices.
  NodeTemplate t{"box", {}, {}};
  const auto cpu = t.add_device("cpu0", CpuSocketSpec{"x", 4, 1, Hertz(1e9), Bytes(1e9), BytesPerSecond(1e10), 2,
                                                      BytesPerSecond(1e9), Seconds(0.0), {}, nullptr, nullptr, std::nullopt, std::nullopt});
  CHECK_THROWS_WITH_AS(t.add_device("cpu0", PcieSwitchSpec{}), doctest::Contains("two devices are named 'cpu0'"),
                       PlatformError);
  CHECK_THROWS_WITH_AS(t.add_link(cpu, 7, LinkKind::pcie4x16), doctest::Contains("no such device"), PlatformError);
  CHECK_THROWS_WITH_AS(t.add_link(cpu, cpu, LinkKind::pcie4x16), doctest::Contains("two different devices"),
                       PlatformError);
  {
    PlatformBuilder b("p");
    b.add_template(t);
    b.add_group("n", "box", 2);
    CHECK_THROWS_WITH_AS(std::move(b).build(), doctest::Contains("need a fabric"), PlatformError);
  }
  {
    PlatformBuilder b("p");
    b.add_template(t);
    b.add_group("n", "box", 2);
    b.set_fabric(FabricSpec{});
    CHECK_THROWS_WITH_AS(std::move(b).build(), doctest::Contains("cannot reach any NIC"), PlatformError);
  }
}

TEST_CASE("Persia benchmark GPU server: collectives over PCIe and the host, and 4 of its 8 GPUs in a job") {
  // System: persia-gpu-server.yaml, 8 V100 32 GB with two GPUs per PCIe gen3 switch and no NVLink
  // (the benchmark ran NCCL without P2P). Expected: GPUs on one switch reach each other over two
  // PCIe gen3 x16 links (gpu -> switch -> gpu) at 16 x 8 GT/s x 128/130 / 8 = 15.75 GB/s; GPUs
  // on different sockets cross both sockets' PCIe trees and UPI (pcie, pcie, upi, pcie, pcie).
  // The persia-gpu-4 template keeps GPUs 0-3 and both of their switches on socket 0, so gpu0 ->
  // gpu2 goes gpu -> switch -> cpu0 -> switch -> gpu with no UPI hop.
  // The file on its own is the whole server as a one-node cluster (node "server").
  const Platform p = load_platform(platform_file("persia-gpu-server.yaml"));
  CHECK(p.all_gpus().size() == 8);
  CHECK(p.route_bandwidth(dev(p, "server.gpu0"), dev(p, "server.gpu1")).value() == dlrmsim::rel(15.75e9).epsilon(1e-3));
  CHECK(classes_on_route(p, dev(p, "server.gpu0"), dev(p, "server.gpu1")) == std::vector<std::string>{"pcie", "pcie"});
  CHECK(classes_on_route(p, dev(p, "server.gpu0"), dev(p, "server.gpu7")) ==
        std::vector<std::string>{"pcie", "pcie", "upi", "pcie", "pcie"});
  const std::string four = "name: four\n"
                           "node_templates:\n"
                           "  box: {from_file: " + platform_file("persia-gpu-server.yaml") + ", template: persia-gpu-4}\n";
  const Platform q = load_platform(ConfigNode::load_string(four, "four.yaml"));
  CHECK(q.all_gpus().size() == 4);
  CHECK(classes_on_route(q, dev(q, "gpu0"), dev(q, "gpu2")) == std::vector<std::string>{"pcie", "pcie", "pcie", "pcie"});
}

TEST_CASE("Persia on Google Cloud: three node groups of different templates with their roles") {
  // System: persia-gcp.yaml (Persia, KDD 2022): 8 a2-highgpu-8g + 100 c2-standard-30 + 30
  // m2-ultramem-416 = 138 nodes and 64 GPUs. A GPU of a dense trainer reaches a parameter
  // server's socket through both VMs' NICs; the bottleneck is the m2's 32 Gbit/s (4 GB/s).
  // The parameter servers hold 30 x 11,776 GB of DRAM (Google Cloud's figure per VM).
  const Platform p = load_platform(platform_file("persia-gcp.yaml"));
  CHECK(p.nodes().size() == 138);
  CHECK(p.all_gpus().size() == 64);
  const GroupId ps = *p.find_group("ps");
  CHECK(p.group(ps).role == "parameter_server");
  CHECK(p.group(*p.find_group("ew")).template_name == "c2-standard-30");
  Bytes dram;
  for (const Node& n : p.nodes_in(ps)) dram += p.node_summary(n.id).dram_capacity;
  CHECK(dram.value() == dlrmsim::rel(30 * 11776e9));
  const DeviceId gpu = dev(p, "nn3.gpu5");
  const DeviceId server = dev(p, "ps29.cpu6");
  CHECK(p.route_bandwidth(gpu, server).value() == dlrmsim::rel(4e9));
  const auto classes = classes_on_route(p, gpu, server);
  CHECK(std::count(classes.begin(), classes.end(), "nic") == 2);
}

TEST_CASE("GB200 NVL72: the rack is one NVLink domain; GPUs reach their Grace over C2C and their tray's NICs through it") {
  // System: gb200-nvl72.yaml, one rack as one node template: 72 GB200 GPUs on one NVLink switch
  // crossbar (18 NVLink 5 links each), each pair of GPUs on one Grace by NVLink-C2C, two
  // ConnectX-7 on each Grace by PCIe. Expected: every one of the 72 x 71 ordered GPU pairs routes
  // GPU -> NVLink switch -> GPU (two NVLink links, never a NIC, never the Grace, not even for
  // the two GPUs of one superchip, whose C2C path is as short); each GPU's host is its Grace
  // (gpu 2k and 2k+1 on grace k) over one C2C link; its affinity NIC is one of its Grace's two,
  // the two GPUs of a superchip spread over them (gpu i -> nic i), two hops away (C2C, PCIe).
  const Platform p = load_platform(platform_file("gb200-nvl72.yaml"));
  REQUIRE(p.all_gpus().size() == 72);
  REQUIRE(p.nodes().size() == 1);
  for (int a = 0; a < 72; ++a) {
    for (int b = 0; b < 72; ++b) {
      if (a == b) continue;
      const auto classes = classes_on_route(p, dev(p, "gpu" + std::to_string(a)), dev(p, "gpu" + std::to_string(b)));
      if (classes != std::vector<std::string>{"nvlink", "nvlink"}) FAIL("gpu" << a << " -> gpu" << b);
    }
  }
  for (int g = 0; g < 72; ++g) {
    const DeviceId gpu = dev(p, "gpu" + std::to_string(g));
    CHECK(p.host_cpu(gpu) == dev(p, "grace" + std::to_string(g / 2)));
    CHECK(classes_on_route(p, gpu, *p.host_cpu(gpu)) == std::vector<std::string>{"c2c"});
    REQUIRE(p.affinity_nic(gpu).has_value());
    CHECK(*p.affinity_nic(gpu) == dev(p, "nic" + std::to_string(g)));
    CHECK(classes_on_route(p, gpu, *p.affinity_nic(gpu)) == std::vector<std::string>{"c2c", "pcie"});
  }
  // 1.8 TB/s per GPU, 900 GB/s per direction: the bottleneck of a GPU pair's route.
  CHECK(p.route_bandwidth(dev(p, "gpu0"), dev(p, "gpu71")).value() == dlrmsim::rel(900e9));
}

TEST_CASE("two GB200 NVL72 racks: traffic leaves a rack only through the NICs") {
  // System: gb200-nvl72-2racks.yaml, two racks on a fat tree. Expected: a pair of GPUs in one
  // rack routes over NVLink only; a pair in different racks goes GPU -> C2C -> Grace -> PCIe ->
  // NIC -> fabric -> NIC -> PCIe -> Grace -> C2C -> GPU, so every off-rack byte crosses a NIC
  // link on each side.
  const Platform p = load_platform(platform_file("gb200-nvl72-2racks.yaml"));
  REQUIRE(p.all_gpus().size() == 144);
  CHECK(classes_on_route(p, dev(p, "rack0.gpu3"), dev(p, "rack0.gpu70")) == std::vector<std::string>{"nvlink", "nvlink"});
  const auto off = classes_on_route(p, dev(p, "rack0.gpu3"), dev(p, "rack1.gpu70"));
  REQUIRE(off.size() >= 6);
  CHECK(std::vector<std::string>(off.begin(), off.begin() + 3) == std::vector<std::string>{"c2c", "pcie", "nic"});
  CHECK(std::vector<std::string>(off.end() - 3, off.end()) == std::vector<std::string>{"nic", "pcie", "c2c"});
}

TEST_CASE("PCIe-only and AMD servers: H100 PCIe GPUs meet over PCIe, MI300X and MI355X GPUs over one Infinity Fabric link") {
  // System: h100-pcie-8gpu.yaml (no NVLink; two GPUs a PCIe Gen5 switch, two switches a socket)
  // and mi300x-8gpu.yaml / mi355x-8gpu.yaml (every pair of the 8 GPUs joined by one Infinity
  // Fabric link). Expected: H100 PCIe pairs on one switch route GPU -> switch -> GPU (2 PCIe
  // links at 63 GB/s), pairs on one socket add the socket, pairs across sockets add UPI; no
  // route has an NVLink-class link. On the AMD servers every pair routes over its own link, of
  // class "nvlink" (the GPU-to-GPU scale-up class), at 64 GB/s (MI300X) and 76.8 GB/s (MI355X)
  // per direction.
  const Platform pcie = load_platform(platform_file("h100-pcie-8gpu.yaml"));
  CHECK(classes_on_route(pcie, dev(pcie, "gpu0"), dev(pcie, "gpu1")) == std::vector<std::string>{"pcie", "pcie"});
  CHECK(classes_on_route(pcie, dev(pcie, "gpu0"), dev(pcie, "gpu2")) ==
        std::vector<std::string>{"pcie", "pcie", "pcie", "pcie"});
  CHECK(classes_on_route(pcie, dev(pcie, "gpu0"), dev(pcie, "gpu7")) ==
        std::vector<std::string>{"pcie", "pcie", "upi", "pcie", "pcie"});
  CHECK(pcie.route_bandwidth(dev(pcie, "gpu0"), dev(pcie, "gpu1")).value() == dlrmsim::rel(63.015e9).epsilon(1e-3));
  for (const auto& [file, bandwidth] : {std::pair{"mi300x-8gpu.yaml", 64e9}, std::pair{"mi355x-8gpu.yaml", 76.8e9}}) {
    CAPTURE(file);
    const Platform p = load_platform(platform_file(file));
    for (int a = 0; a < 8; ++a) {
      for (int b = 0; b < 8; ++b) {
        if (a == b) continue;
        const DeviceId ga = dev(p, "gpu" + std::to_string(a)), gb = dev(p, "gpu" + std::to_string(b));
        CHECK(classes_on_route(p, ga, gb) == std::vector<std::string>{"nvlink"});
        CHECK(p.route_bandwidth(ga, gb).value() == dlrmsim::rel(bandwidth));
      }
    }
  }
}
