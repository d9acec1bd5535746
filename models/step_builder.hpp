// The step builder: turns training steps into engine activities.
//
// A training mode (training_mode.hpp) describes the dependencies of one step; the builder
// gives it the vocabulary, as a composition of small pieces that share one StepContext:
//   context      (step_context.hpp)   the inputs, the simulated devices and trainers, the
//                                     owners' embedding work (owner_work.hpp), compute and markers
//   transfers    (transfers.hpp)      flows along platform routes, NIC segments, host DMA
//   host         (host_model.hpp)     host threads: dispatch, sync points, input loading and copies
//   collectives  (collectives.hpp)    the all-to-all and the all-reduce, NCCL's kernels
//   embeddings   (embedding_work.hpp) the owners' embedding passes
//   dense        (dense_work.hpp)     dense layers, bucketed gradient all-reduce, dense optimiser
//
// Cluster fidelity (models/fidelity.hpp). select_trainers() chooses, once, a ClusterFidelity
// strategy that decides which trainer nodes and owners are simulated, whose work each
// simulated owner carries, how off-node traffic is emitted, the straggler factors and the
// report's fidelity sentence; the builder asks it wherever those differ and emits the rest
// (kernels, flows inside a node, the all-reduce's intra-node phases) the same way for both.
//
// Large symmetric clusters (the rule that a large symmetric cluster must not explode into N^2
// flows: collectives in intra- and inter-node phases, flows aggregated per link where the
// pattern is symmetric, per-pair flows as a fidelity option; ASTRA-sim's lesson). When every
// trainer node is an instance of the same node template and the job has more than
// TrainingOptions::kEveryNodeUpTo trainer nodes (`nodes: auto`, the default), or when
// `nodes: representative` asks for it, the RepresentativeNode strategy simulates one
// trainer node: its GPUs, its NVLink/PCIe links and its NICs, with every flow that leaves or
// enters the node cut into an egress and an ingress segment that carry the correct per-link
// byte counts, and its share of an oversubscribed fabric core (transfers.hpp). In a symmetric
// job every node sends and receives the same bytes, so the representative node's links carry
// exactly what every node's links carry; collisions of the deterministic spine routing are
// not represented (`nodes: all` simulates them). Shared servers (parameter servers, embedding workers) are represented the same way: one of each,
// doing its share of the whole job's work and carrying the largest work of the servers it
// stands for.
// The representative trainer node is the one holding the most loaded embedding owner,
// counting its NIC traffic (synchronous steps wait for the slowest). Traffic from the other
// nodes' owners reaches it when the owner at the same position on the representative node is
// ready. Measured against `nodes: all` (docs/engine.md, "Cluster fidelity"): -2.8 %, -3.1 %, -0.2 % at
// 8, 16, 64 nodes of the non-blocking rail-optimised SuperPOD; +6.9 % and +11.3 % at 16 and 64
// nodes of a 2:1 fat tree.
// EveryNode (`nodes: all`) simulates every node, with one aggregated flow per (owner,
// destination node) to the GPU of the owner's index there; `communication: per_pair` sends
// one flow per pair of endpoints instead.
#pragma once

#include "models/collectives.hpp"
#include "models/dense_work.hpp"
#include "models/embedding_work.hpp"
#include "models/host_model.hpp"
#include "models/step_context.hpp"
#include "models/transfers.hpp"

namespace dlrmsim::models {

class StepBuilder {
 public:
  StepBuilder(const StepInputs& inputs, sim::ActivityGraph& graph);
  /// Builds on resources already exported to `graph` (several jobs sharing one platform's
  /// links and fabric in one graph: models/jobs.hpp); `resources` must come from
  /// topo::export_platform(inputs.platform, graph).
  StepBuilder(const StepInputs& inputs, sim::ActivityGraph& graph, topo::PlatformResources resources);
  StepBuilder(const StepBuilder&) = delete;
  StepBuilder& operator=(const StepBuilder&) = delete;

  /// Trainer devices: GPUs of the placement problem (or its CPU sockets when `cpu_trainers`).
  /// Only the simulated ones (the representative node's, or all). Chooses the fidelity for a
  /// build of `steps` steps.
  void select_trainers(bool cpu_trainers, int steps = 1);

  StepContext& context() { return ctx_; }
  Transfers& transfers() { return net_; }
  HostModel& host() { return host_; }
  Collectives& collectives() { return collectives_; }
  EmbeddingWork& embeddings() { return embeddings_; }
  DenseWork& dense() { return dense_; }

 private:
  StepContext ctx_;
  Transfers net_;
  HostModel host_;
  Collectives collectives_;
  EmbeddingWork embeddings_;
  DenseWork dense_;
};

}  // namespace dlrmsim::models
