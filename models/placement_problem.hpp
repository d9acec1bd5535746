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
//    GPU to its host socket); CPU gather: cores x gather_bandwidth_per_core, 64-byte granule
//    (CpuSocketSpec's definition);
//  - GPU embedding and UVM gather costs: the GPU's device profile when one is found; without
//    one, peak HBM and PCIe bandwidth (efficiency 1) and a note in the plan;
//  - backward multiple where no profile applies (CPU lookups, GPUs without a profile): 2,
//    TorchRec's planner constant (../shared/references/PUBLISHED.md; a peer's assumption);
//  - activations per GPU: local batch x (activation elements of every dense layer + twice
//    the pooled embedding width: the pooled rows and their gradients) x compute element size,
//    all kept for the backward pass (assumption: no recomputation); plus the data-parallel
//    dense replica (fp32 master weights and optimiser state, ModelSpec).
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>

#include "topologies/device_profile.hpp"
#include "models/model_spec.hpp"
#include "placement/placement.hpp"
#include "topologies/platform.hpp"

namespace dlrmsim::placement {

/// Finds the calibrated profile of a GPU model; null when there is none.
using GpuProfileSource = std::function<std::shared_ptr<const models::DeviceProfile>(const topo::GpuSpec&)>;

/// Profiles from `calibration_dir` (models::find_device_profile's naming rule), each loaded
/// once. A GPU model without a file gets null; a malformed file throws ConfigError.
GpuProfileSource profiles_from_directory(std::string calibration_dir);

/// The group roles (the platform's `role:` strings) that mark parameter-server and
/// embedding-worker nodes.
struct NodeRoles {
  std::string parameter_server = "parameter_server";
  std::string embedding_worker = "embedding_worker";
};

/// `only_nodes` (non-empty) restricts the job to those nodes: devices of other nodes are left
/// out (one job of several sharing a platform, models/jobs.hpp).
PlacementProblem make_placement_problem(const models::ModelSpec& model, const topo::Platform& platform,
                                        const GpuProfileSource& profiles = {}, const NodeRoles& roles = {},
                                        std::span<const topo::NodeId> only_nodes = {});

/// make_placement_problem + place. Throws InfeasiblePlacement when the plan does not fit.
PlacementPlan place_tables(const models::ModelSpec& model, const topo::Platform& platform,
                           const PlacementOptions& options, const StepTimeEvaluator& evaluator = {},
                           const GpuProfileSource& profiles = {});

}  // namespace dlrmsim::placement
