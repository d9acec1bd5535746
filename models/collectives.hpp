// Collectives: the all-to-all between embedding owners and trainers and the trainers'
// all-reduce, decomposed into phases (NCCL's hierarchical algorithms) on the step's transfers:
//   all-to-all            (owners <-> trainers) pairwise flows inside the node, per-link
//                         aggregated egress/ingress segments (or per-node flows) between nodes,
//                         as the cluster fidelity emits them (models/fidelity.hpp)
//   all-reduce of S bytes reduce-scatter inside the node ((g-1)/g S per GPU), all-reduce of
//                         S/g across nodes over each GPU's NIC (ring: 2 (N-1)/N S/g), all-gather
//                         inside the node; the byte counts of the bandwidth-optimal ring
//                         algorithm (Patarasuk & Yuan, JPDC 2009). When NCCL's tuner picks
//                         CollNet (software.collectives.collnet, SHARP), the switches reduce:
//                         each GPU's NIC carries its S/g once up and once down instead.
//   hierarchical          (software.collectives.all_to_all: hierarchical; GPU owners that are
//   all-to-all            trainers, on several nodes; HugeCTR's hier_auto plans,
//                         NVIDIA-Merlin/HugeCTR@v24.06.00 HugeCTR/embedding/
//                         hier_model_parallel_embedding.cpp and operators/communication.cpp)
//                         Only the pooled embeddings and their gradients: HugeCTR's keys go
//                         to the tables' GPUs in a flat exchange. Forward: owner o sends each GPU j of its node w_o/g over NVLink
//                         (what the GPUs of local index j on all N nodes get, j's own share
//                         included); GPU j adds up the partial sums of a table row-sharded
//                         over the node (intra_model_forward_.dst_reduction), then sends the
//                         GPU j of every other node the sum over its node's owners of r_o/T
//                         (r_o: OwnerWork::pooled_node_reduced; T = N g trainers), along its
//                         rail.
//                         Backward: the reverse, rail first, then GPU j sends owner o of its
//                         node w_o/g over NVLink. A GPU's NIC carries (N-1)/N sum_o r_o / g of
//                         its node instead of its own owner's (N-1)/N w_o.
// NCCL's kernel of each collective holds software.collectives.sms SMs on a stream of its own
// for the time the GPU's part takes alone (nccl_kernel), so a GEMM that overlaps a collective
// runs on the other SMs meanwhile (NVIDIA/nccl issue 689: NCCL's CTAs never share an SM with
// compute). A stack's launch delay (software.collectives.launch_delay) precedes each one, and
// so does the latency NCCL's own model gives the collective at its size on GPU trainers
// (software.collectives.nccl; models/nccl_model.hpp): an all-reduce's chosen algorithm and
// protocol, an all-to-all's kernel start and hop latencies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "common/units.hpp"
#include "models/nccl_model.hpp"
#include "models/owner_work.hpp"
#include "models/step_context.hpp"
#include "models/transfers.hpp"
#include "placement/placement.hpp"
#include "sim/activity_graph.hpp"

namespace dlrmsim::models {

/// The share of S bytes each member sends (and receives) in a bandwidth-optimal ring
/// all-reduce among `members`: 2 (N-1)/N (Patarasuk & Yuan, JPDC 2009).
inline double ring_all_reduce_share(double members) { return 2.0 * (members - 1.0) / members; }

class Collectives {
 public:
  Collectives(StepContext& ctx, Transfers& net) : ctx_(ctx), net_(net) {}

  StepContext& context() { return ctx_; }
  const StepContext& context() const { return ctx_; }
  Transfers& transfers() { return net_; }

  /// The time a collective takes to start once its inputs are ready on every simulated member
  /// (software.collectives.launch_delay: a framework's negotiation, e.g. Horovod's background
  /// cycle) plus NCCL's latency for it (`nccl_latency`), as a zero-byte transfer over a
  /// resource whose latency is that sum; `ready` as is when the sum is zero.
  std::vector<sim::ActivityId> collective_launch(std::span<const sim::ActivityId> ready, std::uint16_t category,
                                                 Seconds nccl_latency = Seconds(0.0));
  /// What NCCL sees of the trainers' communicator (models/nccl_model.hpp), or std::nullopt
  /// when the stack names no NCCL release or the trainers are not GPUs.
  std::optional<NcclSystem> nccl_system();
  /// nccl_system() with the ranks and nodes of one embedding all-to-all (a sharding group's
  /// under 2D sparse parallelism).
  std::optional<NcclSystem> all_to_all_system();
  /// NCCL's choice for an all-reduce of `bytes` among the trainers (std::nullopt without a model).
  std::optional<NcclEstimate> all_reduce_estimate(Bytes bytes);
  /// NCCL's latency of an all-reduce of `bytes` among the trainers (zero without a model).
  Seconds all_reduce_latency(Bytes bytes);
  /// NCCL's latency of the all-to-all between the GPU owners and the trainers that moves
  /// w.*what of each owner (each peer its share; zero without a model). Hierarchical: the
  /// intra-node exchange among the node's g GPUs plus the exchange among the N GPUs of a rail.
  Seconds all_to_all_latency(Bytes OwnerWork::*what);
  /// A small all-to-all among all trainers in which each sends every peer `bytes_per_peer`
  /// (TorchRec's splits exchange: a few integers a peer): it completes for every member once
  /// the last member is ready (`ready`, per simulated trainer), after NCCL's all-to-all latency
  /// for that size (and the stack's launch delay). Its bytes, tens to hundreds, are left off the
  /// links. Returns per simulated trainer its completion.
  std::vector<sim::ActivityId> small_all_to_all(Bytes bytes_per_peer, std::span<const sim::ActivityId> ready,
                                                std::uint16_t category);
  /// Hierarchical all-reduce of `bytes` among all trainers; returns per simulated trainer the
  /// marker of its completion.
  std::vector<sim::ActivityId> all_reduce(Bytes bytes, std::span<const sim::ActivityId> ready, std::uint16_t category);

  /// 2D sparse parallelism's replica sync (models/sharding_groups.hpp): every simulated
  /// trainer all-reduces `payload` bytes (its shards' weights and optimiser state) with the
  /// GPUs of the same position in the other `replicas` - 1 groups, a ring across nodes:
  /// 2 (R - 1) / R x payload out of and into its NIC, after NCCL's latency for R ranks on R
  /// nodes. The flows are the fidelity's inter-node all-reduce phase (a ring over the nodes
  /// among same-index GPUs): each NIC carries the replica ring's bytes, though its neighbour
  /// is the next node rather than the next replica. Per simulated trainer, its completion.
  std::vector<sim::ActivityId> replica_sync(Bytes payload, std::size_t replicas, std::span<const sim::ActivityId> ready,
                                            std::uint16_t category);

  /// The direction of a flow between an owner and trainers (the all-to-all's two halves).
  enum class Towards { trainers, owner };
  /// Whether the all-to-all of w.*what with owners of `kind` runs hierarchically: the stack
  /// says so, it moves pooled embeddings (or their gradients; the ids stay a flat exchange), the
  /// owners are GPUs that are all trainers, and the trainers span several nodes.
  bool hierarchical(placement::OwnerKind kind, Bytes OwnerWork::*what);
  /// The all-to-all between embedding owners of one kind (GPUs for gpu_hbm and uvm shards, CPU
  /// sockets for host_dram, parameter servers for remote_ps) and the trainers: forward, every
  /// owner sends each trainer its share (local batch / global batch) of the pooled embeddings
  /// it produced; backward, the trainers send the pooled gradients back (pooled_grad: the same
  /// values, in the backward wire type).
  /// `owner_ready[o]` gates owner o's sends; `trainer_gate[i]` joins trainer i's arrival.
  /// Returns per simulated trainer its arrival marker (forward), per simulated owner its
  /// arrival marker (backward).
  std::vector<sim::ActivityId> pooled_to_trainers(placement::OwnerKind kind, const std::map<std::uint32_t, sim::ActivityId>& owner_ready,
                                                  std::span<const sim::ActivityId> trainer_gate, std::uint16_t category,
                                                  Bytes OwnerWork::*what = &OwnerWork::pooled_out);
  std::map<std::uint32_t, sim::ActivityId> gradients_to_owners(placement::OwnerKind kind,
                                                               std::span<const sim::ActivityId> trainer_ready,
                                                               std::uint16_t category,
                                                               Bytes OwnerWork::*what = &OwnerWork::pooled_grad);

 private:
  /// The flows between a simulated owner and the simulated trainers in one direction (the
  /// mirrored halves of pooled_to_trainers and gradients_to_owners): to each trainer on the
  /// owner's node, its share (1 / total trainers) of `bytes`; then the owner's off-node part,
  /// as the fidelity emits it (ClusterFidelity::owner_off_node). `ready(members)` gives the
  /// dependencies of a flow for those trainers, `arrived(members, flow)` records it.
  void owner_trainer_flows(const SimDevice& owner, Towards towards, Bytes bytes,
                           const std::function<std::vector<sim::ActivityId>(std::span<const std::size_t>)>& ready,
                           const std::function<void(std::span<const std::size_t>, sim::ActivityId)>& arrived,
                           std::uint16_t category);
  /// NCCL's kernel of one collective on `gpu` (a GPU with an SM pool): it holds nccl_sms SMs
  /// (software.collectives.sms) on the GPU's NCCL stream for the collective's category, for
  /// the time the GPU's share takes alone (`intra` bytes inside the node at the GPU's
  /// bandwidth to a node peer, `inter` bytes over its NIC, in parallel), from `start`.
  /// Compute kernels running meanwhile get the other SMs. The hold is that solo time even when
  /// contention stretches the collective (a first-order bound, not a measurement).
  void nccl_kernel(const SimDevice& gpu, Bytes intra, Bytes inter, sim::ActivityId start, std::uint16_t category);
  /// What NCCL sees of a GPU's node: whether the GPU reaches a peer over NVLink, and the time
  /// per byte of traffic spread evenly over its node peers, alone (busiest link's share over
  /// its bandwidth, along the platform's routes). Cached per GPU.
  struct NcclView {
    double intra_seconds_per_byte = 0.0;
    bool nvlink = false;
    bool nvswitch = false;  // the node has an NVSwitch
  };
  const NcclView& nccl_view(const SimDevice& gpu);
  /// nccl_kernel for each GPU owner of one all-to-all direction in `start` (owner -> when its
  /// part starts): it exchanges its owner bytes w.*what with the other trainers, 1/T each.
  void nccl_all_to_all(placement::OwnerKind kind, Bytes OwnerWork::*what,
                       const std::map<std::uint32_t, sim::ActivityId>& start, std::uint16_t category);
  /// The hierarchical all-to-all's two directions (see the header): per simulated trainer its
  /// arrival; per simulated GPU owner the arrival of its gradients.
  std::vector<sim::ActivityId> hierarchical_to_trainers(const std::map<std::uint32_t, sim::ActivityId>& owner_ready,
                                                        std::span<const sim::ActivityId> trainer_gate,
                                                        std::uint16_t category, Bytes OwnerWork::*what);
  std::map<std::uint32_t, sim::ActivityId> hierarchical_to_owners(std::span<const sim::ActivityId> trainer_ready,
                                                                  std::uint16_t category, Bytes OwnerWork::*what);
  /// Per simulated trainer, 1/T of the sum of w.*what over the simulated GPU owners of its node.
  std::vector<Bytes> node_owner_shares(Bytes OwnerWork::*what);
  /// The simulated trainer that is device d, if any.
  std::optional<std::size_t> trainer_index(topo::DeviceId d) const;

  StepContext& ctx_;
  Transfers& net_;
  std::map<double, sim::ResourceId> launch_delays_;  // collective_launch's resources, by delay
  std::map<std::uint32_t, NcclView> nccl_views_;
  std::map<std::uint32_t, bool> nvswitch_nodes_;  // by node index: whether it has an NVSwitch
};

}  // namespace dlrmsim::models
