// The step context: what every piece of the step builder (step_builder.hpp) shares.
//
// One value instead of long argument lists: the step's inputs (model, platform, placement
// problem and plan, device profiles, training options), the activity graph and the platform's
// engine resources, the categories, the simulated devices and trainers, the cluster fidelity
// (models/fidelity.hpp), every owner's embedding work (models/owner_work.hpp), the straggler
// slowdowns and what has been built. It also emits the two activities everything else is
// made of: work on a device's stream (compute) and markers.
//
// Shared GPU resources. A compute-bound GPU kernel (GEMMs, interaction, dense optimiser) is a
// flow over the GPU's SM pool at the rate of all its SMs, so kernels of two streams split the
// SMs; a memory-bound one (the embedding passes, with their real HBM bytes: rows read, bags
// written, rows and optimiser state read and written back) is a flow over the GPU's HBM at the
// rate it reaches alone, so concurrent gathers split the bandwidth. A GEMM loads the SMs and
// HBM (its operands' traffic), a memory-bound kernel HBM alone (KernelLoad). Not modelled:
// what share of the SMs a memory-bound kernel keeps from a concurrent GEMM (a gather takes none).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/units.hpp"
#include "models/categories.hpp"
#include "models/model_spec.hpp"
#include "models/owner_work.hpp"
#include "models/step_inputs.hpp"
#include "models/stragglers.hpp"
#include "models/training_options.hpp"
#include "placement/placement.hpp"
#include "sim/activity_graph.hpp"
#include "topologies/device_profile.hpp"
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
  const topo::DeviceProfile* profile = nullptr;    // GPUs
  const topo::CpuSocketSpec* cpu = nullptr;        // CPU sockets
  int local_index = 0;                             // position among its kind in its node
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

/// The nodes of a role group (empty if there is none): groups whose `role` or name is `role`.
std::vector<topo::NodeId> nodes_with_role(const topo::Platform& platform, const std::string& role);
/// Whether any shard of the plan lives in `tier`.
bool plan_uses(const placement::PlacementPlan& plan, placement::Tier tier);

class StepContext {
 public:
  /// `resources` must come from topo::export_platform(in.platform, graph).
  StepContext(const StepInputs& in, sim::ActivityGraph& graph, topo::PlatformResources resources);
  ~StepContext();
  StepContext(const StepContext&) = delete;
  StepContext& operator=(const StepContext&) = delete;

  const StepInputs in;
  sim::ActivityGraph& graph;
  const topo::PlatformResources resources;
  const Categories cat;
  BuiltSteps built;

  // --- what is simulated -----------------------------------------------------------------
  /// Trainer devices: GPUs of the placement problem (or its CPU sockets when `cpu_trainers`);
  /// computes every owner's work and chooses the cluster fidelity, which is given the
  /// narrowest capacity of a device's route off its node out (`egress`) and in (`ingress`),
  /// and the number of steps to be built (what simulating every node is estimated from).
  void select_trainers(bool cpu_trainers, std::function<BytesPerSecond(topo::DeviceId)> egress,
                       std::function<BytesPerSecond(topo::DeviceId)> ingress, int steps);
  /// The simulated trainers (the representative node's, or all), after select_trainers(): node by
  /// node in node order, each node's in its device order (EveryNode::owner_off_node relies on it).
  const std::vector<SimDevice>& trainers() const { return trainers_; }
  std::size_t total_trainers() const { return total_trainers_; }
  std::size_t trainers_per_node() const { return trainers_per_node_; }
  std::size_t trainer_node_count() const { return trainer_nodes_; }
  /// Trainers of one embedding all-to-all: the sharding group's GPUs under 2D sparse
  /// parallelism (training.sharding_group, models/sharding_groups.hpp), else every trainer.
  std::size_t all_to_all_trainers() const;
  /// Trainer nodes of one embedding all-to-all (a sharding group's, else all).
  std::size_t all_to_all_nodes() const;
  /// Local batch of one trainer.
  std::int64_t local_batch() const;
  /// The cluster fidelity select_trainers() chose (std::logic_error before it).
  const ClusterFidelity& fidelity() const;
  /// Whether one trainer node stands for all (false before select_trainers()).
  bool representative() const;

  /// Embedding work of every owner of the plan (select_trainers() computes it).
  const OwnerWorkTable& owner_work() const { return owner_work_; }
  /// The work a simulated owner carries (its own, or the largest of those it represents).
  const OwnerWork& represented_work(std::uint32_t owner) const;
  /// Simulated owner ids of every owner of `kind` whose device is simulated (with work).
  std::vector<std::uint32_t> simulated_owners(placement::OwnerKind kind) const;
  /// The simulated device an owner maps to (a parameter server: its first socket).
  SimDevice* owner_device(std::uint32_t owner);
  /// The simulated device of a trainer-side owner (GPU or CPU socket) or of a server socket
  /// (created on first use, with its compute stream).
  SimDevice& sim_device(topo::DeviceId d);
  /// CPU sockets of `node` as simulated devices (created on first use).
  std::vector<SimDevice*> sockets_of(topo::NodeId node);

  // --- activities --------------------------------------------------------------------------
  /// Work of `t` alone on d's stream (times its straggler factor): on a GPU a kernel over what
  /// `load` names, each at the rate that takes t alone (HBM at hbm / t; the SMs, with an SM pool
  /// (topologies/engine_export.hpp), at all of them), sharing each resource max-min with the
  /// GPU's other streams, copies and NCCL's kernels and ending when its most slowed part has
  /// (sim::ActivityGraph::add_kernel with parts). Elsewhere, or on a GPU without an SM pool for
  /// a kernel that needs one, a task of fixed duration.
  sim::ActivityId compute(const SimDevice& d, Seconds t, std::span<const sim::ActivityId> deps, std::uint16_t category,
                          KernelLoad load = {});
  sim::ActivityId marker(std::span<const sim::ActivityId> deps);

  /// Straggler slowdowns (models/stragglers.hpp): every compute task of a device in step s
  /// takes its factor times its cost (the fidelity's device_slowdown: representative mode
  /// takes the largest factor of the devices it stands for). None by default; the object must
  /// outlive the building.
  void set_slowdowns(const Slowdowns* slowdowns) { slowdowns_ = slowdowns; }
  const Slowdowns* slowdowns() const { return slowdowns_; }
  /// The step being built (0 = the first warm-up step); modes call begin_step at each step's
  /// start, before adding the step's activities (it records the step's first activity id).
  void begin_step(int step);
  int step() const { return step_; }

 private:
  std::unique_ptr<const ClusterFidelity> fidelity_;  // chosen by select_trainers()
  std::vector<SimDevice> trainers_;
  std::size_t total_trainers_ = 0;
  std::size_t trainers_per_node_ = 0;
  std::size_t trainer_nodes_ = 0;
  std::map<std::uint32_t, SimDevice> devices_;  // by topology device index
  OwnerWorkTable owner_work_;
  const Slowdowns* slowdowns_ = nullptr;
  int step_ = 0;
};

}  // namespace dlrmsim::models
