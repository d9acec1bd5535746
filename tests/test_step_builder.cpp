// Tests of the step builder's kernels on shared GPU resources (models/step_builder.hpp): a GPU
// kernel is a flow over the GPU's SM pool at the rate of all its SMs, or, when memory-bound
// (an embedding pass), a flow of its real bytes over the GPU's HBM; NCCL's kernel of a
// collective holds software.collectives.sms SMs for the collective's solo time; a copy between
// two GPUs of a node reads and writes their HBM.
//
// The system throughout: one server of two H100s with 132 SMs each (the H100 SXM5 whitepaper's
// count), 18 NVLink 4 links between them, PCIe gen5 to one CPU socket and a NIC. The activities are
// added by hand through the builder's public calls and run on the native engine, so each
// expected time follows from the numbers here.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "approx.hpp"
#include "models/placement_problem.hpp"
#include "models/scenario.hpp"
#include "models/step_builder.hpp"
#include "paths.hpp"
#include "scenario_fixtures.hpp"
#include "sim/native_engine.hpp"

using namespace dlrmsim;
using namespace dlrmsim::models;
using dlrmsim::models::testing::mini_server_template;

namespace {

using dlrmsim::testing::kRoot;

// The small servers' template (scenario_fixtures.hpp: two H100s, 18 NVLink 4 links, PCIe gen5
// to a CPU socket and a NIC), one node, a small model whose plan the tests leave empty.
std::string server() {
  return R"(
name: sms
platform:
  name: one-server
  node_templates:
)" + mini_server_template("100 Gbit/s") + R"(  cluster:
    groups: [{name: n, template: server, count: 1, role: trainer}]
model:
  name: small
  global_batch_size: 4096
  dense_features: 0
  embedding_tables: [{name: t, count: 2, rows: 1000, dim: 16, lookups_per_sample: 1}]
  interaction: concat
  top_mlp: [16, 1]
  optimizer: sgd
  precision: {compute: bf16, communication: fp32}
training: {mode: hybrid_parallel_sync}
placement: {policy: cost_greedy, tiers: [gpu_hbm]}
run: {warmup_steps: 1, steps: 1, calibration: )" +
         kRoot + "/configs/calibration}\n";
}

/// 132 SMs per GPU (the H100 SXM5 whitepaper's count), as `--set` gives it.
const char* kSms = "platform.node_templates.server.devices.0.sm_count=132";

/// A step builder on the server with an empty plan, its two trainers selected.
struct Built {
  Scenario sc;
  topo::DeviceProfileSet profiles;
  placement::PlacementProblem problem;
  placement::PlacementPlan plan;
  sim::ActivityGraph graph;
  StepBuilder b;
  explicit Built(const std::vector<std::string>& overrides = {})
      : sc(load_scenario_text(server(), "sms.yaml", kRoot + "/configs/scenarios", overrides)),
        profiles(sc.calibration_dir),
        problem(models::make_placement_problem(sc, profiles)),
        b({sc.model, sc.platform, problem, plan, profiles, sc.training}, graph) {
    b.select_trainers(false);
  }

  /// A 100 us GEMM on trainer 0 and, from time 0 beside it, an all-reduce whose NCCL kernel
  /// holds its SMs for 40 us alone; returns when the GEMM ends (seconds).
  double gemm_beside_all_reduce() {
    const auto& t = b.context().trainers();
    REQUIRE(t.size() == 2);
    const sim::ActivityId gemm = b.context().compute(t[0], Seconds(100e-6), {}, b.context().cat.dense_compute);
    // Two GPUs in one node: reduce-scatter and all-gather each send S/2 to the peer, so the
    // GPU's share inside the node is S bytes at its NVLink bandwidth B; S = 40 us x B.
    const BytesPerSecond nvlink = b.transfers().route_bandwidth(t[0].device, t[1].device);
    const std::vector<sim::ActivityId> ready{b.context().marker({}), b.context().marker({})};
    b.collectives().all_reduce(nvlink * Seconds(40e-6), ready, b.context().cat.all_reduce);
    const sim::SimResult r = sim::simulate_native(graph);
    return r.end[gemm.index].seconds().value();
  }
};

}  // namespace

// Inputs: the stack's NCCL SMs k = 16 (collectives.sms) of N = 132. Expected: for the 40 us the
// NCCL kernel holds k SMs, the GEMM (alone: all N SMs for 100 us) runs on N - k, so it does
// 40 (N - k) / N us of its work then and finishes at 100 + 40 k / N = 104.848 us (the
// closed form of tests/test_shared_resources.cpp's communication kernel beside a GEMM).
TEST_CASE("a GEMM beside NCCL's all-reduce kernel loses the SMs NCCL holds") {
  Built s({kSms, "software.collectives.sms=16"});
  CHECK(s.gemm_beside_all_reduce() == dlrmsim::rel(100e-6 + 40e-6 * 16.0 / 132.0).epsilon(1e-6));
}

// Inputs: no collectives.sms (NCCL's own choice). Expected: 16 SMs, since the GPUs have NVLink
// (NVIDIA/nccl issue 689: 16 SMs on a DGX-class node, 2 on a PCIe one), the same 104.848 us.
TEST_CASE("NCCL's own choice on an NVLink GPU is 16 SMs") {
  Built s({kSms});
  CHECK(s.gemm_beside_all_reduce() == dlrmsim::rel(100e-6 + 40e-6 * 16.0 / 132.0).epsilon(1e-6));
}

// Inputs: collectives.sms 0; then a GPU whose platform gives no sm_count (no SM pool).
// Expected: the GEMM ends at exactly its solo 100 us both times: with no SMs held the pool is
// the GEMM's alone, and without a pool the GEMM is a task of fixed duration.
TEST_CASE("without SMs held, or without an SM count, a GEMM takes its solo time") {
  Built held_none({kSms, "software.collectives.sms=0"});
  CHECK(held_none.gemm_beside_all_reduce() == dlrmsim::rel(100e-6).epsilon(1e-9));
  Built no_pool;
  CHECK(no_pool.gemm_beside_all_reduce() == dlrmsim::rel(100e-6).epsilon(1e-9));
}

// Inputs: a GEMM of 100 us on trainer 0 and one of 50 us on trainer 0's embedding stream with
// training.embedding_overlap concurrent, both ready at 0, no collective. Expected: the two
// kernels split the 132 SMs evenly while both run (each alone would take all of them): the
// short one ends at 2 x 50 = 100 us, the long one has done 50 us of its work by then and ends
// at 150 us, the sum of both: concurrent kernels that each fill the GPU gain nothing.
TEST_CASE("two kernels that each fill the GPU share its SMs") {
  Built s({kSms, "training.embedding_overlap=concurrent"});
  const auto& t = s.b.context().trainers();
  const sim::ActivityId dense = s.b.context().compute(t[0], Seconds(100e-6), {}, s.b.context().cat.dense_compute);
  const SimDevice emb = s.b.embeddings().embedding_device(t[0]);
  REQUIRE(emb.stream.index != t[0].stream.index);
  const sim::ActivityId lookup = s.b.context().compute(emb, Seconds(50e-6), {}, s.b.context().cat.embedding_lookup);
  const sim::SimResult r = sim::simulate_native(s.graph);
  CHECK(r.end[lookup.index].seconds().value() == dlrmsim::rel(100e-6).epsilon(1e-9));
  CHECK(r.end[dense.index].seconds().value() == dlrmsim::rel(150e-6).epsilon(1e-9));
}

/// A kernel of `load` that alone takes 100 us on trainer 0's compute stream and a gather of
/// `gather_bytes` that alone takes 100 us on its embedding stream, both ready at 0, simulated.
struct BesideGather {
  sim::ActivityId kernel, gather;
  sim::SimResult r;
};
BesideGather beside_gather(Built& s, std::uint16_t category, models::KernelLoad load, Bytes gather_bytes) {
  const auto& t = s.b.context().trainers();
  const sim::ActivityId kernel = s.b.context().compute(t[0], Seconds(100e-6), {}, category, load);
  const sim::ActivityId gather = s.b.context().compute(s.b.embeddings().embedding_device(t[0]), Seconds(100e-6), {},
                                             s.b.context().cat.embedding_lookup, models::KernelLoad::memory_bound(gather_bytes));
  return {kernel, gather, sim::simulate_native(s.graph)};
}

// Inputs: with training.embedding_overlap concurrent, a memory-bound kernel of 335 MB that
// alone takes 100 us (all of the 3.35 TB/s HBM) on trainer 0's compute stream and one of
// 167.5 MB in 100 us (half of it, as an embedding gather that does not saturate HBM) on its
// embedding stream, both ready at 0. Expected: max-min over the HBM gives each 1.675 TB/s:
// the gather ends at its solo 100 us, the other has moved 167.5 MB by then and moves the rest
// at the full 3.35 TB/s, ending at (335 + 167.5) MB / 3.35 TB/s = 150 us; the SMs are not
// involved (memory-bound kernels load HBM, not the SM pool).
TEST_CASE("memory-bound kernels of two streams share the GPU's HBM") {
  Built s({kSms, "training.embedding_overlap=concurrent"});
  const auto [big, gather, r] = beside_gather(s, s.b.context().cat.embedding_lookup,
                                              models::KernelLoad::memory_bound(Bytes(335e6)), Bytes(167.5e6));
  CHECK(r.end[gather.index].seconds().value() == dlrmsim::rel(100e-6).epsilon(1e-9));
  CHECK(r.end[big.index].seconds().value() == dlrmsim::rel(150e-6).epsilon(1e-9));
  const auto sms = s.b.context().resources.sms(s.b.context().trainers()[0].device);
  REQUIRE(sms.has_value());
  CHECK(r.resources[sms->index].bytes.value() == 0.0);
}

// Inputs: with training.embedding_overlap concurrent, a GEMM on trainer 0's compute stream
// that alone takes 100 us on all 132 SMs and moves 200 MB of operands over HBM (2 TB/s alone),
// and a gather of 335 MB on its embedding stream that alone takes 100 us (all of the 3.35 TB/s
// HBM), both ready at 0. Expected: HBM is saturated throughout, max-min gives each 1.675 TB/s
// (below both caps): the GEMM's traffic ends at 200 MB / 1.675 TB/s = 119.4 us and the GEMM
// with it (its SM work ended at 100 us); the gather ends at (200 + 335) MB / 3.35 TB/s =
// 159.7 us. The SMs carry the GEMM's 100 us x 132 SMs of work and HBM both kernels' bytes.
// Without the GEMM's HBM load both would end at 100 us.
TEST_CASE("a GEMM loads its SMs and its HBM: beside a gather both slow down") {
  Built s({kSms, "training.embedding_overlap=concurrent"});
  const auto& t = s.b.context().trainers();
  const auto [gemm, gather, r] = beside_gather(s, s.b.context().cat.dense_compute,
                                               models::KernelLoad::sms_and_hbm(Bytes(200e6)), Bytes(335e6));
  // (1e-8: the engine ends a flow on the next picosecond.)
  CHECK(r.end[gemm.index].seconds().value() == dlrmsim::rel(200e6 / 1.675e12).epsilon(1e-8));
  CHECK(r.end[gather.index].seconds().value() == dlrmsim::rel(535e6 / 3.35e12).epsilon(1e-8));
  const auto sms = s.b.context().resources.sms(t[0].device);
  REQUIRE(sms.has_value());
  CHECK(r.resources[sms->index].bytes.value() == dlrmsim::rel(100e-6 * 132.0 * sim::kWorkUnitsPerCoreSecond).epsilon(1e-9));
  CHECK(r.resources[s.b.context().resources.memory(t[0].device).index].bytes.value() == dlrmsim::rel(535e6).epsilon(1e-12));
}

// Inputs: on trainer 0 a memory-bound kernel of 335 MB that alone takes 100 us (all of the
// H100's 3.35 TB/s HBM), and from time 0 beside it a copy of S = 50 us x B bytes to trainer 1
// over their NVLinks (B, the route's bandwidth). Expected: the copy reads GPU 0's HBM and writes
// GPU 1's; on GPU 0's HBM max-min gives the copy its NVLink rate B (below half of the HBM) and
// the kernel the rest, so the copy takes 50 us after its route's latency and the kernel, which
// loses B x 50 us of HBM time, ends at 100 + 50 B / 3.35 TB/s us (106.7 us at B = 450 GB/s,
// independent of the latency); GPU 1's HBM carries exactly S. Without the copy on the HBM the
// kernel would end at 100 us, so the check can fail.
TEST_CASE("a copy between a node's GPUs reads the sender's HBM and writes the receiver's") {
  Built s({kSms});
  const auto& t = s.b.context().trainers();
  const double hbm = 3.35e12;
  REQUIRE(s.b.context().in.platform.gpu_spec(t[0].device).hbm_bandwidth.value() == dlrmsim::rel(hbm));
  const sim::ActivityId kernel = s.b.context().compute(t[0], Seconds(100e-6), {}, s.b.context().cat.embedding_lookup,
                                             models::KernelLoad::memory_bound(Bytes(335e6)));
  const BytesPerSecond nvlink = s.b.transfers().route_bandwidth(t[0].device, t[1].device);
  CAPTURE(nvlink.value());
  REQUIRE(nvlink.value() < hbm / 2.0);
  const Bytes copy = nvlink * Seconds(50e-6);
  s.b.transfers().send(t[0].device, t[1].device, copy, {}, s.b.context().cat.all_to_all);
  const sim::SimResult r = sim::simulate_native(s.graph);
  CHECK(r.end[kernel.index].seconds().value() == dlrmsim::rel(100e-6 + 50e-6 * nvlink.value() / hbm).epsilon(1e-9));
  CHECK(r.resources[s.b.context().resources.memory(t[1].device).index].bytes.value() == dlrmsim::rel(copy.value()).epsilon(1e-12));
}

// The simulation reads a role's pods as the planner does (pod_share): on the Persia
// 100 T deployment (persia_100t_gcp.yaml: 120 parameter-server pods of 80 CPUs on 30
// m2-ultramem-416 of 416 vCPUs, 100 embedding-worker pods of 28 CPUs on 100 c2-standard-30 of
// 30 vCPUs) a server socket counts 320/416 of its cores and a worker socket 28/30 of its,
// with DRAM bandwidth unchanged; the planner's server device carries the same cores over
// its 8 sockets.
TEST_CASE("a parameter server's and an embedding worker's sockets run at their pods' share") {
  const Scenario sc = load_scenario(kRoot + "/configs/scenarios/persia_100t_gcp.yaml");
  const topo::DeviceProfileSet profiles(sc.calibration_dir);
  const auto problem = models::make_placement_problem(sc, profiles);
  const placement::PlacementPlan plan;
  const StepInputs inputs{sc.model, sc.platform, problem, plan, profiles, sc.training};
  const auto ps = nodes_with_role(sc.platform, "parameter_server").front();
  const auto ew = nodes_with_role(sc.platform, "embedding_worker").front();
  const auto& ps_cpu = sc.platform.cpu_spec(sc.platform.cpus(ps).front());
  const auto& ew_cpu = sc.platform.cpu_spec(sc.platform.cpus(ew).front());
  const auto ps_access = role_cpu_access(inputs, ps_cpu, ps, true);
  const auto ew_access = role_cpu_access(inputs, ew_cpu, ew, false);
  CHECK(ps_access.cores == dlrmsim::rel(cpu_row_access(inputs, ps_cpu).cores * 320.0 / 416.0));
  CHECK(ew_access.cores == dlrmsim::rel(cpu_row_access(inputs, ew_cpu).cores * 28.0 / 30.0));
  CHECK(ps_access.keyed);
  CHECK(!ew_access.keyed);
  CHECK(ps_access.dram_bandwidth.value() == cpu_row_access(inputs, ps_cpu).dram_bandwidth.value());
  const auto server = problem.devices_of(placement::OwnerKind::parameter_server).front();
  CHECK(problem.devices[server].cpu_rows.cores == dlrmsim::rel(8.0 * ps_access.cores));
}
