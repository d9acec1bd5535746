// Building placement problems from the shipped platform and model files
// (models/placement_problem.hpp): which devices own shards, their capacities and cost parameters,
// and that the tier policies put tables where the platform says they should be.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <algorithm>
#include <set>
#include <string>

#include "models/model_spec.hpp"
#include "models/placement_problem.hpp"
#include "topologies/platform_loader.hpp"
#include "paths.hpp"

using namespace dlrmsim;
using namespace dlrmsim::models;
using namespace dlrmsim::placement;

namespace {

const std::string kConfigs = dlrmsim::testing::kRoot + "/configs/";

topo::Platform platform(const std::string& name) { return topo::load_platform(kConfigs + "platforms/" + name); }
models::ModelSpec model(const std::string& name) { return models::load_model(kConfigs + "models/" + name); }

std::size_t count_kind(const PlacementProblem& p, OwnerKind k) { return p.devices_of(k).size(); }

}  // namespace

// Big Basin (8 V100 32 GB, 2 sockets) with M1: 8 GPUs of 32 GB HBM with the datasheet
// bandwidth, each pointing at its NUMA-local socket (the platform's host_cpu); one
// TableDemand per table instance with the model's bytes; the V100 profile shipped in
// configs/calibration is found and used.
TEST_CASE("Big Basin and M1 become GPUs, sockets and table demands") {
  const auto plat = platform("big-basin-v100-32gb.yaml");
  const auto m = model("hpca21_m1.yaml");
  const topo::DeviceProfileSet profiles(kConfigs + "calibration");
  const auto p = make_placement_problem(m, plat, &profiles);
  CHECK(count_kind(p, OwnerKind::gpu) == 8);
  CHECK(count_kind(p, OwnerKind::cpu_socket) == 2);
  CHECK(count_kind(p, OwnerKind::parameter_server) == 0);
  CHECK(p.tables.size() == static_cast<std::size_t>(m.table_count()));
  CHECK(p.global_batch == m.global_batch_size);
  double weights = 0.0;
  for (const auto& t : p.tables) weights += t.footprint().value();
  CHECK(weights == dlrmsim::rel((m.embedding_weight_bytes() + m.embedding_optimizer_state_bytes()).value()));
  for (std::uint32_t g : p.devices_of(OwnerKind::gpu)) {
    const auto& d = p.devices[g];
    const topo::DeviceId id{d.topology_id};
    CHECK(d.memory_capacity == plat.gpu_spec(id).hbm_capacity);
    CHECK(d.memory_bandwidth == plat.gpu_spec(id).hbm_bandwidth);
    REQUIRE(d.host_socket >= 0);
    CHECK(p.devices[static_cast<std::size_t>(d.host_socket)].topology_id == plat.host_cpu(id)->index);
    CHECK(d.host_link_bandwidth.value() > 0.0);
    REQUIRE(d.profile != nullptr);
    CHECK(d.access_granule == d.profile->gather.access_granule);
  }
  CHECK(p.activations_per_gpu.value() > 0.0);
  CHECK(p.dense_weights_per_gpu == m.dense_weight_bytes());
}

// The CPU cluster: 20 trainer nodes (role trainer) and 8 parameter servers (role
// parameter_server). Trainers contribute their sockets (host_dram); each server is one
// device whose memory is the sum of its sockets' DRAM and whose network is its NICs.
TEST_CASE("parameter-server nodes are found by their role") {
  const auto plat = platform("cpu-cluster.yaml");
  const auto p = make_placement_problem(model("hpca21_m1.yaml"), plat);
  CHECK(count_kind(p, OwnerKind::gpu) == 0);
  CHECK(count_kind(p, OwnerKind::parameter_server) == 8);
  std::size_t trainer_sockets = 0;
  for (const auto& n : plat.nodes()) {
    if (plat.group(n.group).role == "trainer") trainer_sockets += n.cpus.size();
  }
  CHECK(count_kind(p, OwnerKind::cpu_socket) == trainer_sockets);
  for (std::uint32_t s : p.devices_of(OwnerKind::parameter_server)) {
    const auto& d = p.devices[s];
    const auto& node = plat.node(topo::NodeId{d.topology_id});
    CHECK(plat.group(node.group).role == "parameter_server");
    Bytes dram{0.0};
    for (auto c : node.cpus) dram += plat.cpu_spec(c).dram_capacity;
    CHECK(d.memory_capacity == dram);
    CHECK(d.network_bandwidth.value() > 0.0);
  }
}

// Persia on Google Cloud: 8 GPU nodes (dense_trainer), 100 embedding workers, 30 servers.
// Embedding workers own no tables; the 64 GPUs and the 30 servers do.
TEST_CASE("embedding-worker nodes own no tables") {
  const auto plat = platform("persia-gcp.yaml");
  const auto p = make_placement_problem(model("hpca21_m1.yaml"), plat);
  CHECK(count_kind(p, OwnerKind::gpu) == 64);
  CHECK(count_kind(p, OwnerKind::parameter_server) == 30);
  std::set<std::uint32_t> socket_nodes;
  for (std::uint32_t s : p.devices_of(OwnerKind::cpu_socket)) socket_nodes.insert(p.devices[s].node);
  CHECK(socket_nodes.size() == 8);
}

// all_remote on Big Basin + 8 servers (the M3 scenario's platform) puts every shard on a
// server node and charges the servers' memory; all_host on Zion charges the sockets; M1's
// all_gpu on Big Basin charges only GPUs. The plans are what the training modes simulate.
TEST_CASE("tier policies place tables on the devices the platform provides") {
  const auto m1 = model("hpca21_m1.yaml");
  PlacementOptions o;
  o.policy = "all_gpu";
  const auto bb = make_placement_problem(m1, platform("big-basin-v100-32gb.yaml"));
  const auto gpu_plan = place(bb, o);
  for (const auto& tp : gpu_plan.tables) {
    for (const auto& s : tp.shards) {
      for (auto owner : s.owners) CHECK(bb.devices[owner].kind == OwnerKind::gpu);
    }
  }
  const auto plat = topo::load_platform_reference(
      ConfigNode::load_file(kConfigs + "scenarios/hpca21_m3_big_basin_remote_ps.yaml").child("platform"));
  const auto remote = make_placement_problem(model("hpca21_m3.yaml"), plat);
  o.policy = "all_remote";
  const auto remote_plan = place(remote, o);
  for (const auto& tp : remote_plan.tables) {
    CHECK(tp.tier == Tier::remote_ps);
    for (const auto& s : tp.shards) {
      REQUIRE(s.owners.size() == 1);
      const auto& d = remote.devices[s.owners[0]];
      CHECK(d.kind == OwnerKind::parameter_server);
      CHECK(plat.group(plat.node(topo::NodeId{d.topology_id}).group).role == "parameter_server");
    }
  }
  const auto zion = make_placement_problem(m1, platform("zion.yaml"));
  CHECK(count_kind(zion, OwnerKind::cpu_socket) == 8);
  std::set<std::int32_t> hosts;
  for (std::uint32_t g : zion.devices_of(OwnerKind::gpu)) hosts.insert(zion.devices[g].host_socket);
  CHECK(hosts.size() == 8);  // one accelerator per socket
  o.policy = "all_host";
  const auto host_plan = place(zion, o);
  for (const auto& tp : host_plan.tables) {
    CHECK(tp.tier == Tier::host_dram);
    for (const auto& s : tp.shards) CHECK(zion.devices[s.owners[0]].kind == OwnerKind::cpu_socket);
  }
}

// The CPU access granule is the scenario's (training.cpu.access_granule), as in the
// simulation: Big Basin + 8 servers with a 128-byte granule gives its CPU sockets and its
// parameter servers 128 B; without a setting, the 64-byte line of CpuSocketSpec's definition.
// GPUs keep their profile's 32-byte sector. A host_dram lookup then moves max(row, 128 B).
TEST_CASE("the planner takes the CPU access granule from the scenario") {
  const auto plat = topo::load_platform_reference(
      ConfigNode::load_file(kConfigs + "scenarios/hpca21_m3_big_basin_remote_ps.yaml").child("platform"));
  const topo::DeviceProfileSet profiles(kConfigs + "calibration");
  ProblemSettings wide;
  wide.cpu_access_granule = Bytes(128.0);
  const auto p = make_placement_problem(model("hpca21_m3.yaml"), plat, &profiles, wide);
  const auto plain = make_placement_problem(model("hpca21_m3.yaml"), plat, &profiles);
  REQUIRE(count_kind(p, OwnerKind::cpu_socket) > 0);
  REQUIRE(count_kind(p, OwnerKind::parameter_server) > 0);
  for (std::size_t i = 0; i < p.devices.size(); ++i) {
    if (p.devices[i].kind == OwnerKind::gpu) {
      CHECK(p.devices[i].access_granule.value() == 32.0);
    } else {
      CHECK(p.devices[i].access_granule.value() == 128.0);
      CHECK(plain.devices[i].access_granule.value() == 64.0);
    }
  }
}

// The Persia 100 T deployment on Google Cloud (persia-gcp.yaml: 30 m2-ultramem-416 parameter
// servers of 8 sockets x 26 cores x 2 threads = 416 vCPUs, 11,776 GB) with the reference's
// embedding-server pods, 120 of 80 CPUs and 2,500 GiB: 4 per node, so each server uses
// 320 / 416 of its cores' gather rate (its DRAM bandwidth is shared, not cut) and may hold
// 4 x 2,500 GiB. 121 pods do not spread evenly over 30 nodes: an error located at the count.
TEST_CASE("a role's pods cut its nodes' CPU rate and memory to their share") {
  const auto plat = platform("persia-gcp.yaml");
  const auto m = model("persia_100t.yaml");
  ProblemSettings whole;
  whole.roles.parameter_server = "parameter_server";
  ProblemSettings pods = whole;
  pods.server_pods = RolePods{120, 80, Bytes(2500.0 * 1024 * 1024 * 1024), "s.yaml:9:23: training.pods.parameter_server.count"};
  const auto a = make_placement_problem(m, plat, nullptr, whole);
  const auto b = make_placement_problem(m, plat, nullptr, pods);
  const auto servers = a.devices_of(OwnerKind::parameter_server);
  REQUIRE(servers.size() == 30);
  for (auto s : servers) {
    CHECK(b.devices[s].cpu_rows.cores == dlrmsim::rel(a.devices[s].cpu_rows.cores * 320.0 / 416.0));
    CHECK(a.devices[s].cpu_rows.keyed);
    CHECK(b.devices[s].memory_bandwidth.value() == a.devices[s].memory_bandwidth.value());
    CHECK(a.devices[s].memory_capacity.value() == dlrmsim::rel(11776e9));
    CHECK(b.devices[s].memory_capacity.value() == dlrmsim::rel(4 * 2500.0 * 1024 * 1024 * 1024));
  }
  const PodShare share = pod_share(plat, topo::NodeId{a.devices[servers[0]].topology_id}, *pods.server_pods, 30);
  CHECK(share.cpu == dlrmsim::rel(320.0 / 416.0));
  pods.server_pods->count = 121;
  CHECK_THROWS_WITH_AS(make_placement_problem(m, plat, nullptr, pods),
                       "s.yaml:9:23: training.pods.parameter_server.count: 121 pods over 30 nodes: expected a multiple "
                       "of the node count (pods are spread evenly)",
                       ConfigError);
}

// training.gpus_per_node: part of a server without an edited template. System: one DGX H100
// (8 GPUs; gpu0-3 hosted by cpu0, gpu4-7 by cpu1) and one GB200 NVL72 rack (72 GPUs, 36 Grace).
// Inputs: 1, 4 and 8 of 8; 8 of the rack's 72. Expected: the first N GPUs in template order
// and only the sockets that host them (1 and 4 of a DGX: cpu0 alone; 8: both; the rack's first
// 8 GPUs: the 4 Grace of trays 0 and 1); 9 of 8 is an error located at the key.
TEST_CASE("gpus_per_node keeps the first N GPUs of each trainer node and the sockets hosting them") {
  const auto dgx = platform("dgx-h100.yaml");
  const auto m = model("dlrm_dcnv2_criteo_4tb.yaml");
  const auto names = [](const PlacementProblem& p, OwnerKind k) {
    std::vector<std::string> out;
    for (std::uint32_t i : p.devices_of(k)) out.push_back(p.devices[i].name);
    return out;
  };
  ProblemSettings s;
  s.gpus_per_node = 1;
  auto p = make_placement_problem(m, dgx, nullptr, s);
  CHECK(names(p, OwnerKind::gpu) == std::vector<std::string>{"gpu0"});
  CHECK(names(p, OwnerKind::cpu_socket) == std::vector<std::string>{"cpu0"});
  s.gpus_per_node = 4;
  p = make_placement_problem(m, dgx, nullptr, s);
  CHECK(names(p, OwnerKind::gpu) == std::vector<std::string>{"gpu0", "gpu1", "gpu2", "gpu3"});
  CHECK(names(p, OwnerKind::cpu_socket) == std::vector<std::string>{"cpu0"});
  s.gpus_per_node = 8;
  p = make_placement_problem(m, dgx, nullptr, s);
  CHECK(count_kind(p, OwnerKind::gpu) == 8);
  CHECK(count_kind(p, OwnerKind::cpu_socket) == 2);
  const auto rack = platform("gb200-nvl72.yaml");
  p = make_placement_problem(m, rack, nullptr, s);
  CHECK(count_kind(p, OwnerKind::gpu) == 8);
  CHECK(names(p, OwnerKind::cpu_socket) == std::vector<std::string>{"grace0", "grace1", "grace2", "grace3"});
  s.gpus_per_node = 9;
  s.gpus_per_node_where = "scenario.yaml:7:19: training.gpus_per_node";
  CHECK_THROWS_WITH_AS(make_placement_problem(m, dgx, nullptr, s),
                       "scenario.yaml:7:19: training.gpus_per_node: 9 GPUs per node, but node 'dgx-h100' has 8; "
                       "expected at most 8",
                       ConfigError);
}
