// Synchronous hybrid-parallel steps: hybrid_parallel_sync, cpu_only and parameter_server.
//
// One step, per simulated trainer t and per simulated embedding owner o (a GPU for gpu_hbm
// and uvm shards, a CPU socket for host_dram, a parameter server for remote_ps):
//
//   input copy(t)       host -> GPU copy of the local batch; prefetched: the copy of step s
//                       waits for the copy of step s-1 and the end of step s-2 (two buffers,
//                       as TorchRec's TrainPipelineSparseDist)
//   ids -> owners       indices of the local batch to the owners of the rows (all-to-all);
//                       under software.embeddings.input_distribution two_phase (TorchRec's
//                       KJTAllToAll) the sizes go first and the host reads them back, and each
//                       GPU owner's host reads the received lengths before its lookup
//                       (exchange_sizes below)
//   lookup(o)           forward gather + pooling; UVM misses cross PCIe concurrently
//   bottom MLP fwd(t)   after the lookup on the same stream, overlapping the pooled all-to-all
//   pooled -> trainers  owners send each trainer its share of the pooled embeddings; under
//                       software.collectives.qcomm a GPU owner encodes them first and each
//                       trainer decodes what it received (models/quantized_comms.hpp)
//   interaction, top MLP forward and backward(t)
//   gradients -> owners the pooled gradients go back (all-to-all; quantised: encoded on the
//                       trainer, decoded on the GPU owner)
//   bottom MLP bwd(t)
//   update(o)           embedding backward + optimiser on the owner; evicted UVM rows written back
//   all-reduce buckets  dense gradients in buckets, each launched when its last layer's
//                       backward is done and after the previous bucket (one NCCL stream)
//   dense optimiser(t)  after the last bucket
// GPU streams are in-order, so step s+1's lookups on an owner wait for step s's update there
// (synchronous training); parameter servers run their lookups and updates on their sockets'
// streams in order, which makes the next step's lookups wait for this step's updates.
#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <vector>

#include "models/sharding_groups.hpp"
#include "models/step_builder.hpp"
#include "models/training_mode.hpp"

namespace dlrmsim::models {

using placement::OwnerKind;
using sim::ActivityId;

namespace {

constexpr std::array kOwnerKinds{OwnerKind::gpu, OwnerKind::cpu_socket, OwnerKind::parameter_server};

/// Owner <-> trainer traffic: parameter-server traffic, host-device copies (host_dram tables
/// looked up by CPU sockets for GPU trainers: ids down, pooled rows up over PCIe), or all-to-all.
std::uint16_t traffic_category(const StepContext& ctx, OwnerKind kind) {
  if (kind == OwnerKind::parameter_server) return ctx.cat.parameter_server_traffic;
  if (kind == OwnerKind::cpu_socket && !ctx.trainers().empty() && ctx.trainers().front().is_gpu) {
    return ctx.cat.host_device_copy;
  }
  return ctx.cat.all_to_all;
}

/// Bytes each trainer sends each peer in TorchRec's sizes exchange: three int64 counts (the
/// lengths and values it sends that peer, and its batch size), pytorch/torchrec@eb0042c7
/// (v0.4.0) torchrec/distributed/dist_data.py KJTAllToAllSplitsAwaitable.__init__.
constexpr Bytes kSizesPerPeer{3.0 * 8.0};

/// TorchRec's KJTAllToAll, first phase (v0.4.0 dist_data.py: KJTAllToAllSplitsAwaitable, then
/// SplitsAllToAllAwaitable._wait_impl's `.tolist()`; the same at torchrec@a48cef79, 2025): each
/// trainer's host copies its three size lists to the GPU (three operators) and starts the sizes
/// all-to-all (a fourth), then reads the received sizes back, waiting for the exchange and so
/// for every trainer, and starts the lengths and values all-to-alls (two more). Returns per
/// simulated trainer when its ids may leave: after its input copy and the host's last call.
std::vector<ActivityId> exchange_sizes(StepContext& ctx, HostModel& host, Collectives& coll,
                                       std::span<const ActivityId> copy) {
  const auto& trainers = ctx.trainers();
  std::vector<ActivityId> sent(trainers.size());
  for (std::size_t i = 0; i < trainers.size(); ++i) {
    host.host_operators(trainers[i], 3);
    sent[i] = host.host_call(trainers[i], copy[i]);
  }
  const std::vector<ActivityId> sizes = coll.small_all_to_all(kSizesPerPeer, sent, ctx.cat.all_to_all);
  std::vector<ActivityId> ready(trainers.size());
  for (std::size_t i = 0; i < trainers.size(); ++i) {
    host.host_wait(trainers[i], sizes[i]);
    host.host_operators(trainers[i], 1);
    ready[i] = host.host_call(trainers[i], copy[i]);
  }
  return ready;
}

}  // namespace

void build_synchronous_steps(StepBuilder& b, int steps) {
  StepContext& ctx = b.context();
  HostModel& host = b.host();
  Collectives& coll = b.collectives();
  EmbeddingWork& emb = b.embeddings();
  DenseWork& dense = b.dense();
  const auto& cat = ctx.cat;
  const auto& trainers = ctx.trainers();
  const std::size_t n = trainers.size();
  const auto& stack = ctx.in.options.software;
  using Layers = DenseWork::Layers;
  using Pass = EmbeddingWork::Pass;
  const QuantizedComms& qcomm = stack.qcomm;
  // Pooled values each trainer receives from the GPU owners (and sends their gradients back).
  const double trainer_values = ctx.owner_work().gpu_pooled_values / static_cast<double>(std::max<std::size_t>(1, ctx.total_trainers()));
  const bool two_phase = stack.input_distribution == SoftwareStack::InputDistribution::two_phase;
  const bool semi_sync = stack.pipeline == SoftwareStack::Pipeline::semi_sync;
  std::vector<ActivityId> step_end;
  // 2D sparse parallelism: the replicas of each shard and what a GPU syncs with them.
  const std::size_t replicas = ctx.total_trainers() / std::max<std::size_t>(1, ctx.all_to_all_trainers());
  const Bytes sync_payload = replicas > 1 ? replica_sync_payload(ctx.in.problem, ctx.in.plan) : Bytes(0.0);

  // 1-3 of step s: loading and input copies, ids to the owners, the forward lookups.
  struct SparseForward {
    std::vector<ActivityId> copy;
    std::map<OwnerKind, std::map<std::uint32_t, ActivityId>> lookup_done;
    std::map<OwnerKind, std::vector<ActivityId>> pooled;  // per kind, per trainer: the pooled embeddings arrived
  };
  auto sparse_forward = [&](int s) {
    SparseForward f;
    f.copy.resize(n);
    for (std::size_t i = 0; i < n; ++i) f.copy[i] = host.step_input(i, s, step_end);
    const std::vector<ActivityId> ids_ready = two_phase ? exchange_sizes(ctx, host, coll, f.copy) : f.copy;
    for (OwnerKind kind : kOwnerKinds) {
      if (ctx.simulated_owners(kind).empty()) continue;
      for (const auto& [o, ids] : coll.gradients_to_owners(kind, ids_ready, traffic_category(ctx, kind), &OwnerWork::ids_in)) {
        // The received KeyedJaggedTensor's lengths per key are read on the host (v0.4.0
        // jagged_tensor.py _maybe_compute_length_per_key, `.tolist()`) before the lookup.
        if (two_phase && kind == OwnerKind::gpu) host.read_back(*ctx.owner_device(o), ids);
        const ActivityId looked_up = emb.embedding_pass(o, Pass::forward, std::span(&ids, 1));
        f.lookup_done[kind][o] = kind == OwnerKind::gpu ? host.codec(*ctx.owner_device(o), qcomm.forward,
                                                                       ctx.represented_work(o).pooled_values, looked_up, cat.all_to_all)
                                                        : looked_up;
      }
    }
    return f;
  };
  // 5 of step s: the pooled embeddings to the trainers (the decode, if any, comes with the
  // forward that waits for them).
  auto send_pooled = [&](SparseForward& f) {
    for (auto& [kind, ready] : f.lookup_done) f.pooled[kind] = coll.pooled_to_trainers(kind, ready, f.copy, traffic_category(ctx, kind));
  };

  SparseForward next;
  for (int s = 0; s < steps; ++s) {
    ctx.begin_step(s);
    // Semi-synchronous: this step's lookups and pooled all-to-all were issued during the
    // previous step (below); they count in that step's activities, one step's worth each step.
    SparseForward cur = semi_sync && s > 0 ? std::move(next) : sparse_forward(s);
    const std::vector<ActivityId>& copy = cur.copy;

    // 4. Bottom MLP forward (dense features only).
    std::vector<ActivityId> bottom_fwd(n), inter_bwd(n), last_bwd(n);
    for (std::size_t i = 0; i < n; ++i) bottom_fwd[i] = dense.forward(trainers[i], Layers::bottom_mlp, copy[i]);

    // 5. Pooled embeddings to the trainers.
    if (!semi_sync || s == 0) send_pooled(cur);
    std::vector<ActivityId> arrived(n);
    for (std::size_t i = 0; i < n; ++i) {
      std::vector<ActivityId> parts{bottom_fwd[i]};
      for (const auto& [kind, a] : cur.pooled) {
        parts.push_back(kind == OwnerKind::gpu ? host.codec(trainers[i], qcomm.forward, trainer_values, a[i], cat.all_to_all) : a[i]);
      }
      arrived[i] = ctx.marker(parts);
    }
    const auto& lookup_done = cur.lookup_done;

    // 6. Interaction and top MLP forward, then backward down to the interaction.
    const auto& costs = dense.costs(trainers.front());
    std::vector<std::vector<ActivityId>> layer_bwd(n, std::vector<ActivityId>(costs.size()));  // [trainer][layer]
    std::vector<ActivityId> top(n);
    for (std::size_t i = 0; i < n; ++i) top[i] = dense.forward(trainers[i], Layers::above_bottom, arrived[i]);
    // Semi-synchronous (TorchRec TrainPipelineSemiSync): the next batch's lookups and pooled
    // all-to-all start here, after this batch's forward and before its backward, so they read
    // the embeddings before this step's update (one step stale) and their exchange overlaps
    // this step's backward.
    if (semi_sync && s + 1 < steps) {
      next = sparse_forward(s + 1);
      send_pooled(next);
    }
    for (std::size_t i = 0; i < n; ++i) inter_bwd[i] = dense.backward(trainers[i], Layers::above_bottom, top[i], layer_bwd[i]);
    // 7. Gradients to the owners (launched as soon as the interaction backward is done;
    // under per-feature sync the host waits for it before handing them over).
    if (stack.sync == SoftwareStack::HostSync::per_feature) {
      for (std::size_t i = 0; i < n; ++i) host.host_wait(trainers[i], inter_bwd[i]);
    }
    std::map<OwnerKind, std::map<std::uint32_t, ActivityId>> grads_in;
    for (OwnerKind kind : kOwnerKinds) {
      if (lookup_done.count(kind) == 0) continue;
      std::vector<ActivityId> leaving = inter_bwd;
      if (kind == OwnerKind::gpu) {
        for (std::size_t i = 0; i < n; ++i) leaving[i] = host.codec(trainers[i], qcomm.backward, trainer_values, inter_bwd[i], cat.all_to_all);
      }
      grads_in[kind] = coll.gradients_to_owners(kind, leaving, traffic_category(ctx, kind));
      if (kind != OwnerKind::gpu) continue;
      for (auto& [o, g] : grads_in[kind]) {
        g = host.codec(*ctx.owner_device(o), qcomm.backward, ctx.represented_work(o).pooled_values, g, cat.all_to_all);
      }
    }
    // 8. Bottom MLP backward.
    for (std::size_t i = 0; i < n; ++i) {
      last_bwd[i] = dense.backward(trainers[i], Layers::bottom_mlp, inter_bwd[i], layer_bwd[i]);
    }
    // 9. Embedding backward and update on the owners; each joins the step end below.
    for (auto& [kind, done] : grads_in) {
      for (auto& [o, g] : done) last_bwd.push_back(emb.embedding_pass(o, Pass::backward, std::span(&g, 1)));
    }

    // 10. All-reduce buckets in order, then the dense optimiser.
    const std::vector<ActivityId> reduced =
        dense.reduce_gradients(layer_bwd, std::span(last_bwd).first(n), cat.all_reduce);
    std::vector<ActivityId> ends = dense.optimizer(std::span(last_bwd).first(n), reduced);
    // 11. 2D sparse parallelism: DMPCollection.sync() once the step's updates are done, every
    // training.sharding_sync_every steps (models/sharding_groups.hpp); it runs on the default
    // stream, so the next step's work waits for it.
    if (replicas > 1 && (s + 1) % ctx.in.options.sharding_sync_every == 0) {
      std::vector<ActivityId> updated = ends;
      updated.insert(updated.end(), last_bwd.begin() + static_cast<std::ptrdiff_t>(n), last_bwd.end());
      const std::vector<ActivityId> all(n, ctx.marker(updated));
      ends = coll.replica_sync(sync_payload, replicas, all, cat.all_reduce);
      // Work.wait() makes the default stream wait: the GPU's next kernels queue behind it.
      for (std::size_t i = 0; i < n; ++i) ends[i] = ctx.compute(trainers[i], Seconds(0.0), std::span(&ends[i], 1), cat.sync);
    }
    for (std::size_t i = 0; i < n; ++i) host.host_step_end(trainers[i], ends[i]);
    ends.insert(ends.end(), last_bwd.begin() + static_cast<std::ptrdiff_t>(n), last_bwd.end());
    step_end.push_back(ctx.marker(ends));
  }
  ctx.built.step_end = step_end;
}

}  // namespace dlrmsim::models
