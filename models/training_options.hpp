// The options of a scenario's `training:` section (besides the mode's own steps): cluster
// and communication fidelity, the embedding streams, the Persia modes' staleness and averaging
// period, CPU dense efficiency and row granule, role names and pods, and the software stack.
// The training mode (models/training_mode.hpp) states which of the mode-specific keys it reads.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "common/config.hpp"
#include "common/units.hpp"
#include "models/placement_problem.hpp"
#include "models/software_stack.hpp"
#include "placement/placement.hpp"
#include "topologies/cpu_row_cost.hpp"

namespace dlrmsim::models {

/// Options of the `training:` section of a scenario (besides `mode`).
struct TrainingOptions {
  std::string mode = "hybrid_parallel_sync";
  /// representative: one trainer node stands for all (symmetric clusters); all: every node;
  /// automatic (`auto`, the default): every node where simulating them all is estimated to
  /// take at most every_node_budget, else the representative node where its measured error
  /// is under 5 % (models/fidelity.hpp, ClusterFidelity::choose).
  enum class NodeFidelity { automatic, representative, all } nodes = NodeFidelity::automatic;
  /// `training.every_node_budget`: the estimated wall time up to which `auto` simulates every
  /// node (estimated_every_node_seconds, models/fidelity.hpp).
  Seconds every_node_budget{60.0};
  /// aggregated: one flow per destination node; per_pair: one flow per pair of endpoints.
  enum class CommunicationFidelity { aggregated, per_pair } communication = CommunicationFidelity::aggregated;
  /// Embedding kernels of a GPU: `serial` on the GPU's one compute stream with the dense
  /// kernels, or `concurrent` on a stream of their own (HugeCTR's and TorchRec's pipelining):
  /// both streams' kernels then split the GPU's SMs (a GPU whose platform gives no sm_count
  /// runs them side by side unshared, the optimistic bound). Default serial.
  enum class EmbeddingOverlap { serial, concurrent } embedding_overlap = EmbeddingOverlap::serial;
  /// persia_hybrid: how many steps the embedding pipeline may run ahead of the applied
  /// updates (0 = synchronous). Default 1 (assumption: one step of prefetch, Persia's
  /// "bounded staleness" with the smallest bound).
  int staleness = 1;
  /// persia_async: steps between two averages of the dense parameters over the trainers
  /// (required by that mode; no default: it is the experiment's main setting).
  std::optional<int> averaging_period;
  /// Dense layers on CPU sockets: fraction of peak FLOP/s reached (no CPU profile exists;
  /// required when a mode runs dense layers on CPUs).
  std::optional<double> cpu_dense_efficiency;
  /// Granule of CPU row reads (topologies/cpu_row_cost.hpp), for the planner and the
  /// simulation alike.
  Bytes cpu_access_granule = topo::kCpuCacheLine;
  /// GPUs of each trainer node the job uses (`training.gpus_per_node`): the first N GPUs in the
  /// node template's order, with the CPU sockets that host them (1 GPU of a DGX; 4 of its 8;
  /// the first trays of a GB200 NVL72 rack). The node's other devices stay idle. Absent: every
  /// GPU of the node. `gpus_per_node_where` locates the key for errors that need the platform
  /// (more GPUs than a node has; placement_problem.cpp).
  std::optional<int> gpus_per_node;
  std::string gpus_per_node_where;
  /// Context (sequence) parallelism (`training.context_parallel`): GPUs of one node that share
  /// each sample's event sequence in a sequence model's HSTU block, exchanging its keys and
  /// values (models/operators/hstu.cpp); 1: none. `context_parallel_where` locates the key for
  /// the errors that need the model or the platform (make_placement_problem).
  int context_parallel = 1;
  std::string context_parallel_where;
  /// 2D sparse parallelism (`training.sharding_group`): trainer GPUs of one sharding group.
  /// The tables are sharded over the G GPUs of each group (contiguous whole trainer nodes:
  /// TorchRec DMPCollection's mesh with use_inter_host_allreduce, pytorch/torchrec@a48cef79
  /// torchrec/distributed/model_parallel.py _create_process_groups); every group holds a
  /// replica and trains its G/N share of the batch; the embedding all-to-all stays within the
  /// group; every `sharding_sync_every` steps each GPU all-reduces (AVG) its shards' weights
  /// and optimiser state with the GPUs holding the same shards in the other groups
  /// (DMPCollection.sync(include_optimizer_state=True): allreduce_coalesced over the replica
  /// process group). Absent: one group of every trainer GPU (flat model parallelism).
  /// `sharding_group_where` locates the key for the errors that need the platform.
  std::optional<int> sharding_group;
  std::string sharding_group_where;
  /// Steps between two replica syncs (`training.sharding_sync_every`, default 1: TorchRec's
  /// TrainPipelineSparseDist dmp_collection_sync_interval_batches default, a sync every batch).
  int sharding_sync_every = 1;
  /// Names of platform groups by role (defaults: groups whose `role` says so).
  std::string trainer_role = "trainer";
  std::string parameter_server_role = "parameter_server";
  std::string embedding_worker_role = "embedding_worker";
  /// The pods the parameter servers and the embedding workers run (training.pods; none: the
  /// role uses its whole nodes); RolePods is in models/placement_problem.hpp.
  std::optional<RolePods> server_pods, worker_pods;

  /// The software stack (the scenario's `software:` key, not part of `training:`).
  SoftwareStack software;

  /// Reads the `training:` mapping (calls finish()).
  static TrainingOptions from_config(const ConfigNode& node);
};

}  // namespace dlrmsim::models
