// The training software: the third input of a prediction, beside the platform and the model.
//
// The same hardware trains the same model 1.4x to 2.4x faster or slower depending on the
// software (NVIDIA's PyTorch DLRM on one V100 between two versions of its README; MLPerf
// DLRM-DCNv2 on 16 DGX H100 between two rounds). A stack file (configs/software/*.yaml),
// named by a scenario's `software:` key (a path or an inline mapping; absent: the built-in
// defaults below, which are torchrec-fbgemm.yaml), states what the software does:
//
//   name: torchrec-fbgemm               # absent: "torchrec-fbgemm (modified)"
//   description: "..."
//   source: "..."                       # where the settings come from (code at a commit)
//   dense:
//     precision: model                  # model: the model file's compute precision; fp32, tf32:
//                                       # no autocast; bf16, fp16: autocast GEMMs to that type
//   embeddings:
//     kernel: table_batched             # table_batched: one fused kernel per pass per GPU
//                                       # (FBGEMM TBE, HugeCTR); per_table: one per table
//                                       # (PyTorch nn.EmbeddingBag)
//     backward: deduplicated            # deduplicated: each distinct row updated once (sorted
//                                       # segment reduce); per_lookup: every lookup's row
//     optimizer: fused                  # fused into the backward kernel; separate: the
//                                       # backward writes a sparse gradient that an optimiser
//                                       # kernel per table reads back
//     input_distribution: direct        # how a trainer's sparse ids reach the tables' owners:
//                                       # direct, one all-to-all of the ids (HugeCTR);
//                                       # two_phase, TorchRec's KJTAllToAll: the sizes first
//                                       # (a small all-to-all the host reads back, waiting for
//                                       # it), then the lengths and ids sized by them, and the
//                                       # owner's host reads the received lengths per key
//                                       # before its lookup, waiting for its GPU's stream
//     pipeline: sparse_dist             # sparse_dist: a batch's lookups after the previous
//                                       # batch's embedding update (synchronous; TorchRec's
//                                       # TrainPipelineSparseDist, HugeCTR); semi_sync:
//                                       # TorchRec's TrainPipelineSemiSync, the next batch's
//                                       # lookups and pooled all-to-all issued after this
//                                       # batch's forward, before its backward: they overlap
//                                       # the backward and read embeddings one update stale
//                                       # (models/modes/synchronous.cpp)
//     host_update: lock_free            # how the CPU applies the sparse updates of tables in
//                                       # host memory: lock_free, on all cores without
//                                       # contention (FBGEMM's CPU kernels); striped_locks,
//                                       # TensorFlow's CPU scatter: each update under the lock
//                                       # of its id's range, 1024 ranges, so the updates of the
//                                       # busiest range run one after another
//                                       # (placement/lookup_cost.hpp striped_lock_share)
//   collectives:
//     peer_to_peer: true                # false: NCCL_P2P_DISABLE, GPU-to-GPU traffic is staged
//                                       # through the host (GPU -> host memory -> GPU)
//     nvlink_relay: true                # two GPUs without an NVLink of their own relay over
//                                       # NVLink through a third GPU (NCCL >= 2.8.3 "NVB"
//                                       # paths); false: NCCL before 2.8.3 or NCCL_NVB_DISABLE=1,
//                                       # the traffic takes PCIe and the CPUs
//     allreduce_bucket: 25 MiB          # dense-gradient bucket size
//     allreduce_overlap: backward       # backward: a bucket is reduced as soon as its layers'
//                                       # gradients exist; none: after the whole backward
//     launch_delay: 0 us                # from a collective's inputs being ready to its start:
//                                       # a framework's negotiation (Horovod's background
//                                       # thread runs once per cycle: half a cycle expected)
//     nccl: "2.17"                      # the NCCL release whose latency model the
//                                       # collectives follow (models/nccl_model.hpp: 2.10,
//                                       # 2.17, 2.21), or none: collectives without latency
//     collnet: false                    # true: NCCL_COLLNET_ENABLE=1 on a SHARP fabric: NCCL's
//                                       # tuner may run an all-reduce across nodes as CollNet
//                                       # Direct or Chain, reduced in the switches (each NIC
//                                       # carries the GPU's 1/g of the buffer once each way)
//     all_to_all: flat                  # flat: NCCL send/receive between every pair of GPUs;
//                                       # hierarchical: HugeCTR's hier_auto plans: the node's
//                                       # GPUs first exchange over NVLink, then each GPU sends
//                                       # what it gathered for local rank j to the GPU j of
//                                       # every other node (its rail); the gradients back in
//                                       # the reverse order (models/collectives.hpp)
//     qcomm:                            # quantised communication (models/quantized_comms.hpp)
//       forward: none                   # pooled embeddings' wire type in the GPU all-to-all:
//                                       # none (the model's communication precision), fp32,
//                                       # fp16, bf16, fp8, int8 (TorchRec QCommsConfig)
//       backward: none                  # their gradients' wire type, the same choices
//       all_reduce: none                # the dense all-reduce's: none, fp16, bf16 (DDP hooks)
//       int8_row_dim: 32                # values per int8 row (each with an 8 B scale and bias)
//     sms: auto                         # SMs a GPU's NCCL kernel holds while it runs (one
//                                       # CTA per channel, never sharing its SM with compute):
//                                       # auto is NCCL's own choice, 16 on a GPU that reaches
//                                       # its node's peers over NVLink with P2P on, 2
//                                       # otherwise (NCCL's maintainer, NVIDIA/nccl issue
//                                       # 689, 2023-08-11: "a PCI system with a single NIC ...
//                                       # should just launch 2 SMs ... DGX with 8 NICs ... 16
//                                       # SMs"); 0: NCCL takes no SMs from compute
//   embedding_workers:                  # the Persia modes' CPU embedding workers
//     embeddings: model                 # element type of the pooled embeddings they send the
//                                       # trainers: model (the model's communication
//                                       # precision), fp32, bf16 or fp16
//     gradients: model                  # element type of the pooled-embedding gradients the
//                                       # trainers send back
//     per_id: 0 s                       # time per distinct id of a batch and per direction
//                                       # on the batch's one worker thread, besides the
//                                       # calibrated hash probe and row sums
//                                       # (models/modes/persia_hybrid.cpp)
//     rpc_latency: 0 s                  # what each RPC message (request, answer, the ids,
//                                       # rows and gradients) takes beyond its transfer
//   host:                               # the work of each GPU trainer's host thread
//     launch: per_kernel                # per_kernel: the host launches each kernel;
//                                       # cuda_graph: the step is a captured CUDA graph the
//                                       # host launches once (no per-kernel host work)
//     dispatch: 5.3 us                  # framework cost per GPU kernel launched (Python,
//                                       # dispatcher, autograd), besides the cudaLaunchKernel
//                                       # call itself (the device profile's launch overhead)
//     feature_operators: 0              # host operators per sparse feature per step (a
//                                       # Python loop over the features), each at `dispatch`
//     sync: none                        # where the host waits for its GPU: none (it runs
//                                       # ahead), per_step (once, at the end of each step),
//                                       # per_feature (after each feature's embedding forward,
//                                       # before the embedding gradients leave, and per step)
//     framework:                        # the framework's own work that is not operator
//                                       # dispatch (Python around the operators: the training
//                                       # loop body, pipeline, awaitables, autograd's graph
//                                       # task, the optimiser's entry): on a GPU trainer's host
//                                       # thread; on a CPU trainer's cores, in program order
//                                       # with its compute (cpu_trainer.framework eager)
//       per_step: 0 s                   # host time per step
//       per_sample: 0 s                 # host time per sample of the local batch
//     loader:                           # data loading on the trainer node's cores
//       per_sample: 0 us                # CPU time per sample (decode, batch assembly)
//       workers: 1                      # loader threads per trainer (one core each at most)
//       batches_in_flight: 0            # batches the node's reader keeps requested from the
//                                       # storage (HugeCTR AsyncParam num_threads x
//                                       # num_batches_per_thread); a batch's read starts when
//                                       # the batch that many steps earlier is done and takes
//                                       # the platform's storage.dataset_read_latency; 0: none
//   cpu_trainer:                        # the framework work of a CPU trainer (cpu_only),
//                                       # on its socket's cores (models/cpu_framework.hpp)
//     framework: eager                  # eager: PyTorch eager's operators, each at
//                                       # host.dispatch, their elementwise work, the loss,
//                                       # the sparse gradients' coalescing and the
//                                       # optimiser's per-tensor loop; none: GEMMs, gathers
//                                       # and updates only (a compiled step)
//     optimizer: per_tensor             # per_tensor: torch.optim's single-tensor loop;
//                                       # fused: one operator per table and one for the
//                                       # dense parameters (IPEX's fused optimisers)
//     coalesce_per_lookup: 65 ns        # sort + segment sum of a sparse gradient, per lookup
//                                       # (the framework's work once per step besides its
//                                       # operators is host.framework's, on the socket's cores)
//     bmm: batched                      # how a batched GEMM (the dot interaction's) runs:
//                                       # batched (one GEMM over the batch on the socket's
//                                       # cores: MKL's batched GEMM, IPEX's interaction
//                                       # kernel) or per_item (torch built without MKL: one
//                                       # BLAS call per batch item, in a loop on one core)
//     bmm_item_call: 1.167 us           # per_item: the fixed cost of one item's call
//     bmm_item_efficiency: 0.7307       # per_item: an item's GEMM rate as a fraction of one
//                                       # core's large-GEMM rate (operators/dot_interaction.cpp)
//
// What each setting costs is the step builder's business (step_builder.hpp); this header only
// reads and checks the settings. Host work runs on the CPU cores of the trainer's node as
// engine activities (a thread of one core per trainer and per loader worker, sharing the
// node's cores), under the category host_work.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "common/config.hpp"
#include "common/parameters.hpp"
#include "common/units.hpp"
#include "models/model_spec.hpp"
#include "models/nccl_model.hpp"
#include "models/quantized_comms.hpp"

namespace dlrmsim::models {

struct SoftwareStack {
  std::string name = "torchrec-fbgemm";
  std::string description;
  std::string source;

  /// Dense compute precision: the model file's, or the stack's autocast policy.
  std::optional<Precision> dense_precision;  // nullopt: the model's (key value `model`)

  enum class EmbeddingKernel { table_batched, per_table } embedding_kernel = EmbeddingKernel::table_batched;
  /// Whether the embedding backward updates each distinct row once (true) or every lookup's row.
  bool deduplicated_backward = true;
  /// Whether the embedding optimiser runs inside the backward kernel (true) or as a separate pass.
  bool fused_optimizer = true;
  /// Whether the sparse updates of tables in host memory (CPU-socket owners) run under
  /// TensorFlow's striped locks (true) or on all cores without contention (false).
  bool striped_host_updates = false;
  /// How a trainer's sparse ids reach the owners of their rows (embeddings.input_distribution).
  enum class InputDistribution { direct, two_phase } input_distribution = InputDistribution::direct;
  /// When a batch's embedding lookups run (embeddings.pipeline): after the previous batch's
  /// update (sparse_dist), or after its forward, before its backward (semi_sync).
  enum class Pipeline { sparse_dist, semi_sync } pipeline = Pipeline::sparse_dist;
  /// Whether the ssd tier's reads of the next batch's rows run during the current step
  /// (embeddings.prefetch: next_batch, FBGEMM SSD TBE's prefetch_pipeline) or before the
  /// forward that needs them (none, FBGEMM's default).
  enum class Prefetch { none, next_batch } prefetch = Prefetch::none;

  /// NCCL peer-to-peer (NVLink or PCIe) between GPUs; false stages GPU traffic through the host.
  bool peer_to_peer = true;
  /// Whether GPUs without an NVLink of their own relay over NVLink through a third GPU.
  bool nvlink_relay = true;
  /// Dense-gradient bucket size. Default 25 MiB: PyTorch DDP's bucket_cap_mb.
  Bytes allreduce_bucket{25.0 * 1024 * 1024};
  /// Whether the dense all-reduce overlaps the backward (buckets launched as layers finish).
  bool allreduce_overlaps_backward = true;
  /// Time from a GPU collective's inputs being ready to its start (framework negotiation).
  Seconds collective_launch{0.0};
  /// SMs a GPU's NCCL kernel holds (collectives.sms); nullopt: NCCL's choice (nccl_sms()).
  std::optional<int> collective_sms;
  /// The NCCL release whose tuner model prices each collective's latency (nullptr: none).
  /// Default 2.17: NCCL of the NGC 23.04 containers that ran MLPerf v3.0 (torchrec-fbgemm.yaml).
  const NcclTuning* nccl = nccl_tuning("2.17");
  /// NCCL_COLLNET_ENABLE=1 on a fabric with in-network reduction (SHARP).
  bool collnet = false;
  /// HugeCTR's hierarchical all-to-all (intra-node over NVLink, then along the rails).
  bool hierarchical_all_to_all = false;
  /// Quantised communication (collectives.qcomm; models/quantized_comms.hpp): none by default.
  QuantizedComms qcomm;

  /// Element types of what the Persia embedding workers exchange with the trainers: pooled
  /// embeddings out, their gradients back (nullopt: the model's communication precision).
  std::optional<Precision> worker_embeddings;
  std::optional<Precision> worker_gradients;
  /// An embedding worker's time per distinct id and direction beyond the calibrated kernels.
  Seconds worker_per_id{0.0};
  /// What each RPC message of the Persia modes takes beyond its transfer (0: nothing).
  Seconds worker_rpc_latency{0.0};

  /// Host work of each GPU trainer (see the header). Default dispatch: PyTorch eager's measured
  /// per-operator cost (torchrec-fbgemm.yaml says where it comes from).
  Seconds dispatch{5.3 * 1e-6};  // as the file's "5.3 us" parses
  /// Whether the host launches each kernel (false: the step is a CUDA graph).
  bool per_kernel_launch = true;
  int feature_operators = 0;
  enum class HostSync { none, per_step, per_feature } sync = HostSync::none;
  /// The framework's own host work (host.framework): per step and per sample of the local batch.
  Seconds framework_per_step{0.0};
  Seconds framework_per_sample{0.0};
  Seconds loader_per_sample{0.0};
  int loader_workers = 1;
  /// Batches a node's reader keeps requested from the storage (0: no bound; host.loader).
  int loader_batches_in_flight = 0;

  /// The framework work of CPU trainers (software.cpu_trainer; models/cpu_framework.hpp).
  enum class CpuFramework { eager, none } cpu_framework = CpuFramework::eager;
  /// Whether the CPU trainer's optimiser is fused (one operator per table and for the dense part).
  bool cpu_fused_optimizer = false;
  /// Time per lookup of coalescing a sparse embedding gradient (sort + segment sum), besides
  /// its rows' bytes. Default: measured (software.cpu_trainer.coalesce_per_lookup's note).
  Seconds coalesce_per_lookup{65e-9};
  /// How a CPU trainer runs a batched GEMM (software.cpu_trainer.bmm): one GEMM over the batch,
  /// or one BLAS call per item at a fixed cost plus its FLOPs at a fraction of one core's peak.
  enum class CpuBmm { batched, per_item } cpu_bmm = CpuBmm::batched;
  Seconds bmm_item_call{1.167e-6};
  double bmm_item_efficiency = 0.7307;

  /// Whether two stacks have the same settings (name, description and source included).
  bool operator==(const SoftwareStack&) const = default;

  /// Reads a stack mapping (calls finish()).
  static SoftwareStack from_config(const ConfigNode& node);

  /// The SMs NCCL's kernel holds on a GPU of `sm_count` SMs that has (or lacks) NVLink: the
  /// stack's `collectives.sms`, or NCCL's own choice (16 with NVLink, 2 without; see the
  /// header), at most sm_count.
  [[nodiscard]] int nccl_sms(int sm_count, bool nvlink) const;

  /// The compute precision the dense layers run in for a model whose file says `model_precision`.
  [[nodiscard]] Precision dense_compute_precision(Precision model_precision) const;
};

/// The declarations of every software-stack key SoftwareStack::from_config reads
/// (declared as typed parameters in models/software_stack.cpp).
std::span<const Parameter> software_parameters();

}  // namespace dlrmsim::models
