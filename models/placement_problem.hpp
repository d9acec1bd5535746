// Building a PlacementProblem from the model specification and the platform, and the
// one-call entry point place_tables().
//
// Which devices can own shards:
//  - GPUs of trainer nodes (gpu_hbm, and uvm when the GPU has a host CPU socket);
//  - CPU sockets of trainer nodes (host_dram);
//  - parameter-server nodes (remote_ps): every node of a group whose `role` is
//    NodeRoles::parameter_server; when no group has a role at all, GPU-less nodes of a
//    platform that also has GPU nodes. Embedding-worker nodes (NodeRoles::embedding_worker)
//    own no tables.
// Trainer nodes are the other nodes with GPUs, or every other node on a platform without
// GPUs (a CPU cluster).
//
// Where each number comes from:
//  - capacities and bandwidths: the platform (GpuSpec hbm_*, CpuSocketSpec dram_*, NIC
//    bandwidth of the device's affinity NIC; PCIe: bottleneck bandwidth of the route from a
//    GPU to its host socket); CPU gather: DRAM bandwidth and cores x gather_bandwidth_per_core,
//    with the scenario's CPU access granule (training.cpu.access_granule, default the 64-byte
//    line of CpuSocketSpec's definition): topologies/cpu_row_cost.hpp, as the simulation;
//  - GPU embedding and UVM gather costs: the GPU's device profile when one is found; without
//    one, peak HBM and PCIe bandwidth (efficiency 1) and a note in the plan;
//  - backward multiple of a GPU without a profile: 2, TorchRec's planner constant
//    (BWD_COMPUTE_MULTIPLIER, meta-pytorch/torchrec@5772fc8e
//    torchrec/distributed/planner/constants.py; a peer's assumption; the simulation refuses such a
//    GPU, so only the planner's estimates use it); CPU lookups have no multiple: their update
//    is the read-modify-write of topologies/cpu_row_cost.hpp;
//  - activations per GPU: local batch x (activation elements of every dense layer + twice
//    the pooled embedding width: the pooled rows and their gradients) x compute element size,
//    all kept for the backward pass (assumption: no recomputation); plus the data-parallel
//    dense replica (fp32 master weights and optimiser state, ModelSpec).
#pragma once

#include <optional>
#include <span>
#include <vector>
#include <string>

#include "models/model_spec.hpp"
#include "models/quantized_comms.hpp"
#include "placement/placement.hpp"
#include "topologies/cpu_row_cost.hpp"
#include "topologies/device_profile.hpp"
#include "topologies/platform.hpp"

namespace dlrmsim::models {

struct Scenario;

/// The group roles (the platform's `role:` strings) that mark parameter-server and
/// embedding-worker nodes.
struct NodeRoles {
  std::string parameter_server = "parameter_server";
  std::string embedding_worker = "embedding_worker";
};

/// The pods a role's nodes run (`training.pods.<role>`, as a Kubernetes deployment gives
/// them): `count` pods spread evenly over the role's nodes, each with `cpus` logical CPUs and
/// `memory` (0: no limit of its own).
struct RolePods {
  int count = 0;
  int cpus = 0;
  Bytes memory{0.0};
  std::string count_where;  // where `count` was given (ConfigNode::where), for pod_share's error
};

/// What a role's pods leave one of its `nodes` nodes: the share of the node's CPU capacity
/// they use (pods per node x cpus over the node's logical CPUs, at most 1; CPU rates scale by
/// it, DRAM bandwidth does not: the pods share the node's memory channels) and the memory
/// they may hold (pods per node x memory; none when memory is 0). Throws ConfigError,
/// located at the count (RolePods::count_where), when the count is not a multiple of the nodes.
struct PodShare {
  double cpu = 1.0;
  std::optional<Bytes> memory;
};
PodShare pod_share(const topo::Platform& platform, topo::NodeId node, const RolePods& pods, std::size_t nodes);

/// What the problem takes from the scenario besides its model and platform.
struct ProblemSettings {
  NodeRoles roles;
  /// Granule of CPU row reads (training.cpu.access_granule).
  Bytes cpu_access_granule = topo::kCpuCacheLine;
  /// The stack's host updates run under striped locks (software.embeddings.host_update).
  bool striped_host_updates = false;
  /// The stack prefetches the next batch's ssd rows during the step (software.embeddings.prefetch).
  bool ssd_prefetch = false;
  /// The stack's GPU embedding backward deduplicates its rows (software.embeddings.backward)
  /// and fuses the optimiser into it (software.embeddings.optimizer); SoftwareStack's defaults.
  bool deduplicated_backward = true;
  bool fused_optimizer = true;
  /// The stack's quantised communication (software.collectives.qcomm): the GPU owners'
  /// pooled values and gradients on the wire.
  QuantizedComms qcomm;
  /// The parameter servers' pods (training.pods.parameter_server); none: whole nodes.
  std::optional<RolePods> server_pods;
  /// Set: the job uses the first N GPUs of each trainer node and the CPU sockets hosting them
  /// (training.gpus_per_node); `gpus_per_node_where` locates the key for the error when a node
  /// has fewer GPUs.
  std::optional<int> gpus_per_node;
  std::string gpus_per_node_where;
  /// GPUs of one node sharing each sample's sequence (training.context_parallel); above 1 it
  /// needs a sequence model and must divide the GPUs of each trainer node, which
  /// `context_parallel_where` locates.
  int context_parallel = 1;
  std::string context_parallel_where;
  /// Non-empty: the job runs on these nodes only, and devices of other nodes are left out
  /// (one job of several sharing a platform, models/jobs.hpp).
  std::vector<topo::NodeId> only_nodes;
};

/// `profiles` gives the GPUs' calibrated profiles (null: none; a GPU model without a file
/// in its directory is costed with peak figures and a note).
placement::PlacementProblem make_placement_problem(const ModelSpec& model, const topo::Platform& platform,
                                                   const topo::DeviceProfileSet* profiles = nullptr,
                                                   const ProblemSettings& settings = {});
/// The settings of a scenario's problem: its roles, pods, CPU access granule, stack, nodes.
ProblemSettings problem_settings(const Scenario& scenario);
/// The problem of a scenario: its model, platform, roles, CPU access granule and (a job of
/// several) its nodes.
placement::PlacementProblem make_placement_problem(const Scenario& scenario, const topo::DeviceProfileSet& profiles);

/// make_placement_problem + place. Throws InfeasiblePlacement when the plan does not fit.
placement::PlacementPlan place_tables(const ModelSpec& model, const topo::Platform& platform,
                                      const placement::PlacementOptions& options,
                                      const placement::StepTimeEvaluator& evaluator = {},
                                      const topo::DeviceProfileSet* profiles = nullptr);

}  // namespace dlrmsim::models
