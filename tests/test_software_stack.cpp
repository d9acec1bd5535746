// The software stack (models/software_stack.hpp): its file format, its defaults, and what each
// setting costs in a simulated step.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "models/cost_models.hpp"
#include "topologies/device_profile.hpp"
#include "models/simulation.hpp"
#include "models/software_stack.hpp"
#include "topologies/platform_loader.hpp"
#include "paths.hpp"
#include "file_fixtures.hpp"
#include "scenario_fixtures.hpp"

using namespace dlrmsim;
using namespace dlrmsim::models;
using dlrmsim::topo::DeviceProfile;
using dlrmsim::topo::EmbeddingOptimizer;
using dlrmsim::topo::load_device_profile_for;
using dlrmsim::topo::on_platform_gpu;

namespace {

using dlrmsim::testing::kCalibration;
using dlrmsim::testing::kRoot;

SoftwareStack stack_text(const std::string& text) {
  return SoftwareStack::from_config(ConfigNode::load_string(text, "stack.yaml"));
}

std::string error_of(const std::string& text) {
  return dlrmsim::testing::config_error_of([&] { stack_text(text); });
}

// The settings that keep the host ahead of the GPU in the small test steps below (no
// framework cost per kernel: the host pays only cudaLaunchKernel, which the GPU pays too), so
// a step's length is the GPU's and its closed forms hold. Host-bound steps have tests of their own.
const std::string kHostAhead = "software.host.dispatch=0 us";

// A scenario's `set:` list (applied as --set is) from its entries.
std::string set_list(const std::vector<std::string>& sets) {
  std::string out = "\nset: [";
  for (std::size_t i = 0; i < sets.size(); ++i) out += (i ? ", \"" : "\"") + sets[i] + "\"";
  return out + "]\n";
}

// One H200 with every table in its HBM (no communication): the step is the GPU's one stream.
Scenario single_gpu(const std::string& software, const std::vector<std::string>& sets = {kHostAhead}) {
  return load_scenario_text(dlrmsim::models::testing::single_h200_job() + software + set_list(sets) +
                                "run: {warmup_steps: 2, steps: 3, calibration: " + kCalibration + "}\n",
                            "test-scenario.yaml", kRoot + "/configs/scenarios");
}

// One server of `gpus` GPUs, each on PCIe to one CPU socket, with the NVLinks listed in
// `nvlinks` (YAML link entries); the tables are in host memory (looked up by the CPU), so the
// only GPU-to-GPU traffic is the dense all-reduce.
Scenario gpu_server(int gpus, const std::string& nvlinks, const std::string& software,
                    const std::vector<std::string>& sets) {
  return load_scenario_text(R"(
name: gpu-server
platform:
  name: server
  node_templates:
    server:
      devices:
        - {name: gpu, kind: gpu, count: )" + std::to_string(gpus) + R"(, model: H100-SXM5-80GB, hbm_capacity: 80 GB,
           hbm_bandwidth: 3.35 TB/s, peak_flops: {fp32: 67 TFLOP/s, tf32: 494.5 TFLOP/s, bf16: 989.5 TFLOP/s, fp16: 989.5 TFLOP/s}}
        - {name: cpu, kind: cpu, model: test-cpu, cores: 32, clock: 2 GHz, dram_capacity: 512 GB,
           dram_bandwidth: 300 GB/s, memory_channels: 8, gather_bandwidth_per_core: 9 GB/s, peak_flops: {fp32: 4 TFLOP/s}}
      links:
        - {kind: pcie5x16, from: "gpu*", to: cpu, pattern: all}
)" + nvlinks + R"(
  cluster:
    groups: [{name: n, template: server, count: 1, role: trainer}]
model:
  name: dense
  global_batch_size: 8192
  dense_features: 64
  embedding_tables: [{name: t, count: 2, rows: 1000, dim: 16, lookups_per_sample: 1}]
  bottom_mlp: [1024, 16]
  interaction: concat
  top_mlp: [1024, 1]
  optimizer: sgd
  precision: {compute: bf16, communication: fp32}
training: {mode: hybrid_parallel_sync}
placement: {policy: all_host}
)" + software + set_list(sets) + "run: {warmup_steps: 2, steps: 3, calibration: " + kCalibration + "}\n",
                            "test-scenario.yaml", kRoot + "/configs/scenarios");
}

// Two GPUs joined by NVLink.
Scenario two_gpus(const std::string& software, const std::vector<std::string>& sets = {kHostAhead}) {
  return gpu_server(2, "        - {kind: nvlink4, between: [gpu0, gpu1], count: 18}", software, sets);
}

// Three GPUs in a chain of NVLinks: gpu0 - gpu1 - gpu2 (gpu0 and gpu2 have none of their own).
Scenario chain_of_three(const std::string& software) {
  return gpu_server(3,
                    "        - {kind: nvlink4, between: [gpu0, gpu1], count: 18}\n"
                    "        - {kind: nvlink4, between: [gpu1, gpu2], count: 18}",
                    software, {kHostAhead});
}

Bytes class_bytes(const RunReport& r, const std::string& kind) {
  for (const auto& u : r.utilization) {
    if (u.resource_class == kind) return u.bytes;
  }
  return Bytes(0.0);
}

}  // namespace

// The shipped default stack file states exactly the built-in defaults a scenario without
// `software:` gets, so "the default" means one thing.
TEST_CASE("torchrec-fbgemm.yaml is the built-in default stack") {
  const SoftwareStack file = SoftwareStack::from_config(ConfigNode::load_file(kRoot + "/configs/software/torchrec-fbgemm.yaml"));
  SoftwareStack builtin;
  builtin.description = file.description;  // the file's words; every setting must be the same
  builtin.source = file.source;
  CHECK(file == builtin);
}

// HugeCTR of MLPerf v3.0 and v4.1 (config_DGXH100_*.sh and train.py of both rounds): the same
// solver settings, SHARP and the hierarchical all-to-all; the NCCL release (2.17.1 of ngc23.04,
// 2.22.3 of ngc24.06, whose tuner is 2.21's) and the reader's batches in flight (train.py
// AsyncParam num_batches_per_thread 16 and 64, one thread) are what differ.
TEST_CASE("the two HugeCTR MLPerf stacks differ in their NCCL release and reader depth only") {
  const auto load = [](const std::string& name) {
    return SoftwareStack::from_config(ConfigNode::load_file(kRoot + "/configs/software/" + name + ".yaml"));
  };
  const SoftwareStack v30 = load("hugectr-ngc23.04");
  SoftwareStack v41 = load("hugectr-ngc24.06");
  CHECK(v30.nccl == nccl_tuning("2.17"));
  CHECK(v41.nccl == nccl_tuning("2.21"));
  CHECK(v30.collnet);
  CHECK(v30.hierarchical_all_to_all);
  CHECK_FALSE(v30.per_kernel_launch);
  CHECK_FALSE(v30.allreduce_overlaps_backward);
  v41.name = v30.name;
  v41.description = v30.description;
  v41.source = v30.source;
  CHECK(v30.loader_batches_in_flight == 16);
  CHECK(v41.loader_batches_in_flight == 64);
  v41.nccl = v30.nccl;
  v41.loader_batches_in_flight = v30.loader_batches_in_flight;
  CHECK(v41 == v30);
}

// Every shipped stack file loads.
TEST_CASE("the shipped stacks load") {
  for (const char* name : {"torchrec-fbgemm", "pytorch-eager", "persia-2021", "tf2-dle", "hpca21-production", "hugectr",
                           "hugectr-ngc23.04", "hugectr-ngc24.06"}) {
    CAPTURE(name);
    const auto s = SoftwareStack::from_config(ConfigNode::load_file(kRoot + "/configs/software/" + name + ".yaml"));
    CHECK(s.name == name);
    CHECK_FALSE(s.source.empty());
  }
}

// Bad stack files get the located errors of every other configuration file.
TEST_CASE("a bad stack file is a located error") {
  CHECK(error_of("name: s\nembeddings: {kernal: per_table}\n") ==
        "stack.yaml:2:14: embeddings.kernal: unknown key 'kernal'; did you mean 'kernel'?");
  CHECK(error_of("name: s\ncollectives: {allreduce_bucket: 25}\n") ==
        "stack.yaml:2:33: collectives.allreduce_bucket: '25' has no unit; expected a data size with a unit, such as "
        "'80 GiB' or '512 B'");
  CHECK(error_of("name: s\ncollectives: {allreduce_bucket: -1 MiB}\n") ==
        "stack.yaml:2:33: collectives.allreduce_bucket: value -1 MiB must be positive");
  CHECK(error_of("name: s\ndense: {precision: bf1}\n") ==
        "stack.yaml:2:20: dense.precision: 'bf1' is not one of 'model', 'fp32', 'tf32', 'bf16', 'fp16'; did you "
        "mean 'bf16'?");
  // The host settings: a negative cost, a cost without a unit, a misspelt choice or key.
  CHECK(error_of("name: s\nhost: {dispatch: -2 us}\n") ==
        "stack.yaml:2:18: host.dispatch: value -2 us must be zero or positive");
  CHECK(error_of("name: s\nhost: {dispatch: 2}\n") ==
        "stack.yaml:2:18: host.dispatch: '2' has no unit; expected a time with a unit, such as '2 us' or '1.5 ms'");
  CHECK(error_of("name: s\nhost: {sync: per_stp}\n") ==
        "stack.yaml:2:14: host.sync: 'per_stp' is not one of 'none', 'per_step', 'per_feature'; did you mean "
        "'per_step'?");
  CHECK(error_of("name: s\nhost: {dispach: 2 us}\n") ==
        "stack.yaml:2:8: host.dispach: unknown key 'dispach'; did you mean 'dispatch'?");
  CHECK(error_of("name: s\nhost: {loader: {workers: 0}}\n") == "stack.yaml:2:26: host.loader.workers: value 0 must be positive");
  CHECK(error_of("name: s\ncollectives: {launch_delay: -1 ms}\n") ==
        "stack.yaml:2:29: collectives.launch_delay: value -1 ms must be zero or positive");
  CHECK(error_of("name: s\nembeddings: {host_update: striped_lock}\n") ==
        "stack.yaml:2:27: embeddings.host_update: 'striped_lock' is not one of 'lock_free', 'striped_locks'; did you "
        "mean 'striped_locks'?");
}

// System: the single-H200 step (every kernel on one in-order stream, nothing to communicate).
// pytorch-eager differs from torchrec-fbgemm in exactly two ways here: one embedding kernel
// per table instead of one per pass (4 tables: 3 more launches forward and 3 more backward),
// and an unfused optimiser (one more kernel per table, 4 launches, and the sparse gradient
// written and read back: 2 x lookups x 256-byte rows over achievable HBM bandwidth).
// Its third difference, the loss read every step (host.sync per_step), makes the host wait for
// each step's end before it launches the next step's first kernel, which the GPU then waits
// for: one more launch per step. (Both with no framework cost per kernel, kHostAhead.)
// Expected: the steady-state step grows by exactly those costs. (At a local batch of 65,536,
// so that no embedding kernel is as short as its floor, DeviceProfile::kernel_floor; the dense
// kernels are the same in both stacks.)
TEST_CASE("pytorch-eager costs exactly its extra launches and unfused optimiser passes") {
  const std::vector<std::string> sets{kHostAhead, "model.global_batch_size=65536"};
  const auto fused = run_scenario(single_gpu("", sets));
  const auto eager = run_scenario(single_gpu("software: " + kRoot + "/configs/software/pytorch-eager.yaml", sets));
  const topo::Platform platform = topo::load_platform(kRoot + "/configs/platforms/h200-server.yaml");
  const DeviceProfile p =
      on_platform_gpu(load_device_profile_for("H200-141GB", kCalibration), platform.gpu_spec(platform.all_gpus()[0]));
  const double lookups = 4.0 * 65536 * 2;
  const Seconds extra = p.kernel_launch_overhead() * (3.0 + 3.0 + 4.0 + 1.0) +
                        Bytes(2.0 * lookups * 256.0) / p.achievable_hbm_bandwidth();
  // Within 1e-7 (13 ps of 126 us): the engine rounds each activity to its picosecond clock.
  CHECK(eager.step_time.value() == dlrmsim::rel(fused.step_time.value() + extra.value()).epsilon(1e-7));
}

// A backward that updates every lookup's row (no deduplication) costs the full
// embedding_backward_time instead of the distinct-row share: the step grows by the difference.
TEST_CASE("a backward without deduplication updates every looked-up row") {
  const auto dedup = run_scenario(single_gpu(""));
  const auto plain = run_scenario(single_gpu("software: {name: plain, embeddings: {backward: per_lookup}}"));
  const topo::Platform platform = topo::load_platform(kRoot + "/configs/platforms/h200-server.yaml");
  const DeviceProfile p =
      on_platform_gpu(load_device_profile_for("H200-141GB", kCalibration), platform.gpu_spec(platform.all_gpus()[0]));
  const double lookups = 4.0 * 4096 * 2;
  const double distinct_fraction = 100000.0 * -std::expm1(-8192.0 / 100000.0) / 8192.0;
  const Seconds all = p.embedding_backward_time(lookups, Bytes(256.0), 2.0, EmbeddingOptimizer::rowwise_adagrad, 1.0);
  const Seconds distinct =
      p.embedding_backward_time(lookups, Bytes(256.0), 2.0, EmbeddingOptimizer::rowwise_adagrad, distinct_fraction);
  // Within 1e-7 (9 ps of 90 us): the engine rounds each activity to its picosecond clock.
  CHECK(plain.step_time.value() == dlrmsim::rel(dedup.step_time.value() + (all - distinct).value()).epsilon(1e-7));
}

// System: 2 GPUs of one server, NVLink between them, each GPU on its own PCIe link to the CPU.
// The dense all-reduce of S bytes (fp32 gradients of the MLPs) is a reduce-scatter then an
// all-gather; with 2 GPUs each phase sends S/2 from each GPU to the other: 2 x S/2 x 2 = 2 S
// bytes per step cross GPU to GPU. With P2P they cross NVLink (one link direction each), none
// crosses PCIe. Without P2P (NCCL's host-memory staging) none crosses NVLink and each send
// crosses the sender's PCIe link up and the receiver's PCIe link down: 2 x 2 S on PCIe on top
// of the input copies, which do not change; and each staged byte is written to the host
// socket's DRAM and read back from it: 2 x 2 S on DRAM on top of what the step moves there
// with P2P (the CPU's table lookups, unchanged).
TEST_CASE("without P2P an all-reduce moves its bytes through host memory") {
  const auto p2p = run_scenario(two_gpus(""));
  const auto staged = run_scenario(two_gpus("software: {name: no-p2p, collectives: {peer_to_peer: false}}"));
  const auto sc = two_gpus("");
  const double s = sc.model.dense_gradient_bytes().value();
  REQUIRE(s > 0.0);
  CHECK(class_bytes(p2p, "nvlink").value() == dlrmsim::rel(2.0 * s).epsilon(1e-9));
  CHECK(class_bytes(staged, "nvlink").value() == 0.0);
  CHECK(class_bytes(staged, "pcie").value() ==
        dlrmsim::rel(class_bytes(p2p, "pcie").value() + 4.0 * s).epsilon(1e-9));
  CHECK(class_bytes(staged, "dram").value() ==
        dlrmsim::rel(class_bytes(p2p, "dram").value() + 4.0 * s).epsilon(1e-9));
  CHECK(staged.step_time.value() > p2p.step_time.value());
}

// The stack's dense precision replaces the model file's compute precision (persia-2021: fp32
// GEMMs, no autocast), and `model` keeps it.
TEST_CASE("the dense precision policy sets the compute precision") {
  CHECK(single_gpu("").model.compute_precision == Precision::bf16);
  CHECK(single_gpu("software: " + kRoot + "/configs/software/persia-2021.yaml").model.compute_precision ==
        Precision::fp32);
  const auto fp32 = run_scenario(single_gpu("software: {name: f, dense: {precision: fp32}}"));
  const auto bf16 = run_scenario(single_gpu(""));
  CHECK(fp32.step_time.value() > bf16.step_time.value());
}

// System: the two-GPU server with 64 KiB buckets, so the dense gradients (about 0.8 MB) form
// several buckets. Overlapped, a bucket is reduced while the layers below it run their
// backward; without overlap every bucket waits for the whole backward, so the step is longer.
// The stack is given as a path and changed with the scenario's `set:` (as --set does).
TEST_CASE("an all-reduce that does not overlap the backward makes the step longer") {
  const std::string path = "software: " + kRoot + "/configs/software/torchrec-fbgemm.yaml\n";
  const auto overlapped = run_scenario(two_gpus(path, {kHostAhead, "software.collectives.allreduce_bucket=64 KiB"}));
  const auto serial = run_scenario(two_gpus(path, {kHostAhead, "software.collectives.allreduce_bucket=64 KiB",
                                                   "software.collectives.allreduce_overlap=none"}));
  CHECK(serial.step_time.value() > overlapped.step_time.value());
}

// System: the chain of three GPUs. The all-reduce of S bytes sends S/3 between every ordered
// pair of GPUs in each of its two phases. The four adjacent pairs use their NVLink; gpu0 and
// gpu2 have none. With the NVLink relay (NCCL 2.8.3 and later) their two transfers per phase
// cross both NVLinks through gpu1: NVLink carries (4 x 1 + 2 x 2) x S/3 per phase, 16 S/3 in
// all, and PCIe none of it. Without the relay they go GPU -> CPU -> GPU over two PCIe links:
// NVLink carries 8 S/3 and PCIe 2 phases x 2 pairs x 2 links x S/3 = 8 S/3 more than with it.
TEST_CASE("the NVLink relay carries traffic between GPUs without an NVLink of their own") {
  const auto relay = run_scenario(chain_of_three(""));
  const auto direct = run_scenario(chain_of_three("software: {name: old-nccl, collectives: {nvlink_relay: false}}"));
  const double s = chain_of_three("").model.dense_gradient_bytes().value();
  CHECK(class_bytes(relay, "nvlink").value() == dlrmsim::rel(16.0 * s / 3.0).epsilon(1e-9));
  CHECK(class_bytes(direct, "nvlink").value() == dlrmsim::rel(8.0 * s / 3.0).epsilon(1e-9));
  CHECK(class_bytes(direct, "pcie").value() ==
        dlrmsim::rel(class_bytes(relay, "pcie").value() + 8.0 * s / 3.0).epsilon(1e-9));
}

// System: the single-H200 step with a framework cost per kernel far above every kernel's time
// (1 ms), so the GPU always waits for the host. With the host never waiting (sync none) the
// host thread dispatches without a break, one kernel after another: the steady-state step is
// exactly the host's time per step, kernels x (dispatch + cudaLaunchKernel). Kernels per step
// (torchrec-fbgemm): 4 linear layers x (1 forward + 2 backward) + concat (1 + 1) + embedding
// (1 + 1) + the dense optimiser (1) = 17.
TEST_CASE("a host-bound step takes exactly the host's dispatch time") {
  const auto r = run_scenario(single_gpu("", {"software.host.dispatch=1 ms"}));
  const topo::Platform platform = topo::load_platform(kRoot + "/configs/platforms/h200-server.yaml");
  const DeviceProfile p =
      on_platform_gpu(load_device_profile_for("H200-141GB", kCalibration), platform.gpu_spec(platform.all_gpus()[0]));
  const Seconds per_kernel = Seconds(1e-3) + p.kernel_launch_overhead();
  CHECK(r.step_time.value() == dlrmsim::rel(17.0 * per_kernel.value()).epsilon(1e-9));
  // The host's work is the whole critical path but the GPU kernels it waits for last.
  for (const auto& b : r.breakdown) {
    if (b.category == "host_work") CHECK(b.critical.value() > 0.95 * r.step_time.value());
  }
}

// System: the same host-bound step with the host waiting once per step (per_step): the host
// cannot dispatch step s+1 before step s ends on the GPU, so each step adds the GPU time of
// the kernels dispatched last... but with every kernel shorter than one dispatch, the only GPU
// time exposed is the step's last kernel (the dense optimiser) after its own dispatch.
// Expected: 17 dispatches + the optimiser kernel's GPU time (its cost, launch included, or its
// floor, DeviceProfile::kernel_floor, whichever is longer).
TEST_CASE("a per-step sync exposes the GPU time after the host's last dispatch") {
  const auto ahead = run_scenario(single_gpu("", {"software.host.dispatch=1 ms"}));
  const auto synced = run_scenario(single_gpu("", {"software.host.dispatch=1 ms", "software.host.sync=per_step"}));
  const topo::Platform platform = topo::load_platform(kRoot + "/configs/platforms/h200-server.yaml");
  const DeviceProfile p =
      on_platform_gpu(load_device_profile_for("H200-141GB", kCalibration), platform.gpu_spec(platform.all_gpus()[0]));
  const auto sc = single_gpu("");
  const Seconds optimizer = gpu_dense_optimizer_time(sc.model, p, sc.model.dense_parameters());
  const Seconds kernel = std::max(optimizer, p.kernel_floor(1));
  CHECK(synced.step_time.value() == dlrmsim::rel(ahead.step_time.value() + kernel.value()).epsilon(1e-9));
}

// System: the single-H200 step under per-table embedding kernels (4 tables, the 4 forward
// kernels taking F = fwd / 4 each), host dispatch 1 ms. Without sync the host dispatches the
// 4 lookups back to back (GPU-bound pieces run behind it). With a sync per feature the host
// waits for each feature's kernel before dispatching the next: each of the 4 pieces adds its
// GPU time to the host's chain, and so do the two other waits (before the gradients leave:
// the interaction backward's last kernel; at the step end: the optimiser kernel).
// Expected: step(per_feature) - step(none) = fwd (the 4 pieces) + the two kernels waited for,
// each kernel at least its floor (DeviceProfile::kernel_floor).
TEST_CASE("a sync point per feature serialises host and GPU") {
  const std::vector<std::string> base{"software.host.dispatch=1 ms", "software.embeddings.kernel=per_table"};
  auto with = base;
  with.push_back("software.host.sync=per_feature");
  const auto free_running = run_scenario(single_gpu("", base));
  const auto per_feature = run_scenario(single_gpu("", with));
  const topo::Platform platform = topo::load_platform(kRoot + "/configs/platforms/h200-server.yaml");
  const DeviceProfile p =
      on_platform_gpu(load_device_profile_for("H200-141GB", kCalibration), platform.gpu_spec(platform.all_gpus()[0]));
  const auto sc = single_gpu("");
  const double lookups = 4.0 * 4096 * 2;
  const Seconds launch = p.kernel_launch_overhead();
  const Seconds lookup = p.embedding_forward_time(lookups, Bytes(256.0), 2.0) + launch * 4.0;
  const Seconds optimizer = gpu_dense_optimizer_time(sc.model, p, sc.model.dense_parameters());
  const auto costs = gpu_dense_costs(sc.model, p, 4096);
  // The interaction's backward kernel: the last above the bottom MLP in backward order is the
  // first operator above it in forward order (the concat).
  Seconds interaction_bwd;
  for (const auto& c : costs) {
    if (!c.before_embeddings) {
      interaction_bwd = c.backward;
      break;
    }
  }
  const auto floored = [&](Seconds t) { return std::max(t, p.kernel_floor(1)); };
  const Seconds pieces = floored(lookup / 4.0) * 4.0;
  CHECK(per_feature.step_time.value() ==
        dlrmsim::rel(free_running.step_time.value() + (pieces + floored(interaction_bwd) + floored(optimizer)).value())
            .epsilon(1e-9));
}

// System: the two-GPU server (one 32-core CPU) with data loading far slower than anything
// else: 1 ms of CPU per sample, local batch 4096 (8192 over 2 trainers), so each step waits
// for its batch and the step is the loading time. W loader threads per trainer split the
// batch (4096 / W samples each), each thread at most one core, the 2 W threads sharing the
// node's 32 cores. W = 4: 8 threads on 32 cores, each a full core: 4096 / 4 x 1 ms = 1.024 s.
// W = 32: 64 runnable threads on 32 cores, each half a core: 4096 / 32 x 1 ms x 64 / 32 =
// 0.256 s, twice the 0.128 s it would take with a core each. (The two trainers' host threads
// also take the node's cores while dispatching: about 0.3 ms of CPU per step, 10 us of the
// 32 cores, within the 1e-4 of the check.)
TEST_CASE("host work with more runnable threads than cores takes longer by the right ratio") {
  const auto four = run_scenario(two_gpus("", {"software.host.loader.per_sample=1 ms", "software.host.loader.workers=4"}));
  const auto many = run_scenario(two_gpus("", {"software.host.loader.per_sample=1 ms", "software.host.loader.workers=32"}));
  CHECK(four.step_time.value() == dlrmsim::rel(1.024).epsilon(1e-6));
  CHECK(many.step_time.value() == dlrmsim::rel(0.256).epsilon(1e-4));
  for (const auto& u : many.utilization) {
    if (u.resource_class == "cpu_cores") CHECK(u.utilization > 0.99);  // the node's cores are the bottleneck
  }
}

// System: the single-H200 step, host-bound (1 ms of framework cost per kernel, 17 kernels a
// step), with the framework's own host work of software.host.framework: 3 ms per step and
// 1 us per sample of the local batch (4,096). The host thread runs it once a step, so the
// host-bound step grows by exactly 3 ms + 4096 x 1 us = 7.096 ms.
TEST_CASE("the framework's host work adds its time per step and per sample to a host-bound step") {
  const auto base = run_scenario(single_gpu("", {"software.host.dispatch=1 ms"}));
  const auto with = run_scenario(single_gpu("", {"software.host.dispatch=1 ms", "software.host.framework.per_step=3 ms",
                                                 "software.host.framework.per_sample=1 us"}));
  CHECK(with.step_time.value() == dlrmsim::rel(base.step_time.value() + 3e-3 + 4096 * 1e-6).epsilon(1e-9));
}

// System: the single-H200 step with one sample (every kernel far below one wave: GEMMs of one
// row, two lookups per table) replayed as a CUDA graph (no host dispatch), so the GPU's one
// stream is the step. Every one of its 17 kernels (4 linear layers x (1 forward + 2 backward),
// the concat (1 + 1), the embedding forward and backward, the dense optimiser) costs its floor,
// launch overhead + the GPU time of an empty kernel (DeviceProfile::kernel_floor), not its
// vanishing work: the step is 17 floors.
TEST_CASE("kernels below one wave cost their floor") {
  const auto r = run_scenario(single_gpu("", {"software.host.launch=cuda_graph", "model.global_batch_size=1"}));
  const topo::Platform platform = topo::load_platform(kRoot + "/configs/platforms/h200-server.yaml");
  const DeviceProfile p =
      on_platform_gpu(load_device_profile_for("H200-141GB", kCalibration), platform.gpu_spec(platform.all_gpus()[0]));
  REQUIRE(p.min_kernel_time.value() > 0.0);
  CHECK(r.step_time.value() == dlrmsim::rel(p.kernel_floor(17).value()).epsilon(1e-9));
}

// System: two NVLinked H100 GPUs, every table in their HBM, host-bound (1 ms of framework cost per operator), no
// NCCL latency model, and a launch delay L before every collective. Under TorchRec's two-phase
// input distribution the host waits twice a step on a collective: it reads the sizes
// exchanged by the first all-to-all, and the owner's host reads the lengths of the ids the
// second delivers before its lookup. Both latency chains are on the host's path: the step
// grows by exactly 2 x L when L grows. With the ids sent directly the host never waits on a
// collective, so L is hidden behind the host's dispatch.
TEST_CASE("a two-phase input exchange puts two latency chains on the host's path") {
  const auto step = [](const std::string& distribution, const std::string& delay) {
    return run_scenario(two_gpus("", {"software.host.dispatch=1 ms", "software.collectives.nccl=none",
                                      "placement.policy=cost_greedy", "placement.tiers=[gpu_hbm]",
                                      "software.embeddings.input_distribution=" + distribution,
                                      "software.collectives.launch_delay=" + delay}))
        .step_time.value();
  };
  CHECK(step("two_phase", "100 us") == dlrmsim::rel(step("two_phase", "0 us") + 2 * 100e-6).epsilon(1e-9));
  CHECK(step("direct", "100 us") == dlrmsim::rel(step("direct", "0 us")).epsilon(1e-9));
  // And one host wait with six host operators more a step: three size copies and the sizes
  // all-to-all call before it, the lengths and values all-to-all calls after it (6 ms), plus
  // the ids' own transfer, which the owner's host now waits for (microseconds over NVLink).
  const double extra = step("two_phase", "0 us") - step("direct", "0 us");
  CHECK(extra > 6e-3);
  CHECK(extra == doctest::Approx(6e-3).epsilon(2e-3));
}
