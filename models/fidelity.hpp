// Cluster fidelity: how much of a multi-node job the step builder simulates. Fidelity is a
// strategy, chosen per run and reported with the result: every node simulated wherever it is
// affordable; a representative node stands for a large symmetric job only with its measured
// error against every-node simulation stated.
//
// The step builder (step_builder.hpp) emits what every fidelity shares: each simulated
// device's kernels, the flows inside a node, the all-reduce's intra-node phases. A
// ClusterFidelity owns what differs, chosen once per build by ClusterFidelity::choose:
//   - which trainer nodes and which embedding owners are simulated, and whose per-step work
//     a simulated owner carries;
//   - how off-node traffic is emitted: an owner's all-to-all flows to (from) the trainers of
//     other nodes, the traffic between the simulated trainers and the owners that are not
//     simulated, and the all-reduce's inter-node phase;
//   - the straggler factor of a simulated device or link (models/stragglers.hpp);
//   - the sentence the run report prints (`fidelity`).
//
// EveryNode (`training.nodes: all`, and `auto` wherever affordable: see choose()) simulates
// every node: flows go to the real peers, one aggregated flow per (owner,
// destination node) to the GPU of the owner's index there (its rail), or one flow per pair
// of endpoints with `training.communication: per_pair`; the all-reduce's inter-node phase is
// a ring over the nodes among same-index GPUs.
//
// RepresentativeNode (`training.nodes: representative`, and `auto` beyond the budget)
// simulates one trainer node of a symmetric job (every trainer node an instance of one node
// template with as many trainers) and cuts every flow that leaves or enters it into egress
// and ingress segments (Transfers::send_egress / send_ingress) carrying the bytes that
// the real peers would send and receive. The node is the one holding the slowest embedding
// owner counting its off-node traffic at the narrowest link of its route off the node
// (synchronous steps wait for the slowest; an owner of many narrow tables computes little
// but loads its NIC most); owners off the trainer nodes (parameter servers, other node
// templates) are grouped by (kind, position in their node, node template), the first of a
// group simulated carrying the largest work of the group. Its measured error against every
// node (models/representative_error.hpp) is stated in its description, and in
// docs/engine.md, "Cluster fidelity".
//
// choose() under `auto`: every node when estimated_every_node_seconds() is within
// `training.every_node_budget` (60 s by default); beyond it the representative node when the
// measured error that speaks for the job's fabric and size is under kRepresentativeErrorLimit;
// else every node anyway, and the description says why.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "models/collectives.hpp"
#include "models/representative_error.hpp"
#include "models/stragglers.hpp"
#include "placement/placement.hpp"
#include "sim/activity_graph.hpp"
#include "topologies/platform.hpp"

namespace dlrmsim::models {

/// What a fidelity is chosen from. The references must outlive the strategy.
struct FidelityInputs {
  const topo::Platform& platform;
  const placement::PlacementProblem& problem;
  const TrainingOptions& options;
  /// Every owner's per-step embedding work, by placement problem device index.
  std::span<const OwnerWork> owner_work;
  /// The trainer devices (GPUs, or CPU sockets for CPU trainers) by node index.
  std::map<std::uint32_t, std::vector<topo::DeviceId>> trainers_by_node;
  /// The narrowest capacity of a device's route off its node, out (up to its first fabric
  /// link) and in (from the last fabric link); read only by RepresentativeNode's choice.
  std::function<BytesPerSecond(topo::DeviceId)> egress_bandwidth, ingress_bandwidth;
  /// The steps the builder will build (warm-up, measured and cool-down): what the cost of
  /// simulating every node is estimated from.
  int steps = 1;
};

/// Wall time of simulating every node: per trainer and step, measured on DLRM-DCNv2 on the
/// SuperPOD platform, every node, 128 nodes, 5, 12 and 22 steps built: 2.52, 5.99 and 9.88 s
/// of user CPU time (`/usr/bin/time build/dlrmsim run configs/scenarios/dcnv2_superpod_4096gpu.yaml
/// --set platform.cluster.groups.0.count=128 --set training.nodes=all --set run.warmup_steps=W
/// --set run.steps=S`, 2026-12-06, 2-core x86 machine): 0.39-0.50 ms per trainer and step.
inline constexpr double kEveryNodeSecondsPerTrainerStep = 0.45e-3;
/// The representative node's largest measured error `auto` accepts (against every node).
inline constexpr double kRepresentativeErrorLimit = 0.05;

/// The estimated wall time of simulating `steps` steps of `trainers` trainers, every node.
Seconds estimated_every_node_seconds(std::size_t trainers, int steps);

class ClusterFidelity {
 public:
  /// A flow's dependencies for the simulated trainers it carries (indices into
  /// StepContext::trainers()), and where it arrives, as Collectives' all-to-all uses them.
  using Ready = std::function<std::vector<sim::ActivityId>(std::span<const std::size_t> trainers)>;
  using Arrived = std::function<void(std::span<const std::size_t> trainers, sim::ActivityId flow)>;

  /// RepresentativeNode when the job is symmetric over more than one trainer node and
  /// `training.nodes` is `representative`, or `auto` beyond the every-node budget with a
  /// measured error under kRepresentativeErrorLimit (see above); EveryNode otherwise.
  static std::unique_ptr<ClusterFidelity> choose(FidelityInputs inputs);

  virtual ~ClusterFidelity() = default;
  ClusterFidelity(const ClusterFidelity&) = delete;
  ClusterFidelity& operator=(const ClusterFidelity&) = delete;

  virtual bool representative() const = 0;
  /// How the cluster is represented, for the run report (BuiltSteps::fidelity).
  virtual std::string description() const = 0;

  // --- what is simulated ----------------------------------------------------------------
  /// The trainer nodes simulated, in node order.
  const std::vector<topo::NodeId>& simulated_trainer_nodes() const { return simulated_nodes_; }
  /// Whether node n is simulated (every node is, except the trainer nodes that are not).
  virtual bool simulates_node(topo::NodeId n) const = 0;
  /// The simulated owners of `kind` that have work, by placement problem device index.
  virtual std::vector<std::uint32_t> simulated_owners(placement::OwnerKind kind) const = 0;
  /// The work a simulated owner carries: its own, or the largest of those it stands for.
  virtual const OwnerWork& represented_work(std::uint32_t owner) const = 0;

  // --- stragglers -------------------------------------------------------------------------
  /// The factor of a simulated device's compute tasks in `step`.
  virtual double device_slowdown(const Slowdowns& s, int step, topo::DeviceId d) const = 0;
  /// The factor of the bytes crossing a link direction in `step`.
  virtual double link_slowdown(const Slowdowns& s, int step, topo::DirectedLinkId link) const = 0;

  // --- off-node traffic -------------------------------------------------------------------
  /// An owner's part of one direction of the all-to-all that leaves its node, after the
  /// builder emitted its flows to (from) the `local_trainers` simulated trainers on its node;
  /// `bytes` is the owner's whole traffic in that direction, the trainers' shares summed.
  virtual void owner_off_node(Collectives& b, const SimDevice& owner, Collectives::Towards towards, Bytes bytes,
                              std::size_t local_trainers, const Ready& ready, const Arrived& arrived,
                              std::uint16_t category) const = 0;
  /// The traffic of owners of `kind` that are not simulated, for the simulated trainers:
  /// per simulated trainer, the flows it waits for (forward, emitted after the owners' flows;
  /// owner o's ready when owner_ready has it).
  virtual std::vector<std::vector<sim::ActivityId>> counterparts_to_trainers(
      Collectives& b, placement::OwnerKind kind, Bytes OwnerWork::*what,
      const std::map<std::uint32_t, sim::ActivityId>& owner_ready, std::uint16_t category) const = 0;
  /// The other direction (backward, emitted before the owners' flows): per simulated owner,
  /// the flows from the simulated trainers standing for the trainers of the other nodes.
  virtual std::map<std::uint32_t, std::vector<sim::ActivityId>> counterparts_to_owners(
      Collectives& b, placement::OwnerKind kind, Bytes OwnerWork::*what, std::span<const sim::ActivityId> trainer_ready,
      std::uint16_t category) const = 0;
  /// The all-reduce's inter-node phase: `bytes` per GPU each way (the ring's 2 (N-1)/N of
  /// its shard), after `ready` (per simulated trainer); per simulated trainer, its completion.
  virtual std::vector<sim::ActivityId> inter_node_all_reduce(Collectives& b, Bytes bytes,
                                                             std::span<const sim::ActivityId> ready,
                                                             std::uint16_t category) const = 0;
  /// The rail phase of the hierarchical all-to-all (models/collectives.hpp): each trainer sends
  /// the trainer of its own local index on every other trainer node, after `ready` of the
  /// sender; `node_shares[i]` is 1/T of the owners' bytes of trainer i's node, and a flow
  /// carries the sender's (towards trainers: the pooled embeddings of the sender's node) or
  /// the receiver's (towards owners: gradients for the receiver's node). Per simulated
  /// trainer, the marker of what it received (and, representative, sent).
  virtual std::vector<sim::ActivityId> rail_exchange(Collectives& b, Collectives::Towards towards,
                                                     std::span<const Bytes> node_shares, Bytes OwnerWork::*what,
                                                     std::span<const sim::ActivityId> ready,
                                                     std::uint16_t category) const = 0;

 protected:
  explicit ClusterFidelity(FidelityInputs inputs);
  std::size_t trainer_nodes() const { return in_.trainers_by_node.size(); }
  /// Trainer nodes of one all-to-all: a sharding group's under 2D sparse parallelism
  /// (training.sharding_group, models/sharding_groups.hpp), else every trainer node.
  std::size_t group_nodes() const { return group_nodes_; }
  /// Whether nodes a and b (node indices) exchange embeddings: in one sharding group, or
  /// either off the trainer nodes.
  bool same_group(std::uint32_t a, std::uint32_t b) const;

  FidelityInputs in_;
  std::vector<topo::NodeId> simulated_nodes_;
  std::size_t group_nodes_ = 0;
  std::map<std::uint32_t, std::size_t> group_of_;  // trainer node index -> its sharding group
};

/// Every node simulated, flows to the real peers.
class EveryNode final : public ClusterFidelity {
 public:
  /// `why`: what the description adds in parentheses (choose(): why `auto` kept every node
  /// beyond its budget), or empty.
  explicit EveryNode(FidelityInputs inputs, std::string why = {});
  bool representative() const override { return false; }
  std::string description() const override;
  bool simulates_node(topo::NodeId) const override { return true; }
  std::vector<std::uint32_t> simulated_owners(placement::OwnerKind kind) const override;
  const OwnerWork& represented_work(std::uint32_t owner) const override;
  double device_slowdown(const Slowdowns& s, int step, topo::DeviceId d) const override;
  double link_slowdown(const Slowdowns& s, int step, topo::DirectedLinkId link) const override;
  void owner_off_node(Collectives& b, const SimDevice& owner, Collectives::Towards towards, Bytes bytes,
                      std::size_t local_trainers, const Ready& ready, const Arrived& arrived,
                      std::uint16_t category) const override;
  std::vector<std::vector<sim::ActivityId>> counterparts_to_trainers(
      Collectives& b, placement::OwnerKind kind, Bytes OwnerWork::*what,
      const std::map<std::uint32_t, sim::ActivityId>& owner_ready, std::uint16_t category) const override;
  std::map<std::uint32_t, std::vector<sim::ActivityId>> counterparts_to_owners(
      Collectives& b, placement::OwnerKind kind, Bytes OwnerWork::*what, std::span<const sim::ActivityId> trainer_ready,
      std::uint16_t category) const override;
  std::vector<sim::ActivityId> inter_node_all_reduce(Collectives& b, Bytes bytes, std::span<const sim::ActivityId> ready,
                                                     std::uint16_t category) const override;
  std::vector<sim::ActivityId> rail_exchange(Collectives& b, Collectives::Towards towards, std::span<const Bytes> node_shares,
                                             Bytes OwnerWork::*what, std::span<const sim::ActivityId> ready,
                                             std::uint16_t category) const override;
 private:
  std::string why_;
  /// 0 .. T-1 over every trainer (all are simulated): the spans owner_off_node hands out.
  std::vector<std::size_t> trainer_indices_;
};

/// One trainer node of a symmetric job stands for all; off-node traffic as egress/ingress
/// segments.
class RepresentativeNode final : public ClusterFidelity {
 public:
  /// `measured`: the row of models/representative_error.hpp that speaks for the job (or null),
  /// stated in the description.
  explicit RepresentativeNode(FidelityInputs inputs, const RepresentativeErrorMeasurement* measured = nullptr);
  bool representative() const override { return true; }
  std::string description() const override;
  bool simulates_node(topo::NodeId n) const override;
  std::vector<std::uint32_t> simulated_owners(placement::OwnerKind kind) const override;
  const OwnerWork& represented_work(std::uint32_t owner) const override;
  /// The largest factor of the devices d stands for (Slowdowns::largest_stood_for).
  double device_slowdown(const Slowdowns& s, int step, topo::DeviceId d) const override;
  double link_slowdown(const Slowdowns& s, int step, topo::DirectedLinkId link) const override;
  /// The part of the owner's bytes for trainers off its node as egress (ingress) segments,
  /// waited for by every simulated trainer (by the owner).
  void owner_off_node(Collectives& b, const SimDevice& owner, Collectives::Towards towards, Bytes bytes,
                      std::size_t local_trainers, const Ready& ready, const Arrived& arrived,
                      std::uint16_t category) const override;
  /// What the off-node counterparts of each simulated owner send the simulated trainers, as
  /// ingress segments arriving as soon as that owner (standing for them) is ready: for GPU
  /// owners the node's shares to the trainer on the owner's rail, one flow per remote node
  /// (as every node's owners send it), waited for by every trainer; otherwise each trainer's
  /// share.
  std::vector<std::vector<sim::ActivityId>> counterparts_to_trainers(
      Collectives& b, placement::OwnerKind kind, Bytes OwnerWork::*what,
      const std::map<std::uint32_t, sim::ActivityId>& owner_ready, std::uint16_t category) const override;
  /// The simulated trainers' egress towards the off-node counterparts of each simulated owner,
  /// joined into that owner's arrival (the mirror of counterparts_to_trainers).
  std::map<std::uint32_t, std::vector<sim::ActivityId>> counterparts_to_owners(
      Collectives& b, placement::OwnerKind kind, Bytes OwnerWork::*what, std::span<const sim::ActivityId> trainer_ready,
      std::uint16_t category) const override;
  /// Per simulated trainer, an egress and an ingress segment of `bytes`.
  std::vector<sim::ActivityId> inter_node_all_reduce(Collectives& b, Bytes bytes, std::span<const sim::ActivityId> ready,
                                                     std::uint16_t category) const override;
  /// Per simulated trainer, as N-1 flows each way: what its node sends the N-1 other nodes
  /// (its node's share each) and what they send it (1/T of the GPU owners' w.*what on the
  /// other trainer nodes, summed), in the direction's order (towards owners the other way).
  std::vector<sim::ActivityId> rail_exchange(Collectives& b, Collectives::Towards towards, std::span<const Bytes> node_shares,
                                             Bytes OwnerWork::*what, std::span<const sim::ActivityId> ready,
                                             std::uint16_t category) const override;

  /// Per simulated owner of `kind`, the sum of `what` over the owners it stands for that are
  /// off the simulated trainer node (its counterparts on the other nodes, or every server of
  /// its group).
  std::map<std::uint32_t, Bytes> remote_counterparts(placement::OwnerKind kind, Bytes OwnerWork::*what) const;

 private:
  /// A device's off-node traffic as `flows` equal flows over its egress route (`sends`) or
  /// its ingress route. Every-node simulation sends an owner's off-node traffic as one flow
  /// per remote node; max-min fairness shares a link per flow, so the representative owner's
  /// traffic is as many flows, to get the same share of its NIC against the other flows
  /// crossing it.
  static sim::ActivityId off_node_flows(Collectives& b, topo::DeviceId device, bool sends, Bytes bytes,
                                        std::size_t flows, std::span<const sim::ActivityId> deps,
                                        std::uint16_t category);
  /// The simulated trainer on an owner's rail (its local index).
  static std::size_t rail_trainer(Collectives& b, std::uint32_t owner);

  /// Simulated owner -> the owner whose work it carries (itself on the trainer node).
  std::map<std::uint32_t, std::uint32_t> represented_owner_;
  const RepresentativeErrorMeasurement* measured_ = nullptr;  // the row stated in description()
};

}  // namespace dlrmsim::models
