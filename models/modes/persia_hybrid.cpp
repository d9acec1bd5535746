// Persia hybrid training (Lian et al., "Persia: An Open, Hybrid System Scaling Deep
// Learning-based Recommenders up to 100 Trillion Parameters", KDD 2022).
//
// Roles (platform groups by role): GPU trainers (the dense network, synchronous data
// parallel with all-reduce), embedding workers (CPU nodes: they receive the batch's ids,
// fetch rows from the parameter servers, pool them and send the pooled embeddings to the
// trainers; backward they receive the pooled gradients, turn them into row gradients and
// push them to the servers) and parameter servers (CPU nodes with large DRAM holding the
// tables as a key-value store: they return raw rows and apply row updates).
//
// Per step s:
//   embedding pipeline (forward)   ids EW -> PS, gather on PS, rows PS -> EW, pooling on EW,
//                                  pooled EW -> trainers
//   dense step (trainers)          input copy, bottom MLP, (pooled arrived), interaction and top
//                                  MLP forward and backward, bottom backward, bucketed all-reduce,
//                                  dense optimiser: synchronous
//   embedding pipeline (backward)  pooled gradients trainers -> EW, row gradients on EW, EW -> PS,
//                                  update on PS
// Asynchrony with bounded staleness k (training.staleness): the forward fetch of step s waits
// only for the update of step s-1-k, so the embedding pipeline of later steps overlaps the
// dense step; k = 0 is fully synchronous (the fetch waits for the previous update).
// How Persia's code holds the fetch back (PersiaML/PERSIA@05d59c2, the deployment's commit):
// each trainer process has a semaphore of `embedding_staleness` permits
// (rust/persia-core/src/forward.rs); its forward worker takes a permit before it asks the
// embedding worker for a batch's embeddings (forward_batch_id, a request carrying the batch's
// reference: the worker's lookup_batched_all_slots runs only then), and its backward worker
// gives the permit back once update_gradient_batched has returned (backward.rs), which the
// embedding worker answers only after every server has answered its update_gradient_mixed
// (middleware_service/mod.rs update_all_batched_gradients, try_join_all). So Persia's
// embedding_staleness k+1 is this model's k, and the round trip a fully synchronous step waits
// for is eight one-way messages: gradients trainer -> worker, row gradients worker ->
// servers, the servers' acknowledgements -> worker, the worker's answer -> trainer, the
// trainer's request -> worker, ids worker -> servers, rows -> worker, pooled -> trainer. The
// three control messages (acknowledgement, answer, request) are modelled as kControlMessage
// bytes each, so their latency lies on the path as the engine's transfers. Each of the eight
// messages also pays software.embedding_workers.rpc_latency once it has arrived, the RPC
// stack's own latency (Persia's RPCs are HTTP requests, hyper): eight on a synchronous round
// trip.
// The three modes Persia compares (KDD 2022, sec. 4 and the experiments):
//   persia_hybrid  embeddings asynchronous within the staleness bound, dense synchronous
//                  (bucketed all-reduce of the gradients every step);
//   persia_sync    fully synchronous: the bound is 0 whatever training.staleness says;
//   persia_async   fully asynchronous: embeddings as in the hybrid mode, and the dense part
//                  asynchronous too: each trainer applies its own gradients and the trainers
//                  average their fp32 dense parameters (one all-reduce) every
//                  training.averaging_period steps instead of all-reducing gradients per step. The
// forward and backward embedding pipelines run on separate streams of the worker and server
// sockets (Persia runs them in separate thread pools).
//
// What crosses the network (PersiaML/PERSIA@7cd455b, the code of the September 2021 benchmark):
//  - a data loader's batch (one trainer's) holds each feature's distinct ids with the samples
//    that contain them (rust/persia-common/src/lib.rs FeatureBatch::new), so the embedding worker
//    asks the servers for, and later updates, each distinct id of a feature once per batch:
//    8-byte ids out, rows back, one row gradient per distinct id (middleware_service/mod.rs
//    update_all_batched_gradients); pooling still sums every lookup. The expected distinct ids
//    of a table in one batch are placement::expected_distinct_rows over the table's lookups in
//    the trainer's batch (its access distribution);
//  - the pooled embeddings go to the trainers and their gradients come back in the element
//    types of the stack's `embedding_workers` (persia-2021: fp16 both ways,
//    FeatureSumEmbeddingBatch and the trainer's fp16 gradient tensors).
// The servers' share of the ids follows the placement (hashed_servers: Persia's hashing of
// every id over all servers).
//
// One trainer's batch on a worker is one chain on one thread (PersiaML/PERSIA@05d59c2, the
// deployment's commit, rust/persia-embedding-server/src/middleware_service/mod.rs;
// embedding_worker_service/mod.rs at later commits): lookup_batched_all_slots runs
// lookup_batched_all_slots_preprocess (every distinct id of every feature hashed and sent to
// its server's list) and, once every server has answered (try_join_all),
// lookup_batched_all_slots_postprocess (every looked-up row added into its samples' rows, the
// sums converted to fp16) inside tokio::task::block_in_place, one thread; backward,
// update_all_batched_gradients does the same per feature (each lookup's sample gradient
// added into its id's row, each id's row sent to its server's list). Other batches run on the
// worker's other threads. So a worker stage takes the longest of: its share of the step's
// rows over its DRAM (cpu_gather_time), its share of the batches' chains over its cores, and
// one batch's chain,
//   chain = distinct ids x (hash probe + software.embedding_workers.per_id)
//         + lookups x one core's time per row (topologies/cpu_row_cost.hpp),
// the hash probe being the worker's CPU profile's hash_update - update (0 without a measured
// profile), per direction. Where the batch's chain is longer than the step, it is the step's
// floor: in persia_sync it lies on every step's critical path.
//
// Representation: embedding workers and parameter servers are symmetric server groups; one of
// each is simulated doing its share (1/E and the largest 1/P of the work), its NIC carrying
// its share of the traffic (egress/ingress segments, step_builder.hpp). Trainers follow the
// builder's node fidelity. Ids reach the embedding workers from the data loaders, which are
// assumed to run on the workers themselves (as in Persia's deployment of data loaders next to
// embedding workers), so no network traffic is modelled for them. CPU work of the
// forward and backward pipelines on one socket does not contend (an optimistic assumption:
// DRAM bandwidth sharing between them is not modelled).
#include <algorithm>
#include <array>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "models/step_builder.hpp"
#include "models/training_mode.hpp"
#include "placement/lookup_cost.hpp"
#include "placement/tier.hpp"

namespace dlrmsim::models {

using placement::OwnerKind;
using sim::ActivityId;

namespace {

/// The three Persia modes differ in what waits for what (see the header).
enum class PersiaVariant { hybrid, synchronous, asynchronous };

/// One control message of Persia's RPCs (an update's acknowledgement, the answer to
/// update_gradient_batched, a forward_batch_id request with the batch's reference): an
/// assumption of one small frame; its size is immaterial beside its latency.
constexpr Bytes kControlMessage{64.0};

/// The sockets of a worker or server node, each with a forward stream (its own) and a
/// backward stream (a second one on its cores: Persia's separate thread pools).
struct PipelineSockets {
  std::vector<SimDevice> forward, backward;
};
PipelineSockets pipeline_sockets(StepContext& ctx, topo::NodeId node) {
  PipelineSockets out;
  for (SimDevice* s : ctx.sockets_of(node)) {
    out.forward.push_back(*s);
    SimDevice back = *s;
    back.stream = ctx.graph.add_stream(ctx.resources.engine(s->device), ctx.in.platform.device(s->device).name + ".backward");
    out.backward.push_back(back);
  }
  return out;
}

/// The fraction of each owner's lookups that are distinct within their batch (by problem device
/// index): its shards' lookups weighted by their tables' fractions (1 without lookups).
std::vector<double> owner_distinct_shares(const StepInputs& in, const std::vector<double>& fractions) {
  std::vector<double> lookups(in.problem.devices.size(), 0.0), distinct(lookups.size(), 0.0);
  for (const auto& tp : in.plan.tables) {
    const auto& table = in.problem.tables.at(tp.table);
    for (const auto& shard : tp.shards) {
      const double l = placement::shard_work(in.problem, table, shard, tp.sharding, 1.0).lookups;
      for (auto o : shard.owners) {
        lookups.at(o) += l;
        distinct.at(o) += l * fractions.at(tp.table);
      }
    }
  }
  for (std::size_t o = 0; o < lookups.size(); ++o) distinct[o] = lookups[o] > 0.0 ? distinct[o] / lookups[o] : 1.0;
  return distinct;
}

void build_persia_steps(StepBuilder& b, int steps, PersiaVariant variant) {
  StepContext& ctx = b.context();
  const StepInputs& inputs = ctx.in;
  // Persia's modes pipeline their embedding workers themselves (their staleness is the mode's).
  if (inputs.options.software.pipeline != SoftwareStack::Pipeline::sparse_dist) {
    throw std::invalid_argument(
        "software.embeddings.pipeline: semi_sync applies to the synchronous modes (hybrid_parallel_sync, cpu_only, "
        "parameter_server); the Persia modes pipeline their embedding workers as the mode says");
  }
  Transfers& net = b.transfers();
  HostModel& host = b.host();
  DenseWork& dense = b.dense();
  const auto& cat = ctx.cat;
  const auto& model = inputs.model;
  const auto& trainers = ctx.trainers();
  const std::size_t n = trainers.size();
  const auto ew_nodes = nodes_with_role(inputs.platform, inputs.options.embedding_worker_role);
  if (ew_nodes.empty()) {
    throw std::invalid_argument(inputs.options.mode + " needs a platform group with role '" + inputs.options.embedding_worker_role +
                                "' (the embedding workers)");
  }
  const auto servers = ctx.simulated_owners(OwnerKind::parameter_server);
  if (servers.empty()) {
    throw std::invalid_argument(inputs.options.mode + " needs the tables on parameter servers (placement tier remote_ps) "
                                "and a platform group with role '" + inputs.options.parameter_server_role + "'");
  }
  const auto on_trainer_nodes = [](const placement::TablePlacement& tp) {
    return !placement::tier_of(tp.tier).properties().remote;
  };
  if (std::any_of(inputs.plan.tables.begin(), inputs.plan.tables.end(), on_trainer_nodes)) {
    throw std::invalid_argument(inputs.options.mode + " keeps every table on the parameter servers; the placement put some "
                                "elsewhere (use placement tiers: [remote_ps])");
  }

  // The simulated embedding worker and the servers: sockets with forward and backward streams.
  const PipelineSockets ew = pipeline_sockets(ctx, ew_nodes.front());
  std::vector<PipelineSockets> ps;
  for (auto o : servers) ps.push_back(pipeline_sockets(ctx, topo::NodeId{inputs.problem.devices[o].topology_id}));

  const double workers = static_cast<double>(ew_nodes.size());
  const double samples_per_worker = static_cast<double>(model.global_batch_size) / workers;
  const double lookups = model.lookups_per_sample();
  const Bytes rows_per_sample = model.gathered_bytes_per_sample();
  const Bytes avg_row = lookups > 0.0 ? rows_per_sample / lookups : Bytes(0.0);
  const double local = static_cast<double>(ctx.local_batch());
  // Pooled embeddings and their gradients in the stack's wire element types.
  const SoftwareStack& stack = inputs.options.software;
  const auto width = static_cast<double>(model.pooled_embedding_width());
  const Bytes pooled_per_sample = element_size(stack.worker_embeddings.value_or(model.communication_precision)) * width;
  const Bytes gradient_per_sample = element_size(stack.worker_gradients.value_or(model.communication_precision)) * width;
  // Distinct ids and rows per sample as the workers request them (one trainer's batch at a time).
  std::vector<double> distinct;
  double distinct_ids = 0.0;
  Bytes distinct_rows;
  for (const auto& table : inputs.problem.tables) {
    distinct.push_back(placement::distinct_fraction_over(table, local));
    distinct_ids += table.lookups_per_sample * distinct.back();
    distinct_rows += table.row_bytes() * (table.lookups_per_sample * distinct.back());
  }
  // Each simulated server's lookups that are distinct within their batch (what it serves).
  const std::vector<double> shares = owner_distinct_shares(inputs, distinct);
  std::vector<double> server_share;
  for (auto o : servers) server_share.push_back(shares.at(ctx.represented_work(o).owner));
  const double ew_sockets = static_cast<double>(ew.forward.size());
  // Pooling on a worker reads every fetched row once (memory bound, the CPU gather model).
  const topo::CpuRowAccess ew_access = role_cpu_access(inputs, *ew.forward.front().cpu, ew_nodes.front(), false);
  const Seconds pool_time = topo::cpu_gather_time(ew_access, samples_per_worker * lookups / ew_sockets, avg_row);
  // One trainer's batch on one worker thread (see the header): per distinct id a hash probe
  // and the stack's per-id work, per lookup one row summed.
  const Seconds probe = ew_access.measured ? std::max(Seconds(0.0), ew_access.measured->hash_update(avg_row) -
                                                                       ew_access.measured->update(avg_row))
                                           : Seconds(0.0);
  const Seconds batch_chain = (probe + stack.worker_per_id) * (local * distinct_ids) +
                              ew_access.core_time(avg_row, false) * (local * lookups);
  // The worker's threads run its batches side by side: its share of the step's batches over
  // its cores, or one batch's chain, whichever is longer.
  const double ew_cores = std::max(1.0, ew_access.cores * ew_sockets);
  const Seconds worker_time = std::max({pool_time, batch_chain * (samples_per_worker / local) / ew_cores, batch_chain});
  const std::uint16_t ps_cat = cat.parameter_server_traffic;
  const topo::DeviceId ew_dev = ew.forward.front().device;
  // An RPC message's own latency once it has arrived: a zero-byte transfer over a resource
  // that only delays (as collective launches are), none when the stack gives none.
  std::optional<sim::ResourceId> rpc_delay;
  if (stack.worker_rpc_latency.value() > 0.0) {
    rpc_delay = ctx.graph.add_resource("software.embedding_workers.rpc_latency", BytesPerSecond(1e12),
                                       stack.worker_rpc_latency, "rpc_latency");
  }
  auto rpc = [&](ActivityId arrived) {
    if (!rpc_delay) return arrived;
    return ctx.graph.add_transfer(Bytes(0.0), std::span(&*rpc_delay, 1), std::span(&arrived, 1), ps_cat);
  };
  // A stage of the worker (pooling forward, row gradients backward): `in` bytes arrive after
  // `in_deps`, every socket works once they and `arrivals` are in, then `out` bytes leave.
  // Returns the end of the work and the departure.
  auto worker_stage = [&](std::span<const ActivityId> in_deps, std::vector<ActivityId> arrivals, Bytes in,
                          const std::vector<SimDevice>& sockets, Bytes out) {
    arrivals.push_back(net.send_ingress(ew_dev, in, in_deps, ps_cat));
    const std::array<ActivityId, 1> arrived{rpc(ctx.marker(arrivals))};
    std::vector<ActivityId> parts;
    for (const auto& sock : sockets) parts.push_back(ctx.compute(sock, worker_time, arrived, cat.embedding_lookup));
    const ActivityId done = ctx.marker(parts);
    return std::pair{done, net.send_egress(ew_dev, out, std::span(&done, 1), ps_cat)};
  };

  // Fully synchronous: the fetch of step s waits for the update of step s-1 (staleness 0).
  const int staleness = variant == PersiaVariant::synchronous ? 0 : inputs.options.staleness;
  int averaging_period = 1;
  if (variant == PersiaVariant::asynchronous) {
    if (!inputs.options.averaging_period) {
      throw std::invalid_argument("persia_async averages the dense parameters every N steps: give training.averaging_period");
    }
    averaging_period = *inputs.options.averaging_period;
  }
  std::vector<ActivityId> permit_back;  // per step: the trainers hold its update's answer
  const int features = static_cast<int>(model.table_count());
  std::vector<ActivityId> step_end;
  for (int s = 0; s < steps; ++s) {
    ctx.begin_step(s);
    // --- embedding pipeline, forward ---
    // Each trainer asks for its batch once it holds a permit (the answer to update s-1-k).
    std::vector<ActivityId> gate;
    const int waited = s - 1 - staleness;
    if (waited >= 0) gate.push_back(permit_back[static_cast<std::size_t>(waited)]);
    std::vector<ActivityId> requests;
    for (std::size_t i = 0; i < n; ++i) requests.push_back(net.send_egress(trainers[i].device, kControlMessage, gate, ps_cat));
    requests.push_back(net.send_ingress(ew_dev, kControlMessage * static_cast<double>(n), gate, ps_cat));
    const ActivityId asked = rpc(ctx.marker(requests));
    gate.assign(1, asked);
    const auto ids_out = net.send_egress(ew_dev, placement::kIndexBytes * (samples_per_worker * distinct_ids), gate, ps_cat);
    ctx.built.roles[ids_out.index] = "embedding_fetch";  // the activities the staleness gate holds back (traces)
    std::vector<ActivityId> gathered;
    for (std::size_t p = 0; p < servers.size(); ++p) {
      const OwnerWork& w = ctx.represented_work(servers[p]);
      const double share = server_share[p];
      const auto ids_in = net.send_ingress(ps[p].forward.front().device, w.ids_in * share, gate, ps_cat);
      ctx.built.roles[ids_in.index] = "embedding_fetch";
      const std::array<ActivityId, 2> dep{ids_out, ids_in};
      const auto ids_done = rpc(ctx.marker(dep));
      std::vector<ActivityId> parts;
      for (auto& sock : ps[p].forward) {
        const std::array<ActivityId, 1> d1{ids_done};
        parts.push_back(ctx.compute(sock, w.forward_compute * share, d1, cat.embedding_lookup));
      }
      const auto looked_up = ctx.marker(parts);
      const std::array<ActivityId, 1> d2{looked_up};
      gathered.push_back(net.send_egress(ps[p].forward.front().device, avg_row * (w.lookups * share), d2, ps_cat));
    }
    const auto [pooled, ew_out] = worker_stage(gathered, gathered, distinct_rows * samples_per_worker, ew.forward,
                                               pooled_per_sample * samples_per_worker);
    const std::array<ActivityId, 1> pdep{pooled};

    // --- dense step on the trainers ---
    std::vector<ActivityId> copy(n), arrived(n), inter_bwd(n), last_bwd(n);
    const auto& costs = dense.costs(trainers.front());
    std::vector<std::vector<ActivityId>> layer_bwd(n, std::vector<ActivityId>(costs.size()));  // [trainer][layer]
    using Layers = DenseWork::Layers;
    for (std::size_t i = 0; i < n; ++i) {
      copy[i] = host.step_input(i, s, step_end);
      const ActivityId bottom = dense.forward(trainers[i], Layers::bottom_mlp, copy[i]);
      const auto in = net.send_ingress(trainers[i].device, pooled_per_sample * local, pdep, ps_cat);
      const std::array<ActivityId, 2> received{in, ew_out};
      ActivityId got = rpc(ctx.marker(received));
      if (inputs.options.software.sync == SoftwareStack::HostSync::per_feature) {
        // Persia's trainer loop: the host takes the embeddings as they arrive and hands them to
        // the GPU feature by feature, waiting for the GPU after each (torch.cuda.synchronize).
        host.host_wait(trainers[i], got);
        const std::array<ActivityId, 1> gdep{got};
        got = host.feature_kernels(trainers[i], Seconds(0.0), features, features, gdep, cat.host_device_copy);
      }
      const std::array<ActivityId, 2> join{bottom, got};
      arrived[i] = ctx.marker(join);
      ActivityId last = dense.forward(trainers[i], Layers::above_bottom, arrived[i]);
      last = dense.backward(trainers[i], Layers::above_bottom, last, layer_bwd[i]);
      inter_bwd[i] = last;
      last = dense.backward(trainers[i], Layers::bottom_mlp, last, layer_bwd[i]);
      last_bwd[i] = last;
    }

    // --- embedding pipeline, backward (asynchronous: nothing of the dense step waits for it) ---
    std::vector<ActivityId> grads_out;
    for (std::size_t i = 0; i < n; ++i) {
      if (inputs.options.software.sync == SoftwareStack::HostSync::per_feature) host.host_wait(trainers[i], inter_bwd[i]);
      grads_out.push_back(net.send_egress(trainers[i].device, gradient_per_sample * local,
                                        std::span<const ActivityId>(&inter_bwd[i], 1), ps_cat));
    }
    const auto [scattered, push_out] = worker_stage(inter_bwd, grads_out, gradient_per_sample * samples_per_worker,
                                                    ew.backward, distinct_rows * samples_per_worker);
    const std::array<ActivityId, 1> sdep{scattered};
    std::vector<ActivityId> acks;
    for (std::size_t p = 0; p < servers.size(); ++p) {
      const OwnerWork& w = ctx.represented_work(servers[p]);
      const double share = server_share[p];
      const auto push_in = net.send_ingress(ps[p].backward.front().device, avg_row * (w.lookups * share), sdep, ps_cat);
      const std::array<ActivityId, 1> udep{rpc(ctx.marker(std::array<ActivityId, 2>{push_out, push_in}))};
      std::vector<ActivityId> updates;
      for (auto& sock : ps[p].backward) {
        updates.push_back(ctx.compute(sock, w.backward_compute * share, udep, cat.embedding_lookup));
        ctx.built.roles[updates.back().index] = "embedding_update";
      }
      // The server answers update_gradient_mixed once its update is applied.
      const ActivityId updated = ctx.marker(updates);
      acks.push_back(net.send_egress(ps[p].backward.front().device, kControlMessage, std::span(&updated, 1), ps_cat));
      acks.push_back(net.send_ingress(ew_dev, kControlMessage, std::span(&updated, 1), ps_cat));
    }
    // The worker answers each trainer's update_gradient_batched once every server has; the
    // trainer's backward worker then gives its staleness permit back.
    const ActivityId acked = rpc(ctx.marker(acks));
    std::vector<ActivityId> answers{net.send_egress(ew_dev, kControlMessage * static_cast<double>(n), std::span(&acked, 1), ps_cat)};
    for (std::size_t i = 0; i < n; ++i) {
      answers.push_back(net.send_ingress(trainers[i].device, kControlMessage, std::span(&acked, 1), ps_cat));
    }
    permit_back.push_back(rpc(ctx.marker(answers)));

    // --- dense all-reduce and optimiser (asynchronous: local optimiser, then every
    // averaging_period steps an all-reduce of the fp32 dense parameters) ---
    const std::vector<ActivityId> reduced = variant == PersiaVariant::asynchronous
                                                ? std::vector<ActivityId>{}
                                                : dense.reduce_gradients(layer_bwd, last_bwd, cat.all_reduce);
    std::vector<ActivityId> ends = dense.optimizer(last_bwd, reduced);
    if (variant == PersiaVariant::asynchronous && (s + 1) % averaging_period == 0) {
      ends = b.collectives().all_reduce(element_size(Precision::fp32) * model.dense_parameters(), ends, cat.all_reduce);
    }
    for (std::size_t i = 0; i < n; ++i) host.host_step_end(trainers[i], ends[i]);
    step_end.push_back(ctx.marker(ends));
  }
  ctx.built.step_end = step_end;
}

}  // namespace

void build_persia_hybrid_steps(StepBuilder& b, int steps) { build_persia_steps(b, steps, PersiaVariant::hybrid); }
void build_persia_sync_steps(StepBuilder& b, int steps) { build_persia_steps(b, steps, PersiaVariant::synchronous); }
void build_persia_async_steps(StepBuilder& b, int steps) { build_persia_steps(b, steps, PersiaVariant::asynchronous); }

}  // namespace dlrmsim::models
