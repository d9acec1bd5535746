#include "models/software_stack.hpp"

#include <algorithm>

#include "common/param.hpp"

namespace dlrmsim::models {
namespace {

// The software-stack keys (configs/software/*.yaml, or a scenario's inline `software:`), read
// by from_config below and listed by software_parameters(). Defaults are the built-in stack's
// (SoftwareStack's member initialisers: torchrec-fbgemm.yaml).
using Stack = SoftwareStack;
const Stack kBuiltIn;

// Without a name (an inline stack, or `--set software.x=...` on a scenario that names none),
// the settings not given are the built-in defaults', so it is the default stack modified.
const Param<std::string> kName{.key_path = "software.name", .fallback = kBuiltIn.name + " (modified)",
                               .meaning = "Name of the stack, shown in reports."};
const Param<std::string> kDescription{.key_path = "software.description", .fallback = "", .meaning = "Free text."};
const Param<std::string> kSource{.key_path = "software.source", .fallback = "",
                                 .meaning = "Where the settings come from (code at a commit)."};

const Choice<std::optional<Precision>> kDensePrecision{
    .key_path = "software.dense.precision",
    .words = {{"model", std::nullopt}, {"fp32", Precision::fp32}, {"tf32", Precision::tf32},
              {"bf16", Precision::bf16}, {"fp16", Precision::fp16}},
    .fallback = kBuiltIn.dense_precision,
    .meaning = "model: the model's compute precision; fp32, tf32: no autocast; bf16, fp16: GEMMs autocast to that type."};

const Choice<Stack::EmbeddingKernel> kKernel{
    .key_path = "software.embeddings.kernel",
    .words = {{"table_batched", Stack::EmbeddingKernel::table_batched}, {"per_table", Stack::EmbeddingKernel::per_table}},
    .fallback = kBuiltIn.embedding_kernel,
    .meaning = "One fused kernel per pass per GPU (FBGEMM TBE, HugeCTR), or one per table (nn.EmbeddingBag)."};
const Choice<bool> kBackward{.key_path = "software.embeddings.backward",
                             .words = {{"deduplicated", true}, {"per_lookup", false}},
                             .fallback = kBuiltIn.deduplicated_backward,
                             .meaning = "Each distinct row updated once (sorted segment reduce), or every lookup's row."};
const Choice<bool> kOptimizer{
    .key_path = "software.embeddings.optimizer",
    .words = {{"fused", true}, {"separate", false}},
    .fallback = kBuiltIn.fused_optimizer,
    .meaning = "Optimiser fused into the backward kernel, or a separate kernel per table reading a sparse gradient."};
const Choice<Stack::Pipeline> kPipeline{
    .key_path = "software.embeddings.pipeline",
    .words = {{"sparse_dist", Stack::Pipeline::sparse_dist}, {"semi_sync", Stack::Pipeline::semi_sync}},
    .fallback = kBuiltIn.pipeline,
    .meaning = "sparse_dist: a batch's lookups after the previous batch's embedding update; semi_sync: TorchRec's "
               "TrainPipelineSemiSync, the next batch's lookups and pooled all-to-all issued after this batch's forward "
               "and before its backward (embeddings one update stale), synchronous modes only."};
const Choice<Stack::Prefetch> kPrefetch{
    .key_path = "software.embeddings.prefetch",
    .words = {{"none", Stack::Prefetch::none}, {"next_batch", Stack::Prefetch::next_batch}},
    .fallback = kBuiltIn.prefetch,
    .meaning = "ssd tier: none reads a batch's cache misses from the drives before its forward; next_batch reads the "
               "next batch's during this step (FBGEMM SSDTableBatchedEmbeddingBags' prefetch_pipeline), hiding the "
               "part of the reads shorter than the step."};
const Choice<bool> kHostUpdate{
    .key_path = "software.embeddings.host_update",
    .words = {{"lock_free", false}, {"striped_locks", true}},
    .fallback = kBuiltIn.striped_host_updates,
    .meaning = "Sparse updates of host-memory tables: all cores at once, or under TensorFlow's 1024 id-range locks."};
const Choice<Stack::InputDistribution> kInputDistribution{
    .key_path = "software.embeddings.input_distribution",
    .words = {{"direct", Stack::InputDistribution::direct}, {"two_phase", Stack::InputDistribution::two_phase}},
    .fallback = kBuiltIn.input_distribution,
    .meaning = "direct: one all-to-all of the ids (HugeCTR); two_phase: TorchRec's KJTAllToAll, sizes first (the host "
               "waits to read them), then lengths and ids; the owner's host reads the lengths before its lookup."};

const Param<bool> kPeerToPeer{.key_path = "software.collectives.peer_to_peer", .fallback = kBuiltIn.peer_to_peer,
                              .meaning = "false: NCCL_P2P_DISABLE, GPU-to-GPU traffic staged through host memory."};
const Param<bool> kNvlinkRelay{
    .key_path = "software.collectives.nvlink_relay", .fallback = kBuiltIn.nvlink_relay,
    .meaning = "GPUs without an NVLink of their own relay over NVLink through a third GPU (NCCL >= 2.8.3)."};
const Param<Bytes> kAllreduceBucket{.key_path = "software.collectives.allreduce_bucket", .unit = "bytes (\"25 MiB\")",
                                    .fallback = kBuiltIn.allreduce_bucket, .default_note = "PyTorch DDP's bucket_cap_mb",
                                    .range = {.min = Bound<Bytes>{Bytes{0.0}, false}},
                                    .meaning = "Dense-gradient bucket size."};
const Choice<bool> kAllreduceOverlap{
    .key_path = "software.collectives.allreduce_overlap",
    .words = {{"backward", true}, {"none", false}},
    .fallback = kBuiltIn.allreduce_overlaps_backward,
    .meaning = "backward: a bucket is reduced as soon as its gradients exist; none: after the whole backward."};
const Param<Seconds> kLaunchDelay{.key_path = "software.collectives.launch_delay", .unit = "s (\"2 ms\")",
                                  .fallback = kBuiltIn.collective_launch,
                                  .range = {.min = Bound<Seconds>{Seconds{0.0}}},
                                  .meaning = "From a collective's inputs being ready to its start (framework negotiation)."};
const Param<int> kSms{
    .key_path = "software.collectives.sms", .unit = "count", .auto_word = "auto",
    .default_note = "NCCL: 16 with NVLink, 2 without",
    .range = {.min = Bound<int>{0},
              .max = Bound<int>{1024, true, "expected at most 1024 SMs (NCCL runs one CTA per channel, 64 channels at most)"}},
    .meaning = "SMs a GPU's NCCL kernel holds while it runs, taken from concurrent compute kernels."};

/// The NCCL releases a stack can name, and `none`.
std::vector<std::pair<std::string_view, const NcclTuning*>> nccl_words() {
  std::vector<std::pair<std::string_view, const NcclTuning*>> out{{"none", nullptr}};
  for (const NcclTuning& t : nccl_versions()) out.emplace_back(t.version, &t);
  return out;
}
const Choice<const NcclTuning*> kNccl{
    .key_path = "software.collectives.nccl", .words = nccl_words(), .fallback = kBuiltIn.nccl,
    .meaning = "NCCL release whose tuner prices each collective's latency (models/nccl_model.hpp); none: no latency."};
const Param<bool> kCollnet{
    .key_path = "software.collectives.collnet", .fallback = kBuiltIn.collnet,
    .meaning = "NCCL_COLLNET_ENABLE=1 on a SHARP fabric: all-reduces across nodes may run as CollNet Direct or Chain, "
               "reduced in the switches (needs an NCCL release that models it: 2.17, 2.21)."};
const Choice<bool> kAllToAll{
    .key_path = "software.collectives.all_to_all",
    .words = {{"flat", false}, {"hierarchical", true}},
    .fallback = kBuiltIn.hierarchical_all_to_all,
    .meaning = "Embedding all-to-all between GPUs: flat (every pair), or hierarchical (HugeCTR hier_auto: over NVLink "
               "inside the node, then between same-index GPUs of the nodes)."};

/// The codecs of quantised communication (models/quantized_comms.hpp): `none` is no codec.
std::vector<std::pair<std::string_view, std::optional<Precision>>> all_to_all_codecs() {
  return {{"none", std::nullopt},     {"fp32", Precision::fp32}, {"fp16", Precision::fp16},
          {"bf16", Precision::bf16}, {"fp8", Precision::fp8},   {"int8", Precision::int8}};
}
const Choice<std::optional<Precision>> kQcommForward{
    .key_path = "software.collectives.qcomm.forward", .words = all_to_all_codecs(),
    .fallback = kBuiltIn.qcomm.forward,
    .meaning = "Wire type of the pooled embeddings in the GPU all-to-all (TorchRec QCommsConfig.forward_precision), "
               "with FBGEMM's encode kernel on the owner and decode kernel on the trainer; none: the model's "
               "communication precision, no codec."};
const Choice<std::optional<Precision>> kQcommBackward{
    .key_path = "software.collectives.qcomm.backward", .words = all_to_all_codecs(),
    .fallback = kBuiltIn.qcomm.backward,
    .meaning = "Wire type of the pooled-embedding gradients (QCommsConfig.backward_precision), encoded on the trainer "
               "and decoded on the owner."};
const Choice<std::optional<Precision>> kQcommAllReduce{
    .key_path = "software.collectives.qcomm.all_reduce",
    .words = {{"none", std::nullopt}, {"fp16", Precision::fp16}, {"bf16", Precision::bf16}},
    .fallback = kBuiltIn.qcomm.all_reduce,
    .meaning = "Wire type of the dense all-reduce (PyTorch DDP's fp16_compress_hook / bf16_compress_hook): each "
               "bucket cast before and after."};
const Param<int> kQcommRowDim{
    .key_path = "software.collectives.qcomm.int8_row_dim", .unit = "count", .fallback = kBuiltIn.qcomm.int8_row_dim,
    .default_note = "FBGEMM's ROW_DIM_DEFAULT",
    .range = {.min = Bound<int>{1}, .max = Bound<int>{1 << 20, true, "expected at most 1048576 values a row"}},
    .meaning = "Values per int8 row, each row carrying an fp32 scale and bias (8 B)."};

/// The wire element types of the embedding workers: `model` is the model's (nullopt).
std::vector<std::pair<std::string_view, std::optional<Precision>>> wire_precisions() {
  return {{"model", std::nullopt}, {"fp32", Precision::fp32}, {"bf16", Precision::bf16}, {"fp16", Precision::fp16}};
}
const Choice<std::optional<Precision>> kWorkerEmbeddings{
    .key_path = "software.embedding_workers.embeddings", .words = wire_precisions(),
    .fallback = kBuiltIn.worker_embeddings,
    .meaning = "Element type of the pooled embeddings sent to the trainers (model: the model's communication precision)."};
const Choice<std::optional<Precision>> kWorkerGradients{
    .key_path = "software.embedding_workers.gradients", .words = wire_precisions(),
    .fallback = kBuiltIn.worker_gradients,
    .meaning = "Element type of the pooled-embedding gradients the trainers send back."};
const Param<Seconds> kWorkerPerId{
    .key_path = "software.embedding_workers.per_id", .unit = "s (\"1 us\")", .fallback = kBuiltIn.worker_per_id,
    .range = {.min = Bound<Seconds>{Seconds{0.0}}},
    .meaning = "An embedding worker's time per distinct id of a batch and per direction besides the calibrated "
               "hash probe and row sums (serialisation, RPC framing, allocation), on the batch's one thread."};
const Param<Seconds> kWorkerRpcLatency{
    .key_path = "software.embedding_workers.rpc_latency", .unit = "s (\"100 us\")",
    .fallback = kBuiltIn.worker_rpc_latency,
    .range = {.min = Bound<Seconds>{Seconds{0.0}}},
    .meaning = "What each RPC message of the Persia modes (a request or its answer, the ids, rows, pooled values "
               "and gradients) takes beyond its transfer over the network: the RPC stack's own latency."};

const Choice<bool> kLaunch{.key_path = "software.host.launch",
                           .words = {{"per_kernel", true}, {"cuda_graph", false}},
                           .fallback = kBuiltIn.per_kernel_launch,
                           .meaning = "The host launches each kernel, or one captured CUDA graph per step."};
const Param<Seconds> kDispatch{.key_path = "software.host.dispatch", .unit = "s (\"5.3 us\")",
                               .fallback = kBuiltIn.dispatch, .default_note = "PyTorch eager, torchrec-fbgemm.yaml",
                               .range = {.min = Bound<Seconds>{Seconds{0.0}}},
                               .meaning = "Framework cost per GPU kernel launched, besides cudaLaunchKernel itself."};
const Param<int> kFeatureOperators{.key_path = "software.host.feature_operators", .unit = "count",
                                   .fallback = kBuiltIn.feature_operators, .range = {.min = Bound<int>{0}},
                                   .meaning = "Host operators per sparse feature per step, each costing `dispatch`."};
const Choice<Stack::HostSync> kSync{
    .key_path = "software.host.sync",
    .words = {{"none", Stack::HostSync::none}, {"per_step", Stack::HostSync::per_step},
              {"per_feature", Stack::HostSync::per_feature}},
    .fallback = kBuiltIn.sync,
    .meaning = "Where the host waits for its GPU."};
const Param<Seconds> kFrameworkPerStep{
    .key_path = "software.host.framework.per_step", .unit = "s (\"1 ms\")", .fallback = kBuiltIn.framework_per_step,
    .range = {.min = Bound<Seconds>{Seconds{0.0}}},
    .meaning = "Time per step of the framework's own work besides operator dispatch (training loop, pipeline): on a "
               "GPU trainer's host thread, on a CPU trainer's cores (cpu_trainer.framework eager)."};
const Param<Seconds> kFrameworkPerSample{
    .key_path = "software.host.framework.per_sample", .unit = "s (\"1 us\")", .fallback = kBuiltIn.framework_per_sample,
    .range = {.min = Bound<Seconds>{Seconds{0.0}}},
    .meaning = "Host time of that work per sample of the local batch."};
const Param<Seconds> kLoaderPerSample{.key_path = "software.host.loader.per_sample", .unit = "s",
                                      .fallback = kBuiltIn.loader_per_sample,
                                      .range = {.min = Bound<Seconds>{Seconds{0.0}}},
                                      .meaning = "CPU time per sample (decode, batch assembly)."};
const Param<int> kLoaderWorkers{
    .key_path = "software.host.loader.workers", .unit = "count", .fallback = kBuiltIn.loader_workers,
    .range = {.min = Bound<int>{0, false}, .max = Bound<int>{1024, true, "expected at most 1024 loader threads per trainer"}},
    .meaning = "Loader threads per trainer (one core each at most)."};

const Param<int> kLoaderInFlight{
    .key_path = "software.host.loader.batches_in_flight", .unit = "count", .fallback = kBuiltIn.loader_batches_in_flight,
    .default_note = "0: no bound",
    .range = {.min = Bound<int>{0}, .max = Bound<int>{1 << 20, true, "expected at most 1048576 batches in flight"}},
    .meaning = "Batches a node's reader has asked the storage for and not yet handed over (HugeCTR's AsyncParam "
               "num_threads x num_batches_per_thread): a batch's read starts when the batch that many steps earlier is "
               "done, and takes the platform's storage.dataset_read_latency; 0: reads never wait."};

const Choice<Stack::CpuFramework> kCpuFramework{
    .key_path = "software.cpu_trainer.framework",
    .words = {{"eager", Stack::CpuFramework::eager}, {"none", Stack::CpuFramework::none}},
    .fallback = kBuiltIn.cpu_framework,
    .meaning = "eager: a CPU trainer runs PyTorch eager's operators (each at host.dispatch), their elementwise work, "
               "the loss, sparse-gradient coalescing and the optimiser loop on its cores; none: GEMMs, gathers, updates only."};
const Choice<bool> kCpuOptimizer{
    .key_path = "software.cpu_trainer.optimizer",
    .words = {{"per_tensor", false}, {"fused", true}},
    .fallback = kBuiltIn.cpu_fused_optimizer,
    .meaning = "per_tensor: torch.optim's single-tensor loop (operators per tensor by optimiser); fused: one operator "
               "per table and one for the dense parameters."};
const Param<Seconds> kCoalescePerLookup{
    .key_path = "software.cpu_trainer.coalesce_per_lookup", .unit = "s (\"65 ns\")",
    .fallback = kBuiltIn.coalesce_per_lookup,
    .default_note = "measured: torch 1.13 coalesce() of 8,192 lookups, Zen 5 guest (pytorch-cpu-step-amd-epyc-zen5-2cpu.yaml)",
    .range = {.min = Bound<Seconds>{Seconds{0.0}}},
    .meaning = "Sort + segment sum of a sparse embedding gradient per lookup, besides its rows' bytes (adagrad, adam)."};

const Choice<Stack::CpuBmm> kCpuBmm{
    .key_path = "software.cpu_trainer.bmm",
    .words = {{"batched", Stack::CpuBmm::batched}, {"per_item", Stack::CpuBmm::per_item}},
    .fallback = kBuiltIn.cpu_bmm,
    .meaning = "How a CPU trainer runs a batched GEMM (the dot interaction's): batched: one GEMM over the batch on the "
               "socket's cores (MKL's batched GEMM, IPEX's interaction kernel); per_item: one BLAS call per item in a "
               "loop on one core, as PyTorch's CPU bmm does in a build without MKL (pytorch/pytorch@v1.13.1 "
               "aten/src/ATen/native/LinearAlgebra.cpp bmm_out_or_baddbmm_, Debian's python3-torch)."};
const Param<Seconds> kBmmItemCall{
    .key_path = "software.cpu_trainer.bmm_item_call", .unit = "s (\"1.167 us\")",
    .fallback = kBuiltIn.bmm_item_call,
    .default_note = "measured: torch 1.13 bmm per item, OpenBLAS 0.3.21 (AVX-512 kernels), Xeon (Emerald Rapids) guest (validation/cpu/pytorch-bmm-intel-xeon-emr-2cpu.yaml)",
    .range = {.min = Bound<Seconds>{Seconds{0.0}}},
    .meaning = "bmm per_item: the fixed cost of one item (its three select()s, mm's checks, the BLAS call)."};
const Param<double> kBmmItemEfficiency{
    .key_path = "software.cpu_trainer.bmm_item_efficiency", .unit = "fraction",
    .fallback = kBuiltIn.bmm_item_efficiency,
    .default_note = "measured with bmm_item_call (the line's FLOP rate over a 2048^3 torch.mm's on the same thread)",
    .range = {.min = Bound<double>{0.0, false, "expected a fraction of one core's peak above 0"},
              .max = Bound<double>{1.0, true, "expected a fraction of one core's peak, at most 1"}},
    .meaning = "bmm per_item: an item's GEMM rate as a fraction of one core's large-GEMM rate (the socket's peak / "
               "cores x its CPU profile's large-GEMM efficiency)."};

/// A section of the stack: a mapping whose keys follow it in the table.
ParameterRow section(std::string_view key_path, std::string_view range, std::string_view meaning) {
  return {key_path, "", "the defaults below", std::string(range), meaning};
}

}  // namespace

std::span<const Parameter> software_parameters() {
  static const ParameterTable table({
      kName.row(),
      kDescription.row(),
      kSource.row(),
      section("software.dense", "{precision}", "The dense part's arithmetic."),
      kDensePrecision.row(),
      section("software.embeddings", "{kernel, backward, optimizer, input_distribution, host_update}",
              "The embedding kernels and how the sparse inputs reach them."),
      kKernel.row(),
      kBackward.row(),
      kOptimizer.row(),
      kInputDistribution.row(),
      kPipeline.row(),
      kPrefetch.row(),
      kHostUpdate.row(),
      section("software.collectives", "a mapping", "The collective library (NCCL) and how it is used."),
      kPeerToPeer.row(),
      kNvlinkRelay.row(),
      kAllreduceBucket.row(),
      kAllreduceOverlap.row(),
      kLaunchDelay.row(),
      kSms.row(),
      kNccl.row(),
      kCollnet.row(),
      kAllToAll.row(),
      section("software.collectives.qcomm", "{forward, backward, all_reduce, int8_row_dim}",
              "Quantised communication: the GPU all-to-all's and the dense all-reduce's wire types and codec kernels."),
      kQcommForward.row(),
      kQcommBackward.row(),
      kQcommAllReduce.row(),
      kQcommRowDim.row(),
      section("software.embedding_workers", "{embeddings, gradients, per_id, rpc_latency}",
              "The Persia modes' CPU embedding workers: what they exchange with the trainers, their per-id work."),
      kWorkerEmbeddings.row(),
      kWorkerGradients.row(),
      kWorkerPerId.row(),
      kWorkerRpcLatency.row(),
      section("software.host", "a mapping", "The work of each GPU trainer's host thread."),
      kLaunch.row(),
      kDispatch.row(),
      kFeatureOperators.row(),
      kSync.row(),
      section("software.host.framework", "{per_step, per_sample}",
              "The framework's own host work that is not operator dispatch, on the trainer's host thread."),
      kFrameworkPerStep.row(),
      kFrameworkPerSample.row(),
      section("software.host.loader", "{per_sample, workers, batches_in_flight}",
              "Data loading on the trainer node's cores, and how many batches its reader keeps in flight."),
      kLoaderPerSample.row(),
      kLoaderWorkers.row(),
      kLoaderInFlight.row(),
      section("software.cpu_trainer", "{framework, optimizer, coalesce_per_lookup, bmm, bmm_item_call, bmm_item_efficiency}",
              "The framework work of a CPU trainer (cpu_only) on its socket's cores."),
      kCpuFramework.row(),
      kCpuOptimizer.row(),
      kCoalescePerLookup.row(),
      kCpuBmm.row(),
      kBmmItemCall.row(),
      kBmmItemEfficiency.row(),
  });
  return table.parameters();
}

SoftwareStack SoftwareStack::from_config(const ConfigNode& node) {
  if (!node.is_map()) node.fail("expected a software stack: a mapping with name, dense, embeddings, collectives");
  SoftwareStack s;
  s.name = kName.read(node);
  s.description = kDescription.read(node);
  s.source = kSource.read(node);
  if (auto dense = node.optional_child("dense")) {
    s.dense_precision = kDensePrecision.read(*dense);
    dense->finish();
  }
  if (auto emb = node.optional_child("embeddings")) {
    s.embedding_kernel = kKernel.read(*emb);
    s.deduplicated_backward = kBackward.read(*emb);
    s.fused_optimizer = kOptimizer.read(*emb);
    s.input_distribution = kInputDistribution.read(*emb);
    s.pipeline = kPipeline.read(*emb);
    s.prefetch = kPrefetch.read(*emb);
    s.striped_host_updates = kHostUpdate.read(*emb);
    emb->finish();
  }
  if (auto coll = node.optional_child("collectives")) {
    s.peer_to_peer = kPeerToPeer.read(*coll);
    s.nvlink_relay = kNvlinkRelay.read(*coll);
    s.allreduce_bucket = kAllreduceBucket.read(*coll);
    s.allreduce_overlaps_backward = kAllreduceOverlap.read(*coll);
    s.collective_launch = kLaunchDelay.read(*coll);
    s.collective_sms = kSms.read_optional(*coll);
    s.nccl = kNccl.read(*coll);
    s.collnet = kCollnet.read(*coll);
    s.hierarchical_all_to_all = kAllToAll.read(*coll);
    if (auto q = coll->optional_child("qcomm")) {
      s.qcomm.forward = kQcommForward.read(*q);
      s.qcomm.backward = kQcommBackward.read(*q);
      s.qcomm.all_reduce = kQcommAllReduce.read(*q);
      s.qcomm.int8_row_dim = kQcommRowDim.read(*q);
      q->finish();
    }
    coll->finish();
  }
  if (auto ew = node.optional_child("embedding_workers")) {
    s.worker_embeddings = kWorkerEmbeddings.read(*ew);
    s.worker_gradients = kWorkerGradients.read(*ew);
    s.worker_per_id = kWorkerPerId.read(*ew);
    s.worker_rpc_latency = kWorkerRpcLatency.read(*ew);
    ew->finish();
  }
  if (auto host = node.optional_child("host")) {
    s.per_kernel_launch = kLaunch.read(*host);
    s.dispatch = kDispatch.read(*host);
    s.feature_operators = kFeatureOperators.read(*host);
    s.sync = kSync.read(*host);
    if (auto framework = host->optional_child("framework")) {
      s.framework_per_step = kFrameworkPerStep.read(*framework);
      s.framework_per_sample = kFrameworkPerSample.read(*framework);
      framework->finish();
    }
    if (auto loader = host->optional_child("loader")) {
      s.loader_per_sample = kLoaderPerSample.read(*loader);
      s.loader_workers = kLoaderWorkers.read(*loader);
      s.loader_batches_in_flight = kLoaderInFlight.read(*loader);
      loader->finish();
    }
    host->finish();
  }
  if (auto cpu = node.optional_child("cpu_trainer")) {
    s.cpu_framework = kCpuFramework.read(*cpu);
    s.cpu_fused_optimizer = kCpuOptimizer.read(*cpu);
    s.coalesce_per_lookup = kCoalescePerLookup.read(*cpu);
    s.cpu_bmm = kCpuBmm.read(*cpu);
    s.bmm_item_call = kBmmItemCall.read(*cpu);
    s.bmm_item_efficiency = kBmmItemEfficiency.read(*cpu);
    cpu->finish();
  }
  node.finish();
  return s;
}

int SoftwareStack::nccl_sms(int sm_count, bool nvlink) const {
  // NVIDIA/nccl issue 689 (see the header): NCCL launches the fewest CTAs that reach the
  // platform's bandwidth, one per SM: 16 on a DGX-class node, 2 on a PCIe node.
  const int nccl_choice = nvlink ? 16 : 2;
  return std::min(collective_sms.value_or(nccl_choice), sm_count);
}

Precision SoftwareStack::dense_compute_precision(Precision model_precision) const {
  return dense_precision.value_or(model_precision);
}

}  // namespace dlrmsim::models
