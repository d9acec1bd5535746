// Scenarios for the tests that run them: shipped ones (paths into the source tree) and the
// small systems several tests share, as scenario text.
#pragma once

#include <string>
#include <vector>

#include "models/scenario.hpp"
#include "paths.hpp"

namespace dlrmsim::models::testing {

using dlrmsim::testing::kCalibration;
using dlrmsim::testing::kRoot;

/// configs/scenarios/NAME.yaml with `overrides` applied as --set would.
inline Scenario shipped(const std::string& name, const std::vector<std::string>& overrides = {}) {
  return load_scenario(kRoot + "/configs/scenarios/" + name + ".yaml", overrides);
}

/// The `server` node template of the tests' small clusters (a platform's `node_templates:`
/// entry, indented under it): 2 H100 joined by NVLink, one 32-core CPU socket and one NIC of
/// bandwidth `nic` (e.g. "100 Gbit/s"), all on PCIe 5 x16.
inline std::string mini_server_template(const std::string& nic) {
  return R"(    server:
      devices:
        - {name: gpu, kind: gpu, count: 2, model: H100-SXM5-80GB, hbm_capacity: 80 GB, hbm_bandwidth: 3.35 TB/s,
           peak_flops: {fp32: 67 TFLOP/s, tf32: 494.5 TFLOP/s, bf16: 989.5 TFLOP/s, fp16: 989.5 TFLOP/s}}
        - {name: cpu, kind: cpu, model: test-cpu, cores: 32, clock: 2 GHz, dram_capacity: 512 GB,
           dram_bandwidth: 300 GB/s, memory_channels: 8, gather_bandwidth_per_core: 9 GB/s, peak_flops: {fp32: 4 TFLOP/s}}
        - {name: nic, kind: nic, bandwidth: )" +
         nic + R"(}
      links:
        - {kind: pcie5x16, from: "gpu*", to: cpu, pattern: all}
        - {kind: pcie5x16, between: [nic, cpu]}
        - {kind: nvlink4, between: [gpu0, gpu1], count: 18}
)";
}

/// A cluster's `platform:` and `placement:` sections: four nodes of mini_server_template (two
/// H100 joined by NVLink, PCIe gen5 to one CPU socket and one NIC of bandwidth `nic`), on
/// one non-blocking Ethernet switch unless `fabric` says otherwise, tables in GPU HBM.
inline std::string mini_cluster(const std::string& nic,
                                const std::string& fabric = "{kind: single_switch, link_kind: ethernet}") {
  return R"(
platform:
  name: mini
  node_templates:
)" + mini_server_template(nic) +
         R"(  cluster:
    groups: [{name: n, template: server, count: 4, role: trainer}]
    fabric: )" +
         fabric + R"(
placement: {policy: cost_greedy, tiers: [gpu_hbm]}
)";
}

/// A compute-bound job for mini_cluster (its name, model, training and software sections):
/// one narrow table (1000 x 4) and a wide top MLP (three 2048-wide layers) at a global batch
/// of 4,194,304, 524,288 samples per GPU of the eight, so the GEMMs take tens of milliseconds
/// per step; bf16, SGD, gradients all-reduced in 4 MiB buckets that overlap the backward pass.
inline const std::string kComputeBoundJob = R"(
name: compute-bound
model:
  name: mlp
  global_batch_size: 4194304
  dense_features: 16
  embedding_tables: [{name: t, rows: 1000, dim: 4, lookups_per_sample: 1}]
  interaction: concat
  top_mlp: [2048, 2048, 2048, 1]
  optimizer: sgd
  precision: {compute: bf16, communication: bf16}
training: {mode: hybrid_parallel_sync}
software: {name: small-buckets, collectives: {allreduce_bucket: 4 MiB}}
)";

/// One H200 (configs/platforms/h200-server.yaml) with every table in its HBM, so there is no
/// communication: a scenario's name, platform, model, training and placement sections (no
/// software or run section). The model: 13 dense features, 4 tables of 100,000 x 64 with 2
/// lookups per sample, bottom MLP 128-64, concat interaction, top MLP 256-1, bf16, row-wise
/// Adagrad for the embeddings and Adagrad for the dense part, batch 4096.
inline std::string single_h200_job() {
  return "name: single\nplatform: " + kRoot + R"(/configs/platforms/h200-server.yaml
model:
  name: tiny
  global_batch_size: 4096
  dense_features: 13
  embedding_tables: [{name: t, count: 4, rows: 100000, dim: 64, lookups_per_sample: 2}]
  bottom_mlp: [128, 64]
  interaction: concat
  top_mlp: [256, 1]
  optimizer: {embedding: rowwise_adagrad, dense: adagrad}
  precision: {compute: bf16, communication: bf16}
training: {mode: hybrid_parallel_sync}
placement: {policy: cost_greedy, tiers: [gpu_hbm]}
)";
}

}  // namespace dlrmsim::models::testing
