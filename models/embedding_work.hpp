// Embedding work: the passes of the embedding owners in a step (step_builder.hpp's vocabulary),
// from the per-owner work of models/owner_work.hpp.
//
// On a parameter server a pass is a task on each of its sockets; on a GPU or CPU socket, its
// kernels with their launch overheads (the forward feature by feature under per-feature sync),
// UVM misses crossing PCIe (forward: the kernel holds its stream until its reads are done;
// backward: evicted rows written back after it). A GPU's embedding kernels run on its compute
// stream (training.embedding_overlap serial) or on a stream of their own (concurrent:
// HugeCTR's and TorchRec's pipelining), where both streams' kernels split the GPU's SMs.
// ssd shards' page reads run on a stream of the host socket's drives (its GPUs share them):
// without prefetch after the pass's dependencies, with prefetch (software.embeddings.prefetch)
// from the previous step's forward on, the read of the next batch; the forward waits for them.
// The evicted rows' write-back follows the backward on the same drives, asynchronously
// (FBGEMM's enable_async_update), so the next read queues behind it.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "models/host_model.hpp"
#include "models/owner_work.hpp"
#include "models/step_context.hpp"
#include "models/transfers.hpp"
#include "sim/activity_graph.hpp"

namespace dlrmsim::models {

class EmbeddingWork {
 public:
  EmbeddingWork(StepContext& ctx, HostModel& host, Transfers& net) : ctx_(ctx), host_(host), net_(net) {}

  /// One embedding pass of a simulated owner after `deps`, forward (the lookup) or backward
  /// (backward + optimiser update), with the owner's represented work. Returns the marker of
  /// its completion.
  enum class Pass { forward, backward };
  sim::ActivityId embedding_pass(std::uint32_t owner, Pass pass, std::span<const sim::ActivityId> deps);
  /// Kernel launches of one embedding pass on a GPU owner: one table-batched kernel, or one
  /// per table shard (software.embeddings.kernel); forward, or backward with the separate
  /// optimiser kernels (one per table shard) when the optimiser is not fused.
  int embedding_kernels(const OwnerWork& w, bool backward) const;
  /// The device with the stream its embedding kernels run on (training.embedding_overlap).
  SimDevice embedding_device(const SimDevice& d);

 private:
  /// A CPU trainer's framework work for the tables a CPU-socket owner holds (cpu_only: the
  /// trainers are CPU sockets; models/cpu_framework.hpp), on its stream after `deps`: the
  /// tables' forward operators, or their backward, zero_grad, optimiser and coalescing.
  /// Empty when there is none.
  std::vector<sim::ActivityId> cpu_trainer_framework(const SimDevice& d, const OwnerWork& w, bool backward,
                                                     std::span<const sim::ActivityId> deps);

  StepContext& ctx_;
  HostModel& host_;
  Transfers& net_;
  /// The page reads (ssd shards) of a GPU owner's forward: the activity its gather waits for.
  sim::ActivityId ssd_read(const SimDevice& d, std::uint32_t owner, const OwnerWork& w, std::span<const sim::ActivityId> deps);
  sim::StreamId ssd_stream(topo::DeviceId host);

  std::map<std::uint32_t, sim::StreamId> embedding_streams_;  // concurrent embedding streams
  std::map<std::uint32_t, sim::StreamId> ssd_streams_;        // by host CPU socket: its NVMe drives
  /// Prefetch: by owner, the dependencies of its previous forward (when the next batch's read starts).
  std::map<std::uint32_t, std::vector<sim::ActivityId>> previous_forward_deps_;
};

}  // namespace dlrmsim::models
