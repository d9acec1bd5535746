#include "models/training_options.hpp"

#include "common/param.hpp"
#include "models/scenario_parameters.hpp"
#include "models/training_mode.hpp"

namespace dlrmsim::models {

namespace {

// The `training:` keys read below (training_parameter_rows() lists them); defaults are
// TrainingOptions' member initialisers.
using NodeFidelity = TrainingOptions::NodeFidelity;
using CommunicationFidelity = TrainingOptions::CommunicationFidelity;
using EmbeddingOverlap = TrainingOptions::EmbeddingOverlap;
const TrainingOptions kDefaults;

const Param<std::string> kMode{.key_path = "training.mode", .range = {.note = "a training mode of `dlrmsim list`"},
                               .meaning = "The training mode."};
const Choice<NodeFidelity> kNodes{
    .key_path = "training.nodes",
    .words = {{"auto", NodeFidelity::automatic}, {"representative", NodeFidelity::representative}, {"all", NodeFidelity::all}},
    .fallback = kDefaults.nodes,
    .meaning = "Every node simulated, or one trainer node standing for all (symmetric clusters); auto: every node when "
               "its estimated wall time is within training.every_node_budget, else the representative node where its "
               "measured error against every node is under 5 %."};
const Param<Seconds> kEveryNodeBudget{
    .key_path = "training.every_node_budget", .unit = "s (\"60 s\")", .fallback = kDefaults.every_node_budget,
    .range = {.min = Bound<Seconds>{Seconds{0.0}}},
    .meaning = "auto: the estimated wall time up to which every node is simulated (0.45 ms per trainer and step, "
               "measured on DLRM-DCNv2)."};
const Param<int> kGpusPerNode{
    .key_path = "training.gpus_per_node", .unit = "count", .absent = "every GPU of each trainer node",
    .range = {.min = Bound<int>{0, false}, .note = ", at most the GPUs of a trainer node"},
    .meaning = "GPUs of each trainer node the job uses: the first N in the node template's order, with the CPU sockets "
               "hosting them (1 or 4 GPUs of a DGX, the first N/4 trays of a GB200 NVL72 rack); the rest stay idle."};
const Param<int> kContextParallel{
    .key_path = "training.context_parallel", .unit = "GPUs", .fallback = kDefaults.context_parallel,
    .default_note = "none", .range = {.min = Bound<int>{0, false}, .note = ", dividing the GPUs a node gives the job"},
    .meaning = "Context (sequence) parallelism of a sequence model (interaction kind hstu): GPUs of one node (one NVLink "
               "or Infinity Fabric domain) that share each sample's sequence, all-gathering the HSTU attention's keys "
               "and values (Transformer Engine's all-gather scheme); lets a batch smaller than the GPUs, or a sequence "
               "too long for one GPU, be trained."};
const Param<int> kShardingGroup{
    .key_path = "training.sharding_group", .unit = "GPUs", .absent = "every trainer GPU (flat model parallelism)",
    .range = {.min = Bound<int>{0, false}, .note = ", a multiple of a trainer node's GPUs dividing the trainer GPUs"},
    .meaning = "2D sparse parallelism (TorchRec DMPCollection): tables sharded within each group of this many trainer "
               "GPUs (whole consecutive nodes), every group a replica training its share of the batch, the all-to-all "
               "within the group, the replicas' embedding weights and optimiser state all-reduced every "
               "training.sharding_sync_every steps."};
const Param<int> kShardingSyncEvery{
    .key_path = "training.sharding_sync_every", .unit = "steps", .fallback = kDefaults.sharding_sync_every,
    .default_note = "TorchRec's dmp_collection_sync_interval_batches", .range = {.min = Bound<int>{0, false}},
    .meaning = "2D sparse parallelism: steps between two all-reduces of the replicas' embedding weights and optimiser "
               "state (refused without training.sharding_group)."};
const Choice<CommunicationFidelity> kCommunication{
    .key_path = "training.communication",
    .words = {{"aggregated", CommunicationFidelity::aggregated}, {"per_pair", CommunicationFidelity::per_pair}},
    .fallback = kDefaults.communication,
    .meaning = "One flow per destination node, or one per pair of endpoints."};
const Choice<EmbeddingOverlap> kEmbeddingOverlap{
    .key_path = "training.embedding_overlap",
    .words = {{"serial", EmbeddingOverlap::serial}, {"concurrent", EmbeddingOverlap::concurrent}},
    .fallback = kDefaults.embedding_overlap,
    .meaning = "Embedding kernels on the GPU's one compute stream (pessimistic), or on a stream of their own (optimistic)."};
const Param<int> kStaleness{.key_path = "training.staleness", .unit = "steps", .fallback = kDefaults.staleness,
                            .default_note = "Persia's bounded staleness, smallest bound", .range = {.min = Bound<int>{0}},
                            .meaning = "persia_hybrid: steps the embedding pipeline may run ahead of the applied updates."};
const Param<int> kAveragingPeriod{
    .key_path = "training.averaging_period", .unit = "steps", .absent = "required by persia_async",
    .range = {.min = Bound<int>{0, false}},
    .meaning = "persia_async: steps between two averages of the dense parameters (refused under other modes)."};
const Param<double> kDenseEfficiency{
    .key_path = "training.cpu.dense_efficiency", .unit = "fraction of peak",
    .absent = "the sockets' CPU profile; else required by CPU trainers",
    .range = {.min = Bound<double>{0.0, false}, .max = Bound<double>{1.0, true, "a fraction of peak must be at most 1"},
              .interval = true},
    .meaning = "Dense layers on CPUs: one fraction of peak FLOP/s, replacing the efficiencies of the platform's CPU profile."};
const Param<Bytes> kAccessGranule{.key_path = "training.cpu.access_granule", .unit = "bytes",
                                  .fallback = kDefaults.cpu_access_granule, .default_note = "x86 cache line",
                                  .range = {.min = Bound<Bytes>{Bytes{0.0}, false}}, .meaning = "Granule of CPU row reads."};

// The keys of each role's pods (training.pods.ROLE).
constexpr std::string_view kPodCount = "Pods, spread evenly over the role's nodes.";
constexpr std::string_view kPodCpus = "Logical CPUs of one pod.";
constexpr Range<int> kPodCountRange{.min = Bound<int>{0, false}, .note = ", a multiple of the role's nodes"};
const Param<int> kServerPodCount{.key_path = "training.pods.parameter_server.count", .unit = "count",
                                 .range = kPodCountRange, .meaning = kPodCount};
const Param<int> kServerPodCpus{.key_path = "training.pods.parameter_server.cpus", .unit = "count",
                                .range = {.min = Bound<int>{0, false}}, .meaning = kPodCpus};
const Param<Bytes> kServerPodMemory{.key_path = "training.pods.parameter_server.memory", .unit = "bytes",
                                    .fallback = Bytes(0.0), .default_note = "no limit of its own",
                                    .range = {.min = Bound<Bytes>{Bytes{0.0}}},
                                    .meaning = "Memory of one pod: the tables a node may hold."};
const Param<int> kWorkerPodCount{.key_path = "training.pods.embedding_worker.count", .unit = "count",
                                 .range = kPodCountRange, .meaning = kPodCount};
const Param<int> kWorkerPodCpus{.key_path = "training.pods.embedding_worker.cpus", .unit = "count",
                                .range = {.min = Bound<int>{0, false}}, .meaning = kPodCpus};

/// The keys of one role's pods; `memory` for a role that holds tables, else null.
struct PodKeys {
  const Param<int>& count;
  const Param<int>& cpus;
  const Param<Bytes>* memory;
};
const PodKeys kServerPods{kServerPodCount, kServerPodCpus, &kServerPodMemory};
const PodKeys kWorkerPods{kWorkerPodCount, kWorkerPodCpus, nullptr};

const Param<std::string> kTrainerRole{.key_path = "training.roles.trainer", .fallback = kDefaults.trainer_role,
                                      .range = {.note = "a group role or name"}, .meaning = "Trainers' group."};
const Param<std::string> kServerRole{.key_path = "training.roles.parameter_server",
                                     .fallback = kDefaults.parameter_server_role,
                                     .range = {.note = "a group role or name"}, .meaning = "Parameter servers' group."};
const Param<std::string> kWorkerRole{.key_path = "training.roles.embedding_worker",
                                     .fallback = kDefaults.embedding_worker_role,
                                     .range = {.note = "a group role or name"}, .meaning = "Embedding workers' group."};

/// Reads one role's pods.
RolePods read_pods(const ConfigNode& r, const PodKeys& keys) {
  if (!r.is_map()) r.fail("expected a mapping: {count: 120, cpus: 80}");
  RolePods p;
  p.count = keys.count.read(r);
  p.count_where = r.child(keys.count.key()).where();
  p.cpus = keys.cpus.read(r);
  // Memory limits what a parameter server holds; an embedding worker holds no tables.
  if (keys.memory) p.memory = keys.memory->read(r);
  r.finish();
  return p;
}

}  // namespace

std::vector<ParameterRow> training_parameter_rows() {
  return {
      Parameter{"training", "", "required", "a mapping", "How the model is trained."},
      kMode.row(),
      kNodes.row(),
      kEveryNodeBudget.row(),
      kGpusPerNode.row(),
      kContextParallel.row(),
      kShardingGroup.row(),
      kShardingSyncEvery.row(),
      kCommunication.row(),
      kEmbeddingOverlap.row(),
      kStaleness.row(),
      kAveragingPeriod.row(),
      Parameter{"training.cpu", "", "none", "{dense_efficiency, access_granule}",
                "CPU settings: dense layers on CPU trainers, row reads from DRAM."},
      kDenseEfficiency.row(),
      kAccessGranule.row(),
      Parameter{"training.pods", "", "none (whole nodes)", "{parameter_server, embedding_worker}",
                "Pods a role runs, as a Kubernetes deployment gives them: CPU rates scale with the share of the node they use."},
      Parameter{"training.pods.parameter_server", "", "none", "{count, cpus, memory}", "The parameter servers' pods."},
      kServerPodCount.row(),
      kServerPodCpus.row(),
      kServerPodMemory.row(),
      Parameter{"training.pods.embedding_worker", "", "none", "{count, cpus}", "The embedding workers' pods."},
      kWorkerPodCount.row(),
      kWorkerPodCpus.row(),
      Parameter{"training.roles", "", "groups named by their role", "{trainer, parameter_server, embedding_worker}",
                "Names of the platform groups playing each role."},
      kTrainerRole.row(),
      kServerRole.row(),
      kWorkerRole.row(),
  };
}

TrainingOptions TrainingOptions::from_config(const ConfigNode& node) {
  TrainingOptions o;
  if (!node.is_map()) node.fail("expected a mapping with mode: ...");
  o.mode = kMode.read(node);
  o.nodes = kNodes.read(node);
  o.every_node_budget = kEveryNodeBudget.read(node);
  o.gpus_per_node = kGpusPerNode.read_optional(node);
  if (o.gpus_per_node) o.gpus_per_node_where = node.child(kGpusPerNode.key()).where();
  o.context_parallel = kContextParallel.read(node);
  if (node.has(kContextParallel.key())) o.context_parallel_where = node.child(kContextParallel.key()).where();
  o.communication = kCommunication.read(node);
  o.sharding_group = kShardingGroup.read_optional(node);
  if (o.sharding_group) o.sharding_group_where = node.child(kShardingGroup.key()).where();
  o.sharding_sync_every = kShardingSyncEvery.read(node);
  if (node.has(kShardingSyncEvery.key()) && !o.sharding_group) {
    node.child(kShardingSyncEvery.key()).fail("applies only with training.sharding_group (2D sparse parallelism)");
  }
  o.staleness = kStaleness.read(node);
  o.averaging_period = kAveragingPeriod.read_optional(node);
  if (o.averaging_period) {
    // Only a mode that averages dense parameters reads it; anywhere else it would be ignored.
    if (const auto* mode = find_training_mode(o.mode); mode && !mode->reads_averaging_period) {
      std::string readers;
      for (const auto& m : training_modes()) {
        if (m.reads_averaging_period) readers += (readers.empty() ? "" : ", ") + std::string(m.name);
      }
      node.child(kAveragingPeriod.key()).fail("applies only to training.mode " + readers + " (this scenario's mode is " + o.mode + ")");
    }
  }
  o.embedding_overlap = kEmbeddingOverlap.read(node);
  if (auto cpu = node.optional_child("cpu")) {
    if (!cpu->is_map()) cpu->fail("expected a mapping: {dense_efficiency: 0.4}");
    // dense_efficiency matters only where CPU sockets run dense layers (dense_costs asks for
    // it there); access_granule alone is a complete setting for GPU trainers.
    o.cpu_dense_efficiency = kDenseEfficiency.read_optional(*cpu);
    o.cpu_access_granule = kAccessGranule.read(*cpu);
    cpu->finish();
  }
  if (auto pods = node.optional_child("pods")) {
    if (!pods->is_map()) pods->fail("expected a mapping: {parameter_server: {count, cpus, memory}, embedding_worker: ...}");
    if (auto r = pods->optional_child("parameter_server")) o.server_pods = read_pods(*r, kServerPods);
    if (auto r = pods->optional_child("embedding_worker")) o.worker_pods = read_pods(*r, kWorkerPods);
    pods->finish();
  }
  if (auto roles = node.optional_child("roles")) {
    if (!roles->is_map()) roles->fail("expected a mapping of roles to group roles");
    o.trainer_role = kTrainerRole.read(*roles);
    o.parameter_server_role = kServerRole.read(*roles);
    o.embedding_worker_role = kWorkerRole.read(*roles);
    roles->finish();
  }
  node.finish();
  return o;
}

}  // namespace dlrmsim::models
