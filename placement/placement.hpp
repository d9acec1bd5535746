// Embedding placement: where each table (or shard of it) lives, how it is sharded, and
// whether the job fits.
//
// API summary
//  - Tier {gpu_hbm, host_dram, uvm, remote_ps, ssd, cxl}, each implemented by a MemoryTier
//    (placement/tier.hpp, placement/tiers/*.cpp: properties, capacity, shard cost); Sharding {table_wise, row_wise, column_wise,
//    table_row_wise, data_parallel}; communication_of(Sharding) lists the collectives
//    (all-to-all, reduce-scatter, all-gather, all-reduce) a sharding implies, per pass.
//  - PlacementProblem = tables (TableDemand) + devices (PlacementDevice: GPUs, CPU sockets,
//    parameter-server nodes with capacities and lookup-cost parameters) + batch; built from
//    the model spec and the platform by make_placement_problem (models/placement_problem.hpp).
//  - PlacementOptions::from_config(scenario["placement"]) reads `policy` and its parameters.
//  - place(problem, options, evaluator) -> PlacementPlan; `evaluator` (optional) predicts the
//    step time of a candidate plan and is used by the `search` policy.
//  - PlacementPlan: per table the shards (tier, sharding, owners, storage, rows/columns, UVM
//    cache rows and hit rate, estimated time); per device memory (weights, optimiser state,
//    cache, activations) against capacity and estimated load.
//  - A plan that does not fit throws InfeasiblePlacement (device, bytes over capacity).
//  - placement_policies() lists every policy with a one-line description.
//  - place_tables(model, platform, options, evaluator, profiles) (models/placement_problem.hpp) is
//    make_placement_problem + place; print_plan / plan_json (app/plan_report.hpp) write it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/config.hpp"
#include "common/enum_names.hpp"
#include "common/parameters.hpp"
#include "common/units.hpp"
#include "topologies/cpu_row_cost.hpp"
#include "topologies/device_profile.hpp"
#include "topologies/gpu_embedding_cost.hpp"
#include "placement/cache_model.hpp"

namespace dlrmsim::placement {

// ---------------------------------------------------------------------------------------
// Tiers and sharding

/// Where a shard's weights live and who reads them.
enum class Tier {
  gpu_hbm,    // the owning GPU's embedding kernel reads its HBM
  host_dram,  // the owning CPU socket looks rows up in its DRAM; pooled results go over PCIe
  uvm,        // the owning GPU reads host DRAM over PCIe (zero copy) through an HBM row cache
  remote_ps,  // remote CPU memory of parameter-server nodes across the network
  ssd,        // the host socket's NVMe drives, read by the owning GPU through an HBM row cache
  cxl,        // the trainer socket's CXL memory expanders, looked up by its cores like host_dram
};
inline constexpr Tier kAllTiers[] = {Tier::gpu_hbm, Tier::host_dram, Tier::uvm, Tier::remote_ps, Tier::ssd, Tier::cxl};
std::string_view to_string(Tier t);
/// The tier registry's tier_of(name).id(): throws std::invalid_argument naming the valid tiers.
Tier tier_from_string(std::string_view name);

/// How a table is split over its owners.
enum class Sharding {
  table_wise,      // the whole table on one owner
  row_wise,        // row ranges over several owners (across nodes, or on a one-node platform)
  column_wise,     // column (embedding dimension) ranges over several owners
  table_row_wise,  // row ranges over owners of one node, on a multi-node platform
  data_parallel,   // a full replica on every GPU trainer
};
inline constexpr Sharding kAllShardings[] = {Sharding::table_wise, Sharding::row_wise, Sharding::column_wise,
                                             Sharding::table_row_wise, Sharding::data_parallel};
inline constexpr auto kShardingNames = enum_names<Sharding>({{Sharding::table_wise, "table_wise"},
                                                             {Sharding::row_wise, "row_wise"},
                                                             {Sharding::column_wise, "column_wise"},
                                                             {Sharding::table_row_wise, "table_row_wise"},
                                                             {Sharding::data_parallel, "data_parallel"}});
inline std::string_view to_string(Sharding s) { return kShardingNames.name(s); }
/// Throws std::invalid_argument naming the valid shardings.
Sharding sharding_from_string(std::string_view name);

enum class Collective { all_to_all, reduce_scatter, all_gather, all_reduce };
inline constexpr auto kCollectiveNames = enum_names<Collective>({{Collective::all_to_all, "all_to_all"},
                                                                 {Collective::reduce_scatter, "reduce_scatter"},
                                                                 {Collective::all_gather, "all_gather"},
                                                                 {Collective::all_reduce, "all_reduce"}});
inline std::string_view to_string(Collective c) { return kCollectiveNames.name(c); }
enum class Pass { forward, backward };
inline constexpr auto kPassNames = enum_names<Pass>({{Pass::forward, "forward"}, {Pass::backward, "backward"}});
inline std::string_view to_string(Pass p) { return kPassNames.name(p); }
/// Which trainers take part in a collective.
enum class CommScope { all_trainers, within_node, across_nodes };
inline constexpr auto kCommScopeNames = enum_names<CommScope>(
    {{CommScope::all_trainers, "all_trainers"}, {CommScope::within_node, "within_node"}, {CommScope::across_nodes, "across_nodes"}});
inline std::string_view to_string(CommScope s) { return kCommScopeNames.name(s); }
/// What a collective carries.
enum class Payload {
  sparse_ids,          // lookup indices sent to the shard owners (input distribution)
  pooled_embeddings,   // pooled rows (or partial sums of them) returned to the sample owners
  pooled_gradients,    // gradients of the pooled embeddings sent back to the shard owners
  weight_gradients,    // gradients of replicated table weights (data parallel)
};
inline constexpr auto kPayloadNames = enum_names<Payload>({{Payload::sparse_ids, "sparse_ids"},
                                                           {Payload::pooled_embeddings, "pooled_embeddings"},
                                                           {Payload::pooled_gradients, "pooled_gradients"},
                                                           {Payload::weight_gradients, "weight_gradients"}});
inline std::string_view to_string(Payload p) { return kPayloadNames.name(p); }

/// One collective a sharding implies in a training step, in execution order.
struct CommunicationStep {
  Pass pass;
  Collective collective;
  CommScope scope;
  Payload payload;
};

/// The collectives between GPU trainers that a sharding implies, following TorchRec's
/// sharded embedding modules (torchrec/distributed/sharding/{tw,rw,cw,twrw,dp}_sharding.py):
/// table-wise and column-wise: ids all-to-all, pooled all-to-all, gradient all-to-all;
/// row-wise: ids all-to-all, pooled partial sums reduce-scatter, gradient all-gather;
/// table-row-wise: ids all-to-all, reduce-scatter within the node then all-to-all across
/// nodes forward, the reverse backward; data-parallel: weight-gradient all-reduce only.
/// Tier-specific traffic (PCIe copies of host_dram results, UVM reads, parameter-server
/// pulls and pushes over the network) comes on top and is the training mode's to model.
std::span<const CommunicationStep> communication_of(Sharding s);

// ---------------------------------------------------------------------------------------
// The problem: tables and devices

/// One embedding table as the placement layer sees it.
struct TableDemand {
  std::string name;                 // "t_3" for instance 3 of a group entry "t"
  std::size_t model_table = 0;      // index of its entry in ModelSpec::tables
  std::int64_t instance = 0;        // which of the entry's `count` identical tables
  std::int64_t rows = 0;
  int dim = 0;
  Bytes element_size{4.0};             // bytes per weight element (dtype)
  double lookups_per_sample = 1.0;     // mean pooling factor
  double outputs_per_sample = 1.0;     // output rows a sample: 1 pooled, or its lookups (a sequence)
  Bytes optimizer_state_per_row{0.0};  // optimiser state bytes per row (all of its elements)
  AccessDistribution access;           // for UVM cache hit rates

  [[nodiscard]] Bytes row_bytes() const { return element_size * static_cast<double>(dim); }
  /// Weights plus optimiser state of `row_count` rows and `columns` columns.
  [[nodiscard]] Bytes footprint(std::int64_t row_count, int columns) const;
  [[nodiscard]] Bytes footprint() const { return footprint(rows, dim); }
};

/// The kind of owner a shard has (a role in the placement, not topo::DeviceKind's hardware kind).
/// nvme and cxl_memory own no shard: they are the storage of the ssd and cxl tiers (a trainer
/// socket's drives, its expanders, each set as one device), there for capacity accounting.
enum class OwnerKind { gpu, cpu_socket, parameter_server, nvme, cxl_memory };
inline constexpr auto kOwnerKindNames = enum_names<OwnerKind>({{OwnerKind::gpu, "gpu"},
                                                               {OwnerKind::cpu_socket, "cpu_socket"},
                                                               {OwnerKind::parameter_server, "parameter_server"},
                                                               {OwnerKind::nvme, "nvme"},
                                                               {OwnerKind::cxl_memory, "cxl_memory"}});
inline std::string_view to_string(OwnerKind k) { return kOwnerKindNames.name(k); }

/// A device that can own shards: memory capacity and the parameters of its lookup cost.
/// Every cost parameter comes from the platform file or the device profile; a GPU with a
/// profile is costed with the profile's calibrated formulas (topologies/device_profile.hpp),
/// one without with the plain fields below (peak bandwidth x the given efficiency).
struct PlacementDevice {
  OwnerKind kind = OwnerKind::gpu;
  std::string name;               // the platform's name, e.g. "trainers0.gpu3"
  /// The platform's id: topo::DeviceId of the GPU or CPU socket, topo::NodeId of a
  /// parameter-server node.
  std::uint32_t topology_id = 0;
  std::uint32_t node = 0;         // topo::NodeId of the node it belongs to
  Bytes memory_capacity;          // HBM (GPU), socket DRAM (CPU socket), node DRAM (server)
  BytesPerSecond memory_bandwidth;  // HBM or DRAM peak
  /// Fraction of memory_bandwidth random row gathers reach (GPU without a profile; CPUs are
  /// costed by cpu_rows instead).
  double gather_efficiency = 1.0;
  /// Smallest read per row: 32 B HBM sector (profile) or the CPU access granule (the
  /// scenario's training.cpu.access_granule, default a 64 B cache line).
  Bytes access_granule{0.0};
  /// CPU socket / parameter server: what bounds its random row accesses (DRAM, its cores'
  /// per-core costs, latency; topologies/cpu_row_cost.hpp), the model the simulation uses.
  topo::CpuRowAccess cpu_rows;
  /// GPU: PCIe bandwidth per direction to its host socket; CPU socket: to its GPUs.
  BytesPerSecond host_link_bandwidth;
  double zero_copy_efficiency = 1.0;  // GPU without a profile: fraction of PCIe UVM gathers reach
  BytesPerSecond network_bandwidth;   // NICs of its node, per direction
  /// GPU without a profile: backward pass plus optimiser update time as a multiple of forward
  /// lookup time. CPU lookups are costed as gather + read-modify-write instead.
  double backward_factor = 1.0;
  /// GPU: index (into PlacementProblem::devices) of its NUMA-local CPU socket, the home of
  /// its UVM tables' weights; -1 if the node has none.
  std::int32_t host_socket = -1;
  /// GPU and CPU socket: index of the NVMe device (OwnerKind::nvme) of its (host) socket, the
  /// home of its ssd shards; -1 when the socket has no drives.
  std::int32_t nvme_device = -1;
  /// CPU socket: index of its CXL memory device (OwnerKind::cxl_memory), the home of its cxl
  /// shards; -1 when it has no expanders.
  std::int32_t cxl_device = -1;
  /// OwnerKind::nvme: the drives (one drive's figures and their count).
  std::optional<topo::NvmeSpec> nvme;
  /// OwnerKind::cxl_memory: the expanders.
  std::optional<topo::CxlMemorySpec> cxl;
  /// GPU: its calibrated profile (null: use the plain fields).
  std::shared_ptr<const topo::DeviceProfile> profile;
};

struct PlacementProblem {
  std::vector<TableDemand> tables;
  std::vector<PlacementDevice> devices;
  std::int64_t global_batch = 0;  // samples per training step over all trainers
  /// Fraction of the global batch trained on other nodes than a given owner's (1 - 1 / the
  /// trainer nodes): the share of a model-parallel shard's pooled outputs, pooled gradients
  /// and ids that crosses its node's NIC. 0 on one node.
  double off_node_fraction = 0.0;
  /// Bytes per pooled-embedding element in the model's communication precision: what the
  /// lookup kernels write and, for owners other than GPUs, what the wire carries.
  Bytes wire_element_size{4.0};
  /// Bytes per pooled value (and per gradient value) on the wire when a GPU owns the shard:
  /// the stack's quantised-communication codecs (models/quantized_comms.hpp), else
  /// wire_element_size.
  Bytes gpu_wire_forward{4.0};
  Bytes gpu_wire_backward{4.0};
  Bytes activations_per_gpu{0.0};  // activation memory each GPU trainer needs (dense + pooled)
  Bytes dense_weights_per_gpu{0.0};          // the data-parallel dense replica (fp32 master)
  Bytes dense_optimizer_state_per_gpu{0.0};  // and its optimiser state
  /// The trainers' GPU embedding kernels (deduplicated backward, fused optimiser) and the
  /// embedding optimiser, as the one GPU embedding cost model reads them
  /// (topologies/gpu_embedding_cost.hpp; the simulation passes the same).
  topo::GpuEmbeddingSoftware gpu_embedding;
  /// Whether the trainers' framework applies the sparse updates of tables in host memory
  /// under striped locks (software.embeddings.host_update: striped_locks; lookup_cost.hpp).
  bool striped_host_updates = false;
  /// Whether the next batch's ssd reads are prefetched while the current step runs
  /// (software.embeddings.prefetch: next_batch; topologies/nvme_cost.hpp).
  bool ssd_prefetch = false;
  /// Assumptions made while building the problem (e.g. a GPU without a profile).
  std::vector<std::string> notes;

  [[nodiscard]] std::vector<std::uint32_t> devices_of(OwnerKind k) const;
  [[nodiscard]] std::uint32_t gpu_count() const;
  [[nodiscard]] std::uint32_t trainer_node_count() const;
};

// ---------------------------------------------------------------------------------------
// The plan

struct Shard {
  Tier tier = Tier::gpu_hbm;
  /// Devices (indices into PlacementProblem::devices / PlacementPlan::devices) that run this
  /// shard's lookups: one for most shardings, every GPU trainer for a data-parallel replica.
  std::vector<std::uint32_t> owners;
  /// Devices whose memory holds the weights and optimiser state: the owners, except for uvm
  /// where it is the owner GPU's host CPU socket.
  std::vector<std::uint32_t> storage;
  std::int64_t row_begin = 0;  // rows [row_begin, row_end)
  std::int64_t row_end = 0;
  int column_begin = 0;  // columns [column_begin, column_end)
  int column_end = 0;
  std::int64_t cache_rows = 0;   // uvm: rows of the HBM cache on the owner GPU
  Bytes cache_size{0.0};         // uvm: cache_rows x row bytes of this shard
  double expected_hit_rate = 0;  // uvm: expected fraction of lookups served by the cache
  Seconds estimated_time{0.0};   // estimated lookup time per step (forward + backward) per owner

  [[nodiscard]] std::int64_t row_count() const { return row_end - row_begin; }
  [[nodiscard]] int column_count() const { return column_end - column_begin; }
};

struct TablePlacement {
  std::size_t table = 0;  // index into PlacementProblem::tables
  std::string name;
  Tier tier = Tier::gpu_hbm;
  Sharding sharding = Sharding::table_wise;
  std::vector<Shard> shards;
  /// The table's table_distinct_fraction (lookup_cost.hpp) under the problem it was placed
  /// for, once computed (by the policy or by account()): the simulation's step builder reads
  /// it instead of computing it again (an expected-distinct-rows sum over the Zipf curve).
  std::optional<double> distinct_fraction;
};

struct DeviceUsage {
  OwnerKind kind = OwnerKind::gpu;
  std::string name;
  std::uint32_t topology_id = 0;
  std::uint32_t node = 0;
  Bytes capacity{0.0};
  Bytes weights{0.0};
  Bytes optimizer_state{0.0};
  Bytes cache{0.0};
  Bytes activations{0.0};
  Seconds estimated_load{0.0};  // sum of estimated_time of the shards it owns, per step

  [[nodiscard]] Bytes used() const { return weights + optimizer_state + cache + activations; }
  [[nodiscard]] Bytes free() const { return capacity - used(); }
};

struct PlacementPlan {
  std::string policy;
  CacheModel cache_model = CacheModel::lru;
  std::vector<TablePlacement> tables;  // in the order of PlacementProblem::tables
  std::vector<DeviceUsage> devices;    // in the order of PlacementProblem::devices
  /// The evaluator's step time for this plan (search policy), if it was evaluated.
  std::optional<Seconds> predicted_step_time;
  std::size_t evaluations = 0;  // candidate plans the search policy evaluated
  std::vector<std::string> notes;  // assumptions of the problem and of the policy

  /// The largest estimated per-device load: the placement layer's own step-time estimate.
  [[nodiscard]] Seconds max_estimated_load() const;
};

/// A plan that does not fit: names the most overflowing device and by how much.
class InfeasiblePlacement : public std::runtime_error {
 public:
  InfeasiblePlacement(const std::string& message, std::string device, Bytes overflow);
  [[nodiscard]] const std::string& device() const { return device_; }
  /// Bytes beyond the device's capacity (0 when the job fails for another reason).
  [[nodiscard]] Bytes overflow() const { return overflow_; }

 private:
  std::string device_;
  Bytes overflow_;
};

// ---------------------------------------------------------------------------------------
// Options and policies

struct PlacementOptions {
  std::string policy = "cost_greedy";
  CacheModel cache_model = CacheModel::lru;
  /// UVM cache size as a fraction of each table's rows. Default 0.2: TorchRec's planner
  /// default UVM caching ratio (torchrec/distributed/planner/constants.py).
  double uvm_cache_fraction = 0.2;
  /// The ssd tier's HBM cache as a fraction of each table's rows (FBGEMM's SSD TBE always has
  /// one: it asserts cache_sets > 0). Default: uvm_cache_fraction's.
  double ssd_cache_fraction = 0.2;
  /// The HBM cache fraction of a tier with an HBM cache (uvm, ssd); 0 for the others.
  [[nodiscard]] double cache_fraction(Tier tier) const;
  /// Fraction of every device's memory kept free (allocator slack, framework buffers).
  double memory_reserve_fraction = 0.0;
  /// Tiers size_greedy, cost_greedy and search may use (default: every tier the platform has).
  std::vector<Tier> tiers;
  /// search: enumerate every candidate when there are at most this many, else local search.
  std::size_t search_exhaustive_limit = 20000;
  /// search: most evaluator calls in local search (each is a simulation when `dlrmsim run`
  /// evaluates; 200 keeps a search of a one-node scenario to seconds).
  std::size_t search_max_evaluations = 200;
  /// memory_balanced: a table of more elements (rows x columns) than this is cut into column
  /// slices (distributed-embeddings' column_slice_threshold). Absent: slices are cut only
  /// while there are fewer slices than GPUs, the library's behaviour without a threshold.
  std::optional<double> column_slice_elements;
  /// memory_balanced: embedding weights each GPU keeps; the largest of its tables beyond this
  /// go to its host socket's DRAM, looked up by the CPU (distributed-embeddings'
  /// gpu_embedding_size). Absent: everything stays in GPU memory.
  std::optional<Bytes> gpu_embedding_memory;
  /// cost_greedy: a table whose weights are smaller than this is replicated on every GPU
  /// trainer (data parallel: no all-to-all, its gradient joins the dense all-reduce), as
  /// HugeCTR's MLPerf DLRM-DCNv2 planner does for tables under DP_SHARDING_THRESHOLD. Absent:
  /// no table is replicated by size.
  std::optional<Bytes> data_parallel_below;
  /// hugectr_auto: HugeCTR's MEM_COMM_BW_RATIO (the planner's per-table cost is this over
  /// train.py's mem_comm_work_ratio, 4; placement/hugectr_planner.hpp). Default: train.py's
  /// 3.35e12 / 450e9.
  double hugectr_mem_comm_bw_ratio = 3.35e12 / 450e9;
  /// explicit: the plan (placement.plan: a file's document, or the inline mapping), with its
  /// `tables` list; placement/explicit_policy.cpp reads it against the problem.
  std::optional<ConfigNode> explicit_plan;
  /// explicit: the plan file read (empty for an inline plan): an input no output may replace.
  std::string explicit_plan_file;

  /// Reads the scenario's `placement:` mapping (calls finish() on it).
  static PlacementOptions from_config(const ConfigNode& placement);
};

/// Predicts the step time of a candidate plan (the models layer passes a simulation).
using StepTimeEvaluator = std::function<Seconds(const PlacementPlan&)>;

/// Policies (placement/policies.cpp, placement/search_policy.cpp):
///  - all_gpu, all_host, all_uvm, all_remote: every table on one tier, spread over its
///    devices costliest first onto the least-loaded device (LPT); a table too big for one
///    device is split into equal row ranges over the fewest devices that hold it.
///  - size_greedy: everything on the fastest tier; the largest tables move to the slowest
///    tier with room until the rest fits.
///  - cost_greedy: tiers fastest first; each admits the tables with the largest estimated
///    gain per byte until full; LPT balance of estimated cost inside each tier, hot tables
///    split by columns. O(T log T + T log G).
///  - memory_balanced: Merlin Distributed Embeddings' strategy of that name (the placement
///    of NVIDIA's TensorFlow 2 DLRM/DCNv2): large tables cut into column slices, slices
///    dealt to the GPUs largest first in a snake, so every GPU gets as many slices and about
///    as much memory; lookup cost is not considered. Optionally each GPU's largest tables
///    beyond a memory budget go to its host socket's DRAM (CPU offload).
///  - explicit: the plan given table by table (placement.plan; `dlrmsim place --json`'s
///    tables read back), checked against the model and platform (explicit_policy.cpp).
///  - search: evaluates candidate plans with the evaluator (exhaustive for small cases, else
///    local search from the other policies' best plan).
/// Tiers are ranked by the estimated cost of the tables on them (lookup_cost.hpp), from the
/// platform and profile figures, never by a fixed order.
struct PolicyInfo {
  std::string_view name;
  std::string_view description;
  PlacementPlan (*plan)(const PlacementProblem&, const PlacementOptions&, const StepTimeEvaluator&);
  /// Whether it places what placement.plan says (explicit) rather than planning: it needs a
  /// plan, and search starts from it only when one is given.
  bool needs_plan = false;
};
/// Every placement policy, in a fixed order.
std::span<const PolicyInfo> placement_policies();
/// The policy called `name`; throws std::invalid_argument naming the known ones otherwise.
const PolicyInfo& placement_policy(std::string_view name);

/// Plans with options.policy, fills memory and load accounting, and checks capacity:
/// throws InfeasiblePlacement if any device overflows.
PlacementPlan place(const PlacementProblem& problem, const PlacementOptions& options,
                    const StepTimeEvaluator& evaluator = {});

/// Recomputes every shard's cache and estimated time and every device's memory and load.
void account(const PlacementProblem& problem, const PlacementOptions& options, PlacementPlan& plan);
/// Shrinks the UVM caches of GPUs that are over their usable memory (proportionally, to
/// what is left after everything else on the GPU) and re-accounts: a cache is sized to the
/// HBM there is, as FBGEMM's UVM caching is configured in practice. place() calls it.
void fit_uvm_caches(const PlacementProblem& problem, const PlacementOptions& options, PlacementPlan& plan);
/// The device with the largest overflow, if any (after account()).
std::optional<std::uint32_t> most_overflowing_device(const PlacementPlan& plan);
/// Throws InfeasiblePlacement if a device is over its usable capacity.
void check_capacity(const PlacementPlan& plan, const PlacementOptions& options);

/// The declarations of the scenario's `placement:` keys (typed parameters in placement/placement.cpp).
std::span<const Parameter> placement_parameters();

}  // namespace dlrmsim::placement
