// 2D sparse parallelism: the embedding tables sharded within groups of GPUs, every group a
// replica (TorchRec's DMPCollection, pytorch/torchrec@a48cef79ebc333da92af1311c04b041ee21a8e75
// torchrec/distributed/model_parallel.py).
//
// What DMPCollection does, at that commit:
//  - _create_process_groups builds a DeviceMesh of world_size / sharding_group_size replica
//    rows: by default the sharding groups are strided ([r, r + W/G, r + 2 W/G, ...]: a shard's
//    replicas are consecutive ranks, inside a node), with use_inter_host_allreduce=True they
//    are contiguous ([0..G-1], [G..2G-1], ...: the all-to-all inside the group's nodes, the
//    replica all-reduce across hosts). The sharding plan is made for G ranks and every group
//    gets the same one.
//  - sync(include_optimizer_state=True), which TrainPipelineSparseDist calls after every
//    dmp_collection_sync_interval_batches-th batch (default 1: every batch;
//    torchrec/distributed/train_pipeline/train_pipelines.py, _dmp_collection_sync), all-reduces
//    (ReduceOp.AVG, allreduce_coalesced per dtype) over the replica process group every
//    sharded embedding kernel's split_embedding_weights() and, by default, its optimiser state
//    (get_optimizer_state()'s "sum", the row-wise Adagrad momentum): a weight all-reduce, not a
//    gradient all-reduce, among the world_size / G GPUs holding the same shard.
//
// Modelled here: contiguous groups of whole trainer nodes (G a multiple of a node's GPUs), so
// a group's all-to-all is the flat all-to-all of a G-GPU job (its nodes' NVLink and NICs),
// each group training B G / N of the global batch B (the dense data-parallel part and its
// all-reduce still span all N GPUs); the replica sync is a ring all-reduce of each GPU's
// model-parallel shards (weights + optimiser state, the largest GPU's) among the R = N / G
// replicas, one GPU per group on the same rail: 2 (R - 1) / R of those bytes out of and into
// each GPU's NIC (Patarasuk & Yuan, JPDC 2009), every training.sharding_sync_every steps,
// after the step's updates and before the next step (sync() runs on the default stream).
// Not modelled: the strided mesh (its all-to-all spans every node, its sync stays in the
// node), groups inside one node, parameter servers and CPU trainers.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "common/units.hpp"
#include "placement/placement.hpp"
#include "topologies/device_profile.hpp"
#include "topologies/platform.hpp"

namespace dlrmsim::models {

struct Scenario;

/// The sharding groups of a 2D job.
struct ShardingGroups {
  std::size_t group_gpus = 0;   // G
  std::size_t group_nodes = 0;  // trainer nodes of a group
  std::size_t replicas = 1;     // R = N / G
  /// The trainer nodes in node order; group r is nodes [r k, (r + 1) k).
  std::vector<topo::NodeId> trainer_nodes;

  /// The nodes of group r.
  [[nodiscard]] std::vector<topo::NodeId> nodes_of(std::size_t r) const;
};

/// The groups of `full` (the scenario's whole-job problem) that training.sharding_group asks
/// for; std::nullopt without it. Throws ConfigError at the key when G does not divide the
/// trainer GPUs, is not a whole number of trainer nodes, or the job is not one 2D models
/// (parameter servers, a hierarchical all-to-all).
std::optional<ShardingGroups> sharding_groups(const Scenario& sc, const placement::PlacementProblem& full);

/// The problem one group plans: the scenario's on group 0's nodes, with global batch B G / N
/// (what a group trains), so its memory and lookups are those of G GPUs holding every table.
placement::PlacementProblem group_problem(const Scenario& sc, const topo::DeviceProfileSet& profiles,
                                          const ShardingGroups& groups);

/// `full` made the problem the simulation runs a 2D job on: every trainer GPU, each owner
/// serving its group's batch (global_batch = B G / N), a shard's off-node share that of its
/// group's nodes.
void make_two_d(placement::PlacementProblem& full, const ShardingGroups& groups);

/// Group 0's `plan` (over `group`'s devices) copied onto every group: each shard owned, in
/// group r, by the device of the same kind and position on the node r k places further; then
/// accounted on `full` (make_two_d's).
placement::PlacementPlan replicate_plan(const placement::PlacementProblem& group, const placement::PlacementPlan& plan,
                                        const placement::PlacementProblem& full, const ShardingGroups& groups,
                                        const placement::PlacementOptions& options);

/// The largest bytes a GPU syncs: its model-parallel shards' weights and optimiser state
/// (data-parallel tables are averaged by the dense all-reduce instead).
Bytes replica_sync_payload(const placement::PlacementProblem& problem, const placement::PlacementPlan& plan);

}  // namespace dlrmsim::models
