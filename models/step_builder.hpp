// The step builder: turns training steps into engine activities.
//
// A training mode (training_mode.hpp) describes the dependencies of one step; the builder
// gives it the vocabulary: the trainers and the devices that own embedding shards (from the
// placement plan), their per-step embedding work, compute tasks with costs from
// cost_models.hpp, transfers along platform routes, and decomposed collectives.
//
// Cluster fidelity (models/fidelity.hpp). select_trainers() chooses, once, a ClusterFidelity
// strategy that decides which trainer nodes and owners are simulated, whose work each
// simulated owner carries, how off-node traffic is emitted, the straggler factors and the
// report's fidelity sentence; the builder asks it wherever those differ and emits the rest
// (kernels, flows inside a node, the all-reduce's intra-node phases) the same way for both.
//
// Large symmetric clusters (ASTRA-sim's and DESIGN.md's "no N^2 flows" rule). When every
// trainer node is an instance of the same node template and the job has more than
// TrainingOptions::kEveryNodeUpTo trainer nodes (`nodes: auto`, the default), or when
// `nodes: representative` asks for it, the RepresentativeNode strategy simulates one
// trainer node: its GPUs, its NVLink/PCIe links and its NICs, with every flow that leaves or
// enters the node cut into two segments that carry the correct per-link byte counts:
//   egress   source -> ... -> its NIC -> leaf (the route prefix up to the first fabric link)
//   ingress  leaf -> NIC -> ... -> destination (the route suffix from the last fabric link)
// In a symmetric job every node sends and receives the same bytes, so the representative
// node's links carry exactly what every node's links carry. The fabric core (leaf-spine
// links): when a leaf's uplinks carry less than its host links (oversubscription), the part
// of the traffic that leaves the leaf (uniform destinations) also crosses a resource per
// direction standing for the node's share of its leaf's uplinks, in proportion to the bytes
// it sends (receives) among the trainer nodes on the leaf (remote_bytes); collisions of the
// deterministic spine routing are not represented (`nodes: all` simulates them). Shared
// servers (parameter servers, embedding workers) are represented the same way: one of each,
// doing its share of the whole job's work and carrying the largest work of the servers it
// stands for.
// The representative trainer node is the one holding the most loaded embedding owner,
// counting its NIC traffic (synchronous steps wait for the slowest). Traffic from the other
// nodes' owners reaches it when the owner at the same position on the representative node is
// ready. Measured against `nodes: all` (README "Cluster fidelity"): -2.8 %, -3.1 %, -0.2 % at
// 8, 16, 64 nodes of the non-blocking rail-optimised SuperPOD; +6.9 % and +11.3 % at 16 and 64
// nodes of a 2:1 fat tree.
// EveryNode (`nodes: all`) simulates every node, with one aggregated flow per (owner,
// destination node) to the GPU of the owner's index there; `communication: per_pair` sends
// one flow per pair of endpoints instead.
//
// Collectives are decomposed into phases (NCCL's hierarchical algorithms):
//   all-to-all            (owners <-> trainers) pairwise flows inside the node, per-link
//                         aggregated egress/ingress segments (or per-node flows) between nodes
//   all-reduce of S bytes reduce-scatter inside the node ((g-1)/g S per GPU), all-reduce of
//                         S/g across nodes over each GPU's NIC (ring: 2 (N-1)/N S/g), all-gather
//                         inside the node; the byte counts of the bandwidth-optimal ring
//                         algorithm (Patarasuk & Yuan, JPDC 2009).
//
// Shared GPU resources. A compute-bound GPU kernel (compute(): GEMMs, interaction, dense
// optimiser) is a flow over the GPU's SM pool at the rate of all its SMs, so kernels of two
// streams split the SMs; a memory-bound one (the embedding passes, with their real HBM bytes:
// rows read, bags written, rows and optimiser state read and written back) is a flow over the
// GPU's HBM at the rate it reaches alone, so concurrent gathers split the bandwidth. NCCL's
// kernel of each collective holds software.collectives.sms SMs on a stream of its own for the
// time the GPU's part takes alone (nccl_kernel), so a GEMM that overlaps a collective runs on
// the other SMs meanwhile (NVIDIA/nccl issue 689: NCCL's CTAs never share an SM with compute).
// Host-device copies and UVM reads are DMA kernels over host DRAM and PCIe (host_dma). A copy
// between two GPUs of a node reads the sender's HBM and writes the receiver's (send(); not
// across nodes, where the NIC bounds it far below HBM). A GEMM loads the SMs and HBM (its
// operands' traffic), a memory-bound kernel HBM alone (KernelLoad). Not modelled: what share
// of the SMs a memory-bound kernel keeps from a concurrent GEMM (a gather takes none).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/config.hpp"
#include "common/units.hpp"
#include "models/categories.hpp"
#include "models/cost_models.hpp"
#include "topologies/device_profile.hpp"
#include "models/model_spec.hpp"
#include "models/placement_problem.hpp"
#include "models/software_stack.hpp"
#include "models/training_options.hpp"
#include "models/stragglers.hpp"
#include "placement/lookup_cost.hpp"
#include "placement/placement.hpp"
#include "sim/activity_graph.hpp"
#include "topologies/cpu_row_cost.hpp"
#include "topologies/engine_export.hpp"
#include "topologies/platform.hpp"

namespace dlrmsim::models {

class ClusterFidelity;

/// A compute device that takes part in the step (trainer GPU or CPU socket, parameter
/// server socket, embedding worker socket).
struct SimDevice {
  topo::DeviceId device;
  topo::NodeId node;
  sim::StreamId stream;
  bool is_gpu = false;
  const topo::DeviceProfile* profile = nullptr;          // GPUs
  const topo::CpuSocketSpec* cpu = nullptr;        // CPU sockets
  int local_index = 0;                             // position among its kind in its node
};

/// Per-step embedding work of one placement owner (a GPU, CPU socket or server).
struct OwnerWork {
  std::uint32_t owner = 0;  // index into PlacementProblem::devices
  Seconds forward_compute;  // GPU kernel / CPU task time, forward
  Seconds backward_compute; // backward + optimiser update
  Bytes uvm_bytes;          // rows read from host memory per step (UVM misses), written back after the update
  Seconds uvm_time;         // the profile's time of those zero-copy reads alone (each way)
  Bytes hbm_forward;        // GPU owners: HBM bytes of the forward kernel (rows read, bags written)
  Bytes hbm_backward;       // GPU owners: HBM bytes of the backward and update (bag gradients, rows and state read and written)
  Bytes pooled_out;         // pooled embeddings produced per step (communication precision)
  Bytes ids_in;             // indices received per step
  double lookups = 0.0;     // rows gathered per step
  int gpu_tables = 0;       // table shards a GPU owner holds (kernels per pass without table batching)
  bool any = false;
};

/// What the builder produced, for the report.
struct BuiltSteps {
  std::vector<sim::ActivityId> step_end;  // per step (warm-up first)
  int warmup_steps = 0;
  int measured_steps = 0;
  std::string fidelity;                   // how the cluster was represented
  std::size_t simulated_trainers = 0;
  std::size_t total_trainers = 0;
  /// Per step (warm-up first): the id of its first activity. Ids are handed out in order, so
  /// activity a belongs to the last step whose first id is <= a (traces' `step`).
  std::vector<std::uint32_t> step_first_activity;
  /// What some activities are, by activity index, where a mode names them (traces' `role`:
  /// e.g. Persia's "embedding_fetch" and "embedding_update", whose order the staleness bound
  /// constrains).
  std::map<std::uint32_t, std::string> roles;
};

/// What a GPU kernel loads while it runs: all of the GPU's SMs (for its time alone), and
/// `hbm` real bytes over its HBM. A memory-bound kernel (a gather, an optimiser pass) loads
/// HBM alone: what share of the SMs it keeps from a concurrent kernel is not measured here.
struct KernelLoad {
  bool sms = true;
  Bytes hbm{0.0};
  static KernelLoad memory_bound(Bytes bytes) { return {false, bytes}; }
  static KernelLoad sms_and_hbm(Bytes bytes) { return {true, bytes}; }
};

class StepBuilder {
 public:
  StepBuilder(const ModelSpec& model, const topo::Platform& platform, const placement::PlacementProblem& problem,
              const placement::PlacementPlan& plan, const topo::DeviceProfileSet& profiles, const TrainingOptions& options,
              sim::ActivityGraph& graph);
  /// Builds on resources already exported to `graph` (several jobs sharing one platform's
  /// links and fabric in one graph: models/jobs.hpp); `resources` must come from
  /// topo::export_platform(platform, graph).
  StepBuilder(const ModelSpec& model, const topo::Platform& platform, const placement::PlacementProblem& problem,
              const placement::PlacementPlan& plan, const topo::DeviceProfileSet& profiles, const TrainingOptions& options,
              sim::ActivityGraph& graph, topo::PlatformResources resources);
  ~StepBuilder();
  StepBuilder(const StepBuilder&) = delete;
  StepBuilder& operator=(const StepBuilder&) = delete;

  // --- what is simulated -----------------------------------------------------------------
  const ModelSpec& model() const { return model_; }
  const topo::Platform& platform() const { return platform_; }
  const placement::PlacementProblem& problem() const { return problem_; }
  const placement::PlacementPlan& plan() const { return plan_; }
  const TrainingOptions& options() const { return options_; }
  sim::ActivityGraph& graph() { return graph_; }
  const topo::PlatformResources& resources() const { return resources_; }
  const Categories& categories() const { return cat_; }
  /// Whether one trainer node stands for all (after select_trainers(); false before).
  bool representative() const;
  /// The cluster fidelity select_trainers() chose (std::logic_error before it).
  const ClusterFidelity& fidelity() const;

  /// Trainer devices: GPUs of the placement problem (or its CPU sockets when `cpu_trainers`).
  /// Only the simulated ones (the representative node's, or all). Chooses the fidelity.
  void select_trainers(bool cpu_trainers);
  const std::vector<SimDevice>& trainers() const { return trainers_; }
  std::size_t total_trainers() const { return total_trainers_; }
  std::size_t trainers_per_node() const { return trainers_per_node_; }
  std::size_t trainer_node_count() const { return trainer_nodes_; }
  /// Local batch of one trainer.
  std::int64_t local_batch() const;

  /// The device with the stream its embedding kernels run on (training.embedding_overlap).
  SimDevice embedding_device(const SimDevice& d);
  /// The simulated device of a trainer-side owner (GPU or CPU socket) or of a server socket.
  SimDevice& sim_device(topo::DeviceId d);

  /// The row-access bounds of a CPU socket with the scenario's access granule (the one CPU
  /// gather and update model, topologies/cpu_row_cost.hpp). std::invalid_argument when the
  /// platform gives the socket neither a DRAM bandwidth nor a per-core gather bandwidth.
  topo::CpuRowAccess cpu_row_access(const topo::CpuSocketSpec& cpu) const;
  /// The same for a socket of `node`, a parameter server (`server`: ids resolved through its
  /// hash map) or an embedding worker, its cores scaled by the share of the node its role's
  /// pods use (training.pods, placement::pod_share; the whole node without pods).
  topo::CpuRowAccess role_cpu_access(const topo::CpuSocketSpec& cpu, topo::NodeId node, bool server) const;

  /// Embedding work of every owner of the plan, by placement problem device index.
  const std::vector<OwnerWork>& owner_work() const { return owner_work_; }
  /// The work a simulated owner carries (its own, or the largest of those it represents).
  const OwnerWork& represented_work(std::uint32_t owner) const;
  bool plan_uses(placement::Tier tier) const;
  /// Gradient bytes of data-parallel (replicated) tables, all-reduced among the trainers.
  Bytes data_parallel_gradient_bytes() const { return dp_gradient_bytes_; }

  /// The nodes of a role group (empty if there is none).
  std::vector<topo::NodeId> nodes_with_role(const std::string& role) const;
  /// CPU sockets of `node` as simulated devices (created on first use).
  std::vector<SimDevice*> sockets_of(topo::NodeId node);

  /// Straggler slowdowns (models/stragglers.hpp): every compute task of a device in step s
  /// takes its factor times its cost (the fidelity's device_slowdown: representative mode
  /// takes the largest factor of the devices it stands for). None by default; the object must outlive the building.
  void set_slowdowns(const Slowdowns* slowdowns) { slowdowns_ = slowdowns; }
  /// The step being built (0 = the first warm-up step); modes call it at each step's start,
  /// before adding the step's activities (it records the step's first activity id).
  void begin_step(int step);
  /// Names what activity `a` is (BuiltSteps::roles; shown in traces).
  void set_role(sim::ActivityId a, std::string role) { built_.roles[a.index] = std::move(role); }

  // --- activities --------------------------------------------------------------------------
  /// Work of `t` alone on d's stream (times its straggler factor): on a GPU a kernel over what
  /// `load` names, each at the rate that takes t alone (HBM at hbm / t; the SMs, with an SM pool
  /// (topologies/engine_export.hpp), at all of them), sharing each resource max-min with the
  /// GPU's other streams, copies and NCCL's kernels and ending when its most slowed part has
  /// (sim::ActivityGraph::add_kernel with parts). Elsewhere, or on a GPU without an SM pool for
  /// a kernel that needs one, a task of fixed duration.
  sim::ActivityId compute(const SimDevice& d, Seconds t, std::span<const sim::ActivityId> deps, std::uint16_t category,
                          KernelLoad load = {});
  /// `launches` kernels that take `t` together on d's stream (on a CPU device: compute()). A
  /// GPU's host thread dispatches them first, in program order, at software.host.dispatch +
  /// the profile's launch overhead each: the first kernel waits for its own dispatch, and the
  /// returned completion for the host to have dispatched the last. The host does not wait for
  /// the GPU (it runs ahead) except at host_wait.
  sim::ActivityId kernels(const SimDevice& d, Seconds t, int launches, std::span<const sim::ActivityId> deps,
                          std::uint16_t category, KernelLoad load = {});
  /// As kernels(), for work done feature by feature (an embedding pass over `features` sparse
  /// features): under software.host.sync per_feature the work is cut into one piece per
  /// feature and the host waits for each piece before dispatching the next.
  sim::ActivityId feature_kernels(const SimDevice& d, Seconds t, int launches, int features,
                                  std::span<const sim::ActivityId> deps, std::uint16_t category, KernelLoad load = {});
  /// The host thread of GPU d waits for `done` (a synchronisation point).
  void host_wait(const SimDevice& d, sim::ActivityId done);
  /// `count` host operators with no kernel on GPU d's host thread (Python-side work).
  void host_operators(const SimDevice& d, int count);
  /// The stack's sync points of one step on trainer d: per step, after its end (software.host.sync).
  void host_step_end(const SimDevice& d, sim::ActivityId step_end);
  /// The input side of step s on simulated trainer i, the same in every mode: loading its
  /// batch on the node's cores (software.host.loader) and the host-to-device copy, both after
  /// their step s-1 counterparts and the end of step s-2 (two input buffers, as TorchRec's
  /// TrainPipelineSparseDist); the host dispatches step s into the buffer step s-2 used, so it
  /// never runs more than two steps ahead of its GPU; then the host's per-feature loop
  /// (software.host.feature_operators). `step_end` holds the ends of the steps built so far.
  /// Returns the input copy.
  sim::ActivityId step_input(std::size_t i, int s, std::span<const sim::ActivityId> step_end);
  sim::ActivityId marker(std::span<const sim::ActivityId> deps);
  /// A transfer along the platform route from a to b (a == b: a marker).
  sim::ActivityId send(topo::DeviceId a, topo::DeviceId b, Bytes bytes, std::span<const sim::ActivityId> deps,
                       std::uint16_t category);
  /// The egress segment of inter-node traffic from d (up to and including its first fabric
  /// link) and the ingress segment into d (from the last fabric link).
  sim::ActivityId send_egress(topo::DeviceId d, Bytes bytes, std::span<const sim::ActivityId> deps, std::uint16_t category);
  /// A DMA or zero-copy access between a GPU and its host socket: `bytes` (real bytes) from
  /// `from` to `to` over the host's DRAM and the PCIe route, on the GPU's queue `queue` (an
  /// in-order stream: "h2d" for copies, "uvm" for zero-copy gathers), never faster than
  /// `bytes` in `solo` (the profile's measured time alone), sharing DRAM and PCIe max-min
  /// with whatever else crosses them (CPU gathers, other GPUs' copies).
  sim::ActivityId host_dma(const SimDevice& gpu, std::string_view queue, topo::DeviceId from, topo::DeviceId to,
                           Bytes bytes, Seconds solo, std::span<const sim::ActivityId> deps, std::uint16_t category);
  sim::ActivityId send_ingress(topo::DeviceId d, Bytes bytes, std::span<const sim::ActivityId> deps, std::uint16_t category);
  /// A transfer on an explicit route of engine resources.
  sim::ActivityId transfer(Bytes bytes, std::span<const sim::ResourceId> route, std::span<const sim::ActivityId> deps,
                           std::uint16_t category);
  /// Bottleneck bandwidth of the route a -> b.
  BytesPerSecond route_bandwidth(topo::DeviceId a, topo::DeviceId b) const;

  /// The time a collective takes to start once its inputs are ready on every simulated member
  /// (software.collectives.launch_delay: a framework's negotiation, e.g. Horovod's background
  /// cycle), as a zero-byte transfer over a resource whose latency is that delay; `ready` as
  /// is when the stack has none.
  std::vector<sim::ActivityId> collective_launch(std::span<const sim::ActivityId> ready, std::uint16_t category);
  /// Hierarchical all-reduce of `bytes` among all trainers; returns per simulated trainer the
  /// marker of its completion.
  std::vector<sim::ActivityId> all_reduce(Bytes bytes, std::span<const sim::ActivityId> ready, std::uint16_t category);

  /// The direction of a flow between an owner and trainers (the all-to-all's two halves).
  enum class Towards { trainers, owner };
  /// The all-to-all between embedding owners of one kind (GPUs for gpu_hbm and uvm shards, CPU
  /// sockets for host_dram, parameter servers for remote_ps) and the trainers: forward, every
  /// owner sends each trainer its share (local batch / global batch) of the pooled embeddings
  /// it produced; backward, the trainers send the pooled gradients back (same bytes).
  /// `owner_ready[o]` gates owner o's sends; `trainer_gate[i]` joins trainer i's arrival.
  /// Returns per simulated trainer its arrival marker (forward), per simulated owner its
  /// arrival marker (backward).
  std::vector<sim::ActivityId> pooled_to_trainers(placement::DeviceKind kind, const std::map<std::uint32_t, sim::ActivityId>& owner_ready,
                                                  std::span<const sim::ActivityId> trainer_gate, std::uint16_t category,
                                                  Bytes OwnerWork::*what = &OwnerWork::pooled_out);
  std::map<std::uint32_t, sim::ActivityId> gradients_to_owners(placement::DeviceKind kind,
                                                               std::span<const sim::ActivityId> trainer_ready,
                                                               std::uint16_t category,
                                                               Bytes OwnerWork::*what = &OwnerWork::pooled_out);

  /// Kernel launches of one embedding pass on a GPU owner: one table-batched kernel, or one
  /// per table shard (software.embeddings.kernel); forward, or backward with the separate
  /// optimiser kernels (one per table shard) when the optimiser is not fused.
  int embedding_kernels(const OwnerWork& w, bool backward) const;

  /// The host-to-device copy of one trainer's input batch (dense features, ids, lengths, labels).
  sim::ActivityId input_copy(const SimDevice& trainer, std::span<const sim::ActivityId> deps);
  /// Bytes of one trainer's input batch.
  Bytes input_bytes(std::int64_t samples) const;

  /// GPU dense costs for the local batch (cached).
  const std::vector<DenseOperatorCost>& dense_costs(const SimDevice& trainer);

  /// The dense layers a chain of kernels covers: the bottom MLP (dense features only, which
  /// can run before the embeddings arrive) or every layer above it (interaction, top MLP).
  enum class DenseLayers { bottom_mlp, above_bottom };
  /// Chains the forward kernels of `layers` on the trainer's stream after `after`; returns the
  /// last one (`after` when there is none).
  sim::ActivityId dense_forward(const SimDevice& trainer, DenseLayers layers, sim::ActivityId after);
  /// Chains the backward kernels of `layers` in reverse layer order after `after`; the kernel
  /// of layer l is written to layer_done[l] (one entry per dense layer). Returns the last.
  sim::ActivityId dense_backward(const SimDevice& trainer, DenseLayers layers, sim::ActivityId after,
                                 std::span<sim::ActivityId> layer_done);

  /// The dense gradients all-reduced in buckets of software.allreduce_bucket, in backward
  /// layer order, then the replicated tables' gradients; each bucket after the previous one
  /// (one NCCL stream) and after the backward of its layers (layer_done[trainer][layer]), or
  /// after the whole backward (last_backward[trainer]) when the stack does not overlap them.
  /// Returns per simulated trainer the completion of the last bucket (empty: nothing to reduce).
  std::vector<sim::ActivityId> reduce_dense_gradients(const std::vector<std::vector<sim::ActivityId>>& layer_done,
                                                      std::span<const sim::ActivityId> last_backward,
                                                      std::uint16_t category);

  /// The dense optimiser of each simulated trainer, one fused kernel after its backward
  /// (last_backward[i]) and its last all-reduce bucket (reduced[i]; empty: none): on a GPU
  /// gpu_dense_optimizer_time, on a CPU socket cpu_dense_optimizer_time. Returns per trainer.
  std::vector<sim::ActivityId> dense_optimizer(std::span<const sim::ActivityId> last_backward,
                                               std::span<const sim::ActivityId> reduced);

  /// One embedding pass of a simulated owner after `deps`, forward (the lookup) or backward
  /// (backward + optimiser update), with the owner's represented work: on a parameter server,
  /// a task on each of its sockets; on a GPU or CPU socket, its kernels with their launch
  /// overheads (the forward feature by feature under per-feature sync), UVM misses crossing
  /// PCIe (forward: the kernel holds its stream until its reads are done; backward: evicted
  /// rows written back after it). Returns the marker of its completion.
  enum class Pass { forward, backward };
  sim::ActivityId embedding_pass(std::uint32_t owner, Pass pass, std::span<const sim::ActivityId> deps);

  /// Simulated owner ids of every owner of `tier` whose device is simulated (with work).
  std::vector<std::uint32_t> simulated_owners(placement::DeviceKind kind) const;
  /// The simulated device an owner maps to.
  SimDevice* owner_device(std::uint32_t owner);

  BuiltSteps& built() { return built_; }

 private:
  void compute_owner_work();
  /// send_egress (egress) or send_ingress: d's NIC segment, split at the core on a fat tree.
  sim::ActivityId send_segment(bool egress, topo::DeviceId d, Bytes bytes, std::span<const sim::ActivityId> deps,
                               std::uint16_t category);
  std::span<const sim::ResourceId> egress_route(topo::DeviceId d);
  /// The HBM of a GPU endpoint of a transfer, which NCCL's kernels read the bytes they send
  /// from and write the bytes they receive to (nullopt: not a GPU, or no HBM bandwidth).
  std::optional<sim::ResourceId> gpu_memory(topo::DeviceId d) const;
  /// The smallest capacity of a route's resources.
  BytesPerSecond narrowest(std::span<const sim::ResourceId> route) const;
  std::span<const sim::ResourceId> ingress_route(topo::DeviceId d);
  topo::DeviceId remote_peer(topo::DeviceId d) const;
  /// The flows between a simulated owner and the simulated trainers in one direction (the
  /// mirrored halves of pooled_to_trainers and gradients_to_owners): to each trainer on the
  /// owner's node, its share (1 / total trainers) of `bytes`; then the owner's off-node part,
  /// as the fidelity emits it (ClusterFidelity::owner_off_node). `ready(members)` gives the
  /// dependencies of a flow for those trainers, `arrived(members, flow)` records it.
  void owner_trainer_flows(const SimDevice& owner, Towards towards, Bytes bytes,
                           const std::function<std::vector<sim::ActivityId>(std::span<const std::size_t>)>& ready,
                           const std::function<void(std::span<const std::size_t>, sim::ActivityId)>& arrived,
                           std::uint16_t category);
  /// Representative mode on a leaf/spine fabric whose leaf uplinks are narrower than its host
  /// links: the fractions of a NIC's inter-node traffic that leave its leaf (the embeddings'
  /// uniform destinations over the other nodes' NICs; the dense all-reduce's ring over the
  /// nodes in order) and a resource per direction standing for the node's share of the leaf's
  /// uplink bandwidth.
  struct CoreShare {
    double remote_fraction = 0.0;
    double ring_remote_fraction = 0.0;
    sim::ResourceId up, down;
  };
  const CoreShare* core_share(topo::DeviceId d);
  /// Bytes trainer node n sends to (up) and receives from (down) other nodes per step for the
  /// embeddings (ids, pooled outputs, their gradients), and the dense all-reduce's bytes each way.
  struct RemoteBytes {
    Bytes up, down, dense;
  };
  RemoteBytes remote_bytes(topo::NodeId n) const;
  /// The host thread of a GPU trainer: a core pool of one core on its node's cores, and the
  /// last host activity (in program order); loader threads likewise.
  struct HostThread {
    std::vector<sim::ResourceId> route;  // {thread, node cores}
    std::optional<sim::ActivityId> last;
    std::vector<std::vector<sim::ResourceId>> loader_routes;
  };
  HostThread& host_thread(const SimDevice& d);
  /// A GPU's in-order queue besides its compute stream, created on first use: on the GPU's
  /// engine (an NCCL stream), or on its copy engine (DMA queues "h2d", "uvm": utilisation
  /// class copy_engine, not counted as the GPU's compute).
  sim::StreamId side_stream(const SimDevice& gpu, std::string_view name, bool copy_engine = false);
  std::map<std::pair<std::uint32_t, std::string>, sim::StreamId> side_streams_;  // (GPU, name) -> stream
  std::map<std::uint32_t, sim::EngineId> copy_engines_;                         // by GPU device index
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
  };
  const NcclView& nccl_view(const SimDevice& gpu);
  std::map<std::uint32_t, NcclView> nccl_views_;
  /// nccl_kernel for each GPU owner of one all-to-all direction in `start` (owner -> when its
  /// part starts): it exchanges its owner bytes w.*what with the other trainers, 1/T each.
  void nccl_all_to_all(placement::DeviceKind kind, Bytes OwnerWork::*what,
                       const std::map<std::uint32_t, sim::ActivityId>& start, std::uint16_t category);
  /// The largest straggler factor of the links of `route` (1 without link stragglers).
  double link_factor(std::span<const sim::ResourceId> route) const;
  sim::ActivityId host_work(HostThread& h, Seconds t);

  const ModelSpec& model_;
  const topo::Platform& platform_;
  const placement::PlacementProblem& problem_;
  const placement::PlacementPlan& plan_;
  const topo::DeviceProfileSet& profiles_;
  TrainingOptions options_;
  sim::ActivityGraph& graph_;
  topo::PlatformResources resources_;
  Categories cat_;
  std::unique_ptr<const ClusterFidelity> fidelity_;  // chosen by select_trainers()

  std::vector<SimDevice> trainers_;
  std::size_t total_trainers_ = 0;
  std::size_t trainers_per_node_ = 0;
  std::size_t trainer_nodes_ = 0;
  std::map<std::uint32_t, SimDevice> devices_;  // by topology device index
  std::map<std::uint32_t, sim::StreamId> embedding_streams_;  // concurrent embedding streams
  std::vector<OwnerWork> owner_work_;          // by problem device index
  std::map<std::uint32_t, std::vector<sim::ResourceId>> egress_, ingress_;
  std::map<std::uint32_t, std::optional<CoreShare>> core_share_;  // by device
  std::map<std::uint64_t, CoreShare> nic_core_share_;               // by (node, leaf)
  std::map<std::string, std::vector<DenseOperatorCost>> dense_cache_;
  std::map<std::uint32_t, HostThread> host_threads_;    // by GPU device index
  std::map<std::uint32_t, sim::ResourceId> node_cores_;  // by node index
  std::optional<sim::ResourceId> launch_delay_;          // collective_launch's resource
  std::vector<sim::ActivityId> prev_copy_, prev_load_;   // step_input's previous step, per trainer
  BuiltSteps built_;
  Bytes dp_gradient_bytes_;
  const Slowdowns* slowdowns_ = nullptr;
  int step_ = 0;
};

}  // namespace dlrmsim::models
