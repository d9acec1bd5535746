// Per-step embedding work of every owner of a placement plan: what the step builder's
// embedding passes run and its all-to-alls carry, computed once per run from the plan.
//
// Each shard's owner adds the shard's work, by the kind of device that owns it:
//   GPU (gpu_hbm, uvm)   the shard's tier's ShardCost (placement/tier.hpp): the one GPU
//                        embedding cost model (topologies/gpu_embedding_cost.hpp) the planner
//                        reads too: forward gather, backward + optimiser times, HBM bytes of
//                        both passes, and for uvm the cache misses' bytes and zero-copy time
//   GPU (ssd)            as uvm, plus the drives' page reads and write-backs (nvme_cost.hpp)
//   CPU socket           topologies/cpu_row_cost.hpp's gather and update times (host_dram;
//                        cxl: with the expanders' bandwidth and latency, with_cxl_memory)
//   parameter server     the same per socket, ids resolved through its hash map (remote_ps)
// and its pooled outputs, their gradients and ids on the wire (the communication precision,
// or the stack's qcomm codecs for GPU owners). Replicated (data-parallel)
// tables add their dense gradient to the bytes the trainers all-reduce.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/units.hpp"
#include "models/step_inputs.hpp"
#include "topologies/cpu_row_cost.hpp"

namespace dlrmsim::models {

/// Per-step embedding work of one placement owner (a GPU, CPU socket or server).
struct OwnerWork {
  std::uint32_t owner = 0;  // index into PlacementProblem::devices
  Seconds forward_compute;  // GPU kernel / CPU task time, forward
  Seconds backward_compute; // backward + optimiser update
  Bytes uvm_bytes;          // rows read from host memory per step (UVM misses), written back after the update
  Seconds uvm_time;         // the profile's time of those zero-copy reads alone (each way)
  Seconds ssd_read;         // ssd shards: the host socket's drives reading the cache misses' pages
  Seconds ssd_write;        // and writing the evicted rows back (topologies/nvme_cost.hpp)
  bool ssd_prefetched = false;  // the reads are the next batch's, run alongside the step
  Bytes hbm_forward;        // GPU owners: HBM bytes of the forward kernel (rows read, bags written)
  Bytes hbm_backward;       // GPU owners: HBM bytes of the backward and update (bag gradients, rows and state read and written)
  double pooled_values = 0.0;  // pooled embedding values produced per step (samples x columns)
  /// Those values on the wire: the communication precision, or for a GPU owner the stack's
  /// qcomm forward codec (models/quantized_comms.hpp).
  Bytes pooled_out;
  /// Their gradients on the wire (a GPU owner: the qcomm backward codec).
  Bytes pooled_grad;
  Bytes ids_in;             // indices received per step
  /// pooled_out (pooled_grad) once the partial sums of a row-sharded table's shards on the
  /// owner's node are added up inside the node (each shard's part over the table's row
  /// shards on that node): what a hierarchical all-to-all carries across nodes
  /// (models/collectives.hpp).
  Bytes pooled_node_reduced;
  Bytes pooled_grad_node_reduced;
  double lookups = 0.0;     // rows gathered per step
  int gpu_tables = 0;       // table shards a GPU owner holds (kernels per pass without table batching)
  int cpu_tables = 0;       // table shards a CPU-socket owner holds (a CPU trainer's operators per pass)
  Bytes cpu_lookup_bytes;   // CPU-socket owners: bytes of the rows looked up (their sparse gradients' size)
  bool any = false;
};

/// Every owner's work, and what the replicated tables add to the dense all-reduce.
struct OwnerWorkTable {
  std::vector<OwnerWork> by_owner;  // by placement problem device index
  Bytes dp_gradient_bytes;          // gradients of data-parallel (replicated) tables
  double gpu_pooled_values = 0.0;   // pooled values GPU owners produce per step, all of them
};

/// The work of every owner of in.plan.
OwnerWorkTable compute_owner_work(const StepInputs& in);

/// The row-access bounds of a CPU socket with the scenario's access granule (the one CPU
/// gather and update model, topologies/cpu_row_cost.hpp). std::invalid_argument when the
/// platform gives the socket neither a DRAM bandwidth nor a per-core gather bandwidth.
topo::CpuRowAccess cpu_row_access(const StepInputs& in, const topo::CpuSocketSpec& cpu);
/// The same for a socket of `node`, a parameter server (`server`: ids resolved through its
/// hash map) or an embedding worker, its cores scaled by the share of the node its role's
/// pods use (training.pods, pod_share; the whole node without pods).
topo::CpuRowAccess role_cpu_access(const StepInputs& in, const topo::CpuSocketSpec& cpu, topo::NodeId node, bool server);

}  // namespace dlrmsim::models
